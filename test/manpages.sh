#!/bin/sh
# manpages.sh -- the man pages `make` generates from --help with help2man
# (doc/man/*.1, installed by `make install`): one for simblas-hpl, one per
# verb, one for simblas-probe, one for simblas-calibrate when it is built; each with its name and
# one-line summary, a synopsis, and the options its --help lists.
# Environment: SB_BUILDDIR (make check sets it).
set -u
build=${SB_BUILDDIR:-.}
pass=0 fail=0
ok() { echo "ok: $1"; pass=$((pass + 1)); }
ko() { echo "FAIL: $1"; fail=$((fail + 1)); }
# page, NAME line (troff), then strings its text must hold
page() {
  f=$build/doc/man/$1.1 name=$2; shift 2
  if [ ! -f "$f" ]; then ko "$1.1: not generated"; return; fi
  missing=""
  grep -qxF "$name" "$f" || missing="$missing [NAME: $name]"
  grep -q '^\.SH SYNOPSIS' "$f" || missing="$missing [SYNOPSIS]"
  for s in "$@"; do grep -qF -- "$s" "$f" || missing="$missing [$s]"; done
  [ -z "$missing" ] && ok "$(basename "$f"): $name, synopsis, $# options" || ko "$(basename "$f") lacks$missing"
}
page simblas-hpl 'simblas-hpl \- build HPL against SimBLAS and simulate it with SimGrid/SMPI' \
  '{build,run,info,study,tune,validate,refine}' 'simblas-hpl-run(1)' 'simblas-hpl-validate(1)' 'simblas-hpl-refine(1)'
page simblas-hpl-build 'simblas-hpl-build \- download, patch and build HPL (the xhpl-* binaries)' \
  '\-\-hpl\-tarball' '\-\-hpl\-dir' '\-\-no\-check' '\-\-build\-id' '\-\-make\-default'
page simblas-hpl-run 'simblas-hpl-run \- simulate one HPL run' \
  'run --n N' '\-\-hpl\-opt' '\-\-iterations' '\-\-energy' '\-\-bw' '\-\-json' '\-\-network'
page simblas-hpl-info 'simblas-hpl-info \- show the HPL builds and the one runs use (JSON)' '\-\-build\-id'
page simblas-probe "simblas-probe \\- measure this node's peak flop rate and memory bandwidth (the figures node files are compared with)" \
  '\-\-hog' '\-\-seconds'
page simblas-hpl-study 'simblas-hpl-study \- run a study (a TOML file of runs) locally or on Slurm' \
  'status|collect|plot' '\-\-engine' '\-\-slurm\-opt' '\-\-wait'
page simblas-hpl-tune "simblas-hpl-tune \\- search HPL's parameters for the best Gflops" \
  '\-\-memory\-fraction' '\-\-search' '\-\-sampler' '\-\-plot'
page simblas-hpl-validate 'simblas-hpl-validate \- simulated HPL against real mpirun runs, here' \
  '\-\-max\-error' '\-\-runs' '\-\-passthrough' '\-\-plot' '\-\-config' '\-\-network'
page simblas-hpl-refine "simblas-hpl-refine \\- refine a calibrated model from HPL's own calls, here" \
  '\-\-kernels\-only' '\-\-keep' '\-\-force' '\-\-config' '\-\-out'
if [ -x "$build/calibrator/simblas-calibrate" ]; then
  page simblas-calibrate "simblas-calibrate \\- measure this machine's BLAS and write a SimBLAS model" \
    '\-\-summary' '\-\-from\-trace' '\-\-force' '\-\-quick' '\-\-output' '\-\-network' '\-\-hostfile'
fi
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
