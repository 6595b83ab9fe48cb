#!/bin/sh
# The settings (lib/settings.def, the one list of SIMBLAS_* variables):
#  - libsimblas checks its own once, at initialisation: a bad value stops
#    the program before any call with one line naming the variable and the
#    values it accepts (exit status 2); good values of every kind pass; a
#    SIMBLAS_* variable that is no setting gets a one-line warning;
#  - doc/settings.md is what lib/mksettings --markdown writes from the
#    table, settings.json (installed) what --json writes, and every
#    SIMBLAS_* name the code uses (lib, include, hpl-patches, tools,
#    calibrator, test but this file, bench, scripts) is a row or a macro
#    of ours, and every one read from the environment a row;
#  - every simblas-hpl option the table names is in the user guide.
set -u
src=${SB_SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}
build=${SB_BUILDDIR:-.}
prog=$build/test/modes_prog
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
refused SIMBLAS_POLL_COST=soon "a duration in seconds from 0 to 1"
refused SIMBLAS_POLL_USAGE=0 "a CPU share in (0, 1]"
# an infinite poll cost ended the simulation at time inf with SimGrid's
# "Deadlock detected" and status 0; an infinite growth (NaN for the first
# polls, inf after) hung it: only SIMBLAS_POLL_MAX may be unbounded
refused SIMBLAS_POLL_COST=inf "a duration in seconds from 0 to 1"
refused SIMBLAS_POLL_GROWTH=inf "a number from 0 to 1e6"
# nor may a finite one overflow: a cost of 1e308 owed inf seconds at the
# second poll (1e308 + 1e308), and so did a growth of 1e308 at a spin
# loop's second back-off (1e308 x 2)
refused SIMBLAS_POLL_COST=1e308 "a duration in seconds from 0 to 1"
refused SIMBLAS_POLL_COST=1.5 "a duration in seconds from 0 to 1"
refused SIMBLAS_POLL_GROWTH=1e308 "a number from 0 to 1e6"
accepted SIMBLAS_POLL_COST=1 SIMBLAS_POLL_GROWTH=1e6
# spellings the C library skipped over or read as hexadecimal, and
# simblas-hpl refuses (settings.py's parse): ' 5', ' 64M', '0x10' seconds
refused "SIMBLAS_BACKEND_THREADS= 5" "a number of threads >= 1"
refused "SIMBLAS_SEED= 5" "a whole number >= 0"
refused "SIMBLAS_POLL_COST= 1e-7" "a duration in seconds from 0 to 1"
refused SIMBLAS_POLL_COST=0x10 "a duration in seconds from 0 to 1"
refused "SIMBLAS_FOLD_BLOCK= 64M" "a size in bytes"
refused SIMBLAS_FOLD_BLOCK=0x4000000 "a size in bytes"
refused "SIMBLAS_LAT_FACTOR=0:inf" "a list of size:factor pairs"
refused "SIMBLAS_BW_FACTOR=65472:0.94; 0:0.81" "a list of size:factor pairs"
refused SIMBLAS_FOLD_BLOCK=12Q "a size in bytes"
refused SIMBLAS_LAT_FACTOR=65472:eleven "a list of size:factor pairs"
refused SIMBLAS_BLOCKING_WAITS=yes "0 or 1"

accepted SIMBLAS_SEED=0x10 SIMBLAS_NOISE=0 SIMBLAS_BACKEND_THREADS=2 SIMBLAS_MERGE=0
accepted SIMBLAS_SEED=09  # decimal, as the help says (strtoull's base 0 took a leading 0 as octal and refused 09)
accepted SIMBLAS_FOLD_BLOCK=128M SIMBLAS_POLL_MAX=inf SIMBLAS_POLL_USAGE=0.8 SIMBLAS_ROLL_MERGE=0
accepted SIMBLAS_LAT_FACTOR="65472:11.6436;0:2.01467" SIMBLAS_BLOCKING_WAITS=1 SIMBLAS_ITERATIONS=3 SIMBLAS_SAMPLES=4
# empty is unset
accepted SIMBLAS_SEED= SIMBLAS_NOISE= SIMBLAS_MODE=null

