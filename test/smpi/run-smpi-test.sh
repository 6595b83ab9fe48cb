#!/bin/bash
# run-smpi-test.sh - check that libsimblas injects its predictions into an
# SMPI simulation exactly, and scales them with the host speed.
#
# Usage: run-smpi-test.sh BUILDDIR SRCDIR
#
#   BUILDDIR  has .libs/libsimblas.so and models/default.model
#   SRCDIR    has include/simblas.h and test/smpi/timing.c
#
# What it does, in a temporary folder:
#   1. builds test/smpi/timing.c with smpicc against BUILDDIR's libsimblas;
#   2. writes two 2-host platforms: hosts as fast as the model's
#      reference-speed (1x), and twice as fast (2x);
#   3. runs `smpirun -np 2` on each, with SIMBLAS_MODE=smpi and
#      SIMBLAS_MODEL=BUILDDIR/models/default.model.  timing.c checks on
#      every rank that each MPI_Wtime()-bracketed BLAS call (dgemm_, a
#      column-major and a row-major cblas_dtrsm, daxpy_) took exactly
#      predicted * reference-speed / host-speed of simulated time, with the
#      canonical shape, through the SimBLAS hook (see timing.c);
#   4. recomputes each prediction from the model file's coefficients
#      (awk, independent of libsimblas) and checks that every delta of
#      the 2x run is half the one of the 1x run;
#   5. runs the 1x platform again with SIMBLAS_HOST_FACTORS giving host0
#      and host1 speed factors 0.5 and 0.8, and host1's memory kernels 0.4
#      (the MEMORY column): each rank's deltas are its host's factor times
#      slower, its memory kernel's (hpl_dlaswp00N) the MEMORY factor's
#      (timing.c and the recomputation are given each rank's speeds), and
#      the hook still sees the model's prediction;
#   6. checks that a plain (non-MPI) program calling dgemm_ outside
#      smpirun, with SIMBLAS_MODE unset, stops with a one-line message
#      naming SIMBLAS_MODE and a non-zero status (not a crash); and that
#      the same program runs with SIMBLAS_MODE=null.  (A program built by
#      smpicc 3.32 cannot run without smpirun at all: it is loaded by
#      smpirun's smpimain and crashes with SIGSEGV when started directly,
#      before any BLAS call; hence the plain cc program.)
#
# Output: a few lines with the numbers, then "N passed, N failed" (N counts
# the individual checks of timing.c on every rank and of this script).
# Exit status 0 iff nothing failed; 2 on a usage or setup error.
#
# The smpirun flags, and why (SimGrid 3.32):
#   --cfg=smpi/wtime:0
#       MPI_Wtime() reads the clock and then sleeps smpi/wtime simulated
#       seconds (default 1e-8, so that polling loops advance), so each
#       bracket would include one extra 10 ns: 5e-5 relative on daxpy.
#   --cfg=smpi/simulate-computation:no
#       SMPI times the application's own CPU work between two MPI calls
#       (a "benchmark block") and injects it.  smpi_execute_benched(),
#       which libsimblas calls, first closes that block, so the wrapper's
#       own CPU time since the opening MPI_Wtime() is charged too:
#       measured time * smpi/host-speed (default 20000 flop/s) when above
#       smpi/cpu-threshold (1e-6 s).  That is tiny (about 1e-11 s) but
#       real-time dependent, so not reproducible; with the option off,
#       only SimBLAS's injection advances the clock and every delta equals
#       the prediction to the last bits (relative error ~1e-15).
#   Privatization: the default (dlopen) is used and needed.  With
#       --cfg=smpi/privatization:no the program is dlopen()ed without
#       RTLD_DEEPBIND and its cblas_* symbols bind to GSL's libgslcblas,
#       which libsimgrid drags in (via ns-3 and libgsl) ahead of
#       libsimblas in the global scope: cblas_dtrsm then computes for real
#       and injects nothing (dgemm_, daxpy_ still reach SimBLAS, GSL has
#       no Fortran symbols).  LD_PRELOAD=libsimblas.so fixes that.
#   smpirun itself adds --cfg=surf/precision:1e-9; it does not show in
#   the deltas.
set -u

