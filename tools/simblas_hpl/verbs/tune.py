"""simblas-hpl tune: search HPL's parameters for the best Gflops on a
simulated machine (tune.py: the space, Optuna, the table and the plot)."""

import argparse
import os
import sys

from .. import local_engine, slurm, spread
from .. import tune as tn
from ..errors import CliError, note
from ..locations import tool
from ..plan import RunOptions
from . import run as run_verb

NAME = "tune"
ORDER = 5
HELP = "search HPL's parameters for the best Gflops"
USAGE = "%(prog)s --nodes K (--n N | --memory-fraction F --node-memory SIZE) [--search NAME=LEVELS]... [options]"
DESCRIPTION = ("Simulate HPL at many points of its parameter space on one machine (the run's platform options, "
               "--nodes and --cores-per-node) and search for the best Gflops with Optuna (TPE, CMA-ES, random, or "
               "the exhaustive grid of the same space). Every point is one `simblas-hpl run` on the study engine "
               "(--engine slurm: one job array per batch of -j points). The tune directory keeps Optuna's journal "
               "and the points: running the same command again resumes, and every sampler on one directory "
               "shares the points already simulated. Prints the table of evaluated points, the best HPL.dat and "
               "its predicted Rmax. The space: NB, P x Q, PMAP, BCAST, DEPTH, PFACT, RFACT, NBMIN, NDIV, SWAP and "
               "its threshold; --search NAME=LEVELS narrows or widens one (nb=64:256:32, grid=8x8,4x16, "
               "bcast=1rM,LnM), --hpl-opt NAME=VALUE fixes one.")

# run's options that a tune sets per point, or that mean nothing for a tune
NOT_MACHINE = {"help", "n", "nb", "p", "q", "json", "csv", "keep", "dry_run", "progress", "engine", "jobs",
               "slurm_opt", "alloc_only"}


def add_arguments(t):
    t.add_argument("--nodes", type=int, metavar="K", help="the machine's nodes (ranks: K x --cores-per-node)")
    t.add_argument("--n", type=int, help="matrix order N (else from --memory-fraction)")
    t.add_argument("--memory-fraction", type=float, metavar="F",
                   help="N fills F of the nodes' memory with the matrix (8 N^2 bytes; 0 < F <= 1), rounded down to "
                        "a multiple of each point's NB")
    t.add_argument("--node-memory", metavar="SIZE", help="with --memory-fraction: a node's memory (e.g. 192GiB)")
    t.add_argument("--search", action="append", metavar="NAME=LEVELS",
                   help="a parameter's levels: LO:HI[:STEP] or a,b,c (nb, depth, nbmin, ndiv, swap_threshold), "
                        "names or codes (pmap, bcast, pfact, rfact, swap), PxQ,... (grid); defaults: "
                        + "; ".join(f"{k} {v or 'the grids within --max-aspect'}" for k, v in tn.DEFAULT_SPACE.items()))
    t.add_argument("--max-aspect", type=float, default=tn.MAX_ASPECT, metavar="A",
                   help=f"the grids searched: P x Q with max(P,Q)/min(P,Q) <= A (default {tn.MAX_ASPECT})")
    t.add_argument("--sampler", choices=tn.SAMPLERS, default="tpe",
                   help="tpe (default): Optuna's multivariate TPE; cmaes: CMA-ES for the integer parameters; "
                        "random; grid: every point of the space")
    t.add_argument("--sampler-seed", type=int, default=1, metavar="S",
                   help="the sampler's seed (default 1); each sampler and seed is its own Optuna study in the "
                        "directory")
    t.add_argument("--budget", type=int, metavar="B",
                   help="distinct points to evaluate (default: a third of the space, at most 100; grid: all, or "
                        "the first B of its order, and the same command with a larger B goes on)")
    t.add_argument("--first", choices=("usual", "sampler"), default="usual",
                   help="a new search's first point: usual (default): what `run` takes when told nothing (HPL.dat's "
                        f"usual settings, NB {tn.DEFAULT_NB}, the squarest grid with P <= Q), on the space's nearest "
                        "levels; sampler: the sampler's own")
    t.add_argument("--patience", type=int, default=tn.PATIENCE, metavar="M",
                   help=f"stop when M proposals in a row are points evaluated already (default {tn.PATIENCE})")
    t.add_argument("--dir", default="simblas-tune", metavar="DIR",
                   help="the tune's directory (default ./simblas-tune): Optuna's journal, the points, the tables")
    t.add_argument("--engine", choices=["local", "slurm"], default="local",
                   help="local: -j points at once on this machine (default); slurm: each batch one job array")
    t.add_argument("-j", "--jobs", type=int, metavar="J",
                   help=f"points evaluated at once (default: the cores, {local_engine.default_jobs()} here; on Slurm, "
                        "the batch size)")
    t.add_argument("--slurm-opt", action="append", metavar="OPTS", help="--engine slurm: sbatch options")
    t.add_argument("--plot", action="store_true",
                   help="draw the convergence (each point's Gflops and the best so far; gnuplot: SVG and PNG in "
                        "DIR/plots)")
    machine = t.add_argument_group("the machine and each run (as `simblas-hpl run` takes them)")
    rp = argparse.ArgumentParser(add_help=False)
    run_verb.add_arguments(rp)
    for action in rp._actions:
        if action.dest not in NOT_MACHINE:
            machine._add_action(action)


