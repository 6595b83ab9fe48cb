#!/bin/bash
# run-netlib.sh - build and run the netlib BLAS / CBLAS test programs
# against an arbitrary BLAS shared library.
#
# Usage:
#   run-netlib.sh --lib /path/to/libX.so [--mode full|errexit]
#                 [--workdir DIR] [--only LIST] [--timeout SECONDS]
#                 [--jobs N] [--lapack-src DIR] [--keep]
#
#   --lib PATH       shared library to test (it must provide the Fortran BLAS
#                    symbols sgemm_ ... and, for the CBLAS programs, cblas_*).
#                    Each test program is linked against this library only
#                    (plus libgfortran/libm/libc), with an RPATH to its folder.
#   --mode full      (default) every computational test and every error-exit
#                    test must pass.
#   --mode errexit   for a library that checks arguments like reference BLAS
#                    and calls XERBLA, but computes nothing: only the
#                    "TESTS OF ERROR-EXITS" of the level-2/3 programs must pass.
#                    The programs are fed generated input files (error exits
#                    on, stop-on-failure off, only N=0) and computational
#                    results are ignored; level-1 programs have no error-exit
#                    tests and are skipped.
#   --workdir DIR    where to link and run (default: a fresh temporary folder,
#                    removed after a fully passing run unless --keep).
#   --only LIST      comma/space separated program names or shell patterns,
#                    e.g. 'dblat2,dcblat3' or 'd*'.  Names: {s,d,c,z}blat{1,2,3}
#                    (BLAS/TESTING, Fortran) and {s,d,c,z}cblat{1,2,3}
#                    (CBLAS/testing; the Makefile calls them x?cblat?).
#   --timeout S      per-program time limit in seconds (default 300).
#   --jobs N         programs linked and run in parallel (default: nproc).
#   --lapack-src DIR use this unpacked lapack source tree instead of the cache
#                    (also: env SIMBLAS_LAPACK_SRC).
#   --keep           keep the temporary work folder even when all passed.
#
# Environment: SIMBLAS_NETLIB_CACHE (see below), SIMBLAS_NETLIB_TIMEOUT,
# FC (default gfortran), CC (default cc), SIMBLAS_NETLIB_FFLAGS
# (default "-O2 -frecursive"), SIMBLAS_NETLIB_CFLAGS (default "-O2 -DADD_").
#
# Sources: the test programs come from Debian's lapack source package
# (`apt-get source --download-only lapack`, needs deb-src entries, see
# scripts/install-deps.sh --sources).  The orig tarball is kept and unpacked
# in $SIMBLAS_NETLIB_CACHE (default ${XDG_CACHE_HOME:-$HOME/.cache}/simblas/netlib);
# compiled test objects are cached there too.
#
# Output: one line per program (PASS/FAIL/SKIP ...), then a closing line
# "N passed, N failed".  Exit status 0 iff nothing failed; 2 on a usage or
# setup error (sources not obtainable, compiler missing, ...).
set -eu

prog=run-netlib.sh
die() { echo "$prog: error: $*" >&2; exit 2; }
note() { echo "$prog: $*" >&2; }

# ---------------------------------------------------------------- options
LIB=
MODE=full
WORKDIR=
ONLY=
TIMEOUT=${SIMBLAS_NETLIB_TIMEOUT:-300}
JOBS=
LAPACK_SRC=${SIMBLAS_LAPACK_SRC:-}
KEEP=no

