#!/bin/sh
# bench/node-split/run.sh BUILDDIR [OUTDIR] -- which of the model's terms
# follow the flop rate and which the memory bandwidth, on this machine
# (doc/model-format.md, "Node files"; issue 25).  Prints figures; not a test.
#
#  1. simblas-probe: this node's roofs (FMA peak per core, all cores busy;
#     STREAM triad, all cores and one).
#  2. simblas-calibrate --quick --cores 1 on the routines HPL calls, four
#     times: idle, beside a STREAM triad on another core (simblas-probe
#     --hog, memory-bandwidth pressure), idle, beside the triad.
#  3. each term's coefficient read as a rate against the roofs (mnk: flops;
#     mn, mk, nk, m, n: bytes), and each shape's prediction beside the
#     triad against idle, with the idle-to-idle spread as the noise floor.
# Run it under nice on a shared machine; it takes about 5 minutes.
set -eu
build=$(cd "${1:?usage: run.sh BUILDDIR [OUTDIR]}" && pwd)
out=${2:-$(mktemp -d)}
mkdir -p "$out"
probe=$build/tools/simblas-probe cal=$build/calibrator/simblas-calibrate
routines=dgemm,dtrsm,daxpy,dscal,dcopy,dswap,dgemv,dger,hpl_dlaswp00N,hpl_dlacpy,hpl_dlatcpy
ncpu=$(nproc)
[ "$ncpu" -ge 2 ] || { echo "node-split: needs 2 cores (one calibrates, one runs the triad); this machine has $ncpu"; exit 2; }
"$probe" -o "$out/probe.toml"
for pass in idle1 hog1 idle2 hog2; do
  hog=""
  case $pass in hog*) taskset -c 1 "$probe" --hog 600 & hog=$! ;; esac
  taskset -c 0 "$cal" --quick --cores 1 --routines "$routines" --no-report -o "$out/$pass.model" > "$out/$pass.log" 2>&1
  [ -z "$hog" ] || kill "$hog"
done
python3 - "$out" <<'PY'
import re, sys, tomllib
out = sys.argv[1]
probe = tomllib.load(open(f"{out}/probe.toml", "rb"))["cpu"]
peak, triad1 = probe["peak_gflops_per_core"]["value"], probe["stream_gbs_one_core"]["value"]
print(f"roofs: peak {peak:.1f} GFlop/s per core, triad {probe['stream_gbs']['value']:.1f} GB/s (all cores), {triad1:.1f} GB/s (one)")
def lines(path):
    rows, on = {}, False
    for ln in open(path):
        if ln.startswith("set "):
            on = ln.split()[1] == "node"
        elif on and ln.strip() and not ln.startswith(("#", "quality", "meta", "reference")):
            name, rest = ln.split(None, 1)
            rows[name] = dict(t.split("=") for t in rest.split("|")[0].split())
    return {k: {t: float(v) for t, v in d.items()} for k, d in rows.items()}
m = {p: lines(f"{out}/{p}.model") for p in ("idle1", "hog1", "idle2", "hog2")}
BYTES = {"mnk": None, "mn": 16, "mk": 16, "nk": 16, "m": 8, "n": 8, "k": 8}
print("\nterm rates (idle1): mnk as a share of the flop peak, the others as GB/s against the one-core triad")
for name, co in sorted(m["idle1"].items()):
    parts = []
    for t, c in co.items():
        if t == "1" or c <= 0:
            continue
        if t == "mnk":
            f = 2 if name.startswith("dgemm") else 1
            parts.append(f"mnk {f / c / 1e9 / peak:.0%} of peak")
        else:
            parts.append(f"{t} {BYTES[t] / c / 1e9:.1f} GB/s ({BYTES[t] / c / 1e9 / triad1:.1f}x triad)")
    print(f"  {name:24s} " + ", ".join(parts))
SHAPES = [(64, 64, 64), (512, 512, 512), (2048, 2048, 256), (4096, 128, 128), (100000, 1, 1), (1, 100000, 1), (2048, 2048, 1)]
def pred(co, s):
    m_, n, k = s
    v = {"1": 1, "m": m_, "n": n, "k": k, "mn": m_ * n, "mk": m_ * k, "nk": n * k, "mnk": m_ * n * k}
    return sum(c * v[t] for t, c in co.items())
print("\nprediction beside the triad / idle (hog1/idle1, hog2/idle2), and idle2/idle1 (the noise floor)")
for name in sorted(m["idle1"]):
    if "[" in name or not all(name in m[p] for p in m):
        continue
    r = []
    for s in SHAPES:
        if (s[2] > 1) != ("mnk" in m["idle1"][name]):
            continue  # level-3 shapes for level-3 lines, the others for the rest
        a, b, c, d = (pred(m[p][name], s) for p in ("idle1", "hog1", "idle2", "hog2"))
        if a > 0 and c > 0:
            r.append(f"{s[0]}x{s[1]}x{s[2]}: {b / a - 1:+.0%} {d / c - 1:+.0%} (floor {c / a - 1:+.0%})")
    if r:
        print(f"  {name:16s} " + "; ".join(r))
PY
echo "node-split: models and logs in $out"
