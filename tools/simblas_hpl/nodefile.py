"""Node files (TOML, examples/nodes/*.toml): a node SimBLAS never ran on,
described from published figures, checked and composed into the file
libsimblas reads (SIMBLAS_NODE, "simblas-node 1", doc/model-format.md).

Every figure is an inline table with its value, its kind and its source,
or with `missing` (searched for, not found) and no value; a variant file
may set a base file's figure to `{ omit = "why" }` (not used).  A run refuses
a missing figure it needs, naming the key; one it does not need (power
without --energy) is fine.  The figures of the calibrated node, which the
target's absolute figures are compared with, are the node file
simblas-probe wrote beside the model (MODEL.node.toml).

Composition, for a rank of a node of C cores run with R ranks per node:
  flops      the rank's flop rate / the reference core's:
             speed_relative x C/R, or (peak_gflops_per_core / the
             reference's) x C/R (the same fraction of peak as the calibrated
             node reaches)
  bandwidth  the rank's memory bandwidth / the reference core's share:
             bandwidth_relative x C/R, or (stream_gbs / R) / (the
             reference's stream_gbs / its cores); mem_bw_gbs (nominal) when
             no STREAM figure is given
  overhead   a call's own cost: the per-core speed ratio (flops x R/C)
  host lines the node's own dgemm/dtrsm fits (per = "node" or "core")
  accelerators count / R per rank, their rate models, the offload rule
             (policy, size bounds, routines), the host's share, the link.
compose() makes it in steps, one function each, in the order the file is
checked in: rank_of_node, flops_scale, bandwidth_scale, host_fits,
accelerator_lines (devices_per_rank, offloaded_routines, accel_rates,
offload_bounds, host_share, link_line), power_figures, dgemm_fraction,
summary_of.
"""

import collections
import dataclasses
import math
import os
import tomllib
from typing import Any, Dict, List, Optional

from . import model, platforms, settings
from .errors import CliError, note

SCHEMA = "simblas-node/0.1"
KINDS = ("published", "measured", "nominal", "derived", "proxy", "assumed", "not-found")
# the model file's terms, and the names a node file may give them
TERMS = {"1": "1", "m": "m", "n": "n", "mn": "mn", "k": "k", "mk": "mk", "nk": "nk", "mnk": "mnk",
         "MNK": "mnk", "MN": "mn", "MK": "mk", "NK": "nk", "M": "m", "N": "n", "K": "k",
         "M2N": "mnk", "MN2": "mnk"}
REFERENCE_SUFFIX = ".node.toml"
LEVELS = ("3", "2", "1", "M")  # the op table's levels, the costliest first


def ops():
    """The op table the build writes (ops.json): the routines libsimblas
    models, as their model keys (dgemm, idamax, hpl_dlaswp00N)."""
    doc = settings.read_table("ops.json")
    if doc is None:
        raise settings.missing("ops.json")
    return doc["ops"]


def hpl_routines():
    """What netlib HPL calls in the BLAS, which an accelerator that holds the
    matrix (matrix_resident) must all run: lib/blas.def's rows marked HPL in
    its focus column, as their double-precision real routines (dgemm,
    idamax), from the op table (ops()); level 3 first, then in the table's
    order."""
    return [op["name"] for op in sorted((op for op in ops() if op["focus"] == "HPL"),
                                        key=lambda op: LEVELS.index(op["level"]))]


RATE_KEYS = ("model", "term", "terms", "alpha", "points")   # what makes a table a rate model (rate_lines)


def check_routines(doc, a):
    """The routines the accelerator's tables name -- offload.routines, a
    rate model's key (accelerator.0.dgemm), a bound's (offload.dgemm_min)
    -- are routines of the op table, as libsimblas's `offload` and `accel`
    lines need (it stops at any other, once the simulation has started);
    offload.routines names each once (a second `offload` line for it is
    refused too).  Refused naming the key."""
    names = {op["name"] for op in ops()}
    remedy = ("a routine libsimblas models, by its model name (dgemm, dtrsm, idamax, ...: the op table, "
              "ops.json, from lib/blas.def)")
    listed = doc.raw(f"{a}.offload.routines")
    if listed is not None:
        if not (isinstance(listed, list) and all(isinstance(x, str) for x in listed)):
            doc.fail(f"{a}.offload.routines", "must be a list of routine names")
        for x in listed:
            if x not in names:
                doc.fail(f"{a}.offload.routines", f"names {x!r}, which is no BLAS routine: give {remedy}")
        twice = sorted({x for x in listed if listed.count(x) > 1})
        if twice:
            doc.fail(f"{a}.offload.routines", f"names {', '.join(twice)} more than once: name each routine once")
    table = doc.raw(a)
    for k, v in table.items() if isinstance(table, dict) else ():
        if isinstance(v, dict) and any(r in v for r in RATE_KEYS) and k not in names:
            doc.fail(f"{a}.{k}", f"is a rate model, and {k!r} is no BLAS routine: key it by {remedy}")
    offload = doc.raw(f"{a}.offload")
    for k in offload if isinstance(offload, dict) else ():
        if k.endswith("_min") and k[:-len("_min")] not in names:
            doc.fail(f"{a}.offload.{k}", f"bounds {k[:-len('_min')]!r}, which is no BLAS routine: name it "
                                         f"ROUTINE_min, with ROUTINE {remedy}")


