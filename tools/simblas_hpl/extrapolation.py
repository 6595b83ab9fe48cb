"""--iterations / --samples: the full run estimated from the panel iterations
simulated (doc/scale.md).

read_iter_log reads what libsimblas logged (SIMBLAS_ITER_LOG);
extrapolate_runs makes the estimate and its uncertainty from one run's
passes or from S runs of one pass each (--engine); apply_extrapolation puts
it into a run's summary.  The estimator's steps, in order: passes (the
strata and whether the passes cover the loop), steady_points (the
iterations that count), stratum (what a pass stands for), uncertainty."""

import dataclasses
import math
from typing import Dict, List, Optional, Tuple

from .errors import CliError
from .files import read_text

# one steady iteration: (pass, iteration, x, simulated s, wall s, rank 0's BLAS s)
Point = Tuple[int, int, float, float, float, float]


def read_iter_log(path):
    """The iteration log libsimblas writes (SIMBLAS_ITER_LOG): passes of marks and the
    end mark (simulated s, wall s, rank 0's BLAS s injected)."""
    segs, end = [], None
    for line in read_text(path).splitlines():
        f = line.split()
        if not f:
            continue
        if f[0] == "seg":
            segs.append({"pass": int(f[1]), "start": int(f[2]), "total": int(f[3]), "marks": []})
        elif f[0] == "iter" and segs:
            segs[-1]["marks"].append((int(f[1]), float(f[2]), float(f[3]), float(f[4])))
        elif f[0] == "end":
            end = (float(f[2]), float(f[3]), float(f[4]))
    return segs, end


def no_iteration_log(workdir):
    return CliError(f"--iterations: libsimblas wrote no usable iteration log ({workdir}/iterations.log); "
                    "rebuild HPL with this SimBLAS: simblas-hpl build --force", 1, kept=workdir)


def extrapolate(segs, end, n, nb, depth, hpl_time, wall, period=1):
    """The full run's HPL time and wall time from the sampled iterations of
    one run (its iteration log: segs, end; HPL's time; the wall time): see
    extrapolate_runs."""
    return extrapolate_runs([{"segs": segs, "end": end, "hpl_time_s": hpl_time, "wall_s": wall}], n, nb, depth,
                            period)


@dataclasses.dataclass
class Loop:
    """The panel loop as the passes sampled it."""
    n: int
    nb: int
    depth: int
    total: int                      # ceil(N/NB) iterations
    segs: list                      # (run index, pass) in pass order
    bounds: List[Tuple[int, int]]   # the iterations each pass stands for
    covering: bool                  # K x S cover the loop: a full run in S passes
    steady: Dict[int, Point] = dataclasses.field(default_factory=dict)  # covering: iteration -> its point

    @property
    def S(self):
        return len(self.segs)

    def x(self, i):
        return (self.n - i * self.nb) / self.n

    def flat(self):
        """With look-ahead and strata a pass's mean stands for its
        iterations; otherwise the sum model (BLAS part scaled by x^2)."""
        return self.depth > 0 and self.S > 1


