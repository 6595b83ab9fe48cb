"""The report (validate_score.build_report) written out: the table
(table: a line per configuration, real against each simulation; a line
per simulation with its errors, its ranking and its model's drift; HPL's
phases when the build prints them; the reference speeds measured; the
machine), the CSV (csv_text: a row per configuration and simulation, and
one per reference speed measured) and the figure (plot: gnuplot's script
and data, and with gnuplot an SVG and a PNG of simulated against real)."""

import csv
import io
import os
import shutil
import subprocess

from .errors import note
from .files import write_atomic
from .validate_machine import describe
from .validate_score import RANK_MARGIN


def ranking_text(v):
    """The summary line's words on the ranking (build_report's fields)."""
    r = v.get("ranking")
    if not r or not (r["separated"] or r["unseparated"]):
        return ""
    words = f"; ranking: {r['kept']} of {r['separated']} pair(s) that the real runs separate kept"
    if v["misranked"]:
        words += f", ranked otherwise: {'; '.join(v['misranked'])}"
    if r["unseparated"]:
        words += (f" ({r['unseparated']} pair(s) more than {RANK_MARGIN:g}% apart whose real runs overlap: within "
                  "the machine's noise, not judged)")
    return words


def drift_text(d, measured):
    """The footer's words on a model's drift (model_drift's dict)."""
    if not d:
        return ""
    if d.get("ratio"):
        return (f"; machine speed {d['ratio']:.3f} of the calibration's ({d['ratio'] * 100 - 100:+.1f}%: reference "
                f"speed {d['measured_gflops']:g} measured, {d['model_gflops']:g} in the model)")
    if measured is None:
        return "; reference speed not measured with these real runs: no drift figure"
    return f"; no drift figure: {d.get('why')}"


def table(report):
    """The report as text: one line per configuration."""
    sims = list(report["simulations"])
    adj = [s for s in sims if report.get("speed_adjusted") and
           (report["simulations"][s].get("reference_speed") or {}).get("ratio")]
    head = f"{'configuration':<28} {'real Gflops median (min-max)':>30}" + "".join(f" {s[:16]:>16}" for s in sims) \
        + "".join(f" {(s[:10] + ' adj.*'):>16}" for s in adj)
    lines = [head]
    for r in report["configs"]:
        rs = r["real"]
        cells = f"{rs['median']:9.4g} ({rs['min']:.4g}-{rs['max']:.4g})"
        line = f"{r['label']:<28} {cells:>30}"
        for s in sims:
            x = r["sim"].get(s)
            line += f" {x['gflops']:8.4g} {x['error_pct']:+6.1f}%" if x else f" {'-':>16}"
        for s in adj:
            x = r["sim"].get(s)
            line += f" {x['speed_adjusted_gflops']:8.4g} {x['speed_adjusted_error_pct']:+6.1f}%" \
                if x and "speed_adjusted_gflops" in x else f" {'-':>16}"
        lines.append(line)
    for s, v in report["simulations"].items():
        lines.append(f"{s}: worst {v['max_abs_error_pct']:.1f}%, mean {v['mean_error_pct']:+.1f}%, "
                     f"{v['within_3pct']} of {v['configs']} within 3%; network "
                     f"{v.get('network') or 'SimGrid defaults, assumed loopback'}"
                     + (f"; probe {v['probe']}" if v.get("probe") else "")
                     + ranking_text(v) + drift_text(v.get("reference_speed"), report.get("reference_speed")))
    if adj:
        lines.append("* adj.: the simulated Gflops times the model's drift ratio (the reference speed measured with "
                     "the real runs over the model's): a diagnostic of how much of the error is the machine's drift "
                     "since the calibration, not a prediction")
    lines += phase_table(report)
    rsp = report.get("reference_speed")
    if rsp and rsp["measured"]:
        times = ", ".join(f"{m['time'][11:16]} {m['gflops']:g}" if m.get("gflops") else f"{m['time'][11:16]} failed"
                          for m in rsp["measured"])
        spread = "; ".join(f"{v['min']:g}-{v['max']:g} ({v['spread_pct']:g}% apart) at {k}"
                           for k, v in rsp["summary"].items())
        lines.append(f"reference speed measured with the real runs (UTC time, Gflop/s): {times}; {spread or 'none'}")
    m = report["machine"]
    lines.append(f"machine: {describe(m)}; "
                 f"{report['runs']} real run(s) each{pooled_words(report)}; other processes at most "
                 + ("?" if report["other_load_max"] is None else f"{100 * report['other_load_max']:.1f}%")
                 + " of the cores during a real run")
    return "\n".join(lines)


