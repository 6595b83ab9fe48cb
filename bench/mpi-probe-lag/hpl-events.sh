#!/bin/sh
# bench/mpi-probe-lag/hpl-events.sh -- the panels' broadcasts of a 1xQ HPL
# run, real and simulated, panel by panel (doc/performance.md, "Open MPI's
# probe"): R real runs of simblas-hpl's xhpl-mpi (Open MPI, one rank bound
# per core) with events.c preloaded (each rank's MPI_Send, MPI_Recv and
# MPI_Iprobe with their times), then the same configuration simulated with
# MODEL and --probe lagged, events.c built for SMPI and preloaded before
# libsimblas_pmpi; events.py compares them: how long each root waited,
# whether its receiver was already probing for the panel or still busy,
# the probes that failed after the send, and the race between the two
# ranks' work that decides it.
# Usage: bench/mpi-probe-lag/hpl-events.sh MODEL [N [R]]  (default N=8000, 3 runs; 1x2)
# The tools from PATH or SIMBLAS_HPL_CMD (a command, arguments allowed).
set -eu
[ $# -ge 1 ] || { echo "usage: bench/mpi-probe-lag/hpl-events.sh MODEL [N [R]]" >&2; exit 2; }
here=$(cd "$(dirname "$0")" && pwd)
model=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
n=${2:-8000} runs=${3:-3}
hpl=${SIMBLAS_HPL_CMD:-simblas-hpl}
command -v mpicc > /dev/null 2>&1 || { echo "hpl-events: no mpicc: install libopenmpi-dev (scripts/install-deps.sh)" >&2; exit 2; }
[ -r /usr/include/smpi/mpi.h ] || { echo "hpl-events: no SMPI headers: install libsimgrid-dev (scripts/install-deps.sh)" >&2; exit 2; }
# shellcheck source=../hpl-mpi.sh
. "$here/../hpl-mpi.sh"
out=$(mktemp -d "${TMPDIR:-/tmp}/simblas-hpl-events.XXXXXX")
trap 'rm -rf "$out"' EXIT
mpicc -O2 -shared -fPIC -o "$out/libevents.so" "$here/events.c"
cc -O2 -DSMPI_EVENTS -I/usr/include/smpi -shared -fPIC -o "$out/libsmpievents.so" "$here/events.c" -ldl
need_xhpl hpl-events "$hpl"
echo "$(grep -m1 '^model name' /proc/cpuinfo | sed 's/.*: //'), $(nproc) core(s); $(date -u +%Y-%m-%dT%H:%MZ);" \
  "$(mpirun --version 2>&1 | head -1); N=$n 1x2; load average $(cut -d' ' -f1 /proc/loadavg)"
# shellcheck disable=SC2086
$hpl run --n "$n" --p 1 --q 2 --cores-per-node 2 --model "$model" --probe lagged --keep "$out/sim" --dry-run > /dev/null
labels=""
i=1
while [ "$i" -le "$runs" ]; do
  mkdir -p "$out/real$i" && cp "$out/sim/HPL.dat" "$out/sim/hpccinf.txt" "$out/real$i/"
  real_hpl "$out/real$i" 2 -x LD_PRELOAD="$out/libevents.so" || { tail -5 "$out/real$i/err.txt"; exit 1; }
  echo "real run $i: $(grep -E '^W[RC]' "$out/real$i/out.txt" | awk '{ print $6 " s, " $7 " Gflops" }')"
  labels="$labels real$i=$out/real$i"
  i=$((i + 1))
done
sed "s#LD_PRELOAD=#LD_PRELOAD=$out/libsmpievents.so:#" "$out/sim/run.sh" > "$out/sim/events.sh"
sh "$out/sim/events.sh" > "$out/sim/out.txt" 2>&1 || { tail -5 "$out/sim/out.txt"; exit 1; }
echo "simulated (--probe lagged): $(grep -E '^W[RC]' "$out/sim/out.txt" | awk '{ print $6 " s, " $7 " Gflops" }')"
# shellcheck disable=SC2086
python3 "$here/events.py" $labels "simulated=$out/sim"
