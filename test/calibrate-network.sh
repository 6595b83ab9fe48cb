#!/bin/sh
# simblas-calibrate --network end to end, with the real MPI (Open MPI's
# mpirun) on this host (issue 23, item 5):
#  - bad options (and a SIMBLAS_MPIRUN that is no executable): one clear
#    line, exit 2, nothing measured or written;
#  - the real ping-pong between two cores writes a network file that
#    simblas-hpl reads back (tools/simblas_hpl/network.py) and whose
#    figures are sane: the intra-node link's latency between 0.05 us and
#    100 us, its bandwidth between 0.1 and 200 GB/s, the factors positive,
#    every size measured and the fit's segments recorded;
#  - a hostfile whose two ranks land on one host is refused (the
#    interconnect needs two), and the previous file stays as it was, with
#    no temporary left beside it;
#  - a run stopped by ^C (SIGINT) or SIGTERM while the ping-pong runs
#    leaves the previous file as it was and no temporary beside it, and
#    stops mpirun and its ranks (a process group the terminal's ^C does not
#    reach).
# Skips (exit 77; fails under SIMBLAS_TEST_STRICT=1) without mpirun or a
# simblas-pingpong build (configure found no mpicc).
set -u
src=${SB_SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}
. "$src/test/strict.sh"
bld=${SB_BUILDDIR:-.}
cal=$bld/calibrator/simblas-calibrate
py=${PYTHON:-python3}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0

command -v mpirun > /dev/null 2>&1 || missing "mpirun not found (Open MPI: openmpi-bin, libopenmpi-dev)"
[ -x "$bld/calibrator/simblas-pingpong" ] || missing "no $bld/calibrator/simblas-pingpong (configure found no mpicc)"
[ "$(nproc)" -ge 2 ] || { echo "SKIP: the intra-node ping-pong needs two cores, this machine has $(nproc)"; exit 77; }

expect_error() { # what pattern args...
  what=$1 pat=$2; shift 2
  out=$("$cal" "$@" 2>&1); rc=$?
  if [ $rc -eq 2 ] && [ "$(echo "$out" | wc -l)" -eq 1 ] && echo "$out" | grep -q -- "$pat"; then ok "$what"
  else ko "$what: rc=$rc: $out"; fi
}
expect_error "--hostfile without --network" "add --network" --hostfile /etc/hostname -o "$tmp/x.network"
expect_error "a missing hostfile" "--hostfile $tmp/none: No such file" --network --hostfile "$tmp/none" -o "$tmp/x.network"
expect_error "--network with --from-trace" "run it on its own" --network --from-trace -o "$tmp/x.network" t.csv
expect_error "unwritable output" "cannot write the network file into /nonexistent/dir" --network \
  -o /nonexistent/dir/x.network
expect_error "a directory as output" "a directory; give a file name, e.g. $tmp/simblas.network" --network -o "$tmp"
# SIMBLAS_MPIRUN, read through lib/settings.c's row
export SIMBLAS_MPIRUN="$tmp/no-mpirun"
expect_error "SIMBLAS_MPIRUN naming no executable" "SIMBLAS_MPIRUN=$tmp/no-mpirun is not an executable" \
  --network -o "$tmp/x.network"
unset SIMBLAS_MPIRUN
[ ! -e "$tmp/x.network" ] && ok "nothing written by refused runs" || ko "a refused run wrote a file"

# the real ping-pong between two cores of this host
if "$cal" --network -o "$tmp/n.network" > "$tmp/out" 2> "$tmp/err"; then
  ok "intra-node ping-pong ran: $(grep -o 'intra: .*' "$tmp/err")"
else
  ko "simblas-calibrate --network failed: $(tail -3 "$tmp/err")"
fi
head -1 "$tmp/n.network" | grep -qx "simblas-network 1" && ok "network file header" || ko "no network file header"
# read back as simblas-hpl reads it, and the figures checked
if SB_NET="$tmp/n.network" PYTHONPATH="$src/tools" PYTHONDONTWRITEBYTECODE=1 "$py" - > "$tmp/check" 2>&1 <<'EOF'
import os
from simblas_hpl import network
net = network.read(os.environ["SB_NET"])
k = net.intra
print(f"latency {k.latency * 1e6:.3g} us, bandwidth {k.bandwidth / 1e9:.3g} GB/s")
assert 0.05e-6 <= k.latency <= 100e-6, f"latency {k.latency:g} s out of 0.05-100 us"
assert 0.1e9 <= k.bandwidth <= 200e9, f"bandwidth {k.bandwidth:g} B/s out of 0.1-200 GB/s"
for lst in (k.lat_factor, k.bw_factor):
    assert network.parse_factors(lst), lst
