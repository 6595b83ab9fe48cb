#!/bin/sh
# python-units.sh -- the unit tests of simblas-hpl's package (test/py/, stdlib
# unittest): argument checks, HPL.dat, platforms, units, the extrapolation,
# the JSON and CSV writers, and the files of --dry-run against those main's
# script wrote.  No smpirun needed (test/hpl-run.sh has what needs it).
# Environment: SB_SRCDIR, SB_BUILDDIR (make check sets both), PYTHON.
src=${SB_SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}
PYTHONDONTWRITEBYTECODE=1  # nothing written into the source tree
export PYTHONDONTWRITEBYTECODE
exec "${PYTHON:-python3}" -m unittest discover -s "$src/test/py" -t "$src/test/py" -v
