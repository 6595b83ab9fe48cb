# hpl-env.sh -- sourced by the tests that run simblas-hpl (test/hpl-*.sh): run
# simblas-hpl (tools/simblas-hpl.in, the launcher of tools/simblas_hpl/)
# from a SimBLAS source and build tree.
# Environment: SB_SRCDIR, SB_BUILDDIR (make check sets both), PYTHON
# (configure's interpreter; default python3).  Defines src, build, py,
# skip(), missing() (test/strict.sh), cli() and real_hpl(); exits 77
# (skip), or 1 under SIMBLAS_TEST_STRICT=1, when Python, smpicc/smpirun or
# the build tree are missing.
set -u
src=${SB_SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}
build=${SB_BUILDDIR:-.}
build=$(cd "$build" && pwd)

skip() { echo "SKIP: $1"; exit 77; }
. "$src/test/strict.sh"
py=${PYTHON:-python3}
command -v "$py" > /dev/null 2>&1 || missing "$py (Python) not found"
command -v smpirun > /dev/null 2>&1 || missing "smpirun not found"
command -v smpicc > /dev/null 2>&1 || missing "smpicc not found"
[ -f "$build/.libs/libsimblas.so" ] || missing "no $build/.libs/libsimblas.so (build SimBLAS first)"
[ -f "$src/tools/simblas_hpl/cli.py" ] || missing "no $src/tools/simblas_hpl/"

SIMBLAS_LIBDIR=$build/.libs
SIMBLAS_INCDIR=$src/include
SIMBLAS_PATCHDIR=$src/hpl-patches
PYTHONDONTWRITEBYTECODE=1  # nothing written into the source tree
SIMBLAS_CALIBRATE=$build/calibrator/simblas-calibrate  # validate's reference speeds
export SIMBLAS_LIBDIR SIMBLAS_INCDIR SIMBLAS_PATCHDIR SIMBLAS_CALIBRATE PYTHONDONTWRITEBYTECODE
unset SIMBLAS_HPL_BUILD SMPIRUN SMPICC
cli() { "$py" "$src/tools/simblas-hpl.in" "$@"; }
# real_hpl: what the tests of real mpirun HPL need (test/hpl-validate.sh,
# test/hpl-refine.sh); sets cal (the calibrator) and data (the HPL build's
# XDG_DATA_HOME); skips (77) in a sanitizer build or without the
# calibrator, mpirun or xhpl-mpi
real_hpl() {
  case "${LD_PRELOAD:-}" in *libasan*) skip "sanitizer build: no HPL runs (see test/hpl-run.sh)" ;; esac
  cal=$build/calibrator/simblas-calibrate
  [ -x "$cal" ] || missing "no calibrator built ($cal)"
  command -v mpirun > /dev/null 2>&1 || missing "Open MPI's mpirun (openmpi-bin; scripts/install-deps.sh installs it)"
  data=${SB_HPL_DATA:-$build/test/hpl-data}
  XDG_DATA_HOME=$data cli info 2> /dev/null | grep -q '"xhpl-mpi"' \
    || missing "no real-MPI HPL (xhpl-mpi) in $data (test/hpl-run.sh builds it when mpicc is there)"
}
