#!/bin/sh
# netlib's BLAS and CBLAS test programs, linked against libsimblas, with
# SIMBLAS_MODE=passthrough onto the real BLAS: everything must pass.
exec env SIMBLAS_MODE=passthrough "${SB_SRCDIR:-.}/test/netlib/run-netlib.sh" \
  --lib "${SB_BUILDDIR:-.}/.libs/libsimblas.so" --mode full
