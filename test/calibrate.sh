#!/bin/sh
# simblas-calibrate end to end, kept short (a few seconds of measuring):
#  - bad options and unwritable outputs: one clear error, exit 2;
#  - the model it writes is read back by libsimblas with the same
#    predictions it computed itself (round trip);
#  - --summary checks a model as libsimblas reads it and prints one line
#    per routine and precision;
#  - models and reports are world-readable whatever the umask; a full
#    disk is said before measuring; a model that cannot be put in place
#    is kept elsewhere;
#  - an interrupted calibration (SIGINT, SIGKILL) leaves the previous
#    model byte-identical, and the next run removes a killed one's
#    temporary.
set -u
. "${SB_SRCDIR:-$(dirname "$0")/..}/test/strict.sh"
bld=${SB_BUILDDIR:-.}
cal=$bld/calibrator/simblas-calibrate
pred=$bld/test/predict_prog
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0

expect_error() { # what pattern args...
  what=$1 pat=$2; shift 2
  out=$("$cal" "$@" 2>&1); rc=$?
  if [ $rc -eq 2 ] && echo "$out" | grep -q -- "$pat"; then ok "$what"; else ko "$what: rc=$rc: $out"; fi
}
expect_error "unknown option" "unknown or incomplete option '--frobnicate' (simblas-calibrate --help lists the options)" --frobnicate
expect_error "bad number" "--budget needs seconds per core from 0.1 to 86400 (a day), not 'soon'" --budget soon
expect_error "one repetition" "--reps needs a whole number of repetitions from 2 to 1000, not '1'" --reps 1 -o "$tmp/x.model"
expect_error "unwritable directory" "cannot write the model into /nonexistent/dir" -o /nonexistent/dir/m.model
expect_error "output is a directory" "$tmp: a directory; give a file name, e.g. $tmp/simblas.model" -o "$tmp"
expect_error "unknown routine" "unknown routine 'dgemx'" --routines dgemx -o "$tmp/x.model"
expect_error "missing BLAS" "cannot load the BLAS to measure" --blas /nonexistent/libblas.so -o "$tmp/x.model"
expect_error "bad --ld-pairs" "--ld-pairs needs a whole number of rounds from 0 (none) to 1000, not 'many'" --ld-pairs many
expect_error "bad --solo-rounds" "--solo-rounds needs a whole number of rounds from 0 (none) to 1000, not '-1'" --solo-rounds -1
expect_error "summary of a non-model" "/etc/hostname:1: not a SimBLAS model file" --summary /etc/hostname
# --summary reads a model as libsimblas does: a file it refuses is refused
printf 'simblas-model 1\nreference-speed 1e10\ndgemm mnk=1e-11 | 1=1 | 2=2\nend\n' > "$tmp/bad.model"
expect_error "summary of a broken model" "$tmp/bad.model:3: a second '|' in the line of dgemm" --summary "$tmp/bad.model"
out=$("$cal" --summary "$SIMBLAS_MODEL" 2>&1 >/dev/null); rc=$?
if [ $rc -eq 0 ] && echo "$out" | grep -q "is a valid model without quality figures"; then ok "summary of the nominal model: valid, no figures"
else ko "summary of the nominal model: rc=$rc: $out"; fi
[ ! -e "$tmp/x.model" ] && ok "no model written by failed runs" || ko "a failed run wrote a model"

# a short calibration of a few routines
routines=dgemm,dtrsm,daxpy,idamax,dgemv,zgemm,sdot
if "$cal" --quick --budget 2 --ld-pairs 3 --solo-rounds 2 --force --routines $routines -o "$tmp/m.model" > "$tmp/cal.out" 2> "$tmp/cal.err"; then
  ok "short calibration ran ($(grep -o 'in [0-9.]* s wall time' "$tmp/cal.err"))"
else
  ko "short calibration failed: $(tail -3 "$tmp/cal.err")"
fi
grep -q "^reference-speed" "$tmp/m.model" && grep -q "^meta backend" "$tmp/m.model" && grep -q "^meta machine" "$tmp/m.model" \
  && grep -q "^meta topology" "$tmp/m.model" && grep -q "^meta date" "$tmp/m.model" && tail -1 "$tmp/m.model" | grep -qx end \
  && ok "model records machine, topology, backend, date, reference speed" || ko "model header incomplete"
grep -q "^wall\|wall time" "$tmp/cal.err" && ok "wall time printed" || ko "no wall time"
# each timed pass's speed, in order: --quick's 3 of them, their harmonic mean 1 (each is the passes' mean total over its own)
speeds=$(sed -n "s/.*each pass's speed against their mean, in order: \([0-9. ]*\)).*/\1/p" "$tmp/cal.err")
if echo "$speeds" | awk 'NF == 3 { for (i = 1; i <= 3; i++) { if ($i <= 0) exit 1; h += 1 / $i } exit !(h / 3 > 0.998 && h / 3 < 1.002) } { exit 1 }'
then ok "the passes' speeds, in order: $speeds"; else ko "the passes' speeds: '$speeds' in $(grep repetitions "$tmp/cal.err")"; fi

