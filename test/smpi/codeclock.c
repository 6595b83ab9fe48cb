/*
 * codeclock.c -- SMPI test of SIMBLAS_CODE_CLOCK (driven by
 * test/smpi-codeclock.sh): SimBLAS charging the program's own code.
 *
 *   smpirun ... ./codeclock REFERENCE_SPEED
 *
 * Every rank, between MPI_Wtime() calls:
 *   1. computes for about 20 ms of CPU (its own code, no BLAS), measured
 *      with the kernel's thread CPU clock, and prints
 *        CODE <rank> <simulated delta> <CPU seconds x REFERENCE_SPEED / host speed>
 *      Charged, the delta is that product; not charged, 0.
 *   2. makes K modelled BLAS calls (simblas_execute) with nothing between,
 *      and prints
 *        BLAS <rank> <simulated delta> <injected seconds> <CPU seconds of the stretch, scaled>
 *      SimBLAS's own time is not the program's: the delta is the injected
 *      time plus a small part of the stretch's CPU time (the loop).
 */
#define _GNU_SOURCE
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <simgrid/host.h>

#include "simblas.h"

#define K 20000

static double cpu_now(void)
{
  struct timespec t;
  syscall(SYS_clock_gettime, CLOCK_THREAD_CPUTIME_ID, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

int main(int argc, char **argv)
{
  MPI_Init(&argc, &argv);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  double scale = (argc > 1 ? atof(argv[1]) : 1) / sg_host_get_speed(sg_host_self());
  MPI_Barrier(MPI_COMM_WORLD);

  volatile double x = 1;
  double w0 = MPI_Wtime(), c0 = cpu_now();
  while (cpu_now() - c0 < 0.02)
    for (int i = 0; i < 1000; i++)
      x = x * 1.0000001 + 1e-9;
  double c1 = cpu_now(), w1 = MPI_Wtime();
  printf("CODE %d %.9g %.9g\n", rank, w1 - w0, (c1 - c0) * scale);

  simblas_stats s0 = simblas_get_stats();
  w0 = MPI_Wtime();
  c0 = cpu_now();
  for (int i = 0; i < K; i++)
    simblas_execute("daxpy", 0, 64, 0);
  c1 = cpu_now();
  w1 = MPI_Wtime();
  simblas_stats s1 = simblas_get_stats();
  printf("BLAS %d %.9g %.9g %.9g\n", rank, w1 - w0, s1.injected_s - s0.injected_s, (c1 - c0) * scale);
  MPI_Finalize();
  return 0;
}
