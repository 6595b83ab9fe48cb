"""simblas-hpl validate: real HPL (mpirun) against simulated HPL, on this machine.

Ground truth on the machine you have: real HPL (xhpl-mpi under mpirun,
realrun.py) and simulated HPL (the same configurations, simulated on a
platform that describes this machine: one host of its cores, the
intra-node link) side by side: the real median and spread of R runs,
each simulation's figure and its error against the real median, as a
table, JSON, CSV and a gnuplot figure.  One module a job:
validate_configs.py (the configurations), validate_real.py (the real
runs, interleaved), validate_machine.py (the machine and the load on it),
validate_speed.py (its reference speed against the models'),
validate_sim.py (the simulations), validate_score.py (the errors, the
ranking: the report) and validate_report.py (table, CSV, figure)."""

import json
import os
import shutil
import sys
import tempfile
import time

from .. import builds, realrun, settings, signals
from .. import (validate_configs, validate_machine, validate_real, validate_report, validate_score, validate_sim,
                validate_speed)
from ..errors import CliError, note
from ..locations import default_model
from ..plan import RunOptions, check_seconds, make_plan
from ..realrun import machine_cores, mpirun_path
from ..results import check_output_path, check_two_outputs, write_or_keep
from ..files import write_atomic

NAME = "validate"
ORDER = 6
HELP = "simulated HPL against real mpirun runs, here"
DEFAULT_RUNS = 3
USAGE = ("%(prog)s [--set default|check | --config N:PxQ[:KEY=V,...] ...] [--runs R] [--model FILE ...] "
         "[--passthrough] [--max-error PCT] [--json FILE] [--csv FILE] [--plot PREFIX] [--real FILE ...] "
         "[--speed-adjusted | --no-reference-speed]")
DESCRIPTION = ("Run HPL for real with Open MPI and OpenBLAS (xhpl-mpi, from `simblas-hpl build`), one rank bound "
               "to each core and one BLAS thread, R times per configuration in interleaved rounds; simulate the "
               "same configurations on a platform of one host of this machine's cores with each model (and "
               "in passthrough with --passthrough); print the real median and spread, each simulated figure and "
               "its error, and write them as JSON, CSV and a gnuplot figure. Measure on a quiet machine: the "
               "load other processes put on the cores during each real run is reported. Before each round of real "
               "runs and after the last, this machine's reference speed is measured as the calibrator measures it "
               "(simblas-calibrate --reference-speed, at each model's shape; a few seconds), and each model's "
               "drift, that speed over the model's, is printed beside its errors: a machine that runs slower than "
               "when it was calibrated makes the model look optimistic by about as much.")


def add_arguments(v):
    v.add_argument("--set", choices=["default", "check"],
                   help="default (the default): 1x1, 1xC, Cx1 at two or three sizes, the three row swaps, two "
                        "broadcasts, depth 0 and 1 (C = this machine's cores; about 8 min on 2 cores); check: one Cx1 "
                        "run (make check)")
    v.add_argument("--config", action="append", metavar="N:PxQ[:KEY=V,...]",
                   help="a configuration instead of the set (repeatable; not with --set), e.g. 12000:2x1:swap=0; "
                        "keys: NB and --hpl-opt's")
    v.add_argument("--runs", type=int, metavar="R",
                   help="real runs per configuration (default %d; not with --real)" % DEFAULT_RUNS)
    v.add_argument("--model", action="append", metavar="FILE",
                   help="a model to simulate with (repeatable; default $SIMBLAS_MODEL or the installed one)")
    v.add_argument("--no-model", action="store_true", help="no model-mode simulation (with --passthrough)")
    v.add_argument("--passthrough", action="store_true",
                   help="also simulate in passthrough mode (the real BLAS computing under SMPI; as long as the "
                        "real runs)")
    v.add_argument("--max-error", type=float, metavar="PCT",
                   help="exit with status 1 when a simulation is more than PCT %% from a real median")
    v.add_argument("--json", metavar="FILE", help="write the report as JSON")
    v.add_argument("--csv", metavar="FILE", help="write one row per configuration and simulation")
    v.add_argument("--plot", metavar="PREFIX",
                   help="PREFIX.svg and PREFIX.png (gnuplot; with PREFIX.gp and PREFIX.dat): simulated against real")
    v.add_argument("--real", metavar="FILE", action="append",
                   help="take the real runs from an earlier validate's JSON instead of running them; repeatable: "
                        "the runs of several reports (rounds of one machine kind, each with every configuration) "
                        "pooled per configuration, one median over all of them")
    v.add_argument("--speed-adjusted", action="store_true",
                   help="also a column per model of its simulated Gflops times its drift ratio (the reference speed "
                        "measured with the real runs over the model's): a diagnostic of how much of the error is the "
                        "machine's drift, not a prediction")
    v.add_argument("--no-reference-speed", action="store_true",
                   help="do not measure the reference speed between the real runs (no drift figures)")
    v.add_argument("--network", metavar="FILE|none",
                   help="the simulations' network file (simblas-calibrate --network; run's --network): default the "
                        "installed default.network if any, 'none': SimGrid's default factors and the assumed link "
                        "between cores")
    v.add_argument("--probe", choices=settings.values("SIMBLAS_PROBE"),
                   help="the model-mode simulations' --probe (run's): default the real runs' MPI's, lagged for "
                        "Open MPI (mpirun --version), immediate for the others")
    v.add_argument("--cores-per-node", type=int, metavar="C",
                   help="cores of the simulated host (default: this machine's, %d)" % machine_cores())
    v.add_argument("--build-id", metavar="ID", help="the HPL build (default: the one runs use)")
    v.add_argument("--timeout", type=float, metavar="SEC", help="stop a run (real or simulated) after SEC seconds")


