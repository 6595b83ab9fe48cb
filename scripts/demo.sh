#!/bin/sh
# The main job, on a fresh Debian 12 machine (as root), from the
# repository: install what is missing, build and install SimBLAS under
# ./_install, calibrate this machine's BLAS (quick mode) if that was not
# done yet, then simulate an MPI program (examples/mpi_dgemm.c) on a
# 4-node cluster with smpirun: the BLAS calls compute nothing and each
# advances the simulated clock by its predicted duration.
# (Once the HPL work lands this runs a calibrated HPL simulation.)
#
# Usage: scripts/demo.sh [N]     (matrix order of the dgemm, default 4096)
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
n=${1:-4096}
cd "$top"
sh scripts/install-deps.sh
[ -x configure ] || ./autogen.sh > /dev/null 2>&1
mkdir -p _build/demo && cd _build/demo
[ -f Makefile ] || "$top/configure" -q --prefix="$top/_install"
make -j"$(nproc 2>/dev/null || echo 2)" > build.log 2>&1 || { tail -40 build.log; exit 1; }
make install > install.log 2>&1 || { tail -40 install.log; exit 1; }
prefix=$top/_install
# calibrate this machine once (quick mode, about 30 s); `make calibrate`
# without CALIBRATE_FLAGS runs the full calibration
if [ ! -f "$prefix/share/simblas/calibrated.model" ]; then
  echo "calibrating this machine (quick mode; run 'make calibrate' for the full one)..."
  make calibrate CALIBRATE_FLAGS="--quick" 2>&1 | grep -E 'simblas-calibrate: (wrote|not in)|^  d' || true
fi
model=$prefix/share/simblas/default.model
speed=$(awk '$1 == "reference-speed" { print $2 }' "$model")

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cat > "$work/platform.xml" <<XML
<?xml version='1.0'?>
<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">
<platform version="4.1">
  <zone id="world" routing="Full">
    <cluster id="demo" prefix="node-" suffix="" radical="0-3" speed="${speed}f" bw="10Gbps" lat="24us"/>
  </zone>
</platform>
XML
printf 'node-%d\n' 0 1 2 3 > "$work/hosts"
smpicc -O2 -I"$prefix/include" "$top/examples/mpi_dgemm.c" -o "$work/mpi_dgemm" \
  -L"$prefix/lib" -lsimblas -Wl,-rpath,"$prefix/lib"
echo "model: $model (reference speed $speed flop/s); hosts run at the same speed"
SIMBLAS_MODEL=$model smpirun -np 4 -platform "$work/platform.xml" -hostfile "$work/hosts" \
  --cfg=smpi/display-timing:yes "$work/mpi_dgemm" "$n" 2>&1 | grep -v '^\[.*\] \[xbt_cfg/INFO\]'
