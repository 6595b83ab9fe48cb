#!/bin/sh
# hpl-validate.sh -- issue 23's real-run fidelity test: a quick calibration
# of this machine (here and now), then `simblas-hpl validate --set check`:
# real HPL under Open MPI's mpirun (N=12000 NB=128 on Cx1, C the cores, 3
# runs, one rank bound to each core) against the same run simulated with
# that model.  The simulation must be within BOUND of the real median.
#
# BOUND is 10% (SB_VALIDATE_BOUND overrides it), from measurements on the
# 2-core AMD EPYC VM, quiet (2026-11-26, doc/performance.md "Fidelity
# against real runs"): at N=12000 2x1 the real runs' medians were 68.6 and
# 68.8 Gflops in two validations (min-max 60.1-69.8 in the first), and the
# quick models of the calibrator with the leading-dimension factors came
# within -6.2%..+2.7% (five quick calibrations, whose reference speeds were
# 39.3-43.1 Gflop/s: this VM's own drift); the same calibrator without them
# was -10%, the calibrator before issue 23 +18% (+12-17% on the issue's
# Skylake-X).  10% catches those and leaves 5 points above the model's
# error for the VM's drift.  N=12000, not 6000 as before: a 2-second run at
# N=6000 2x1 gave 62.0 and 69.4 Gflops in two validations a minute apart.
# Cx1 rather than 1xC: real 1x2 runs on a disturbed machine were 13-28%
# below both the model and passthrough (SMPI's side), a gap this test of
# the BLAS model must not mistake for the model's.
#
# Ground truth is only ground truth on a quiet machine: when other
# processes took more than 10% of the cores during the real runs, or more
# than 10% of the calibration's timed calls, the figures are printed and
# the test is skipped (77), not failed; so is it when the machine's own
# speed moved by more than 15% within the test (the calibration's reference
# speed and validate's four).  It runs last, alone (Makefile).
# validate measures the reference speed before each round and after the
# last (simblas-calibrate --reference-speed, the quick model's shape): four
# values and a drift ratio are required.
. "$(dirname "$0")/hpl-env.sh"
real_hpl
bound=${SB_VALIDATE_BOUND:-10}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# validate's reference-speed probe refuses what it cannot measure, in one line, before measuring
printf 'simblas-model 1\nreference-speed 4e10\nset node\ndgemm mnk=1.6e-11\nend\n' > "$tmp/old.model"
for args in "--reference-speed $tmp/old.model" "--reference-speed -o $tmp/x" "--reference-speed a b"; do
  # shellcheck disable=SC2086
  "$cal" $args > "$tmp/ref.out" 2>&1
  rc=$?
  if [ $rc -ne 2 ] || [ "$(wc -l < "$tmp/ref.out")" -ne 1 ]; then
    echo "FAIL: simblas-calibrate $args: exit $rc, not 2 with one line: $(cat "$tmp/ref.out")"
    exit 1
  fi
done
# --solo-rounds 0: the check set's Cx1 run keeps every core busy, and the
# solo pairs would add 20 s (test/calibrate.sh tests them)
if ! "$cal" --quick --force --no-report --solo-rounds 0 -o "$tmp/here.model" > "$tmp/cal.out" 2>&1; then
  echo "FAIL: quick calibration: $(tail -3 "$tmp/cal.out")"
  exit 1
fi
stolen=$(sed -n 's/^meta stolen_share //p' "$tmp/here.model")
echo "quick calibration: reference speed $(sed -n 's/^reference-speed //p' "$tmp/here.model") flop/s," \
  "other processes took ${stolen:-?} of its timed calls' wall time"
XDG_DATA_HOME=$data cli validate --set check --runs 3 --model "$tmp/here.model" --json "$tmp/v.json" \
  > "$tmp/v.out" 2>&1
rc=$?
cat "$tmp/v.out"
[ -f "$tmp/v.json" ] || { echo "FAIL: validate wrote no report (exit $rc)"; exit 1; }
"$py" - "$tmp/v.json" "$bound" "${stolen:-0}" <<'EOF'
import json, sys
rep, bound, stolen = json.load(open(sys.argv[1])), float(sys.argv[2]), float(sys.argv[3])
row = rep["configs"][0]
err = next(iter(row["sim"].values()))["error_pct"]
other = rep.get("other_load_max") or 0.0
print(f"{row['label']}: real median {row['real']['median']:.4g} Gflops (spread {row['real']['spread_pct']}%), "
      f"simulated {err:+.1f}% (bound {bound:g}%); other processes: {100 * other:.1f}% of the cores during the "
      f"real runs, {100 * stolen:.1f}% of the calibration")
# the reference speed, measured before each of the 3 rounds and after the last, at the quick model's shape
speeds = rep["reference_speed"]["measured"]
drift = next(iter(rep["simulations"].values()))["reference_speed"]
print(f"reference speed with the real runs: {[m['gflops'] for m in speeds]} Gflop/s; the model's "
      f"{drift['model_gflops']}: drift ratio {drift['ratio']}")
if len(speeds) != 4 or not all(m["gflops"] and m["gflops"] > 0 for m in speeds) or not drift["ratio"]:
    print("FAIL: validate did not measure the reference speed before each round and after the last")
    sys.exit(1)
if other > 0.10 or stolen > 0.10:
    print("SKIP: the machine was busy (more than 10% taken by other processes): the real runs are not ground "
          "truth; run it on a quiet machine")
    sys.exit(77)
# a machine whose own speed moved by more than 15% within the test (the
# calibration's reference speed and the four measured with the real runs)
# was not the same machine for the model and for the real runs: on the
# Zen 5 VM the reference speed moves 2-10% within a validation, and a
# slow spell gave 36.0-49.5 Gflop/s around the real runs and 38.8 in the
# calibration, the model then -19.6% (2026-11-29)
allg = [m["gflops"] for m in speeds] + [drift["model_gflops"]]
moved = (max(allg) - min(allg)) / sorted(allg)[len(allg) // 2]
if moved > 0.15:
    print(f"SKIP: this machine's own speed moved {100 * moved:.0f}% within the test (reference speed "
          f"{min(allg):g}-{max(allg):g} Gflop/s, the calibration's {drift['model_gflops']:g}): the model and the "
          "real runs did not see the same machine; run it on a steady machine")
    sys.exit(77)
sys.exit(0 if abs(err) <= bound else 1)
EOF
rc=$?
[ $rc -eq 0 ] && echo "ok: within ${bound}% of the real runs"
[ $rc -eq 1 ] && echo "FAIL: the model is more than ${bound}% from the real runs"
exit $rc
