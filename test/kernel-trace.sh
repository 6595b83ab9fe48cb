#!/bin/sh
# kernel-trace.sh -- HPL's memory kernels in trace mode (issue 23, item 2):
#  (a) patch 17's include/hpl_ktrace.h with patch 19's HPL_rowspan, taken from
#      the patches, compiled into
#      a PIE that does not link libsimblas (test/ktrace_prog.c, built as the
#      real HPL is): simblas_trace_kernel is a weak dynamic reference; the
#      program runs without libsimblas; with libsimblas preloaded in trace
#      mode each kernel call is one row (the model key, the sizes, the
#      model's prediction at the leading dimension, a measured time within
#      the program's own bracket, ld) and a quick return none; passthrough
#      writes no row; an unknown key is said once;
#  (b) simblas-calibrate --from-trace on synthetic kernel rows: a kernel
#      traced at 40 shapes at leading dimension 1000 is refitted through
#      the base model's @ld factor there (the known line at the reference
#      leading dimension recovered within 2%, the @ld line kept); one
#      traced at three shapes (HPL_dlaswp00N at NB x NB) has each part of
#      its line (the plain line, its piece for m >= 256) scaled by the
#      measured/predicted ratio of the calls that fall in it.
set -u
. "${SB_SRCDIR:-$(dirname "$0")/..}/test/strict.sh"
src=${SB_SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}
bld=${SB_BUILDDIR:-.}
cal=$bld/calibrator/simblas-calibrate
pred=$bld/test/predict_prog
lib=$(cd "$bld/.libs" && pwd)/libsimblas.so
cc=${CC:-cc}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0

for t in readelf $cc; do command -v "$t" > /dev/null 2>&1 || missing "$t not found"; done
[ -x "$cal" ] && [ -x "$pred" ] || missing "no $cal or $pred (configure found no calibrator)"

# ---- (a) the hook ----------------------------------------------------------------
# the header as patch 17 creates it (the lines of its new-file hunk), with
# patch 19's hunk of it applied (HPL_rowspan)
mkdir "$tmp/include"
awk '/^\+\+\+ b\/include\/hpl_ktrace\.h/ { f = 1; next } f && /^@@/ { next } f && /^\+/ { print substr($0, 2); next } f { exit }' \
  "$src/hpl-patches/17-traced-memory-kernels.patch" > "$tmp/include/hpl_ktrace.h"
grep -q '^#define HPL_KTRACE_END' "$tmp/include/hpl_ktrace.h" \
  || ko "no hpl_ktrace.h in patch 17 ($(wc -l < "$tmp/include/hpl_ktrace.h") lines)"
awk '/^--- a\/include\/hpl_ktrace\.h/ { f = 1 } f && /^--- a\// && !/hpl_ktrace/ { exit } f' \
  "$src/hpl-patches/19-row-span.patch" > "$tmp/19.diff"
patch -s -p1 -d "$tmp" --fuzz=0 < "$tmp/19.diff" > "$tmp/patch.out" 2>&1 \
  || ko "patch 19's hunk of hpl_ktrace.h does not apply to patch 17's: $(head -3 "$tmp/patch.out")"
if ! $cc -O1 -fPIE -pie -I"$tmp/include" -o "$tmp/ktrace_prog" "$src/test/ktrace_prog.c" 2> "$tmp/cc.err"; then
  ko "ktrace_prog does not build: $(head -3 "$tmp/cc.err")"
  echo "$pass passed, $fail failed"; exit 1
fi
prog=$tmp/ktrace_prog
if readelf -h "$prog" | grep -q 'Type: *DYN' \
   && readelf --dyn-syms -W "$prog" | awk '$8 == "simblas_trace_kernel" && $5 == "WEAK" && $7 == "UND" { f = 1 } END { exit !f }'; then
  ok "a PIE with a weak, undefined, dynamic simblas_trace_kernel (as xhpl-mpi)"
else ko "simblas_trace_kernel in the PIE: $(readelf --dyn-syms -W "$prog" | grep simblas_trace_kernel)"; fi

# without libsimblas: the reference is NULL, the kernel runs
if out=$(env -u LD_PRELOAD "$prog" 64 256 1000) && echo "$out" | grep -q '^hook absent' && echo "$out" | grep -q '^matrix restored'; then
  ok "without libsimblas: no hook, the kernel computes"
else ko "without libsimblas: $out"; fi

