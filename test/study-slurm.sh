#!/bin/sh
# study-slurm.sh -- a small study (issue 24) through real sbatch on a
# private one-node Slurm cluster (scripts/local-slurm.sh in a mktemp'd
# directory on free ports, stopped by a trap), and the same study with
# --engine local: their results.csv equal point by point (--hpl-code free:
# Gflops, HPL time and simulated time to the last digit), one point that
# fails in both (its message and stderr tail kept, the others done); the
# study submitted without --wait, followed by `study status` until done;
# `run --iterations K --samples S` and `tune` through the same cluster,
# equal to their --engine local runs; and, the cluster stopped, an unreachable Slurm refused in one line that
# names scripts/local-slurm.sh and --engine local.
# Needs the HPL build test/hpl-run.sh makes (SB_HPL_DATA, or
# $SB_BUILDDIR/test/hpl-data); skips when not root, without slurm-wlm and
# munge or the build (or fails under SIMBLAS_TEST_STRICT=1), and in
# sanitizer builds (as test/hpl-run.sh's HPL runs).
. "$(dirname "$0")/hpl-env.sh"
script=$src/scripts/local-slurm.sh
PATH=$PATH:/usr/sbin:/sbin
case "${LD_PRELOAD:-}" in *libasan*) skip "HPL runs in a sanitizer build (as test/hpl-run.sh)" ;; esac
[ "$(id -u)" -eq 0 ] || skip "the cluster's daemons run as root: run make check as root"
for b in munged slurmctld slurmd sbatch; do
  command -v "$b" > /dev/null 2>&1 || missing "$b is not installed (Debian packages slurm-wlm and munge)"
done
data=${SB_HPL_DATA:-$build/test/hpl-data}
XDG_DATA_HOME=$data
export XDG_DATA_HOME
cli info > /dev/null 2>&1 || missing "no HPL build in $data (test/hpl-run.sh makes it)"

pass=0 fail=0
report() { echo "$pass passed, $fail failed"; [ "$fail" -eq 0 ]; exit; }

