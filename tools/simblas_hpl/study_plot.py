"""A study's figures, with gnuplot, from its means.csv (study_collect.py):
each output against each factor and a heat map of each output over each
pair of factors, in DIR/plots/ (each figure's .gp and .dat kept beside
its SVG and PNG).  render() draws a script as both; tune's convergence
plot draws with it too."""

import itertools
import json
import os
import re
import statistics
import subprocess

from .errors import CliError
from .study_collect import cell, read_means

PLOTS = "plots"
LABELS = {"gflops": "Gflops", "hpl_time_s": "HPL time (s)", "energy_j": "energy (J)", "wall_s": "wall time (s)",
          "simulated_time_s": "simulated time (s)", "avg_power_w": "average power (W)",
          "peak_rss_mb": "peak memory (MB)"}


def numeric(levels):
    return all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in levels if v is not None)


def axis(f, levels):
    """How factor f's levels are shown: (the axis label, each level's text,
    each level's x when they are numbers, else None).  Texts that differ in
    one number only (fat trees 2;16,32;1,T;1,1, 1Gbps and 10Gbps) are shown
    as that number, on a numeric axis."""
    name = f.replace("_", "-")
    if numeric(levels):
        return name, [str(v) for v in levels], [float(v) for v in levels]
    texts = [str(v) for v in levels]
    if len(texts) >= 2:
        pre = os.path.commonprefix(texts)
        suf = os.path.commonprefix([t[::-1] for t in texts])[::-1]
        pre = pre.rstrip("0123456789.")  # the varying part is whole numbers
        suf = suf.lstrip("0123456789.")
        mids = [t[len(pre):len(t) - len(suf)] for t in texts]
        if all(re.fullmatch(r"\d+(\.\d+)?", m) for m in mids):
            return f"{name} ({pre}*{suf})", mids, [float(m) for m in mids]
    return name, texts, None


def gp_quote(s):
    return "'" + str(s).replace("'", "''") + "'"


def label(name):
    return LABELS.get(name, name.replace("_", " "))


def plot(d, design, gnuplot):
    """gnuplot figures in d/plots/: each output against each factor (one
    line per combination of the other factors, up to 8, else their mean;
    95% intervals as error bars; logarithmic axes for levels or values
    spanning 50 or 20 times), and a heat map of each output over each
    pair of factors (the other factors averaged).  SVG and PNG, as the
    calibration report makes them.  Returns the figures made."""
    rows = read_means(d, design)
    pdir = os.path.join(d, PLOTS)
    os.makedirs(pdir, exist_ok=True)
    factors = {k: v for k, v in design["factors"].items() if len([x for x in v if x is not None]) >= 1}
    made = []
    for o in design["outputs"]:
        if not any(r.get(f"{o}_mean") is not None for r in rows):
            continue
        for f, levels in factors.items():
            made += _plot_vs(pdir, design, rows, o, f, [lv for lv in levels if lv is not None], gnuplot)
        names = [f for f, lv in factors.items() if len(lv) >= 2]
        for f1, f2 in itertools.combinations(names, 2):
            made += _heatmap(pdir, design, rows, o, f1, f2, gnuplot)
    return made


def render(pdir, base, script, gnuplot):
    """script -> base.svg and base.png (base.gp and its data kept beside)."""
    gp = os.path.join(pdir, base + ".gp")
    with open(gp, "w") as f:
        f.write(script)
    for term, ext in (("svg size 900,600 dynamic", "svg"), ("pngcairo size 900,600", "png")):
        r = subprocess.run([gnuplot, "-e", f"set terminal {term}; set output '{base}.{ext}'", base + ".gp"],
                           cwd=pdir, capture_output=True, text=True)
        if r.returncode != 0:
            raise CliError(f"gnuplot failed on {gp}: {(r.stderr.strip().splitlines() or ['?'])[-1]}", 1)
    return [os.path.join(pdir, base + ".svg"), os.path.join(pdir, base + ".png")]


def _safe(s):
    return re.sub(r"[^A-Za-z0-9._-]", "_", s)


