# strict.sh -- sourced by the test scripts.  missing MSG: what a test needs
# is not on this machine.  A plain `make check` skips (exit 77); under
# SIMBLAS_TEST_STRICT=1, which scripts/run-tests.sh (and so CI) sets, it
# fails, so that a suite run on a machine without, say, the HPL build cannot
# pass while testing nothing of HPL.  Skips for a reason other than a
# missing component (AddressSanitizer builds) do not use it.
# need MSG: the same for one check of a script that goes on (its own ko
# counts the failure).
# ok MSG, ko MSG: a check passed or failed, said and counted in pass and
# fail (the script sets them to 0 and prints them at its end); a script
# with counters of its own (smpi-common.sh's ok) keeps its definitions.
command -v ok > /dev/null 2>&1 || ok() { echo "ok: $1"; pass=$((pass + 1)); }
command -v ko > /dev/null 2>&1 || ko() { echo "FAIL: $1"; fail=$((fail + 1)); }
strict() { [ "${SIMBLAS_TEST_STRICT:-0}" = 1 ]; }
missing() {
  if strict; then
    echo "FAIL: $1"
    echo "  (SIMBLAS_TEST_STRICT=1: the full suite needs it; sh scripts/install-deps.sh --sources installs what the suite uses, or unset SIMBLAS_TEST_STRICT to skip)"
    exit 1
  fi
  echo "SKIP: $1"
  exit 77
}
need() { if strict; then ko "$1 (SIMBLAS_TEST_STRICT=1 requires it)"; else echo "SKIP: $1"; fi; }