prog=run-smpi-test.sh
die() { echo "$prog: error: $*" >&2; exit 2; }

[ $# -eq 2 ] || die "usage: $prog BUILDDIR SRCDIR"
BUILDDIR=$(cd "$1" 2>/dev/null && pwd) || die "BUILDDIR '$1' is not a folder"
SRCDIR=$(cd "$2" 2>/dev/null && pwd) || die "SRCDIR '$2' is not a folder"
LIBDIR=$BUILDDIR/.libs
MODEL=$BUILDDIR/models/default.model
[ -f "$LIBDIR/libsimblas.so" ] || die "$LIBDIR/libsimblas.so not found (run make in $BUILDDIR)"
[ -f "$MODEL" ] || die "$MODEL not found (run make in $BUILDDIR)"
[ -f "$SRCDIR/include/simblas.h" ] || die "$SRCDIR/include/simblas.h not found"
[ -f "$SRCDIR/test/smpi/timing.c" ] || die "$SRCDIR/test/smpi/timing.c not found"
for t in smpicc smpirun awk timeout; do
  command -v "$t" >/dev/null 2>&1 || die "'$t' not found (SimGrid's smpicc/smpirun: apt-get install simgrid)"
done
CC=${CC:-cc}
command -v "$CC" >/dev/null 2>&1 || die "C compiler '$CC' not found"

REF=$(awk '{ sub(/#.*/, "") } $1 == "reference-speed" { print $2; exit }' "$MODEL")
awk -v r="$REF" 'BEGIN { exit !(r + 0 > 0) }' </dev/null ||
  die "$MODEL has no positive 'reference-speed' line"
REF=$(awk -v r="$REF" 'BEGIN { printf "%.17g", r }' </dev/null)
FAST=$(awk -v r="$REF" 'BEGIN { printf "%.17g", 2 * r }' </dev/null)

WORK=$(mktemp -d "${TMPDIR:-/tmp}/simblas-smpi.XXXXXX") || die "mktemp failed"
cleanup() { rm -rf "$WORK"; }
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

npass=0
nfail=0
ok() { npass=$((npass + 1)); }
bad() { nfail=$((nfail + 1)); echo "FAIL $*"; }
# show the last lines of a log, indented
show() { tail -n "${2:-15}" "$1" | sed 's/^/    | /'; }

# Only what this test sets: no noise, no coefficient sets, default mode.
unset SIMBLAS_NOISE SIMBLAS_SET SIMBLAS_SEED SIMBLAS_TRACE SIMBLAS_BACKEND
export SIMBLAS_MODE=smpi SIMBLAS_MODEL="$MODEL"

echo "SimBLAS SMPI timing test: $LIBDIR/libsimblas.so, $(smpirun -version 2>&1 | head -n 1)"
echo "model $MODEL: reference-speed $REF flop/s"

# ------------------------------------------------------------------ build
LINK="-L$LIBDIR -lsimblas -Wl,-rpath,$LIBDIR"
# shellcheck disable=SC2086
if smpicc -std=c11 -O2 -Wall -I"$SRCDIR/include" -o "$WORK/timing" "$SRCDIR/test/smpi/timing.c" $LINK \
     >"$WORK/build.log" 2>&1 && [ -x "$WORK/timing" ]; then
  ok
else
  bad "smpicc could not build timing.c"
  show "$WORK/build.log" 30
  echo "$npass passed, $nfail failed"
  exit 1
fi

# ---------------------------------------------------------------- platforms
platform() { # file speed
  cat >"$1" <<EOF
<?xml version='1.0'?>
<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">
<platform version="4.1">
  <zone id="zone0" routing="Full">
    <host id="host0" speed="${2}f"/>
    <host id="host1" speed="${2}f"/>
    <link id="link0" bandwidth="10GBps" latency="1us"/>
    <route src="host0" dst="host1"><link_ctn id="link0"/></route>
  </zone>
</platform>
EOF
}
platform "$WORK/p1.xml" "$REF"
platform "$WORK/p2.xml" "$FAST"
printf 'host0\nhost1\n' >"$WORK/hostfile"

SMPI_FLAGS="--cfg=smpi/wtime:0 --cfg=smpi/simulate-computation:no"
PRIV="default dlopen privatization"
case "${LD_PRELOAD:-}" in
  *libasan*)
    # Sanitizer build: SMPI's dlopen privatization uses RTLD_DEEPBIND,
    # which the ASan runtime refuses.  Run without privatization, and
    # preload libsimblas so that no other cblas_ (libgslcblas, which
    # libsimgrid pulls in) binds first.
    SMPI_FLAGS="$SMPI_FLAGS --cfg=smpi/privatization:no"
    LD_PRELOAD="$LD_PRELOAD $LIBDIR/libsimblas.so"
    export LD_PRELOAD
    PRIV="no privatization: sanitizer build" ;;