def _plot_vs(pdir, design, rows, o, f, levels, gnuplot):
    others = [g for g in design["factors"] if g != f]
    series = {}
    for r in rows:
        key = tuple((g, cell(r.get(g))) for g in others)
        if r.get(f) is not None and r.get(f"{o}_mean") is not None:
            series.setdefault(key, {})[json.dumps(r.get(f))] = r
    if any(len(pts) >= 2 for pts in series.values()):  # lines against f; a single point is no line
        series = {k: pts for k, pts in series.items() if len(pts) >= 2}
    if len(series) > 8:  # too many lines: the mean over the other factors
        merged = {}
        for s in series.values():
            for lv, r in s.items():
                merged.setdefault(lv, []).append(r)
        series = {(("mean over the other factors", ""),): {
            lv: {f"{o}_mean": statistics.fmean([x[f"{o}_mean"] for x in rs if x.get(f"{o}_mean") is not None] or
                                               [float("nan")]), f"{o}_ci95": None} for lv, rs in merged.items()}}
    xlabel, texts, xs = axis(f, levels)
    num = xs is not None
    base = _safe(f"{o}-vs-{f}")
    data, titles = [], []
    for key, pts in series.items():
        lines = []
        for j, lv in enumerate(levels):
            r = pts.get(json.dumps(lv))
            if not r or r.get(f"{o}_mean") is None:
                continue
            ci = r.get(f"{o}_ci95")
            lines.append((xs[j] if num else j, f"{xs[j] if num else j} {r[f'{o}_mean']!r} "
                          f"{ci if ci is not None else 0!r} {json.dumps(texts[j])}"))
        lines = [ln for _, ln in sorted(lines)]  # a line joins the levels in the axis' order
        if lines:
            data += [f"# {', '.join(f'{g}={v}' for g, v in key)}"] + lines + ["\n"]
            titles.append(", ".join(f"{g.replace('_', '-')}={v}" for g, v in key) or design["name"])
    if not titles:
        return []
    with open(os.path.join(pdir, base + ".dat"), "w") as fh:
        fh.write("\n".join(data) + "\n")
    logx = num and min(xs) > 0 and max(xs) / min(xs) >= 50
    ys = [r[f"{o}_mean"] for pts in series.values() for r in pts.values() if r.get(f"{o}_mean") is not None]
    logy = ys and min(ys) > 0 and max(ys) / min(ys) >= 20  # lines far apart: each visible
    plots = ", ".join(
        f"'{base}.dat' index {i} using 1:2:3{'' if num else ':xtic(4)'} with yerrorlines title {gp_quote(t)}"
        for i, t in enumerate(titles))
    script = (f"set title {gp_quote(design['name'] + ': ' + label(o) + ' against ' + f.replace('_', '-'))}\n"
              f"set xlabel {gp_quote(xlabel)}\nset ylabel {gp_quote(label(o))}\nset grid\n"
              "set key outside right top\nset bars small\n"
              + ("set logscale x\n" if logx else "") + ("set logscale y\n" if logy else "")
              + ("" if num else f"set xrange [-0.5:{len(levels) - 0.5}]\n")
              + f"plot {plots}\n")
    return render(pdir, base, script, gnuplot)


def _heatmap(pdir, design, rows, o, f1, f2, gnuplot):
    l1 = [v for v in design["factors"][f1] if v is not None]
    l2 = [v for v in design["factors"][f2] if v is not None]
    cells = {}
    for r in rows:
        if r.get(f"{o}_mean") is not None:
            cells.setdefault((json.dumps(r.get(f1)), json.dumps(r.get(f2))), []).append(r[f"{o}_mean"])
    base = _safe(f"{o}-{f1}-{f2}")
    lines = []
    for i, a in enumerate(l1):
        for j, b in enumerate(l2):
            v = cells.get((json.dumps(a), json.dumps(b)))
            lines.append(f"{i} {j} {statistics.fmean(v)!r}" if v else f"{i} {j} NaN")
        lines.append("")
    with open(os.path.join(pdir, base + ".dat"), "w") as fh:
        fh.write("\n".join(lines) + "\n")
    (x1, t1, _), (x2, t2, _) = axis(f1, l1), axis(f2, l2)
    xt = ", ".join(f"{gp_quote(v)} {i}" for i, v in enumerate(t1))
    yt = ", ".join(f"{gp_quote(v)} {j}" for j, v in enumerate(t2))
    script = (f"set title {gp_quote(design['name'] + ': ' + label(o))}\n"
              f"set xlabel {gp_quote(x1)}\nset ylabel {gp_quote(x2)}\n"
              f"set xtics ({xt})\nset ytics ({yt})\nset xrange [-0.5:{len(l1) - 0.5}]\n"
              f"set yrange [-0.5:{len(l2) - 0.5}]\nset cblabel {gp_quote(label(o))}\nset palette rgb 33,13,10\n"
              "unset key\n"
              f"plot '{base}.dat' using 1:2:3 with image, '{base}.dat' using 1:2:(sprintf('%.4g', $3)) "
              "with labels\n")
    return render(pdir, base, script, gnuplot)