def base_options(args):
    """The machine's RunOptions (N, NB and the grid set per point)."""
    vals = {k: v for k, v in vars(args).items() if k not in NOT_MACHINE}
    return RunOptions.from_namespace(argparse.Namespace(**vals))


def make_tune(args):
    """The tune from the command line, every check made before anything runs."""
    if args.nodes is None or args.nodes < 1:
        raise CliError("--nodes K: give the machine's node count (>= 1)" if args.nodes is None
                       else f"--nodes {args.nodes}: must be >= 1")
    cpn = args.cores_per_node or 1
    if cpn < 1:
        raise CliError(f"--cores-per-node {cpn}: must be >= 1")
    if (args.n is None) == (args.memory_fraction is None):
        raise CliError("give the matrix order: --n N, or --memory-fraction F with --node-memory SIZE (not both)")
    if args.budget is not None and args.budget < 1:
        raise CliError(f"--budget {args.budget}: must be >= 1")
    spread.check_engine_args(args.engine, args.jobs, args.slurm_opt, jobs_with=("local", "slurm"))
    if not 0 <= args.sampler_seed < 2 ** 32:  # Optuna's samplers seed numpy's RandomState
        raise CliError(f"--sampler-seed {args.sampler_seed}: must be from 0 to {2 ** 32 - 1}")
    if args.patience < 1:
        raise CliError(f"--patience {args.patience}: must be >= 1")
    mem = None
    if args.memory_fraction is not None:
        if not args.node_memory:
            raise CliError("--memory-fraction needs --node-memory SIZE (a node's memory, e.g. 192GiB)")
        mem = tn.n_from_memory(args.memory_fraction, tn.parse_size(args.node_memory, "--node-memory"), args.nodes)
    elif args.node_memory:
        raise CliError("--node-memory goes with --memory-fraction (N is given)")
    elif args.n < 1:
        raise CliError(f"--n {args.n}: must be > 0")
    ranks = args.nodes * cpn
    base = base_options(args)
    fixes = {k: v for k, v in base.hpl.items() if k in tn.HPL_KEYS}
    space = tn.make_space(args.search, fixes, ranks, args.max_aspect)
    tune = tn.Tune(os.path.abspath(args.dir), base, space, args.n, mem, ranks)
    if mem is not None and any(tune.n_of(nb) < nb for nb in tn.levels_of(space, "nb")):
        raise CliError(f"--memory-fraction {args.memory_fraction:g} of {args.node_memory} on {args.nodes} node(s) "
                       f"gives N = {mem['n']}, below the largest NB searched: give more memory or smaller NB levels")
    return tune


