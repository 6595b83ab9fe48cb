"""simblas-hpl run: simulate one HPL run."""

import argparse
import json
import os
import shutil
import sys
import tempfile

from ..errors import CliError, note
from ..hpldat import DEFAULTS as HPL_DEFAULTS
from ..launch import prepare_rundir, simulate
from ..plan import DEFAULT_HPL_CODE, DEFAULT_NB, IPROBE_COST_S, RunOptions, check_keep, make_dir, make_plan
from ..platforms import DEFAULT_BW, DEFAULT_LAT, LOOPBACK_BW, LOOPBACK_LAT, PLACEMENTS
from ..results import check_csv_header, check_output_path, check_two_outputs, write_outputs
from .. import settings, spread

NAME = "run"
ORDER = 2
HELP = "simulate one HPL run"
USAGE = "%(prog)s --n N [--nb NB] --p P --q Q [options]"
DESCRIPTION = ("Simulate one HPL run under SimGrid's smpirun: write HPL.dat, the platform and the hostfile, "
               "run the HPL built by `simblas-hpl build`, and print HPL's result line and a JSON summary.")


def add_arguments(r):
    r.add_argument("--n", type=int, help="matrix order N")
    r.add_argument("--nb", type=int, default=DEFAULT_NB, help=f"block size NB (default {DEFAULT_NB})")
    r.add_argument("--p", type=int, help="process grid rows P")
    r.add_argument("--q", type=int, help="process grid columns Q")
    r.add_argument("--platform", metavar="SPEC",
                   help="fattree:LEVELS;DOWN,..;UP,..;PARALLEL,.., dragonfly:GROUPS,BLUE;CHASSIS,BLACK;ROUTERS,GREEN;"
                        "NODES or torus:D1,D2,.. (SimGrid's topo_parameters; routing: SimGrid's, doc/user-guide.md "
                        "section 3) or FILE.xml; default: a 2-level fat tree sized to P*Q ranks")
    r.add_argument("--hostfile", metavar="FILE", help="with --platform FILE.xml: rank placement (host or host:N)")
    r.add_argument("--placement", choices=PLACEMENTS,
                   help="how a generated platform's hosts take the ranks: 'sequential' (default) fills the hosts in "
                        "order, rank i on host i (C ranks a host with --cores-per-node C); 'random' allocates the "
                        "hosts at random among all of the machine's, as a scheduler that ignores the topology, "
                        "reproducibly by --seed (JSON: placement; the hosts are in the run directory's hostfile)")
    r.add_argument("--cores-per-node", type=int, metavar="C", help="ranks (cores) per host (default 1)")
    r.add_argument("--speedup", type=float, metavar="F",
                   help="host speed = model reference-speed x F (default 1)")
    r.add_argument("--host-speed", metavar="SPEED",
                   help="host speed in SimGrid's units (e.g. 1Gf: 10^9 flop/s), instead of --speedup (the speedup is "
                        "SPEED / the model's reference-speed)")
    r.add_argument("--bw", metavar="BW", help=f"link bandwidth, SimGrid units (default {DEFAULT_BW})")
    r.add_argument("--lat", metavar="LAT", help=f"link latency, SimGrid units (default {DEFAULT_LAT})")
    r.add_argument("--network", metavar="FILE|none",
                   help="simblas-calibrate --network's file: SMPI's lat/bw factors and the link between a host's "
                        "cores (its intra section), the links of a generated platform where --bw/--lat do not say "
                        "(its inter section); default: the installed default.network if any; 'none': SimGrid's "
                        f"default factors and an assumed {LOOPBACK_BW}/{LOOPBACK_LAT} between cores")
    r.add_argument("--energy", metavar="IDLE:EPS:ALLCORES",
                   help="host wattage (W); enables SimGrid's host_energy plugin ('node': the --node file's "
                        "power figures, its accelerators' energy counted from their busy time)")
    r.add_argument("--node", metavar="FILE",
                   help="model mode: simulate the node a TOML node file describes (examples/nodes/: cores, peak "
                        "flop rate and memory bandwidth, its own kernel fits, accelerators and their offload "
                        "rule, power), composed in libsimblas with the calibrated model (SIMBLAS_NODE); "
                        "doc/user-guide.md, section 15")
    r.add_argument("--iprobe", type=float, metavar="SEC",
                   help=f"simulated cost of one failed MPI_Iprobe/MPI_Test (default {IPROBE_COST_S:g}), "
                        "charged per rank by libsimblas_pmpi; spin-waits back off from it, so larger is "
                        "faster to simulate with --waits poll but finds panels later")
    r.add_argument("--waits", choices=["block", "poll"],
                   help="model mode: how a rank with nothing left to do waits for a panel broadcast: 'poll' as HPL "
                        "does (MPI_Iprobe in a loop: one simulator step per failed poll, the polling load in the "
                        "energy), 'block' in MPI_Recv (same messages, far faster to simulate); default block, "
                        "poll with --energy")
    r.add_argument("--probe", choices=settings.values("SIMBLAS_PROBE"),
                   help="model mode: when HPL's MPI_Iprobe sees a panel that arrived since the rank's previous MPI "
                        "call: 'immediate' as SMPI and MPICH-based MPIs (MPICH looks again after progressing), "
                        "'lagged' one probe later, as Open MPI (its probe looks at what it has taken in, then "
                        "progresses): the root of a broadcast waits in MPI_Send a chunk of the receiver's update "
                        "longer. Choose the target's MPI; default "
                        f"{settings.default('SIMBLAS_PROBE')} (validate chooses the real runs' MPI)")
    r.add_argument("--pivot-every", type=int, metavar="K",
                   help="model mode, opt-in: only every K-th column of a panel exchanges its pivot for real; the "
                        "others wait at a barrier of the process column and then as long as the panel's real "
                        "exchanges took (far fewer messages; changes the communication: doc/user-guide.md); "
                        "default 1, every column")
    r.add_argument("--roll-merge", type=int, metavar="G",
                   help="model mode, opt-in: HPL's rolls (the long broadcasts, bcast 4 and 5, along the process "
                        "row; without look-ahead, depth 0, the long row swap, swap 1 or 2 beyond its threshold, "
                        "along the process column: "
                        "R^2 messages per ring of R) make two exchanges, one per neighbour, for every 2G steps, "
                        "each carrying the steps' elements, and charge the latencies the merged messages no "
                        "longer pay; 0: a whole roll in two exchanges (the same bytes, far fewer messages; "
                        "changes the communication: doc/user-guide.md); default 1, HPL's rolls")
    r.add_argument("--no-pivot-defer", action="store_true",
                   help="with --pivot-every: meet each thinned pivot exchange's barrier in the simulator instead of "
                        "computing it at the rank's next flush (the same arithmetic, slower; a check of the "
                        "deferral)")
    r.add_argument("--no-merge", action="store_true",
                   help="inject every BLAS call separately (default: merge a rank's calls up to its next MPI call)")
    r.add_argument("--hpl-code", choices=["timed", "free"],
                   help="model mode: 'timed' charges the CPU time of HPL's own code between BLAS and MPI calls "
                        "(measured by SimBLAS, by SMPI with --no-merge; divided by --speedup), as passthrough does; 'free' charges only the "
                        f"modelled kernels: deterministic, but optimistic (default {DEFAULT_HPL_CODE})")
    r.add_argument("--hugepages", metavar="DIR",
                   help="model mode: put the folded memory (the matrix's fold block, SMPI's shared panel buffers) "
                        "on the huge pages of the hugetlbfs mounted at DIR (checked first: the mount, and enough "
                        "free pages, with the commands that provide them)")
    r.add_argument("--malloc", choices=["jemalloc", "system"],
                   help="model mode: the simulator's allocator; jemalloc (Debian's libjemalloc2, preloaded) "
                        "takes about a fifth off the simulation's CPU time at thousands of ranks (default: jemalloc "
                        "when installed and LD_PRELOAD holds no sanitizer or allocator, else system)")
    r.add_argument("--mode", choices=["model", "passthrough"], default="model",
                   help="model: BLAS predicted (default); passthrough: computed with OpenBLAS and timed")
    r.add_argument("--hpl-opt", action="append", metavar="KEY=VALUE",
                   help="HPL.dat setting: " + ", ".join(HPL_DEFAULTS))
    r.add_argument("--iterations", type=int, metavar="K",
                   help="simulate the first K panel iterations only and extrapolate the full run "
                        "(extrapolated_* fields; doc/scale.md)")
    r.add_argument("--samples", type=int, metavar="S",
                   help="with --iterations: K iterations in the middle of each of S equal strata of the run "
                        "(stratified sampling) instead of the first K; K = 2 lcm(P,Q) + 1 with S=4 "
                        "(S=8 beyond ~150 iterations; at look-ahead depth 1 beyond ~200, K = 4 lcm(P,Q) + 1) "
                        "extrapolates within about 1%% (default 1; doc/scale.md)")
    r.add_argument("--engine", choices=["local", "slurm"],
                   help="with --iterations K --samples S: run each of the S passes as a job of its own on the study "
                        "engine (local: -j at a time on this machine; slurm: one job array) and combine them into "
                        "the same extrapolation; K x S = N/NB or more is a full run in S jobs (doc/scale.md)")
    r.add_argument("-j", "--jobs", type=int, metavar="N",
                   help="--engine local: passes run at once (default: the cores)")
    r.add_argument("--slurm-opt", action="append", metavar="OPTS",
                   help="--engine slurm: sbatch options (partition, time, memory), e.g. --slurm-opt='-p big "
                        "--time=2:00:00'")
    r.add_argument("--alloc-only", action="store_true",
                   help="allocate as HPL does, on every rank, then stop: address space, memory mappings and peak "
                        "memory of the configuration (no factorization; hosts without links)")
    r.add_argument("--node-spread", type=float, metavar="PCT",
                   help="model mode: spatial variability; each host's speed factor is drawn from a normal law of "
                        "mean 1 and standard deviation PCT %% (reproducibly by --seed), and every modelled kernel of "
                        "its ranks is divided by it (JSON: node_speed)")
    r.add_argument("--slow-nodes", metavar="FRAC:SPEED",
                   help="model mode: round(FRAC x hosts) hosts, drawn by --seed, also run at SPEED times their speed "
                        "(e.g. 0.01:0.8: 1%% of the hosts at 80%%)")
    r.add_argument("--node-speeds", metavar="FILE|model",
                   help="model mode: every host's speed factor from FILE ('HOST FACTOR' lines, or one factor per "
                        "line in host order), or 'model': drawn from a normal law fitted to the spread of the "
                        "model's per-core coefficient sets (set coreN, written by simblas-calibrate)")
    r.add_argument("--noise", action="store_true",
                   help="model mode: temporal variability; each kernel's time is drawn from the model's noise "
                        "(SIMBLAS_NOISE=1), per rank, reproducibly by --seed")
    r.add_argument("--seed", type=int, metavar="S",
                   help="the seed of the random draws: the hosts' speed factors, --noise and --placement random "
                        "(default 1)")
    r.add_argument("--json", metavar="FILE", help="write the summary object to FILE")
    r.add_argument("--csv", metavar="FILE", help="append one row to FILE (header when new)")
    r.add_argument("--keep", metavar="DIR", help="run in DIR and keep HPL.dat, platform.xml, outputs")
    r.add_argument("--model", metavar="FILE", help="SimBLAS model (default $SIMBLAS_MODEL or the installed one)")
    r.add_argument("--dry-run", action="store_true", help="write the files, print the command, do not run")
    r.add_argument("--timeout", type=float, metavar="SEC", help="stop the simulation after SEC seconds")
    r.add_argument("--progress", type=float, metavar="SEC",
                   help="model mode: every SEC seconds, print on stderr the panel iteration reached, the simulated "
                        "time so far and an estimate of the time to go (default 60 when stderr is a terminal, "
                        "else 0: none)")
    r.add_argument("--build-id", metavar="ID",
                   help="the HPL build to run (simblas-hpl info lists them; default: $SIMBLAS_HPL_BUILD, else the "
                        "default build: the first one built, or the one made so with build --make-default)")
    r.add_argument("--xhpl", metavar="FILE", help=argparse.SUPPRESS)


