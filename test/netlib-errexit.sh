#!/bin/sh
# netlib's BLAS and CBLAS test programs, linked against libsimblas, with
# SIMBLAS_MODE=null (nothing computed): every TESTS OF ERROR-EXITS passes.
exec env SIMBLAS_MODE=null "${SB_SRCDIR:-.}/test/netlib/run-netlib.sh" \
  --lib "${SB_BUILDDIR:-.}/.libs/libsimblas.so" --mode errexit
