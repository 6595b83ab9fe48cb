"""simblas-hpl study: many runs from one TOML file, on this machine or a
Slurm cluster; their status, results and figures."""

import os
import sys

from .. import engine, local_engine, points, slurm
from .. import study as st
from .. import study_collect, study_dir, study_plot
from ..errors import CliError, note
from ..locations import tool

NAME = "study"
ORDER = 4
HELP = "run a study (a TOML file of runs) locally or on Slurm"
USAGE = ("%(prog)s [run] FILE.toml [--dir DIR] [--engine local|slurm] [-j N] [--slurm-opt OPTS] [--wait]\n"
         "       %(prog)s status|collect|plot FILE.toml|DIR")
DESCRIPTION = ("Run every point of a study file (a base run, factors and their levels or listed points, replicates, "
               "outputs: doc/user-guide.md, section 12), each as one `simblas-hpl run` in its own directory under "
               "the study's directory, skipping the points already done and retrying the failed ones; then write "
               "results.csv. `status` shows the points done, running, queued, failed and to do; `collect` writes "
               "results.csv (a row per point: the factors, every JSON field, the replicates' means and 95% "
               "intervals) and means.csv; `plot` draws each output against each factor, and heat maps for two "
               "factors (gnuplot: SVG and PNG in plots/).")
ACTIONS = ("run", "status", "collect", "plot")


def add_arguments(s):
    s.add_argument("target", nargs="+", metavar="[ACTION] FILE.toml|DIR",
                   help="run (the default) FILE.toml; status, collect or plot FILE.toml or the study's directory")
    s.add_argument("--dir", metavar="DIR",
                   help="the study's directory (default: [study] dir in the file, relative to it, else the file's "
                        "name without .toml, in the current directory)")
    s.add_argument("--engine", choices=["local", "slurm"], default="local",
                   help="local: a pool of processes on this machine (default); slurm: one sbatch --array job")
    s.add_argument("-j", "--jobs", type=int, metavar="N",
                   help=f"--engine local: points run at once (default: the cores, {local_engine.default_jobs()} here)")
    s.add_argument("--slurm-opt", action="append", metavar="OPTS",
                   help="--engine slurm: sbatch options, e.g. --slurm-opt='-p big --time=2:00:00 --mem=4G' "
                        "(partition, time limit, memory per task)")
    s.add_argument("--per-task", type=int, metavar="K",
                   help="--engine slurm: points per array task (default 1; more for many short points: a "
                        "scheduler starts tasks about once a second)")
    s.add_argument("--wait", action="store_true",
                   help="--engine slurm: wait until the job is done, then collect (default: return once submitted; "
                        "status and collect follow it)")
    s.add_argument("--no-retry", action="store_true", help="do not run the failed points again")
    s.add_argument("--dry-run", action="store_true",
                   help="check the study and write its points, run nothing")


def main(args):
    action, target = parse_target(args.target)
    if action == "run":
        return run(args, target)
    d, design = study_dir.open_dir(target, args.dir)
    if action == "status":
        counts = study_dir.status(d, design)
        return 1 if counts["failed"] or counts["unreadable"] else 0
    if action == "collect":
        return collect(d, design)
    return plot(d, design)


def parse_target(words):
    if len(words) == 1:
        if words[0] in ACTIONS:
            raise CliError(f"study {words[0]}: give the study file or directory")
        return "run", words[0]
    if len(words) == 2 and words[0] in ACTIONS:
        return words[0], words[1]
    raise CliError(f"study {' '.join(words)}: expected [run|status|collect|plot] FILE.toml|DIR")