def main(args):
    tune = make_tune(args)
    tn.optuna_module()  # missing: named before anything runs
    if args.engine == "slurm":
        slurm.slurm_options(args.slurm_opt)
        slurm.check_slurm()
    gnuplot = None
    if args.plot:
        try:
            gnuplot = tool("gnuplot")
        except CliError:
            raise CliError("tune --plot draws with gnuplot, which is not installed (Debian: apt-get install gnuplot-nox)")
    plan = tn.check_plans(tune)  # every NB x grid as `run` checks it
    size = tune.space.size()
    if args.sampler == "grid":
        budget = min(args.budget or size, size)
    else:
        budget = min(args.budget or max(1, min(100, size // 3)), size)
    capped = f" (--budget {args.budget} capped at the space's {size})" if args.budget and args.budget > size else ""
    tn.open_dir(tune, plan)
    note(f"tune: {tune.ranks} ranks, " + (f"N={tune.n}" if tune.n else
                                         f"N from {tune.n_from_memory['fraction']:g} of the memory "
                                         f"({tune.n_from_memory['n']})")
         + f"; {size} point(s) in the space ({', '.join(f'{k} {lv.text()}' for k, lv in tune.space.levels.items())}); "
         f"{args.sampler} (seed {args.sampler_seed}), {budget} evaluation(s){capped}, in {tune.dir}")
    evals, why = tn.optimise(tune, args.sampler, args.sampler_seed, budget, args.engine,
                             args.jobs or local_engine.default_jobs(), args.slurm_opt, patience=args.patience,
                             first=args.first)
    name = tn.study_name(args.sampler, args.sampler_seed)
    print(tn.table(evals))
    sys.stdout.flush()
    csv_path = os.path.join(tune.dir, f"{name}.csv")
    written(tune, csv_path, lambda: tn.write_csv(csv_path, evals))
    b = tn.best(evals)
    if b is None:
        raise CliError(f"no point finished ({why}); their failures: {tune.dir}/{tn.POINTS}/*/failed-stderr.txt", 1)
    dat = tn.hpl_dat_of(tune, b)
    dat_path = os.path.join(tune.dir, f"{name}-HPL.dat")
    written(tune, dat_path, lambda: tn.write_atomic(dat_path, dat))
    print(f"\nstopped: {why}; {len(evals)} point(s) evaluated of {size}")
    print(f"best: {b.gflops:.6g} Gflops (predicted Rmax), point {len(evals) and evals.index(b) + 1}: "
          + " ".join(f"{k}={v}" for k, v in b.full.items() if v is not None) + f" N={b.n}")
    print(f"HPL.dat ({tune.dir}/{name}-HPL.dat):")
    print(dat, end="" if dat.endswith("\n") else "\n")
    sys.stdout.flush()
    if args.plot:
        made = written(tune, f"the convergence's figure in {os.path.join(tune.dir, tn.PLOTS)}",
                       lambda: tn.plot(tune, name, evals, gnuplot))
        note(f"convergence: {made[0]} and {made[1]}")
    return 0


def written(tune, what, write):
    """write()'s value; what, a file of the tune's, that cannot be written at the
    end (a disk full) is one line, status 1: the points evaluated are in
    the directory (the journal and points/), and the same command writes
    it again without simulating them (was a traceback)."""
    try:
        return write()
    except OSError as e:
        if not os.path.isdir(os.path.join(tune.dir, tn.POINTS)):
            raise CliError(f"could not write {what} ({e.strerror or e}): {tune.dir} is gone, its points with it; the "
                           "table above is what is left of them", 1)
        raise CliError(f"could not write {what} ({e.strerror or e}): the points evaluated are kept "
                       f"in {tune.dir} (its journal and {tn.POINTS}/); run the same tune again once it can be written: "
                       "it writes the tables without simulating them again", 1)