# dgemm's leading-dimension pairs (--ld-pairs 3; none by default with
# --quick): three factors, at lld/8, lld/4 and lld/2, in the model as its
# @ld line when said kept, else no @ld line for dgemm
pl=$(grep "dgemm at other leading dimensions, side by side" "$tmp/cal.err")
lld=$(echo "$pl" | sed -n 's/.*the same calls at \([0-9]*\) rows.*/\1/p')
if [ -n "$lld" ] && echo "$pl" | grep -q "at $((lld / 8)) rows, [0-9.]* at $((lld / 4)) rows, [0-9.]* at $((lld / 2)) rows; "; then
  if echo "$pl" | grep -q "kept (its @ld line)"; then
    grep -q "^dgemm@ld $((lld / 8)):[0-9.e-]* $((lld / 4)):[0-9.e-]* $((lld / 2)):[0-9.e-]* $lld:1$" "$tmp/m.model" \
      && ok "ld pairs kept as dgemm@ld: $pl" || ko "ld pairs said kept, model: $(grep '^dgemm@ld' "$tmp/m.model")"
  else
    ! grep -q "^dgemm@ld" "$tmp/m.model" && ok "ld pairs not kept, no dgemm@ld: $pl" || ko "ld pairs said not kept, yet a dgemm@ld line"
  fi
else ko "ld pairs: '$pl'"; fi
# the solo pairs (--solo-rounds 2): dgemm on core 0 alone against every
# core busy, said and written as meta solo_speed (simblas-hpl run's hosts
# with idle cores): the median measured, or 1 when said to be no gain
# beyond its noise; no row interchanges measured here, so no
# solo_speed_memory; on one core none at all
line=$(grep "one core alone ran dgemm (m = n = [0-9]*, k = 128) [0-9.]*% [a-z]* than with every core busy (median of 2 rounds, +-[0-9.]*%; alone [0-9.]* ms a call): " "$tmp/cal.err")
said=$(echo "$line" | sed -n 's/.*meta solo_speed \([0-9.]*\)$/\1/p')
cores=$(awk '$1 == "meta" && $2 == "cores" { print $3 }' "$tmp/m.model")
if [ "${cores:-1}" -lt 2 ]; then
  ! grep -q "^meta solo_speed" "$tmp/m.model" && ok "one core: no solo pairs" || ko "one core, yet $(grep '^meta solo' "$tmp/m.model")"
elif [ -n "$said" ] && grep "^meta solo_speed " "$tmp/m.model" | awk -v s="$said" '{ exit !($3 == s) }' \
     && grep -q "^meta solo_speed [0-9.]* \"simblas-calibrate: dgemm at m = n = [0-9]*, k = 128 on core 0 alone against all $cores cores busy, the median of 2 rounds [0-9.]* +- [0-9.]*\(, within its noise\)\?\"$" "$tmp/m.model" \
     && { [ "$said" != 1 ] || echo "$line" | grep -q "no gain beyond its noise"; } \
     && ! grep -q "^meta solo_speed_memory" "$tmp/m.model"; then
  ok "solo pairs: meta solo_speed $said, said and written"
elif echo "$line" | grep -q "outside 0.8-1.5, a measurement gone wrong, not written" && ! grep -q "^meta solo_speed" "$tmp/m.model"; then
  ok "solo pairs: out of range, said and not written (a disturbed machine)"
else ko "solo pairs: said '$line', model: $(grep '^meta solo' "$tmp/m.model")"; fi

# --lld 8192 here and in the checks below that do not depend on the local
# matrix: 750 MB per core rather than 1.6 GB (dgemm's reference calls need
# 4,096 columns), as first touching memory costs seconds in a VM
"$cal" --quick --budget 1 --force --routines dgemm --lld 8192 --solo-rounds 0 --no-report -o "$tmp/np.model" 2> "$tmp/np.err" \
  && ! grep -q "other leading dimensions" "$tmp/np.err" && ! grep -q "^dgemm@ld" "$tmp/np.model" \
  && ! grep -q "alone" "$tmp/np.err" && ! grep -q "^meta solo" "$tmp/np.model" \
  && ok "--quick: no ld pairs, no @ld line; --solo-rounds 0: no solo pairs" || ko "--quick without pairs: $(tail -3 "$tmp/np.err")"

# a BLAS with dgemm_ and no daxpy_ (a wrapper that opens OpenBLAS locally,
# so that dlsym finds no daxpy_ through it): the probe says that the
# level 1-2 rate is assumed, not that it measured one
cat > "$tmp/onlygemm.c" <<'EOC'
#include <dlfcn.h>
#include <stddef.h>
typedef void gemm_fn(const char *, const char *, const int *, const int *, const int *, const double *,
                     const double *, const int *, const double *, const int *, const double *, double *,
                     const int *, size_t, size_t);
void dgemm_(const char *ta, const char *tb, const int *m, const int *n, const int *k, const double *al,
            const double *a, const int *lda, const double *b, const int *ldb, const double *be, double *c,
            const int *ldc, size_t la, size_t lb)
{
  static gemm_fn *f;
  if (!f)
    f = (gemm_fn *)dlsym(dlopen("libopenblas.so.0", RTLD_NOW | RTLD_LOCAL), "dgemm_");
  f(ta, tb, m, n, k, al, a, lda, b, ldb, be, c, ldc, la, lb);
}
EOC
if ${CC:-cc} -shared -fPIC -o "$tmp/libonlygemm.so" "$tmp/onlygemm.c" -ldl 2> "$tmp/cc.err"; then
  if "$cal" --quick --force --budget 1 --cores 1 --routines dgemm --lld 8192 --solo-rounds 0 --no-report \
       --blas "$tmp/libonlygemm.so" -o "$tmp/og.model" 2> "$tmp/og.err" \
     && grep -q "(probe: dgemm [0-9.]* GFlop/s, no daxpy_ in this BLAS, 1 GFlop/s assumed)" "$tmp/og.err"; then
    ok "a BLAS without daxpy_: the probe says its rate is assumed"
  else ko "a BLAS without daxpy_: $(grep -m1 probe "$tmp/og.err" || tail -2 "$tmp/og.err")"; fi
else ko "the dgemm-only wrapper did not build: $(head -3 "$tmp/cc.err")"; fi

