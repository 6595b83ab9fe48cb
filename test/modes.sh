#!/bin/sh
# The modes and the configuration errors of libsimblas, outside smpirun:
# trace CSV (written whole, or not at all: an interrupted run, a full
# disk), noise reproducibility and mean, and the one-line errors for a
# bad SIMBLAS_MODE, a missing model, a model the loader refuses, a missing
# backend, a backend that is libsimblas itself, smpi without smpirun.
set -u
prog=${SB_BUILDDIR:-.}/test/modes_prog
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0
ok() { echo "ok: $1"; pass=$((pass + 1)); }
ko() { echo "FAIL: $1"; fail=$((fail + 1)); }

# -- trace: header, one row per call, real measured times
if SIMBLAS_MODE=trace SIMBLAS_TRACE=$tmp/t.csv "$prog" 3 > /dev/null 2>&1; then
  head -1 "$tmp/t.csv" | grep -q '^routine,m,n,k,predicted_s,measured_s' && ok "trace header" || ko "trace header: $(head -1 "$tmp/t.csv")"
  rows=$(($(wc -l < "$tmp/t.csv") - 1))
  [ "$rows" -eq 6 ] && ok "trace has one row per call (6)" || ko "trace rows: $rows, expected 6"
  awk -F, 'NR > 1 && !($6 > 0) { bad = 1 } END { exit bad }' "$tmp/t.csv" && ok "trace measured_s > 0" || ko "trace measured_s"
  grep -q '^dgemm,64,48,32,' "$tmp/t.csv" && ok "trace sizes" || ko "trace sizes: $(sed -n 2p "$tmp/t.csv")"
  grep -q '^daxpy,0,1000,0,' "$tmp/t.csv" && ok "trace unused sizes are 0" || ko "trace level-1 row: $(sed -n 3p "$tmp/t.csv")"
  # dgemm gives C's leading dimension (ldc = 64 here), which a model's
  # dgemm@ld line scales by; daxpy gives none
  awk -F, '$1 == "dgemm" && $9 != 64 { bad = 1 } $1 == "daxpy" && $9 != 0 { bad = 1 } END { exit bad }' "$tmp/t.csv" \
    && ok "trace ld: dgemm's ldc, 0 for daxpy" || ko "trace ld column: $(sed -n 2,3p "$tmp/t.csv")"
else
  ko "trace mode run failed"
fi

# -- trace: kept whole or not at all.  An interrupted run left the CSV it
# had written so far under SIMBLAS_TRACE, its last row cut short, and a
# full disk lost rows with exit status 0 and no word
cp "$tmp/t.csv" "$tmp/t.before"
SIMBLAS_MODE=trace SIMBLAS_TRACE=$tmp/t.csv timeout -s INT 1 "$prog" 100000000 > /dev/null 2>&1
cmp -s "$tmp/t.csv" "$tmp/t.before" && ok "trace: an interrupted run leaves the earlier trace as it was" \
  || ko "trace: an interrupted run changed $tmp/t.csv: $(tail -c 80 "$tmp/t.csv")"
# its rows are left aside (t.csv.PID.part) until the next trace of that name removes them (below)
ls "$tmp"/t.csv.*.part > /dev/null 2>&1 && ok "trace: an interrupted run's rows are left aside, not under the name" \
  || ko "trace: no .part after an interrupted run: $(ls "$tmp")"
for calls in 1 1000; do # the last rows at exit, rows during the run
  out=$(SIMBLAS_MODE=trace SIMBLAS_TRACE=/dev/full "$prog" $calls 2>&1 >/dev/null | grep -v '^stats '); rc=$?
  [ "$(echo "$out" | wc -l)" -eq 1 ] && echo "$out" | grep -q "cannot write the trace /dev/full: No space left on device" \
    && ok "trace on a full disk ($calls calls): $out" || ko "trace on a full disk ($calls calls): $out"
  SIMBLAS_MODE=trace SIMBLAS_TRACE=/dev/full "$prog" $calls > /dev/null 2>&1
  [ $? -eq 2 ] && ok "trace on a full disk ($calls calls): exit status 2" || ko "trace on a full disk ($calls calls): status not 2"
done
SIMBLAS_MODE=trace SIMBLAS_TRACE=/dev/stdout "$prog" 1 2> /dev/null | grep -q '^routine,m,n,k,' \
  && ok "trace to /dev/stdout: written through" || ko "trace to /dev/stdout: no header on stdout"
mkdir "$tmp/tdir"
out=$(SIMBLAS_MODE=trace SIMBLAS_TRACE=$tmp/tdir "$prog" 1 2>&1 >/dev/null); rc=$?
[ $rc -eq 2 ] && echo "$out" | grep -q "SIMBLAS_TRACE=$tmp/tdir is a directory" && ok "trace to a directory refused" \
  || ko "trace to a directory: rc=$rc: $out"