esac
echo "smpirun -np 2 $SMPI_FLAGS ($PRIV)"

# run one platform: name speed [xml [mspeed]] (speed: one for all ranks, or
# one per rank, comma-separated; mspeed the same for the memory kernels,
# speed's by default); leaves $WORK/<name>.out
run_platform() {
  name=$1 speed=$2 xml=${3:-$1} mspeed=${4:-$2}
  out=$WORK/$name.out log=$WORK/$name.log rc=0
  # TMPDIR: where smpirun puts the per-rank copies of the program (its
  # -tmpdir option is broken in 3.32: it shifts one argument only)
  # shellcheck disable=SC2086
  ( cd "$WORK" && exec env TMPDIR="$WORK" timeout -k 5 60 smpirun -np 2 -platform "$WORK/$xml.xml" \
      -hostfile "$WORK/hostfile" $SMPI_FLAGS --log=root.thres:warning "$WORK/timing" "$REF" "$speed" "$mspeed" ) \
    >"$out" 2>"$log" || rc=$?
  if [ "$rc" -ne 0 ]; then
    case $rc in 124|137) why="timed out" ;; *) why="exit status $rc" ;; esac
    bad "$name: smpirun failed ($why)"
    show "$log"
    show "$out" 10
    return
  fi
  ok
  nsum=$(grep -c '^SUMMARY ' "$out")
  if [ "$nsum" -ne 2 ]; then
    bad "$name: $nsum of 2 ranks reported (SUMMARY lines)"
    show "$out" 10
  else
    ok
  fi
  # timing.c's own checks
  read -r p f < <(awk '$1 == "SUMMARY" { p += $3; f += $4 } END { print p + 0, f + 0 }' "$out")
  npass=$((npass + p))
  nfail=$((nfail + f))
  grep '^FAIL ' "$out" | sed "s/^FAIL /FAIL $name: rank /"
  echo "$name (host speed $speed flop/s): timing.c checks: $p passed, $f failed"
  # every prediction again, from the model file's coefficients (set
  # "node"), and the delta against it
  awk -v ref="$REF" -v host="$speed" -v hostm="$mspeed" -v name="$name" '
    FNR == NR {
      sub(/#.*/, "")
      if ($1 == "set") { inset = ($2 == "node"); next }
      if (NF < 2 || $1 ~ /^(simblas-model|reference-speed|meta|quality)$/ || !inset) next
      for (i = 2; i <= NF && $i != "|"; i++) {
        split($i, kv, "=")
        mu[$1 "," kv[1]] = kv[2]
        has[$1] = 1
      }
      next
    }
    $1 == "CALL" {
      r = $4; m = $5; n = $6; k = $7; pred = $8; delta = $9
      if (!has[r]) { printf "NOTE %s: the model has no line for %s; not recomputed\n", name, r; next }
      v["1"] = 1; v["m"] = m; v["n"] = n; v["mn"] = m * n; v["k"] = k
      v["mk"] = m * k; v["nk"] = n * k; v["mnk"] = m * n * k
      t = 0
      for (term in v) t += mu[r "," term] * v[term]
      if (t < 0) t = 0
      e = (t > 0) ? (pred - t) / t : pred; if (e < 0) e = -e
      if (e > 1e-9) printf "FAIL %s: rank %s %s: simblas predicts %.17g s, the model file says %.17g s\n", name, $2, $3, pred, t
      else print "OK"
      nh = split(r ~ /^hpl_/ ? hostm : host, hs, ","); h = ($2 + 1 <= nh) ? hs[$2 + 1] : hs[nh]
      want = t * ref / h
      e = (want > 0) ? (delta - want) / want : delta; if (e < 0) e = -e
      if (e > 1e-6) printf "FAIL %s: rank %s %s: MPI_Wtime delta %.17g s, the model file says %.17g s\n", name, $2, $3, delta, want
      else print "OK"
    }
  ' inset=1 "$MODEL" "$out" >"$WORK/$name.recheck"
  p=$(grep -c '^OK$' "$WORK/$name.recheck")
  f=$(grep -c '^FAIL ' "$WORK/$name.recheck")
  npass=$((npass + p))
  nfail=$((nfail + f))
  grep -v '^OK$' "$WORK/$name.recheck"
  echo "$name: predictions and deltas recomputed from the model file: $p passed, $f failed"
}

