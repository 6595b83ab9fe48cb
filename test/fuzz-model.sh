#!/bin/sh
# The model-file fuzzer (test/fuzz/fuzz_model.c), briefly: SIMBLAS_FUZZ_SECONDS
# (default 30) of libFuzzer, with AddressSanitizer, UBSan and LeakSanitizer,
# from the seed corpus: test/fuzz/seeds (a calibrated model, pieces, edge
# values) and the built models/default.model.  What a finding is: see
# fuzz_model.c.  A finding fails the test, and its input is kept in
# test/fuzz-findings/ and shown here.  bench/fuzz-model runs it long.
set -u
src=${SB_SRCDIR:-$(dirname "$0")/..}
bld=${SB_BUILDDIR:-.}
. "$src/test/strict.sh"
fz=$bld/test/fuzz/fuzz_model
[ -x "$fz" ] || missing "no $fz: configure found no clang with libFuzzer (install clang and libclang-rt-14-dev)"
secs=${SIMBLAS_FUZZ_SECONDS:-30}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/corpus"
cp "$src"/test/fuzz/seeds/* "$bld/models/default.model" "$tmp/corpus/"
# its own sanitizer runtime (clang's): not the one the sanitizer build
# preloads into every test
env -u LD_PRELOAD ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  "$fz" -max_total_time="$secs" -max_len=16384 -timeout=10 -rss_limit_mb=2048 -dict="$src/test/fuzz/model.dict" \
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