# what settings need of each other (settings.def's SB_NEEDS rows): exit 2,
# one line naming the rule, the variable that breaks it and what to do
# needs PATTERN VAR=VALUE...
needs() {
  pat=$1; shift
  out=$(env SIMBLAS_MODE=null "$@" "$prog" 2>&1 >/dev/null); rc=$?
  if [ $rc -eq 2 ] && [ "$(echo "$out" | wc -l)" -eq 1 ] && echo "$out" | grep -qF -- "$pat"; then ok "$* refused: $out"
  else ko "$*: rc=$rc, expected 2 and one line with '$pat': $out"; fi
}
needs "SIMBLAS_SAMPLES=4 samples the run in passes of SIMBLAS_ITERATIONS iterations, which needs SIMBLAS_ITERATIONS>0 \
(SIMBLAS_ITERATIONS is unset); set SIMBLAS_ITERATIONS above 0, or unset SIMBLAS_SAMPLES" SIMBLAS_SAMPLES=4
needs "(SIMBLAS_ITERATIONS is '0'); set SIMBLAS_ITERATIONS above 0, or unset SIMBLAS_SAMPLES" \
  SIMBLAS_ITERATIONS=0 SIMBLAS_SAMPLES=1
needs "SIMBLAS_SAMPLE_ONLY=0 runs one pass (numbered from 0) of a run sampled in SIMBLAS_SAMPLES passes of \
SIMBLAS_ITERATIONS iterations, which needs SIMBLAS_ITERATIONS>0 and SIMBLAS_SAMPLES>SIMBLAS_SAMPLE_ONLY \
(SIMBLAS_ITERATIONS is unset)" SIMBLAS_SAMPLE_ONLY=0
needs "(SIMBLAS_SAMPLES is '4'); set SIMBLAS_SAMPLES above 4, or unset SIMBLAS_SAMPLE_ONLY" \
  SIMBLAS_ITERATIONS=3 SIMBLAS_SAMPLES=4 SIMBLAS_SAMPLE_ONLY=4
needs "(SIMBLAS_SAMPLES is '1'); set SIMBLAS_SAMPLES above 1" SIMBLAS_ITERATIONS=3 SIMBLAS_SAMPLE_ONLY=1
needs "(SIMBLAS_MERGE is '0'); set SIMBLAS_MERGE=1, or unset SIMBLAS_PIVOT_EVERY" \
  SIMBLAS_MODE=smpi SIMBLAS_MERGE=0 SIMBLAS_PIVOT_EVERY=4
accepted SIMBLAS_ITERATIONS=3 SIMBLAS_SAMPLES=4 SIMBLAS_SAMPLE_ONLY=3
accepted SIMBLAS_ITERATIONS=3 SIMBLAS_SAMPLE_ONLY=0
accepted SIMBLAS_SAMPLES= SIMBLAS_SAMPLE_ONLY= SIMBLAS_PIVOT_EVERY=1

# a name that is no setting: a warning, and the run goes on
env SIMBLAS_MODE=null SIMBLAS_PIVOT_EVRY=4 "$prog" 2> "$tmp/err" > /dev/null; rc=$?
out=$(grep -v '^stats ' "$tmp/err")
if [ $rc -eq 0 ] && [ "$(echo "$out" | wc -l)" -eq 1 ] \
   && echo "$out" | grep -q 'SIMBLAS_PIVOT_EVRY is not a SimBLAS setting and is ignored'; then ok "unknown name warned: $out"
else ko "SIMBLAS_PIVOT_EVRY: rc=$rc: $out"; fi

# ---- the table, its doc page and its JSON
mk=$build/lib/mksettings
if "$mk" --markdown > "$tmp/settings.md" && cmp -s "$tmp/settings.md" "$src/doc/settings.md"; then
  ok "doc/settings.md is the table's ($(grep -c '^| `SIMBLAS_' "$tmp/settings.md") variables)"