# --summary: <routine> <prec> n=<k> r2=<x> median_rel_err=<x> p95_rel_err=<x>
"$cal" --summary "$tmp/m.model" > "$tmp/sum"
bad=$(grep -cvE '^[A-Za-z0-9._]+ [a-z]+ n=[0-9]+ r2=[-0-9.]+ median_rel_err=[0-9.]+ p95_rel_err=[0-9.]+$' "$tmp/sum")
grep -q '^gemm d ' "$tmp/sum" && grep -q '^gemm z ' "$tmp/sum" && grep -q '^iamax d ' "$tmp/sum" && grep -q '^dot s ' "$tmp/sum" \
  && [ "$bad" -eq 0 ] && ok "--summary: $(wc -l < "$tmp/sum") lines in the documented format" || ko "--summary output: $(cat "$tmp/sum")"

# round trip: libsimblas predicts what the calibrator predicted
if [ -f "$tmp/m.model.report/dgemm.dat" ]; then
  for r in dgemm dtrsm daxpy; do
    awk '!/^#/ { print $8, $5, $6, $7, $9 }' "$tmp/m.model.report/$r.dat" > "$tmp/$r.in"
    awk '!/^#/ { print $3 }' "$tmp/m.model.report/$r.dat" > "$tmp/$r.want"
    SIMBLAS_MODE=null SIMBLAS_MODEL=$tmp/m.model "$pred" < "$tmp/$r.in" > "$tmp/$r.got"
    n=$(wc -l < "$tmp/$r.want")
    worst=$(paste "$tmp/$r.want" "$tmp/$r.got" | awk '{ d = $1 - $2; if (d < 0) d = -d; r = $1 > 0 ? d / $1 : d; if (r > w) w = r } END { printf "%.2g", w + 0 }')
    if [ "$n" -gt 0 ] && awk -v w="$worst" 'BEGIN { exit !(w < 1e-7) }'; then ok "round trip $r: $n shapes, worst relative difference $worst"
    else ko "round trip $r: $n shapes, worst relative difference $worst"; fi
  done
else
  ko "no report to compare predictions with"
fi

# dgemm anchored to the reference speed: libsimblas's dgemm at the
# reference calls' shape runs at the model's reference speed (to its six
# digits), and the meta line says by how much the fitted lines moved
shape=$(sed -n 's/^meta reference_speed "measured: dgemm m=\([0-9]*\) n=\([0-9]*\) k=\([0-9]*\).*/\1 \2 \3/p' "$tmp/m.model")
scale=$(sed -n 's/^meta dgemm_scale \([0-9.]*\) "scaled to the reference speed: .*/\1/p' "$tmp/m.model")
if [ -n "$shape" ] && [ -n "$scale" ]; then
  t=$(echo "dgemm $shape" | SIMBLAS_MODE=null SIMBLAS_MODEL=$tmp/m.model "$pred")
  ref=$(sed -n 's/^reference-speed //p' "$tmp/m.model")
  if echo "$shape $t $ref" | awk '{ r = 2 * $1 * $2 * $3 / $4 / $5; exit !(r > 0.9999 && r < 1.0001) }'; then
    ok "dgemm anchored: the line runs at the reference speed at m n k = $shape (fitted lines scaled by $scale)"
  else ko "dgemm anchored: at $shape the line takes $t s, the reference speed is $ref"; fi
elif [ -n "$shape" ] && grep -q '^meta dgemm_scale 1.0000 "not scaled: ' "$tmp/m.model" \
     && grep -q "dgemm's fitted lines give .* Gflop/s at the reference shape, where .* were measured: not scaled" "$tmp/cal.err"; then
  ok "dgemm not anchored, as said: $(grep -o "dgemm's fitted lines give.*measured" "$tmp/cal.err")"
else ko "no measured reference shape or no dgemm_scale line: $(grep '^meta \(reference_speed\|dgemm_scale\)' "$tmp/m.model")"; fi

