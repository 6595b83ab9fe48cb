"""The worker: runs points in this process, one after the other, each
under its lock, writing its files (points.py says which).

    python -m simblas_hpl.worker run DIR...     the points DIR...: the local
                                                engine starts one per point,
                                                in a session of its own
    python -m simblas_hpl.worker task LIST K    a Slurm array task: the K
                                                points of the list LIST that
                                                are its share

worker_command() and worker_env() are how an engine starts one.
"""

import fcntl
import os
import pickle
import shutil
import signal
import socket
import sys
import time

from . import procs, signals
from .errors import CliError, Terminated
from .files import read_text, tail_lines
from .points import (FAILED, FAILED_TAIL, LOCK, PLAN, QUEUED, RESULT, RUNDIR, RUNNING, _path, _unlink, _write_json,
                     failure, result)

INTERRUPTED = (130, 128 + signal.SIGTERM, 128 + signal.SIGHUP)  # a worker's status when stopped
HELD = {signal.SIGTERM, signal.SIGHUP, signal.SIGINT}  # held while a result is written (and by the local engine)


def run_point(d, say=print):
    """Run point d in this process: 'done', 'failed', 'interrupted' (a
    signal stopped it: it is to do again) or 'busy' (another worker runs
    it).  The point's files say the same."""
    from . import launch  # the worker's import, not the engine's
    d = os.path.abspath(d)
    fd = os.open(_path(d, LOCK), os.O_RDWR | os.O_CREAT, 0o644)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            say(f"{d}: another worker runs it")
            return "busy"
        if result(d) is not None:
            return "done"
        if os.path.exists(_path(d, RESULT)):  # unreadable: kept aside, the point run again
            os.replace(_path(d, RESULT), _path(d, RESULT + ".unreadable"))
            say(f"{d}: its {RESULT} could not be read (kept as {RESULT}.unreadable): run again")
        prev = failure(d) or {}
        attempt = prev.get("attempt", 0) + 1
        job = os.environ.get("SLURM_ARRAY_JOB_ID") or os.environ.get("SLURM_JOB_ID")
        running = {"host": socket.gethostname(), "pid": os.getpid(), "pid_start": procs.started(os.getpid()),
                   "attempt": attempt, "job": job, "task": os.environ.get("SLURM_ARRAY_TASK_ID"),
                   "started": time.strftime("%Y-%m-%dT%H:%M:%S")}
        _write_json(_path(d, RUNNING), running)

        def started(pid):  # the simulator's process group, to stop it should this worker die
            _write_json(_path(d, RUNNING), dict(running, simulator=pid))
        rundir = _path(d, RUNDIR)
        shutil.rmtree(rundir, ignore_errors=True)
        os.makedirs(rundir)
        t0 = time.monotonic()
        try:
            with open(_path(d, PLAN), "rb") as f:
                plan = pickle.load(f)
            # the simulator holds the lock too: killed, this worker leaves
            # its point running (not to do) while its simulator lives
            summary = launch.simulate(plan, rundir, quiet=True, hold_fd=fd, started=started).summary
        except (KeyboardInterrupt, Terminated):  # before or after the simulator ran
            _unlink(_path(d, RUNNING))
            say(f"{d}: interrupted")
            return "interrupted"
        except CliError as e:
            if e.status in INTERRUPTED:
                _unlink(_path(d, RUNNING))
                say(f"{d}: interrupted")
                return "interrupted"
            _failed(d, str(e), e.status, attempt, rundir)
            say(f"{d}: FAILED (status {e.status}): {str(e).splitlines()[0]}")
            return "failed"
        except Exception as e:  # a bug of ours: the point fails, the others go on
            _failed(d, f"simblas-hpl failed: {type(e).__name__}: {e}", 1, attempt, rundir)
            say(f"{d}: FAILED: {type(e).__name__}: {e}")
            return "failed"
        summary["run_dir"] = rundir
        # the result is written whole, whatever signal arrives now
        signal.pthread_sigmask(signal.SIG_BLOCK, HELD)
        try:
            _write_json(_path(d, RESULT), summary)
            for name in (FAILED, FAILED_TAIL, RUNNING, QUEUED):
                _unlink(_path(d, name))
        finally:
            signal.pthread_sigmask(signal.SIG_UNBLOCK, HELD)
        shutil.rmtree(_path(rundir, "tmp"), ignore_errors=True)
        g = summary.get("gflops")
        say(f"{d}: done" + (f", {g:.6g} Gflops" if isinstance(g, (int, float)) else "")
            + f" ({time.monotonic() - t0:.1f} s)")
        return "done"
    finally:
        os.close(fd)  # the lock goes with it


def _failed(d, message, status, attempt, rundir):
    tail = tail_lines(read_text(_path(rundir, "stderr.txt")), 40)
    with open(_path(d, FAILED_TAIL), "w") as f:
        f.write(tail + "\n" if tail else "(the simulator wrote nothing on stderr)\n")
    _write_json(_path(d, FAILED), {"message": message, "status": status, "attempt": attempt,
                                   "host": socket.gethostname(), "when": time.strftime("%Y-%m-%dT%H:%M:%S"),
                                   "stderr_tail": FAILED_TAIL, "run_dir": rundir})
    _unlink(_path(d, RUNNING))
    _unlink(_path(d, QUEUED))  # its job ran it


def worker_main(argv):
    """python -m simblas_hpl.worker run DIR... | task LIST K"""
    signals.raise_on_term()  # SIGTERM, SIGHUP: Terminated (SIGINT: KeyboardInterrupt), a simulation stopped cleanly
    if len(argv) >= 2 and argv[0] == "run":
        dirs = argv[1:]
    elif len(argv) == 3 and argv[0] == "task":
        with open(argv[1]) as f:
            lines = [ln.rstrip("\n") for ln in f if ln.strip()]
        k, i = int(argv[2]), int(os.environ.get("SLURM_ARRAY_TASK_ID", "0"))
        dirs = lines[i * k:(i + 1) * k]
    else:
        print("usage: python -m simblas_hpl.worker run DIR... | task LIST K", file=sys.stderr)
        return 2
    said = lambda s: print(s, flush=True)  # noqa: E731
    worst = 0
    try:
        for d in dirs:
            r = run_point(d, said)
            if r == "interrupted":
                return 143
            worst = max(worst, r == "failed")
    except KeyboardInterrupt:
        return 130
    return worst


def worker_command(*args):
    """The command of a worker: this Python, this package."""
    return [sys.executable, "-m", "simblas_hpl.worker", *args]


def worker_env():
    pkg_parent = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    env = dict(os.environ)
    env["PYTHONPATH"] = pkg_parent + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    return env


if __name__ == "__main__":
    sys.exit(worker_main(sys.argv[1:]))
