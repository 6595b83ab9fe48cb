#!/bin/bash
# Per-rank poll cost (SIMBLAS_POLL_COST, libsimblas_pmpi's MPI_Iprobe
# wrapper) under smpirun, with test/smpi/polls.c:
#   - a spin-wait makes the number of polls its own cost law gives (with
#     its growth and its cap, SIMBLAS_POLL_GROWTH and SIMBLAS_POLL_MAX), the
#     same whether 1 or 8 ranks spin at once (SMPI's smpi/iprobe shares one
#     count among all ranks), and sees the message within one poll;
#   - a poll between BLAS calls costs exactly SIMBLAS_POLL_COST;
#   - SIMBLAS_POLL_USAGE (the energy's polling load) changes no time;
#   - a message that arrives between two probes of a rank working in
#     chunks is seen at the next probe (SIMBLAS_PROBE=immediate, SMPI's),
#     or at the one after (lagged, Open MPI's); a message that came while the
#     receiver computed, before its first probe, is seen by that probe
#     (immediate) or the second (lagged);
#   - a bad SIMBLAS_POLL_COST stops with a message naming it.
set -u
prog=smpi-polls.sh
. "$(dirname "$0")/smpi-common.sh"

WAIT=0.01 COST=1e-7
unset SIMBLAS_NOISE SIMBLAS_SET SIMBLAS_TRACE SIMBLAS_POLL_GROWTH SIMBLAS_POLL_USAGE SIMBLAS_POLL_COST
export SIMBLAS_MODE=smpi SIMBLAS_MODEL="$MODEL" SIMBLAS_MERGE=1

build_prog polls

platform 9 100GBps 0us

FLAGS="$FLAGS --cfg=smpi/iprobe:0 --cfg=smpi/test:0"