@dataclasses.dataclass
class Figure:
    """One figure of a node file: its dotted key, value (None when missing),
    kind, source and note."""
    key: str
    value: Any = None
    kind: Optional[str] = None
    source: Optional[str] = None
    note: Optional[str] = None
    missing: Optional[str] = None

    def brief(self):
        return {k: v for k, v in (("key", self.key), ("value", self.value), ("kind", self.kind),
                                  ("source", self.source)) if v is not None}


class NodeDoc:
    """A node file read (with its base, for a variant file), and the figures
    the composition used."""

    def __init__(self, path):
        self.path = os.path.abspath(path)
        self.data = read(self.path)
        self.used: Dict[str, Figure] = {}

    @property
    def name(self):
        return str(self.data.get("name") or os.path.basename(self.path))

    def raw(self, key):
        """The TOML value at a dotted key (accelerator.0.link...), None if absent."""
        v = self.data
        for part in key.split("."):
            if isinstance(v, list):
                try:
                    v = v[int(part)]
                except (ValueError, IndexError):
                    return None
            elif isinstance(v, dict):
                if part not in v:
                    return None
                v = v[part]
            else:
                return None
        return v

    def figure(self, key):
        """The figure at key: None when absent; a Figure (value None and
        `missing` set when the file says it was not found)."""
        v = self.raw(key)
        if v is None or (isinstance(v, dict) and "omit" in v):  # a variant's "not this one"
            return None
        if isinstance(v, dict) and ("value" in v or "missing" in v):
            kind = v.get("kind")
            if kind is not None and kind not in KINDS:
                self.fail(key, f"has kind {kind!r}; a figure's kind is one of {', '.join(KINDS)}")
            if "value" in v and "missing" in v:
                self.fail(key, "has both a value and 'missing': give one")
            return Figure(key, v.get("value"), kind, v.get("source"), v.get("note"),
                          str(v["missing"]) if "missing" in v else None)
        return Figure(key, v)

    def need(self, key, why, number=True, lo=None, hi=None):
        """The value of a figure the run needs: refused (naming the key) when
        absent or missing; checked as a number in [lo, hi]."""
        f = self.figure(key)
        if f is None:
            self.fail(key, f"is not given, and this run needs it: {why}")
        if f.missing is not None:
            self.fail(key, f"is missing ({f.missing}), and this run needs it: {why}; give it a value with its "
                           "kind and source (a variant file may fix it as kind = \"assumed\", doc/hindcast.md)")
        return self.take(f, number, lo, hi)

    def take(self, f, number=True, lo=None, hi=None):
        v = f.value
        if number:
            if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
                self.fail(f.key, f"is {v!r}: a number is expected")
            if (lo is not None and v < lo) or (hi is not None and v > hi):
                rng = f"in [{lo:g}, {hi:g}]" if lo is not None and hi is not None else \
                    f">= {lo:g}" if lo is not None else f"<= {hi:g}"
                self.fail(f.key, f"is {v:g}: it must be {rng}")
        self.used[f.key] = f
        return v

    def given(self, key):
        """A figure that is present with a value (not missing)."""
        f = self.figure(key)
        return f if f is not None and f.missing is None else None

    def fail(self, key, what):
        raise CliError(f"--node {self.path}: {key} {what}")


FIGURE_KEYS = ("value", "missing", "omit", "term", "alpha", "terms", "points")


def is_figure(v):
    """A figure (a value or a rate model, with its kind and source): a variant
    replaces it whole, it does not merge into it."""
    return isinstance(v, dict) and any(k in v for k in FIGURE_KEYS)


def merge(base, over):
    """A variant file over its base: tables merge key by key, arrays of
    tables element by element, a figure or anything else is replaced."""
    out = dict(base)
    for k, v in over.items():
        b = out.get(k)
        if isinstance(b, dict) and isinstance(v, dict) and not is_figure(v) and not is_figure(b):
            out[k] = merge(b, v)
        elif isinstance(b, list) and isinstance(v, list) and all(isinstance(x, dict) for x in b + v):
            out[k] = [merge(b[i], v[i]) if i < len(b) else v[i] for i in range(max(len(b), len(v)))] \
                if len(v) >= len(b) else [merge(b[i], v[i]) if i < len(v) else b[i] for i in range(len(b))]
        else:
            out[k] = v
    return out


