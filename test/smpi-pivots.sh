#!/bin/bash
# Thinned pivot search (SIMBLAS_PIVOT_EVERY, simblas_pivot_exchange) under
# smpirun, with test/smpi/pivots.c (unbalanced work whose slowest rank
# changes from column to column, on a P x Q grid):
#   - without it every column exchanges, nothing is thinned;
#   - with k = 4, one column in 4 exchanges (at an offset that moves from
#     block to block), the others are thinned;
#   - thinned, a process column still takes at least the sum of its
#     slowest rank's work (the barrier keeps the ranks in step) and its
#     simulated time stays within 1% of the unthinned run;
#   - process columns do not wait for each other (a barrier per column);
#   - with one rank per core (SIMBLAS_IDLE_MERGE=1) the barriers are
#     deferred to each rank's next flush (SIMBLAS_PIVOT_DEFER, default 1):
#     every rank ends at the time the simulator barriers give it;
#   - bad values stop with a message naming the variable;
#   - a call's time depends on its sizes, not on its scalars: daxpy with
#     alpha = 0 and dgemm with alpha = 0, beta = 1 are charged.
set -u
prog=smpi-pivots.sh
. "$(dirname "$0")/smpi-common.sh"

unset SIMBLAS_NOISE SIMBLAS_SET SIMBLAS_TRACE SIMBLAS_PIVOT_EVERY SIMBLAS_POLL_COST
export SIMBLAS_MODE=smpi SIMBLAS_MODEL="$MODEL" SIMBLAS_MERGE=1

build_prog pivots

platform 12 10Gbps 24us

P=6 Q=2 PANELS=3 JB=16
# run NAME [VAR=VALUE ...]: the grid above, every rank prints a RANK line
run() {
  name=$1
  shift
  if (cd "$WORK" && exec env TMPDIR="$WORK" "$@" timeout -k 5 120 smpirun -np $((P * Q)) -platform p.xml \
        -hostfile hosts $FLAGS --log=root.thres:warning ./pivots $P $Q $PANELS $JB) >"$WORK/$name.out" \
        2>"$WORK/$name.err" && [ "$(grep -c '^RANK ' "$WORK/$name.out")" -eq $((P * Q)) ]; then
    ok
  else
    bad "$name: smpirun failed or did not print a RANK line per rank"
    tail -n 15 "$WORK/$name.err" | sed 's/^/    | /'
  fi
}

run full
run thin4 SIMBLAS_PIVOT_EVERY=4
run thin16 SIMBLAS_PIVOT_EVERY=16
run thin4b SIMBLAS_PIVOT_EVERY=4 SIMBLAS_IDLE_MERGE=1 SIMBLAS_PIVOT_DEFER=0
run thin4d SIMBLAS_PIVOT_EVERY=4 SIMBLAS_IDLE_MERGE=1

# counts NAME REAL TOTAL: per rank, REAL real exchanges (one more: the
# first, before any was timed, when the first scheduled one is not column
# 0) and the rest of TOTAL thinned
counts() {
  awk -v r="$2" -v t="$3" -v name="$1" '$1 == "RANK" {
      n++
      if ($5 < r || $5 > r + 1 || $5 + $6 != t) printf "FAIL %s: rank %d made %d real and %d thinned exchanges, expected %d (or one more) real of %d\n", name, $2, $5, $6, r, t
      else print "OK" }
    END { if (!n) print "FAIL " name ": no RANK line" }' "$WORK/$1.out"
}
# versus NAME: each process column's time within 1% of the full run's,
# and at least its slowest rank's work; prints the figures
versus() {
  awk -v name="$1" '
    FNR == 1 { f++ }
    $1 != "RANK" { next }
    f == 1 { full[$3] = $4 > full[$3] ? $4 : full[$3]; next }
    { thin[$3] = $4 > thin[$3] ? $4 : thin[$3]; bound[$3] = $7 }
    END {
      for (c in full) {
        e = (thin[c] - full[c]) / full[c]
        printf "NOTE %s: process column %d: %.6f s, all exchanged %.6f s (%+.3f%%), slowest rank'"'"'s work %.6f s\n", name, c, thin[c], full[c], 100 * e, bound[c]
        if (e > 0.01 || e < -0.01) printf "FAIL %s: process column %d took %.6f s, %+.2f%% from the %.6f s of the full exchange\n", name, c, thin[c], 100 * e, full[c]
        else print "OK"
        if (thin[c] < bound[c]) printf "FAIL %s: process column %d took %.6f s, less than its slowest rank'"'"'s work %.6f s: the ranks drifted apart\n", name, c, thin[c], bound[c]
        else print "OK"
      }
    }' "$WORK/full.out" "$WORK/$1.out"
}

