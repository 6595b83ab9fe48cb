#!/bin/sh
# simblas-calibrate's refusals, none of which measures anything: each is
# one line naming the option and what to give, exit status 2, before the
# probe, and the files named stay as they were:
#  - option values parsed whole and range-checked (2.9, 1e10, 0x10 and abc
#    are refused, not cut to a number), an option without its value or
#    unknown, an empty --routines or -o, an option the mode ignores;
#  - an existing -o that is no model (a text file: it is not replaced) and
#    an -o that is also an input (a trace, by another name or a link);
#  - a --blas library without dgemm_ (no BLAS: nothing to calibrate);
#  - simblas-probe's: options, an -o it cannot write or that is no regular
#    file, an interrupt; and its -o through a symbolic link.
set -u
. "${SB_SRCDIR:-$(dirname "$0")/..}/test/strict.sh"
bld=${SB_BUILDDIR:-.}
cal=$bld/calibrator/simblas-calibrate
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0

# refused WHAT PATTERN ARGS...: exit 2, exactly one line, matching PATTERN
# (fixed text), nothing measured
refused() {
  what=$1 pat=$2; shift 2
  out=$("$cal" "$@" 2>&1); rc=$?
  if [ $rc -eq 2 ] && [ "$(printf '%s\n' "$out" | wc -l)" -eq 1 ] && printf '%s\n' "$out" | grep -qF -- "$pat"; then
    ok "$what"
  else ko "$what: rc=$rc: $out"; fi
}
o="-o $tmp/x.model"
# numbers: the whole string, in range
refused "--seed abc" "--seed needs a whole number (decimal) from 0 to 18446744073709551615, not 'abc'" --seed abc $o
refused "--seed -1" "--seed needs a whole number (decimal) from 0 to 18446744073709551615, not '-1'" --seed -1 $o
refused "--seed 2^64" "not '18446744073709551616'" --seed 18446744073709551616 $o
refused "--cores 0.5" "--cores needs a whole number of cores from 1 to 4096, not '0.5'" --cores 0.5 $o
refused "--cores 0" "--cores needs a whole number of cores from 1 to 4096, not '0'" --cores 0 $o
refused "--reps 2.9" "--reps needs a whole number of repetitions from 2 to 1000, not '2.9'" --reps 2.9 $o
refused "--reps 1e10" "--reps needs a whole number of repetitions from 2 to 1000, not '1e10'" --reps 1e10 $o
refused "--reps 99999999999" "not '99999999999'" --reps 99999999999 $o
refused "--reps 1" "--reps needs a whole number of repetitions from 2 to 1000, not '1'" --reps 1 $o
refused "--budget 1e300" "--budget needs seconds per core from 0.1 to 86400 (a day), not '1e300'" --budget 1e300 $o
refused "--budget soon" "--budget needs seconds per core from 0.1 to 86400 (a day), not 'soon'" --budget soon $o
refused "--max-call 100" "--max-call needs seconds from 0.001 to 10, not '100'" --max-call 100 $o
refused "--lld 2048.5" "--lld needs a whole number of rows from 1024 to 1048576, not '2048.5'" --lld 2048.5 $o
refused "--ld-pairs 3x" "--ld-pairs needs a whole number of rounds from 0 (none) to 1000, not '3x'" --ld-pairs 3x $o
# names: none at all is said as such
refused "--routines ''" "--routines '' names no routine: give some, comma-separated" --routines '' $o
refused "--routines ,," "--routines ',,' names no routine" --routines ,, $o
refused "-o ''" "-o '': an empty name; give the model a file name, e.g. simblas.model" -o ''
# one line, not the usage
refused "unknown option" "unknown or incomplete option '--bogus' (simblas-calibrate --help lists the options)" --bogus
refused "unknown short option" "unknown option '-x' (simblas-calibrate --help lists the options)" -x
refused "bare -o" "-o needs a value (simblas-calibrate --help lists the options)" -o
refused "bare --budget" "--budget needs a value" --quick --budget
# an option the mode does nothing with
printf 'simblas-model 1\nreference-speed 1e10\nend\n' > "$tmp/G.model"
refused "--summary with -o" "-o, --output does nothing with --summary, which only reads MODEL: leave it out" \
  --summary "$tmp/G.model" --quick -o /nonexist/x