def read(path, seen=()):
    """A node file's TOML, its `base` merged under it; CliError for what is
    not one."""
    if not os.path.isfile(path):
        raise CliError(f"--node {path}: no such file")
    try:
        with open(path, "rb") as f:
            data = tomllib.load(f)
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as e:
        raise CliError(f"--node {path}: not a TOML file: {e}")
    except OSError as e:
        raise CliError(f"--node {path}: cannot read it: {e.strerror}")
    base = data.pop("base", None)
    if base is not None:
        bpath = os.path.join(os.path.dirname(path), str(base))
        if os.path.abspath(bpath) in seen or os.path.abspath(bpath) == path:
            raise CliError(f"--node {path}: base {base} includes itself")
        data = merge(read(os.path.abspath(bpath), seen + (path,)), data)
    if data.get("schema") != SCHEMA:
        raise CliError(f"--node {path}: schema is {data.get('schema')!r}, expected {SCHEMA!r} "
                       "(the node file format of examples/nodes/)")
    return data


# ---- rate models ----------------------------------------------------------
def rate_lines(doc, key, routine, scale_terms=1.0):
    """A rate model (a table: model = "linear" with term, alpha, beta or
    terms = {...}; or points = [[size, gflops], ...]) as model-file lines for
    routine: ['dgemm mnk=... 1=...', 'dgemm[mnk>=...] ...'].  scale_terms
    multiplies every coefficient but the constant."""
    v = doc.raw(key)
    if not isinstance(v, dict):
        doc.fail(key, "is not a rate model (a table with model = \"linear\" or points = [[size, gflops], ...])")
    if "missing" in v:
        doc.fail(key, f"is missing ({v['missing']}), and this run needs it: the rate of {routine}")
    kind = v.get("kind")
    doc.used[key] = Figure(key, {k: x for k, x in v.items() if k not in ("kind", "source", "note")}, kind,
                           v.get("source"), v.get("note"))
    name = routine
    if "points" in v:
        pts = v["points"]
        if not (isinstance(pts, list) and 1 <= len(pts) <= 5 and all(
                isinstance(p, list) and len(p) == 2 and all(isinstance(x, (int, float)) and x > 0 for x in p)
                for p in pts)):
            doc.fail(key + ".points", "must be 1 to 5 [size, gflops] pairs of positive numbers")
        pts = sorted(pts)
        flops_per = 2.0 if routine.endswith("gemm") else 1.0  # per m*n*k: gemm 2mnk, trsm m^2 n
        lines = []
        for i, (size, gflops) in enumerate(pts):
            coef = flops_per / (gflops * 1e9) * scale_terms
            lines.append(f"{name} mnk={coef!r}" if i == 0 else f"{name}[mnk>={float(size) ** 3!r}] mnk={coef!r}")
        return lines
    if v.get("model", "linear") != "linear":
        doc.fail(key + ".model", f"is {v.get('model')!r}: rate models are 'linear' (or points = [...])")
    coefs = {}
    if "terms" in v:
        if not isinstance(v["terms"], dict):
            doc.fail(key + ".terms", "must be a table TERM = seconds")
        coefs.update(v["terms"])
    if "term" in v or "alpha" in v:
        if "term" not in v or "alpha" not in v:
            doc.fail(key, "needs term and alpha together (t = alpha x term + beta)")
        if not isinstance(v["term"], str):  # a table or an array: no term's name (it was a TypeError)
            doc.fail(key + ".term", f"is {v['term']!r}; the terms are {', '.join(sorted(set(TERMS)))}")
        coefs[v["term"]] = v["alpha"]
        if "beta" in v:
            coefs["1"] = v["beta"]
    if not coefs:
        doc.fail(key, "gives no coefficient: term, alpha (and beta), or terms = {...}")
    if v.get("term") == "MN2" and routine.endswith("trsm"):
        name = routine + ".right"  # the Right-side form (MN^2)
    parts = []
    for t, c in coefs.items():
        if t not in TERMS:
            doc.fail(key, f"has term {t!r}; the terms are {', '.join(sorted(set(TERMS)))}")
        if isinstance(c, bool) or not isinstance(c, (int, float)) or not math.isfinite(c):
            doc.fail(key, f"coefficient of {t} is {c!r}: a number of seconds is expected")
        parts.append(f"{TERMS[t]}={c * (1 if TERMS[t] == '1' else scale_terms)!r}")
    return [f"{name} " + " ".join(parts)]


