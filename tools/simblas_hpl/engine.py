"""The engine that runs many simulations: points, each a directory holding
its RunPlan, run on this machine by a pool of worker processes (`local`)
or on a Slurm cluster as one job array (`slurm`).

    write_point(dir, plan, info)    make (or update) a point
    run_points(dirs, engine=...)    run what is not done; return when all is
                                    finished, or once submitted to Slurm
    state(dir), result(dir)         where a point is, and its JSON summary

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

A worker is `python -m simblas_hpl.engine run DIR...` (the local engine
starts one per point, in a session of its own) or `... task LIST K` (a
Slurm array task runs the K points of LIST that are its share).
"""

import dataclasses
import errno
import fcntl
import itertools
import json
import os
import pickle
import re
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import time
from typing import Optional

from . import procs, signals
from .errors import CliError, Terminated, note
from .files import read_text, tail_lines, write_atomic

PLAN, INFO, RESULT, FAILED, FAILED_TAIL = "plan.pickle", "point.json", "result.json", "failed.json", "failed-stderr.txt"
RUNNING, LOCK, QUEUED, RUNDIR = "running.json", "lock", "queued.json", "run"
STATES = ("done", "running", "queued", "failed", "unreadable", "todo")
INTERRUPTED = (130, 128 + signal.SIGTERM, 128 + signal.SIGHUP)  # a worker's status when stopped
STOP_WAIT_S = 20       # how long stopped workers get to stop their simulators before SIGKILL
POLL_S = 0.02          # the local engine's look at its workers
SBATCH_TIMEOUT_S = 60  # sbatch answers at once; beyond this the controller is taken as unreachable
SQUEUE_POLL_S = 1.0    # --wait on Slurm: squeue every second (sbatch --wait polls every 2-10 s)
STUCK_S = 10           # --wait: a pending reason that never resolves, held this long, ends the wait (the
                       # controller's first may be provisional: PartitionConfig, then PartitionTimeLimit)
LOCAL_SLURM = "sh scripts/local-slurm.sh start"
FOLLOW = "`simblas-hpl study status` follows it"  # after a ^C while waiting for a study's job
SUBMISSIONS = itertools.count()  # this process's Slurm submissions: each stamp its own


# ---- a point's files --------------------------------------------------------------
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


# ---- a worker: one point ------------------------------------------------------------
HELD = {signal.SIGTERM, signal.SIGHUP, signal.SIGINT}


def _unblock_held():
    """In a new worker, before it runs: the signals its engine held."""
    signal.pthread_sigmask(signal.SIG_UNBLOCK, HELD)


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
    """python -m simblas_hpl.engine run DIR... | task LIST K"""
    signals.raise_on_term()  # SIGTERM, SIGHUP: Terminated (SIGINT: KeyboardInterrupt), a simulation stopped cleanly
    if len(argv) >= 2 and argv[0] == "run":
        dirs = argv[1:]
    elif len(argv) == 3 and argv[0] == "task":
        with open(argv[1]) as f:
            lines = [ln.rstrip("\n") for ln in f if ln.strip()]
        k, i = int(argv[2]), int(os.environ.get("SLURM_ARRAY_TASK_ID", "0"))
        dirs = lines[i * k:(i + 1) * k]
    else:
        print("usage: python -m simblas_hpl.engine run DIR... | task LIST K", file=sys.stderr)
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


# ---- the engines ------------------------------------------------------------------
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


def default_jobs():
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:
        return os.cpu_count() or 1


def worker_command(*args):
    """The command of a worker: this Python, this package."""
    return [sys.executable, "-m", "simblas_hpl.engine", *args]


def worker_env():
    pkg_parent = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    env = dict(os.environ)
    env["PYTHONPATH"] = pkg_parent + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    return env


