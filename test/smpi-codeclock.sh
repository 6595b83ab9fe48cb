#!/bin/bash
# SIMBLAS_CODE_CLOCK (simblas-hpl's default --hpl-code timed): SimBLAS
# charges the program's own code within its merged injections, by the
# thread's CPU time, in place of SMPI's smpi/simulate-computation.  With
# test/smpi/codeclock.c under smpirun:
#   - 20 ms of the program's code cost its CPU time x reference speed /
#     host speed of simulated time (within 10%), and nothing without it;
#   - SimBLAS's own time (20,000 modelled calls) is not charged as the
#     program's: what is charged besides the injected time is under 40% of
#     the stretch's CPU time (SMPI's timing charges all of it; what is left
#     is the loop and the two clock reads around each call, about 20%);
#   - SMPI's timing left on (it would count twice), SIMBLAS_CODE_CLOCK
#     without SIMBLAS_MERGE, and a bad value each stop with a message
#     naming the remedy.
set -u
prog=smpi-codeclock.sh
. "$(dirname "$0")/smpi-common.sh"

unset SIMBLAS_NOISE SIMBLAS_SET SIMBLAS_TRACE SIMBLAS_POLL_COST SIMBLAS_CODE_CLOCK
export SIMBLAS_MODE=smpi SIMBLAS_MODEL="$MODEL" SIMBLAS_MERGE=1
REF=$(awk '{ sub(/#.*/, "") } $1 == "reference-speed" { print $2; exit }' "$MODEL")
[ -n "$REF" ] || die "$MODEL has no 'reference-speed' line"

build_prog codeclock
platform 4 10GBps 1us

# run NAME [VAR=VALUE ...] [-- extra smpirun flags]: NAME.out, NAME.err; status
run() {
  name=$1
  shift
  vars=()
  while [ $# -gt 0 ] && [ "$1" != -- ]; do vars+=("$1"); shift; done
  [ $# -gt 0 ] && shift
  # shellcheck disable=SC2086
  (cd "$WORK" && exec env TMPDIR="$WORK" "${vars[@]}" timeout -k 5 120 smpirun -np 4 -platform p.xml \
     -hostfile hosts $FLAGS "$@" --log=root.thres:warning ./codeclock "$REF") >"$WORK/$name.out" 2>"$WORK/$name.err"
}

# expect NAME: a run that completed with a CODE and a BLAS line per rank
expect() {
  if [ "$(grep -c '^CODE ' "$WORK/$1.out")" -eq 4 ] && [ "$(grep -c '^BLAS ' "$WORK/$1.out")" -eq 4 ]; then ok
  else bad "$1: smpirun -np 4 did not print a CODE and a BLAS line per rank"; tail -n 15 "$WORK/$1.err" | sed 's/^/    | /'; fi
}

run on SIMBLAS_CODE_CLOCK=1; expect on
run off; expect off
awk '
  FILENAME ~ /on.out$/ && $1 == "CODE" {
    r = $3 / $4
    printf "NOTE rank %d: 20 ms of code charged %.4g s, its CPU time scaled %.4g s (ratio %.3f)\n", $2, $3, $4, r
    if (r < 0.9 || r > 1.1) printf "FAIL code charged %.4g s for %.4g s of CPU time scaled (rank %d)\n", $3, $4, $2
    else print "OK"
  }
  FILENAME ~ /on.out$/ && $1 == "BLAS" {
    extra = $3 - $4
    printf "NOTE rank %d: 20,000 calls: %.4g s beyond the %.4g s injected, for %.4g s of CPU time scaled\n", $2, extra, $4, $5
    if (extra < 0 || extra > 0.4 * $5) printf "FAIL SimBLAS own time charged: %.4g s beyond the injected time, for %.4g s of CPU (rank %d)\n", extra, $5, $2
    else print "OK"
  }
  FILENAME ~ /off.out$/ && $1 == "CODE" {
    if ($3 != 0) printf "FAIL without SIMBLAS_CODE_CLOCK the code was charged %.4g s (rank %d)\n", $3, $2; else print "OK"
  }
  FILENAME ~ /off.out$/ && $1 == "BLAS" {
    if ($3 != $4) printf "FAIL without SIMBLAS_CODE_CLOCK, delta %.9g != injected %.9g (rank %d)\n", $3, $4, $2; else print "OK"
  }' "$WORK/on.out" "$WORK/off.out" >"$WORK/checks"
tally "$WORK/checks"

# refusals, each naming its remedy
refuse() { # NAME PATTERN VAR=VALUE... [-- flags]
  name=$1 pat=$2
  shift 2
  if run "$name" "$@"; then
    bad "$name: the run went on"
  elif grep -q -- "$pat" "$WORK/$name.err"; then
    ok
  else
    bad "$name: no message with '$pat'"; tail -n 5 "$WORK/$name.err" | sed 's/^/    | /'
  fi
}
refuse twice "run smpirun with --cfg=smpi/simulate-computation:no" SIMBLAS_CODE_CLOCK=1 -- \
  --cfg=smpi/simulate-computation:yes
refuse nomerge "needs SIMBLAS_MODE=smpi and SIMBLAS_MERGE=1" SIMBLAS_CODE_CLOCK=1 SIMBLAS_MERGE=0
refuse badv "SIMBLAS_CODE_CLOCK='2' is not 0 or 1" SIMBLAS_CODE_CLOCK=2

echo "$npass passed, $nfail failed"
[ "$nfail" -eq 0 ]
