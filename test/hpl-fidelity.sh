#!/bin/sh
# hpl-fidelity.sh -- the HPL issue's fidelity cross-check: the same small
# run, N=6000 NB=128 on 2x2, simulated twice,
#   - in passthrough mode: the real BLAS computes under SMPI, which times it;
#   - in model mode: SimBLAS predicts, with a model calibrated here and now
#     (simblas-calibrate --quick, on this machine, in this run),
# and their Gflops must agree within 10% (doc/performance.md says what
# limits the agreement).  Both time real computation on this machine, so
# the Makefile runs this test after all the others, alone.
#
# Needs the HPL build test/hpl-run.sh makes (both binaries); skipped (77)
# without it, under the sanitizers (no HPL runs there), or without python3
# or SimGrid (test/hpl-env.sh).
. "$(dirname "$0")/hpl-env.sh"
case "${LD_PRELOAD:-}" in *libasan*) skip "sanitizer build: no HPL runs (see test/hpl-run.sh)" ;; esac
cal=$build/calibrator/simblas-calibrate
[ -x "$cal" ] || skip "no calibrator built ($cal)"
data=${SB_HPL_DATA:-$build/test/hpl-data}
XDG_DATA_HOME=$data cli info 2> /dev/null | grep -q '"passthrough"' \
  || skip "no passthrough HPL build in $data (test/hpl-run.sh makes it)"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
t0=$(date +%s)
if ! "$cal" --quick --no-report -o "$tmp/here.model" > "$tmp/cal.out" 2>&1; then
  echo "FAIL: quick calibration: $(tail -3 "$tmp/cal.out")"
  exit 1
fi
echo "calibrated in $(( $(date +%s) - t0 )) s: $(grep -E '^ *dgemm ' "$tmp/cal.out" | head -1)"
for mode in passthrough model; do
  if ! XDG_DATA_HOME=$data cli run --n 6000 --nb 128 --p 2 --q 2 --mode $mode --model "$tmp/here.model" --json "$tmp/$mode.json" \
       > "$tmp/$mode.out" 2>&1; then
    echo "FAIL: $mode run: $(tail -5 "$tmp/$mode.out")"
    exit 1
  fi
done
python3 - "$tmp/passthrough.json" "$tmp/model.json" <<'EOF'
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:3])
diff = (b["gflops"] - a["gflops"]) / a["gflops"]
print(f"N=6000 NB=128 2x2: passthrough {a['gflops']:.4g} Gflops ({a['hpl_time_s']} s), "
      f"model {b['gflops']:.4g} Gflops ({b['hpl_time_s']} s, HPL's own code {b.get('hpl_code')}): {100 * diff:+.1f}%")
if abs(diff) > 0.10:
    print("FAIL: passthrough and model disagree by more than 10%")
    sys.exit(1)
print("ok: within 10%")
EOF