def link_flow(doc, a, rank_bw_gbs, resident, included):
    """What crosses the host-device link of an offloaded call, and when
    (accelerator.link.c, .overlap): the options of the `link` line and the
    JSON's account of them.  c = "inout" (default): a gemm's C goes to the
    device and back; "out": C stays in host memory, the device's product
    comes back and the host adds it into C at the rank's memory bandwidth
    (rank_bw_gbs(), GB/s).  overlap = true: the transfers are pipelined
    with the device's compute.  None
    when nothing crosses the link (matrix_resident) or the rates include it
    (rates_include_host)."""
    c_fig, o_fig = doc.given(f"{a}.link.c"), doc.given(f"{a}.link.overlap")
    for fig in (c_fig, o_fig):
        if fig and (resident or included):
            doc.fail(fig.key, "is given, but " + (
                f"{a}.matrix_resident = true says the matrix lives on the device: nothing crosses the link"
                if resident else f"{a}.offload.rates_include_host = true says the rates already include the "
                                 "transfers") + "; remove one")
    if resident or included:
        return None
    c = doc.take(c_fig, number=False) if c_fig else "inout"
    if c not in ("inout", "out"):
        doc.fail(f"{a}.link.c", f"is {c!r}: \"inout\" (a gemm's C crosses the link in and out) or \"out\" (C "
                                "stays in host memory; the device's product comes back and the host adds it)")
    overlap = doc.take(o_fig, number=False) if o_fig else False
    if not isinstance(overlap, bool):
        doc.fail(f"{a}.link.overlap", f"is {overlap!r}: true (the transfers are pipelined with the device's "
                                      "compute) or false (one after the other)")
    flow = {"c": c, "overlap": overlap, "merge_gbs": None, "text": ""}
    if c == "out":
        merge = rank_bw_gbs()
        flow["merge_gbs"] = merge
        flow["text"] = f" c=out merge={merge * 1e9!r}"
    if overlap:
        flow["text"] += " overlap=yes"
    return flow


# ---- the composition --------------------------------------------------------
@dataclasses.dataclass
class Composition:
    """What a run gets from a node file: the text libsimblas reads, the
    --energy triple and the accelerators' watts (None without --energy),
    and the JSON's account of it."""
    text: str
    summary: Dict[str, Any]
    energy: Optional[List[float]] = None
    accel_watts: Optional[List[float]] = None   # [idle, busy] per device
    accelerators_per_node: int = 0


def reference_file(model_path):
    return model_path + REFERENCE_SUFFIX


def read_reference(model_path, why):
    """The calibrated node's figures (simblas-probe's file beside the model)."""
    path = reference_file(model_path)
    if not os.path.isfile(path):
        raise CliError(f"--node: {why} needs the figures of the node the model was calibrated on, and "
                       f"{path} does not exist: run `simblas-probe -o {path}` on that node (the calibration "
                       "machine), or give the target's figures relative to it (cpu.speed_relative, "
                       "cpu.bandwidth_relative)")
    return NodeDoc(path)


@dataclasses.dataclass
class Rank:
    """One rank's part of a node, what the steps of a composition share:
    the node file (doc; path as the run gave it), the model it is composed
    against, the ranks per node (r, as ranks_by says) and the cores of
    each (per_rank); the calibrated node's figures (ref), once an absolute
    figure needs them, and how the flops and bandwidth were made (how)."""
    doc: NodeDoc
    path: str
    model_path: str
    r: int
    ranks_by: str
    per_rank: float
    ref: Optional[NodeDoc] = None
    how: Dict[str, str] = dataclasses.field(default_factory=dict)

    def reference(self, why):
        """The calibrated node's figures, read the first time they are
        needed (why: for what)."""
        self.ref = self.ref or read_reference(self.model_path, why)
        return self.ref


def compose(path, model_path, ranks_per_node=1, energy=None, ranks_by="--cores-per-node"):
    """The node file at path, for a run with ranks_per_node ranks on each
    node (as ranks_by says: --cores-per-node, or a platform file's hosts)
    against the model at model_path; energy: the --energy option's text
    ('node': the node file's power figures; I:E:A: the host triple given,
    the accelerators' watts still from the node file).  The steps below,
    in this order, which is the order the node file is checked in."""
    rank = rank_of_node(path, model_path, ranks_per_node, ranks_by)
    flops, ref_peak = flops_scale(rank)
    bandwidth, absolute = bandwidth_scale(rank)
    overhead = flops / rank.per_rank   # a call's own cost: the per-core speed ratio
    host_lines, fitted = host_fits(rank)
    acc_lines, accelerators = accelerator_lines(rank, lambda: rank_memory_gbs(rank, bandwidth, absolute))
    wattage, accel_watts = power_figures(rank.doc, energy, accelerators is not None)
    fraction = dgemm_fraction(rank, ref_peak, fitted)
    lines = ["simblas-node 1", f"name {rank.doc.name}", f"flops {flops!r}", f"bandwidth {bandwidth!r}",
             f"overhead {overhead!r}"] + [f"host {ln}" for ln in host_lines] + acc_lines + ["end"]
    summary = summary_of(rank, fraction, flops, bandwidth, overhead, host_lines, accelerators)
    return Composition(text="\n".join(lines) + "\n", summary=summary, energy=wattage, accel_watts=accel_watts,
                       accelerators_per_node=accelerators["count_per_node"] if accelerators else 0)