def run_points(dirs, engine="local", jobs=None, slurm_opts=(), wait=True, spool=None, per_task=1,
               retry_failed=True, say=note, poll_s=None, follow=FOLLOW):
    """Run the points of dirs that are not done (nor running, nor queued in
    a live Slurm job); failed ones again when retry_failed.

    engine 'local': jobs workers at once (default: the cores), each point a
    worker process; returns when all are finished.  ^C (or SIGTERM, SIGHUP)
    stops the running points cleanly -- they are to do again -- and raises
    CliError (status 130 or 128 + the signal).

    engine 'slurm': one sbatch --array job, per_task points per task, with
    the sbatch options slurm_opts (partition, time, memory...); its script,
    point list and task logs go in spool (default: the points' common
    parent's .engine/).  With wait, polls squeue until the job is gone and
    no point of dirs is queued or running elsewhere (an earlier job); else
    returns once submitted.  follow: what a ^C while waiting tells to do.  An unreachable Slurm is a CliError
    (status 2) before anything is submitted.

    Returns an Outcome; say(msg) reports progress (None: silence)."""
    say = say or (lambda msg: None)
    dirs = [os.path.abspath(d) for d in dirs]
    for d in dirs:
        if not os.path.isfile(_path(d, PLAN)):
            raise CliError(f"{d}: not a point (no {PLAN}): make it with engine.write_point", 1)
    if engine == "slurm":
        return _run_slurm(dirs, slurm_opts, wait, spool, per_task, retry_failed, say,
                          SQUEUE_POLL_S if poll_s is None else poll_s, follow)
    if engine != "local":
        raise CliError(f"--engine {engine}: unknown; the engines are local and slurm")
    return _run_local(dirs, jobs or default_jobs(), retry_failed, say, POLL_S if poll_s is None else poll_s)


def _to_run(dirs, retry_failed, say, wait=False):
    """The points' states and those to run; the points running or queued
    elsewhere said to be left to their job unless the caller waits for them
    (wait_job says so then)."""
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


def _run_local(dirs, jobs, retry_failed, say, poll_s):
    st, todo = _to_run(dirs, retry_failed, say)
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


# ---- Slurm ------------------------------------------------------------------------
def _slurm(cmd, timeout=30):
    """(status, stdout, stderr) of a Slurm command; status None when it is missing."""
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, stdin=subprocess.DEVNULL)
    except FileNotFoundError:
        return None, "", f"{cmd[0]}: command not found"
    except subprocess.TimeoutExpired:
        return None, "", f"{cmd[0]} did not answer within {timeout} s"
    return p.returncode, p.stdout, p.stderr


def unreachable(why):
    return CliError(f"Slurm is unreachable ({why}): on a machine without a cluster, start this machine's "
                    f"one-node cluster with `{LOCAL_SLURM}` (as root, from the SimBLAS source tree), "
                    "or run with --engine local")


def check_slurm():
    """CliError (status 2) unless sbatch, squeue and a controller answer."""
    for prog in ("sbatch", "squeue", "sinfo"):
        if not shutil.which(prog):
            raise unreachable(f"{prog} is not installed (Debian's slurm-wlm)")
    rc, out, err = _slurm(["sinfo", "-h", "-o", "%P"], timeout=20)
    if rc != 0:
        lines = (err or out).strip().splitlines()
        raise unreachable(lines[-1] if lines else f"sinfo exited with status {rc}")


class Tasks(set):
    """The array task ids of a job in Slurm's queue; pending: of those
    pending, {task: (reason, partition, time limit)} as squeue gives them."""

    def __init__(self, tasks=(), pending=None):
        super().__init__(tasks)
        self.pending = pending or {}


def slurm_live_tasks(job):
    """The array task ids of job still in Slurm's queue (pending or
    running), a Tasks, or None when Slurm cannot be asked."""
    if not job or not shutil.which("squeue"):
        return None
    # one line per task: '3 PENDING local 4-03:00:00 PartitionTimeLimit' (the reason may hold spaces:
    # 'ReqNodeNotAvail, UnavailableNodes:n[1-2]'; a running task's is None)
    rc, out, err = _slurm(["squeue", "-h", "-r", "-j", str(job), "-o", "%K %T %P %l %r"], timeout=20)
    if rc is None:
        return None
    if rc != 0:  # a job that left the queue long ago: "Invalid job id specified"
        return Tasks() if "nvalid job id" in err else None
    tasks = Tasks()
    for ln in out.splitlines():
        f = ln.split(None, 4)
        if f and f[0].isdigit():
            tasks.add(int(f[0]))
            if len(f) == 5 and f[1] == "PENDING":
                tasks.pending[int(f[0])] = (f[4].strip(), f[2], f[3])
    return tasks