# a loaded machine: another process spinning on the worker's core takes
# about half of it; the calls it interrupts are timed in the thread's CPU
# time, so the times the model is fitted to do not hold the time it took.
# Two checks, chosen from measurements (2-core EPYC VM shared with other
# builds, load average 7-8, 2026-11-25, another calibration looping on the
# other core as a concurrent test):
#  1. within the busy run, the dgemm shapes of 2 ms or more (each call
#     interrupted: the spinner's time slices are a few ms), measured
#     against the model fitted to the same run: whatever the rest of the
#     machine does moves both, the stolen time, were it counted, only the
#     measurements.  The median of measured/predicted: counted (times by
#     the wall clock alone) 3.6-4.4 in four runs, in CPU time 0.92-1.05 in
#     ten (13-25 shapes each).  The bound, 1.4, is far from both.  The spinner starts once the measuring does: a probe it
#     slows sizes a design of short calls (dgemm probed at 4.1 instead of
#     40 Gflop/s), which it rarely interrupts.
#  2. the busy model against an idle run's, as the geometric mean of their
#     ratios at six in-range shapes (the reference speed extrapolates to
#     4096^3 and varies more): two runs seconds apart on a shared machine
#     differ by 0.80-1.14 whatever is timed, so the bound is loose,
#     0.7-1.43: a gross distortion either way.
# The first version compared the reference speeds within 0.85-1.25 and
# failed at 0.848 with another test alongside; counting the stolen time
# moves a model that the fit's relative weights pull toward the fastest
# times by only 16-35%, inside that noise: hence check 1.
cpu=$(sed -n 's/^Cpus_allowed_list:[[:space:]]*\([0-9]*\).*/\1/p' /proc/self/status)
if command -v taskset > /dev/null && [ -n "$cpu" ]; then
  short="--quick --budget 2 --cores 1 --routines dgemm,dtrsm,daxpy --lld 8192"
  taskset -c "$cpu" "$cal" $short --force --no-report -o "$tmp/idle.model" 2> "$tmp/idle.err"
  busy_run() { # name, options: a short calibration with a spinner on its core
    name=$1; shift
    : > "$tmp/$name.err"
    mkdir -p "$tmp/keep"
    (TMPDIR=$tmp/keep taskset -c "$cpu" "$cal" $short "$@" 2> "$tmp/$name.err"; echo $? > "$tmp/$name.rc") &
    busy=$!
    i=0; while ! grep -q 'repetitions on every core' "$tmp/$name.err" && [ $i -lt 300 ]; do sleep 0.02; i=$((i + 1)); done
    taskset -c "$cpu" sh -c 'while :; do :; done' &
    spin=$!
    wait $busy
    kill $spin
  }
  # more than 5% of the timed wall time taken: refused, the output left
  # as it was, the model measured kept aside (issue 23)
  printf 'simblas-model 1\n# previous\n' > "$tmp/refused.model" # a model: another file is refused as -o
  busy_run refused -o "$tmp/refused.model"
  kept=$(sed -n 's/.*the model measured is kept in \([^;]*\);.*/\1/p' "$tmp/refused.err")
  if [ "$(cat "$tmp/refused.rc")" = 1 ] && grep -q "refused: other processes took [0-9.]*% of the timed calls' wall time (more than 5%)" "$tmp/refused.err" \
     && [ "$(sed -n 2p "$tmp/refused.model")" = "# previous" ] && [ -f "$kept" ] && grep -q "^meta stolen_share 0\.[0-9]" "$kept"; then
    ok "busy core: refused, $tmp/refused.model left as it was, the model kept in \$TMPDIR ($(sed -n 's/^meta stolen_share //p' "$kept") taken)"
  else ko "busy core: not refused as it should be: rc=$(cat "$tmp/refused.rc"): $(tail -2 "$tmp/refused.err")"; fi
  busy_run busy --force -o "$tmp/busy.model"
  grep -q "installing the model anyway (--force)" "$tmp/busy.err" && [ "$(cat "$tmp/busy.rc")" = 0 ] \
    && ok "busy core: --force installs it" || ko "busy core: --force did not install it: $(tail -2 "$tmp/busy.err")"
  n=$(sed -n 's/^meta interrupted_calls //p' "$tmp/busy.model")
  if [ "${n:-0}" -gt 0 ] && grep -q "other processes interrupted $n of" "$tmp/busy.err"; then
    ok "busy core: $(grep -o 'interrupted.*wall time' "$tmp/busy.err")"
  else ko "busy core: interrupted calls not counted ($n): $(cat "$tmp/busy.err")"; fi
  long=$(awk '!/^#/ && $3 >= 2e-3 { print $2 / $3 }' "$tmp/busy.model.report/dgemm.dat" 2> /dev/null | sort -g |
         awk '{ a[NR] = $1 } END { if (NR >= 5) printf "%.2f of %d", (a[int((NR + 1) / 2)] + a[int(NR / 2) + 1]) / 2, NR }')
  if [ -z "$long" ]; then
    ko "busy core: fewer than 5 dgemm shapes of 2 ms or more to check: $(grep -o 'probe: [^)]*' "$tmp/busy.err")"
  elif awk -v q="${long% of *}" 'BEGIN { exit !(q < 1.4) }'; then
    ok "busy core: dgemm calls >= 2 ms measured/model, median $long (< 1.4; 3.6-4.4 with the stolen time counted)"
  else ko "busy core: dgemm calls >= 2 ms measured/model, median $long, not below 1.4: the stolen time was counted"; fi
  printf 'dgemm 256 256 256\ndgemm 512 512 512\ndgemm 1024 1024 128\ndgemm 1024 128 128\ndtrsm 128 1024 128\ndtrsm 384 384 384\n' > "$tmp/shapes"
  for w in idle busy; do SIMBLAS_MODE=null SIMBLAS_MODEL=$tmp/$w.model "$pred" < "$tmp/shapes" > "$tmp/$w.pred"; done
  g=$(paste "$tmp/idle.pred" "$tmp/busy.pred" | awk '$2 > 0 { s += log($1 / $2); n++ } END { if (n == 6) printf "%.3f", exp(s / n) }')
  if [ -n "$g" ] && awk -v g="$g" 'BEGIN { exit !(g > 0.7 && g < 1.43) }'; then
    ok "busy core: the model's dgemm and dtrsm speed $g of the idle one's (0.7-1.43)"
  else ko "busy core: the model's speed '$g' of the idle one's, outside 0.7-1.43"; fi
else
  need "taskset and an allowed-CPU list: the busy-core check needs one CPU to share"
fi