cat > "$tmp/k.model" <<M
simblas-model 1
reference-speed 1e10
hpl_dlaswp00N mn=1e-9
hpl_dlaswp00N@ld 1000:0.5 4000:1
hpl_dlaswp03N mn=2e-9 1=1e-6
end
M
pre="${LD_PRELOAD:+$LD_PRELOAD }$lib"
if LD_PRELOAD=$pre SIMBLAS_MODE=trace SIMBLAS_MODEL=$tmp/k.model SIMBLAS_TRACE=$tmp/t.csv "$prog" 64 256 1000 \
     > "$tmp/t.out" 2> "$tmp/t.err"; then
  head -1 "$tmp/t.csv" | grep -qx 'routine,m,n,k,predicted_s,measured_s,rank,cblas,ld' && ok "trace header ends in ld" \
    || ko "trace header: $(head -1 "$tmp/t.csv")"
  grep -q '^hook present' "$tmp/t.out" && ok "preloaded: the hook resolves" || ko "preloaded: $(head -1 "$tmp/t.out")"
  # HPL_rowspan: rows 5, 9 and the move within A to row 20: 16 rows; rows
  # 0, 1, 40 under LDA 30: LDA; the 00N form of one row against itself: 1
  grep -qx 'rowspan 16 30 1' "$tmp/t.out" && ok "HPL_rowspan: first to last row, moves within A included, at most LDA" \
    || ko "HPL_rowspan: $(grep rowspan "$tmp/t.out")"
  # the 00N call's ld is its rows' span (patch 19): rows 0 ... 63 and
  # IPIV 64 ... 190, 191 rows; its prediction there (below the first
  # point, 1000: that point's factor): 0.5 x 1e-9 x 64 x 256; the ld-free
  # kernel: its line
  if awk -F, -v o="$tmp/t.out" 'BEGIN { while ((getline l < o) > 0) { split(l, w, " "); if (w[1] == "bracket") b[w[2]] = w[3] } }
        NR == 1 { next }
        { n++; if ($1 == "hpl_dlaswp00N") { want = 0.5e-9 * 64 * 256; ld = 191 } else if ($1 == "hpl_dlaswp03N") { want = 2e-9 * 64 * 256 + 1e-6; ld = 0 } else bad = 1
          if ($2 != 64 || $3 != 256 || $4 != 0 || $9 != ld || $7 != 0) bad = 1
          if ($5 < want * (1 - 1e-6) || $5 > want * (1 + 1e-6)) bad = 1
          if (!($6 > 0) || !($6 <= b[$1])) bad = 1 }
        END { exit bad || n != 2 }' "$tmp/t.csv"; then
    ok "a row per kernel call, none for the quick return: sizes, ld, the model's prediction at ld, measured within the bracket"
  else ko "trace rows: $(tr '\n' ' ' < "$tmp/t.csv") | $(tr '\n' ' ' < "$tmp/t.out")"; fi
else ko "trace-mode run failed: $(cat "$tmp/t.err")"; fi

# passthrough: the hook resolves and writes nothing; an unknown key is said once
if LD_PRELOAD=$pre SIMBLAS_MODE=passthrough SIMBLAS_MODEL=$tmp/k.model SIMBLAS_TRACE=$tmp/p.csv "$prog" 64 256 1000 \
     > "$tmp/p.out" 2>&1 && grep -q '^hook present' "$tmp/p.out" && [ ! -e "$tmp/p.csv" ]; then
  ok "passthrough: no trace written"
else ko "passthrough: $(cat "$tmp/p.out"); $(ls "$tmp")"; fi
LD_PRELOAD=$pre SIMBLAS_MODE=trace SIMBLAS_MODEL=$tmp/k.model SIMBLAS_TRACE=$tmp/u.csv "$prog" 64 256 1000 hpl_nosuch \
  > "$tmp/u.out" 2> "$tmp/u.err"
if [ "$(grep -c "'hpl_nosuch' is no model key" "$tmp/u.err")" = 1 ] && ! grep -q '^hpl_nosuch' "$tmp/u.csv" \
   && [ "$(($(wc -l < "$tmp/u.csv") - 1))" = 2 ]; then
  ok "an unknown kernel key: said once, not traced"
else ko "unknown key: $(cat "$tmp/u.err") | $(tr '\n' ' ' < "$tmp/u.csv")"; fi

# ---- (b) --from-trace on kernels --------------------------------------------------
cat > "$tmp/base.model" <<M
simblas-model 1
reference-speed 1e10
hpl_dlaswp01T mn=2e-9 1=1e-6
hpl_dlaswp01T@ld 1000:0.5 8000:1
hpl_dlaswp00N mn=1e-9 1=1e-6
hpl_dlaswp00N[m>=256] mn=5e-10 1=1e-6
hpl_dlaswp00N@ld 1000:0.5 12000:1
end
M
# hpl_dlaswp01T: 40 shapes at ld 1000 (factor 0.5) of the line 3e-9 mn + 4e-6
# at the reference ld, 1% noise; hpl_dlaswp00N: 30 calls at 128 x 128 and 3
# at 100 x 128, ld 12000 (factor 1), 1.5 times the base line, and 10 at
# 512 x 128, twice its m >= 256 piece
awk 'BEGIN { print "routine,m,n,k,predicted_s,measured_s,rank,cblas,ld"; srand(5)
  for (i = 0; i < 40; i++) { m = int(8 + rand() * 1000); n = int(32 + rand() * 2000)
    for (r = 0; r < 2; r++) printf "hpl_dlaswp01T,%d,%d,0,0,%.9g,%d,0,1000\n", m, n, 0.5 * (3e-9 * m * n + 4e-6) * (1 + 0.01 * (rand() - 0.5)), r }
  for (i = 0; i < 30; i++) printf "hpl_dlaswp00N,128,128,0,0,%.9g,0,0,12000\n", 1.5 * (1e-9 * 128 * 128 + 1e-6)
  for (i = 0; i < 3; i++) printf "hpl_dlaswp00N,100,128,0,0,%.9g,1,0,12000\n", 1.5 * (1e-9 * 100 * 128 + 1e-6)
  for (i = 0; i < 10; i++) printf "hpl_dlaswp00N,512,128,0,0,%.9g,1,0,12000\n", 2 * (5e-10 * 512 * 128 + 1e-6) }' > "$tmp/k.csv"