{
  awk '$1 == "VALUES" { n++; if ($2 == 2 && $3 > 0) print "OK"; else printf "FAIL values: %d of 2 calls with alpha = 0 modelled, %g s injected: model mode must charge by sizes only\n", $2, $3 }
       END { if (n != 1) print "FAIL values: no VALUES line" }' "$WORK/full.out"
  counts full $((PANELS * JB)) $((PANELS * JB))
  awk '$1 == "RANK" && $6 != 0 { printf "FAIL full: rank %d thinned %d exchanges without SIMBLAS_PIVOT_EVERY\n", $2, $6; bad = 1 }
       END { if (!bad) print "OK" }' "$WORK/full.out"
  counts thin4 $((PANELS * JB / 4)) $((PANELS * JB))
  counts thin16 $PANELS $((PANELS * JB))
  versus thin4
  versus thin16
  # deferred barriers: each rank's end time as with the simulator's
  awk 'FNR == 1 { f++ }
       $1 != "RANK" { next }
       f == 1 { t[$2] = $4; next }
       { n++; e = $4 - t[$2]; if (e < 0) e = -e
         if (e <= 1e-9 * t[$2]) print "OK"
         else printf "FAIL deferred barriers: rank %d ended at %.9f s, %.9f s with the simulator barriers\n", $2, $4, t[$2] }
       END { if (n != '$((P * Q))') print "FAIL deferred barriers: " n " RANK lines" }' "$WORK/thin4b.out" "$WORK/thin4d.out"
  # process column 1 works 3 times as hard: column 0 must not wait for it
  awk '$1 == "RANK" { t[$3] = $4 > t[$3] ? $4 : t[$3] }
       END { if (t[0] < 0.5 * t[1]) print "OK"; else printf "FAIL columns: process column 0 took %.6f s, column 1 %.6f s: column 0 waited for column 1\n", t[0], t[1] }' \
    "$WORK/thin4.out"
} >"$WORK/checks"
tally "$WORK/checks"

# bad values are named, with the remedy
badrun() {
  want=$1
  shift
  if (cd "$WORK" && exec env TMPDIR="$WORK" "$@" timeout -k 5 60 smpirun -np $((P * Q)) -platform p.xml \
        -hostfile hosts $FLAGS --log=root.thres:warning ./pivots $P $Q 1 4) >"$WORK/bad.out" 2>"$WORK/bad.err"; then
    bad "$*: the run went on"
  elif grep -q "$want" "$WORK/bad.err"; then
    ok
  else
    bad "$*: no message naming it"
    tail -n 5 "$WORK/bad.err" | sed 's/^/    | /'
  fi
}
badrun "SIMBLAS_PIVOT_EVERY='0' is not a number of columns" SIMBLAS_PIVOT_EVERY=0
badrun "SIMBLAS_PIVOT_DEFER='2' is not 0 or 1" SIMBLAS_PIVOT_EVERY=4 SIMBLAS_PIVOT_DEFER=2
badrun "SIMBLAS_PIVOT_EVERY=4 thins .* needs SIMBLAS_MODE=smpi and SIMBLAS_MERGE=1" SIMBLAS_PIVOT_EVERY=4 SIMBLAS_MERGE=0

echo "$npass passed, $nfail failed"
[ "$nfail" -eq 0 ]