# installed data is world-readable: `make calibrate` under umask 077 (it
# installed the models with mode 0600, so only root could read them)
mk=${MAKE:-make}
if command -v "$mk" > /dev/null && [ -f "$bld/Makefile" ]; then
  (umask 077; env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL "$mk" -s -C "$bld" calibrate DESTDIR="$tmp/inst" \
     CALIBRATE_FLAGS="--quick --force --budget 1 --routines dgemm,daxpy --lld 8192 --solo-rounds 0") > "$tmp/make.out" 2>&1
  rc=$?
  modes=$(cd "$tmp/inst" 2>/dev/null && find . -path '*simblas/*' \( -name '*.model' -o -path '*.report*' \) -exec stat -c '%a %n' {} + | sort)
  bad=$(echo "$modes" | awk '$1 != ($2 ~ /\.report$/ ? "755" : "644")')
  if [ $rc -eq 0 ] && echo "$modes" | grep -q ' .*/default.model$' && echo "$modes" | grep -q 'calibrated.model.report/summary.txt' \
     && [ -z "$bad" ]; then ok "make calibrate under umask 077: $(echo "$modes" | wc -l) files, models 644, report 755/644"
  else ko "make calibrate under umask 077: rc=$rc, modes: $bad $(tail -3 "$tmp/make.out")"; fi
  if [ "$(id -u)" = 0 ] && command -v setpriv > /dev/null; then
    # the directories make made under umask 077 are not the point here
    chmod 755 "$tmp" && find "$tmp/inst" -type d -exec chmod 755 {} +
    m=$(find "$tmp/inst" -name default.model | head -1)
    if setpriv --reuid=65534 --regid=65534 --clear-groups "$cal" --summary "$m" > /dev/null 2>&1; then
      ok "another user reads the installed model"
    else ko "user 65534 cannot read $m: $(setpriv --reuid=65534 --regid=65534 --clear-groups "$cal" --summary "$m" 2>&1)"; fi
    chmod 700 "$tmp"
  fi
  # make install keeps a refinement: its hook installs refined.model (simblas-hpl refine writes it
  # beside the installed default.model) as default.model before calibrated.model; make calibrate,
  # a new calibration, removes it
  pd=$(dirname "$(find "$tmp/inst" -name calibrated.model | head -1)")
  if [ -f "$pd/calibrated.model" ]; then
    { cat "$pd/calibrated.model"; echo "# refined by the test"; } > "$pd/refined.model"
    env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL "$mk" -s -C "$bld" install-data DESTDIR="$tmp/inst" > "$tmp/inst.out" 2>&1
    rc=$?
    if [ $rc -eq 0 ] && cmp -s "$pd/default.model" "$pd/refined.model" && [ -f "$pd/nominal.model" ]; then
      ok "make install after a refine: default.model is refined.model"
    else ko "make install after a refine: rc=$rc, default.model is not refined.model $(tail -2 "$tmp/inst.out")"; fi
    env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL "$mk" -s -C "$bld" calibrate DESTDIR="$tmp/inst" \
      CALIBRATE_FLAGS="--quick --force --budget 1 --routines dgemm,daxpy --lld 8192 --solo-rounds 0" > "$tmp/make2.out" 2>&1
    env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL "$mk" -s -C "$bld" install-data DESTDIR="$tmp/inst" > "$tmp/inst.out" 2>&1
    if [ ! -e "$pd/refined.model" ] && cmp -s "$pd/default.model" "$pd/calibrated.model"; then
      ok "make calibrate drops the refinement; make install then installs calibrated.model"
    else ko "after make calibrate: refined.model $(ls "$pd/refined.model" 2>&1), default.model not calibrated.model"; fi
  else ko "make calibrate installed no calibrated.model under $tmp/inst"; fi
else
  need "make and the build tree, to run make calibrate"
fi

# a full disk is said before measuring, not after (it measured for the
# whole budget, then failed): the model's room is reserved first, and the
# report's is checked
if [ "$(id -u)" = 0 ] && command -v unshare > /dev/null && unshare -m true 2> /dev/null; then
  mkdir "$tmp/full"
  full() { # what args...: a 256 kB file system
    what=$1 pat=$2; shift 2
    out=$(unshare -m sh -c 'mount -t tmpfs -o size=256k tmpfs "$0" && exec "$@"' "$tmp/full" \
          "$cal" --quick --force --budget 30 "$@" -o "$tmp/full/m.model" 2>&1); rc=$?
    if [ $rc -eq 2 ] && echo "$out" | grep -q -- "$pat" && ! echo "$out" | grep -q 'repetitions on every core'; then
      ok "$what: said before measuring"
    else ko "$what: rc=$rc: $out"; fi
  }
  full "full disk, the model" "no room for the model in $tmp/full: it needs up to"
  full "full disk, the report" "no room for the report in $tmp/full: .* or add --no-report" --routines dgemm
else
  need "root and unshare -m, to mount a small file system"
fi

# a model that cannot be put in place at the end is kept elsewhere, not
# lost: its directory removed during the measuring
mkdir -p "$tmp/gone" "$tmp/keep.gone"  # not $tmp/keep, where the refused run's model is
TMPDIR=$tmp/keep.gone "$cal" --quick --force --budget 4 --routines dgemm --lld 8192 --solo-rounds 0 --no-report -o "$tmp/gone/m.model" > /dev/null 2> "$tmp/gone.err" &
pid=$!
sleep 1
rm -rf "$tmp/gone"
wait $pid; rc=$?
kept=$(ls "$tmp/keep.gone"/simblas-calibrate.*.model 2> /dev/null | head -1)
if [ $rc -eq 2 ] && [ -n "$kept" ] && grep -q "the model is kept in $kept" "$tmp/gone.err" && "$cal" --summary "$kept" > /dev/null; then
  ok "a model that could not be put in place is kept: $(grep -o 'cannot write the model: [^;]*' "$tmp/gone.err")"
else ko "directory removed during the run: rc=$rc: $(cat "$tmp/gone.err")"; fi

# --from-trace (issue 23): a synthetic trace of known laws refines a model:
# dgemm (t = 2e-11 mnk + 1e-5, 60 shapes, 3 calls each, 1% noise) and
# dtrsm's Right form (1e-11 mn^2) are refitted on it and predict the laws;
# dscal (3 shapes) keeps the base model's line; a quick return (0 s) is
# left out; the base model is left as it was
awk 'BEGIN { print "routine,m,n,k,predicted_s,measured_s,rank,cblas"; srand(3)
  for (i = 0; i < 60; i++) { m = int(100 + rand() * 3000); n = int(100 + rand() * 3000)
    for (r = 0; r < 3; r++) printf "dgemm,%d,%d,128,0,%.9g,%d,1\n", m, n, (2e-11 * m * n * 128 + 1e-5) * (1 + 0.01 * (rand() - 0.5)), r % 2 }
  for (i = 0; i < 40; i++) { m = int(200 + rand() * 4000); printf "dtrsm.right,%d,128,128,0,%.9g,0,1\n", m, 1e-11 * m * 128 * 128 }
  for (i = 0; i < 3; i++) printf "dscal,0,%d,0,0,1e-6,0,0\n", 1000 + i
  print "dgemm,10,10,10,0,0,0,1" }' > "$tmp/trace.csv"