else
  ko "doc/settings.md differs from lib/settings.def: run 'make settings-doc' and commit it"
  diff "$tmp/settings.md" "$src/doc/settings.md" | head -n 10
fi
"$mk" --json > "$tmp/settings.json"
if python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
assert d["format"] == 1 and d["settings"]
for r in d["settings"]:
    assert r["name"].startswith("SIMBLAS_") and r["read_by"] and r["help"], r["name"]
    assert r["type"] == "TEXT" or r["accepts"], r["name"]  # what libsimblas and simblas-hpl refuse with
for r in d["settings"]:
    print(r["name"])' "$tmp/settings.json" > "$tmp/rows" 2> "$tmp/json.err"; then
  ok "settings.json: $(wc -l < "$tmp/rows") rows, each with its readers and help"
else
  ko "settings.json: $(tail -n 1 "$tmp/json.err")"
fi
if [ -f "$build/settings.json" ] && ! cmp -s "$build/settings.json" "$tmp/settings.json"; then
  ko "$build/settings.json is not what lib/mksettings --json writes"
fi
# the names the code uses (test_settings.py misspells one on purpose, as
# this script does): rows, or our macros (header guards, versions, the
# patches' compile switch SIMBLAS_HPL: what include, lib and hpl-patches
# define or test)
codedirs="lib include hpl-patches tools calibrator test bench scripts"
(cd "$src" && grep -rhoE '#[ ]*(define|ifndef|ifdef) SIMBLAS_[A-Z0-9_]+' include lib hpl-patches | awk '{ print $NF }') \
  | sort -u > "$tmp/macros"
(cd "$src" && grep -rhoE 'SIMBLAS_[A-Z0-9_]*[A-Z0-9]' $codedirs \
   --exclude=settings.def --exclude=settings.sh --exclude=test_settings.py 2> /dev/null) | sort -u > "$tmp/used"
unlisted=$(sort -u "$tmp/rows" "$tmp/macros" | comm -23 "$tmp/used" - | tr '\n' ' ')
[ -z "$unlisted" ] && ok "every SIMBLAS_* name in the code is a row of lib/settings.def ($(wc -l < "$tmp/used") names)" \
  || ko "SIMBLAS_* names used but not in lib/settings.def (add a row): $unlisted"
# a name read from the environment ($NAME or ${NAME in a script, getenv,
# environ in Python) is a row, even where a macro has the same name
(cd "$src" && grep -rhoE '(\$\{?|getenv\("|environ(\.get)?[[(]"|settings\.[a-z]+\(")SIMBLAS_[A-Z0-9_]*[A-Z0-9]' \
   $codedirs --exclude=settings.def --exclude=settings.sh --exclude=test_settings.py 2> /dev/null) \
  | grep -oE 'SIMBLAS_[A-Z0-9_]*[A-Z0-9]' | sort -u > "$tmp/read"
notrow=$(sort -u "$tmp/rows" | comm -23 "$tmp/read" - | tr '\n' ' ')
[ -z "$notrow" ] && ok "every SIMBLAS_* variable the code reads is a row of lib/settings.def ($(wc -l < "$tmp/read") names)" \
  || ko "SIMBLAS_* variables read but not rows of lib/settings.def (add a row, or rename): $notrow"
# the simblas-hpl options it names are documented
missing=
for o in $(python3 -c 'import json, re, sys
for r in json.load(open(sys.argv[1]))["settings"]:
    for o in re.findall(r"--[a-z-]+", r["option"]):
        print(o)' "$tmp/settings.json" | sort -u); do
  grep -q -- "$o" "$src/doc/user-guide.md" || missing="$missing $o"
done
[ -z "$missing" ] && ok "the simblas-hpl options the table names are in doc/user-guide.md" \
  || ko "options in lib/settings.def not in doc/user-guide.md:$missing"

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