def rank_of_node(path, model_path, r, ranks_by):
    """The node file at path read, and its cores (cpu.cores, a whole
    number) shared among r ranks, at most one rank per core."""
    doc = NodeDoc(path)
    cores = doc.need("cpu.cores", "the cores a rank's flop rate and bandwidth are made of", lo=1)
    if cores != int(cores):
        doc.fail("cpu.cores", f"is {cores}: a whole number of cores")
    if r > cores:
        raise CliError(f"--node {path}: {r} ranks per node ({ranks_by}) but the node has {cores:g} cores "
                       f"(cpu.cores): at most one rank per core")
    return Rank(doc, path, model_path, r, ranks_by, cores / r)


def flops_scale(rank):
    """The rank's flop rate over the calibrated core's (the `flops`
    line): cpu.speed_relative, or cpu.peak_gflops_per_core over the
    reference's, times the rank's cores.  With it, for an absolute peak,
    (this machine's dgemm flop/s per core, the reference's peak Gflop/s per
    core), which dgemm_fraction compares; else None."""
    doc = rank.doc
    rel, peak = doc.given("cpu.speed_relative"), doc.given("cpu.peak_gflops_per_core")
    if rel and peak:
        doc.fail("cpu.speed_relative", "and cpu.peak_gflops_per_core are both given: the speed is relative to "
                                       "the calibrated node or absolute, not both")
    ref_peak = None
    if rel:
        core_ratio = doc.take(rel, lo=1e-6, hi=1e6)
        rank.how["flops"] = "cpu.speed_relative"
    elif peak:
        ref = rank.reference("cpu.peak_gflops_per_core (absolute)")
        p_ref = ref.need("cpu.peak_gflops_per_core", "the calibrated core's peak", lo=1e-6)
        core_ratio = doc.take(peak, lo=1e-6) / p_ref
        rank.how["flops"] = f"cpu.peak_gflops_per_core / the reference's {p_ref:g}"
        ref_peak = (model.reference_speed(rank.model_path), p_ref)   # one core's dgemm, all cores busy, flop/s
    else:
        doc.need("cpu.peak_gflops_per_core", "the rank's flop rate (or cpu.speed_relative)")
    return core_ratio * rank.per_rank, ref_peak


def bandwidth_scale(rank):
    """The rank's memory bandwidth over the calibrated core's share (the
    `bandwidth` line): cpu.bandwidth_relative times the rank's cores, or
    the rank's share of the node's cpu.stream_gbs (else of the nominal
    cpu.mem_bw_gbs) over the reference's STREAM per core.  With it, the
    node's absolute figure taken (None for a relative one)."""
    doc = rank.doc
    brel = doc.given("cpu.bandwidth_relative")
    stream, nominal = doc.given("cpu.stream_gbs"), doc.given("cpu.mem_bw_gbs")
    if brel and (stream or nominal):
        doc.fail("cpu.bandwidth_relative", f"and {(stream or nominal).key} are both given: the bandwidth is "
                                           "relative to the calibrated node or absolute, not both")
    if brel:
        bandwidth = doc.take(brel, lo=1e-6, hi=1e6) * rank.per_rank
        rank.how["bandwidth"] = "cpu.bandwidth_relative"
    elif stream or nominal:
        fig = stream or nominal
        ref = rank.reference(f"{fig.key} (absolute)")
        s_ref = ref.need("cpu.stream_gbs", "the calibrated node's memory bandwidth", lo=1e-6)
        c_ref = ref.need("cpu.cores", "the calibrated node's cores", lo=1)
        bandwidth = (doc.take(fig, lo=1e-6) / rank.r) / (s_ref / c_ref)
        rank.how["bandwidth"] = f"{fig.key} / {rank.r} rank(s) against the reference's {s_ref:g} GB/s / " \
                                f"{c_ref:g} cores" + ("" if stream else " (a nominal figure against a measured one)")
    else:
        f = doc.figure("cpu.stream_gbs") or doc.figure("cpu.mem_bw_gbs")
        key = f.key if f else "cpu.stream_gbs"
        doc.need(key, "the rank's memory bandwidth (or cpu.mem_bw_gbs, cpu.bandwidth_relative)")
    return bandwidth, stream or nominal