assert net.inter is None
EOF
then ok "the file reads back and its link is sane: $(cat "$tmp/check")"
else ko "the network file is not sane: $(cat "$tmp/check")"; fi
# the fit's record: its segments and every size measured (how well it fits
# is a figure, not a check: make check runs beside other tests, and a
# loaded machine's ping-pong is noisy; bench/network-validate measures)
fit=$(grep '^intra fit' "$tmp/n.network")
sizes=$(echo "$fit" | sed -n 's/.*sizes=\([0-9]*\).*/\1/p')
segs=$(echo "$fit" | sed -n 's/.*segments=\([0-9]*\).*/\1/p')
if [ -n "$sizes" ] && [ "$(grep -c '^intra pingpong' "$tmp/n.network")" -eq "$sizes" ] && [ "${segs:-0}" -ge 1 ] \
   && [ "$(grep -c '^intra segment' "$tmp/n.network")" -eq "$segs" ]; then
  ok "$sizes sizes and $segs segment(s) recorded (${fit#intra fit })"
else ko "the fit's record is incomplete: $fit"; fi
[ "$(grep -c '^intra collective' "$tmp/n.network")" -eq 6 ] && ok "bcast and allreduce at three sizes" \
  || ko "collectives missing: $(grep -c '^intra collective' "$tmp/n.network")"

# a hostfile whose ranks share one host: refused, the previous file kept
cp "$tmp/n.network" "$tmp/before"
printf 'localhost slots=2\n' > "$tmp/hosts"
out=$("$cal" --network --hostfile "$tmp/hosts" -o "$tmp/n.network" 2>&1); rc=$?
# the intra-node ping-pong runs first; the refusal is the last line
if [ $rc -eq 2 ] && echo "$out" | tail -1 | grep -q "both ranks ran on .*the interconnect needs two hosts"; then
  ok "a hostfile of one host refused"
else ko "a hostfile of one host: rc=$rc: $out"; fi
cmp -s "$tmp/before" "$tmp/n.network" && ok "the previous file untouched" || ko "the previous file changed"
[ -z "$(ls -A "$tmp" | grep '\.tmp\.')" ] && ok "no temporary left" || ko "temporaries left: $(ls -A "$tmp")"

# stopped while the ping-pong runs: mpirun and its ranks are the processes
# one of whose arguments is this build's simblas-pingpong (/proc: no ps)
printf '%s\n' "$(cd "$bld" && pwd -P)/calibrator/simblas-pingpong" > "$tmp/pingpong"
running() { grep -lzxFf "$tmp/pingpong" /proc/[0-9]*/cmdline 2> /dev/null | wc -l; }
for sig in INT TERM; do
  "$cal" --network -o "$tmp/n.network" > /dev/null 2> "$tmp/err.$sig" &
  pid=$!
  i=0
  while [ "$(running)" -lt 3 ] && [ $i -lt 300 ] && kill -0 $pid 2> /dev/null; do sleep 0.1; i=$((i + 1)); done
  procs=$(running) temps=$(ls -A "$tmp" | grep -c '\.tmp\.')
  kill -$sig $pid
  wait $pid; rc=$?
  i=0
  while [ "$(running)" -gt 0 ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
  left=$(running)
  if [ "$procs" -ge 3 ] && [ "$temps" -eq 1 ] && [ $rc -gt 128 ] && [ "$(kill -l $rc)" = "$sig" ] \
     && [ "$left" -eq 0 ] && cmp -s "$tmp/before" "$tmp/n.network" && [ -z "$(ls -A "$tmp" | grep '\.tmp\.')" ]; then
    ok "SIG$sig during the ping-pong: mpirun and its ranks stopped, the previous file untouched, the temporary removed"
  else
    why="while running $procs process(es) and $temps temporary; exit status $rc; $left process(es) left"
    ko "SIG$sig during the ping-pong: $why; files: $(ls -A "$tmp" | tr '\n' ' '); $(tail -2 "$tmp/err.$sig")"
  fi
done

echo "calibrate-network: $pass passed, $fail failed"
[ $fail -eq 0 ]