# ---- why a job waits: squeue's reason for its pending tasks (Slurm 22.05's man squeue, JOB REASON CODES) ----
# reasons waiting resolves, and what they mean ({job}, {part}: the job, its partition)
WAITS = {
    "Priority": "jobs of higher priority go first",
    "Resources": "the CPUs or memory it asks for are in use",
    "Dependency": "it waits for the jobs it depends on",
    "BeginTime": "its --begin time has not come",
    "JobArrayTaskLimit": "its array's limit of tasks at once is reached",
    "JobHeldUser": "held: `scontrol release {job}` lets it start",
    "JobHeldAdmin": "held by an administrator",
    "PartitionDown": "partition {part} is down: it starts once an administrator brings it up (`sinfo -p {part}`)",
    "PartitionInactive": "partition {part} is inactive: it starts once an administrator brings it up "
                         "(`sinfo -p {part}`)",
    "ReqNodeNotAvail": "a node it requires is in use, reserved, down or drained",
    "NodeDown": "a node it requires is down",
    "Reservation": "its reservation has not begun",
    "Licenses": "the licenses it asks for are in use",
    "Cleaning": "requeued, its last run still cleaning up",
}
# reasons waiting does not resolve: the job asks for what its partition, account or QOS never gives, or its
# dependency failed: (what it means, the remedy), {limit} the job's time limit, {max} the partition's MaxTime
NEVER = {
    "PartitionTimeLimit": ("its time limit, {limit}, is over partition {part}'s MaxTime{max}",
                           "a --slurm-opt=--time=... within partition {part}'s MaxTime{max} "
                           "(`scontrol show partition {part}` gives it)"),
    "PartitionNodeLimit": ("its node count is outside partition {part}'s MinNodes-MaxNodes, or nodes it requires "
                           "are down or drained", "a --slurm-opt -N within the limits `scontrol show partition {part}` "
                           "gives, or nodes `sinfo -p {part}` shows up"),
    "PartitionConfig": ("it does not fit partition {part}: its time limit, {limit}, against the MaxTime{max}, or "
                        "its nodes, CPUs or memory against the partition's nodes",
                        "a --slurm-opt that fits (`scontrol show job {job}` against `scontrol show partition "
                        "{part}`)"),
    "BadConstraints": ("its constraints cannot be satisfied by partition {part}'s nodes",
                       "a --slurm-opt=--constraint=... of the features `sinfo -p {part} -o %f` lists"),
    "AccountNotAllowed": ("its account may not use partition {part}",
                          "a --slurm-opt --account or --partition allowed (`scontrol show partition {part}`)"),
    "QOSNotAllowed": ("its QOS may not use partition {part}, or its account may not use the QOS",
                      "a --slurm-opt --qos allowed (`scontrol show partition {part}`, `sacctmgr show assoc`)"),
    "InvalidAccount": ("its account is not one Slurm knows for the user",
                       "a --slurm-opt --account of `sacctmgr show assoc user=$USER`"),
    "InvalidQOS": ("its QOS is not one Slurm knows for its account",
                   "a --slurm-opt --qos of `sacctmgr show assoc user=$USER format=account,qos`"),
    "DependencyNeverSatisfied": ("a job it depends on ended so that it never will", "a --slurm-opt --dependency "
                                 "that can still be satisfied, or none"),
    "ReservationDeleted": ("its reservation was deleted", "another --slurm-opt --reservation, or none"),
}
PER_JOB = re.compile(r"^(Assoc|QOS)Max\w*Per(Job|Node)(Limit)?$")  # a per-job limit: AssocMaxWallDurationPerJobLimit
QOS_MIN = re.compile(r"^QOSMin\w+$")  # below the QOS's minimum: QOSMinCpuNotSatisfied


