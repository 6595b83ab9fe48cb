#!/bin/sh
# bench/mpi-probe-lag/hpl-waits.sh -- HPL's time in MPI_Send and MPI_Recv,
# real and simulated (doc/performance.md, "Open MPI's probe"): R real runs
# of simblas-hpl's xhpl-mpi (Open MPI, one rank bound per core) with
# mpitime.c preloaded (each rank's MPI_Send, MPI_Recv, MPI_Iprobe totals,
# the whole run: generation and check included), then the same
# configuration simulated with MODEL, --probe immediate and lagged, under
# SMPI's tracing: each rank's time in MPI_Send and MPI_Recv.
# Usage: bench/mpi-probe-lag/hpl-waits.sh MODEL [N [P Q [R]]]  (default N=8000 1x2, 2 runs)
# The tools from PATH or SIMBLAS_HPL_CMD (a command, arguments allowed).
set -eu
[ $# -ge 1 ] || { echo "usage: bench/mpi-probe-lag/hpl-waits.sh MODEL [N [P Q [R]]]" >&2; exit 2; }
here=$(cd "$(dirname "$0")" && pwd)
model=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
n=${2:-8000} p=${3:-1} q=${4:-2} runs=${5:-2}
hpl=${SIMBLAS_HPL_CMD:-simblas-hpl}
command -v mpicc > /dev/null 2>&1 || { echo "hpl-waits: no mpicc: install libopenmpi-dev (scripts/install-deps.sh)" >&2; exit 2; }
# shellcheck source=../hpl-mpi.sh
. "$here/../hpl-mpi.sh"
out=$(mktemp -d "${TMPDIR:-/tmp}/simblas-hpl-waits.XXXXXX")
trap 'rm -rf "$out"' EXIT
mpicc -O2 -shared -fPIC -o "$out/libmpitime.so" "$here/mpitime.c"
need_xhpl hpl-waits "$hpl"
echo "$(grep -m1 '^model name' /proc/cpuinfo | sed 's/.*: //'), $(nproc) core(s); $(date -u +%Y-%m-%dT%H:%MZ);" \
  "$(mpirun --version 2>&1 | head -1); N=$n ${p}x$q"
for probe in immediate lagged; do
  # shellcheck disable=SC2086
  $hpl run --n "$n" --p "$p" --q "$q" --cores-per-node "$((p * q))" --model "$model" --probe "$probe" \
    --keep "$out/sim-$probe" --dry-run > /dev/null 2>&1
done
mkdir -p "$out/real" && cp "$out/sim-immediate/HPL.dat" "$out/sim-immediate/hpccinf.txt" "$out/real/"
i=1
while [ "$i" -le "$runs" ]; do
  real_hpl "$out/real" $((p * q)) -x LD_PRELOAD="$out/libmpitime.so" || { tail -5 "$out/real/err.txt"; exit 1; }
  echo "real run $i: $(grep -E '^W[RC]' "$out/real/out.txt" | awk '{ print $6 " s, " $7 " Gflops" }')"
  grep '^MPITIME' "$out/real/err.txt" | sort | sed 's/^MPITIME /  /'
  i=$((i + 1))
done
for probe in immediate lagged; do
  d=$out/sim-$probe
  sed "s#--cfg=smpi/display-timing:yes#--cfg=smpi/display-timing:yes --cfg=tracing:yes --cfg=tracing/smpi:yes --cfg=tracing/filename:$d/t.paje --cfg=tracing/smpi/format:Paje#" \
    "$d/run.sh" > "$d/traced.sh"
  sh "$d/traced.sh" > "$d/out.txt" 2>&1 || { tail -5 "$d/out.txt"; exit 1; }
  echo "simulated, --probe $probe: $(grep -E '^W[RC]' "$d/out.txt" | awk '{ print $6 " s, " $7 " Gflops" }')"
  python3 - "$d/t.paje" <<'PY'
import collections, sys
names, stack, tot, cnt = {}, collections.defaultdict(list), collections.Counter(), collections.Counter()
for line in open(sys.argv[1]):
    f = line.split()
    if not f or f[0].startswith(("%", "#")):
        continue
    if f[0] == "5":
        names[f[1]] = f[3]
    elif f[0] == "12":
        stack[f[3]].append((float(f[1]), names.get(f[4], f[4])))
    elif f[0] == "13":
        t0, name = stack[f[3]].pop()
        tot[(f[3], name)] += float(f[1]) - t0
        cnt[(f[3], name)] += 1
for c in sorted({c for c, _ in tot}, key=int):
    print(f"  rank {int(c) - 1} send {tot[(c, 'PMPI_Send')]:.4f} s ({cnt[(c, 'PMPI_Send')]}) "
          f"recv {tot[(c, 'PMPI_Recv')]:.4f} s ({cnt[(c, 'PMPI_Recv')]})")
PY
done