while [ $# -gt 0 ]; do
  case "$1" in
    --lib) [ $# -ge 2 ] || die "--lib needs a value"; LIB=$2; shift 2 ;;
    --lib=*) LIB=${1#*=}; shift ;;
    --mode) [ $# -ge 2 ] || die "--mode needs a value"; MODE=$2; shift 2 ;;
    --mode=*) MODE=${1#*=}; shift ;;
    --workdir) [ $# -ge 2 ] || die "--workdir needs a value"; WORKDIR=$2; shift 2 ;;
    --workdir=*) WORKDIR=${1#*=}; shift ;;
    --only) [ $# -ge 2 ] || die "--only needs a value"; ONLY=$2; shift 2 ;;
    --only=*) ONLY=${1#*=}; shift ;;
    --timeout) [ $# -ge 2 ] || die "--timeout needs a value"; TIMEOUT=$2; shift 2 ;;
    --timeout=*) TIMEOUT=${1#*=}; shift ;;
    --jobs|-j) [ $# -ge 2 ] || die "--jobs needs a value"; JOBS=$2; shift 2 ;;
    --jobs=*) JOBS=${1#*=}; shift ;;
    --lapack-src) [ $# -ge 2 ] || die "--lapack-src needs a value"; LAPACK_SRC=$2; shift 2 ;;
    --lapack-src=*) LAPACK_SRC=${1#*=}; shift ;;
    --keep) KEEP=yes; shift ;;
    -h|--help) sed -n '2,/^set -eu/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) die "unknown argument '$1' (try --help)" ;;
  esac
done

[ -n "$LIB" ] || die "--lib /path/to/libX.so is required (try --help)"
case "$MODE" in full|errexit) ;; *) die "--mode must be 'full' or 'errexit'" ;; esac
case "$TIMEOUT" in ''|*[!0-9]*) die "--timeout must be a number of seconds" ;; esac
[ -n "$JOBS" ] || JOBS=$(nproc 2>/dev/null || echo 2)
case "$JOBS" in ''|0|*[!0-9]*) die "--jobs must be a positive number" ;; esac