cp "$tmp/m.model" "$tmp/base.model"
if "$cal" --from-trace --base "$tmp/base.model" -o "$tmp/ft.model" "$tmp/trace.csv" 2> "$tmp/ft.err"; then
  printf 'dgemm 1000 1000 128\ndgemm 3000 200 128\ndtrsm.right 2000 128 128\ndscal 0 5000 0\n' > "$tmp/ftshapes"
  SIMBLAS_MODE=null SIMBLAS_MODEL=$tmp/ft.model "$pred" < "$tmp/ftshapes" > "$tmp/ft.pred"
  SIMBLAS_MODE=null SIMBLAS_MODEL=$tmp/base.model "$pred" < "$tmp/ftshapes" > "$tmp/base.pred"
  if awk 'NR == 1 { e[1] = $1 / (2e-11 * 1000 * 1000 * 128 + 1e-5) } NR == 2 { e[2] = $1 / (2e-11 * 3000 * 200 * 128 + 1e-5) }
          NR == 3 { e[3] = $1 / (1e-11 * 2000 * 128 * 128) }
          END { for (i = 1; i <= 3; i++) if (e[i] < 0.98 || e[i] > 1.02) exit 1 }' "$tmp/ft.pred" \
     && [ "$(sed -n 4p "$tmp/ft.pred")" = "$(sed -n 4p "$tmp/base.pred")" ] \
     && grep -q "dgemm  *180 calls,    60 shapes: refitted" "$tmp/ft.err" && grep -q "dscal .*too few shapes to fit; the base model's line kept" "$tmp/ft.err" \
     && grep -q "223 calls of 103 shapes in 1 trace file(s) (1 quick returns left out)" "$tmp/ft.err" \
     && cmp -s "$tmp/m.model" "$tmp/base.model" && grep -q '^meta from_trace .*calls=223 shapes=103' "$tmp/ft.model" \
     && grep -q '^quality dgemm .*source=trace' "$tmp/ft.model"; then
    ok "--from-trace: dgemm and dtrsm.right refitted within 2% of the traced laws, dscal's line kept, the base untouched"
  else ko "--from-trace: $(cat "$tmp/ft.err") | predictions $(tr '\n' ' ' < "$tmp/ft.pred")"; fi
else ko "--from-trace failed: $(cat "$tmp/ft.err")"; fi
expect_error "--from-trace without traces" "needs the trace files" --from-trace --base "$tmp/base.model" -o "$tmp/ft2.model"
expect_error "--from-trace without a base" "give it with --base MODEL" --from-trace -o "$tmp/nosuch.model" "$tmp/trace.csv"
printf 'a,b\n1,2\n' > "$tmp/notrace.csv"
expect_error "--from-trace on a file that is no trace" "notrace.csv:1: not a SimBLAS trace" --from-trace --base "$tmp/base.model" -o "$tmp/ft2.model" "$tmp/notrace.csv"
printf 'routine,m,n,k,predicted_s,measured_s,rank,cblas\ndgemx,1,1,1,0,1e-6,0,0\n' > "$tmp/badtrace.csv"
expect_error "--from-trace on an unknown routine" "badtrace.csv:2: unknown routine 'dgemx'" --from-trace --base "$tmp/base.model" -o "$tmp/ft2.model" "$tmp/badtrace.csv"
[ ! -e "$tmp/ft2.model" ] && ok "--from-trace refusals write nothing" || ko "a refused --from-trace wrote a model"

# stalls (calibrator/trace.c): the same dgemm law, each call with its
# prediction (the law at 0.8 of its speed: the tracing model's error
# is the same for every call); one call of the 180 stalled, 50 times its
# pace and 0.1 s beyond it, is left out and said, and the refit keeps to
# the law; with 12 of 120 such calls in dtrsm.right (10%: the model's
# error, not a hiccup) nothing of it is left out
awk 'BEGIN { print "routine,m,n,k,predicted_s,measured_s,rank,cblas"; srand(7)
  for (i = 0; i < 60; i++) { m = int(100 + rand() * 3000); n = int(100 + rand() * 3000)
    for (r = 0; r < 3; r++) { t = (2e-11 * m * n * 128 + 1e-5) * (1 + 0.01 * (rand() - 0.5))
      printf "dgemm,%d,%d,128,%.9g,%.9g,%d,1\n", m, n, 0.8 * t, (i == 7 && r == 1) ? 50 * t + 0.1 : t, r % 2 } }
  for (i = 0; i < 120; i++) { m = int(200 + rand() * 4000); t = 1e-11 * m * 128 * 128
    printf "dtrsm.right,%d,128,128,%.9g,%.9g,0,1\n", m, t, (i % 10 == 3) ? 20 * t + 0.01 : t } }' > "$tmp/stall.csv"
