# Sourced by test/smpi-*.sh (set prog first): the build tree, the tools,
# a work directory removed on exit (KEEP=1 keeps it), pass/fail counters,
# build_prog to compile a test/smpi/*.c program against libsimblas_pmpi and
# libsimblas, and FLAGS for smpirun (with ASan: no dlopen privatization).
die() { echo "$prog: error: $*" >&2; exit 2; }
B=${SB_BUILDDIR:-.}
S=${SB_SRCDIR:-.}
LIBDIR=$(cd "$B/.libs" 2>/dev/null && pwd) || die "$B/.libs not found (run make)"
MODEL=$B/models/default.model
[ -f "$LIBDIR/libsimblas_pmpi.so" ] || die "$LIBDIR/libsimblas_pmpi.so not found (run make)"
[ -f "$MODEL" ] || die "$MODEL not found (run make)"
for t in smpicc smpirun awk timeout; do
  command -v "$t" >/dev/null 2>&1 || die "'$t' not found (apt-get install libsimgrid-dev simgrid)"
done

WORK=$(mktemp -d "${TMPDIR:-/tmp}/simblas-${prog%.sh}.XXXXXX") || die "mktemp failed"
trap '[ -n "${KEEP:-}" ] || rm -rf "$WORK"' EXIT
npass=0 nfail=0
ok() { npass=$((npass + 1)); }
bad() { nfail=$((nfail + 1)); echo "FAIL $*"; }
# tally FILE: count its OK and FAIL lines, show all but the OKs
tally() {
  p=$(grep -c '^OK$' "$1"); f=$(grep -c '^FAIL ' "$1")
  npass=$((npass + p)); nfail=$((nfail + f))
  grep -v '^OK$' "$1"
}

# build_prog NAME: test/smpi/NAME.c -> $WORK/NAME
build_prog() {
  if ! smpicc -std=c11 -O2 -Wall -I"$S/include" -o "$WORK/$1" "$S/test/smpi/$1.c" \
       -L"$LIBDIR" -Wl,-rpath,"$LIBDIR" -Wl,--no-as-needed -lsimblas_pmpi -lsimblas >"$WORK/build.log" 2>&1; then
    sed 's/^/    | /' "$WORK/build.log" | tail -20
    die "smpicc could not build test/smpi/$1.c"
  fi
}

FLAGS="--cfg=smpi/wtime:0 --cfg=smpi/simulate-computation:no"
case "${LD_PRELOAD:-}" in
  *libasan*) # RTLD_DEEPBIND (dlopen privatization) and ASan do not mix
    FLAGS="$FLAGS --cfg=smpi/privatization:no"
    LD_PRELOAD="$LD_PRELOAD $LIBDIR/libsimblas_pmpi.so $LIBDIR/libsimblas.so"
    export LD_PRELOAD ;;
esac

# platform N BW LAT [FATTREE]: $WORK/p.xml, a cluster of N 1-Gflop/s hosts h0..
# (a fat tree when FATTREE, its topo_parameters, is given),
# and $WORK/hosts, one rank per host
platform() {
  {
    echo "<?xml version='1.0'?>"
    echo '<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">'
    echo '<platform version="4.1">'
    topo=${4:+ topology=\"FAT_TREE\" topo_parameters=\"$4\"}
    echo "  <cluster id=\"c\" prefix=\"h\" suffix=\"\" radical=\"0-$(($1 - 1))\" speed=\"1Gf\" bw=\"$2\" lat=\"$3\"$topo/>"
    echo '</platform>'
  } >"$WORK/p.xml"
  i=0
  while [ $i -lt "$1" ]; do echo "h$i"; i=$((i + 1)); done >"$WORK/hosts"
}
