#!/bin/sh
# bench/hindcast/run.sh MODEL OUTDIR VARIANT... -- the hindcast runs of
# doc/hindcast.md ("Part two: the runs"), with the inputs fixed there:
# each VARIANT is one `simblas-hpl run`, kept in OUTDIR/runs/VARIANT, its
# summary in OUTDIR/VARIANT.json and its output in OUTDIR/VARIANT.log.
# Prints figures; not a test.  Then:
#
#   python3 bench/hindcast/report.py S-HW=OUTDIR/S-HW.json:7505.72 ...
#
# VARIANT: S-AO S-AO-slope S-HW S-HW-LA S-HY S-HY-LA (Stampede, June 2013), T-1 T-2
# (Theta, November 2017), D-peak D-dgemm (Dahu, the fallback third entry).
# MODEL: the calibrated model the node files are composed against (the
# runs of doc/hindcast.md used a --quick calibration of a 2-core AMD EPYC,
# sha256 00bcc855...86d1; the node files' absolute figures are relative
# to that node's probe, see the doc).
# simblas-hpl is $SIMBLAS_HPL_CMD if set (e.g. "python3 tools/simblas-hpl.in"
# with test/hpl-env.sh's variables), else the one on PATH.
# Wall time on a quiet 2-core VM: Dahu 3-13 min, Theta about 25 min each,
# Stampede minutes to an hour (doc/hindcast.md gives each run's).
set -eu
usage="usage: bench/hindcast/run.sh MODEL OUTDIR VARIANT... (VARIANT: S-AO S-AO-slope S-HW S-HW-LA S-HY S-HY-LA T-1 T-2 D-peak D-dgemm)"
[ $# -ge 3 ] || { echo "$usage" >&2; exit 2; }
model=$1 out=$2
shift 2
[ -r "$model" ] || { echo "hindcast: cannot read the model $model: give a model file written by simblas-calibrate" >&2; exit 2; }
src=$(cd "$(dirname "$0")/../.." && pwd)
nodes=$src/examples/nodes
sbh=${SIMBLAS_HPL_CMD:-simblas-hpl}

# the inputs, as doc/hindcast.md fixes them
STAMPEDE="--n 3875000 --nb 1024 --p 77 --q 78 --platform fattree:2;20,320;1,8;1,2 --bw 56Gbps --lat 1us
 --hpl-opt pmap=column --hpl-opt pfact=right --hpl-opt nbmin=4 --hpl-opt ndiv=2 --hpl-opt rfact=crout
 --hpl-opt bcast=blongm --hpl-opt depth=0 --hpl-opt swap=bin-exch --hpl-opt l1=no-transposed
 --hpl-opt u=no-transposed --hpl-opt equil=no --iterations 3 --samples 4"
THETA="--nb 336 --platform dragonfly:10,106;6,3;16,1;4 --bw 42Gbps --lat 1us --hpl-opt pmap=column
 --hpl-opt pfact=right --hpl-opt nbmin=2 --hpl-opt ndiv=2 --hpl-opt rfact=left --hpl-opt bcast=2ringm
 --hpl-opt depth=0 --hpl-opt swap=bin-exch --hpl-opt l1=no-transposed --hpl-opt u=no-transposed
 --hpl-opt equil=no --iterations 3 --samples 8 --node $nodes/theta-knl7230.toml"
DAHU="--n 500000 --nb 128 --p 32 --q 32 --cores-per-node 32 --platform fattree:1;32;1;1 --bw 100Gbps --lat 1us
 --hpl-opt pmap=row --hpl-opt pfact=crout --hpl-opt nbmin=2 --hpl-opt ndiv=2 --hpl-opt rfact=right
 --hpl-opt bcast=2ring --hpl-opt depth=1 --hpl-opt swap=bin-exch --hpl-opt l1=transposed
 --hpl-opt u=transposed --hpl-opt equil=yes --iterations 3 --samples 8"
# a setting of the simulator, not an input of the machine (doc/hindcast.md)
FAST="--pivot-every 32 --roll-merge 0"

# opts_of VARIANT: sets opts to the variant's options; fails if unknown
opts_of() {
  case $1 in
    S-AO) opts="$STAMPEDE --node $nodes/stampede-2013-ao.toml" ;;
    S-AO-slope) opts="$STAMPEDE $FAST --node $nodes/stampede-2013-ao-slope.toml" ;;
    S-HW) opts="$STAMPEDE $FAST --node $nodes/stampede-2013-hw.toml" ;;
    S-HW-LA) opts="$STAMPEDE $FAST --hpl-opt depth=1 --node $nodes/stampede-2013-hw.toml" ;;
    S-HY) opts="$STAMPEDE $FAST --node $nodes/stampede-2013-hy.toml" ;;
    S-HY-LA) opts="$STAMPEDE $FAST --hpl-opt depth=1 --node $nodes/stampede-2013-hy.toml" ;;
    T-1) opts="--n 8360352 --p 32 --q 101 $THETA $FAST" ;;
    T-2) opts="--n 8843184 --p 32 --q 113 $THETA $FAST" ;;
    D-peak) opts="$DAHU $FAST --node $nodes/dahu-g5k-peak.toml" ;;
    D-dgemm) opts="$DAHU $FAST --node $nodes/dahu-g5k-dgemm.toml" ;;
    *) return 1 ;;
  esac
}
for v in "$@"; do
  opts_of "$v" || { echo "hindcast: unknown variant '$v'; $usage" >&2; exit 2; }
done

mkdir -p "$out/runs"
for v in "$@"; do
  opts_of "$v"
  rm -rf "$out/runs/$v"
  echo "hindcast: $v: $(date -u +%H:%M:%S) UTC, $(grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //')"
  start=$(date +%s)
  # word splitting of $opts is wanted (no option value holds a space)
  # shellcheck disable=SC2086
  $sbh run $opts --model "$model" --keep "$out/runs/$v" --json "$out/$v.json.tmp" > "$out/$v.log" 2>&1 || {
    echo "hindcast: $v failed after $(($(date +%s) - start)) s; see $out/$v.log"; continue; }
  mv "$out/$v.json.tmp" "$out/$v.json"
  echo "hindcast: $v done in $(($(date +%s) - start)) s: $out/$v.json"
done