def model_name(path, taken):
    base = os.path.basename(path)
    name = base[:-len(".model")] if base.endswith(".model") else base
    k, out = 2, name
    while out in taken:
        out, k = f"{name}-{k}", k + 1
    return out


def check_options(args):
    """The options alone, refused in one line before anything is looked at
    or run: a value out of range, and an option that another one would make
    do nothing (said, not silently dropped)."""
    if args.runs is not None and args.runs < 1:
        raise CliError(f"--runs {args.runs}: must be >= 1 (3 or more for a median and a spread)")
    if args.max_error is not None and not args.max_error > 0:
        raise CliError(f"--max-error {args.max_error:g}: must be a percentage > 0")
    if args.cores_per_node is not None and args.cores_per_node < 1:
        raise CliError(f"--cores-per-node {args.cores_per_node}: must be >= 1 (leave it out for this machine's "
                       f"{machine_cores()})")
    check_seconds("--timeout", args.timeout)
    twice = [m for i, m in enumerate(args.model or ()) if any(os.path.realpath(m) == os.path.realpath(o)
                                                               for o in args.model[:i])]
    if twice:  # each --model is one simulation of every configuration: the same one again, minutes for nothing
        first = next(o for o in args.model if os.path.realpath(o) == os.path.realpath(twice[0]))
        said = f"--model {first}" + (f" and --model {twice[0]}" if twice[0] != first else "")
        raise CliError(f"{said}: the same model is given twice, and it would be simulated twice; give each model once")
    if args.set and args.config:
        raise CliError(f"--set {args.set} and --config both choose the configurations: give one of them")
    if args.real and args.runs is not None:
        raise CliError(f"--runs {args.runs} counts the real runs made now, and --real takes an earlier report's "
                       "instead: drop --runs or --real")
    if args.real and args.no_reference_speed:
        raise CliError("--no-reference-speed: with --real no reference speed is measured (the report's are used): "
                       "drop --no-reference-speed")
    outs = [(opt, p) for opt, p in (("--json", args.json), ("--csv", args.csv)) if p]
    outs += [("--plot", args.plot + ext) for ext in (".svg", ".png", ".gp", ".dat")] if args.plot else []
    for opt, path in outs:
        if any(os.path.abspath(path) == os.path.abspath(r) for r in args.real or ()):
            raise CliError(f"{opt} {path} is also a --real report: writing it would replace the real runs it holds; "
                           "give another file")
    check_two_outputs(args.json, args.csv)
    figure = [os.path.abspath(p) for o, p in outs if o == "--plot"]
    for opt, path in (o for o in outs if o[0] != "--plot"):  # --csv v.dat --plot v: the figure's data replaced it
        if os.path.abspath(path) in figure:
            raise CliError(f"{opt} {path} is also one of --plot {args.plot}'s files (.svg, .png, .gp, .dat): the "
                           f"figure's would replace it; give another {opt} file or --plot PREFIX")
    if args.no_model and args.probe:
        raise CliError(f"--probe {args.probe} is the model-mode simulations', and --no-model runs none: drop --probe "
                       "or --no-model")
    if args.no_model and not args.passthrough:
        # nothing is simulated: the simulations' options would do nothing
        for opt, given in (("--model", args.model), ("--network", args.network)):
            if given:
                raise CliError(f"{opt}: --no-model without --passthrough simulates nothing: drop {opt}, or add "
                               "--passthrough" + (" (it takes the hosts' speed from the first --model)"
                                                  if opt == "--model" else ""))


