"""`validate`'s real runs (xhpl-mpi under mpirun, realrun.py): R rounds,
interleaved (round r runs every configuration once, then round r + 1), so
that a machine that drifts shows it as spread, not as a bias of one
configuration; the load that other processes put on the cores during
each run measured (/proc/stat, validate_machine.LoadWatch) and the
reference speed between rounds (validate_speed.SpeedProbe).  Their
summary (median and spread, HPL's phases), the real runs of earlier
reports instead (--real: load_real, each report checked whole by
check_report, pooled per configuration by load_pooled; real_speeds), the
probe of their MPI that the simulations take (real_probe) and how long
they take (estimate_seconds)."""

import json
import math
import os
import shutil
import statistics
import subprocess

from . import hpldat, realrun
from .errors import CliError, note
from .validate_machine import LoadWatch, describe


def real_runs(configs, runs, xhpl, workroot, timeout=None, log=note, speed=None):
    """R interleaved rounds of real runs: {label: {"gflops": [...], "hpl_time_s": [...],
    "other_load": [...]}}; speed (a SpeedProbe) measures the reference speed
    before each round and after the last."""
    out = {c.label: {"gflops": [], "hpl_time_s": [], "wall_s": [], "other_load": [], "phases_s": []}
           for c in configs}
    mpirun = realrun.mpirun_path()
    watch = LoadWatch()
    total = len(configs) * runs
    done = 0
    for r in range(runs):
        if speed:
            speed.measure(f"before round {r + 1}", log)
        for c in configs:
            d = os.path.join(workroot, f"real-{done}")
            watch.start()
            res = realrun.run_real(xhpl, c.n, c.nb, c.p, c.q, hpldat.settings(c.hpl), d,
                                   timeout=timeout, mpirun=mpirun)
            other = watch.stop()
            shutil.rmtree(d, ignore_errors=True)
            o = out[c.label]
            o["gflops"].append(res["gflops"])
            o["hpl_time_s"].append(res["hpl_time_s"])
            o["wall_s"].append(res["wall_s"])
            o["other_load"].append(None if other is None else round(other, 4))
            o["phases_s"].append(res.get("phases_s"))
            done += 1
            busy = "" if other is None else f", other processes {100 * other:.1f}% of the cores"
            log(f"real {done}/{total}: {c.label}: {res['gflops']:g} Gflops ({res['hpl_time_s']:g} s{busy})")
    if speed:
        speed.measure("after the last round", log)
    return out


def summarize_real(g):
    """Median, min, max and spread (max-min over the median, %) of the Gflops."""
    med = statistics.median(g["gflops"])
    lo, hi = min(g["gflops"]), max(g["gflops"])
    loads = [x for x in g.get("other_load", []) if x is not None]
    out = {"gflops": g["gflops"], "hpl_time_s": g.get("hpl_time_s", []), "median": med, "min": lo, "max": hi,
           "spread_pct": round(100 * (hi - lo) / med, 2) if med else None,
           "other_load_max": max(loads) if loads else None}
    phases = summarize_phases(g.get("phases_s") or [])
    if phases:
        out["phases_s"] = phases
    return out


def summarize_phases(runs):
    """HPL's phase times (-DHPL_DETAILED_TIMING) over the real runs: {phase:
    {"median", "min", "max", "runs": [...]}}, for the phases every run
    printed; {} when a run printed none."""
    if not runs or any(not r for r in runs):
        return {}
    names = [k for k in runs[0] if all(k in r for r in runs)]
    return {k: {"median": statistics.median(r[k] for r in runs), "min": min(r[k] for r in runs),
                "max": max(r[k] for r in runs), "runs": [r[k] for r in runs]} for k in names}


def real_probe(mpirun):
    """run --probe for the MPI of the real runs: 'lagged' for Open MPI (its
    MPI_Iprobe looks at the messages it has taken in, then progresses:
    ompi/mca/pml/ob1/pml_ob1_iprobe.c, and pml/ucx alike), 'immediate'
    for the others (MPICH's looks again after progressing), with what
    `mpirun --version` says (none without an mpirun: immediate)."""
    try:
        said = "" if not mpirun else subprocess.run([mpirun, "--version"], stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, text=True, errors="replace", timeout=30).stdout
    except (OSError, subprocess.SubprocessError):
        said = ""
    first = said.strip().splitlines()[0] if said.strip() else "?"
    return ("lagged" if "Open MPI" in said or "OpenRTE" in said else "immediate"), first


