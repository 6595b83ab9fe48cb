"""A point: a directory holding a RunPlan to run once (a study's, a
tune's, a spread's pass), its files and its state -- read from its own
files only, each written atomically.

    write_point(dir, plan, info)    make (or update) a point
    state(dir), states(dirs)        where a point is (done, running, queued,
                                    failed, unreadable, todo)
    result(dir), failure(dir)       its JSON summary, its last failed attempt
    to_run(dirs, ...), Outcome      which of many points are left to run;
                                    what an engine did with them

A point directory holds, besides what its caller puts there:

    plan.pickle     the RunPlan (launch.simulate runs it)
    point.json      the caller's description of it (free; a study's factors)
    result.json     the run's summary, written atomically: the point is done
    failed.json     the last attempt failed: its message, exit status, attempt
                    number, host and date; failed-stderr.txt, the tail of its
                    simulator's stderr; run/ keeps its files
    running.json    the attempt in progress: host, pid (the worker), its
                    simulator's process group, Slurm job, start
    lock            locked (flock) by the worker while it runs the point, and
                    by its simulator, which inherits the lock: the point is
                    running exactly when it is locked, also when its worker
                    was killed (kill -9, the OOM killer) and left its
                    simulator running, orphaned, in the point's run/ -- no
                    other simulator starts there until that one ends
    queued.json     submitted to Slurm: the job and the array task
    run/            the last attempt's run directory (its tmp/ removed once done)

Nothing is shared between points: every file a worker writes is its
point's, and results are read from the points, never from a file several
writers append to.  A point killed half-way (worker and simulator) has
no result.json and no lock: it is to do again, and nothing else is lost.

A queued point's state asks Slurm whether its job still holds it
(slurm.slurm_live_tasks, or the caller's live_tasks).
"""

import dataclasses
import errno
import fcntl
import json
import os
import pickle
import socket
from typing import Optional

from . import procs
from .files import write_atomic
from .slurm import slurm_live_tasks

PLAN, INFO, RESULT, FAILED, FAILED_TAIL = "plan.pickle", "point.json", "result.json", "failed.json", "failed-stderr.txt"
RUNNING, LOCK, QUEUED, RUNDIR = "running.json", "lock", "queued.json", "run"
STATES = ("done", "running", "queued", "failed", "unreadable", "todo")


def _path(d, name):
    return os.path.join(d, name)


