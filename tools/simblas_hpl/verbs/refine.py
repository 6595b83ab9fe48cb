"""simblas-hpl refine: a calibrated model refitted on HPL's own calls, here.

Real HPL (xhpl-mpi under mpirun, as validate runs it) with libsimblas
preloaded in trace mode records every BLAS call and every memory kernel
(hpl-patches/17) with its measured time; `simblas-calibrate --from-trace
--base MODEL` refits the model on those calls, and the result replaces the
model (or -o's file) atomically, the model as it was kept beside it as
FILE.calibrated (issue 23).  This module: the options, the runs planned
and the order of things; refine.py: the work (the traced runs, the traces
read, the refit, the model put in place)."""

import os
import re
import shutil
import subprocess
import sys
import tempfile

from .. import model, realrun, settings, signals, validate_configs, validate_machine, validate_speed
from .. import refine as rf
from ..errors import CliError, note
from ..files import read_text, write_atomic
from ..locations import default_model, keep_path
from ..plan import DEFAULT_NB, check_keep, check_seconds, make_dir
from ..results import check_output_path

NAME = "refine"
ORDER = 7
HELP = "refine a calibrated model from HPL's own calls, here"
USAGE = ("%(prog)s [--model FILE] [-o FILE] [--n N | --config N:PxQ ...] [--keep DIR] [--force] [--kernels-only] "
         "[--build-id ID] [--timeout SEC]")
DESCRIPTION = ("The second step of a calibration, after `make calibrate`: run HPL for real (xhpl-mpi: Open MPI and "
               "OpenBLAS, one rank bound to each core, one BLAS thread) with libsimblas preloaded in trace mode, so "
               "that every BLAS call and HPL memory kernel of the run is timed as HPL makes it (its leading "
               "dimensions, its caches, every core busy); then refit the model on those calls "
               "(simblas-calibrate --from-trace --base MODEL; the traced times scaled to the base model's reference "
               "speed, measured before and after the runs, unless --at-trace-speed) and install it: the model "
               "itself by default, replaced atomically, the model as it was kept as MODEL.calibrated. Measure on a quiet machine: when other "
               "processes took more than 2% of the cores during the runs, the refined model is not installed "
               "unless --force (it is kept aside, and the message names it).")

DEFAULT_N = 10000
KERNEL_PATCH = "17-traced-memory-kernels.patch"   # HPL's memory kernels time themselves into the trace


def add_arguments(r):
    r.add_argument("--model", metavar="FILE",
                   help="the model to refine, which simblas-calibrate wrote (default: $SIMBLAS_MODEL or the "
                        "installed one)")
    r.add_argument("-o", "--out", metavar="FILE",
                   help="the refined model (default: the model itself, replaced atomically); the file replaced is "
                        "kept as FILE.calibrated unless that exists")
    r.add_argument("--n", type=int, metavar="N",
                   help=f"the problem size of the default runs (default {DEFAULT_N}, less when this machine's "
                        "memory needs it)")
    r.add_argument("--config", action="append", metavar="N:PxQ[:KEY=V,...]",
                   help="a real run instead of the default ones (repeatable; default: N:1xC and N:Cx1, C = this "
                        "machine's cores, one N:1x1 on one core), e.g. 10000:1x2; keys: NB and --hpl-opt's")
    r.add_argument("--keep", metavar="DIR", help="keep the traces, HPL's output and the refined model in DIR")
    r.add_argument("--force", action="store_true",
                   help="install the refined model even when other processes took more than 2%% of the cores "
                        "during the runs")
    r.add_argument("--no-solo", action="store_true",
                   help="no run of one rank alone (N:1x1 at the runs' smallest N), so no meta solo_speed: how "
                        "much faster a core runs HPL's dgemm with the others idle, which run uses for hosts "
                        "given fewer ranks than cores")
    r.add_argument("--kernels-only", action="store_true",
                   help="refit only HPL's memory kernels (the hpl_* lines); the BLAS lines stay the model's")
    r.add_argument("--build-id", metavar="ID", help="the HPL build (default: the one runs use)")
    r.add_argument("--timeout", type=float, metavar="SEC", help="stop a real run after SEC seconds")
    r.add_argument("--no-reference-speed", action="store_true",
                   help="do not measure the reference speed before and after the traced runs: the traced times "
                        "are then refitted as measured, at whatever speed the machine ran")
    r.add_argument("--at-trace-speed", action="store_true",
                   help="refit the traced times as measured, not scaled to the base model's reference speed: "
                        "the refitted lines take on the machine's speed during the traced runs (meta "
                        "refined_reference_speed, which validate's drift ratio then compares with), the others "
                        "keep the calibration's (simblas-hpl refine before 2026-11-29, for comparisons)")