if "$cal" --from-trace --base "$tmp/base.model" -o "$tmp/st.model" "$tmp/stall.csv" 2> "$tmp/st.err"; then
  printf 'dgemm 1000 1000 128\ndgemm 3000 200 128\n' > "$tmp/stshapes"
  SIMBLAS_MODE=null SIMBLAS_MODEL=$tmp/st.model "$pred" < "$tmp/stshapes" > "$tmp/st.pred"
  if awk 'NR == 1 { e[1] = $1 / (2e-11 * 1000 * 1000 * 128 + 1e-5) } NR == 2 { e[2] = $1 / (2e-11 * 3000 * 200 * 128 + 1e-5) }
          END { for (i = 1; i <= 2; i++) if (e[i] < 0.98 || e[i] > 1.02) exit 1 }' "$tmp/st.pred" \
     && grep -q "299 calls of [0-9]* shapes in 1 trace file(s)" "$tmp/st.err" \
     && grep -q "1 stalled call(s) left out: more than 10 times, and 1 ms, slower than their routine's other calls" "$tmp/st.err" \
     && grep -q "dgemm  *179 calls" "$tmp/st.err" && grep -q "dtrsm.right  *120 calls" "$tmp/st.err"; then
    ok "--from-trace: a stalled call left out and said, the refit on the law; 10% of a routine's calls slow are kept"
  else ko "stalls: $(cat "$tmp/st.err") | predictions $(tr '\n' ' ' < "$tmp/st.pred")"; fi
else ko "--from-trace on a trace with a stall failed: $(cat "$tmp/st.err")"; fi

# the refit's level (calibrator/calibrate.c): a routine whose shapes are
# skewed -- one in four 1.6 times the law, as some of HPL's run slow with
# the caches -- is refitted (the fit, on relative errors, runs below the
# mean: the test needs it 2% short or more), then levelled so that it
# predicts the traced calls' total, not their typical shape
awk 'BEGIN { print "routine,m,n,k,predicted_s,measured_s,rank,cblas"; srand(11)
  for (i = 0; i < 60; i++) { m = int(100 + rand() * 3000); n = int(100 + rand() * 3000)
    for (r = 0; r < 3; r++) printf "dgemm,%d,%d,128,0,%.9g,%d,1\n", m, n, (2e-11 * m * n * 128 + 1e-5) * (i % 4 == 3 ? 1.6 : 1) * (1 + 0.01 * (rand() - 0.5)), r % 2 } }' > "$tmp/skew.csv"
if "$cal" --from-trace --base "$tmp/base.model" -o "$tmp/sk.model" "$tmp/skew.csv" 2> "$tmp/sk.err"; then
  awk -F, 'NR > 1 { print "dgemm", $2, $3, $4; t += $6 } END { printf "%.9g\n", t > "/dev/stderr" }' "$tmp/skew.csv" > "$tmp/skshapes" 2> "$tmp/sk.total"
  SIMBLAS_MODE=null SIMBLAS_MODEL=$tmp/sk.model "$pred" < "$tmp/skshapes" > "$tmp/sk.pred"
  if awk -v t="$(cat "$tmp/sk.total")" '{ p += $1 } END { exit !(p / t > 0.995 && p / t < 1.005) }' "$tmp/sk.pred" \
     && grep -q "dgemm  *180 calls,    60 shapes: refitted .*the refit -\([2-9]\|[1-9][0-9]\)\.[0-9]%, levelled (scaled by [0-9.]* where they fall): [+-]0.0%" "$tmp/sk.err" \
     && grep -q '^quality dgemm .*source=trace trace_scale=' "$tmp/sk.model"; then
    ok "--from-trace: a skewed routine's refit levelled to the traced total ($(grep -o 'the refit [^,]*, levelled[^)]*)' "$tmp/sk.err"))"
  else ko "levelling: $(cat "$tmp/sk.err") | predicted $(awk '{ p += $1 } END { print p }' "$tmp/sk.pred") of $(cat "$tmp/sk.total") s"; fi
else ko "--from-trace on a skewed trace failed: $(cat "$tmp/sk.err")"; fi

# --time-scale F (simblas-hpl refine: the machine's reference speed during
# the traced runs over the base model's): the same trace refitted at F =
# 1.1 predicts 1.1 times the traced total, and the model says so
if "$cal" --from-trace --base "$tmp/base.model" -o "$tmp/ts.model" --time-scale 1.1 "$tmp/skew.csv" 2> "$tmp/ts.err"; then
  SIMBLAS_MODE=null SIMBLAS_MODEL=$tmp/ts.model "$pred" < "$tmp/skshapes" > "$tmp/ts.pred"
  if awk -v t="$(cat "$tmp/sk.total")" '{ p += $1 } END { exit !(p / t > 1.095 && p / t < 1.105) }' "$tmp/ts.pred" \
     && grep -q "the traced times multiplied by 1.1000 (--time-scale" "$tmp/ts.err" \
     && grep -q '^meta trace_time_scale 1.1000$' "$tmp/ts.model" && ! grep -q trace_time_scale "$tmp/sk.model"; then
    ok "--from-trace --time-scale 1.1: the refit predicts $(awk -v t="$(cat "$tmp/sk.total")" '{ p += $1 } END { printf "%.4f", p / t }' "$tmp/ts.pred") times the traced total"
  else ko "--time-scale: $(cat "$tmp/ts.err") | predicted $(awk '{ p += $1 } END { print p }' "$tmp/ts.pred") of $(cat "$tmp/sk.total") s"; fi
else ko "--from-trace --time-scale 1.1 failed: $(cat "$tmp/ts.err")"; fi
if ! "$cal" --from-trace --base "$tmp/base.model" -o "$tmp/ts3.model" --time-scale 3 "$tmp/skew.csv" 2> "$tmp/ts3.err" \
   && grep -q "outside 0.5 to 2.*calibrate there" "$tmp/ts3.err" && [ ! -e "$tmp/ts3.model" ]; then
  ok "--time-scale 3 refused: $(cat "$tmp/ts3.err")"
else ko "--time-scale 3 not refused: $(cat "$tmp/ts3.err")"; fi

