#!/bin/bash
# simblas_message_time (the merged rolls' correction, patch 14) under
# smpirun, with test/smpi/msgtime.c: for messages of 0 B to 16 MiB between
# hosts of clusters of different links, the predicted time is the one
# SimGrid simulates (SMPI's latency and bandwidth factors, each size
# class, TCP-gamma's bound on long-latency links) within 0.1% + 1 us
# (SMPI adds a few bytes of its own), also with factors of the run's own;
# for a rank outside MPI_COMM_WORLD it is 0; simblas_idle advances the
# clock; a bad SIMBLAS_LAT_FACTOR stops with a message naming it.
set -u
prog=smpi-msgtime.sh
. "$(dirname "$0")/smpi-common.sh"

unset SIMBLAS_NOISE SIMBLAS_SET SIMBLAS_TRACE SIMBLAS_PIVOT_EVERY SIMBLAS_POLL_COST SIMBLAS_LAT_FACTOR SIMBLAS_BW_FACTOR
export SIMBLAS_MODE=smpi SIMBLAS_MODEL="$MODEL" SIMBLAS_MERGE=1

build_prog msgtime

# run NAME NRANKS BW LAT [VAR=VALUE ...]
run() {
  name=$1 n=$2 bw=$3 lat=$4
  shift 4
  platform "$n" "$bw" "$lat"
  (cd "$WORK" && exec env TMPDIR="$WORK" "$@" timeout -k 5 120 smpirun -np "$n" -platform p.xml -hostfile hosts \
     $FLAGS --log=root.thres:warning ./msgtime) >"$WORK/$name.out" 2>"$WORK/$name.err"
}

check() { # NAME: every MSG line within 0.1%, and the IDLE line
  awk -v name="$1" '
    $1 == "MSG" { n++; s = $4; p = $5; d = p - s; if (d < 0) d = -d
                  if (!(s > 0) || d > 1e-3 * s + 1e-6) { printf "FAIL %s: %d B to rank %d: simulated %s s, predicted %s s\n", name, $3, $2, s, p; bad = 1 } }
    $1 == "MSG" { first[$2 " " $3] = $5 }
    $1 == "AGAIN" { nagain++; k = $2 " " $3
                    if (!(k in first) || first[k] != $4) { printf "FAIL %s: %d B to rank %d asked again: %s s, first %s s\n", name, $3, $2, $4, first[k]; bad = 1 } }
    $1 == "IDLE" { idle = $2 }
    $1 == "OUT" { out = $2; nout++ }
    END { if (n < 8) { printf "FAIL %s: %d MSG lines\n", name, n; bad = 1 }
          if (idle < 0.25 * (1 - 1e-9) || idle > 0.25 * (1 + 1e-9)) { printf "FAIL %s: simblas_idle(0.25) took %s s\n", name, idle; bad = 1 }
          if (nout != 1 || out != 0) { printf "FAIL %s: a rank outside the run: %s s\n", name, out; bad = 1 }
          if (nagain < 2 * (n / 8) * 3) { printf "FAIL %s: %d AGAIN lines for %d MSG lines\n", name, nagain, n; bad = 1 }
          if (!bad) print "OK" }' "$WORK/$1.out" >"$WORK/$1.tally"
  tally "$WORK/$1.tally"
}

if run fast 3 10Gbps 24us; then check fast; else bad "fast: smpirun failed"; tail -n 15 "$WORK/fast.err" | sed 's/^/    | /'; fi
# 48 ranks of a 2-level fat tree: routes of 2 and 4 links, more
# destinations than a rank's 32 route slots (asked again after eviction)
platform 48 10Gbps 24us "2;4,12;1,4;1,1"
if (cd "$WORK" && exec env TMPDIR="$WORK" timeout -k 5 300 smpirun -np 48 -platform p.xml -hostfile hosts $FLAGS \
    --log=root.thres:warning ./msgtime) >"$WORK/fattree.out" 2>"$WORK/fattree.err"; then
  check fattree
  # the two route lengths differ in latency: both must have been seen
  if [ "$(awk '$1 == "MSG" && $3 == 0 { print $5 }' "$WORK/fattree.out" | sort -u | wc -l)" -ge 2 ]; then ok; else
    bad "fattree: every destination had the same 0-byte time: the routes did not differ"
  fi
else
  bad "fattree: smpirun failed"; tail -n 15 "$WORK/fattree.err" | sed 's/^/    | /'
fi
# 1 ms links: TCP-gamma (4 MiB) / (2 x 2 ms) = 1 GB/s bounds a 10 Gb/s link
if run slow 2 10Gbps 1ms; then check slow; else bad "slow: smpirun failed"; tail -n 15 "$WORK/slow.err" | sed 's/^/    | /'; fi
# other factors, given to both SimGrid and libsimblas, must still agree
platform 2 1Gbps 50us
if (cd "$WORK" && exec env TMPDIR="$WORK" SIMBLAS_LAT_FACTOR="0:1;65536:3" SIMBLAS_BW_FACTOR="0:0.5;65536:0.9" \
    timeout -k 5 120 smpirun -np 2 -platform p.xml -hostfile hosts $FLAGS --cfg=smpi/lat-factor:"0:1;65536:3" \
    --cfg=smpi/bw-factor:"0:0.5;65536:0.9" --log=root.thres:warning ./msgtime) >"$WORK/factors.out" 2>"$WORK/factors.err"; then
  check factors
else
  bad "factors: smpirun failed"; tail -n 15 "$WORK/factors.err" | sed 's/^/    | /'
fi

# a bad factor list stops, naming the variable
if run badfactor 2 10Gbps 24us SIMBLAS_LAT_FACTOR="65472:eleven"; then
  bad "SIMBLAS_LAT_FACTOR=65472:eleven was accepted"
elif grep -q "SIMBLAS_LAT_FACTOR='65472:eleven' is not a list of size:factor pairs" "$WORK/badfactor.err"; then
  ok
else
  bad "SIMBLAS_LAT_FACTOR=65472:eleven: no clear error"; tail -n 5 "$WORK/badfactor.err" | sed 's/^/    | /'
fi

echo "$prog: $npass passed, $nfail failed"
[ "$nfail" -eq 0 ]
