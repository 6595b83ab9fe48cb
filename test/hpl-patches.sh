#!/bin/sh
# hpl-patches.sh -- the HPL patch series of hpl-patches/, end to end:
#
#  (a) gets HPCC's sources as a fresh Debian machine would: `apt-get source
#      --download-only hpcc` into the cache directory
#      ${SIMBLAS_HPL_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/simblas/hpl}
#      (once; the .debian.tar.* may fail to download, only the
#      hpcc_*.orig.tar.gz is needed, checked against the .dsc when there);
#  (b) applies series then series.hpcc to a fresh hpcc-*/hpl, each patch
#      with `patch -p1 --fuzz=0 --dry-run` then for real: no reject, no
#      fuzz (offsets are fine and reported);
#  (c) does the same with series on HPL 2.3 if one is given: HPL23_DIR (a
#      pristine tree) or HPL_TARBALL (hpl-2.3.tar.gz); skipped otherwise;
#  (d) builds the patched hpcc tree with hpl-patches/Make.simblas.in twice:
#      - plain (no SIMBLAS_HPL) with smpicc and OpenBLAS, and runs
#        `smpirun -np 4` N=2000 NB=128 P=Q=2: the residual check PASSED
#        (the patched tree is still a real HPL);
#      - with -DSIMBLAS_HPL against the SimBLAS build SB_BUILDDIR
#        (.libs/libsimblas.so, models/default.model; header from
#        SB_SRCDIR/include), if that library has simblas_fold_malloc
#        (skipped otherwise), and runs N=4000 NB=128 P=Q=2 on hosts as fast
#        as the model's reference-speed: HPL's result line with Gflops > 0,
#        the "SimBLAS simulated run" line, no PASSED or FAILED.
#
# Environment: SB_SRCDIR (default: this script's ..), SB_BUILDDIR,
# SIMBLAS_HPL_CACHE, HPL23_DIR, HPL_TARBALL, HPL_REAL_BLASDIR (default
# /usr/lib/x86_64-linux-gnu/openblas-pthread), KEEP_TMP=1 keeps the work
# directory.  Output: one line per check, then "N passed, N failed".
# Exit status: 0 if nothing failed, 1 otherwise, 77 (skip) when smpicc,
# smpirun, patch, make or the hpcc sources are not available.
# About 40 s: two HPL builds of about 15 s each.
set -u
SB_SRCDIR=${SB_SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}
pd=$SB_SRCDIR/hpl-patches
cache=${SIMBLAS_HPL_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/simblas/hpl}
blasdir=${HPL_REAL_BLASDIR:-/usr/lib/x86_64-linux-gnu/openblas-pthread}
pass=0 fail=0
skip() { echo "SKIP: $1"; }
. "$SB_SRCDIR/test/strict.sh"  # ok, ko, missing, need

for t in smpicc smpirun patch make tar; do
  command -v $t > /dev/null 2>&1 || missing "$t not found: nothing tested"
done
for f in series series.hpcc Make.simblas.in; do
  [ -f "$pd/$f" ] || { echo "FAIL: $pd/$f is missing"; echo "0 passed, 1 failed"; exit 1; }
done

tmp=$(mktemp -d "${TMPDIR:-/tmp}/hpl-patches.XXXXXX") || exit 1
if [ -n "${KEEP_TMP:-}" ]; then echo "work directory: $tmp"
else trap 'rm -rf "$tmp"' EXIT; trap 'exit 1' INT TERM HUP; fi

# ---- (a) HPCC's sources -----------------------------------------------------
mkdir -p "$cache" 2> /dev/null
orig() { ls "$cache"/hpcc_*.orig.tar.* 2> /dev/null | tail -n 1; }
if [ -z "$(orig)" ]; then
  if command -v apt-get > /dev/null 2>&1; then
    echo "downloading hpcc's sources into $cache (apt-get source --download-only hpcc)"
    (cd "$cache" && apt-get source --download-only hpcc) > "$tmp/apt.log" 2>&1 \
      || sed 's/^/  apt-get: /' "$tmp/apt.log" | grep -E 'E:|W:' | head -n 5
  fi
fi
tarball=$(orig)
if [ -z "$tarball" ]; then
  missing "no hpcc_*.orig.tar.* in $cache and apt-get source could not get one (network, deb-src)"