def reason_code(reason):
    """'ReqNodeNotAvail' of 'ReqNodeNotAvail, UnavailableNodes:n1'."""
    return reason.split(",")[0].split()[0] if reason.strip() else ""


def pending_reasons(tasks):
    """The reasons squeue gives for the pending tasks of a job (Tasks), each
    once, in task order, with the partition and time limit of the task
    that has it first; not None nor WaitingForScheduling (no reason yet)."""
    out = {}
    for t in sorted(getattr(tasks, "pending", None) or {}):
        reason, part, limit = tasks.pending[t]
        if reason_code(reason) not in ("", "None", "WaitingForScheduling") and reason not in out:
            out[reason] = (part, limit)
    return out


def never_starts(reason):
    """(meaning, remedy) templates of a reason waiting does not resolve, or None."""
    code = reason_code(reason)
    if code in NEVER:
        return NEVER[code]
    if PER_JOB.match(code):
        return ("it asks for more than a per-job limit of its " + ("QOS" if code.startswith("QOS") else "association")
                + " allows", "a --slurm-opt within that limit (`sacctmgr show qos`, `sacctmgr show assoc "
                "user=$USER`)")
    if QOS_MIN.match(code):
        return ("it asks for less than its QOS's minimum", "a --slurm-opt that asks at least that minimum "
                "(`sacctmgr show qos`)")
    return None


def pending_line(job, reasons):
    """'Slurm job J pending: Priority (jobs of higher priority go first)'."""
    def one(reason, part):
        code = reason_code(reason)
        meaning = (WAITS.get(code) or ("its association has reached an aggregate limit: it starts as other jobs end"
                                       if code.startswith("AssocGrp") else
                                       "its QOS has reached an aggregate limit: it starts as other jobs end"
                                       if code.startswith("QOSGrp") else ""))
        return reason + (f" ({meaning.format(job=job, part=part)})" if meaning else "")
    return f"Slurm job {job} pending: " + "; ".join(one(r, p) for r, (p, _) in reasons.items())


def partition_max_time(part):
    """Partition part's MaxTime as sinfo gives it ('1:00:00'), or None."""
    if not part or "," in part:
        return None
    rc, out, err = _slurm(["sinfo", "-h", "-p", part, "-o", "%l"], timeout=20)
    t = out.strip().splitlines()[0].strip() if rc == 0 and out.strip() else ""
    return t if re.match(r"^(\d+-)?\d+(:\d+)*$", t) else None


def stuck(job, reason, part, limit):
    """The CliError (status 1) of a job pending for a reason waiting does not
    resolve: what it means and the remedy; the job is left as it is."""
    meaning, remedy = never_starts(reason)
    mx = partition_max_time(part) if reason_code(reason) in ("PartitionTimeLimit", "PartitionConfig") else None
    fill = dict(job=job, part=part, limit=limit, max=f", {mx}" if mx else "")
    return CliError(f"Slurm job {job} will not start: it is pending for {reason} ({meaning.format(**fill)}), which "
                    f"waiting does not resolve; stopped waiting, the job left as it is: `scancel {job}`, then run "
                    f"again with {remedy.format(**fill)}; until then its points stay queued in it", 1)


def parse_job_id(out):
    """sbatch --parsable prints 'id' or 'id;cluster'."""
    first = out.strip().splitlines()[-1] if out.strip() else ""
    job = first.split(";")[0].strip()
    if not job.isdigit():
        raise CliError(f"sbatch answered {out.strip()!r}, not a job id", 1)
    return job


def slurm_options(opts):
    """--slurm-opt values, each split as a shell would ('-p big --time 60')."""
    out = []
    for o in opts or ():
        try:
            out += shlex.split(o)
        except ValueError as e:
            raise CliError(f"--slurm-opt {o!r}: {e}")
    for o in out:
        if o.startswith(("--array", "-a", "--wrap", "--parsable")):
            raise CliError(f"--slurm-opt {o}: the engine sets it (the array is its points); drop it")
        if o.startswith(("--output", "--error", "-o", "-e")):  # (not --exclusive: that is "--e...")
            raise CliError(f"--slurm-opt {o}: the engine puts the task logs in its spool (slurm-JOB_TASK.out), "
                           "which its messages name; drop it")
        if o.startswith("--test-only"):
            raise CliError(f"--slurm-opt {o}: sbatch would only check the job and submit nothing, so no point "
                           "would run; drop it (sbatch --test-only on its own checks the options)")
        if o in ("--wait", "-W"):
            raise CliError(f"--slurm-opt {o}: sbatch would wait for the job to end before saying its id, and the "
                           "engine, which records it, gives up after a minute: drop it (give simblas-hpl's own --wait)")
    return out


