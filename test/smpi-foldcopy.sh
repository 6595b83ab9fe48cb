#!/bin/bash
# Messages sent out of folded memory under smpirun (test/smpi/foldcopy.c):
#   - 1 MiB sent out of simblas_fold_malloc memory arrives without data:
#     SMPI copied nothing (the receiver's buffer keeps its 0x11), and the
#     fold statistics count that one message and its bytes;
#   - 1 MiB sent out of malloc memory arrives (0xcd): other copies are
#     SMPI's, as before;
#   - 1 KiB out of folded memory, under smpi/send-is-detached-thresh, is
#     copied by SMPI at the send (0xab), and not counted;
#   - simblas_fold_malloc_partial's private ranges, given out of order,
#     stay each rank's own.
set -u
prog=smpi-foldcopy.sh
. "$(dirname "$0")/smpi-common.sh"
. "$S/test/strict.sh"

grep -q '^#define SB_HAVE_SMPI_COPY_CALLBACK 1' "$B/config.h" \
  || missing "this SimGrid's payload copy cannot be wrapped (configure: no copy out of the matrix)"
unset SIMBLAS_NOISE SIMBLAS_SET SIMBLAS_TRACE
export SIMBLAS_MODE=smpi SIMBLAS_MODEL="$MODEL"

build_prog foldcopy
platform 2 10Gbps 24us
if (cd "$WORK" && exec env TMPDIR="$WORK" timeout -k 5 120 smpirun -np 2 -platform p.xml -hostfile hosts $FLAGS \
      --log=root.thres:warning ./foldcopy) >"$WORK/out" 2>"$WORK/err"; then
  ok
else
  bad "smpirun failed:"; tail -n 15 "$WORK/err" | sed 's/^/    | /'
fi
expect() { # WHAT LINE
  if grep -qx "$2" "$WORK/out"; then ok; else bad "$1: expected '$2', got: $(grep "^${2%% *} ${2#* }" "$WORK/out" | head -1; grep -E '^(RECV|STATS)' "$WORK/out" | tr '\n' ';')"; fi
}
expect "1 MiB out of the folded matrix: not copied" "RECV 1 0x11"
expect "1 MiB out of malloc memory: copied" "RECV 2 0xcd"
expect "1 KiB out of the folded matrix (detached): copied at the send" "RECV 3 0xab"
expect "fold statistics: one message, 1 MiB uncopied" "STATS 1 1048576"
expect "partial folding, private ranges out of order: rank 0 reads its own" "PRIVATE 0 own"
expect "partial folding, private ranges out of order: rank 1 reads its own" "PRIVATE 1 own"
echo "$npass passed, $nfail failed"
[ "$nfail" -eq 0 ]