refused "--summary with --quick" "--quick does nothing with --summary" --summary "$tmp/G.model" --quick
refused "--summary with --from-trace" "--from-trace does nothing with --summary" --summary "$tmp/G.model" --from-trace x.csv
refused "--network with --budget" "--budget does nothing with --network, which measures the MPI" --network --budget 3
refused "--from-trace with --cores" "--cores does nothing with --from-trace" --from-trace --cores 1 -o "$tmp/G.model" x.csv
refused "--reference-speed with --routines" "--routines does nothing with --reference-speed" --reference-speed --routines dgemm

# an existing -o that is no model: refused, the file kept
echo notes > "$tmp/notes.txt"
refused "-o a text file" "-o $tmp/notes.txt: exists and is not a SimBLAS model (its first line is not 'simblas-model'), so it is not replaced" \
  --quick --routines daxpy --cores 1 --budget 1 --no-report --solo-rounds 0 -o "$tmp/notes.txt"
[ "$(cat "$tmp/notes.txt")" = notes ] && ok "the text file kept" || ko "the text file became: $(head -2 "$tmp/notes.txt")"
ln -s notes.txt "$tmp/link.model"
refused "-o a link to a text file" "-o $tmp/link.model: exists and is not a SimBLAS model" \
  --quick --routines daxpy --cores 1 --budget 1 --no-report --solo-rounds 0 -o "$tmp/link.model"
[ -L "$tmp/link.model" ] && [ "$(cat "$tmp/notes.txt")" = notes ] && ok "the link and its text kept" || ko "the link or its text changed"
echo notes > "$tmp/notes.network"
refused "--network -o a text file" "is not a SimBLAS network file (its first line is not 'simblas-network')" \
  --network -o "$tmp/notes.network"

# --from-trace: -o is one of its traces, by its name, a symbolic link or a hard link
printf 'routine,m,n,k,predicted_s,measured_s,rank,cblas,ld\n' > "$tmp/keep.csv"; cp "$tmp/keep.csv" "$tmp/other.csv"
cp "$tmp/keep.csv" "$tmp/keep.orig"
ln -s keep.csv "$tmp/sym.csv"
ln "$tmp/keep.csv" "$tmp/hard.csv"
for out in keep.csv sym.csv hard.csv; do
  refused "--from-trace -o its trace ($out)" "-o $tmp/$out is the same file as the trace $tmp/keep.csv, which this run reads: the model would replace it; give -o another name" \
    --from-trace --base "$tmp/G.model" -o "$tmp/$out" "$tmp/other.csv" "$tmp/keep.csv"
done
cmp -s "$tmp/keep.csv" "$tmp/keep.orig" && [ -L "$tmp/sym.csv" ] && ok "the trace kept" || ko "the trace changed"
# a row longer than 511 bytes (here a valid one, padded) is one row: a
# 512-byte fgets read its tail as the next row, refused as line 3 ("not a
# trace row"), and the real line 3's problem went unnamed
{ cat "$tmp/keep.orig"; printf 'dgemm,64,48,32,1e-5,2e-5,0,0,64%600s\n' ""; printf 'xgemm,64,48,32,1e-5,2e-5,0,0,64\n'; } > "$tmp/long.csv"
refused "--from-trace: the row after a 630-byte row is line 3" "--from-trace $tmp/long.csv:3: unknown routine 'xgemm'" \
  --from-trace --base "${SIMBLAS_MODEL:-$bld/models/default.model}" -o "$tmp/x.model" "$tmp/long.csv"
# a directory given as a trace opens, then fails to read: it was "an empty file"
mkdir -p "$tmp/tracedir"
refused "--from-trace: a directory is not read as an empty file" "--from-trace $tmp/tracedir: cannot read it: Is a directory" \
  --from-trace --base "${SIMBLAS_MODEL:-$bld/models/default.model}" -o "$tmp/x.model" "$tmp/tracedir"