def load_real(path, configs):
    """--real FILE: the real figures of an earlier validate's JSON for configs."""
    try:
        with open(path) as f:
            old = json.load(f)
    except (OSError, ValueError) as e:
        raise CliError(f"--real {path}: cannot read it as a validate JSON ({e})")
    check_report(path, old)
    have = {r["label"]: r["real"] for r in old["configs"] if "real" in r}
    missing = [c.label for c in configs if c.label not in have]
    if missing:
        raise CliError(f"--real {path} has no real runs of {', '.join(missing[:4])}: validate those configurations "
                       "again without --real, or choose the ones it has with --config")
    def phases(real):  # the runs' phases back from the summary's per-run lists
        ph = real.get("phases_s") or {}
        n = len(real["gflops"])
        if not ph or any(len(v.get("runs", [])) != n for v in ph.values()):
            return []
        return [{k: v["runs"][i] for k, v in ph.items()} for i in range(n)]
    return {c.label: {"gflops": have[c.label]["gflops"], "hpl_time_s": have[c.label].get("hpl_time_s", []),
                      "other_load": [have[c.label].get("other_load_max")], "phases_s": phases(have[c.label])}
            for c in configs}, old


REMEDY = "give a report that `simblas-hpl validate --json` wrote"
MISSING = object()


def said(value):
    """A JSON value as a refusal shows it: itself when short, else its kind."""
    if value is MISSING:
        return "missing"
    text = json.dumps(value)
    if len(text) <= 40:
        return text
    if isinstance(value, list):
        return f"a list of {len(value)} items"
    return "an object" if isinstance(value, dict) else "a long string" if isinstance(value, str) else text[:37] + "..."


def number(x, positive=False):
    """A finite JSON number (not a boolean), > 0 when positive."""
    return isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x) and (x > 0 or not positive)


def numbers(x, positive=False, empty=True):
    """A list of such numbers (not empty unless empty)."""
    return isinstance(x, list) and (empty or bool(x)) and all(number(v, positive) for v in x)


def check_report(path, old):
    """Refuse (one line: the file, the entry, the key, what to give) an
    earlier validate's JSON that is not one: everything of it that --real
    reads, checked when it is loaded, before anything runs (not a
    traceback after the simulations)."""
    def bad(where, key, value, want):
        what = f"no {key} ({want})" if value is MISSING else f"{key} is {said(value)}, not {want}"
        raise CliError(f"--real {path}: {where}{what}: {REMEDY}")
    if not isinstance(old, dict):
        bad("", "the top level", old, "an object with configs (a list of configurations)")
    if not isinstance(old.get("configs", MISSING), list):
        bad("", "configs", old.get("configs", MISSING), "a list of configurations")
    seen = {}
    for i, r in enumerate(old["configs"]):
        at = f"configs[{i}]"
        if not isinstance(r, dict):
            bad(f"{at}: ", "the entry", r, "an object with label and real")
        label = r.get("label", MISSING)
        if not isinstance(label, str) or not label:
            bad(f"{at}: ", "label", label, 'a configuration\'s label, e.g. "N=8000 1x2"')
        at = f"{at} ({label}): "
        if label in seen:
            raise CliError(f"--real {path}: {at}the label is configs[{seen[label]}]'s too (the runs of one of "
                           f"them would be left out): {REMEDY}, one entry per configuration")
        seen[label] = i
        if "real" not in r:
            continue  # no real runs of it: refused if it is chosen (load_real)
        real = r["real"]
        if not isinstance(real, dict):
            bad(at, "real", real, "an object with gflops (the real runs)")
        g = real.get("gflops", MISSING)
        if not numbers(g, positive=True, empty=False):
            bad(at, "real.gflops", g, "a list of one or more Gflops > 0, one per real run")
        v = real.get("hpl_time_s")
        if v is not None and not numbers(v):
            bad(at, "real.hpl_time_s", v, "a list of seconds")
        v = real.get("other_load_max")
        if v is not None and not number(v):
            bad(at, "real.other_load_max", v, "a share of the cores (a number) or null")
        ph = real.get("phases_s")
        if ph is not None and not isinstance(ph, dict):
            bad(at, "real.phases_s", ph, "an object of HPL's phases")
        for k, v in (ph or {}).items():
            if not isinstance(v, dict) or not numbers(v.get("runs", [])):
                bad(at, f"real.phases_s.{k}", v, "an object with runs (a list of seconds)")
    m = old.get("machine")
    if m is not None:
        if not isinstance(m, dict):
            bad("", "machine", m, "an object")
        for k, ok, want in (("cpu", lambda v: isinstance(v, str), "a string"),
                            ("simd", lambda v: isinstance(v, list) and all(isinstance(x, str) for x in v),
                             "a list of strings"),
                            ("cores", lambda v: number(v, positive=True), "a number > 0"),
                            ("family", number, "a number"), ("model", number, "a number")):
            if m.get(k) is not None and not ok(m[k]):
                bad("", f"machine.{k}", m[k], f"{want} or null")
    b = old.get("build")
    if b is not None and not (isinstance(b, dict) and (b.get("source") is None or isinstance(b["source"], str))):
        bad("", "build", b, "null or an object whose source is a string")
    rs = old.get("reference_speed")
    measured = rs.get("measured") if isinstance(rs, dict) else None
    for i, x in enumerate(measured if isinstance(measured, list) else []):
        at = f"reference_speed.measured[{i}]"
        if not (isinstance(x, dict) and isinstance(x.get("time"), str) and isinstance(x.get("when"), str)
                and (x.get("gflops") is None or number(x["gflops"], positive=True))
                and (x.get("shape") is None or isinstance(x["shape"], str))):
            bad("", at, x, "an object with time and when (strings), gflops (> 0 or null) and shape")


