#!/bin/sh
# python-units.sh -- the unit tests of simblas-hpl's package (test/py/, stdlib
# unittest): argument checks, HPL.dat, platforms, units, the extrapolation,
# the JSON and CSV writers, and the files of --dry-run against those main's
# script wrote.  No smpirun needed (test/hpl-run.sh has what needs it).
# Environment: SB_SRCDIR, SB_BUILDDIR (make check sets both; the build tree's
# tables are read there), PYTHON.
src=${SB_SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}
# pure Python (fakes for smpirun, xhpl and libsimblas): nothing for the
# sanitizers, and under their preloaded runtimes every interpreter it
# starts was slow (127 s against about 60); the plain build runs it
case "${LD_PRELOAD:-}" in *libasan*) echo "SKIP: sanitizer build: pure Python, run by the plain build"; exit 77 ;; esac
PYTHONDONTWRITEBYTECODE=1  # nothing written into the source tree
export PYTHONDONTWRITEBYTECODE
# the build tree's tables (SB_BUILDDIR's settings.json, ops.json), the
# package's only way to lib/*.def: one line saying what is missing, rather
# than every module failing to import
PYTHONPATH="$src/test/py" "${PYTHON:-python3}" -c 'import dryrun_fixtures; dryrun_fixtures.build_tree()' || exit 1
exec "${PYTHON:-python3}" -m unittest discover -s "$src/test/py" -t "$src/test/py" -v
