# shellcheck shell=sh
# bench/hpl-mpi.sh -- sourced by the benches that run simblas-hpl's
# real-MPI HPL (xhpl-mpi: Open MPI, OpenBLAS) themselves
# (bench/mpi-probe-lag/hpl-waits.sh, hpl-events.sh, bench/reference-after-hpl):
#   need_xhpl PROG HPL        set xhpl to xhpl-mpi's path (HPL: the simblas-hpl
#                             command, arguments allowed), or exit naming PROG
#                             and the remedy
#   real_hpl DIR NP [ARG...]  run $xhpl in DIR (its HPL.dat) on NP ranks, one bound
#                             per core, one BLAS thread, mpirun's ARGs before the
#                             binary; DIR/out.txt and DIR/err.txt; its status
# mpi_root is mpirun's --allow-run-as-root when run as root.
mpi_root=$([ "$(id -u)" = 0 ] && echo --allow-run-as-root || true)

need_xhpl() {
  # shellcheck disable=SC2086
  xhpl=$($2 info 2> /dev/null | python3 -c 'import json, sys; print(json.load(sys.stdin).get("available", {}).get("mpi") or "")')
  [ -n "$xhpl" ] || { echo "$1: the HPL build has no xhpl-mpi: simblas-hpl build --mode mpi" >&2; exit 2; }
}

real_hpl() {
  _d=$1 _np=$2
  shift 2
  # shellcheck disable=SC2086
  (cd "$_d" && mpirun $mpi_root --bind-to core --map-by core -np "$_np" -x OPENBLAS_NUM_THREADS=1 \
     -x OMP_NUM_THREADS=1 "$@" "$xhpl" > out.txt 2> err.txt)
}
