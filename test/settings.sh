#!/bin/sh
# libsimblas's settings (lib/settings.def): every SIMBLAS_* variable it
# reads is checked once, at initialisation.  A bad value stops the program
# before any call with one line naming the variable and the values it
# accepts (exit status 2); good values of every kind pass; a SIMBLAS_*
# variable that is no setting gets a one-line warning.
set -u
prog=${SB_BUILDDIR:-.}/test/modes_prog
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0
ok() { echo "ok: $1"; pass=$((pass + 1)); }
ko() { echo "FAIL: $1"; fail=$((fail + 1)); }

# refused VAR=VALUE PATTERN: exit 2, one line, naming VAR='VALUE' and PATTERN
refused() {
  var=${1%%=*} val=${1#*=}
  out=$(env SIMBLAS_MODE=null "$1" "$prog" 2>&1 >/dev/null); rc=$?
  if [ $rc -eq 2 ] && [ "$(echo "$out" | wc -l)" -eq 1 ] && echo "$out" | grep -qF "$var='$val' is not" \
     && echo "$out" | grep -q -- "$2"; then ok "$1 refused: $out"
  else ko "$1: rc=$rc, expected 2 and one line naming $var='$val' and '$2': $out"; fi
}
# accepted VAR=VALUE...: runs, nothing on stderr (but modes_prog's "stats" line)
accepted() {
  env SIMBLAS_MODE=null "$@" "$prog" 2> "$tmp/err" > /dev/null; rc=$?
  out=$(grep -v '^stats ' "$tmp/err")
  if [ $rc -eq 0 ] && [ -z "$out" ]; then ok "$* accepted"
  else ko "$*: rc=$rc: $out"; fi
}

# issue 21: these were ignored silently
refused SIMBLAS_BACKEND_THREADS=-3 "a number of threads >= 1"
refused SIMBLAS_SEED=abc "a whole number >= 0"
refused SIMBLAS_NOISE=yes "0 or 1"
# one of each kind
refused SIMBLAS_MODE=fast "one of smpi, null, passthrough, trace"
refused SIMBLAS_MERGE=2 "0 or 1"
refused SIMBLAS_SEED=-1 "a whole number >= 0"
refused SIMBLAS_PIVOT_EVERY=0 "a number of columns >= 1"
refused SIMBLAS_ITERATIONS=1.5 "a number of iterations"
refused SIMBLAS_ROLL_MERGE=-1 "a number of steps >= 0"
refused SIMBLAS_POLL_COST=soon "a duration in seconds >= 0"
refused SIMBLAS_POLL_USAGE=0 "a CPU share in (0, 1]"
refused SIMBLAS_FOLD_BLOCK=12Q "a size in bytes"
refused SIMBLAS_LAT_FACTOR=65472:eleven "a list of size:factor pairs"
refused SIMBLAS_BLOCKING_WAITS=yes "0 or 1"

accepted SIMBLAS_SEED=0x10 SIMBLAS_NOISE=0 SIMBLAS_BACKEND_THREADS=2 SIMBLAS_MERGE=0
accepted SIMBLAS_FOLD_BLOCK=128M SIMBLAS_POLL_MAX=inf SIMBLAS_POLL_USAGE=0.8 SIMBLAS_ROLL_MERGE=0
accepted SIMBLAS_LAT_FACTOR="65472:11.6436;0:2.01467" SIMBLAS_BLOCKING_WAITS=1 SIMBLAS_ITERATIONS=3 SIMBLAS_SAMPLES=4
# empty is unset
accepted SIMBLAS_SEED= SIMBLAS_NOISE= SIMBLAS_MODE=null

# a name that is no setting: a warning, and the run goes on
env SIMBLAS_MODE=null SIMBLAS_PIVOT_EVRY=4 "$prog" 2> "$tmp/err" > /dev/null; rc=$?
out=$(grep -v '^stats ' "$tmp/err")
if [ $rc -eq 0 ] && [ "$(echo "$out" | wc -l)" -eq 1 ] \
   && echo "$out" | grep -q 'SIMBLAS_PIVOT_EVRY is not a SimBLAS setting and is ignored'; then ok "unknown name warned: $out"
else ko "SIMBLAS_PIVOT_EVRY: rc=$rc: $out"; fi

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