run_platform p1 "$REF"
run_platform p2 "$FAST"
# per-host speed factors: host0 at half the speed, host1 at 80% and its
# memory kernels at 40% (the MEMORY column)
printf '# host factor [memory]\nhost1 0.8 0.4\n\nhost0 0.5\n' >"$WORK/factors"
SLOW0=$(awk -v r="$REF" 'BEGIN { printf "%.17g", 0.5 * r }' </dev/null)
SLOW1=$(awk -v r="$REF" 'BEGIN { printf "%.17g", 0.8 * r }' </dev/null)
SLOW1M=$(awk -v r="$REF" 'BEGIN { printf "%.17g", 0.4 * r }' </dev/null)
SIMBLAS_HOST_FACTORS=$WORK/factors run_platform p1f "$SLOW0,$SLOW1" p1 "$SLOW0,$SLOW1M"

# ------------------------------------------------------------- 2x vs 1x
if [ -f "$WORK/p1.out" ] && [ -f "$WORK/p2.out" ]; then
  awk '
    FNR == 1 { file++ }
    $1 == "CALL" { key = $2 " " $3; if (file == 1) { d1[key] = $9; pr[key] = $8; sh[key] = $5 " " $6 " " $7; order[++nk] = key } else d2[key] = $9 }
    END {
      printf "  %-4s %-22s %-15s %-16s %-16s %-16s %s\n", "rank", "call", "canonical m n k", "predicted s", "1x delta s", "2x delta s", "2x/1x" > "/dev/stderr"
      for (i = 1; i <= nk; i++) {
        key = order[i]; split(key, kk, " ")
        if (!(key in d2)) { printf "FAIL ratio: %s missing from the 2x run\n", key; continue }
        ratio = d1[key] > 0 ? d2[key] / d1[key] : -1
        e = (ratio - 0.5) / 0.5; if (e < 0) e = -e
        printf "  %-4s %-22s %-15s %-16.9e %-16.9e %-16.9e %.15g\n", kk[1], kk[2], sh[key], pr[key], d1[key], d2[key], ratio > "/dev/stderr"
        if (e > 1e-6) printf "FAIL ratio: rank %s %s: 2x/1x = %.17g, expected 0.5\n", kk[1], kk[2], ratio
        else print "OK"
      }
      if (nk == 0) print "FAIL ratio: no CALL lines in the 1x run"
    }
  ' "$WORK/p1.out" "$WORK/p2.out" >"$WORK/ratio" 2>"$WORK/table"
  cat "$WORK/table"
  p=$(grep -c '^OK$' "$WORK/ratio")
  f=$(grep -c '^FAIL ' "$WORK/ratio")
  npass=$((npass + p))
  nfail=$((nfail + f))
  grep '^FAIL ' "$WORK/ratio"
  echo "every delta halves on hosts twice as fast: $p passed, $f failed"
fi

# ------------------------------------------------- outside smpirun
cat >"$WORK/nompi.c" <<'EOF'
/* a plain program calling dgemm_: no MPI, no smpirun */
#include <stddef.h>
#include <stdio.h>
void dgemm_(const char *, const char *, const int *, const int *, const int *, const double *, const double *,
            const int *, const double *, const int *, const double *, double *, const int *, size_t, size_t);