# ---- before any run --------------------------------------------------------------
def check_model(path, calibrator):
    """The model is one simblas-calibrate wrote and libsimblas reads whole
    (simblas-calibrate --summary), or CliError."""
    if not path:
        raise CliError("no model to refine: give --model FILE or set SIMBLAS_MODEL (`make calibrate` writes one)")
    model.check_calibrated(path)
    p = subprocess.run([calibrator, "--summary", path], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                       stderr=subprocess.PIPE, text=True, errors="replace")
    if p.returncode != 0 and not p.stderr.strip():  # a calibrator that says nothing failed, not the model
        raise CliError(f"{calibrator} --summary {path} failed (exit status {p.returncode}) and said nothing: is it "
                       "simblas-calibrate? (SIMBLAS_CALIBRATE, or the installed one)")
    if p.returncode != 0:
        why = (p.stderr.strip().splitlines() or [f"exit status {p.returncode}"])[-1]
        why = re.sub(r"^simblas-calibrate: (--summary )?", "", why)
        kept = keep_path(path)
        raise CliError(f"--model {path} cannot be read as a model: {why}; calibrate again (make calibrate)"
                       + (f", or restore the model a refine kept: cp {kept} {path}" if os.path.isfile(kept) else ""))


def plan_configs(args, cores):
    """The real runs: --config's, or N:1xC and N:Cx1 (one N:1x1 on one core),
    each checked against the cores and the memory; CliError otherwise."""
    if args.n is not None and args.config:
        raise CliError("--n sets the default runs' N; --config gives its own: give one or the other")
    if args.config:
        configs = [validate_configs.parse_config(c) for c in args.config]
    else:
        top = realrun.real_n_max()
        n = args.n if args.n is not None else min(DEFAULT_N, top or DEFAULT_N)
        if n < DEFAULT_NB:
            raise CliError(f"--n {n}: must be at least NB ({DEFAULT_NB})")
        configs = ([validate_configs.make_config(n, 1, cores), validate_configs.make_config(n, cores, 1)] if cores > 1
                   else [validate_configs.make_config(n, 1, 1)])
    labels = [c.label for c in configs]
    if len(set(labels)) != len(labels):
        raise CliError("--config: the same configuration is given twice")
    for c in configs:
        if c.ranks > cores:
            raise CliError(f"{c.label}: {c.ranks} ranks, and this machine has {cores} core(s): the real runs bind "
                           "one rank to each core; give P x Q <= the cores")
        realrun.check_real_memory(c.n, c.label)
    return configs


def solo_config(configs, cores, args):
    """The run of one rank alone on this machine (N:1x1 at the configs'
    smallest N), whose dgemm speed against the all-core runs' gives meta
    solo_speed; None on one core, with --no-solo, or when a config is 1x1
    already."""
    if cores < 2 or args.no_solo or any(c.ranks == 1 for c in configs):
        return None
    return validate_configs.make_config(min(c.n for c in configs), 1, 1)


def solo_said(solo, what="HPL's dgemm", key="solo_speed"):
    """The line that says a recorded solo speed (one core alone over every
    core busy), faster or slower."""
    way = "faster" if solo >= 1 else "slower"
    return (f"one core alone ran {what} {100 * abs(solo - 1):.1f}% {way} than with every core busy: "
            f"meta {key} {solo:.4f} (run uses it for hosts given fewer ranks than cores)")