t=${TMPDIR:-/tmp}
[ ${#t} -le 24 ] || t=/tmp # the daemons' socket paths are short
tmp=$(mktemp -d "$t/simblas-study.XXXXXX") || exit 1
chmod 755 "$tmp"
# the nominal model with a standard deviation on dgemm, so that --noise
# draws differ by seed (default.model has none: --noise would change nothing)
sed '/^dgemm /s/$/ | mnk=2e-11/' "$build/models/default.model" > "$tmp/noisy.model" || exit 1
SIMBLAS_MODEL=$tmp/noisy.model
export SIMBLAS_MODEL
SIMBLAS_SLURM_DIR=$tmp/c SIMBLAS_SLURM_PORT=auto
export SIMBLAS_SLURM_DIR SIMBLAS_SLURM_PORT
unset SLURM_CONF
trap 'sh "$script" stop > /dev/null 2>&1; rm -rf "$tmp"' EXIT
trap 'exit 1' INT TERM HUP
out=$(sh "$script" start 2>&1) && rc=0 || rc=$?
SLURM_CONF=$tmp/c/slurm.conf # the study's sbatch, squeue and sinfo ask this cluster
export SLURM_CONF
if [ $rc -eq 0 ]; then ok "a private cluster: $out"
else
  ko "the cluster did not start: $out"
  report
fi

# 2 x 2 combinations, 2 replicates (--noise: each seed its own draws), and
# a point that fails (its simulation cannot finish in 1 ms)
cat > "$tmp/small.toml" << 'EOF'
[study]
name = "small"
replicates = 2
outputs = ["gflops", "hpl_time_s"]

[base]
nb = 128
q = 2
hpl-code = "free"
noise = true

[factors]
n = [2000, 3000]
p = [1, 2]

[[points]]
[[points]]
timeout = 0.001
EOF
cd "$tmp" || exit 1
study() { cli study "$@"; }

t0=$(date +%s)
study small.toml --dir "$tmp/slurm" --engine slurm --wait --slurm-opt='--time=10 --mem=200M' \
  > "$tmp/slurm.out" 2> "$tmp/slurm.err"; rc=$?
dt=$(($(date +%s) - t0))
if [ $rc -eq 1 ] && grep -q "submitted Slurm job [0-9]*: 16 array task(s), 16 point(s)" "$tmp/slurm.err" &&
   grep -q "8 done, 0 running, 0 queued, 8 failed, 0 to do" "$tmp/slurm.err"; then
  ok "--engine slurm --wait: 16 points in $dt s, 8 done, the 8 with --timeout 0.001 failed (status 1)"
else
  ko "--engine slurm --wait: status $rc: $(tail -5 "$tmp/slurm.err")"
fi
job=$(sed -n 's/.*submitted Slurm job \([0-9]*\).*/\1/p' "$tmp/slurm.err")
ls "$tmp/slurm/engine/slurm-${job}_"*.out > /dev/null 2>&1 && ok "the array's task logs are in the study's engine/" ||
  ko "no task log in $tmp/slurm/engine"
f=$(ls -d "$tmp"/slurm/points/timeout-0.001*seed-1_* 2> /dev/null | head -1)
if [ -n "$f" ] && grep -q "did not finish within --timeout 0.001 s" "$f/failed.json" && [ -f "$f/failed-stderr.txt" ] &&
   study status "$tmp/slurm" 2> /dev/null | grep -q "failed   $(basename "$f"): the .* did not finish"; then
  ok "a failed point keeps its message and stderr tail, and study status shows it"
else
  ko "the failed point $f: $(cat "$f/failed.json" 2> /dev/null | head -5)"
fi

study small.toml --dir "$tmp/local" --engine local -j 2 > "$tmp/local.out" 2> "$tmp/local.err"; rc=$?
[ $rc -eq 1 ] && grep -q "8 done, 0 running, 0 queued, 8 failed, 0 to do" "$tmp/local.err" &&
  ok "--engine local -j 2: 8 done, 8 failed" || ko "--engine local: status $rc: $(tail -3 "$tmp/local.err")"

# the two results.csv, point by point
"$py" - "$tmp/slurm/results.csv" "$tmp/local/results.csv" << 'EOF' && ok "the same results point by point" ||
import csv, sys
a, b = ({r["point"]: r for r in csv.DictReader(open(f))} for f in sys.argv[1:3])
keys = ("gflops", "hpl_time_s", "simulated_time_s", "result_line", "gflops_mean", "gflops_ci95", "seed", "noise")
bad = [(p, k, a[p][k], b.get(p, {}).get(k)) for p in a for k in keys if a[p][k] != b.get(p, {}).get(k)]
print("  %d points each; for example %s: %s Gflops, %s s simulated (slurm and local)"
      % (len(a), min(a), a[min(a)]["gflops"], a[min(a)]["simulated_time_s"]))
seeds = {(r["n"], r["p"]): set() for r in a.values()}
for r in a.values():  # the two seeds' noise: two simulated times (HPL's 4 digits of Gflops may not show it)
    seeds[(r["n"], r["p"])].add(r["simulated_time_s"])
if len(a) != 8 or set(a) != set(b) or bad or any(len(s) != 2 for s in seeds.values()):
    print("  differences:", bad[:5], "points:", sorted(a), sorted(b), "replicates:", seeds)
    sys.exit(1)
EOF
  ko "results.csv differ between --engine slurm and --engine local"

# submitted without --wait: the command returns, status follows the job
study small.toml --dir "$tmp/nowait" --engine slurm --no-retry > /dev/null 2> "$tmp/nowait.err"; rc=$?
if [ $rc -eq 0 ] && grep -q "follow it with \`simblas-hpl study status" "$tmp/nowait.err"; then
  st=$(study status "$tmp/nowait" 2> /dev/null | head -1)
  ok "submitted without --wait; at once: ${st#*: }"
else
  ko "--engine slurm without --wait: status $rc: $(tail -3 "$tmp/nowait.err")"
fi
i=0
while [ $i -lt 120 ] && ! study status "$tmp/nowait" 2> /dev/null | grep -q " 0 running, 0 queued, .* 0 to do"; do
  sleep 1; i=$((i + 1))
done
st=$(study status "$tmp/nowait" 2> /dev/null | head -1)
case "$st" in *"8 done, 0 running, 0 queued, 8 failed, 0 to do"*) ok "study status, $i s later: ${st#*: }" ;;
  *) ko "study status after $i s: $st" ;; esac
study collect "$tmp/nowait" 2> /dev/null && cmp -s "$tmp/nowait/means.csv" "$tmp/slurm/means.csv" &&
  ok "study collect: the same means.csv" || ko "study collect after the job: means.csv differs"

