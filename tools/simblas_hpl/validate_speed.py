"""The machine's speed now against the models' (issue 23: this VM drifts):
a model's reference speed and the shape it was measured at
(model_reference; a refined model's is the speed of refine's traced
runs), the calibrator that measures this machine's at that shape between
the real runs (calibrator_path, SpeedProbe: `simblas-calibrate
--reference-speed`), what it measured (speed_summary) and each model's
drift against it (model_drift)."""

import json
import os
import re
import shutil
import statistics
import subprocess

from . import locations, model, settings
from .errors import CliError, note
from .files import read_text, tail_lines
from .validate_machine import now_iso

MEASURED_RE = re.compile(r"measured: (dgemm m=\d+ n=\d+ k=\d+ (?:in HPL's layout|packed))")
REFINED_SPEED_KEY = "refined_reference_speed"   # simblas-hpl refine's: G SHAPE, WHY
REFINED_RE = re.compile(r"([0-9.]+) (dgemm m=\d+ n=\d+ k=\d+ (?:in HPL's layout|packed)),")


def model_reference(path):
    """(the reference speed in flop/s, the shape it was measured at or None)
    of a model file: meta refined_reference_speed when `simblas-hpl
    refine` measured the machine around its traced runs (the refit's lines
    run at that speed, not the calibration's), else meta reference_speed;
    the shape is meta reference_speed's "dgemm m=M n=N k=K in HPL's
    layout" (or "packed") when the calibrator measured it; None
    for a model whose reference speed was extrapolated or that has no such
    meta (the calibrator before issue 23, the nominal model)."""
    speed, shape = model.reference_speed(path), None
    for ln in read_text(path).splitlines():
        f = ln.split("#", 1)[0].split(None, 2)
        if f and f[0] == "set":
            break
        if len(f) == 3 and f[0] == "meta" and f[1] == REFINED_SPEED_KEY:
            m = REFINED_RE.match(f[2].strip())
            if m and float(m.group(1)) > 0:  # the refit's lines take on the speed of the traced runs
                return float(m.group(1)) * 1e9, m.group(2)
        if len(f) == 3 and f[0] == "meta" and f[1] == "reference_speed" and shape is None:
            m = MEASURED_RE.match(f[2].strip().strip('"'))
            shape = m.group(1) if m else None
    return speed, shape


def calibrator_path(why="it measures this machine's reference speed between the real runs",
                    instead=", or add --no-reference-speed"):
    """simblas-calibrate: $SIMBLAS_CALIBRATE, the installed one, then PATH; or CliError.
    A SIMBLAS_CALIBRATE that is not an executable is refused, not passed over."""
    given = settings.value("SIMBLAS_CALIBRATE")
    if given and not (os.path.isfile(given) and os.access(given, os.X_OK)):
        raise CliError(f"SIMBLAS_CALIBRATE={given}: " + ("no such file" if not os.path.exists(given) else
                                                          "not an executable file")
                       + "; set it to simblas-calibrate (a build tree's calibrator/simblas-calibrate), or unset it "
                         "for the installed one")
    for c in (given, locations.installed("CALIBRATE"), shutil.which("simblas-calibrate")):
        if c and os.access(c, os.X_OK):
            return c
    raise CliError(f"`simblas-calibrate` not found: {why}; set SIMBLAS_CALIBRATE to it (a build tree's "
                   f"calibrator/simblas-calibrate){instead}")


class SpeedProbe:
    """The machine's reference speed as the calibrator measures it
    (`simblas-calibrate --reference-speed MODEL`: the calibration's own
    dgemm calls, all cores at once, median of 8), at the shape of each
    model's, measured between rounds of real runs: a few seconds each."""

    def __init__(self, calibrator, shapes, timeout=300):
        self.calibrator, self.timeout = calibrator, timeout
        self.shapes = shapes          # {shape: a model measured at it, or None: the calibrator's own}
        self.measured = []

    def measure(self, when, log=note):
        """One measurement of every shape, recorded with its time and when
        (e.g. "before round 1"); a failure is said and recorded as None."""
        for shape, path in self.shapes.items():
            at = now_iso()
            cmd = [self.calibrator, "--reference-speed"] + ([path] if path else [])
            try:
                r = subprocess.run(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                   text=True, timeout=self.timeout)
                got = json.loads(r.stdout.strip().splitlines()[-1]) if r.returncode == 0 and r.stdout.strip() else None
                why = None if got else f"exit {r.returncode}: {tail_lines(r.stderr, 1).strip()}"
            except (OSError, ValueError, subprocess.TimeoutExpired) as e:
                got, why = None, str(e)
            m = MEASURED_RE.match((got or {}).get("said", ""))
            rec = {"time": at, "when": when, "shape": shape or (m.group(1) if m else None),
                   "gflops": round(got["reference_speed"] / 1e9, 3) if got else None,
                   "stolen_share": got.get("stolen_share") if got else None,
                   "wall_s": got.get("wall_s") if got else None}
            self.measured.append(rec)
            if got:
                log(f"reference speed {when}: {rec['gflops']:g} Gflop/s ({rec['shape']}; {rec['wall_s']:g} s, "
                    f"other processes {100 * (rec['stolen_share'] or 0):.1f}% of it)")
            else:
                log(f"warning: the reference speed {when} could not be measured ({' '.join(cmd)}: {why})")


def speed_summary(measured):
    """{shape: {"median", "min", "max", "spread_pct", "n"}} (Gflop/s) of the
    reference speeds measured."""
    out = {}
    for shape in dict.fromkeys(m["shape"] for m in measured if m.get("gflops") and m.get("shape")):
        g = [m["gflops"] for m in measured if m.get("shape") == shape and m.get("gflops")]
        med = statistics.median(g)
        out[shape] = {"median": round(med, 3), "min": min(g), "max": max(g),
                      "spread_pct": round(100 * (max(g) - min(g)) / med, 2), "n": len(g)}
    return out


def model_drift(sim, measured):
    """What a model's reference speed says against the one measured with the
    real runs: {"model_gflops", "shape", "measured_gflops", "ratio"
    (measured / model: below 1, the machine ran slower than when it was
    calibrated), "why" (when there is no ratio)}."""
    if sim.mode != "model" or not sim.model:
        return None
    try:
        speed, shape = model_reference(sim.model)
    except CliError:  # gone since it was simulated (--real's reports are rebuilt from files)
        return None
    out = {"model_gflops": round(speed / 1e9, 3), "shape": shape, "measured_gflops": None, "ratio": None}
    if not shape:
        out["why"] = "the model's reference speed was not measured (a model of the calibrator before issue 23)"
    elif shape not in measured:
        out["why"] = "no reference speed measured at its shape with these real runs"
    else:
        out["measured_gflops"] = measured[shape]["median"]
        out["ratio"] = round(measured[shape]["median"] / out["model_gflops"], 4)
    return out


def speed_shapes(sims):
    """{shape: a model file measured at it} of the simulations' models; {None:
    None} (the calibrator's own shape) when none of them has one."""
    shapes = {}
    for s in sims:
        if s.mode == "model" and s.model:
            shape = model_reference(s.model)[1]
            if shape:
                shapes.setdefault(shape, s.model)
    return shapes or {None: None}