def rank_memory_gbs(rank, bandwidth, absolute):
    """The rank's memory bandwidth in GB/s: its share of the node's STREAM
    (or nominal) figure, absolute, or the relative bandwidth over the
    calibrated core's.  Asked only of an accelerator whose product the host
    merges (link_flow), so the reference read for it is not kept: the
    summary's reference is what the scales were made against."""
    if absolute:
        return absolute.value / rank.r
    ref = rank.ref or read_reference(rank.model_path, "accelerator.0.link.c = \"out\" with "
                                                      "cpu.bandwidth_relative (the host's merge at its memory "
                                                      "bandwidth, in bytes/s)")
    return bandwidth * ref.need("cpu.stream_gbs", "the calibrated node's memory bandwidth", lo=1e-6) / \
        ref.need("cpu.cores", "the calibrated node's cores", lo=1)


def host_fits(rank):
    """The node's own dgemm and dtrsm fits (cpu.dgemm, cpu.dtrsm, per =
    "node" or "core"), as model lines for one rank, and the routines they
    fit; a routine without one keeps the model's, scaled."""
    doc = rank.doc
    lines, fitted = [], set()
    for routine in ("dgemm", "dtrsm"):
        key = f"cpu.{routine}"
        f = doc.figure(key)
        if f is None or f.missing is not None:
            continue  # the model, scaled
        per = doc.raw(key + ".per")
        if per not in ("node", "core"):
            doc.fail(key + ".per", f"is {per!r}: say what the fit measured, per = \"node\" (all its cores) or "
                                   "\"core\" (one)")
        scale = rank.r if per == "node" else 1 / rank.per_rank
        lines += rate_lines(doc, key, routine, scale)
        fitted.add(routine)
    return lines, fitted


# ---- the accelerator --------------------------------------------------------
def accelerator_lines(rank, memory_gbs):
    """The node's accelerator ([[accelerator]]: one kind, with its count):
    its lines, none when it runs no routine, and the JSON's account of it;
    ([], None) for a node without one.  memory_gbs(): the rank's memory
    bandwidth in GB/s, for a product the host merges (link_flow)."""
    doc = rank.doc
    accs = doc.raw("accelerator") or []
    if not isinstance(accs, list):
        doc.fail("accelerator", "must be an array of tables ([[accelerator]])")
    if len(accs) > 1:
        doc.fail("accelerator", f"describes {len(accs)} kinds of accelerator; a node file gives one kind "
                                "(with its count)")
    if not accs:
        return [], None
    a = "accelerator.0"
    per_node, per_rank = devices_per_rank(rank, a)
    resident = doc.raw(f"{a}.matrix_resident") is True
    policy, routines = offloaded_routines(rank, a, resident)
    included = doc.raw(f"{a}.offload.rates_include_host") is True
    lines, share, flow = [], None, None
    if routines:
        lines.append(f"accelerators {per_rank}")
        for x in routines:
            lines += accel_rates(doc, a, x)
            bounds = offload_bounds(doc, a, x, resident) if policy == "threshold" else ""
            lines.append(f"offload {x}{bounds}")
        share = host_share(doc, a, included)
        lines.append(f"share {share}")
        link, flow = link_line(doc, a, resident, included, memory_gbs)
        if link:
            lines.append(link)
    return lines, {"count_per_node": per_node, "per_rank": per_rank, "policy": policy, "routines": routines,
                   "share": share, "matrix_resident": resident, "link": flow}


def devices_per_rank(rank, a):
    """The accelerators of a node (count) and of each of its ranks: each
    rank a whole number of them."""
    count = rank.doc.need(f"{a}.count", "how many accelerators a node has", lo=1)
    if count != int(count) or count % rank.r:
        raise CliError(f"--node {rank.path}: {a}.count is {count:g} for {rank.r} rank(s) per node: each rank "
                       f"needs a whole number of devices; run a divisor of the count per node ({rank.ranks_by})")
    return int(count), int(count) // rank.r


def offloaded_routines(rank, a, resident):
    """The offload policy (threshold, always, never) and the routines the
    accelerator runs: offload.routines, else those HPL calls that the file
    gives a rate or a bound of (all of them, for an accelerator that holds
    the matrix); none with policy "never".  Each must have a rate."""
    doc = rank.doc
    policy = doc.raw(f"{a}.offload.policy") or "threshold"
    if policy not in ("threshold", "always", "never"):
        doc.fail(f"{a}.offload.policy", f"is {policy!r}: one of threshold, always, never")
    check_routines(doc, a)
    listed = doc.raw(f"{a}.offload.routines")
    if listed is None:  # what HPL calls that the file says something about
        hpl = hpl_routines()
        listed = hpl if resident else \
            [x for x in hpl if doc.raw(f"{a}.{x}") is not None or doc.raw(f"{a}.offload.{x}_min")]
    routines = [] if policy == "never" else listed
    lacking = [x for x in routines if doc.raw(f"{a}.{x}") is None or
               (isinstance(doc.raw(f"{a}.{x}"), dict) and "missing" in doc.raw(f"{a}.{x}"))]
    if lacking:
        why = ("the matrix lives on it (matrix_resident), so it runs every routine HPL calls" if resident
               else "it offloads them")
        raise CliError(f"--node {rank.path}: the accelerator has no rate for {', '.join(lacking)} ({a}."
                       f"{lacking[0]}), and {why}: give each a rate model, or leave it out of "
                       f"{a}.offload.routines")
    return policy, routines


