"""simblas-hpl refine's work: a calibrated model refitted on HPL's own
calls (the verb, verbs/refine.py, keeps the options and the order of the
steps).

The traced runs (each rank of a real HPL run through a script that
preloads libsimblas in trace mode), the traces read (how much faster one
core alone ran HPL's dgemm and memory kernels than with every core busy;
the memory kernels' rows alone), the machine's reference speed around the
runs and the factor the traced times are scaled by, the refit
(simblas-calibrate --from-trace) and the refined model put in place."""

import csv
import math
import os
import re
import shlex
import shutil
import statistics
import subprocess
import tempfile

from . import hpldat, model, realrun, settings, validate_machine, validate_speed
from .errors import CliError
from .files import copy_atomic, read_text, tail_lines, write_atomic
from .locations import installed_copy, keep_path, simblas_libdir

SOLO_MIN_MNK = 4e6   # the dgemm calls whose speed alone and with every core busy is compared (trailing updates)
TRACE_HEADER = "routine,"


# ---- the traces read ---------------------------------------------------------------
def dgemm_ratio(traces):
    """Measured over predicted time of the traces' large dgemm calls
    (m n k >= SOLO_MIN_MNK): how fast they ran against the model; None
    without such calls."""
    meas = pred = 0.0
    for t in traces:
        with open(t, errors="replace") as f:
            rows = csv.DictReader(f)
            for r in rows:
                try:
                    if r["routine"] != "dgemm" or int(r["m"]) * int(r["n"]) * int(r["k"]) < SOLO_MIN_MNK:
                        continue
                    meas += float(r["measured_s"])
                    pred += float(r["predicted_s"])
                except (KeyError, TypeError, ValueError):
                    continue  # a row cut short
    return meas / pred if meas > 0 and pred > 0 else None


def kernel_ratios(traces):
    """{model key: (measured, predicted) seconds} of the traces' memory
    kernels (the hpl_ rows: HPL's row swaps and copies, level M)."""
    out = {}
    for t in traces:
        with open(t, errors="replace") as f:
            for r in csv.DictReader(f):
                try:
                    if not r["routine"].startswith("hpl_"):
                        continue
                    m, p = out.get(r["routine"], (0.0, 0.0))
                    out[r["routine"]] = (m + float(r["measured_s"]), p + float(r["predicted_s"]))
                except (KeyError, TypeError, ValueError, AttributeError):
                    continue  # a row cut short
    return out


def memory_solo(traces, solo_traces):
    """How much faster the memory kernels ran with one core alone than with
    every core busy: for each kernel both sets of runs called, its measured
    over predicted time busy against alone (the same base model predicted
    both, so its own error cancels), their geometric mean weighted by the
    kernel's time alone; None when no kernel is in both."""
    busy, solo = kernel_ratios(traces), kernel_ratios(solo_traces)
    num = den = 0.0
    for k, (sm, sp) in solo.items():
        bm, bp = busy.get(k, (0.0, 0.0))
        if sm > 0 and sp > 0 and bm > 0 and bp > 0:
            num += sm * math.log((bm / bp) / (sm / sp))
            den += sm
    return math.exp(num / den) if den > 0 else None


def kernel_rows(traces, outdir):
    """Copies of the traces with only HPL's memory kernels (the hpl_* rows),
    for --kernels-only: the BLAS calls are then not refitted."""
    os.makedirs(outdir, exist_ok=True)
    out = []
    for t in traces:
        dest = os.path.join(outdir, os.path.basename(os.path.dirname(t)) + "." + os.path.basename(t))
        with open(t, errors="replace") as src, open(dest, "w") as f:
            for i, line in enumerate(src):
                if i == 0 or line.startswith("hpl_"):
                    f.write(line)
        out.append(dest)
    return out


# ---- the speed around the runs -----------------------------------------------------
def trace_speed(speed):
    """(the median Gflop/s, its shape, the measurements) of the reference
    speeds measured around the traced runs, or None."""
    got = [m for m in (speed.measured if speed else []) if m.get("gflops") and m.get("shape")]
    if not got:
        return None
    return statistics.median(m["gflops"] for m in got), got[0]["shape"], got