# a model's @ld points, as numbers: " LD:F ..."
ldline() { awk -v k="$1@ld" '$1 == k { for (i = 2; i <= NF; i++) { split($i, p, ":"); printf " %g:%g", p[1], p[2] } }' "$2"; }
if "$cal" --from-trace --base "$tmp/base.model" -o "$tmp/ft.model" "$tmp/k.csv" 2> "$tmp/ft.err"; then
  printf 'hpl_dlaswp01T 500 1000 0\nhpl_dlaswp01T 64 200 0\nhpl_dlaswp00N 128 128 0\nhpl_dlaswp00N 512 128 0\n' > "$tmp/shapes"
  SIMBLAS_MODE=null SIMBLAS_MODEL=$tmp/ft.model "$pred" < "$tmp/shapes" > "$tmp/ft.pred"
  if awk 'NR == 1 { e = $1 / (3e-9 * 500 * 1000 + 4e-6) } NR == 2 { f = $1 / (3e-9 * 64 * 200 + 4e-6) }
          END { exit !(e > 0.98 && e < 1.02 && f > 0.98 && f < 1.02) }' "$tmp/ft.pred" \
     && [ "$(ldline hpl_dlaswp01T "$tmp/ft.model")" = " 1000:0.5 8000:1" ] \
     && grep -q "hpl_dlaswp01T .*refitted" "$tmp/ft.err" && grep -q "traced at leading dimension 1000: .*(0.5)" "$tmp/ft.err" \
     && grep -q '^quality hpl_dlaswp01T .*source=trace' "$tmp/ft.model"; then
    ok "--from-trace: hpl_dlaswp01T at ld 1000 refitted through its @ld factor: the reference-ld line within 2%, @ld kept"
  else ko "hpl_dlaswp01T: $(cat "$tmp/ft.err") | $(tr '\n' ' ' < "$tmp/ft.pred") | $(grep hpl_dlaswp01T "$tmp/ft.model" | tr '\n' ' ')"; fi
  # overall, measured/predicted: (1.5 a + 2 b) / (a + b), a and b the base's totals of the two parts
  scale() { awk -v d="$1" 'BEGIN { a = 30 * (1e-9 * 128 * 128 + 1e-6) + 3 * (1e-9 * 100 * 128 + 1e-6)
                                   b = 10 * (5e-10 * 512 * 128 + 1e-6); printf "%.*f", d, (1.5 * a + 2 * b) / (a + b) }'; }
  if awk 'NR == 3 { e = $1 / (1.5 * (1e-9 * 128 * 128 + 1e-6)) } NR == 4 { f = $1 / (2 * (5e-10 * 512 * 128 + 1e-6)) }
          END { exit !(e > 0.9999 && e < 1.0001 && f > 0.9999 && f < 1.0001) }' "$tmp/ft.pred" \
     && grep -q "hpl_dlaswp00N .*43 calls, *3 shapes: too few shapes to fit; the base model's line scaled by $(scale 3) where they fall" "$tmp/ft.err" \
     && grep -q "^quality hpl_dlaswp00N .*source=trace-scaled trace_scale=$(scale 4)" "$tmp/ft.model" \
     && [ "$(ldline hpl_dlaswp00N "$tmp/ft.model")" = " 1000:0.5 12000:1" ]; then
    ok "--from-trace: hpl_dlaswp00N at 3 shapes: its line scaled by 1.5, its m >= 256 piece by 2, as their calls ran; @ld kept"
  else ko "hpl_dlaswp00N: $(cat "$tmp/ft.err") | $(tr '\n' ' ' < "$tmp/ft.pred") | $(grep hpl_dlaswp00N "$tmp/ft.model" | tr '\n' ' ')"; fi
else ko "--from-trace on kernel rows failed: $(cat "$tmp/ft.err")"; fi
# a trace whose header has ld and a row that lacks it
printf 'routine,m,n,k,predicted_s,measured_s,rank,cblas,ld\nhpl_dlaswp00N,128,128,0,0,1e-5,0,0\n' > "$tmp/short.csv"
out=$("$cal" --from-trace --base "$tmp/base.model" -o "$tmp/no.model" "$tmp/short.csv" 2>&1); rc=$?
if [ $rc -eq 2 ] && echo "$out" | grep -q "short.csv:2: not a trace row (routine,m,n,k,predicted_s,measured_s,rank,cblas,ld)" \
   && [ ! -e "$tmp/no.model" ]; then ok "a row without the ld its header announces: refused, nothing written"
else ko "short row: rc=$rc: $out"; fi

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
