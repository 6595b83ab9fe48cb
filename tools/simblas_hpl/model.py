"""What simblas-hpl reads of a SimBLAS model file (doc/model-format.md):
its reference speed and whether it is the nominal, uncalibrated one.
libsimblas parses the whole file; check_loads has it do so before a run
starts."""

import math
import os
import subprocess
import sys
import tempfile

from . import settings
from .errors import CliError
from .files import read_text

# the loads check_loads saw succeed in this process: (path, size, mtime, node text)
_loaded = set()
_LOAD = ("import ctypes, sys\n"
         "lib = ctypes.CDLL(sys.argv[1])\n"
         "lib.simblas_mode.restype = ctypes.c_char_p\n"
         "sys.exit(0 if lib.simblas_mode() == sys.argv[2].encode() else 3)\n")


def check_loads(lib, path, node_text=None, node_from=None, mode="null"):
    """libsimblas's own loader (LIB, its libsimblas.so) on the model file
    PATH (and the node that --node NODE_FROM composed, NODE_TEXT), in a
    child process in MODE (null: predictions, nothing run; trace: with the
    real BLAS, SIMBLAS_BACKEND, that refine's ranks compute with), before a
    simulation or real run starts: a coefficient that is not a number, a
    missing 'end', an unknown routine, a backend that does not load --
    anything that libsimblas would stop at inside the simulation, after
    SimGrid's set-up, in a block of lines with status 1 -- is one line
    here, status 2, in libsimblas's words.  One parser: the C one."""
    st = os.stat(path)
    key = (lib, os.path.abspath(path), st.st_size, st.st_mtime_ns, node_text, mode, settings.given("SIMBLAS_BACKEND"))
    if key in _loaded:
        return
    with tempfile.TemporaryDirectory(prefix="simblas-check-") as d:
        env = settings.inherited_env()  # (the passthrough and trace backend passes)
        env.update(SIMBLAS_MODE=mode, SIMBLAS_MODEL=os.path.abspath(path))
        if mode == "trace":
            env["SIMBLAS_TRACE"] = os.path.join(d, "trace.csv")
        node = os.path.join(d, "simblas.node")
        if node_text is not None:
            with open(node, "w") as f:
                f.write(node_text)
            env["SIMBLAS_NODE"] = node
        try:
            r = subprocess.run([sys.executable, "-c", _LOAD, lib, mode], env=env, stdin=subprocess.DEVNULL,
                               capture_output=True, text=True, errors="replace", timeout=120)
        except (OSError, subprocess.TimeoutExpired) as e:
            raise CliError(f"could not have {lib} load the model {path} to check it ({e}); check the "
                           "installation (make install), or SIMBLAS_LIBDIR", 1)
    if r.returncode != 0:
        said = [ln[len("simblas: "):] for ln in r.stderr.splitlines() if ln.startswith("simblas: ")]
        if not said:
            tail = (r.stderr.strip().splitlines() or [f"status {r.returncode}"])[-1]
            raise CliError(f"{lib} could not be loaded to check the model {path} ({tail}): check the "
                           "installation (make install), or SIMBLAS_LIBDIR", 1)
        why = said[0]
        if node_text is not None and node in why:
            why = why.replace(node, f"the node that --node {node_from} composes")
        raise CliError(f"libsimblas would stop the run (checked before it): {why}")
    _loaded.add(key)


def reference_speed(path):
    """The model's reference-speed (flop/s of one reference core)."""
    if not path:
        raise CliError("no model file: give --model FILE or set SIMBLAS_MODEL "
                       "(`make calibrate` writes one; SimBLAS installs share/simblas/default.model)")
    if os.path.isdir(path):
        inside = os.path.join(path, "default.model")
        raise CliError(f"model file {path} is a directory: give the model file itself"
                       + (f", e.g. --model {inside}" if os.path.isfile(inside) else
                          " (--model FILE or SIMBLAS_MODEL; `make calibrate` writes one)"))
    if not os.path.isfile(path):
        raise CliError(f"model file {path} does not exist: give --model FILE or SIMBLAS_MODEL, "
                       "or run `make calibrate` (simblas-calibrate) to write one")
    try:
        with open(path, errors="replace") as f:
            text = f.read()
    except OSError as e:
        raise CliError(f"cannot read the model file {path}: {e.strerror}; make it readable, or give another "
                       "with --model FILE")
    lines = [ln.split("#", 1)[0].strip() for ln in text.splitlines()]
    lines = [ln for ln in lines if ln]
    if not lines or not lines[0].startswith("simblas-model"):
        raise CliError(f"{path} is not a SimBLAS model file (first line is not 'simblas-model V'): give a model "
                       "with --model FILE, or write one with `make calibrate` (simblas-calibrate -o FILE)")
    for ln in lines:
        f = ln.split()
        if f[0] == "reference-speed" and len(f) >= 2:
            try:
                s = float(f[1])
            except ValueError:
                break
            if s > 0 and math.isfinite(s):
                return s
            break
    raise CliError(f"{path}: no valid 'reference-speed' line (a positive flop rate, doc/model-format.md): "
                   "recalibrate with `make calibrate` (simblas-calibrate -o FILE), or give another with --model FILE")