def speed_words(g, shape, got):
    """`G SHAPE, median of K around the traced runs, TIME` (a meta line's
    words) and the measurements listed, for the line printed."""
    return (f"{g:.4f} {shape}, median of {len(got)} around the traced runs, {got[0]['time']}",
            ", ".join(f"{m['gflops']:g}" for m in got))


def trace_scale(base, speed):
    """The factor the traced times are multiplied by before the refit: the
    machine's reference speed during the traced runs over the base model's
    (validate_speed.model_reference), so that the refitted lines stay at the
    speed of the lines the refit does not touch, whatever speed this VM ran
    at that hour (2.7% apart within the hour on the quiet Zen 5 host,
    2026-11-29); None when it was not measured at the base model's shape.
    Whether the factor is plausible (traces of the machine the base model
    was calibrated on) is the calibrator's to say: simblas-calibrate
    --time-scale refuses it, and from_trace passes that on."""
    got = trace_speed(speed)
    if not got:
        return None
    base_speed, shape = validate_speed.model_reference(base)
    if shape != got[1] or not base_speed:
        return None
    return got[0] * 1e9 / base_speed


def record_trace_speed(refined, speed, f):
    """Write into the refined model `meta trace_speed G SHAPE, median of K
    around the traced runs, TIME: the traced times multiplied by F` (what the
    refit's lines were scaled from); the line to print."""
    g, shape, got = trace_speed(speed)
    words, each = speed_words(g, shape, got)
    write_atomic(refined, model.set_meta(read_text(refined), "trace_speed",
                                         f"{words}: the traced times multiplied by {f:.4f}"))
    return (f"the machine's reference speed around the traced runs: {g:.4g} Gflop/s ({shape}; {each}), "
            f"{100 * (f - 1):+.1f}% against the base model's: the traced times were multiplied by {f:.4f}, so that "
            "the refitted lines are at the base model's reference speed (meta trace_speed)")


def record_reference_speed(refined, speed):
    """Write into the refined model `meta refined_reference_speed G SHAPE,
    median of K around the traced runs, TIME` (G in Gflop/s): the refit's
    lines take on the machine's speed during the traced runs, not the
    calibration's, so validate's drift ratio compares with this one. An
    older such line (the base model's own refine) is removed when nothing
    was measured. Returns what to print, or None."""
    key = validate_speed.REFINED_SPEED_KEY
    measured = trace_speed(speed)
    if not measured:
        write_atomic(refined, model.set_meta(read_text(refined), key, None))
        return None
    g, shape, got = measured
    words, each = speed_words(g, shape, got)
    write_atomic(refined, model.set_meta(read_text(refined), key, words))
    return (f"the machine's reference speed around the traced runs: {g:.4g} Gflop/s ({shape}; {each}): "
            f"meta {key}, which validate's drift ratio uses")


# ---- the runs and the refit --------------------------------------------------------
def libsimblas(build):
    """libsimblas.so to preload: SIMBLAS_LIBDIR's or the installed one, else
    the one the HPL build was made against (its manifest's simblas_libdir)."""
    try:
        return os.path.join(simblas_libdir(), "libsimblas.so")
    except CliError:
        lib = os.path.join(build.manifest.get("simblas_libdir") or "", "libsimblas.so")
        if os.path.isfile(lib):
            return lib
        raise


def run_dir_name(c):
    """A directory name for a configuration's run: N10000-1x2[-swap0...]."""
    return re.sub(r"[^A-Za-z0-9.-]+", "", c.label.replace(" ", "-").replace("=", ""))


def write_rank_script(path, lib, model_path, trace_dir):
    """The program each rank runs: xhpl-mpi (its argument) with libsimblas
    preloaded in trace mode, its trace trace_dir/trace.RANK.csv; the
    variables it sets checked against the settings table first (CliError,
    status 1, as a simulation's), the file written atomically."""
    settings.check_env({"SIMBLAS_MODE": "trace", "SIMBLAS_MODEL": model_path,
                        "SIMBLAS_TRACE": f"{trace_dir}/trace.$r.csv"})  # $r: each rank's number
    text = ("#!/bin/sh\n"
            "# one rank of simblas-hpl refine's real run: HPL with libsimblas preloaded in trace mode\n"
            "r=${OMPI_COMM_WORLD_RANK:-${PMIX_RANK:-${PMI_RANK:-$$}}}\n"
            f"SIMBLAS_MODE=trace SIMBLAS_MODEL={shlex.quote(model_path)} "
            f"SIMBLAS_TRACE={shlex.quote(trace_dir)}/trace.$r.csv\n"
            f"LD_PRELOAD={shlex.quote(lib)}${{LD_PRELOAD:+ $LD_PRELOAD}}\n"
            "export SIMBLAS_MODE SIMBLAS_MODEL SIMBLAS_TRACE LD_PRELOAD\n"
            'exec "$@"\n')
    write_atomic(path, text)
    os.chmod(path, 0o755)