# a line levelled rather than refitted (here dgemm at 3 shapes, too few
# to fit) keeps its lines in the per-core sets, scaled with it: they
# override the node's where they apply, and --node-speeds model reads them
core_dgemm() { awk '/^set / { c = ($2 ~ /^core/) } c && /^dgemm/ { n++ } END { print n + 0 }' "$1"; }
awk 'BEGIN { print "routine,m,n,k,predicted_s,measured_s,rank,cblas"
  for (i = 0; i < 3; i++) for (r = 0; r < 4; r++) printf "dgemm,%d,%d,128,0,%.9g,%d,1\n", 1000 * (i + 1), 2000, 3e-11 * 1000 * (i + 1) * 2000 * 128, r % 2 }' > "$tmp/few.csv"
if "$cal" --from-trace --base "$tmp/base.model" -o "$tmp/few.model" "$tmp/few.csv" 2> "$tmp/few.err" \
   && grep -q "dgemm  *12 calls,     3 shapes: too few shapes to fit; the base model's line scaled by" "$tmp/few.err" \
   && [ "$(core_dgemm "$tmp/base.model")" -gt 0 ] && [ "$(core_dgemm "$tmp/few.model")" = "$(core_dgemm "$tmp/base.model")" ] \
   && awk '/^set core/ { c = 1 } c && /^dgemm/' "$tmp/base.model" > "$tmp/few.b" \
   && awk '/^set core/ { c = 1 } c && /^dgemm/' "$tmp/few.model" > "$tmp/few.l" && ! cmp -s "$tmp/few.b" "$tmp/few.l"; then
  ok "--from-trace: a levelled line's per-core lines kept and scaled ($(core_dgemm "$tmp/few.model") dgemm lines)"
else ko "per-core lines of a levelled line: base $(core_dgemm "$tmp/base.model"), levelled $(core_dgemm "$tmp/few.model"): $(cat "$tmp/few.err")"; fi

# more --cores than the machine has: said, and every core measured
hw=$(sed -n 's/^meta cores //p' "$tmp/m.model")
"$cal" --quick --force --budget 1 --cores 999 --routines daxpy --no-report -o "$tmp/c999.model" 2> "$tmp/c999.err"
if grep -q -- "--cores 999: this machine has $hw core(s); measuring on $hw" "$tmp/c999.err" \
   && [ "$(sed -n 's/^meta cores //p' "$tmp/c999.model")" = "$hw" ]; then ok "--cores 999 on $hw core(s): said, $hw measured"
else ko "--cores 999: $(head -2 "$tmp/c999.err")"; fi

# interruption keeps the previous model byte-identical
cp "$tmp/m.model" "$tmp/keep.model"
for sig in INT TERM KILL; do
  "$cal" --force --budget 120 --routines dgemm,dtrsm --ld-pairs 0 --lld 8192 -o "$tmp/keep.model" --no-report > /dev/null 2>&1 &
  pid=$!
  sleep 2
  kill -$sig $pid 2>/dev/null
  wait $pid; rc=$?
  if cmp -s "$tmp/m.model" "$tmp/keep.model" && [ $rc -ne 0 ]; then ok "SIG$sig during measuring: exit $rc, previous model untouched"
  else ko "SIG$sig: exit $rc, model changed"; fi
done
# SIGINT in the solo pairs (100 rounds, 200 s), where the cores wait for
# each other in barriers: every core leaves together, within seconds, the
# previous model untouched
"$cal" --quick --force --budget 0.3 --routines dgemm --lld 8192 --solo-rounds 100 -o "$tmp/keep.model" --no-report \
  > /dev/null 2> "$tmp/solo-int.err" &
pid=$!
i=0; while ! grep -q "the solo pairs): 1 call(s), 100 rounds" "$tmp/solo-int.err" && [ $i -lt 600 ]; do sleep 0.1; i=$((i + 1)); done
grep -q "the solo pairs)" "$tmp/solo-int.err" || ko "the solo pairs not said within 60 s: $(tail -2 "$tmp/solo-int.err")"
sleep 1
kill -INT $pid 2>/dev/null
i=0; while kill -0 $pid 2>/dev/null && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
if kill -0 $pid 2>/dev/null; then kill -KILL $pid; wait $pid; ko "SIGINT in the solo pairs: still running 10 s later (a core waiting for another)"
else
  wait $pid; rc=$?
  [ $rc -eq 130 ] && cmp -s "$tmp/m.model" "$tmp/keep.model" && ok "SIGINT in the solo pairs: exit 130 in $((i / 10)).$((i % 10)) s, previous model untouched" \
    || ko "SIGINT in the solo pairs: exit $rc; $(tail -2 "$tmp/solo-int.err")"
fi
# a writer killed between its write and its rename leaves its temporary:
# the next one removes such stale ones, never one a live writer holds
: > "$tmp/.keep.model.tmp.StAlE1"
flock "$tmp/.keep.model.tmp.LiVe01" sleep 60 &
holder=$!
i=0; while flock -n "$tmp/.keep.model.tmp.LiVe01" true 2>/dev/null && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
"$cal" --quick --force --budget 0.5 --routines daxpy --no-report -o "$tmp/keep.model" 2> /dev/null
left=$(ls -a "$tmp" | grep '^\.keep\.model\.tmp\.' | tr '\n' ' ')
if [ "$left" = ".keep.model.tmp.LiVe01 " ]; then ok "stale temporaries removed by the next run, a live writer's kept"
else ko "temporaries after the next run: '$left' (want only the live writer's)"; fi
kill $holder 2>/dev/null; wait $holder 2>/dev/null
rm -f "$tmp/.keep.model.tmp.LiVe01"
ls -a "$tmp" | grep -q 'tmp\.' && ko "temporary files left: $(ls -a "$tmp" | grep 'tmp\.')" || ok "no temporary files left"

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
