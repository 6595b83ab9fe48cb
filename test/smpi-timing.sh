#!/bin/sh
# Under smpirun, MPI_Wtime deltas around BLAS calls equal the injected
# predictions, and halve on a host twice as fast (test/smpi/).
exec "${SB_SRCDIR:-.}/test/smpi/run-smpi-test.sh" "${SB_BUILDDIR:-.}" "${SB_SRCDIR:-.}"
