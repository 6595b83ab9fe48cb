/*
 * pmpi_init.c -- libsimblas_pmpi: tells libsimblas that its MPI wrappers
 * (generated into pmpi_wrappers.c by gen-pmpi.py) are in the program, so
 * that SIMBLAS_MERGE=1 may delay injections to the next MPI call.
 */
#include "simblas.h"

__attribute__((constructor)) static void sb_pmpi_init(void) { simblas_pmpi_linked = 1; }