def main(args):
    spreads = args.engine or args.jobs is not None or args.slurm_opt
    if spreads:
        check_spread_args(args)  # before the plan: the build, the model
    plan = make_plan(RunOptions.from_namespace(args))
    if args.dry_run and (args.json or args.csv):
        raise CliError(f"--dry-run simulates nothing, so there is no result for {'--json' if args.json else '--csv'}: "
                       "drop it, or drop --dry-run")
    for opt, path in (("--json", args.json), ("--csv", args.csv)):
        if path:
            check_output_path(path, opt)
    if args.csv:
        check_csv_header(args.csv)
    check_two_outputs(args.json, args.csv)
    keep = args.keep
    if keep:
        check_keep(keep, "for the passes" if spreads else "to run in", run=not spreads)
    if spreads:
        return main_spread(plan, args)
    if keep:
        workdir = os.path.abspath(keep)
        make_dir(workdir)
    else:
        workdir = tempfile.mkdtemp(prefix="simblas-hpl-")
    if args.dry_run:
        line = prepare_rundir(plan, workdir)[2]
        print(line)
        note(f"dry run: files in {workdir}")
        return 0
    try:
        summary = simulate(plan, workdir).summary
    except CliError as e:
        if not keep and not e.kept:  # nothing in it to look at
            shutil.rmtree(workdir, ignore_errors=True)
        raise
    summary["run_dir"] = workdir if keep else None
    # HPL's line and the summary first, then the files: a file that cannot
    # be written loses nothing
    show(summary)
    write_outputs(summary, args.json, args.csv, keep_in=workdir)
    if not keep:
        shutil.rmtree(workdir, ignore_errors=True)
    return 0


