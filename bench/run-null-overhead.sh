#!/bin/bash
# run-null-overhead.sh - per-call cost of libsimblas's model path.
#
# Usage: run-null-overhead.sh BUILDDIR SRCDIR [CALLS [REPS]]
#
#   BUILDDIR  has .libs/libsimblas.so and models/default.model
#   SRCDIR    has include/simblas.h and bench/null-overhead.c
#   CALLS     calls per timing (default 2000000), REPS repetitions (best
#             of, default 5)
#
# Builds bench/null-overhead.c with $CC (default cc) -O2 against BUILDDIR's
# libsimblas in a temporary folder and runs it with SIMBLAS_MODE=null and
# the nominal model: ns per call of dgemm_, daxpy_ and cblas_dgemm against
# an empty function with the same arguments, and the target (<= 50 ns of
# overhead).  The figures are informational: the exit status is 0 whatever
# they are, non-zero only when the benchmark cannot be built, crashes, or
# finds that libsimblas did not model its calls; 2 on a usage error.
set -u

prog=run-null-overhead.sh
die() { echo "$prog: error: $*" >&2; exit 2; }

if [ $# -lt 2 ] || [ $# -gt 4 ]; then die "usage: $prog BUILDDIR SRCDIR [CALLS [REPS]]"; fi
BUILDDIR=$(cd "$1" 2>/dev/null && pwd) || die "BUILDDIR '$1' is not a folder"
SRCDIR=$(cd "$2" 2>/dev/null && pwd) || die "SRCDIR '$2' is not a folder"
CALLS=${3:-2000000}
REPS=${4:-5}
case "$CALLS$REPS" in *[!0-9]*) die "CALLS and REPS must be positive integers" ;; esac
LIBDIR=$BUILDDIR/.libs
MODEL=$BUILDDIR/models/default.model
[ -f "$LIBDIR/libsimblas.so" ] || die "$LIBDIR/libsimblas.so not found (run make in $BUILDDIR)"
[ -f "$MODEL" ] || die "$MODEL not found (run make in $BUILDDIR)"
[ -f "$SRCDIR/bench/null-overhead.c" ] || die "$SRCDIR/bench/null-overhead.c not found"
CC=${CC:-cc}
command -v "$CC" >/dev/null 2>&1 || die "C compiler '$CC' not found"

WORK=$(mktemp -d "${TMPDIR:-/tmp}/simblas-bench.XXXXXX") || die "mktemp failed"
trap 'rm -rf "$WORK"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

if ! "$CC" -std=c11 -O2 -I"$SRCDIR/include" -o "$WORK/null-overhead" "$SRCDIR/bench/null-overhead.c" \
     -L"$LIBDIR" -lsimblas -Wl,-rpath,"$LIBDIR" >"$WORK/build.log" 2>&1; then
  sed 's/^/    | /' "$WORK/build.log" | tail -n 30
  echo "$prog: building bench/null-overhead.c failed" >&2
  exit 1
fi

echo "libsimblas: $LIBDIR/libsimblas.so; model $MODEL; $(uname -m), $(nproc 2>/dev/null || echo '?') CPUs"
rc=0
env -u SIMBLAS_NOISE -u SIMBLAS_SET -u SIMBLAS_TRACE SIMBLAS_MODE=null SIMBLAS_MODEL="$MODEL" \
  timeout -k 5 300 "$WORK/null-overhead" "$CALLS" "$REPS" || rc=$?
case $rc in
  0) ;;
  124|137) echo "$prog: the benchmark timed out" >&2 ;;
  *) if [ "$rc" -gt 128 ]; then echo "$prog: the benchmark died of signal $((rc - 128))" >&2
     else echo "$prog: the benchmark failed (exit status $rc)" >&2; fi ;;
esac
exit "$rc"