int main(void)
{
  static double a[4], b[4], c[4];
  const int n = 2;
  const double one = 1, zero = 0;
  dgemm_("N", "N", &n, &n, &n, &one, a, &n, b, &n, &zero, c, &n, 1, 1);
  puts("dgemm_ returned");
  return 0;
}
EOF
# shellcheck disable=SC2086
if "$CC" -o "$WORK/nompi" "$WORK/nompi.c" $LINK >"$WORK/nompi-build.log" 2>&1; then
  rc=0
  { ( cd "$WORK" && exec env -u SIMBLAS_MODE timeout -k 5 30 ./nompi ) >"$WORK/nompi.out" 2>"$WORK/nompi.err"; } 2>/dev/null || rc=$?
  nlines=$(wc -l <"$WORK/nompi.err")
  msg=$(head -n 1 "$WORK/nompi.err")
  if [ "$rc" -eq 0 ] || [ "$rc" -ge 124 ]; then
    bad "outside smpirun, SIMBLAS_MODE unset: exit status $rc, expected a clean non-zero exit (not a crash or a timeout)"
    show "$WORK/nompi.err" 5
  elif [ "$nlines" -ne 1 ] || ! grep -q 'SIMBLAS_MODE' "$WORK/nompi.err"; then
    bad "outside smpirun, SIMBLAS_MODE unset: expected one line naming SIMBLAS_MODE on stderr, got $nlines lines"
    show "$WORK/nompi.err" 5
  elif grep -q 'dgemm_ returned' "$WORK/nompi.out"; then
    bad "outside smpirun, SIMBLAS_MODE unset: dgemm_ returned"
  else
    ok
    echo "outside smpirun, SIMBLAS_MODE unset: exit status $rc, \"${msg:0:110}...\""
  fi
  rc=0
  { ( cd "$WORK" && exec env SIMBLAS_MODE=null timeout -k 5 30 ./nompi ) >"$WORK/nompi.out" 2>"$WORK/nompi.err"; } 2>/dev/null || rc=$?
  if [ "$rc" -eq 0 ] && grep -q 'dgemm_ returned' "$WORK/nompi.out"; then
    ok
    echo "outside smpirun, SIMBLAS_MODE=null: runs (exit status 0)"
  else
    bad "outside smpirun, SIMBLAS_MODE=null: exit status $rc, expected 0"
    show "$WORK/nompi.err" 5
  fi
  # a bad SIMBLAS_HOST_FACTORS file: one line naming the file and the line
  for bad in "host0 0.5\nhost1" "host0 -1" "host0 0.5\nhost0 0.6" "host0 0.5 extra" "host0 0.5 0" \
             "host0 0.5 0.4 0.3" "host0 0.5 0.4x"; do
    printf "$bad\n" >"$WORK/badfactors"
    rc=0
    { ( cd "$WORK" && exec env SIMBLAS_MODE=null SIMBLAS_HOST_FACTORS="$WORK/badfactors" timeout -k 5 30 ./nompi ) \
      >"$WORK/nompi.out" 2>"$WORK/nompi.err"; } 2>/dev/null || rc=$?
    if [ "$rc" -ne 0 ] && [ "$rc" -lt 124 ] && [ "$(wc -l <"$WORK/nompi.err")" -eq 1 ] &&
       grep -q "badfactors" "$WORK/nompi.err" && ! grep -q 'dgemm_ returned' "$WORK/nompi.out"; then
      ok
      echo "SIMBLAS_HOST_FACTORS '$bad': $(cat "$WORK/nompi.err")"
    else
      bad "SIMBLAS_HOST_FACTORS '$bad': exit status $rc, expected one line naming the file"
      show "$WORK/nompi.err" 5
    fi
  done
else
  bad "$CC could not build the plain dgemm_ program"
  show "$WORK/nompi-build.log" 20
fi

echo "$npass passed, $nfail failed"
[ "$nfail" -eq 0 ]