def accel_rates(doc, a, x):
    """The accelerator's rate model of routine x, as `accel` lines."""
    rates = rate_lines(doc, f"{a}.{x}", x)
    if all(ln.startswith(x + ".right") for ln in rates):   # libsimblas refuses it too (lib/node.c)
        doc.fail(f"{a}.{x}", f"is the Right side's rate only (term MN2), and the accelerator runs "
                             f"{x}'s Left-side calls too (HPL's): give the Left side's (term M2N)")
    return [f"accel {ln}" for ln in rates]


def offload_bounds(doc, a, x, resident):
    """The sizes above which policy "threshold" offloads routine x
    (offload.X_min = { m = ..., n = ..., k = ... }), as the options of its
    `offload` line (" m>1280 n>1280"); an accelerator that holds the
    matrix may give none (it runs every call)."""
    key = f"{a}.offload.{x}_min"
    mn = doc.raw(key)
    if mn is None:
        if not resident:
            doc.fail(key, f"is not given, and policy \"threshold\" needs the sizes above which {x} is offloaded "
                          "(or policy \"always\")")
        return ""
    if not isinstance(mn, dict) or not any(d in mn for d in "mnk"):
        doc.fail(key, "must be a table of bounds m, n, k")
    bounds = ""
    for d in "mnk":
        if d in mn:
            b = mn[d]
            if isinstance(b, bool) or not isinstance(b, (int, float)) or b < 0:
                doc.fail(f"{key}.{d}", f"is {b!r}: a size >= 0")
            bounds += f" {d}>{b:g}"
    doc.used[key] = Figure(key, {d: mn[d] for d in "mnk" if d in mn}, mn.get("kind"), mn.get("source"))
    return bounds


def host_share(doc, a, included):
    """The host's part of an offloaded call, as the `share` line gives it:
    "included" (the rates include the host's: offload.rates_include_host),
    "balanced", or offload.host_share's number in [0, 1]."""
    if included:
        return "included"
    key = f"{a}.offload.host_share"
    hs = doc.raw(key)
    if hs == "balanced" or (isinstance(hs, dict) and hs.get("value") == "balanced"):
        if isinstance(hs, dict):
            doc.used[key] = Figure(key, "balanced", hs.get("kind"), hs.get("source"))
        return "balanced"
    return repr(doc.need(key, "the host's part of an offloaded call (a number in [0, 1], or \"balanced\")",
                         lo=0, hi=1))


def link_line(doc, a, resident, included, memory_gbs):
    """The host-device link's line (link.bandwidth_gbs, .latency_us, and
    what crosses it: link_flow), "link none" for an accelerator that holds
    the matrix, None when the rates include the transfers; and the JSON's
    account of what crosses it."""
    flow = link_flow(doc, a, memory_gbs, resident, included)
    if included:
        return None, flow
    if resident:
        return "link none", flow
    bw = doc.need(f"{a}.link.bandwidth_gbs", "the host-device link carries an offloaded call's operands", lo=1e-9)
    lat = doc.need(f"{a}.link.latency_us", "the host-device link's latency", lo=0)
    return f"link bandwidth={bw * 1e9!r} latency={lat / 1e6!r}" + flow.pop("text"), flow


# ---- power, and what the composition says -----------------------------------
def power_figures(doc, energy, accelerated):
    """The watts --energy takes from the node file: with 'node', the
    node's idle, epsilon and all-cores figures, in rising order; with any
    --energy, an accelerated node's devices' idle and busy ones.  (the
    triple or None, [idle, busy] or None)."""
    wattage = accel_watts = None
    if energy == "node":
        wattage = [doc.need(f"power.{k}", "--energy node takes the node's power from the node file", lo=0)
                   for k in ("idle_w", "epsilon_w", "allcores_w")]
        if wattage[2] < max(wattage[:2]):
            doc.fail("power.allcores_w", f"is {wattage[2]:g} W, below power.idle_w or power.epsilon_w "
                                         f"({max(wattage[:2]):g} W): the order is idle, epsilon, all cores")
    if energy and accelerated:
        idle = doc.need("power.accelerator_idle_w", "the accelerators' energy (--energy) counts their idle time",
                        lo=0)
        busy = doc.need("power.accelerator_busy_w", "the accelerators' energy (--energy) counts their busy time",
                        lo=0)
        if busy < idle:
            doc.fail("power.accelerator_busy_w", f"is {busy:g} W, below power.accelerator_idle_w ({idle:g} W)")
        accel_watts = [idle, busy]
    return wattage, accel_watts