def _read_json(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def _write_json(path, obj):
    write_atomic(path, json.dumps(obj, indent=2) + "\n")


def _unlink(path):
    try:
        os.unlink(path)
    except FileNotFoundError:
        pass


def write_point(d, plan, info=None):
    """Make the point directory d (or update it): its plan and, if given, its
    description (anything JSON takes).  A done point keeps its result."""
    os.makedirs(d, exist_ok=True)
    tmp = _path(d, PLAN + ".new")
    with open(tmp, "wb") as f:
        pickle.dump(plan, f, protocol=pickle.HIGHEST_PROTOCOL)
    os.replace(tmp, _path(d, PLAN))
    if info is not None:
        _write_json(_path(d, INFO), info)


def info(d):
    return _read_json(_path(d, INFO))


def result(d):
    """The point's summary (the JSON of `simblas-hpl run`), or None (none,
    or one that cannot be read: state() says which)."""
    r = _read_json(_path(d, RESULT))
    return r if isinstance(r, dict) else None


def failure(d):
    """The last failed attempt ({message, status, attempt, host, when}), or None."""
    return _read_json(_path(d, FAILED))


def locked(d):
    """True while a worker runs the point (holds its lock)."""
    try:
        fd = os.open(_path(d, LOCK), os.O_RDONLY)
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        return False
    except OSError as e:
        return e.errno in (errno.EAGAIN, errno.EACCES)
    finally:
        os.close(fd)


def runner(d):
    """Who runs point d, a running one: its running.json (host, pid,
    simulator, attempt, job, started; {} when it has none yet) and
    'worker': 'alive', 'gone' -- a worker of this host that died (kill -9,
    the OOM killer) and left its simulator running, orphaned, holding the
    lock -- or None when it cannot be told (another host)."""
    r = _read_json(_path(d, RUNNING)) or {}
    pid, start = r.get("pid"), r.get("pid_start")
    r["worker"] = None
    if isinstance(pid, int) and r.get("host") == socket.gethostname() and os.path.isdir("/proc"):
        now = procs.started(pid)
        r["worker"] = "alive" if now is not None and (start is None or now == start) else "gone"
    return r


def orphaned(d, r):
    """What to say of point d when runner(d) r says its worker is gone."""
    g = r.get("simulator")
    stop = (f"stop it with: kill -- -{g}" if isinstance(g, int) else
            f"stop it by killing the processes that hold {_path(d, LOCK)} (fuser -k {_path(d, LOCK)})")
    return (f"its worker (pid {r.get('pid')}) died and left its simulator running, orphaned"
            + (f" (process group {g})" if isinstance(g, int) else "")
            + f", since {r.get('started', '?')}: the point is not run again until that simulator ends "
            f"(its result is not recorded); {stop}")


def state(d, live_tasks=None):
    """'done', 'running', 'queued' (in a Slurm job that has not started it),
    'failed' (its last attempt), 'unreadable' (a result.json that is not a
    summary: truncated, corrupt; to do again) or 'todo'.  live_tasks(job) -> the set of the
    job's array tasks still in Slurm's queue, or None when Slurm cannot say
    (then a queued point counts as queued)."""
    if os.path.exists(_path(d, RESULT)):
        if result(d) is not None:
            return "done"
        return "running" if locked(d) else "unreadable"
    if locked(d):
        return "running"
    q = _read_json(_path(d, QUEUED))
    if q:
        live = (live_tasks or slurm_live_tasks)(q.get("job"))
        if live is None or q.get("task") in live:
            return "queued"
    if os.path.exists(_path(d, FAILED)):
        return "failed"
    return "todo"


def states(dirs, live_tasks=None, asked=None):
    """{dir: state}, asking Slurm once per job; asked (a dict), when given,
    is filled with what Slurm answered of each job (None: it did not)."""
    cache = {} if asked is None else asked

    def live(job):
        if job not in cache:
            cache[job] = (live_tasks or slurm_live_tasks)(job)
        return cache[job]
    return {d: state(d, live) for d in dirs}


# ---- many points: what is left to run, and what an engine did ----------------------
def to_run(dirs, retry_failed, say, wait=False):
    """The points' states and those to run; the points running or queued
    elsewhere said to be left to their job unless the caller waits for them
    (slurm_engine.wait_job says so then)."""
    st = states(dirs)
    todo = [d for d in dirs if st[d] in ("todo", "unreadable") or (retry_failed and st[d] == "failed")]
    busy = {s: sum(1 for d in dirs if st[d] == s) for s in ("running", "queued")}
    if (busy["running"] or busy["queued"]) and not wait:
        say(f"{busy['running']} point(s) running and {busy['queued']} queued in a Slurm job elsewhere: left to them "
            f"(a point's {QUEUED} names its job; remove the file to run it here when the job is gone)")
    for d in dirs:
        r = runner(d) if st[d] == "running" else {}
        if r.get("worker") == "gone":
            say(f"{d}: {orphaned(d, r)}")
    return st, todo


@dataclasses.dataclass
class Outcome:
    """What run_points did: the points by state at its end (done, failed,
    running elsewhere, queued, todo), the Slurm job submitted (None
    locally), and whether it waited until nothing was left."""
    states: dict
    job: Optional[str] = None
    finished: bool = True

    def count(self, st):
        return sum(1 for s in self.states.values() if s == st)

    def of(self, st):
        return [d for d, s in self.states.items() if s == st]