def meta_fields(path, key):
    """The words after `meta KEY` on the model's first such line (before
    its first set), or None without one."""
    for ln in read_text(path).splitlines():
        f = ln.split("#", 1)[0].split()
        if len(f) >= 3 and f[0] == "meta" and f[1] == key:
            return f[2:]
        if f and f[0] == "set":
            break
    return None


def is_nominal(path):
    """True for the model SimBLAS installs before any calibration
    (`meta source nominal`): made-up rates, not this machine's."""
    f = meta_fields(path, "source")
    return bool(f) and f[0].strip('"') == "nominal"


def meta_number(path, key, bounds):
    """The number of the model's `meta KEY` line, None without one, when it
    is not a number, or outside bounds (lo, hi)."""
    f = meta_fields(path, key)
    try:
        v = float(f[0]) if f else None
    except ValueError:
        return None
    return v if v is not None and bounds[0] <= v <= bounds[1] else None


SOLO_SPEED_RANGE = (0.8, 1.5)   # a 'meta solo_speed' outside it is not used (a measurement gone wrong)


def solo_speed(path):
    """The model's `meta solo_speed` (simblas-hpl refine): how much faster
    one core runs HPL's dgemm with the node's other cores idle than with
    all busy, as the calibration measures; None without one (or out of
    SOLO_SPEED_RANGE)."""
    return meta_number(path, "solo_speed", SOLO_SPEED_RANGE)


SOLO_MEMORY_RANGE = (0.5, 5.0)  # 'meta solo_speed_memory': memory-bound kernels gain far more than dgemm


def solo_speed_memory(path):
    """The model's `meta solo_speed_memory` (simblas-hpl refine): how much
    faster one core runs HPL's memory kernels (level M: the row swaps and
    copies) with the node's other cores idle than with all busy; None
    without one (or out of SOLO_MEMORY_RANGE): they then take solo_speed."""
    return meta_number(path, "solo_speed_memory", SOLO_MEMORY_RANGE)


def solo_calibrated(path):
    """True when the model's solo speeds (meta solo_speed and
    solo_speed_memory) are both the calibrator's own: measured side by side,
    one core alone against every core busy, the same calls in turn
    (simblas-calibrate's solo pairs), which a drift of the machine's speed
    does not bias as it does two separate runs."""
    for key in ("solo_speed", "solo_speed_memory"):
        f = meta_fields(path, key)
        if not f or len(f) < 2 or not f[1].startswith('"simblas-calibrate:'):
            return False
    return True


def set_meta(text, key, words):
    """A model's text with its `meta KEY WORDS` line after the first line,
    any earlier `meta KEY` removed; words None: only removed."""
    lines = [ln for ln in text.splitlines(keepends=True)
             if not (ln.split()[:2] == ["meta", key])]
    return lines[0] + (f"meta {key} {words}\n" if words is not None else "") + "".join(lines[1:])


def set_solo_speed(text, speed, why, key="solo_speed"):
    """A model's text with its `meta KEY SPEED WHY` line (solo_speed,
    solo_speed_memory), as set_meta."""
    return set_meta(text, key, f"{speed:.4f} {why}")


def has_noise(path):
    """True when the model's dgemm line has a noise part ('| ...'): what
    SIMBLAS_NOISE draws from."""
    for ln in read_text(path).splitlines():
        f = ln.split("#", 1)[0].split()
        if f and f[0].split("[")[0] in ("dgemm", "dgemm.right") and "|" in f:
            return True
    return False


def check_calibrated(path):
    """CliError unless path is a model simblas-calibrate wrote (or refined):
    a model file (reference_speed's checks) with a 'meta mode' line, not
    the nominal model SimBLAS installs."""
    reference_speed(path)
    if is_nominal(path):
        raise CliError(f"{path} is the nominal model SimBLAS installs, not a calibration of this machine: run "
                       "`make calibrate` (simblas-calibrate -o FILE) first, then refine FILE")
    if meta_fields(path, "mode") is None:
        raise CliError(f"{path} was not written by simblas-calibrate (it has no 'meta mode' line): refine a model "
                       "that `make calibrate` (simblas-calibrate -o FILE) wrote")