def load_pooled(paths, configs):
    """--real FILE, repeatable: the real runs of one or more earlier reports,
    pooled per configuration (a noisy machine's rounds read together, one
    median over all their runs).  Every report must hold every
    configuration and come from the same kind of machine (CPU, SIMD
    flags, cores) and HPL source (a build with HPL's detailed timing is
    the same source); a file given twice would count its runs twice.
    Returns (real, olds): load_real's real over all the files, and each
    file's report in order."""
    seen = set()
    for p in paths:
        key = os.path.realpath(p)
        if key in seen:
            raise CliError(f"--real {p} is given twice: its runs would count twice; give each report once")
        seen.add(key)
    loaded = [load_real(p, configs) for p in paths]
    first = loaded[0][1]
    kind0, src0 = machine_kind(first), hpl_source(first)
    for p, (_, old) in zip(paths[1:], loaded[1:]):
        if not same_kind(machine_kind(old), kind0):
            raise CliError(f"--real {p} was measured on {describe(old.get('machine') or {})}, --real {paths[0]} on "
                           f"{describe(first.get('machine') or {})}: pool the real runs of one machine kind only")
        src = hpl_source(old)
        if src and src0 and src != src0:
            raise CliError(f"--real {p} ran HPL from {src}, --real {paths[0]} from {src0}: pool the real runs of one "
                           "HPL source only")
    real = {}
    for c in configs:
        runs = [r[c.label] for r, _ in loaded]
        real[c.label] = {k: [x for r in runs for x in r[k]] for k in ("gflops", "hpl_time_s", "other_load")}
        # HPL's phases only when every report printed them for every run of this configuration
        real[c.label]["phases_s"] = ([x for r in runs for x in r["phases_s"]]
                                     if all(r["phases_s"] for r in runs) else [])
    return real, [old for _, old in loaded]


def machine_kind(old):
    """What a report says of its machine that pooling must match: (CPU,
    SIMD flags, cores, x86 family and model: None in reports before
    2026-12-07)."""
    m = old.get("machine") or {}
    return (m.get("cpu"), tuple(sorted(m.get("simd") or [])), m.get("cores"), m.get("family"), m.get("model"))


def same_kind(a, b):
    """Two machine_kinds alike: CPU, SIMD flags and cores equal, and the
    family and model too where both reports give them."""
    return a[:3] == b[:3] and all(x is None or y is None or x == y for x, y in zip(a[3:], b[3:]))


def hpl_source(old):
    """The HPL source a report's real runs were built from (its file name:
    the same tarball has another path on another machine), or None."""
    src = (old.get("build") or {}).get("source")
    return os.path.basename(src.rstrip("/")) if src else None


def pooled_speeds(olds):
    """The reference speeds measured with the pooled reports' real runs, all
    of them; None unless every report has some (an anchor taken from only
    some of the rounds would not be the pooled runs' machine speed)."""
    got = [real_speeds(o) for o in olds]
    return None if any(not g for g in got) else [x for g in got for x in g]


def real_speeds(old):
    """The reference speeds measured with an earlier validate's real runs
    (its JSON, load_real's old), or None when they were not."""
    rs = old.get("reference_speed")
    return rs.get("measured") if isinstance(rs, dict) and isinstance(rs.get("measured"), list) else None


def estimate_seconds(configs, runs, rate_per_core=60e9, speed_shapes=0):
    """A rough duration of the real runs: the flops at rate_per_core on each
    rank, plus a few seconds per run for start-up, generation and check,
    and about 8 s per reference speed measured (speed_shapes of them
    before each round and after the last)."""
    return sum(runs * (c.flops() / (rate_per_core * c.ranks) + 3 + c.n * c.n * 8 / 2e9) for c in configs) \
        + 8 * speed_shapes * (runs + 1)