# a library without dgemm_ is no BLAS: refused before the probe, whose
# rate would have been written as measured
lib=$(ldd "$cal" | sed -n 's/^[[:space:]]*\(libc\.so\.[0-9]*\) => .*/\1/p')
if [ -n "$lib" ]; then
  refused "--blas $lib" "--blas $lib: the library has no dgemm_, so it is no BLAS to calibrate; name a BLAS library with --blas" \
    --quick --routines daxpy --cores 1 --budget 1 --no-report --solo-rounds 0 --blas "$lib" -o "$tmp/x.model"
  refused "--reference-speed --blas $lib" "--blas $lib: the library has no dgemm_" --reference-speed --blas "$lib"
else need "no libc.so in ldd $cal"; fi

[ ! -e "$tmp/x.model" ] && ok "no model written by the refused runs" || ko "a refused run wrote a model"

# simblas-probe's refusals, the same way: one line, before measuring (an
# -o in a missing directory was refused after the whole --seconds 30 of
# measuring); interrupted, the node file it replaces is kept and its
# temporary removed
probe=$bld/tools/simblas-probe
prefused() {
  what=$1 pat=$2; shift 2
  t0=$(date +%s)
  out=$("$probe" "$@" 2>&1); rc=$?
  t=$(($(date +%s) - t0))
  if [ $rc -eq 2 ] && [ $t -lt 10 ] && [ "$(printf '%s\n' "$out" | wc -l)" -eq 1 ] && printf '%s\n' "$out" | grep -qF -- "$pat"; then
    ok "simblas-probe $what"
  else ko "simblas-probe $what: rc=$rc after $t s: $out"; fi
}
prefused "unknown option" "simblas-probe: unknown or incomplete option '--bogus' (simblas-probe --help lists the options)" --bogus
prefused "--seconds 0" "simblas-probe: --seconds needs a number of seconds in (0, 86400], not '0'" --seconds 0
prefused "-o in a missing directory" "cannot write beside $tmp/none/n.toml; choose a writable place" \
  --seconds 30 -o "$tmp/none/n.toml"
prefused "-o a directory" "-o $tmp is a directory" --seconds 30 -o "$tmp"
prefused "-o with --hog" "does nothing with --hog" --hog 30 -o "$tmp/n.toml"
# a device or a fifo is not replaced: it was, after the whole measuring,
# by the rename of the node file (-o /dev/null as root)
mkfifo "$tmp/fifo"
prefused "-o a fifo" "simblas-probe: $tmp/fifo: exists and is no regular file; give the node file a file name" \
  --seconds 30 -o "$tmp/fifo"
[ -p "$tmp/fifo" ] && ok "simblas-probe: the fifo kept" || ko "simblas-probe: the fifo replaced: $(ls -l "$tmp/fifo")"
rm -f "$tmp/fifo"
echo mine > "$tmp/n.toml"
"$probe" --seconds 30 -o "$tmp/n.toml" 2> /dev/null & p=$!
sleep 1
kill -TERM $p
wait $p 2> /dev/null
[ "$(cat "$tmp/n.toml")" = mine ] && [ "$(ls -A "$tmp" | grep -c '^\.\{0,1\}n\.toml\.tmp')" -eq 0 ] &&
  ok "simblas-probe interrupted: the node file kept, no temporary" || ko "simblas-probe interrupted left: $(ls -A "$tmp")"
# -o a symbolic link: the node file is written where it points, the link
# kept (it was replaced by the file), as simblas-calibrate's -o does
echo mine > "$tmp/real.toml"
ln -s real.toml "$tmp/link.toml"
if "$probe" --seconds 0.1 -o "$tmp/link.toml" > "$tmp/probe.out" 2>&1; then
  [ -L "$tmp/link.toml" ] && grep -q '^schema = "simblas-node/0.1"$' "$tmp/real.toml" &&
    ok "simblas-probe -o a link: written through, the link kept" ||
    ko "simblas-probe -o a link: $(ls -l "$tmp/link.toml"; head -2 "$tmp/real.toml")"
elif grep -q "neither AVX2 with FMA nor AVX-512" "$tmp/probe.out"; then
  echo "SKIP: simblas-probe -o a link: no peak to measure on this CPU"
else ko "simblas-probe -o a link: $(cat "$tmp/probe.out")"; fi
rm -f "$tmp/link.toml" "$tmp/real.toml" "$tmp/probe.out"
[ -z "$(ls -A "$tmp" | grep '\.tmp\.')" ] && ok "no temporary left" || ko "temporaries left: $(ls -A "$tmp")"
echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