[ -e "$LIB" ] || die "library '$LIB' does not exist"
[ -f "$LIB" ] || die "library '$LIB' is not a file"
case "$LIB" in /*) ;; *) LIB=$(cd "$(dirname "$LIB")" && pwd)/$(basename "$LIB") ;; esac
LIB_REAL=$(readlink -f "$LIB")
case "$(od -An -c -N4 "$LIB_REAL" | tr -d ' ')" in
  177ELF) ;;
  *) die "'$LIB' is not an ELF shared object (a libtool .la or a linker script will not do)" ;;
esac

FC=${FC:-gfortran}
CC=${CC:-cc}
command -v "$FC" >/dev/null 2>&1 || die "Fortran compiler '$FC' not found (apt-get install gfortran)"
command -v "$CC" >/dev/null 2>&1 || die "C compiler '$CC' not found"
command -v timeout >/dev/null 2>&1 || die "'timeout' (coreutils) not found"
command -v nm >/dev/null 2>&1 || die "'nm' (binutils) not found"

# Flags as in lapack's make.inc.example (FFLAGS = -O2 -frecursive, CFLAGS = -O3);
# -DADD_ selects the lower-case-plus-underscore Fortran mangling in
# cblas_mangling.h (also its default) - what gfortran uses.
FFLAGS_T=${SIMBLAS_NETLIB_FFLAGS:--O2 -frecursive}
CFLAGS_T=${SIMBLAS_NETLIB_CFLAGS:--O2 -DADD_}

# The 24 programs: name, kind (f = BLAS/TESTING, c = CBLAS/testing), level.
ALL_PROGS="sblat1 dblat1 cblat1 zblat1 sblat2 dblat2 cblat2 zblat2 sblat3 dblat3 cblat3 zblat3
scblat1 dcblat1 ccblat1 zcblat1 scblat2 dcblat2 ccblat2 zcblat2 scblat3 dcblat3 ccblat3 zcblat3"

SELECTED=
if [ -z "$ONLY" ]; then
  SELECTED=$ALL_PROGS
else
  for pat in $(echo "$ONLY" | tr ',' ' '); do
    pat=${pat#x}
    hit=no
    for p in $ALL_PROGS; do
      # shellcheck disable=SC2254
      case "$p" in $pat) hit=yes
        case " $SELECTED " in *" $p "*) ;; *) SELECTED="$SELECTED $p" ;; esac ;;
      esac
    done
    [ "$hit" = yes ] || die "--only: '$pat' matches no program (known: $(printf '%s' "$ALL_PROGS" | tr '\n' ' '))"
  done
  # keep the canonical order
  ordered=
  for p in $ALL_PROGS; do
    case " $SELECTED " in *" $p "*) ordered="$ordered $p" ;; esac
  done
  SELECTED=$ordered
fi

kind_of() { case "$1" in ?cblat?) echo c ;; *) echo f ;; esac; }
level_of() { echo "${1#"${1%?}"}"; }
prec_of() { echo "${1%"${1#?}"}"; }

T_START=$(date +%s)

# ---------------------------------------------------------------- sources
CACHE=${SIMBLAS_NETLIB_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/simblas/netlib}

check_src() {
  [ -f "$1/BLAS/TESTING/dblat2.f" ] && [ -f "$1/CBLAS/testing/c_xerbla.c" ] &&
    [ -f "$1/CBLAS/include/cblas.h" ] && [ -f "$1/CBLAS/include/cblas_mangling_with_flags.h.in" ]
}

find_tarball() {
  for t in "$CACHE"/dl/lapack_*.orig.tar.*; do
    case "$t" in *.asc) ;; *) [ -f "$t" ] && printf '%s\n' "$t" ;; esac
  done | sort -V | tail -n 1
}

get_sources() {
  if [ -n "$LAPACK_SRC" ]; then
    check_src "$LAPACK_SRC" || die "--lapack-src '$LAPACK_SRC' has no BLAS/TESTING + CBLAS/testing + CBLAS/include"
    SRC=$(cd "$LAPACK_SRC" && pwd)
    return
  fi
  mkdir -p "$CACHE/dl" "$CACHE/src" || die "cannot create cache folder '$CACHE'"
  SRC=$(for d in "$CACHE"/src/lapack-*; do
           [ -f "$d/.complete" ] && check_src "$d" && printf '%s\n' "$d"
         done | sort -V | tail -n 1)
  [ -n "$SRC" ] && return
  tarball=$(find_tarball)
  if [ -z "$tarball" ]; then
    command -v apt-get >/dev/null 2>&1 ||
      die "no lapack sources in '$CACHE' and no apt-get to fetch them (or pass --lapack-src DIR)"
    note "fetching the lapack sources with 'apt-get source --download-only lapack' into $CACHE/dl"
    # apt-get may warn (or fail on the debian.tar) while the orig tarball,
    # which is all we need, still arrives: judge by the file, not the status.
    ( cd "$CACHE/dl" && apt-get source --download-only lapack ) >"$CACHE/dl/apt-get.log" 2>&1 || true
    tarball=$(find_tarball)
    if [ -z "$tarball" ]; then
      sed 's/^/  apt-get: /' "$CACHE/dl/apt-get.log" | tail -n 15 >&2
      die "could not download lapack_*.orig.tar.* (deb-src entries missing? run scripts/install-deps.sh --sources; or pass --lapack-src DIR)"
    fi
  fi
  tmp=$(mktemp -d "$CACHE/src/.unpack.XXXXXX")
  if ! tar -xf "$tarball" -C "$tmp" --wildcards \
       '*/BLAS/TESTING/*' '*/CBLAS/testing/*' '*/CBLAS/include/*' 2>"$tmp/tar.log"; then
    cat "$tmp/tar.log" >&2; rm -rf "$tmp"
    die "could not unpack $tarball"
  fi
  top=
  for t in "$tmp"/lapack-*; do [ -d "$t" ] && top=$(basename "$t"); done
  if [ -z "$top" ] || ! check_src "$tmp/$top"; then
    rm -rf "$tmp"; die "$tarball does not hold the BLAS/CBLAS tests"
  fi
  touch "$tmp/$top/.complete"
  if [ ! -d "$CACHE/src/$top" ]; then
    mv -T "$tmp/$top" "$CACHE/src/$top" 2>/dev/null || true
  fi
  rm -rf "$tmp"
  check_src "$CACHE/src/$top" || die "unpacking into $CACHE/src/$top failed"
  SRC=$CACHE/src/$top
}

get_sources
SRCVER=$(basename "$SRC")

# ------------------------------------------------------------ test objects
# The objects do not depend on the library under test: build them once per
# (source version, compilers, flags) and keep them in the cache.
key=$( { echo "$SRC"; "$FC" --version 2>&1 | head -n 1; "$CC" --version 2>&1 | head -n 1
         echo "$FFLAGS_T|$CFLAGS_T|v2"; } | cksum | cut -d' ' -f1)
OBJ=$CACHE/obj/$SRCVER-$key
[ -n "$LAPACK_SRC" ] && OBJ=$CACHE/obj/custom-$key

build_objects() {
  [ -f "$OBJ/.complete" ] && return 0
  mkdir -p "$CACHE/obj" || die "cannot create $CACHE/obj"
  tmp=$(mktemp -d "$CACHE/obj/.build.XXXXXX")
  mkdir -p "$tmp/include"
  # as CBLAS/Makefile does: cp include/cblas_mangling_with_flags.h.in include/cblas_mangling.h
  cp "$SRC/CBLAS/include/cblas_mangling_with_flags.h.in" "$tmp/include/cblas_mangling.h"
  # Helper 1: make C stdout line buffered, so that the C error-exit reports
  # of the CBLAS testers and the Fortran reports (both on stdout) do not get
  # split mid-line when stdout is a file.
  cat >"$tmp/nl_linebuf.c" <<'EOF'
#include <stdio.h>
__attribute__((constructor)) static void simblas_netlib_linebuf(void)
{ setvbuf(stdout, NULL, _IOLBF, 0); }
EOF
  # Helper 2: netlib CBLAS keeps "int RowMajorStrg" in the library and the
  # CBLAS testers reference it; used only if the library does not export it.
  cat >"$tmp/nl_rowmajor.c" <<'EOF'
int RowMajorStrg = 0;
EOF
  {
    for p in s d c z; do for l in 1 2 3; do
      echo "F $SRC/BLAS/TESTING/${p}blat$l.f $tmp/f_${p}blat$l.o"
      echo "F $SRC/CBLAS/testing/c_${p}blat$l.f $tmp/c_${p}blat$l.o"
      echo "C $SRC/CBLAS/testing/c_${p}blas$l.c $tmp/c_${p}blas$l.o"
    done
    echo "C $SRC/CBLAS/testing/c_${p}2chke.c $tmp/c_${p}2chke.o"
    echo "C $SRC/CBLAS/testing/c_${p}3chke.c $tmp/c_${p}3chke.o"
    done
    echo "C $SRC/CBLAS/testing/auxiliary.c $tmp/auxiliary.o"
    echo "C $SRC/CBLAS/testing/c_xerbla.c $tmp/c_xerbla.o"
    echo "C $tmp/nl_linebuf.c $tmp/nl_linebuf.o"
    echo "C $tmp/nl_rowmajor.c $tmp/nl_rowmajor.o"
  } >"$tmp/list"
  note "compiling the netlib test programs ($SRCVER) into $OBJ"
  export FC CC FFLAGS_T CFLAGS_T SRC tmp
  # shellcheck disable=SC2016
  if ! xargs -P "$JOBS" -L 1 sh -c '
        if [ "$0" = F ]; then $FC $FFLAGS_T -c -o "$2" "$1" >"$2.log" 2>&1
        else $CC $CFLAGS_T -I"$tmp/include" -I"$SRC/CBLAS/include" -c -o "$2" "$1" >"$2.log" 2>&1; fi ||
        { echo "compile failed: $1"; cat "$2.log"; exit 255; }' <"$tmp/list" >&2; then
    rm -rf "$tmp"
    die "compiling the test programs failed"
  fi
  rm -f "$tmp"/*.log
  touch "$tmp/.complete"
  if [ -f "$OBJ/.complete" ]; then rm -rf "$tmp"; return 0; fi
  rm -rf "$OBJ"
  mv -T "$tmp" "$OBJ" 2>/dev/null || { rm -rf "$tmp"; [ -f "$OBJ/.complete" ] || die "cannot store objects in $OBJ"; }
}

build_objects

# ------------------------------------------------------------ library facts
LIBDIR=$(dirname "$LIB")
LIBDIR_REAL=$(dirname "$LIB_REAL")
SONAME=$( (objdump -p "$LIB_REAL" 2>/dev/null || true) | awk '$1 == "SONAME" { print $2 }')
LINKLIB="$LIB -Wl,--disable-new-dtags -Wl,-rpath,$LIBDIR"
[ "$LIBDIR_REAL" = "$LIBDIR" ] || LINKLIB="$LINKLIB -Wl,-rpath,$LIBDIR_REAL"

ROWMAJOR_SHIM=
if ! nm -D --defined-only "$LIB_REAL" 2>/dev/null | awk '$3 == "RowMajorStrg" { f = 1 } END { exit !f }'; then
  ROWMAJOR_SHIM=$OBJ/nl_rowmajor.o
fi

# ------------------------------------------------------------ work folder
AUTO_WORKDIR=no
if [ -z "$WORKDIR" ]; then
  WORKDIR=$(mktemp -d "${TMPDIR:-/tmp}/simblas-netlib.XXXXXX")
  AUTO_WORKDIR=yes
else
  mkdir -p "$WORKDIR" || die "cannot create --workdir '$WORKDIR'"
  WORKDIR=$(cd "$WORKDIR" && pwd)
fi

# ------------------------------------------------------------ input files
# errexit mode: error exits on, stop-on-failure off, no snapshot file, and
# the list of N values reduced to "0" so the (ignored) computational part is
# trivial.  Every routine line keeps (or gets) its T flag.
make_errexit_input() { # in out
  awk '
    /T TO STOP ON FAILURES/       { print "F        LOGICAL FLAG, T TO STOP ON FAILURES."; s++; next }
    /T TO TEST ERROR EXITS/       { print "T        LOGICAL FLAG, T TO TEST ERROR EXITS."; e++; next }
    /UNIT NUMBER OF SNAPSHOT FILE/ { print "-1                UNIT NUMBER OF SNAPSHOT FILE (NOT USED IF .LT. 0)"; next }
    /NUMBER OF VALUES OF N *$/    { print "1                 NUMBER OF VALUES OF N"; n++; next }
    /VALUES OF N *$/              { print "0                 VALUES OF N"; v++; next }
    /PUT F FOR NO TEST/           { sub(/ F PUT F/, " T PUT F"); print; next }
    { print }
    END { if (s != 1 || e != 1 || n != 1 || v != 1) exit 1 }
  ' "$1" >"$2"
}

# number of routines the input asks to test
routines_in() { grep -c '^[A-Za-z_0-9]* *T PUT F FOR NO TEST' "$1" || true; }

# ------------------------------------------------------------ one program
# Writes $WORKDIR/<p>/result: first line PASS|FAIL|SKIP, second the detail,
# then relevant log lines.
BAD_COMMON='FAIL|SUSPECT|FATAL|\*\*\*\*\*|NOT DETECTED|XERBLA WAS CALLED|NOT RECOGNIZED|ABANDONED|WAS NOT TESTED|WILL NOT BE TESTED|Shouldn.t be here|runtime error|Program received signal|Segmentation|was incorrect|On entry to|[Ee]rror'
BAD_ERREXIT='FAILED THE TESTS OF ERROR-EXITS|NOT DETECTED|XERBLA WAS CALLED|ERROR-EXIT TAKEN ON VALID CALL|NOT RECOGNIZED|ABANDONED|WILL NOT BE TESTED|runtime error|Program received signal|Segmentation|was incorrect|On entry to'

# at most 12 distinct lines, in order of first appearance
relevant() {
  awk '!seen[$0]++ { n++; if (n <= 12) print; else more++ }
       END { if (more) printf "... (%d more distinct lines)\n", more }'
}

run_one() {
  p=$1
  d=$WORKDIR/$p
  rm -rf "$d"; mkdir -p "$d"
  res=$d/result
  kind=$(kind_of "$p"); lev=$(level_of "$p"); pr=$(prec_of "$p")

  if [ "$MODE" = errexit ] && [ "$lev" = 1 ]; then
    printf 'SKIP\n(errexit: level-1 programs have no error-exit tests)\nERREXIT 0 0 %s\n' "$kind" >"$res"
    return 0
  fi

  # objects, as BLAS/TESTING/Makefile and CBLAS/testing/Makefile link them
  if [ "$kind" = f ]; then
    objs="$OBJ/f_$p.o"
  else
    case "$lev" in
      1) objs="$OBJ/c_${pr}blat1.o $OBJ/c_${pr}blas1.o $OBJ/nl_linebuf.o" ;;
      *) objs="$OBJ/c_${pr}blat$lev.o $OBJ/c_${pr}blas$lev.o $OBJ/c_$pr${lev}chke.o $OBJ/auxiliary.o $OBJ/c_xerbla.o $OBJ/nl_linebuf.o $ROWMAJOR_SHIM" ;;
    esac
  fi
  # shellcheck disable=SC2086
  if ! "$FC" -o "$d/x$p" $objs $LINKLIB >"$d/link.log" 2>&1; then
    { echo FAIL; echo "(link failed against $LIB)"
      grep -E 'undefined reference|error' "$d/link.log" | sed 's/^.*: //' | sort | uniq -c | sort -rn | head -n 15
    } >"$res"
    return 0
  fi
  # make sure the loader picks the library under test
  want=${SONAME:-$LIB}
  got=$(ldd "$d/x$p" 2>/dev/null | awk -v w="$want" -v b="$(basename "$LIB")" '
          $1 == w || $1 == b { print ($2 == "=>" ? $3 : $1); exit }')
  if [ -z "$got" ] || [ "$(readlink -f "$got")" != "$LIB_REAL" ]; then
    { echo FAIL; echo "(the program loads '${got:-nothing}' instead of $LIB_REAL)"; } >"$res"
    return 0
  fi

  # input
  input=
  if [ "$lev" != 1 ]; then
    if [ "$kind" = f ]; then orig=$SRC/BLAS/TESTING/${p}.in; inname=$p.in
    else orig=$SRC/CBLAS/testing/${pr}in$lev; inname=${pr}in$lev; fi
    if [ "$MODE" = errexit ]; then
      make_errexit_input "$orig" "$d/$inname" ||
        { printf 'FAIL\n(cannot adapt %s for errexit mode: unexpected layout)\n' "$orig" >"$res"; return 0; }
    else
      cp "$orig" "$d/$inname"
    fi
    input=$d/$inname
  fi

  # run
  rc=0
  # (GFORTRAN_UNBUFFERED_ALL: keep what was written if the program dies;
  #  the outer 2>/dev/null silences bash's own "Segmentation fault" notice)
  { ( cd "$d" && GFORTRAN_UNBUFFERED_ALL=y exec timeout -k 10 "$TIMEOUT" "./x$p" \
        <"${input:-/dev/null}" >"$d/stdout.log" 2>&1 ); } 2>/dev/null || rc=$?

  # gather the output: the Fortran level-2/3 programs write the summary file
  # named on the first line of their input (OPEN(NOUT, FILE=...)), the others
  # write to stdout.
  out=$d/output.txt
  : >"$out"
  if [ "$kind" = f ] && [ -n "$input" ]; then
    summ=$(sed -n "1s/^ *'\([^']*\)'.*/\1/p" "$input")
    [ -n "$summ" ] && [ -f "$d/$summ" ] && cat "$d/$summ" >>"$out"
  fi
  cat "$d/stdout.log" >>"$out"

  why=
  case "$rc" in
    0) ;;
    124) why="timed out after ${TIMEOUT}s" ;;
    137) why="killed after the ${TIMEOUT}s time limit" ;;
    *) if [ "$rc" -gt 128 ] && [ "$rc" -le 192 ]; then why="killed by signal $((rc - 128))"
       else why="exit status $rc"; fi ;;
  esac

  npass_err=$(grep -c 'PASSED THE TESTS OF ERROR-EXITS' "$out" || true)
  if [ "$MODE" = errexit ]; then
    nrout=$(routines_in "$input")
    bad=$(grep -E "$BAD_ERREXIT" "$out" || true)
    [ -z "$why" ] && ! grep -q 'END OF TESTS' "$out" && why="no 'END OF TESTS' line"
    [ -z "$why" ] && [ "$npass_err" -ne "$nrout" ] && why="$npass_err of $nrout routines passed the error-exit tests"
    [ -z "$why" ] && [ -n "$bad" ] && why="error-exit problems reported"
    if [ -z "$why" ]; then
      printf 'PASS\n(errexit: %s routines)\nERREXIT %s %s %s\n' "$nrout" "$npass_err" "$nrout" "$kind" >"$res"
    else
      { echo FAIL; echo "(errexit: $why)"; echo "ERREXIT $npass_err $nrout $kind"
        if [ -n "$bad" ]; then printf '%s\n' "$bad" | relevant
        else grep -v '^ *$' "$out" | tail -n 6; fi
      } >"$res"
    fi
    return 0
  fi

  # full mode
  bad=$(grep -v 'PASSED THE TESTS OF ERROR-EXITS' "$out" | grep -E "$BAD_COMMON" || true)
  if [ "$lev" = 1 ]; then
    nsub=$(grep -c 'Test of subprogram number' "$out" || true)
    npass=$(grep -c -- '----- PASS -----' "$out" || true)
    [ -z "$why" ] && [ "$nsub" -eq 0 ] && why="no subprogram was tested"
    [ -z "$why" ] && [ "$npass" -ne "$nsub" ] && why="$npass of $nsub subprograms passed"
    [ -z "$why" ] && [ -n "$bad" ] && why="failures reported"
    detail="$nsub subprograms"
    nrout=0
  else
    nrout=$(routines_in "$input")
    ncomp=$(grep -c 'PASSED THE .*COMPUTATIONAL TESTS' "$out" || true)
    want_comp=$nrout
    if [ "$kind" = c ]; then
      layout=$(sed -n '6s/^ *\([0-9]\).*/\1/p' "$input")
      [ "$layout" = 2 ] && want_comp=$((2 * nrout))
    fi
    [ -z "$why" ] && ! grep -q 'END OF TESTS' "$out" && why="no 'END OF TESTS' line"
    [ -z "$why" ] && [ "$ncomp" -ne "$want_comp" ] && why="$ncomp of $want_comp computational test sets passed"
    [ -z "$why" ] && [ "$npass_err" -ne "$nrout" ] && why="$npass_err of $nrout routines passed the error-exit tests"
    [ -z "$why" ] && [ -n "$bad" ] && why="failures reported"
    if [ "$kind" = c ] && [ "$want_comp" -ne "$nrout" ]; then
      detail="$nrout routines: computational col+row major, error exits"
    else
      detail="$nrout routines: computational, error exits"
    fi
  fi
  if [ -z "$why" ]; then
    printf 'PASS\n(%s)\nERREXIT %s %s %s\n' "$detail" "$npass_err" "$nrout" "$kind" >"$res"
  else
    { echo FAIL; echo "($why)"; echo "ERREXIT $npass_err $nrout $kind"
      if [ -n "$bad" ]; then
        # error-exit complaints first, then the rest
        { printf '%s\n' "$bad" | grep -E "$BAD_ERREXIT" || true
          printf '%s\n' "$bad" | grep -v -E "$BAD_ERREXIT" || true; } | relevant
      else grep -v '^ *$' "$out" | tail -n 8; fi
    } >"$res"
  fi
  return 0
}

