"""SIGTERM and SIGHUP turned into exceptions, as ^C is KeyboardInterrupt,
so that whatever runs (a simulation, a real mpirun, the workers of an
engine) is stopped cleanly by the code that started it."""

import signal

from .errors import Terminated

TERM = (signal.SIGTERM, signal.SIGHUP)


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
