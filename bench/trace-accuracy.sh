#!/bin/sh
# Replays calls at shapes the calibrator never saw, in SIMBLAS_MODE=trace
# (real OpenBLAS computing, the model predicting), one process per core
# as during calibration, and prints per routine the median and 95th
# percentile relative error of the prediction on calls of at least 1 ms,
# and the mean signed error (negative: the model predicts too little).
# Usage: bench/trace-accuracy.sh BUILDDIR SRCDIR MODEL [CALLS]
set -eu
bld=$1 src=$2 model=$3 calls=${4:-400}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cc -O2 -o "$tmp/replay" "$src/bench/trace_replay.c" -L"$bld/.libs" -lsimblas -Wl,-rpath,"$bld/.libs" -lm
cores=$(nproc 2>/dev/null || echo 1)
i=0
while [ $i -lt "$cores" ]; do
  SIMBLAS_MODE=trace SIMBLAS_MODEL=$model SIMBLAS_TRACE=$tmp/t$i.csv "$tmp/replay" "$calls" $((1000 + i)) &
  i=$((i + 1))
done
wait
echo "model: $model; $cores concurrent processes x $calls calls, shapes 64..1500 log-uniform (seeds 1000+)"
printf '%-12s %6s %12s %12s %12s\n' routine calls median_err p95_err mean_signed
cat "$tmp"/t*.csv | awk -F, 'NR > 1 && $1 != "routine" && $6 >= 1e-3 {
    key = $1; if ($1 ~ /trsm$/ && $4 == $3 && $4 != $2) key = $1 ".right"  # traces before the .right suffix
    e = ($5 - $6) / $6; print key, (e < 0 ? -e : e), e }' | sort -k1,1 -k2,2g |
  awk '{ v[$1, ++n[$1]] = $2; s[$1] += $3 } END { for (k in n) { m = n[k];
    printf "%-12s %6d %11.2f%% %11.2f%% %+11.2f%%\n", k, m, 100 * v[k, int((m + 1) / 2)], 100 * v[k, int(0.95 * m + 0.999)],
           100 * s[k] / m } }' | sort
