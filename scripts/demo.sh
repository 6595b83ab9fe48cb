#!/bin/sh
# The main job, on a fresh Debian 12 machine (as root), from the
# repository: install what is missing, build and install SimBLAS under
# ./_install, calibrate this machine's BLAS in quick mode if no calibrated
# model exists yet, build HPL from Debian's hpcc source (offline: only
# Debian's archive), refine the calibration on real HPL's calls (once),
# and simulate HPL N=40000 on 64 ranks (8x8) of a
# 2-level fat tree at 10 Gbps / 24 us, with energy (idle 95 W, 120 W at the
# first busy core, 200 W with all cores busy).  Prints HPL's result line
# and the JSON summary.
#
# Usage: scripts/demo.sh [N [P Q]]
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
# the arguments and the place, before the long work (install, build,
# calibration) that a bad one would only stop at its end
case $# in 0 | 1 | 3) ;; *) echo "demo.sh: $# arguments: give none, N, or N P Q (usage: scripts/demo.sh [N [P Q]])" >&2; exit 2 ;; esac
n=${1:-40000} p=${2:-8} q=${3:-8}
for a in "N=$n" "P=$p" "Q=$q"; do
  case "${a#?=}" in
    '' | *[!0-9]* | 0*) echo "demo.sh: $a is not a positive whole number (digits, no leading 0): give N P Q as numbers (scripts/demo.sh 40000 8 8)" >&2; exit 2 ;;
  esac
  [ ${#a} -le 11 ] || { echo "demo.sh: $a has more than 9 digits: HPL reads it as a C int" >&2; exit 2; }
done
[ "$n" -ge 128 ] || { echo "demo.sh: N=$n is smaller than the block size NB=128: give N >= 128" >&2; exit 2; }
case "$top" in
  *[\\\"#\$\&\'\`\ \	]* | *"
"*) echo "demo.sh: configure refuses the repository's path '$top' (a space or one of \\ \" # \$ & ' \`): clone it to a plain path" >&2; exit 2 ;;
esac
cd "$top"
sh scripts/install-deps.sh --sources
[ -x configure ] || ./autogen.sh > /dev/null 2>&1 || ./autogen.sh
mkdir -p _build/demo && cd _build/demo
[ -f Makefile ] || "$top/configure" -q --prefix="$top/_install"
make -j"$(nproc 2>/dev/null || echo 2)" > build.log 2>&1 || { tail -40 build.log; exit 1; }
make install > install.log 2>&1 || { tail -40 install.log; exit 1; }
prefix=$top/_install
PATH=$prefix/bin:$PATH
export PATH
# calibrate once (quick mode, one to two minutes); `make calibrate` without
# CALIBRATE_FLAGS runs the full calibration (about 8 minutes)
if [ ! -f "$prefix/share/simblas/calibrated.model" ]; then
  echo "== calibrating this machine's BLAS (quick mode)"
  make calibrate CALIBRATE_FLAGS="--quick" > calibrate.log 2>&1 || true
  grep -E 'simblas-calibrate: wrote|^  d(gemm|trsm)' calibrate.log || true
  if [ ! -f "$prefix/share/simblas/calibrated.model" ]; then
    # refused (other processes took more than 5% of the cores) or failed:
    # say so, and that the run below is not this machine's
    grep 'simblas-calibrate' calibrate.log | tail -3
    echo "demo: no calibrated model (the calibrator's words above, all of them in $top/_build/demo/calibrate.log);"
    echo "demo: the simulation below uses SimBLAS's nominal default model, not this machine's: rerun on a quiet"
    echo "demo: machine, or run 'make -C $top/_build/demo calibrate CALIBRATE_FLAGS=\"--quick --force\"'"
  fi
fi
echo "== building HPL (Debian hpcc's HPL, patched) against SimBLAS"
simblas-hpl build > hpl-build.log 2>&1 || { tail -20 hpl-build.log; exit 1; }
tail -1 hpl-build.log
# refine the calibration once, on HPL's own calls: real HPL under mpirun
# (N=10000 on 1xC and Cx1, a minute or two), the model refitted in place
# (doc/calibration.md); refused on a busy machine, and then the run below
# uses the calibration as it is
share=$prefix/share/simblas
if [ -f "$share/calibrated.model" ] && [ ! -f "$share/refined.model" ]; then
  echo "== refining the calibration on HPL's own calls (real HPL under mpirun)"
  if simblas-hpl refine > refine.log 2>&1; then
    grep -E 'real N=|one core alone ran|of the cores during|replaced|written' refine.log || true
  else
    tail -2 refine.log
    echo "demo: the simulation below uses the calibration unrefined (all of refine's words in $top/_build/demo/refine.log)"
  fi
fi
echo "== simulating HPL N=$n NB=128 on ${p}x$q ranks"
simblas-hpl run --n "$n" --nb 128 --p "$p" --q "$q" --energy 95:120:200 --json "$top/_build/demo/result.json" \
  > run.out || { cat run.out; exit 1; }
awk '/"energy_per_host_j"/ { skip = 1; print "  \"energy_per_host_j\": { ... one value per host ... },"; next }
     skip { if (/}/) skip = 0; next } { print }' run.out
echo "== JSON summary: $top/_build/demo/result.json"
echo "== to use simblas-hpl and its manual pages (man simblas-hpl): export PATH=$prefix/bin:\$PATH"
