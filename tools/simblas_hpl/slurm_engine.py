"""The Slurm engine: the points to run submitted as one sbatch --array
job (a task runs per_task of them: worker.py's `task`), its script, point
list and task logs in a spool directory; with --wait, squeue polled until
no point is queued or running, the points reported as they finish and why
the job waits, and what its end left unrun.
"""

import itertools
import os
import shlex
import time

from .errors import CliError
from .files import write_atomic
from .points import QUEUED, Outcome, _path, _read_json, _write_json, failure, result, runner, states, to_run
from .slurm import (check_slurm, never_starts, parse_job_id, pending_line, pending_reasons, slurm_command,
                    slurm_options, stuck, submitted_as, unreachable)
from .worker import worker_command, worker_env

SBATCH_TIMEOUT_S = 60  # sbatch answers at once; beyond this the controller is taken as unreachable
SQUEUE_POLL_S = 1.0    # --wait on Slurm: squeue every second (sbatch --wait polls every 2-10 s)
STUCK_S = 10           # --wait: a pending reason that never resolves, held this long, ends the wait (the
                       # controller's first may be provisional: PartitionConfig, then PartitionTimeLimit)
FOLLOW = "`simblas-hpl study status` follows it"  # after a ^C while waiting for a study's job
SUBMISSIONS = itertools.count()  # this process's Slurm submissions: each stamp its own


def _spool(dirs, spool):
    if spool:
        return os.path.abspath(spool)
    common = os.path.commonpath(dirs) if dirs else os.getcwd()
    if common in dirs:
        common = os.path.dirname(common)
    return os.path.join(common, ".engine")


def run(dirs, slurm_opts, wait, spool, per_task, retry_failed, say, poll_s, follow=FOLLOW):
    """engine.run_points' engine 'slurm': its points submitted as one array job."""
    opts = slurm_options(slurm_opts)
    if per_task < 1:
        raise CliError(f"--per-task {per_task}: must be >= 1")
    check_slurm()
    st, todo = to_run(dirs, retry_failed, say, wait)
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
    rc, out, err = slurm_command(cmd, timeout=SBATCH_TIMEOUT_S)
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