fi
dsc=$(ls "$cache"/hpcc_*.dsc 2> /dev/null | tail -n 1)
if [ -n "$dsc" ] && command -v sha256sum > /dev/null 2>&1; then
  want=$(awk -v f="$(basename "$tarball")" '/^Checksums-Sha256:/ { s = 1; next } /^[^ ]/ { s = 0 }
                                            s && $3 == f { print $1 }' "$dsc")
  got=$(sha256sum < "$tarball" | cut -d' ' -f1)
  if [ -n "$want" ]; then
    [ "$want" = "$got" ] && ok "$(basename "$tarball") matches $(basename "$dsc")" \
      || { ko "$(basename "$tarball"): sha256 $got, $(basename "$dsc") says $want (delete it to download again)"; }
  fi
fi
mkdir "$tmp/hpcc"
if ! tar -xf "$tarball" -C "$tmp/hpcc" 2> "$tmp/tar.log"; then
  ko "cannot extract $tarball: $(head -n 1 "$tmp/tar.log")"
  echo "$pass passed, $fail failed"; exit 1
fi
hpcc=$(ls -d "$tmp"/hpcc/*/hpl 2> /dev/null | head -n 1)
[ -n "$hpcc" ] && [ -f "$hpcc/Make.top" ] || { ko "no */hpl/Make.top in $tarball"; echo "$pass passed, $fail failed"; exit 1; }
echo "hpcc: $tarball"

# ---- (b), (c) applying ----------------------------------------------------------
# apply_series NAME TREE SERIES...: every patch dry-run, then for real
apply_series() {
  name=$1 tree=$2; shift 2
  bad=0 offsets=""
  for s in "$@"; do
    for p in $(awk '!/^#/ && NF { print $1 }' "$pd/$s"); do
      for mode in --dry-run real; do
        [ $mode = real ] && mode=
        out=$(patch -d "$tree" -p1 --fuzz=0 --no-backup-if-mismatch --batch --forward $mode < "$pd/$p" 2>&1)
        rc=$?
        if [ $rc -ne 0 ] || echo "$out" | grep -qiE 'fuzz|FAILED|reject|malformed|Reversed|ignored|missing header'; then
          ko "$name: $p ${mode:-applied}: $(echo "$out" | grep -v '^patching file' | head -n 3 | tr '\n' ' ')"
          bad=1; break 3
        fi
      done
      o=$(echo "$out" | grep -c 'offset')
      [ "$o" -gt 0 ] && offsets="$offsets $p:$o"
    done
  done
  if [ $bad -eq 0 ]; then
    rej=$(find "$tree" -name '*.rej' -o -name '*.orig' | head -n 3)
    if [ -n "$rej" ]; then ko "$name: leftovers: $rej"
    else ok "$name: $* applied, no fuzz, no reject${offsets:+ (hunks with offsets:$offsets)}"; fi
  fi
  return $bad
}

apply_series "hpcc $(basename "$(dirname "$hpcc")")/hpl" "$hpcc" series series.hpcc
hpcc_ok=$?

hpl23=""
if [ -n "${HPL23_DIR:-}" ]; then
  mkdir "$tmp/hpl23" && cp -R "$HPL23_DIR" "$tmp/hpl23/" && hpl23=$(ls -d "$tmp"/hpl23/*)
elif [ -n "${HPL_TARBALL:-}" ]; then
  mkdir "$tmp/hpl23" && tar -xf "$HPL_TARBALL" -C "$tmp/hpl23" && hpl23=$(ls -d "$tmp"/hpl23/*)
fi
if [ -n "$hpl23" ] && [ -f "$hpl23/Make.top" ]; then
  apply_series "HPL 2.3 ($(basename "$hpl23"))" "$hpl23" series
elif [ -n "${HPL23_DIR:-}${HPL_TARBALL:-}" ]; then
  ko "HPL23_DIR/HPL_TARBALL (${HPL23_DIR:-}${HPL_TARBALL:-}) is not an HPL tree"
else
  skip "HPL 2.3: set HPL23_DIR (pristine tree) or HPL_TARBALL (hpl-2.3.tar.gz) to check it"
fi

if [ $hpcc_ok -ne 0 ]; then
  echo "$pass passed, $fail failed"; exit 1
fi

# ---- (d) builds and runs ------------------------------------------------------
# make_arch ARCH INCDIR LIBDIR LALIB DEFS: bin/ARCH/xhpl in the hpcc tree
make_arch() {
  sed -e "s|@TOPDIR@|$hpcc|" -e "s|@ARCH@|$1|" -e "s|@SIMBLAS_INCDIR@|$2|" \
      -e "s|@SIMBLAS_LIBDIR@|$3|" -e "s|@LALIB@|$4|" -e "s|@HPL_DEFS_EXTRA@|$5|" \
      "$pd/Make.simblas.in" > "$hpcc/Make.$1"
  # HPL's top Makefile is not parallel-safe: no -j, no jobserver from make
  # check; and the compilers without the sanitizer build's preloaded
  # runtimes (instrumenting nothing, they made the two builds 300 s long)
  if (cd "$hpcc" && env -u LD_PRELOAD MAKEFLAGS='' MFLAGS='' MAKELEVEL='' make arch="$1") > "$tmp/build-$1.log" 2>&1 \
     && [ -x "$hpcc/bin/$1/xhpl" ]; then
    ok "build $1: $(grep -c -- ' -c ' "$tmp/build-$1.log") files compiled, bin/$1/xhpl linked"
    return 0
  fi
  ko "build $1: see the end of its log:"; tail -n 15 "$tmp/build-$1.log" | sed 's/^/  /'
  return 1
}

# run_xhpl DIR XHPL SPEED N NB [env...]: 2x2 run in DIR, output in DIR/out, DIR/err
run_xhpl() {
  d=$1 x=$2 speed=$3 n=$4 nb=$5; shift 5
  mkdir -p "$d/smpitmp"
  cat > "$d/HPL.dat" <<EOF
HPLinpack benchmark input file
SimBLAS test/hpl-patches.sh
HPL.out      output file name (if any)
6            device out (6=stdout,7=stderr,file)
1            # of problems sizes (N)
$n         Ns
1            # of NBs
$nb          NBs
0            PMAP process mapping (0=Row-,1=Column-major)
1            # of process grids (P x Q)
2            Ps
2            Qs
16.0         threshold
1            # of panel fact
2            PFACTs (0=left, 1=Crout, 2=Right)
1            # of recursive stopping criterium
4            NBMINs (>= 1)
1            # of panels in recursion
2            NDIVs
1            # of recursive panel fact.
1            RFACTs (0=left, 1=Crout, 2=Right)
1            # of broadcast
1            BCASTs (0=1rg,1=1rM,2=2rg,3=2rM,4=Lng,5=LnM)
1            # of lookahead depth
1            DEPTHs (>=0)
2            SWAP (0=bin-exch,1=long,2=mix)
64           swapping threshold
0            L1 in (0=transposed,1=no-transposed) form
0            U  in (0=transposed,1=no-transposed) form
1            Equilibration (0=no,1=yes)
8            memory alignment in double (> 0)
EOF
  cat > "$d/platform.xml" <<EOF
<?xml version='1.0'?>
<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">
<platform version="4.1">
  <zone id="world" routing="Full">
    <cluster id="c" prefix="node-" suffix="" radical="0-3" speed="${speed}f" bw="10Gbps" lat="24us"/>
  </zone>
</platform>
EOF
  printf 'node-%d\n' 0 1 2 3 > "$d/hosts"
  # smpirun's -tmpdir is broken in SimGrid 3.32: TMPDIR instead
  t0=$(date +%s.%N)
  # SMPI's dlopen privatization uses RTLD_DEEPBIND, which AddressSanitizer
  # refuses: in the sanitizer build, build but do not run (the plain
  # build's make check runs them)
  case "${LD_PRELOAD:-}" in *libasan*) wall=0; return 77 ;; esac
  (cd "$d" && env TMPDIR="$d/smpitmp" "$@" timeout 300 smpirun -np 4 -platform platform.xml \
     -hostfile hosts --cfg=smpi/display-timing:yes "$x") > "$d/out" 2> "$d/err"
  rc=$?
  t1=$(date +%s.%N)
  wall=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }')
  return $rc
}

# summary DIR: "Time T s, G Gflops, simulated S s, wall W s"
summary() {
  awk '/^W[RC]/ { printf "HPL: N=%s NB=%s %sx%s, Time %s s, %s Gflops; ", $2, $3, $4, $5, $6, $7 }' "$1/out"
  sed -n 's/.*Simulated time: \([0-9.e+-]*\) seconds.*/simulated time \1 s; /p' "$1/err" | tr -d '\n'
  echo "wall $wall s"
}
wr_ok() { awk '/^W[RC]/ && $7 + 0 > 0 { f = 1 } END { exit !f }' "$1/out"; }

# -- plain build: the patched tree is still the real HPL
if [ -f "$blasdir/libopenblas.so" ]; then
  if make_arch sbreal "" "" "-L$blasdir -Wl,-rpath,$blasdir -lopenblas" ""; then
    d=$tmp/run-real
    run_xhpl "$d" "$hpcc/bin/sbreal/xhpl" 1e+10 2000 128 OPENBLAS_NUM_THREADS=1; rc=$?
    [ $rc -ne 77 ] && echo "  real:    $(summary "$d")"
    if [ $rc -eq 77 ]; then
      skip "plain build runs: not under AddressSanitizer (SMPI's RTLD_DEEPBIND)"
    elif [ $rc -eq 0 ] && wr_ok "$d" && grep -q 'PASSED' "$d/out" && ! grep -q 'FAILED' "$d/out"; then
      ok "plain build, N=2000 NB=128 2x2: residual check PASSED"
    else
      ko "plain build, N=2000 NB=128 2x2 (rc $rc):"; tail -n 12 "$d/out" "$d/err" | sed 's/^/  /'
    fi
  fi
else
  need "plain build: no $blasdir/libopenblas.so (set HPL_REAL_BLASDIR)"
fi

# -- SimBLAS build
lib=${SB_BUILDDIR:-}/.libs/libsimblas.so
model=${SB_BUILDDIR:-}/models/default.model
if [ -z "${SB_BUILDDIR:-}" ] || [ ! -f "$lib" ]; then
  need "SimBLAS build: no SB_BUILDDIR with .libs/libsimblas.so"
elif ! nm -D "$lib" 2> /dev/null | grep -qE ' [TW] simblas_fold_malloc$'; then
  need "SimBLAS build: $lib has no simblas_fold_malloc yet"
elif [ ! -f "$SB_SRCDIR/include/simblas.h" ] || [ ! -f "$model" ]; then
  need "SimBLAS build: no $SB_SRCDIR/include/simblas.h or $model"
else
  libdir=$(cd "$SB_BUILDDIR/.libs" && pwd)
  if make_arch sbsim "$SB_SRCDIR/include" "$libdir" '-L$(SIMBLAS_LIBDIR) -Wl,-rpath,$(SIMBLAS_LIBDIR) -lsimblas' -DSIMBLAS_HPL; then
    speed=$(awk '$1 == "reference-speed" { print $2 }' "$model")
    d=$tmp/run-simblas
    run_xhpl "$d" "$hpcc/bin/sbsim/xhpl" "${speed:-1e+10}" 4000 128 SIMBLAS_MODEL="$model"; rc=$?
    [ $rc -ne 77 ] && echo "  SimBLAS: $(summary "$d")"
    if [ $rc -eq 77 ]; then
      skip "SimBLAS build runs: not under AddressSanitizer (SMPI's RTLD_DEEPBIND)"
    elif [ $rc -ne 0 ]; then
      ko "SimBLAS build, N=4000 NB=128 2x2: smpirun exit status $rc:"; tail -n 12 "$d/out" "$d/err" | sed 's/^/  /'
    else
      ok "SimBLAS build, N=4000 NB=128 2x2: smpirun succeeded"
      wr_ok "$d" && ok "SimBLAS run: HPL's result line with Gflops > 0" \
        || ko "SimBLAS run: no result line with Gflops > 0"
      grep -q '^SimBLAS simulated run: matrix not generated, residual not computed' "$d/out" \
        && ok "SimBLAS run: says it was simulated" || ko "SimBLAS run: no 'SimBLAS simulated run' line"
      grep -qE 'PASSED|FAILED' "$d/out" && ko "SimBLAS run: prints PASSED or FAILED" \
        || ok "SimBLAS run: no PASSED/FAILED verdict"
      grep -q 'tests completed without checking' "$d/out" \
        && ok "SimBLAS run: summary 'tests completed without checking'" \
        || ko "SimBLAS run: summary does not say 'tests completed without checking'"
    fi
  fi
fi

echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
