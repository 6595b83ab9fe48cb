#!/bin/sh
# Every symbol that the BLAS libraries installed on this machine export
# (Debian's OpenBLAS and netlib libblas.so.3, whichever are present) must
# be exported by libsimblas; Fortran routines also without the underscore.
# The reference lists come from the installed libraries, not from a copy.
# And libsimblas exports nothing else (it is built with
# -fvisibility=hidden): BLAS entry points (cblas_*, and the Fortran
# routines of lib/blas.def in their three spellings), netlib's error
# handlers and globals, and the API its headers declare SIMBLAS_EXPORT,
# all of it, which covers what libsimblas_pmpi needs.
set -eu
# nm, awk and sort only, nothing loaded: without the sanitizer build's
# preloaded runtimes, which slowed its thousands of processes (84 s)
unset LD_PRELOAD
lib=${SB_BUILDDIR:-.}/.libs/libsimblas.so
src=${SB_SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}
NM=${NM:-nm}
arch=$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null || echo x86_64-linux-gnu)
refs=
for r in /usr/lib/$arch/openblas-pthread/libblas.so.3 /usr/lib/$arch/openblas-openmp/libblas.so.3 \
         /usr/lib/$arch/openblas-serial/libblas.so.3 /usr/lib/$arch/blas/libblas.so.3; do
  [ -e "$r" ] && refs="$refs $r"
done
if [ -z "$refs" ]; then
  . "${SB_SRCDIR:-$(dirname "$0")/..}/test/strict.sh"
  missing "no reference BLAS installed (apt-get install libopenblas-dev libblas-dev)"
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
$NM -D --defined-only "$lib" | awk '{print $NF}' | sort -u > "$tmp/ours"
pass=0 fail=0
for r in $refs; do
  $NM -D --defined-only "$r" | awk '{print $NF}' | sort -u > "$tmp/ref"
  missing=$(comm -23 "$tmp/ref" "$tmp/ours" | tr '\n' ' ')
  n=$(wc -l < "$tmp/ref")
  if [ -n "$missing" ]; then
    echo "FAIL: libsimblas lacks $(echo $missing | wc -w) of the $n symbols of $r: $missing"
    fail=$((fail + 1))
  else
    echo "ok: all $n symbols of $r"
    pass=$((pass + 1))
  fi
  # Fortran routines: also name and NAME
  for s in $(grep -E '^[a-z0-9_]+_$' "$tmp/ref" | grep -v '^cblas_'); do
    b=${s%_}
    grep -qx "$b" "$tmp/ours" || echo "$b" >> "$tmp/nounder"
    grep -qx "$(echo "$b" | tr a-z A-Z)" "$tmp/ours" || echo "$b" >> "$tmp/noupper"
  done
done
for f in nounder noupper; do
  if [ -s "$tmp/$f" ]; then
    echo "FAIL: Fortran routines without their $f spelling: $(sort -u "$tmp/$f" | tr '\n' ' ')"
    fail=$((fail + 1))
  else
    pass=$((pass + 1))
  fi
done
# gemmt, beyond OpenBLAS 0.3.21
for p in s d c z; do
  for s in ${p}gemmt_ cblas_${p}gemmt; do
    grep -qx "$s" "$tmp/ours" || { echo "FAIL: $s missing"; fail=$((fail + 1)); }
  done
done
# ---- nothing else: every export is BLAS, netlib's, or the declared API
awk -F'[(,) ]+' '/^SB_UPPER/ { print $2; print $2 "_"; print $3 }' "${SB_BUILDDIR:-.}/lib/sb_upper.h" | sort -u > "$tmp/fortran"
printf '%s\n' xerbla xerbla_ XERBLA __xerbla xerbla_array xerbla_array_ XERBLA_ARRAY lsame lsame_ LSAME \
  CBLAS_CallFromC RowMajorStrg | sort > "$tmp/netlib"
cat "$src"/include/simblas.h "$src"/include/simblas_app.h "$src"/include/hpl_simblas.h | tr '\n' ' ' \
  | grep -oE 'SIMBLAS_EXPORT [^;]*;' | grep -oE '[A-Za-z_][A-Za-z0-9_]* *(\(|;)' | sed 's/[ (;]*$//' \
  | grep -E '^simblas_' | sort -u > "$tmp/api"
# (AddressSanitizer adds an __odr_asan.NAME beside each exported global)
grep -v -e '^cblas_' -e '^__odr_asan' "$tmp/ours" | sort | comm -23 - "$tmp/fortran" | comm -23 - "$tmp/netlib" | comm -23 - "$tmp/api" > "$tmp/leaks"
if [ -s "$tmp/leaks" ]; then
  echo "FAIL: libsimblas exports $(wc -l < "$tmp/leaks") symbols that are neither BLAS nor its declared API: $(tr '\n' ' ' < "$tmp/leaks")"
  fail=$((fail + 1))
else
  echo "ok: $(grep -c '^cblas_' "$tmp/ours") cblas_ and $(comm -12 "$tmp/ours" "$tmp/fortran" | wc -l) Fortran BLAS symbols, $(comm -12 "$tmp/ours" "$tmp/netlib" | wc -l) of netlib's, $(comm -12 "$tmp/ours" "$tmp/api" | wc -l) of the API, nothing else"
  pass=$((pass + 1))
fi
# the declared API is exported (the merged rolls need SimGrid's MPI)
unexported=$(comm -23 "$tmp/api" "$tmp/ours" | grep -v '^simblas_hpl_roll_' | tr '\n' ' ' || true)
[ -z "$unexported" ] && { echo "ok: all $(wc -l < "$tmp/api") functions the headers declare SIMBLAS_EXPORT are exported"; pass=$((pass + 1)); } \
  || { echo "FAIL: declared SIMBLAS_EXPORT but not exported: $unexported"; fail=$((fail + 1)); }
# what libsimblas_pmpi takes from libsimblas
pmpi=${SB_BUILDDIR:-.}/.libs/libsimblas_pmpi.so
if [ -f "$pmpi" ]; then
  $NM -D --undefined-only "$pmpi" | awk '{print $NF}' | grep '^simblas_' | sort -u > "$tmp/pmpi"
  lacking=$(comm -23 "$tmp/pmpi" "$tmp/ours" | tr '\n' ' ')
  [ -z "$lacking" ] && { echo "ok: libsimblas_pmpi's $(wc -l < "$tmp/pmpi") simblas_ symbols are exported: $(tr '\n' ' ' < "$tmp/pmpi")"; pass=$((pass + 1)); } \
    || { echo "FAIL: libsimblas_pmpi needs $lacking, which libsimblas does not export"; fail=$((fail + 1)); }
fi

echo "libsimblas exports $(wc -l < "$tmp/ours") symbols"
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