def traced_run(c, xhpl, lib, model_path, root, timeout=None, mpirun=None):
    """One real run of c in trace mode under root/<its name>: (the traces,
    one per rank, the other processes' share of the cores, the run's
    result); CliError (status 1) when the run or its residual check fails
    or a rank wrote no trace."""
    d = os.path.join(root, run_dir_name(c))
    os.makedirs(d, exist_ok=True)
    for old in os.listdir(d):
        if old.startswith("trace.") and old.endswith(".csv"):
            os.unlink(os.path.join(d, old))
    wrapper = os.path.join(d, "rank.sh")
    write_rank_script(wrapper, lib, model_path, d)
    watch = validate_machine.LoadWatch()
    watch.start()
    res = realrun.run_real(xhpl, c.n, c.nb, c.p, c.q, hpldat.settings(c.hpl), d, timeout=timeout,
                           mpirun=mpirun, wrapper=wrapper)
    share = watch.stop()
    traces = [os.path.join(d, f"trace.{r}.csv") for r in range(c.ranks)]
    missing = [t for t in traces if not read_text(t).startswith(TRACE_HEADER)]
    if missing:
        raise CliError(f"the real run {c.label} PASSED but wrote no trace {missing[0]}: libsimblas "
                       f"({lib}) was not preloaded in trace mode (see {d}/stderr.txt:\n"
                       f"{tail_lines(read_text(os.path.join(d, 'stderr.txt')), 5)})", 1, kept=d)
    return traces, share, res


def from_trace(calibrator, base, out, traces, scale=None, kept=None):
    """simblas-calibrate --from-trace --base base -o out traces (with
    --time-scale scale when given): the lines it says (one per routine,
    then what it wrote); CliError (status 1) when it fails, naming the
    directory kept (the traces) if any."""
    opts = ["--time-scale", f"{scale:.6f}"] if scale else []
    p = subprocess.run([calibrator, "--from-trace", "--base", base, "-o", out] + opts + traces, stdin=subprocess.DEVNULL,
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, errors="replace")
    said = (p.stdout + p.stderr).rstrip("\n").splitlines()
    if p.returncode != 0 or not os.path.isfile(out):
        raise CliError(f"simblas-calibrate --from-trace failed (exit {p.returncode}):\n" + "\n".join(said[-10:])
                       + (f"\nthe traces are kept in {kept}" if kept else ""), 1, kept=kept)
    return said


# ---- the model in place ------------------------------------------------------------
def install(refined, out):
    """Put refined in place of out, atomically (files.copy_atomic: a
    temporary beside it and a rename, a symbolic link written through); the file out was, if any, is first kept as out.calibrated
    unless that exists.  Returns what was done, one sentence."""
    kept = keep_path(out)
    said = f"{out} written"
    if os.path.exists(out):
        if os.path.exists(kept):
            said = f"{out} replaced ({kept}, kept by an earlier refine, left as it is)"
        else:
            copy_atomic(out, kept)
            said = f"{out} replaced; the model as it was is kept as {kept}"
    copy_atomic(refined, out)  # out as it was until this renames (OSError: the caller keeps refined)
    installed = installed_copy(out)
    if installed:
        try:
            copy_atomic(refined, installed)
        except OSError as e:  # out is in place: said, not a failure of the refine
            return (said + f"; not also as {installed} ({e.strerror or e}), which make install would have put back "
                    f"as the default: cp {out} {installed}")
        said += f"; also as {installed}, which make install puts back as the default (until make calibrate)"
    return said


def set_aside(refined):
    """The refined model copied where it outlives the work directory: its path."""
    fd, path = tempfile.mkstemp(prefix="simblas-refined-", suffix=".model")
    os.close(fd)
    shutil.copyfile(refined, path)
    os.chmod(path, 0o644)
    return path
