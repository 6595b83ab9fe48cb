"""The engine that runs many simulations: points (points.py), each a
directory holding its RunPlan, run on this machine by a pool of worker
processes (`local`: local_engine.py) or on a Slurm cluster as one job
array (`slurm`: slurm_engine.py, Slurm's commands in slurm.py); a worker
(worker.py) runs a point in its own process.

    points.write_point(dir, plan, info)   make (or update) a point
    run_points(dirs, engine=...)          run what is not done; return when
                                          all is finished, or once submitted
                                          to Slurm
    points.state(dir), points.result(dir) where a point is, and its summary
"""

import os

from . import local_engine, slurm_engine
from .errors import CliError, note
from .points import PLAN, _path


def run_points(dirs, engine="local", jobs=None, slurm_opts=(), wait=True, spool=None, per_task=1,
               retry_failed=True, say=note, poll_s=None, follow=slurm_engine.FOLLOW):
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
            raise CliError(f"{d}: not a point (no {PLAN}): make it with points.write_point", 1)
    if engine == "slurm":
        return slurm_engine.run(dirs, slurm_opts, wait, spool, per_task, retry_failed, say,
                                slurm_engine.SQUEUE_POLL_S if poll_s is None else poll_s, follow)
    if engine != "local":
        raise CliError(f"--engine {engine}: unknown; the engines are local and slurm")
    return local_engine.run(dirs, jobs or local_engine.default_jobs(), retry_failed, say,
                            local_engine.POLL_S if poll_s is None else poll_s)


if __name__ == "__main__":  # the worker's entry in the task scripts of Slurm jobs submitted before worker.py
    import sys

    from .worker import worker_main
    sys.exit(worker_main(sys.argv[1:]))
