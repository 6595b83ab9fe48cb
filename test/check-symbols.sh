#!/bin/sh
# Every symbol that the BLAS libraries installed on this machine export
# (Debian's OpenBLAS and netlib libblas.so.3, whichever are present) must
# be exported by libsimblas; Fortran routines also without the underscore.
# The reference lists come from the installed libraries, not from a copy.
set -eu
lib=${SB_BUILDDIR:-.}/.libs/libsimblas.so
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
echo "libsimblas exports $(wc -l < "$tmp/ours") symbols"
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