def pooled_words(report):
    """' (pooled from N reports)' when --real pooled several, else ''."""
    pooled = report.get("real_from")
    return f" (pooled from {len(pooled)} reports)" if isinstance(pooled, list) and len(pooled) > 1 else ""


PHASE_ORDER = ("rfact", "pfact", "mxswp", "update", "laswp", "uptrsv")
PHASE_SAID = {"rfact": "rfact", "pfact": "+ pfact", "mxswp": "+ mxswp", "update": "update", "laswp": "+ laswp",
              "uptrsv": "up tr sv"}


def phase_table(report):
    """Where the time goes, real against simulated, when the build prints
    HPL's phases (build --detailed-timing): per configuration and phase, the
    real runs' median (min-max) and each simulation's seconds and difference
    (the slowest rank's time in the phase, as HPL reports it)."""
    sims = list(report["simulations"])
    rows = [r for r in report["configs"] if r["real"].get("phases_s")]
    if not rows:
        return []
    lines = ["HPL's phases (HPL_DETAILED_TIMING: the slowest rank's seconds; + within the phase above)",
             f"{'configuration':<28} {'phase':<9} {'real median (min-max)':>22}" + "".join(f" {s[:16]:>16}" for s in sims)]
    for r in rows:
        ph = r["real"]["phases_s"]
        for k in PHASE_ORDER:
            if k not in ph:
                continue
            v = ph[k]
            line = f"{r['label']:<28} {PHASE_SAID[k]:<9} {v['median']:>8.3g} ({v['min']:.3g}-{v['max']:.3g})".ljust(61)
            for s in sims:
                x = ((r["sim"].get(s) or {}).get("phases_s") or {}).get(k)
                line += f" {x:7.3g} {x - v['median']:+7.2f}s" if x is not None else f" {'-':>16}"
            lines.append(line)
    return lines


CSV_FIELDS = ["date", "cpu", "label", "n", "nb", "p", "q", "hpl_opt", "real_median", "real_min", "real_max",
              "real_spread_pct", "real_runs", "simulation", "mode", "sim_gflops", "error_pct",
              "model_reference_gflops", "measured_reference_gflops", "speed_ratio", "speed_adjusted_gflops",
              "speed_adjusted_error_pct"]
REFERENCE_LABEL = "reference speed"   # the CSV rows of the measurements (date: when; label: this)