# run NAME NP [VAR=VALUE ...] [-- extra smpirun flags]
run() {
  name=$1 np=$2
  shift 2
  vars=()
  while [ $# -gt 0 ] && [ "$1" != -- ]; do vars+=("$1"); shift; done
  [ $# -gt 0 ] && shift
  # shellcheck disable=SC2086
  if (cd "$WORK" && exec env TMPDIR="$WORK" "${vars[@]}" timeout -k 5 120 smpirun -np "$np" -platform p.xml \
        -hostfile hosts $FLAGS "$@" --log=root.thres:warning ./polls "$WAIT") >"$WORK/$name.out" 2>"$WORK/$name.err" &&
     [ "$(grep -c '^WORK ' "$WORK/$name.out")" -eq "$np" ]; then
    ok
  else
    bad "$name: smpirun -np $np failed or did not print a WORK line per rank"
    tail -n 15 "$WORK/$name.err" | sed 's/^/    | /'
  fi
}

# check_spin NAME GROWTH [MAX]: polls as the cost law gives, message seen
# in time
check_spin() {
  awk -v c="$COST" -v g="$2" -v mx="${3:-1e300}" -v name="$1" '
    $1 == "SENT" {
      # the k-th poll (k = 0, 1, ...) costs c (1 + g max(0, k - 32)): the
      # back-off starts past 32 polls in a row (bounded runs of polls,
      # as in HPL_spreadT, cost c each); then it probes: the rank sees the
      # message at the first poll whose clock has reached w
      w = $2; t = 0; k = 0
      do { last = c * (1 + g * (k > 32 ? k - 32 : 0)); if (last > mx) last = mx; t += last; k++ } while (t < w)
      want = k
    }
    $1 == "SPIN" {
      if (!w) { print "FAIL " name ": no SENT line before the SPIN lines"; exit }
      n++
      d = $4 - w
      if ($3 < want - 1 || $3 > want + 1)
        printf "FAIL %s: rank %d polled %d times; the cost law gives %d\n", name, $2, $3, want
      else if (d < -1e-12 || d > last + 1e-12)
        printf "FAIL %s: rank %d saw the message at %.9g s; it was sent at %g s (one poll: %.3g s)\n", name, $2, $4, w, last
      else print "OK"
      polls = $3
    }
    END { if (!n) print "FAIL " name ": no SPIN line"; printf "NOTE %s: %d polls each (cost law: %d)\n", name, polls, want }
  ' "$WORK/$1.out"
}

# check_work NAME: K polls between BLAS calls cost K x COST
check_work() {
  awk -v c="$COST" -v name="$1" '
    $1 == "WORK" {
      n++; want = $5 + $3 * c; e = $4 - want; if (e < 0) e = -e
      if (e > 1e-9 * want) printf "FAIL %s: rank %d: %d polls between BLAS calls took %.12g s, expected %.12g s (BLAS %.12g + %d x %g)\n", name, $2, $3, $4, want, $5, $3, c
      else print "OK"
    }
    END { if (!n) print "FAIL " name ": no WORK line" }
  ' "$WORK/$1.out"
}

# rank 0 prints SENT before the others can have seen the message
run one 2 SIMBLAS_POLL_COST=$COST
run eight 9 SIMBLAS_POLL_COST=$COST
run grow16 2 SIMBLAS_POLL_COST=$COST SIMBLAS_POLL_GROWTH=16
run usage 9 SIMBLAS_POLL_COST=$COST SIMBLAS_POLL_USAGE=0.8
run cap 2 SIMBLAS_POLL_COST=$COST SIMBLAS_POLL_GROWTH=16 SIMBLAS_POLL_MAX=1e-5
run lagged 2 SIMBLAS_POLL_COST=$COST SIMBLAS_PROBE=lagged

# check_chunk NAME LATE: the chunked probe saw the message after LATE
# chunks past the first probe after the send (0: immediate, 1: lagged)
check_chunk() {
  awk -v name="$1" -v late="$2" -v c="$COST" '
    $1 == "CSENT" { s = $2 }
    $1 == "CHUNK" {
      if (s == "") { print "FAIL " name ": no CSENT line before the CHUNK line"; exit }
      n++; d = $2 - s; lo = late * $3; hi = (late + 1) * $3 + 4 * c
      if (d < lo - 1e-12 || d > hi + 1e-12)
        printf "FAIL %s: the probe saw the message %.6g s after its send; %g to %g s expected (chunks of %.6g s)\n", name, d, lo, hi, $3
      else print "OK"
    }
    END { if (!n) print "FAIL " name ": no CHUNK line" }
  ' "$WORK/$1.out"
}
# check_late NAME SEEN: the message that came while the receiver computed
# was seen by probe SEEN (1: its first, immediate; 2: lagged)
check_late() {
  awk -v name="$1" -v seen="$2" -v c="$COST" '
    $1 == "LATE" {
      n++; want = $4 + (seen - 1) * $5
      if ($2 != seen || $2 > 1 && !($5 > 0) || $3 < want - 1e-12 || $3 > want + 4 * c + 1e-9)
        printf "FAIL %s: the message that came while rank 1 computed was seen by its probe %d, %.6g s in; probe %d expected, %.6g s in (the first at %.6g s, chunks of %.6g s)\n", name, $2, $3, seen, want, $4, $5
      else print "OK"
    }
    END { if (!n) print "FAIL " name ": no LATE line" }
  ' "$WORK/$1.out"
}
{
  check_late one 1; check_late lagged 2
  check_spin one 1; check_work one
  check_spin eight 1; check_work eight
  check_spin grow16 16; check_work grow16
  check_spin cap 16 1e-5; check_work cap
  check_chunk one 0; check_chunk eight 0; check_chunk lagged 1
  check_work lagged  # a probe between BLAS calls with no message is charged as before
  # the polling load changes the energy, not the time
  if [ -s "$WORK/eight.out" ] && cmp -s <(sort "$WORK/eight.out") <(sort "$WORK/usage.out"); then echo OK
  else echo "FAIL usage: SIMBLAS_POLL_USAGE=0.8 changed the times (diff: eight.out usage.out)"; fi
} >"$WORK/checks"
tally "$WORK/checks"

# for the record: SMPI's own poll cost, one count shared by the ranks
run smpi 9 -- --cfg=smpi/iprobe:$COST
awk '$1 == "SPIN" { s += $3; n++ } END { if (n) printf "NOTE SMPI smpi/iprobe:%s instead (one count for all ranks): %.0f polls per spinning rank on average\n", c, s / n }' \
  c="$COST" "$WORK/smpi.out"

# a bad value is named, with the remedy
if (cd "$WORK" && exec env TMPDIR="$WORK" SIMBLAS_POLL_COST=soon timeout -k 5 60 smpirun -np 2 -platform p.xml \
      -hostfile hosts $FLAGS --log=root.thres:warning ./polls "$WAIT") >"$WORK/badv.out" 2>"$WORK/badv.err"; then
  bad "SIMBLAS_POLL_COST=soon: the run went on"
elif grep -q "SIMBLAS_POLL_COST='soon' is not a duration" "$WORK/badv.err"; then
  ok
else
  bad "SIMBLAS_POLL_COST=soon: no message naming it"
  tail -n 5 "$WORK/badv.err" | sed 's/^/    | /'
fi

echo "$npass passed, $nfail failed"
[ "$nfail" -eq 0 ]