# two processes given one SIMBLAS_TRACE (every rank of an mpirun): each
# would rename its rows over the other's; the one that finds the name taken
# stops at start, saying so (the other's lock held here by flock(1))
cp "$tmp/t.csv" "$tmp/t.before"
flock -o "$tmp/t.csv.lock" sleep 5 & holder=$!  # -o: the lock is flock's alone, released when it is killed
i=0; while [ ! -e "$tmp/t.csv.lock" ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
out=$(SIMBLAS_MODE=trace SIMBLAS_TRACE=$tmp/t.csv "$prog" 3 2>&1 >/dev/null); rc=$?
kill $holder 2>/dev/null; wait $holder 2>/dev/null
[ $rc -eq 2 ] && [ "$(echo "$out" | wc -l)" -eq 1 ] \
  && echo "$out" | grep -q "SIMBLAS_TRACE=$tmp/t.csv is being written by another process" \
  && cmp -s "$tmp/t.csv" "$tmp/t.before" && ok "trace: a name another process writes is refused: $out" \
  || ko "trace: a name another process writes: rc=$rc: $out"
SIMBLAS_MODE=trace SIMBLAS_TRACE=$tmp/t.csv "$prog" 3 > /dev/null 2>&1 && [ ! -e "$tmp/t.csv.lock" ] \
  && ok "trace: the name free again, a run writes it and leaves no lock" || ko "trace: after the lock: $(ls "$tmp")"
[ -z "$(ls "$tmp" | grep '\.part$')" ] && ok "trace: no .part file left by a finished run (nor the interrupted one's)" \
  || ko "trace: .part files left: $(ls "$tmp" | grep '\.part$')"

# -- noise: a model with sigma
cat > "$tmp/noisy.model" <<M
simblas-model 1
reference-speed 1e10
dgemm mnk=1e-10 | mnk=2e-11
end
M
run_noise() { SIMBLAS_MODE=null SIMBLAS_MODEL=$tmp/noisy.model SIMBLAS_NOISE=1 SIMBLAS_SEED=$1 "$prog" "$2" 2>/dev/null | awk '$1 == "dgemm" { print $5 }'; }
run_noise 7 20 > "$tmp/a"; run_noise 7 20 > "$tmp/b"; run_noise 8 20 > "$tmp/c"
cmp -s "$tmp/a" "$tmp/b" && ok "noise: same seed, same durations" || ko "noise: same seed differs"
cmp -s "$tmp/a" "$tmp/c" && ko "noise: different seeds give the same durations" || ok "noise: another seed, other durations"
[ "$(sort -u "$tmp/a" | wc -l)" -gt 15 ] && ok "noise: durations vary" || ko "noise: durations do not vary"
# mean and standard deviation over 20000 draws: mu = 1e-10*64*48*32, sigma = mu/5
run_noise 1 20000 | awk -v mu=9.8304e-6 '{ s += $1; q += $1 * $1; n++; if ($1 <= 0) neg++ }
  END { m = s / n; sd = sqrt(q / n - m * m);
        printf "noise: mean %.4g (model %.4g), sd %.3g (model %.3g)\n", m, mu, sd, mu / 5;
        exit !(neg == 0 && m > 0.99 * mu && m < 1.01 * mu && sd > 0.9 * mu / 5 && sd < 1.1 * mu / 5) }' \
  && ok "noise: mean and sigma as modelled, all positive" || ko "noise: mean or sigma off"
SIMBLAS_MODE=null SIMBLAS_MODEL=$tmp/noisy.model "$prog" 5 2>/dev/null | awk '$1 == "dgemm"' | sort -u | wc -l | grep -qx 1 \
  && ok "no noise without SIMBLAS_NOISE" || ko "durations vary without SIMBLAS_NOISE"

# -- configuration errors: one line naming the problem and the remedy, exit 2
expect_error() { # what, pattern, env...
  what=$1 pat=$2; shift 2
  out=$(env "$@" "$prog" 2>&1 >/dev/null); rc=$?
  if [ $rc -eq 2 ] && echo "$out" | grep -q "$pat" && [ "$(echo "$out" | wc -l)" -eq 1 ]; then ok "$what"
  else ko "$what: rc=$rc, message: $out"; fi
}
expect_error "bad SIMBLAS_MODE" "SIMBLAS_MODE='fast' is not one of" SIMBLAS_MODE=fast
expect_error "missing model" "/nonexistent.model.*SIMBLAS_MODEL" SIMBLAS_MODE=null SIMBLAS_MODEL=/nonexistent.model
expect_error "missing backend" "SIMBLAS_BACKEND" SIMBLAS_MODE=passthrough SIMBLAS_BACKEND=/nonexistent/libblas.so
expect_error "trace without SIMBLAS_TRACE" "SIMBLAS_TRACE" SIMBLAS_MODE=trace SIMBLAS_TRACE=
expect_error "smpi mode outside smpirun" "SIMBLAS_MODE" SIMBLAS_MODE=smpi
# a host factors file without a line, or a directory, ran every host at the
# model's speed without a word (a host missing from a file is said)
printf '# host factor [memory]\n\n' > "$tmp/nofactors"
expect_error "host factors without a line" "SIMBLAS_HOST_FACTORS=$tmp/nofactors has no 'HOST FACTOR' line" \
  SIMBLAS_MODE=null SIMBLAS_HOST_FACTORS="$tmp/nofactors"
expect_error "host factors: a directory" "SIMBLAS_HOST_FACTORS=$tmp: cannot read it (Is a directory)" \
  SIMBLAS_MODE=null SIMBLAS_HOST_FACTORS="$tmp"
# lines longer than 4,095 bytes: fgets into a 4,096-byte buffer took a long
# line's tail for a line of its own, so a long comment's tail was refused
# as a bad line, every later line's number was one too high, and a host
# name was cut at 1,023 bytes (two long names that differ past it: "two
# factors", or the name's tail read as its factor)
long=$(head -c 6000 /dev/zero | tr '\0' x)
expect_runs() { # what, env...: exit status 0
  what=$1; shift
  out=$(env "$@" "$prog" 2>&1 >/dev/null); rc=$?
  [ $rc -eq 0 ] && ok "$what" || ko "$what: rc=$rc: $(echo "$out" | cut -c 1-300)"
}
printf 'host0 0.5 # %s\nhost1 0.8\n' "$long" > "$tmp/longcomment"
expect_runs "host factors: a comment of 6,000 bytes is one comment" SIMBLAS_MODE=null SIMBLAS_HOST_FACTORS="$tmp/longcomment"
printf 'host0%5000s0.5\nhost1 -1\n' "" > "$tmp/longline"
expect_error "host factors: the line after a 5,000-byte line is line 2" "^[^:]*: $tmp/longline:2: expected 'HOST FACTOR" \
  SIMBLAS_MODE=null SIMBLAS_HOST_FACTORS="$tmp/longline"
name=$(head -c 1023 /dev/zero | tr '\0' h)
printf '%s1 0.5\n%s2 0.6\n' "$name" "$name" > "$tmp/longnames"
expect_runs "host factors: two 1,024-byte host names that differ in their last byte" \
  SIMBLAS_MODE=null SIMBLAS_HOST_FACTORS="$tmp/longnames"
# issue 21: a model the loader refuses gets a message naming the file,
# never an uninitialised buffer (a second '|' on a line: the loader used
# to fail there without a reason)
printf 'simblas-model 1\nreference-speed 1e10\ndgemm mnk=1e-11 | 1=1 | 2=2\nend\n' > "$tmp/bad.model"
expect_error "a model line with a second '|' names the file" "$tmp/bad.model" SIMBLAS_MODE=null SIMBLAS_MODEL="$tmp/bad.model"
out=$(SIMBLAS_MODE=null SIMBLAS_MODEL="$tmp/bad.model" "$prog" 2>&1 >/dev/null)
echo "$out" | LC_ALL=C grep -q '[^[:print:]]' && ko "bad model: the message has bytes that are not text: $out" \
  || ok "bad model: the message is text"
# issue 21: passthrough onto libsimblas itself (by its name, through a
# libblas.so.3 that resolves to it, or a copy) is refused at load, where
# it used to recurse through 40,000 dgemm_ frames and crash
lib=$(cd "${SB_BUILDDIR:-.}/.libs" && pwd)/libsimblas.so
ln -s "$lib" "$tmp/libblas.so.3"
cp "$(readlink -f "$lib")" "$tmp/libcopy.so"
for b in "$lib" "$tmp/libblas.so.3" "$tmp/libcopy.so"; do
  # (a copy defines libsimblas's globals twice, which AddressSanitizer
  # reports as an ODR violation at load, before libsimblas can)
  expect_error "passthrough onto libsimblas ($(basename "$b")) refused" "'$b' is libsimblas itself" \
    SIMBLAS_MODE=passthrough SIMBLAS_BACKEND="$b" ASAN_OPTIONS="${ASAN_OPTIONS:-}:detect_odr_violation=0"
done

env -u SIMBLAS_MODE "$prog" > /dev/null 2>&1; rc=$?
[ $rc -eq 2 ] && ok "default mode outside smpirun stops cleanly (rc 2)" || ko "default mode outside smpirun: rc $rc"

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