# ------------------------------------------------------------ run them all
echo "netlib BLAS tests ($SRCVER) against $LIB_REAL, mode $MODE"
[ -n "$ROWMAJOR_SHIM" ] && case "$SELECTED" in *cblat[23]*)
  echo "NOTE: the library does not export the netlib CBLAS global 'int RowMajorStrg';"
  echo "NOTE: the CBLAS level-2/3 testers define it themselves (they read and write it)." ;;
esac

for p in $SELECTED; do
  while [ "$(jobs -rp | wc -l)" -ge "$JOBS" ]; do wait -n || true; done
  run_one "$p" &
done
wait

npass=0; nfail=0; nskip=0
ee_f=0; ee_fwant=0; ee_c=0; ee_cwant=0
for p in $SELECTED; do
  res=$WORKDIR/$p/result
  if [ ! -f "$res" ]; then
    echo "FAIL $p (harness error: no result)"; nfail=$((nfail + 1)); continue
  fi
  status=$(sed -n 1p "$res")
  detail=$(sed -n 2p "$res")
  # shellcheck disable=SC2046
  set -- $(sed -n 's/^ERREXIT //p' "$res") 0 0 x
  if [ "$status" != SKIP ]; then
    # the expected count comes from the input file; if the program did not
    # even run, count the routines of the original input
    want=$2
    if [ "$want" = 0 ] && [ "$(level_of "$p")" != 1 ]; then
      if [ "$(kind_of "$p")" = f ]; then want=$(routines_in "$SRC/BLAS/TESTING/$p.in")
      else want=$(routines_in "$SRC/CBLAS/testing/$(prec_of "$p")in$(level_of "$p")"); fi
    fi
    if [ "$(kind_of "$p")" = f ]; then ee_f=$((ee_f + $1)); ee_fwant=$((ee_fwant + want))
    else ee_c=$((ee_c + $1)); ee_cwant=$((ee_cwant + want)); fi
  fi
  case "$status" in
    PASS) echo "PASS $p $detail"; npass=$((npass + 1)) ;;
    SKIP) echo "SKIP $p $detail"; nskip=$((nskip + 1)) ;;
    *) echo "FAIL $p $detail"
       sed -n '3,$p' "$res" | grep -v '^ERREXIT ' | sed 's/^/    | /' || true
       [ -f "$WORKDIR/$p/output.txt" ] && echo "    (log: $WORKDIR/$p/output.txt)"
       nfail=$((nfail + 1)) ;;
  esac
done

T_END=$(date +%s)
[ "$ee_fwant" -gt 0 ] && echo "error-exit tests (BLAS/TESTING, Fortran): $ee_f of $ee_fwant routines passed"
[ "$ee_cwant" -gt 0 ] && echo "error-exit tests (CBLAS/testing): $ee_c of $ee_cwant routines passed"
[ "$nskip" -gt 0 ] && echo "$nskip skipped"
if [ "$nfail" -eq 0 ] && [ "$AUTO_WORKDIR" = yes ] && [ "$KEEP" = no ]; then
  rm -rf "$WORKDIR"
  echo "elapsed $((T_END - T_START))s"
else
  echo "elapsed $((T_END - T_START))s; logs in $WORKDIR/<program>/"
fi
echo "$npass passed, $nfail failed"
[ "$nfail" -eq 0 ]
