"""Each simulation scored against the real runs, the report that validate
writes out (validate_report.py) and keeps as JSON (build_report): the
real runs' summary (validate_real.py), each simulated figure's error
against the real median (error_pct), whether a simulation orders the
configurations as the real runs do where they are told apart
(separated, ranking), and each model's drift (validate_speed.py)."""

import math

from .validate_real import summarize_real
from .validate_speed import model_drift, speed_summary


def error_pct(sim, real):
    return round(100 * (sim - real) / real, 2)


RANK_MARGIN = 3.0   # %: real medians closer than this are not a ranking to keep
RANK_ALPHA = 0.05   # the chance that the real runs separate two equal configurations


def separated(a, b):
    """Whether every real run of a beat every real run of b, and that is
    unlikely by chance: with runs as exchangeable draws of one
    distribution, complete separation happens with probability
    1/C(na+nb, na) (the rank-sum test's most extreme outcome), which must
    be at most RANK_ALPHA; 3 runs each give 1/20, fewer never rank."""
    return min(a) > max(b) and 1 / math.comb(len(a) + len(b), len(a)) <= RANK_ALPHA


def ranking(rows, name, margin=RANK_MARGIN):
    """How the simulation name orders the configurations of the same N and
    grid that the real runs order: pairs whose real medians differ by more
    than margin % and whose runs are separated (separated()).  Returns
    {"separated": such pairs, "kept": those the simulation orders alike,
    "misranked": [a line per pair it orders the other way round],
    "unseparated": pairs whose medians differ by more than margin but whose
    runs overlap (the machine's noise: not judged)}."""
    out = {"separated": 0, "kept": 0, "misranked": [], "unseparated": 0}
    groups = {}
    for r in rows:
        groups.setdefault((r["n"], r["nb"], r["p"], r["q"]), []).append(r)
    for g in groups.values():
        for a in g:
            for b in g:
                ra, rb = a["real"]["median"], b["real"]["median"]
                sa, sb = a["sim"].get(name, {}).get("gflops"), b["sim"].get(name, {}).get("gflops")
                if sa is None or sb is None or not ra > rb * (1 + margin / 100):
                    continue
                if not separated(a["real"]["gflops"], b["real"]["gflops"]):
                    out["unseparated"] += 1
                    continue
                out["separated"] += 1
                if sa > sb:
                    out["kept"] += 1
                else:
                    out["misranked"].append(f"{a['label']} > {b['label']} in every real run ({ra:g} vs {rb:g}, "
                                            f"medians), not in {name} ({sa:g} vs {sb:g})")
    return out


def build_report(configs, real, sims, sim_results, machine, runs, build, started, wall, speeds=None,
                 adjusted=False):
    """The report; speeds: the reference speeds measured with the real runs
    (SpeedProbe.measured), None when they were not measured; adjusted: each
    model's figures also scaled by its drift ratio (--speed-adjusted)."""
    measured = speed_summary(speeds or [])
    drift = {s.name: model_drift(s, measured) for s in sims}
    rows = []
    for c in configs:
        rs = summarize_real(real[c.label])
        row = {"label": c.label, "n": c.n, "nb": c.nb, "p": c.p, "q": c.q, "hpl_opt": dict(c.opts), "real": rs,
               "sim": {}}
        for s in sims:
            x = sim_results[s.name].get(c.label)
            if x:
                row["sim"][s.name] = dict(x, error_pct=error_pct(x["gflops"], rs["median"]))
                ratio = (drift[s.name] or {}).get("ratio")
                if adjusted and ratio:
                    adj = x["gflops"] * ratio
                    row["sim"][s.name].update(speed_adjusted_gflops=round(adj, 4),
                                              speed_adjusted_error_pct=error_pct(adj, rs["median"]))
        rows.append(row)
    summary = {}
    for s in sims:
        errs = [r["sim"][s.name]["error_pct"] for r in rows if s.name in r["sim"]]
        if errs:
            nets = {r["sim"][s.name].get("network") for r in rows if s.name in r["sim"]}
            rk = ranking(rows, s.name)
            summary[s.name] = {"mode": s.mode, "model": s.model, "network": nets.pop() if len(nets) == 1 else None,
                               "probe": s.probe if s.mode == "model" else None,
                               "max_abs_error_pct": max(abs(e) for e in errs),
                               "mean_error_pct": round(sum(errs) / len(errs), 2),
                               "within_3pct": sum(abs(e) <= 3 for e in errs), "configs": len(errs),
                               "misranked": rk.pop("misranked"), "ranking": rk}
            if drift[s.name]:
                summary[s.name]["reference_speed"] = drift[s.name]
    loads = [r["real"]["other_load_max"] for r in rows if r["real"].get("other_load_max") is not None]
    return {"format": 1, "date": started, "machine": machine, "runs": runs, "build": build,
            "other_load_max": max(loads) if loads else None, "wall_s": round(wall, 1),
            "configs": rows, "simulations": summary, "speed_adjusted": bool(adjusted),
            "reference_speed": None if speeds is None else {"measured": speeds, "summary": measured}}
