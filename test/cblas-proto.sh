#!/bin/sh
# The library's own declarations of every cblas_ routine (lib/sb_decls.h,
# expanded from blas.def) must agree with Debian's cblas.h: compile one
# translation unit that includes the system header and then ours, for
# netlib's header and for OpenBLAS's.
set -eu
CC=${CC:-cc}
src=${SB_SRCDIR:-.}
bld=${SB_BUILDDIR:-.}
arch=$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null || echo x86_64-linux-gnu)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0 tried=0
for h in /usr/include/$arch/cblas-netlib.h /usr/include/$arch/openblas-pthread/cblas.h /usr/include/cblas.h; do
  [ -f "$h" ] || continue
  tried=$((tried + 1))
  printf '#include "%s"\n#include "sb_decls.h"\nint main(void) { return 0; }\n' "$h" > "$tmp/t.c"
  if $CC -std=c11 -Werror -I"$src/lib" -I"$bld/lib" -I"$(dirname "$h")" -c "$tmp/t.c" -o "$tmp/t.o" 2> "$tmp/err"; then
    echo "ok: declarations agree with $h"
    pass=$((pass + 1))
  else
    echo "FAIL: declarations conflict with $h:"
    grep -E 'error' "$tmp/err" | head -20
    fail=$((fail + 1))
  fi
done
if [ "$tried" -eq 0 ]; then
  . "${SB_SRCDIR:-$(dirname "$0")/..}/test/strict.sh"
  missing "no cblas.h installed (apt-get install libblas-dev)"
fi
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