def main(args):
    # SIGTERM and SIGHUP stop validate as Ctrl-C does: the running mpirun or simulation, started in a session
    # of its own, is stopped with it (before, a SIGTERM left mpirun and its ranks running)
    signals.raise_on_term(interrupt=True)
    check_options(args)
    cores = args.cores_per_node or machine_cores()
    runs = args.runs or DEFAULT_RUNS
    if args.config:
        configs = [validate_configs.parse_config(c) for c in args.config]
    else:
        configs = validate_configs.check_set(cores) if args.set == "check" else validate_configs.default_set(cores)
        big = sorted({f"{c.p}x{c.q}" for c in configs if c.ranks > machine_cores()})
        if big and not args.real:  # the set's runs follow --cores-per-node: it is named, not one of its runs
            raise CliError(f"--cores-per-node {cores}: --set {args.set or 'default'}'s real runs then include runs "
                           f"of {cores} ranks ({', '.join(big)}), and this machine has {machine_cores()} cores (real runs bind "
                           f"one rank to each core): give --cores-per-node {machine_cores()} or less, --config runs "
                           f"of at most {machine_cores()} ranks, or --real an earlier report's runs")
    labels = [c.label for c in configs]
    if len(set(labels)) != len(labels):
        raise CliError("--config: the same configuration is given twice")
    for c in configs:
        if c.ranks > machine_cores() and not args.real:
            raise CliError(f"{c.label}: {c.ranks} ranks, and this machine has {machine_cores()} cores: real runs "
                           "bind one rank to each core")
        if not args.real:  # not found by the real run itself, after the others (a swapping or OOM-killed mpirun)
            realrun.check_real_memory(c.n, c.label, "give N <= {top}" if args.config else
                                      f"--set {args.set or 'default'} is too large here: give --config N:PxQ runs, "
                                      "N <= {top}")
    for opt, path in (("--json", args.json), ("--csv", args.csv)):
        if path:
            check_output_path(path, opt)
    if args.plot:
        check_output_path(args.plot + ".svg", "--plot")
    sims = []
    probe = args.probe or "lagged"  # checked so; the real runs' MPI's below, once nothing is refused
    models = args.model or [default_model()]
    if not args.no_model:
        for m in models:
            if not m:
                raise CliError("no model file: give --model FILE or set SIMBLAS_MODEL")
            sims.append(validate_sim.Simulation(model_name(m, {s.name for s in sims}), "model", os.path.abspath(m),
                                              args.network, probe))
    if args.passthrough:
        # passthrough times the real BLAS; the model only gives the hosts' speed (its reference speed on both
        # sides of SMPI's conversion), so the first --model serves, and --no-model --model FILE works
        sims.append(validate_sim.Simulation("passthrough", "passthrough",
                                          os.path.abspath(models[0]) if models[0] else None, args.network))
    if not sims and args.max_error is not None:
        raise CliError("--max-error needs a simulation: drop --no-model or add --passthrough")
    if args.speed_adjusted and args.no_reference_speed:
        raise CliError("--speed-adjusted scales by the reference speed measured with the real runs: drop "
                       "--no-reference-speed")
    if args.speed_adjusted and not any(s.mode == "model" for s in sims):
        raise CliError("--speed-adjusted scales the model-mode simulations: drop --no-model")
    # every simulation checked before anything runs (bad input: one line, now)
    for s in sims:
        for c in configs:
            make_plan(RunOptions(n=c.n, nb=c.nb, p=c.p, q=c.q, cores_per_node=cores, mode=s.mode, model=s.model,
                                 hpl=c.hpl, build_id=args.build_id, timeout=args.timeout,
                                 network=s.network, probe=s.probe if s.mode == "model" else None))
    build, _ = builds.choose(args.build_id)
    real_from = speed = speeds = None
    if args.real:
        real, real_from = validate_real.load_pooled(args.real, configs)
        speeds = validate_real.pooled_speeds(real_from)
        if speeds is None and len(args.real) > 1 and any(validate_real.real_speeds(o) for o in real_from):
            note("the reference speed was measured with the real runs of only some of these reports: no drift "
                 "figures for the pooled runs")
    else:
        xhpl = realrun.mpi_binary(args.build_id)[1]
        mpirun = mpirun_path()
        if not args.no_reference_speed:
            speed = validate_speed.SpeedProbe(validate_speed.calibrator_path(), validate_speed.speed_shapes(sims))
    if not args.probe and any(s.mode == "model" for s in sims):
        if args.real:  # the real runs were made with this machine's mpirun, if it has one still
            try:
                mpirun = mpirun_path()
            except CliError:
                mpirun = None
        probe, said = validate_real.real_probe(mpirun)
        for s in sims:
            s.probe = probe if s.mode == "model" else None
        note(f"model-mode simulations with --probe {probe}: the real runs' MPI is {said}")
    machine = validate_machine.machine_info()
    started = validate_machine.now_iso()
    t0 = time.monotonic()
    load = validate_machine.loadavg()
    if not args.real:
        est = validate_real.estimate_seconds(configs, runs, speed_shapes=len(speed.shapes) if speed else 0)
        note(f"validating {len(configs)} configuration(s) on {machine['cpu']}, {machine['cores']} core(s): "
             f"{runs} real run(s) each (about {est / 60:.0f} min), then {len(sims)} simulation(s) each; "
             f"load average {load}")
        if load is not None and load > 0.5:
            note(f"warning: the load average is {load:g}: other processes are running, and the real runs will "
                 "show it (measure on a quiet machine)")
    work = tempfile.mkdtemp(prefix="simblas-validate-")
    try:
        if not args.real:
            real = validate_real.real_runs(configs, runs, xhpl, work, timeout=args.timeout, speed=speed)
            speeds = speed.measured if speed else None
        sim_results = {s.name: validate_sim.simulate_configs(configs, s, cores, work, args.build_id, args.timeout)
                       for s in sims}
    finally:
        shutil.rmtree(work, ignore_errors=True)
    report = validate_score.build_report(configs, real, sims, sim_results, machine,
                                     runs if not args.real else pooled_runs(real_from),
                                     build.ref("validate").to_json() if build else None, started, time.monotonic() - t0,
                                     speeds=speeds, adjusted=args.speed_adjusted)
    if args.real:
        report["real_from"] = [{"file": os.path.abspath(f), "date": o.get("date"), "machine": o.get("machine"),
                                "runs": o.get("runs")} for f, o in zip(args.real, real_from)]
    print(validate_report.table(report))
    sys.stdout.flush()
    if report["other_load_max"] is not None and report["other_load_max"] > validate_machine.QUIET_SHARE:
        note(f"warning: other processes used up to {100 * report['other_load_max']:.1f}% of the cores during a real "
             "run: the real figures may be low; validate again on a quiet machine")
    # the real runs' minutes are in the report: a file that cannot be written now (a disk full, a directory
    # removed since the check) keeps it aside, named in one line, which --real takes again
    write_or_keep(report, (("--json", args.json, lambda p, r: write_atomic(p, json.dumps(r, indent=2) + "\n")),
                           ("--csv", args.csv, lambda p, r: write_atomic(p, validate_report.csv_text(r))),
                           ("--plot", args.plot, lambda p, r: validate_report.plot(r, p))),
                  keep_report, "the report, its table printed above,", " (--real FILE takes its real runs again)")
    if args.max_error is not None:
        worst = [(abs(r["sim"][s]["error_pct"]), s, r["label"], r["sim"][s]["error_pct"])
                 for r in report["configs"] for s in r["sim"]]
        bad = [w for w in worst if w[0] > args.max_error]
        if bad:
            w = max(bad)
            raise CliError(f"{len(bad)} simulated figure(s) beyond --max-error {args.max_error:g}%: the worst, "
                           f"{w[1]} on {w[2]}, is {w[3]:+.1f}% from the real median", 1)
    return 0


def keep_report():
    """Where a report that could not be written is kept: a file of its own
    in the temporary directory."""
    fd, path = tempfile.mkstemp(prefix="simblas-validate-", suffix=".json")
    os.close(fd)
    return path


def pooled_runs(olds):
    """Real runs per configuration over the pooled reports (None when one
    does not say)."""
    runs = [o.get("runs") for o in olds]
    return None if any(not isinstance(r, int) for r in runs) else sum(runs)
