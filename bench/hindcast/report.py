#!/usr/bin/env python3
"""bench/hindcast/report.py LABEL=RUN.json:PUBLISHED_S ... -- one line per
hindcast run (doc/hindcast.md, part two): the extrapolated HPL time and
rate, the extrapolation's uncertainty recomputed from the run's kept
iterations.log (runs made before simblas-hpl reported it), and the
error against the published time.  Prints figures; not a test.

  python3 bench/hindcast/report.py S-AO=_xdg/hindcast/out/S-AO.json:7505.72
"""
import json
import math
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tools"))
from simblas_hpl import extrapolation  # noqa: E402


def row(label, path, published):
    d = json.load(open(path))
    run = d.get("run_dir") or os.path.join(os.path.dirname(os.path.dirname(path)), "runs", label)
    t, g = d["hpl_time_s"], d["gflops"]
    u = d.get("extrapolation_uncertainty")
    if u is None and d.get("iterations"):
        segs, end = extrapolation.read_iter_log(os.path.join(run, "iterations.log"))
        ex = extrapolation.extrapolate(segs, end, d["n"], d["nb"], d["hpl"]["depth"], d["partial_hpl_time_s"],
                                       d["wall_s"], math.lcm(d["p"], d["q"]))
        u = ex["extrapolation_uncertainty"] if ex else None
        if ex and abs(ex["extrapolated_hpl_time_s"] - t) > 1e-6 * t:
            print(f"{label}: note: recomputed {ex['extrapolated_hpl_time_s']:.1f} s against the JSON's {t:.1f} s")
    us = f"{u['s']:,.0f} s ({u['relative']:.1%}; sampling {u['sampling_s']:,.0f}, interpolation " \
         f"{u['interpolation_s']:,.0f})" if u and u["s"] is not None else "none (one pass)" if u else "none (full run)"
    err = t / published - 1
    print(f"{label:10s} {t:12,.1f} s  {g / 1e3:10,.1f} TFlop/s  +-{us}  published {published:,.2f} s: {err:+.1%}"
          f"  (wall {d['wall_s']:,.0f} s, {d.get('iterations_done', 'all')} iterations)")
    if d.get("offload"):
        print(f"{'':10s} offload: {d['offload']}")


for a in sys.argv[1:]:
    label, rest = a.split("=", 1)
    path, pub = rest.rsplit(":", 1)
    row(label, path, float(pub))
