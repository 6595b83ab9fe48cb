"""The local engine: the points run on this machine by a pool of worker
processes (worker.py), jobs at once, each point a worker in a session of
its own; ^C (SIGTERM, SIGHUP) stops them in order, their points left to do.
"""

import os
import signal
import subprocess
import time

from . import procs, signals
from .errors import CliError, Terminated
from .points import Outcome, _path, failure, orphaned, result, runner, state, states, to_run
from .worker import HELD, worker_command, worker_env

STOP_WAIT_S = 20       # how long stopped workers get to stop their simulators before SIGKILL
POLL_S = 0.02          # the local engine's look at its workers


def default_jobs():
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:
        return os.cpu_count() or 1


def _unblock_held():
    """In a new worker, before it runs: the signals its engine held."""
    signal.pthread_sigmask(signal.SIG_UNBLOCK, HELD)


def run(dirs, jobs, retry_failed, say, poll_s):
    """engine.run_points' engine 'local': its points run here, jobs at once."""
    st, todo = to_run(dirs, retry_failed, say)
    total = len(todo)
    if not total:
        return Outcome(states(dirs))
    say(f"running {total} point(s), {min(jobs, total)} at a time (--engine local -j {jobs})")
    env = worker_env()
    running = {}  # Popen -> dir
    queue = list(todo)
    finished = 0
    previous = signals.raise_on_term()
    try:
        while queue or running:
            while queue and len(running) < jobs:
                d = queue.pop(0)
                # a signal held from the fork until the worker is in
                # `running`, which the stop goes through: a ^C arriving
                # inside Popen left its worker unknown, unstopped (seen in
                # test_engine under load); the worker starts unblocked
                signal.pthread_sigmask(signal.SIG_BLOCK, HELD)
                try:
                    with open(_path(d, "worker.log"), "w") as log:
                        # a session of its own: a terminal's ^C reaches this
                        # engine only, which stops the workers in order
                        p = subprocess.Popen(worker_command("run", d), env=env, stdin=subprocess.DEVNULL,
                                             stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
                                             preexec_fn=_unblock_held)
                    procs.keep_priority(p.pid)  # its session's share of the CPU as low as the engine's
                    running[p] = d
                finally:
                    signal.pthread_sigmask(signal.SIG_UNBLOCK, HELD)
            time.sleep(poll_s)
            for p in [p for p in running if p.poll() is not None]:
                d = running.pop(p)
                finished += 1
                s = state(d)
                r = result(d) if s == "done" else None
                gone = runner(d) if s == "running" else {}
                what = (f"{r['gflops']:.6g} Gflops, wall {r.get('wall_s', 0):.1f} s"
                        if r and isinstance(r.get("gflops"), (int, float)) else
                        f"worker exit status {p.returncode}: " + orphaned(d, gone) if gone.get("worker") == "gone" else
                        (failure(d) or {}).get("message", "").split("\n")[0] if s == "failed" else
                        f"worker exit status {p.returncode}, see {_path(d, 'worker.log')}" if s != "done" else "")
                say(f"[{finished}/{total}] {s}: {d}" + (f": {what}" if what else ""))
    except (KeyboardInterrupt, Terminated) as e:
        code = 128 + e.signum if isinstance(e, Terminated) else 130
        _stop_workers(running, say)
        left = states(dirs)
        done = sum(1 for s in left.values() if s == "done")
        raise CliError(f"interrupted: the {len(running)} running point(s) were stopped and are to do again; "
                       f"{done} of {len(dirs)} done. Run it again to resume", code)
    finally:
        signals.restore(previous)
    return Outcome(states(dirs))


def _stop_workers(running, say):
    """SIGTERM to each worker (which stops its simulator and leaves its point
    to do), SIGKILL to those still there after STOP_WAIT_S."""
    if running:
        say(f"stopping {len(running)} running point(s)...")
    for p in running:
        try:
            os.killpg(p.pid, signal.SIGTERM)
        except ProcessLookupError:
            pass
    deadline = time.monotonic() + STOP_WAIT_S
    for p in running:
        try:
            p.wait(timeout=max(0.1, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            try:
                os.killpg(p.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            p.wait()
        except KeyboardInterrupt:  # a second ^C: now
            os.killpg(p.pid, signal.SIGKILL)
            p.wait()
