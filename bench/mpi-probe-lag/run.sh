#!/bin/sh
# bench/mpi-probe-lag/run.sh -- how many chunks late the real MPI's
# MPI_Iprobe sees a message (probe_lag.c): the figure behind
# `simblas-hpl run --probe` (doc/performance.md, "Open MPI's probe").
# Needs mpicc and mpirun (openmpi-bin, libopenmpi-dev; or another MPI) and
# 2 cores; about 30 s.  Usage: bench/mpi-probe-lag/run.sh [OUTDIR]
set -eu
here=$(cd "$(dirname "$0")" && pwd)
out=${1:-$(mktemp -d "${TMPDIR:-/tmp}/simblas-probe-lag.XXXXXX")}
mkdir -p "$out"
command -v mpicc > /dev/null 2>&1 || { echo "bench/mpi-probe-lag: no mpicc: install libopenmpi-dev (scripts/install-deps.sh)" >&2; exit 2; }
mpicc -O2 -o "$out/probe_lag" "$here/probe_lag.c"
# shellcheck source=../hpl-mpi.sh
. "$here/../hpl-mpi.sh"
echo "$(grep -m1 '^model name' /proc/cpuinfo | sed 's/.*: //'), $(nproc) core(s); $(date -u +%Y-%m-%dT%H:%MZ); $(mpirun --version 2>&1 | head -1)"
echo "chunk_ms send_after_ms bytes seen_after_ms chunks sender_blocked_ms"
for c in 2 5 10; do
  for s in 1000 4000000; do
    # shellcheck disable=SC2086
    mpirun $mpi_root --bind-to core -np 2 "$out/probe_lag" "$c" 20 "$s" 20 | sed 's/^probe_lag //'
  done
done
echo "(about 0.5 chunk: the first probe after the send sees it; about 1.5: the one after)"
