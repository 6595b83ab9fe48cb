#!/bin/sh
# test/fuzz-run.sh WHAT -- a fuzzer of test/fuzz/, briefly, for make check
# (test/fuzz-model.sh, test/fuzz-node.sh): SIMBLAS_FUZZ_SECONDS (default 30)
# of libFuzzer, with AddressSanitizer, UBSan and LeakSanitizer, from its seed
# corpus.  WHAT is
#   model: test/fuzz/fuzz_model.c, model files; seeds test/fuzz/seeds (a
#          calibrated model, pieces, edge values) and the built
#          models/default.model;
#   node:  test/fuzz/fuzz_node.c, node files composed against a model;
#          seeds test/fuzz/node-seeds (simblas-hpl's compositions of
#          examples/nodes, test_node.c's nodes).
# What a finding is: see the harness.  A finding fails the test, and its
# input is kept in test/fuzz-findings/ and shown here.  bench/fuzz-model
# (bench/fuzz-node) runs them long.
set -u
what=${1:?usage: fuzz-run.sh model|node}
src=${SB_SRCDIR:-$(dirname "$0")/..}
bld=${SB_BUILDDIR:-.}
. "$src/test/strict.sh"
fz=$bld/test/fuzz/fuzz_$what
[ -x "$fz" ] || missing "no $fz: configure found no clang with libFuzzer (install clang and libclang-rt-14-dev)"
secs=${SIMBLAS_FUZZ_SECONDS:-30}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/corpus"
case $what in
  model) cp "$src"/test/fuzz/seeds/* "$bld/models/default.model" "$tmp/corpus/" ;;
  *) cp "$src"/test/fuzz/"$what"-seeds/* "$tmp/corpus/" ;;
esac
# its own sanitizer runtime (clang's): not the one the sanitizer build
# preloads into every test
env -u LD_PRELOAD ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  "$fz" -max_total_time="$secs" -max_len=16384 -timeout=10 -rss_limit_mb=2048 -dict="$src/test/fuzz/$what.dict" \
  -artifact_prefix="$tmp/" -print_final_stats=1 "$tmp/corpus" > "$tmp/log" 2>&1
rc=$?
runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$tmp/log")
rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$tmp/log")
if [ $rc -ne 0 ] || grep -q 'FINDING\|ERROR: \(Address\|Leak\)Sanitizer\|runtime error' "$tmp/log"; then
  echo "FAIL: the fuzzer found something (exit $rc):"
  grep -m5 'FINDING\|ERROR\|runtime error\|SUMMARY' "$tmp/log"
  mkdir -p "$bld/test/fuzz-findings"
  for a in "$tmp"/crash-* "$tmp"/leak-* "$tmp"/timeout-* "$tmp"/oom-*; do
    [ -f "$a" ] || continue
    cp "$a" "$bld/test/fuzz-findings/"
    echo "---- input $bld/test/fuzz-findings/$(basename "$a") (replay: $fz FILE):"
    od -c "$a" | head -40
  done
  tail -30 "$tmp/log"
  exit 1
fi
if [ "${runs:-0}" -lt 1000 ]; then
  echo "FAIL: the fuzzer made only ${runs:-no} executions in $secs s"
  tail -20 "$tmp/log"
  exit 1
fi
echo "ok: $runs executions in $secs s ($rate/s), $(ls "$tmp/corpus" | wc -l) inputs in the corpus, no finding"