# ---- the speed around the runs ----------------------------------------------------
def reference_probe(base, calibrator, args):
    """A SpeedProbe at the base model's reference shape (the speed the
    traced runs ran at, which the refit takes on), or None when the base
    model's reference speed was not measured or --no-reference-speed."""
    if args.no_reference_speed:
        return None
    shape = validate_speed.model_reference(base)[1]
    return validate_speed.SpeedProbe(calibrator, {shape: base}) if shape else None


def time_scale(base, speed, args):
    """The factor the traced times are multiplied by before the refit
    (refine.trace_scale: the machine's reference speed during the traced
    runs over the base model's); None with --at-trace-speed or when it was
    not measured at the base model's shape."""
    return None if args.at_trace_speed else rf.trace_scale(base, speed)


def main(args):
    signals.raise_on_term(interrupt=True)  # SIGTERM and SIGHUP stop refine as Ctrl-C does (its mpirun with it)
    # the ranks inherit the environment, and libsimblas (trace mode) reads its settings there
    settings.check_inherited()
    check_seconds("--timeout", args.timeout)
    if args.at_trace_speed and args.no_reference_speed:  # the first did nothing, without a word
        raise CliError("--at-trace-speed keeps the traced times unscaled and records the reference speed measured "
                       "around the runs, which --no-reference-speed does not measure: the times are unscaled "
                       "already; drop one of them")
    cores = realrun.machine_cores()
    configs = plan_configs(args, cores)
    base = args.model or default_model()
    calibrator = validate_speed.calibrator_path(why="it refits the model on the traces (--from-trace)", instead="")
    check_model(base, calibrator)
    base = os.path.abspath(base)
    out = os.path.abspath(args.out or base)
    check_output_path(out, "-o")
    if args.keep:
        check_keep(args.keep, "for the traces and HPL's output")
    build, xhpl = realrun.mpi_binary(args.build_id, patch=KERNEL_PATCH, why=" (its memory kernels are not traced)")
    mpirun = realrun.mpirun_path()
    lib = rf.libsimblas(build)
    # libsimblas in trace mode, as each rank will load it (the model, SIMBLAS_BACKEND): a refusal is one line
    # now, not 25 of mpirun's once the ranks stopped at it
    model.check_loads(lib, base, mode="trace")
    if args.keep:
        make_dir(args.keep)
        root = os.path.abspath(args.keep)
    else:
        root = tempfile.mkdtemp(prefix="simblas-refine-")
    machine = validate_machine.machine_info()
    solo_cfg = solo_config(configs, cores, args)
    # none either when the base model's solo speeds are the calibrator's: measured side by side, where one
    # run alone against others minutes apart measured 0.87-1.04 on the same Zen 5 VM (its drift)
    if solo_cfg and model.solo_calibrated(base):
        solo_cfg = None
        note(f"no run of one rank alone: {base}'s solo speeds are the calibrator's (meta solo_speed "
             f"{model.solo_speed(base)}, solo_speed_memory {model.solo_speed_memory(base)}: one core alone against "
             "every core busy, side by side), which the refined model keeps")
    note(f"refining {base} from {len(configs)} real HPL run(s) in trace mode ({', '.join(c.label for c in configs)})"
         + (f" and one of one rank alone ({solo_cfg.label})" if solo_cfg else "")
         + f" on {machine['cpu']}, {machine['cores']} core(s); load average {validate_machine.loadavg()}")
    keep_root = bool(args.keep)
    try:
        traces, shares, solo_traces = [], [], []
        # the solo run in the middle of the all-core ones, so that a drift of the machine's speed over the
        # runs (several percent in minutes on a VM) falls on both sides of the comparison alike
        order = list(configs)
        if solo_cfg:
            order.insert((len(order) + 1) // 2, solo_cfg)
        speed = reference_probe(base, calibrator, args)
        if speed:
            speed.measure("before the traced runs")
        for c in order:
            t, share, res = rf.traced_run(c, xhpl, lib, base, root, timeout=args.timeout, mpirun=mpirun)
            shares.append(share)
            if c is solo_cfg:
                solo_traces = t
            else:
                traces += t
            busy = "?" if share is None else f"{100 * share:.1f}%"
            note(f"real {c.label}{' (one core alone)' if c is solo_cfg else ''}: {res['gflops']:g} Gflops in trace "
                 f"mode, PASSED; other processes took {busy} of the cores")
        if speed:
            speed.measure("after the traced runs")
        solo = solo_mem = None
        if solo_cfg:
            busy_r, solo_r = rf.dgemm_ratio(traces), rf.dgemm_ratio(solo_traces)
            solo = busy_r / solo_r if busy_r and solo_r else None
            solo_mem = rf.memory_solo(traces, solo_traces)
        if args.kernels_only:
            traces = rf.kernel_rows(traces, os.path.join(root, "kernels"))
        refined = os.path.join(root, "refined.model")
        scale = time_scale(base, speed, args)
        said = rf.from_trace(calibrator, base, refined, traces, scale, kept=root)   # the traces kept when it fails
        print("\n".join(said))
        said_speed = (rf.record_trace_speed(refined, speed, scale) if scale
                      else rf.record_reference_speed(refined, speed))
        if said_speed:
            print(said_speed)
        if solo is not None:
            lo, hi = model.SOLO_SPEED_RANGE
            if lo <= solo <= hi:
                write_atomic(refined, model.set_solo_speed(read_text(refined), solo,
                                                           f"{solo_cfg.label} against {len(configs)} all-core run(s)"))
                print(solo_said(solo))
            else:
                print(f"one core alone ran HPL's dgemm {solo:.3f} times as fast as with every core busy, outside "
                      f"{lo:g}-{hi:g}: not recorded (measure again on a quiet machine)")
        if solo_mem is not None:
            lo, hi = model.SOLO_MEMORY_RANGE
            if lo <= solo_mem <= hi:
                write_atomic(refined, model.set_solo_speed(read_text(refined), solo_mem,
                                                           f"{solo_cfg.label} against {len(configs)} all-core run(s)",
                                                           key="solo_speed_memory"))
                print(solo_said(solo_mem, "its memory kernels (HPL's row swaps and copies)", "solo_speed_memory"))
            else:
                print(f"one core alone ran HPL's memory kernels {solo_mem:.3f} times as fast as with every core busy, "
                      f"outside {lo:g}-{hi:g}: not recorded (measure again on a quiet machine)")
        known = [s for s in shares if s is not None]
        worst = max(known) if known else None
        print(f"other processes took {'?' if worst is None else f'{100 * worst:.1f}%'} of the cores during the "
              f"real runs (at most {100 * validate_machine.QUIET_SHARE:g}% without --force)")
        sys.stdout.flush()
        if worst is not None and worst > validate_machine.QUIET_SHARE and not args.force:
            aside = refined if args.keep else rf.set_aside(refined)
            raise CliError(f"other processes took {100 * worst:.1f}% of the cores during the real runs (more than "
                           f"{100 * validate_machine.QUIET_SHARE:g}%): {out} left unchanged; the refined model is "
                           f"kept in {aside}; refine again on a quiet machine (or with --force, to install what a busy "
                           "one gives)", 1)
        try:
            said = rf.install(refined, out)
        except OSError as e:  # a disk full, -o's directory removed since the check: the refit is not lost
            aside = refined
            if not args.keep:
                try:
                    aside = rf.set_aside(refined)
                except OSError:
                    pass  # the work directory is kept instead
            raise CliError(f"could not install the refined model as {out} ({e.strerror or e}): {out} is left as it "
                           f"was; the refined model is kept in {aside}: cp {aside} {out} once it can be written", 1,
                           kept=root if aside == refined else None)
        print(said)
    except CliError as e:
        keep_root = keep_root or bool(e.kept)  # a failed run's files, which its message names
        raise
    finally:
        if not keep_root:
            shutil.rmtree(root, ignore_errors=True)
    if args.keep:
        note(f"traces, HPL's output and refined.model kept in {root}")
    return 0
