#!/bin/sh
# The whole test suite, on a fresh Debian 12 machine (as root), from the
# repository: installs what is missing, builds twice and tests:
#   1. with -fsanitize=address,undefined: make check
#   2. a plain build: make distcheck (builds the tarball, installs it into
#      a staging prefix and runs make check there)
# Usage: scripts/run-tests.sh            (CI runs exactly this)
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
# a checkout whose path holds a space or tab: Automake's configure refuses
# it as srcdir ("unsafe srcdir value"), and libtool splits it when it links
# libsimblas_pmpi against libsimblas; both builds go through a symbolic
# link to the checkout, made where the path has none (removed at the end)
case $top in
  *[[:space:]]*)
    via=$(mktemp -d /tmp/simblas-tests.XXXXXX)
    trap 'rm -f "$via/src"; rmdir "$via"' EXIT
    ln -s "$top" "$via/src"
    top=$via/src ;;
esac
cd "$top"
sh scripts/install-deps.sh --sources
./autogen.sh > /dev/null 2>&1 || ./autogen.sh
jobs=$(nproc 2>/dev/null || echo 2)
start=$(date +%s)
# failed_logs DIR: the last 40 lines of each failed test's log under DIR
failed_logs() {
  for t in "$1"/test/*.trs "$1"/test/*/*.trs; do
    grep -q '^:test-result: \(FAIL\|ERROR\)' "$t" 2>/dev/null && { echo "---- ${t%.trs}.log"; tail -40 "${t%.trs}.log"; }
  done
  return 0 # (the loop's last grep, a test that passed, would end the script here under set -e, status 1, not make's)
}

echo "== sanitizer build (address, undefined) =="
rm -rf _build/asan && mkdir -p _build/asan && cd _build/asan
san="-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined"
"$top/configure" -q CFLAGS="-O1 -g $san" LDFLAGS="$san"
# every optional part found: one configure left out would drop its tests
# from make check without a word
for c in SIMGRID SMPIRUN BACKEND CALIBRATOR CMOCKA GFORTRAN HELP2MAN FUZZER MPICC; do
  grep -q "^S\[\"HAVE_${c}_TRUE\"\]=\"\"" config.status || {
    echo "configure did not enable HAVE_$c, so make check would skip its tests: see $PWD/config.log" \
         "and install what it lacks (sh scripts/install-deps.sh --sources)"; exit 1; }
done
# and a test whose component is missing fails instead of skipping
SIMBLAS_TEST_STRICT=1
export SIMBLAS_TEST_STRICT
make -j"$jobs" > build.log 2>&1 || { tail -50 build.log; exit 1; }
# programs that are not instrumented (gfortran test programs, smpirun's
# smpimain) load libsimblas: preload the sanitizer runtimes for them
LD_PRELOAD="$(cc -print-file-name=libasan.so) $(cc -print-file-name=libubsan.so)"
ASAN_OPTIONS=detect_leaks=0:verify_asan_link_order=0:abort_on_error=1
UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
export LD_PRELOAD ASAN_OPTIONS UBSAN_OPTIONS
status=0
make -j"$jobs" check || status=$?
unset LD_PRELOAD
if [ $status -ne 0 ]; then
  failed_logs .
  exit $status
fi
cd "$top"

echo "== plain build: make distcheck =="
rm -rf _build/plain && mkdir -p _build/plain && cd _build/plain
"$top/configure" -q
make -j"$jobs" > build.log 2>&1 || { tail -50 build.log; exit 1; }
if ! make -j"$jobs" distcheck > distcheck.log 2>&1; then
  grep -E '^(PASS|FAIL|ERROR|SKIP)' distcheck.log; tail -60 distcheck.log
  failed_logs "$(echo simblas-*/_build/sub)" # the distcheck tree, gone once it passes
  exit 1
fi
grep -E '^(PASS|FAIL|ERROR|SKIP|#)' distcheck.log
grep -A2 'archives ready for distribution' distcheck.log || true
echo "test suite: $(( $(date +%s) - start )) s"
# one closing line over both builds
p1=$(cat "$top"/_build/asan/test/*.trs | grep -c '^:test-result: PASS' || true)
f1=$(cat "$top"/_build/asan/test/*.trs | grep -c '^:test-result: \(FAIL\|ERROR\)' || true)
p2=$(awk '/^# PASS:/ { s += $3 } END { print s + 0 }' distcheck.log)
f2=$(awk '/^# (FAIL|ERROR):/ { s += $3 } END { print s + 0 }' distcheck.log)
echo "$((p1 + p2)) passed, $((f1 + f2)) failed"
