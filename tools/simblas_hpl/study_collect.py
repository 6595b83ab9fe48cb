"""A study's results: collect() reads the done points' JSON summaries
(points.result) and writes, atomically, results.csv (a row per point:
its factors, seed, every JSON field, and the means and 95% intervals of
the outputs over its replicates, study_stats.py) and means.csv (a row
per factor combination); read_means() reads means.csv back for the
figures (study_plot.py)."""

import csv
import io
import json
import os

from . import points
from .files import write_atomic
from .errors import CliError
from .study_dir import differs, point_dirs
from .study_stats import have_scipy, mean_ci

JSON_CELLS = ("energy_per_host_j", "partial_energy_per_host_j", "factors", "strata", "core_factors", "slow_hosts")
RESULTS, MEANS = "results.csv", "means.csv"


def flatten(obj, prefix=""):
    """A JSON summary -> {column: cell}: nested objects as a.b, lists and
    per-host maps as JSON text."""
    out = {}
    for k, v in obj.items():
        key = prefix + k
        if isinstance(v, dict) and k not in JSON_CELLS:
            out.update(flatten(v, key + "."))
        elif isinstance(v, (dict, list)):
            out[key] = json.dumps(v, separators=(",", ":"))
        else:
            out[key] = v
    return out


def cell(v):
    """A CSV cell: '' for none, true/false, floats to their last digit."""
    if v is None:
        return ""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, float):
        return repr(v)
    return str(v) if isinstance(v, (int, str)) else json.dumps(v)


def check_point(d, p, dd, info):
    """A done point is the point study.json describes (its factors, seed,
    options and the content of its inputs, point.json's): else a CliError,
    its result being another design's (a second `study` on the directory
    rewrote it)."""
    diff = []
    if isinstance(info, dict):
        asked = info.get("factors") if isinstance(info.get("factors"), dict) else {}
        set_ = p.get("set") if isinstance(p.get("set"), dict) else {k: v for k, v in p["factors"].items()
                                                                     if asked.get(k) is not None}
        if {k: v for k, v in asked.items() if v is not None} != {k: v for k, v in set_.items() if v is not None}:
            diff.append(f"factors {json.dumps(asked)} -> {json.dumps(set_)}")
        if info.get("seed") != p.get("seed"):
            diff.append(f"seed {info.get('seed')} -> {p.get('seed')}")
        if "options" in p:
            diff += differs(info, p)
    if diff:
        raise CliError(f"{dd} was run with other settings than {os.path.join(d, 'study.json')} gives "
                       f"({', '.join(diff[:3])}): its result is not this study's; remove that point's directory "
                       "and run the study again")


def levels_of(p, info, f, factors):
    """A done point's value of each factor: its level where it sets the
    factor (point.json's factors), else what its run used -- its JSON's
    field of that name (flattened: hpl.bcast), else study.json's value,
    which the point's plan gave (directories made before this version hold
    a guess there, which the JSON replaces)."""
    asked = info.get("factors") if isinstance(info, dict) and isinstance(info.get("factors"), dict) else None
    out = {}
    for k in factors:
        given = asked.get(k) if asked is not None else p["factors"].get(k)
        out[k] = p["factors"].get(k) if given is not None else f[k] if k in f else p["factors"].get(k)
    return out


def collect(d, design, out=None):
    """Write results.csv (one row per done point: factors, seed, every JSON
    field, the means and 95% intervals of the outputs over the point's
    replicates) and means.csv (one row per factor combination), both
    atomically.  Returns (rows written, points, whether intervals could be
    computed)."""
    dirs = point_dirs(d, design)
    factors = list(design["factors"])
    outputs = design["outputs"]
    rows, combos = [], {}
    for p, dd in zip(design["points"], dirs):
        r = points.result(dd)
        if r is None:
            continue
        info = points.info(dd)
        check_point(d, p, dd, info)
        f = flatten(r)
        vals = levels_of(p, info, f, factors)
        key = tuple(json.dumps(vals[k], sort_keys=True) for k in factors)
        combos.setdefault(key, {"factors": vals, "results": []})["results"].append(r)
        rows.append((p, f, vals, key))
    stats = {}
    for key, c in combos.items():
        stats[key] = {o: mean_ci([r.get(o) for r in c["results"]]) for o in outputs}
    fields = []
    for p, f, vals, key in rows:
        for k in f:
            if k not in fields:
                fields.append(k)
    # a JSON field named as a factor shares its column while they agree; where
    # a point's level is written otherwise (hpl.bcast "1rM" for 1, a relative
    # model path), the JSON's own value is kept in run.FIELD
    apart = [k for k in factors if k in fields and
             any(k in f and cell(f[k]) != cell(vals[k]) for p, f, vals, key in rows)]
    stat_cols = [c for o in outputs for c in (f"{o}_mean", f"{o}_ci95", f"{o}_n")]
    header = factors + ["seed", "point"] + [("run." + k if k in apart else k) for k in fields
                                            if (k not in factors or k in apart) and k not in ("seed",)] + stat_cols
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(header)
    for p, f, vals, key in rows:
        row = {**f, **{"run." + k: f.get(k) for k in apart}, **vals,
               "seed": p["seed"] if p["seed"] is not None else f.get("seed"), "point": p["id"]}
        for o in outputs:
            m, ci, sd, n = stats[key][o]
            row.update({f"{o}_mean": m, f"{o}_ci95": ci, f"{o}_n": n})
        w.writerow([cell(row.get(h)) for h in header])
    write_atomic(os.path.join(d, RESULTS), buf.getvalue())
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    mean_cols = [c for o in outputs for c in (f"{o}_mean", f"{o}_ci95", f"{o}_sd")]
    w.writerow(factors + ["replicates"] + mean_cols)
    for key, c in combos.items():  # in the order of the study's points
        cells = [cell(c["factors"].get(f)) for f in factors] + [len(c["results"])]
        for o in outputs:
            m, ci, sd, n = stats[key][o]
            cells += [cell(m), cell(ci), cell(sd)]
        w.writerow(cells)
    write_atomic(os.path.join(d, MEANS), buf.getvalue())
    return len(rows), len(dirs), have_scipy()


def read_means(d, design):
    """means.csv as [{factor: value, output_mean: float...}] (values typed as in study.json)."""
    path = os.path.join(d, MEANS)
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    factors = design["factors"]
    out = []
    for r in rows:
        row = {}
        for k, v in r.items():
            if k in factors:
                levels = factors[k]
                row[k] = next((lv for lv in levels if cell(lv) == v), None if v == "" else v)
            else:
                try:
                    row[k] = float(v) if v != "" else None
                except ValueError:
                    row[k] = v
        out.append(row)
    return out