def submitted_as(tag):
    """The job id of the study job whose comment is tag, if squeue shows one;
    None when it shows none; False when squeue did not answer."""
    rc, out, err = _slurm(["squeue", "-h", "-n", "simblas-study", "-o", "%F %k"], timeout=20)
    if rc != 0:
        return False
    for line in out.splitlines():
        fields = line.split()
        if len(fields) == 2 and fields[1] == tag:
            return fields[0]
    return None


def _spool(dirs, spool):
    if spool:
        return os.path.abspath(spool)
    common = os.path.commonpath(dirs) if dirs else os.getcwd()
    if common in dirs:
        common = os.path.dirname(common)
    return os.path.join(common, ".engine")


def _run_slurm(dirs, slurm_opts, wait, spool, per_task, retry_failed, say, poll_s, follow=FOLLOW):
    opts = slurm_options(slurm_opts)
    if per_task < 1:
        raise CliError(f"--per-task {per_task}: must be >= 1")
    check_slurm()
    st, todo = _to_run(dirs, retry_failed, say, wait)
    if not todo:
        if wait and any(s in ("queued", "running") for s in st.values()):
            return wait_job(None, [], dirs, None, say, poll_s, follow)
        return Outcome(states(dirs))
    spool = _spool(dirs, spool)
    os.makedirs(spool, exist_ok=True)
    # the submission's stamp, its list's and tag's: two of one process in one second shared one (the second list
    # overwrote the first under its job, whose tasks then ran the second's points; a late sbatch's tag matched both)
    n = next(SUBMISSIONS)
    stamp = time.strftime("%Y%m%d-%H%M%S") + f"-{os.getpid()}" + (f".{n}" if n else "")
    lst = os.path.join(spool, f"points-{stamp}.txt")
    write_atomic(lst, "".join(d + "\n" for d in todo))
    script = os.path.join(spool, "task.sh")
    env = worker_env()
    write_atomic(script, "#!/bin/sh\n# written by simblas-hpl's engine: an array task runs its share ($2 points)"
                 " of the list $1\n"
                 f"PYTHONPATH={shlex.quote(env['PYTHONPATH'])}\nexport PYTHONPATH\n"
                 "exec " + " ".join(shlex.quote(c) for c in worker_command("task")) + ' "$1" "$2"\n')
    os.chmod(script, 0o755)
    ntasks = -(-len(todo) // per_task)
    # the submission's tag (its comment), by which a job that sbatch submitted without saying its id in
    # time is found in the queue (submitting again would run its points twice)
    tag = f"simblas-{stamp}"
    cmd = ["sbatch", "--parsable", f"--array=0-{ntasks - 1}", "--job-name=simblas-study", "--cpus-per-task=1",
           f"--output={os.path.join(spool, 'slurm-%A_%a.out')}", f"--comment={tag}", *opts, script, lst,
           str(per_task)]
    rc, out, err = _slurm(cmd, timeout=SBATCH_TIMEOUT_S)
    if rc is None and "did not answer" in err:
        late = submitted_as(tag)
        if late:
            say(f"sbatch did not answer within {SBATCH_TIMEOUT_S} s, but Slurm holds the submission as job {late}")
            rc, out = 0, late
        elif late is None:
            err += "; no job of this submission is in the queue"
        else:  # not known: the points are left to do, and running them again may run them twice
            err += (f"; squeue did not answer either, so whether Slurm holds the submission is not known: before "
                    f"running again, look for its comment {tag} in `squeue -n simblas-study -o '%F %k'` "
                    "(scancel that job, or its points would run twice)")
    if rc != 0:
        msg = (err or out).strip().splitlines()
        why = msg[-1] if msg else f"status {rc}"
        if rc is None or "ontact" in why or "onnect" in why:
            raise unreachable(why)
        raise CliError(f"sbatch refused the job: {why} (options: {' '.join(opts) or 'none'})")
    job = parse_job_id(out)
    for i, d in enumerate(todo):
        _write_json(_path(d, QUEUED), {"job": job, "task": i // per_task, "submitted": stamp, "list": lst})
    jobs_file = os.path.join(spool, "jobs.json")
    known = _read_json(jobs_file) or []
    known.append({"job": job, "tasks": ntasks, "points": len(todo), "per_task": per_task, "list": lst,
                  "options": opts, "submitted": time.strftime("%Y-%m-%dT%H:%M:%S")})
    _write_json(jobs_file, known)
    say(f"submitted Slurm job {job}: {ntasks} array task(s), {len(todo)} point(s) "
        f"(each task logs to {task_log(spool, job, 'TASK')} once it starts)")
    if not wait:
        return Outcome(states(dirs), job=job, finished=False)
    return wait_job(job, todo, dirs, spool, say, poll_s, follow)


def wait_job(job, todo, dirs, spool, say, poll_s, follow=FOLLOW, lost_after_s=120, stuck_after_s=None):
    """Poll squeue until job (None: none submitted) has left the queue and
    no point of dirs is queued or running elsewhere, reporting the points as
    they finish, and why a job waits (squeue's reason for its pending tasks)
    when it first shows and when it changes; CliError (status 1) when Slurm
    stops answering for lost_after_s (the jobs may go on: follow says how
    to follow them), or once a job has waited stuck_after_s (default
    STUCK_S) for one reason waiting does not resolve (PartitionTimeLimit...;
    the job is left queued)."""
    stuck_after_s = STUCK_S if stuck_after_s is None else stuck_after_s
    first = states(dirs)
    watch = [d for d in dirs if d in todo or first[d] in ("queued", "running")]
    before = {d: failure(d) for d in watch}  # a failed.json that is still this one: not run again
    holder = {d: job if d in todo else _job_of(d) for d in watch}  # None: run elsewhere, not by Slurm
    held = [j for j in dict.fromkeys([job] + sorted({str(j) for j in holder.values() if j})) if j]
    jobs = _jobs(held) if held else "the Slurm job(s) of its points"
    if watch:
        count = lambda j: sum(1 for d in watch if holder[d] == j)  # noqa: E731
        parts = [f"{count(j)} in Slurm job {j}" for j in held]
        parts += [f"{count(None)} running elsewhere (not in a Slurm job)"] if count(None) else []
        one = len(parts) == 1 and held  # all in one job
        what = f" in Slurm job {held[0]}" if one else ": " + ", ".join(parts)
        say(f"waiting for {len(watch)} point(s){what} (^C leaves them running)")
    seen, lost_since, now, pending, stuck_since = set(), None, first, {}, {}
    try:
        while True:
            answers = {}
            now = states(dirs, asked=answers)
            if any(a is None for a in answers.values()):
                lost_since = lost_since or time.monotonic()
                if time.monotonic() - lost_since > lost_after_s:
                    raise CliError(f"Slurm stopped answering while {jobs} ran (squeue failed for {lost_after_s} s); "
                                   f"it may still run: {follow}", 1)
            else:
                lost_since = None
            for j in held:  # why a job's tasks wait: said when it first shows and when it changes
                reasons = pending_reasons(answers.get(j))
                never = next((r for r in reasons if never_starts(r)), None)
                if never:  # the end of the wait once it holds: the first one Slurm gives may be provisional
                    if (stuck_since.get(j) or (None,))[0] != never:
                        stuck_since[j] = (never, time.monotonic())
                    elif time.monotonic() - stuck_since[j][1] >= stuck_after_s:
                        raise stuck(j, never, *reasons[never])
                    continue
                stuck_since.pop(j, None)
                if reasons and list(reasons) != pending.get(j):
                    pending[j] = list(reasons)
                    say(pending_line(j, reasons))
            for d in watch:
                if (now[d] == "done" or now[d] == "failed" and failure(d) != before[d]) and d not in seen:
                    seen.add(d)
                    r = result(d)
                    say(f"[{len(seen)}/{len(watch)}] {now[d]}: {d}" +
                        (f": {r['gflops']:.6g} Gflops" if r and isinstance(r.get("gflops"), (int, float)) else
                         f": {(failure(d) or {}).get('message', '').splitlines()[0]}" if now[d] == "failed" else ""))
            if not any(now[d] in ("queued", "running") for d in dirs):
                break
            time.sleep(poll_s)
    except KeyboardInterrupt:  # the jobs that still hold points, not one that has ended
        on = [j for j in held if any(holder[d] == j and now[d] in ("queued", "running") for d in watch)]
        raise CliError("stopped waiting: " + (f"{_jobs(on)} go{'es' * (len(on) == 1)} on (scancel {' '.join(on)} "
                                              f"stops {'it' if len(on) == 1 else 'them'}); " if on else "")
                       + f"{follow}", 130)
    final = states(dirs)
    unrun = [d for d in watch if final[d] == "todo" or final[d] == "failed" and failure(d) == before[d]]
    if watch:
        failed = sum(1 for d in watch if final[d] == "failed" and d not in unrun)
        done = sum(1 for d in watch if final[d] == "done")
        say(f"{_jobs(held) if held else 'the points run elsewhere'} ended: {done} of {len(watch)} point(s) done, "
            f"{failed} failed" + (f", {len(unrun)} not run" if unrun else ""))
    for j in held:
        ds = [d for d in unrun if holder[d] == j]
        if ds:
            say(not_run(j, ds, spool))
    gone = [d for d in unrun if not holder[d]]
    if gone:
        say(f"{len(gone)} point(s) running elsewhere ended without a result (their worker stopped or killed); "
            "they are to do again")
    return Outcome(final, job=job)


def _jobs(held):
    """'Slurm job J' or 'Slurm jobs J, K'."""
    return f"Slurm job{'s' if len(held) > 1 else ''} {', '.join(held)}"


def _job_of(d):
    """The Slurm job that holds point d (queued or running), or None."""
    q = _read_json(_path(d, QUEUED)) or {}
    return str(q["job"]) if q.get("job") else runner(d).get("job")


def task_log(spool, job, task):
    """Where array task `task` of job writes its log (sbatch --output, %A_%a)."""
    return os.path.join(spool, f"slurm-{job}_{task}.out")


def not_run(job, ds, spool):
    """What to say of the points ds that job ended without running: the
    logs of their tasks that exist (a task writes one once it starts), and
    plainly when none of those tasks started (no log to look at)."""
    qs = [_read_json(_path(d, QUEUED)) or {} for d in ds]
    tasks = sorted({q["task"] for q in qs if isinstance(q.get("task"), int)})
    # the spool of the submission that queued them (an earlier job's may be another)
    spool = next((os.path.dirname(q["list"]) for q in qs if isinstance(q.get("list"), str)), spool)
    logs = [task_log(spool, job, t) for t in tasks if spool and os.path.exists(task_log(spool, job, t))]
    head = f"Slurm job {job} ended without running {len(ds)} point(s)"
    if not logs:
        return (head + f", and none of the {len(tasks)} array task(s) that held them started (no task log in "
                f"{spool}): cancelled while pending, or never given a node (check the partition and --slurm-opt: "
                f"`scontrol show job {job}` (for minutes after it ends) or `sacct -j {job}` says why, `squeue` "
                "what waits), or the nodes do not see that directory; they are to do again")
    unstarted = len(tasks) - len(logs)
    return (head + f" (a task killed, or one that failed): see {', '.join(logs[:3])}"
            + (f" and {len(logs) - 3} more" if len(logs) > 3 else "")
            + (f"; {unstarted} of its task(s) that held them never started (no log)" if unstarted else "")
            + "; they are to do again")


if __name__ == "__main__":
    sys.exit(worker_main(sys.argv[1:]))
