"""SIGTERM and SIGHUP turned into exceptions, as ^C is KeyboardInterrupt,
so that whatever runs (a simulation, a real mpirun, the workers of an
engine) is stopped cleanly by the code that started it."""

import os
import signal
import subprocess
import sys
import threading

from .errors import Terminated

TERM = (signal.SIGTERM, signal.SIGHUP)
STOPS = (signal.SIGINT,) + TERM


def raise_on_term(interrupt=False):
    """From now on, SIGTERM and SIGHUP raise Terminated(signum) in the main
    thread (with interrupt: KeyboardInterrupt, as ^C does); the handlers
    they had, {signal: handler}, for restore().  No handler of before is
    called.  Only the main thread can (ValueError in another)."""
    def raise_(signum, frame):
        if interrupt:
            raise KeyboardInterrupt
        raise Terminated(signum)
    return {sig: signal.signal(sig, raise_) for sig in TERM}


def restore(previous):
    """Put back the handlers raise_on_term() returned."""
    for sig, handler in previous.items():
        signal.signal(sig, handler)


def started_held(cmd, **kw):
    """subprocess.Popen(cmd, **kw) with ^C, SIGTERM and SIGHUP held (only
    noted) while it starts: one that came then, while the process existed
    and Popen had not returned it, would leave it running, unknown to the
    caller.  redeliver(proc.held_signals) sends them again once it can stop
    it.  (A process blocking the signals instead would pass the block on.)"""
    got = []
    held = {}
    if threading.current_thread() is threading.main_thread():
        held = {s: signal.signal(s, lambda signum, frame: got.append(signum)) for s in STOPS}
    try:
        proc = subprocess.Popen(cmd, **kw)
    finally:
        for s, h in held.items():
            signal.signal(s, h)
        if sys.exc_info()[0]:
            redeliver(got)  # (nothing to stop)
    proc.held_signals = got
    return proc


def redeliver(got):
    """Send this process the signals started_held noted (proc.held_signals)."""
    for signum in got:
        os.kill(os.getpid(), signum)