def passes(runs, n, nb, depth):
    """The passes in order, the part of the loop each stands for, and
    whether they cover it (pass s starts where its stratum does and reaches
    its end; the last iteration of the loop then ends at the run's end
    mark, added to the last pass)."""
    total = -(-n // nb)
    segs = [(k, sg) for k, r in enumerate(runs) for sg in r["segs"]]
    if len(runs) > 1:  # one pass each, in pass order
        segs.sort(key=lambda ks: ks[1].get("pass", 0))
    S = len(segs)
    bounds = [(k * total // S, (k + 1) * total // S) if S > 1 else (0, total) for k in range(S)]
    covering = S > 1 and all(sg["start"] == lo and sg["marks"] and sg["marks"][-1][0] >= min(hi, total - 1)
                             for (_, sg), (lo, hi) in zip(segs, bounds)) and runs[segs[-1][0]]["end"] is not None
    if covering and segs[-1][1]["marks"][-1][0] == total - 1:
        k, sg = segs[-1]
        segs[-1] = (k, {**sg, "marks": list(sg["marks"]) + [(total, *runs[k]["end"][:3])]})
    return Loop(n, nb, depth, total, segs, bounds, covering)


def steady_points(loop, period):
    """The iterations that count, per pass.  The first `depth` iterations of
    a pass prime the look-ahead and are left out; at depth 0, so is the
    first iteration of a pass that jumped into the middle of the loop
    (every rank enters it at once, with none of the overlap of a running
    loop: up to +33% on Stampede's last stratum), when the pass has
    another; covering passes keep the run's own start.  So are the first
    ones beyond a whole number of periods lcm(P, Q) when the pass has one
    (an iteration's cost cycles with the owner of its panel; covering
    passes: every iteration is taken as measured, no mean).  Covering: each
    iteration as its stratum's pass measured it, else as the pass before
    measured it past its stratum's end (loop.steady)."""
    skip = []
    for _, sg in loop.segs:
        span = sg["marks"][-1][0] - sg["marks"][0][0] if sg["marks"] else 0
        first = max(loop.depth, 1) if sg["start"] > 0 else loop.depth
        if loop.covering and sg["start"] == 0:
            first = 0  # the run's own start: its first iterations are the full run's
        skip.append(first if span > first else loop.depth)
    pts = []
    for k, (_, sg) in enumerate(loop.segs):
        mk = sg["marks"]
        for (i0, s0, w0, b0), (i1, s1, w1, b1) in zip(mk, mk[1:]):
            if i0 < sg["start"] + skip[k] or i1 <= i0:
                continue
            for i in range(i0, i1):
                pts.append((k, i, loop.x(i), (s1 - s0) / (i1 - i0), (w1 - w0) / (i1 - i0), (b1 - b0) / (i1 - i0)))
    kept = []
    for k in range(loop.S):
        mine = [p for p in pts if p[0] == k]
        kept += mine[len(mine) % period:] if len(mine) >= period and not loop.covering else mine
    for p in sorted(kept, key=lambda p: (not loop.bounds[p[0]][0] <= p[1] < loop.bounds[p[0]][1], p[0])):
        loop.steady.setdefault(p[1], p)
    return kept


@dataclasses.dataclass
class Stratum:
    """What one pass measured and the part of the loop it stands for."""
    lo: int
    hi: int
    points: int                     # the pass's steady points
    measured: Dict[int, float]      # iterations of lo..hi-1 taken as measured: simulated s
    t: float                        # simulated s of lo..hi-1
    w: float                        # wall s of lo..hi-1
    tbar: float                     # the pass's mean simulated s per iteration
    wbar: float
    sd: float                       # the points' spread about what t assumes of them


def stratum(loop, mine, lo, hi):
    """Iterations lo..hi-1 from one pass's points: those measured as they
    were, the others as the pass's model says.  Without look-ahead (depth
    0) HPL's per-iteration cost adds a part that shrinks with the trailing
    update (rank 0's BLAS time, scaled by x^2 from the pass's mean x^2) and
    a constant one (panel, messages); with look-ahead and strata the update
    hides behind the next panel and a pass's mean stands for its
    iterations; covering passes, the mean for the few not measured."""
    m = len(mine)
    xbar2 = sum(p[2] * p[2] for p in mine) / m
    bbar = sum(p[5] for p in mine) / m
    tbar = sum(p[3] for p in mine) / m
    wbar = sum(p[4] for p in mine) / m
    rest = max(0.0, tbar - bbar)
    if loop.covering:
        got = [loop.steady[i] for i in range(lo, hi) if i in loop.steady]
        measured = {p[1]: p[3] for p in got}
        t = sum(measured.values()) + (hi - lo - len(got)) * tbar
        w = sum(p[4] for p in got) + (hi - lo - len(got)) * wbar
    else:
        measured = {p[1]: p[3] for p in mine if lo <= p[1] < hi} if loop.S > 1 else {}
        if loop.flat():
            t = sum(measured.values()) + (hi - lo - len(measured)) * tbar
        else:
            t = sum(measured[i] if i in measured else rest + bbar * loop.x(i) ** 2 / xbar2 for i in range(lo, hi))
        w = (hi - lo) * wbar
    sd = 0.0
    if m >= 2:
        res = [p[3] - (tbar if loop.flat() else rest + bbar * p[2] * p[2] / xbar2) for p in mine]
        mean = sum(res) / m
        sd = math.sqrt(sum((r - mean) ** 2 for r in res) / (m - 1))
    return Stratum(lo, hi, m, measured, t, w, tbar, wbar, sd)


def unknown_share(u, n):
    """What the error of u iterations estimated from n points weighs, in
    units of one iteration's variance: u^2/n for the estimated mean, plus u
    for the iterations' own spread about it; u (u + n) / n, which is
    N (N - n) / n, the stratified total's variance with the finite
    population correction, when the n are the stratum's own.  0 when
    nothing is estimated (covering passes: a full run)."""
    return u * (u + n) / n


def uncertainty(loop, strata, t):
    """The estimate's uncertainty, two parts added in quadrature, both about
    the iterations estimated (those measured are what the simulation gave):
    sampling, each stratum's error (the spread of its points about what the
    estimator assumes of them, weighed by unknown_share); interpolation,
    how far another reading of the same passes puts the estimated
    iterations (each pass's mean cost at its midpoint, joined by straight
    lines, flat beyond the first and last): what the strata cannot tell
    apart.  An indication, not a bound.  A stratum of one point (--iterations
    2: one priming iteration, one counted) has no spread of its own: its
    iteration's variance is read from its neighbours, half the squared
    difference of its mean and each neighbour's (successive differences: a
    smooth trend of the cost mostly cancels, and what is left of it makes
    the figure larger, not smaller; the 41,000-rank S = 32 run's iterations
    were 1-90 s, 2026-11-29).  One pass (the first K iterations): nothing
    measures how the later ones fall (4-28% off, doc/scale.md), and a pass
    of one counted iteration has no spread either: 0 would claim an exact
    estimate, so null."""
    S = loop.S
    mids = [((st.lo + st.hi - 1) / 2, st.tbar) for st in strata]
    sampling2, single = 0.0, []
    for k, st in enumerate(strata):
        share = unknown_share(st.hi - st.lo - len(st.measured), st.points)
        if st.points < 2:
            single.append(k)
            near = [(mids[j][1] - mids[k][1]) ** 2 / 2 for j in (k - 1, k + 1) if 0 <= j < S]
            sampling2 += share * sum(near) / len(near) if near else 0.0
        else:
            sampling2 += share * st.sd ** 2
    if S == 1:
        return {"s": None, "relative": None, "sampling_s": None if single else round(math.sqrt(sampling2), 3),
                "interpolation_s": None,
                "sampling_method": "none: one pass, the first iterations, shows nothing of how the later ones fall"}
    known = {i: v for st in strata for i, v in st.measured.items()}
    alt = 0.0
    for i in range(loop.total):
        if i in known:
            continue
        j = next((j for j in range(1, S) if i < mids[j][0]), S - 1)
        (i0, t0), (i1, t1) = mids[j - 1], mids[j]
        alt += t0 if i <= i0 else t1 if i >= i1 else t0 + (t1 - t0) * (i - i0) / (i1 - i0)
    interp = abs(alt - (sum(st.t for st in strata) - sum(known.values())))
    unc = math.hypot(math.sqrt(sampling2), interp)
    method = ("within strata" if not single else "successive differences of the strata's means"
              if len(single) == S else "within strata, and successive differences for the strata of one point")
    return {"s": round(unc, 3), "relative": round(unc / t, 5) if t > 0 else None,
            "sampling_s": round(math.sqrt(sampling2), 3), "interpolation_s": round(interp, 3),
            "sampling_method": method}


def extrapolate_runs(runs, n, nb, depth, period=1) -> Optional[dict]:
    """The full run's HPL time and wall time from the sampled iterations.

    runs: one run's iteration log (its passes: segs, its end mark, HPL's
    time and the wall time), or S runs of one pass each (--engine: pass s
    of S run alone, SIMBLAS_SAMPLE_ONLY), which give the same estimate:
    each pass is simulated from the run's start, where it lies in the loop.
    Each pass gives per-iteration costs (simulated and wall seconds) at
    trailing sizes x = (N - i NB) / N (steady_points), and stands for a
    part of the loop (stratum).  Wall time per iteration as constant.
     - S >= 2 passes (--samples): stratified sampling.  Pass s sits in the
       middle of the s-th of S equal strata of the panel loop and stands
       for the stratum's iterations (at depth 0 the quadratic part corrects
       what a stratum's midpoint misses of the cost's curvature).  A
       stratum's counted iterations count as measured, the others as the
       pass's model says (the same sum when the pass lies in its stratum);
       with K x S covering the loop (pass s starts where its stratum does)
       that is a full run, the passes' priming iterations estimated.
     - 1 pass (the first K iterations): the sum model over the whole loop,
       at any depth (a pass's mean cannot stand for the whole loop).
    What is outside the panel loop (set-up, the solve, finalization) is
    measured, not modelled: from the run that holds the last pass (the
    set-up before a pass is the same in every run).  None when a pass or
    an end mark is missing.
    """
    loop = passes(runs, n, nb, depth)
    pts = steady_points(loop, period)
    last = runs[loop.segs[-1][0]] if loop.segs else None
    if not pts or last is None or last["end"] is None or any(r["end"] is None for r in runs):
        return None
    strata = []
    for k, (lo, hi) in enumerate(loop.bounds):
        mine = [p for p in pts if p[0] == k]
        if not mine:
            return None
        strata.append(stratum(loop, mine, lo, hi))
    # outside the loop: the last pass's run, from its first mark to its end
    first = min((mk for sg in last["segs"] for mk in sg["marks"]), key=lambda m: m[1])
    t = last["hpl_time_s"] - (last["end"][0] - first[1]) + sum(st.t for st in strata)
    w = last["wall_s"] - (last["end"][1] - first[2]) + sum(st.w for st in strata)
    flops = (2.0 / 3.0 * n + 1.5) * n * n
    ts, ws = [p[3] for p in pts], [p[4] for p in pts]
    return {
        "iterations_done": sum(sg["marks"][-1][0] - sg["marks"][0][0] for _, sg in loop.segs if sg["marks"]),
        "iterations_total": loop.total,
        "samples": loop.S,
        **({"covering": True, "iterations_estimated": loop.total - sum(1 for i in range(loop.total)
                                                                       if i in loop.steady)}
           if loop.covering else {}),
        "per_iteration_s": sum(ts) / len(ts),
        "per_iteration_wall_s": sum(ws) / len(ws),
        "extrapolated_wall_s": round(w, 3),
        "extrapolated_hpl_time_s": t,
        "extrapolated_gflops": flops / t / 1e9,
        "extrapolation_uncertainty": uncertainty(loop, strata, t),
        "strata": [{"first_iteration": loop.segs[k][1]["start"],
                    "counted": len(st.measured) if loop.covering else st.points,
                    "per_iteration_s": round(st.tbar, 6), "per_iteration_wall_s": round(st.wbar, 6),
                    "stands_for": [st.lo, st.hi], "stands_for_s": round(st.t, 4)} for k, st in enumerate(strata)],
    }


def apply_extrapolation(summary, ex, plan, setup_s=None):
    """A sampled run's summary: the extrapolation ex (extrapolate_runs) in
    place of HPL's partial figures, which become partial_*.  setup_s: the
    simulated time outside HPL's (by default the summary's simulated time
    less HPL's; S runs of one pass each: one run's)."""
    summary.update(ex)
    summary["iterations"] = plan.iterations
    summary["solve"] = "skipped" if plan.skips_solve else "measured"
    summary["partial_gflops"] = summary.pop("gflops")
    summary["partial_hpl_time_s"] = summary.pop("hpl_time_s")
    summary["gflops"] = round(ex["extrapolated_gflops"], 4)
    summary["hpl_time_s"] = round(ex["extrapolated_hpl_time_s"], 4)
    summary["extrapolated_gflops"] = round(ex["extrapolated_gflops"], 4)
    summary["extrapolated_hpl_time_s"] = round(ex["extrapolated_hpl_time_s"], 4)
    summary["per_iteration_s"] = round(ex["per_iteration_s"], 6)
    summary["per_iteration_wall_s"] = round(ex["per_iteration_wall_s"], 6)
    if "energy_j" in summary:
        # the plugin measured the simulated part only: its figures become
        # partial_*, and the run's energy is extrapolated at the average
        # power of that part (setup included) over the extrapolated time
        for k in ("energy_j", "energy_used_hosts_j", "energy_idle_hosts_j", "energy_per_host_j"):
            summary["partial_" + k] = summary.pop(k)
        setup = setup_s if setup_s is not None else max(0.0, (summary.get("simulated_time_s") or 0) -
                                                        summary["partial_hpl_time_s"])
        if summary.get("avg_power_w"):
            summary["energy_j"] = summary["extrapolated_energy_j"] = round(
                summary["avg_power_w"] * (ex["extrapolated_hpl_time_s"] + setup), 3)