def run(args, path):
    if args.jobs is not None and args.jobs < 1:
        raise CliError(f"-j {args.jobs}: must be >= 1")
    if args.engine == "local" and (args.slurm_opt or args.wait):
        raise CliError("--slurm-opt and --wait go with --engine slurm")
    # each said, not dropped: --per-task on this machine, -j on Slurm (whose tasks run the points)
    if args.per_task is not None and (args.engine == "local" or args.per_task < 1):
        raise CliError(f"--per-task {args.per_task}: " + ("must be >= 1" if args.per_task < 1 else
                       "goes with --engine slurm (points per array task); -j N sets the points at once here"))
    if args.jobs is not None and args.engine == "slurm":
        raise CliError(f"-j {args.jobs}: goes with --engine local; on Slurm each array task runs --per-task K points")
    if args.engine == "slurm":
        slurm.slurm_options(args.slurm_opt)  # checked before anything runs
        if not args.dry_run:
            slurm.check_slurm()
    study = st.load(path, args.dir)
    plans = st.plan_points(study)  # every point as `run` checks it, before anything is written
    st.settle(study, plans)        # what each point runs with; two points that are one run refused
    dirs = study_dir.prepare(study, plans)
    note(f"study {study.name}: {len(dirs)} point(s) ({len(study.points) // len(study.seeds)} combination(s) x "
         f"{len(study.seeds)} replicate(s)) in {study.dir}")
    if args.dry_run:
        note("dry run: the points are written, nothing was run")
        return 0
    out = engine.run_points(dirs, args.engine, jobs=args.jobs, slurm_opts=args.slurm_opt, wait=args.wait,
                            spool=f"{study.dir}/engine", per_task=args.per_task or 1, retry_failed=not args.no_retry)
    if not out.finished:
        note(f"follow it with `simblas-hpl study status {study.dir}`, then `simblas-hpl study collect {study.dir}`")
        return 0
    d, design = study_dir.open_dir(study.dir)
    counts = study_dir.status(d, design, out=note)
    if counts["done"]:
        collect(d, design)
    if counts["failed"]:
        note(f"{counts['failed']} point(s) failed (above); run the study again to retry them")
    if counts["orphaned"]:
        note(f"{counts['orphaned']} point(s) lost their worker (killed: kill -9, the OOM killer) and have no result "
             "(above); run the study again once their simulators have ended")
    if counts["todo"]:  # a point that ran to its end is done or failed
        why = ("their Slurm job ended without them: cancelled, out of time, or a node lost" if args.engine == "slurm"
               else "their worker was killed: see its worker.log")
        note(f"{counts['todo']} point(s) were not run ({why}): run the study again to run them")
    return 1 if counts["failed"] or counts["orphaned"] or counts["unreadable"] or counts["todo"] else 0


def collect(d, design):
    n, total, intervals = study_collect.collect(d, design)
    bad = [p["id"] for p, dd in zip(design["points"], study_dir.point_dirs(d, design))
           if points.state(dd, lambda job: None) == "unreadable"]
    if bad:
        note(f"{len(bad)} point(s) have a {points.RESULT} that cannot be read (truncated or corrupt), left out: "
             f"{', '.join(bad[:3])}{', ...' if len(bad) > 3 else ''}; run the study again to redo them")
    if not n:
        raise CliError(f"{d}: no point is done yet (simblas-hpl study status {d})", 1)
    note(f"{d}/{study_collect.RESULTS}: {n} of {total} point(s)" + ("" if n == total else " (the others are not done)")
         + f"; {d}/{study_collect.MEANS}: their means")
    if not intervals and len(design["seeds"]) > 1:
        note("the 95% intervals need scipy's t quantiles, and scipy is not installed: the means are written, their "
             "intervals left empty (Debian: apt-get install python3-scipy)")
    return 0


def plot(d, design):
    collect(d, design)  # the figures show what is done now
    try:
        gnuplot = tool("gnuplot")
    except CliError:
        raise CliError("study plot draws with gnuplot, which is not installed (Debian: apt-get install gnuplot-nox)")
    made = study_plot.plot(d, design, gnuplot)
    note(f"{len(made)} figure(s) in {os.path.join(d, study_plot.PLOTS)}" if made else
         "nothing to plot: the study has no factors (each output is one value per replicate: see means.csv)"
         if not design["factors"] else "nothing to plot: no output has a value")
    for m in made:
        if m.endswith(".svg"):
            print(m)
    sys.stdout.flush()
    return 0