def csv_text(report):
    buf = io.StringIO()
    w = csv.DictWriter(buf, fieldnames=CSV_FIELDS)
    w.writeheader()
    for r in report["configs"]:
        base = {"date": report["date"], "cpu": report["machine"]["cpu"], "label": r["label"], "n": r["n"],
                "nb": r["nb"], "p": r["p"], "q": r["q"],
                "hpl_opt": " ".join(f"{k}={v}" for k, v in r["hpl_opt"].items()),
                "real_median": r["real"]["median"], "real_min": r["real"]["min"], "real_max": r["real"]["max"],
                "real_spread_pct": r["real"]["spread_pct"], "real_runs": len(r["real"]["gflops"])}
        sims = r["sim"] or {"": None}
        for s, x in sims.items():
            v = report["simulations"].get(s, {})
            d = v.get("reference_speed") or {}
            w.writerow(dict(base, simulation=s, mode=v.get("mode", ""), sim_gflops=x["gflops"] if x else "",
                            error_pct=x["error_pct"] if x else "", model_reference_gflops=d.get("model_gflops", ""),
                            measured_reference_gflops=d.get("measured_gflops") or "", speed_ratio=d.get("ratio") or "",
                            speed_adjusted_gflops=(x or {}).get("speed_adjusted_gflops", ""),
                            speed_adjusted_error_pct=(x or {}).get("speed_adjusted_error_pct", "")))
    # the measurements themselves, one row each at its time; hpl_opt says when and at which shape
    for m in (report.get("reference_speed") or {}).get("measured", []):
        w.writerow({"date": m["time"], "cpu": report["machine"]["cpu"], "label": REFERENCE_LABEL,
                    "hpl_opt": f"{m['when']}: {m.get('shape') or '?'}",
                    "measured_reference_gflops": m["gflops"] if m.get("gflops") else ""})
    return buf.getvalue()


def plot(report, prefix):
    """PREFIX.dat and PREFIX.gp, and with gnuplot PREFIX.svg and PREFIX.png:
    simulated against real Gflops (the real range as error bars), the
    diagonal and the 3% band.  Returns the figures made."""
    sims = list(report["simulations"])
    dat = ["# label real_median real_min real_max " + " ".join(f"{s}" for s in sims)]
    for r in report["configs"]:
        vals = [str(r["sim"].get(s, {}).get("gflops", "NaN")) for s in sims]
        dat.append(f"\"{r['label']}\" {r['real']['median']} {r['real']['min']} {r['real']['max']} " + " ".join(vals))
    write_atomic(prefix + ".dat", "\n".join(dat) + "\n")
    vals = [r["real"]["min"] for r in report["configs"]] + [r["real"]["max"] for r in report["configs"]] + \
        [x["gflops"] for r in report["configs"] for x in r["sim"].values()] or [1]
    lo, hi = min(vals) * 0.95, max(vals) * 1.05
    m = report["machine"]
    title = f"{m['cpu']}, {m['cores']} cores: simulated against real HPL ({report['date'][:10]})"
    base = os.path.basename(prefix)
    plots = [f"x title 'exact'", "1.03*x dt 2 lc rgb 'gray' title '±3%'", "0.97*x dt 2 lc rgb 'gray' notitle"]
    for i, s in enumerate(sims):
        plots.append(f"'{base}.dat' using 2:{5 + i}:3:4 with xerrorbars pt {7 + 2 * i} title '{s}'")
    gp = [f"set xrange [{lo:.4g}:{hi:.4g}]", f"set yrange [{lo:.4g}:{hi:.4g}]",
          "set xlabel 'real HPL, mpirun (Gflops; median, min-max)'", "set ylabel 'simulated (Gflops)'",
          f"set title \"{title.replace(chr(34), '')}\" noenhanced", "set key top left", "set grid",
          "set size square", "plot " + ", ".join(plots)]
    write_atomic(prefix + ".gp", "\n".join(gp) + "\n")
    made = []
    gnuplot = shutil.which("gnuplot")
    if not gnuplot:
        note(f"gnuplot not found: {prefix}.gp and .dat written, no figure")
        return made
    for term, ext in (("svg size 720,720", "svg"), ("pngcairo size 900,900", "png")):
        target = f"{prefix}.{ext}"
        script = f"set terminal {term}\nset output '{os.path.basename(target)}.new'\n" + "\n".join(gp) + "\n"
        r = subprocess.run([gnuplot], input=script, text=True, cwd=os.path.dirname(os.path.abspath(prefix)),
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        if r.returncode == 0 and os.path.exists(target + ".new"):
            os.replace(target + ".new", target)
            made.append(target)
        else:
            note(f"gnuplot could not make {target}: {r.stdout.strip().splitlines()[-1:] or r.returncode}")
    return made