def check_spread_args(args):
    """--engine, -j, --slurm-opt: one line before anything else."""
    spread.check_engine_args(args.engine, args.jobs, args.slurm_opt)
    if args.dry_run:
        raise CliError("--dry-run shows one simulation's command: drop --engine (a pass's command is its "
                       "directory's run/run.sh once it has run)")
    spread.check_args(args.iterations, args.samples, args.engine, args.keep)


def main_spread(plan, args):
    """--engine: the passes as jobs of their own (spread.py)."""
    summary, d = spread.run(plan, args.engine, args.jobs, args.slurm_opt, args.keep)
    show(summary)
    write_outputs(summary, args.json, args.csv, keep_in=d)
    if not args.keep:
        shutil.rmtree(d, ignore_errors=True)
    return 0


def extrapolated_line(summary):
    """What a sampled run's estimate stands on, the estimate and its uncertainty."""
    total, est = summary["iterations_total"], summary.get("iterations_estimated")
    if summary.get("covering"):
        what = (f"a full run in {summary['samples']} passes: {total - est} of {total} panel iterations measured"
                + (f", {est} estimated from their pass's mean" if est else "")
                + f" ({summary['iterations_done']} simulated, the passes overlapping)")
    else:
        what = (f"extrapolated from {summary['iterations_done']} of {total} panel iterations "
                f"({summary['samples']} sample(s))")
    u = (summary.get("extrapolation_uncertainty") or {}).get("s")
    t = summary["extrapolated_hpl_time_s"]
    if summary.get("covering") and not est:
        unc = " (exact: every iteration measured)"
    elif u is None:
        unc = " (uncertainty not estimated: one pass)"
    else:  # 0 too: strata whose spread and straight-line reading both say nothing else
        unc = f" +- {u:.3g} s ({100 * u / t:.2g}%)" if t > 0 else f" +- {u:.3g} s"
    return (f"{what}: HPL time {t:.2f} s{unc}"
            + f", {summary['extrapolated_gflops']:.4g} Gflops, wall {summary['extrapolated_wall_s']:.1f} s"
            + ("; HPL's solve skipped (too many messages for its share of the time)"
               if summary.get("solve") == "skipped" else ""))


def show(summary):
    """HPL's result line (or what an --alloc-only run took), the extrapolation,
    the summary as JSON, on stdout."""
    try:
        if summary.get("result_line") and not summary.get("alloc_only"):
            # a sampled run's: HPL's figures for the part it simulated
            print(("HPL's own line for the iterations simulated (partial; the estimate follows): "
                   if "extrapolated_gflops" in summary else "") + summary["result_line"])
        if summary.get("alloc_only"):
            print(f"allocated as HPL does on {summary['ranks']} ranks: peak {summary['peak_vm_gib']:.1f} GiB of "
                  f"address space, {summary['peak_mappings']} memory mappings, {summary['peak_rss_mb']:.0f} MB (Pss)")
        if "extrapolated_gflops" in summary:
            print(extrapolated_line(summary))
        print(json.dumps(summary, indent=2))
        sys.stdout.flush()
    except BrokenPipeError:  # e.g. | head -1
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