def dgemm_fraction(rank, ref_peak, fitted):
    """Scaled by peaks, the model's dgemm keeps the fraction of its peak
    this machine's BLAS reaches: say it, since the target's BLAS may reach
    another (OpenBLAS 0.3.21: 84% on the EPYC VM of 2026-11-25, 48% on the
    Zen 5 one, doc/hindcast.md).  The fraction, or None when the speed is
    relative (ref_peak None) or the node gives its own dgemm (fitted)."""
    ref_speed, p_ref = ref_peak or (None, None)
    if not ref_speed or "dgemm" in fitted:
        return None
    fraction = ref_speed / (p_ref * 1e9)
    note(f"--node {rank.path}: the CPU's dgemm composed at {100 * fraction:.0f}% of its peak, the share this "
         f"machine's BLAS reaches of its own ({ref_speed / 1e9:.4g} of {p_ref:g} Gflop/s per core, "
         f"{os.path.basename(rank.model_path)} and its probe); if the target's BLAS reaches another share, give "
         "its measured rate as cpu.dgemm")
    return fraction


def summary_of(rank, fraction, flops, bandwidth, overhead, host_lines, accelerators):
    """The JSON's account of a composition: its scales and how they were
    made, its lines, the reference and the figures used (the assumed and
    proxy ones named)."""
    doc, ref = rank.doc, rank.ref
    used = sorted(doc.used.values(), key=lambda f: f.key)
    return {
        "dgemm_fraction_of_peak": fraction,
        "file": doc.path, "name": doc.name, "variant": doc.data.get("variant"),
        "ranks_per_node": rank.r, "cores_per_rank": rank.per_rank,
        "flops": flops, "bandwidth": bandwidth, "overhead": overhead, "how": rank.how,
        "host_lines": host_lines, "accelerators": accelerators,
        "reference": ({"file": ref.path, "peak_gflops_per_core": ref.raw("cpu.peak_gflops_per_core.value"),
                       "stream_gbs": ref.raw("cpu.stream_gbs.value"), "cores": ref.raw("cpu.cores.value")}
                      if ref else None),
        "figures": [f.brief() for f in used],
        "assumed": [f.key for f in used if f.kind == "assumed"],
        "proxy": [f.key for f in used if f.kind == "proxy"],
    }


def check_options(o):
    """What does not go with --node FILE (or --energy node) among a run's
    options (plan.RunOptions), before the platform is resolved: CliError."""
    if o.energy == "node" and not o.node:
        raise CliError("--energy node takes the node's power from its node file: give --node FILE")
    if not o.node:
        return
    if o.mode != "model":
        raise CliError("--node composes the model's predictions for another node; passthrough computes on this "
                       "one: drop --node, or use --mode model")
    for opt, v in (("--speedup", o.speedup), ("--host-speed", o.host_speed)):
        if v is not None:
            raise CliError(f"--node sets the ranks' speed from the node file, and {opt} would scale it a second "
                           f"time; drop {opt}")
    if o.energy == "node" and o.platform and not platforms.generated_topology(o.platform):
        raise CliError(f"--energy node gives the generated platform's hosts the node file's power; --platform "
                       f"{o.platform} has hosts of its own: put wattage_per_state on them and give --energy "
                       "platform, or drop --platform")


def ranks_per_host(platform):
    """(the ranks each host runs, what says so) for a node file's
    composition: a generated platform's --cores-per-node; a platform
    file's hostlist (its hosts' cores, or --hostfile), which must give
    every host the same number.  CliError if not."""
    if platform.kind == "generated":
        return platform.cores_per_node or 1, "--cores-per-node"
    counts = collections.Counter(platform.hostlist)
    if len(set(counts.values())) > 1:
        (h1, r1), (h2, r2) = counts.most_common()[0], counts.most_common()[-1]
        raise CliError(f"--node with --platform {platform.spec}: its hosts run different numbers of ranks ({h1}: "
                       f"{r1}, {h2}: {r2}), and a node file composes one rank's share of a node for every host: "
                       "give every host the same number of ranks (its core count, or --hostfile), or drop --node")
    return next(iter(counts.values())), f"the hosts of {os.path.basename(platform.spec)}"


def resolve(o, model_path, platform):
    """--node FILE of a run's options (plan.RunOptions) on its platform
    (platforms.Platform, whose hosts say how many ranks share a node): its
    Composition, None without it; CliError for what does not go with it."""
    check_options(o)
    if not o.node:
        return None
    if not os.path.isfile(model_path):
        return None  # plan.make_plan says what is wrong with the model
    r, by = ranks_per_host(platform)
    return compose(o.node, os.path.abspath(model_path), r, o.energy, by)