# run --iterations K --samples S --engine slurm: each stratum's pass a task
# of one array, combined into the extrapolation --engine local gives
# (--hpl-code free: the passes are deterministic, so every stratum's
# figures and the Gflops are equal to the last digit)
run3() { cli run --n 3000 --nb 128 --p 2 --q 2 --hpl-code free --iterations 3 --samples 3 "$@"; }
if run3 --engine slurm --slurm-opt='--time=10 --mem=200M' --keep "$tmp/run-slurm" --json "$tmp/run-slurm.json" \
     > /dev/null 2> "$tmp/run-slurm.err" &&
   run3 --engine local -j 2 --json "$tmp/run-local.json" > /dev/null 2> "$tmp/run-local.err"; then
  "$py" - "$tmp/run-slurm.json" "$tmp/run-local.json" << 'EOF' && ok "run --engine slurm: 3 passes in one array, the same strata and Gflops as --engine local" ||
import json, sys
s, l = (json.load(open(x)) for x in sys.argv[1:3])
key = lambda r: [{k: t[k] for k in ("first_iteration", "counted", "per_iteration_s", "stands_for_s")} for t in r["strata"]]
print("  slurm %s Gflops, local %s Gflops; %s jobs, %s s of CPU" % (s["gflops"], l["gflops"], s["engine"]["jobs"],
      s["engine"]["total_cpu_s"]))
sys.exit(not (key(s) == key(l) and s["gflops"] == l["gflops"] and s["engine"]["jobs"] == 3
              and s["iterations_done"] == l["iterations_done"] == 9))
EOF
    ko "run --engine slurm differs from --engine local"
  ls "$tmp"/run-slurm/passes/pass-2/result.json > /dev/null 2>&1 && ok "run --engine slurm --keep: each pass's directory" ||
    ko "run --engine slurm --keep: no pass-2/result.json in $tmp/run-slurm"
else
  ko "run --engine slurm or local failed: $(tail -n 3 "$tmp/run-slurm.err" "$tmp/run-local.err" 2>&1)"
fi

# tune --engine slurm: a few points of a small space, each batch an array;
# the same sampler and seed on --engine local evaluate the same points, with
# the same Gflops, and print the same best HPL.dat
tune4() { cli tune --nodes 2 --cores-per-node 2 --n 2000 --hpl-code free --search nb=64,128 --search grid=2x2,1x4 \
            --hpl-opt depth=0 --hpl-opt bcast=0 --hpl-opt pfact=2 --hpl-opt rfact=2 --hpl-opt nbmin=4 \
            --hpl-opt ndiv=2 --hpl-opt swap=2 --hpl-opt swap_threshold=64 --hpl-opt pmap=0 --budget 3 -j 2 "$@"; }
if tune4 --engine slurm --slurm-opt='--time=10 --mem=200M' --dir "$tmp/tune-slurm" > "$tmp/tune-slurm.out" 2> "$tmp/tune-slurm.err" &&
   tune4 --engine local --dir "$tmp/tune-local" > "$tmp/tune-local.out" 2> "$tmp/tune-local.err"; then
  sed "s#$tmp/tune-slurm#DIR#g" "$tmp/tune-slurm.out" > "$tmp/tune-slurm.txt"
  sed "s#$tmp/tune-local#DIR#g" "$tmp/tune-local.out" > "$tmp/tune-local.txt"
  if cmp -s "$tmp/tune-slurm.txt" "$tmp/tune-local.txt" && find "$tmp/tune-slurm" -name "slurm-*.out" | grep -q .; then
    ok "tune --engine slurm: the same points, Gflops and best HPL.dat as --engine local ($(grep -c . "$tmp/tune-slurm.out") lines)"
  else
    ko "tune --engine slurm differs from --engine local: $(diff "$tmp/tune-slurm.txt" "$tmp/tune-local.txt" | head -5)"
  fi
else
  ko "tune --engine slurm or local failed: $(tail -n 3 "$tmp/tune-slurm.err" "$tmp/tune-local.err" 2>&1)"
fi

# Slurm gone: one line, status 2, nothing submitted
sh "$script" stop > /dev/null 2>&1
out=$(study small.toml --dir "$tmp/down" --engine slurm 2>&1); rc=$?
if [ $rc -eq 2 ] && [ "$(printf '%s\n' "$out" | wc -l)" -eq 1 ] &&
   printf '%s\n' "$out" | grep -q "Slurm is unreachable (.*scripts/local-slurm.sh start.*--engine local" &&
   [ ! -e "$tmp/down" ]; then
  ok "Slurm stopped: $out"
else
  ko "Slurm stopped: status $rc: $out"
fi
report
