/*
 * polls.c -- SMPI test of libsimblas_pmpi's per-rank poll cost (driven by
 * test/smpi-polls.sh).
 *
 *   smpirun ... ./polls WAIT
 *
 * 1. Spin: rank 0 computes for WAIT simulated seconds (modelled dgemm
 *    calls: at least WAIT), then sends one int
 *    to every other rank, and prints
 *      SENT <seconds from the start>  Each other rank polls MPI_Iprobe in a loop with
 *    nothing between (a spin-wait) until the message is there, counting
 *    its polls, and prints
 *      SPIN <rank> <polls> <seconds from the start to the successful poll>
 *    With SIMBLAS_POLL_COST=c and SIMBLAS_POLL_GROWTH=g, the k-th failed
 *    poll in a row costs c (1 + g max(0, k - 32)): the count depends on
 *    WAIT, c and g only, not on how many other ranks spin.
 * 2. Work: every rank makes K modelled dgemm calls (simblas_execute), each
 *    followed by a failed MPI_Iprobe (no message has that tag), then one
 *    more call, and prints
 *      WORK <rank> <K> <MPI_Wtime delta> <injected BLAS seconds>
 *    Each poll between work costs exactly c: delta = injected + K c.
 * 3. Chunks (SIMBLAS_PROBE): rank 0 computes for WAIT, sends one int to
 *    rank 1 and prints
 *      CSENT <seconds from the start>
 *    rank 1 works in chunks of WAIT/3.3 (modelled dgemm calls) with one
 *    MPI_Iprobe after each, as HPL's update between its broadcast probes,
 *    and prints
 *      CHUNK <seconds to the probe that saw it> <its chunk's length>
 *    immediate: the first probe after the send sees it; lagged (Open
 *    MPI's): the next one.
 * 4. Late (SIMBLAS_PROBE): in a communicator whose ranks are MPI_COMM_WORLD's
 *    reversed, rank 0 computes for WAIT/2 and sends rank 1 one int; rank 1
 *    computes for WAIT with no MPI call (the message arrives meanwhile),
 *    then probes after chunks of WAIT/3.3 (with a status), and prints
 *      LATE <probes made> <seconds to the probe that saw it> <seconds to its first probe> <chunk>
 *    immediate: its first probe sees it; lagged (Open MPI's): the second,
 *    although no probe failed before the message came.
 * The script judges the numbers.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include "simblas.h"

#define K 1000

int main(int argc, char **argv)
{
  MPI_Init(&argc, &argv);
  int rank, size, x = 1, flag = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  double wait = argc > 1 ? atof(argv[1]) : 0.01;

  MPI_Barrier(MPI_COMM_WORLD);
  double t0 = MPI_Wtime();
  if (rank == 0) {
    for (double t = 0; t < wait;) /* modelled work, injected at the send */
      t += simblas_execute("dgemm", 64, 64, 64);
    printf("SENT %.12g\n", MPI_Wtime() - t0);
    for (int r = 1; r < size; r++)
      MPI_Send(&x, 1, MPI_INT, r, 1, MPI_COMM_WORLD);
  } else {
    long polls = 0;
    do {
      MPI_Iprobe(0, 1, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
      polls++;
    } while (!flag);
    double seen = MPI_Wtime() - t0;
    MPI_Recv(&x, 1, MPI_INT, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    printf("SPIN %d %ld %.12g\n", rank, polls, seen);
  }

  MPI_Barrier(MPI_COMM_WORLD);
  t0 = MPI_Wtime();
  double injected = 0;
  for (int i = 0; i < K; i++) {
    injected += simblas_execute("dgemm", 64, 64, 64);
    MPI_Iprobe(0, 2, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
  }
  injected += simblas_execute("dgemm", 64, 64, 64);
  double dt = MPI_Wtime() - t0;
  printf("WORK %d %d %.12g %.12g\n", rank, K, dt, injected);

  MPI_Barrier(MPI_COMM_WORLD);
  t0 = MPI_Wtime();
  if (rank == 0) {
    for (double t = 0; t < wait;)
      t += simblas_execute("dgemm", 64, 64, 64);
    printf("CSENT %.12g\n", MPI_Wtime() - t0);
    MPI_Send(&x, 1, MPI_INT, 1, 3, MPI_COMM_WORLD);
  } else if (rank == 1) {
    double chunk = 0;
    flag = 0;
    while (!flag) {
      chunk = 0;
      while (chunk < wait / 3.3)
        chunk += simblas_execute("dgemm", 64, 64, 64);
      MPI_Iprobe(0, 3, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
    }
    printf("CHUNK %.12g %.12g\n", MPI_Wtime() - t0, chunk);
    MPI_Recv(&x, 1, MPI_INT, 0, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  }

  MPI_Comm rev; /* ranks reversed: the probe's source is not its world rank */
  MPI_Comm_split(MPI_COMM_WORLD, 0, size - rank, &rev);
  int r0 = size - 1, r1 = size - 2; /* world ranks 0 and 1 in rev */
  MPI_Barrier(MPI_COMM_WORLD);
  t0 = MPI_Wtime();
  if (rank == 0) {
    for (double t = 0; t < wait / 2;)
      t += simblas_execute("dgemm", 64, 64, 64);
    MPI_Send(&x, 1, MPI_INT, r1, 4, rev);
  } else if (rank == 1) {
    double chunk = 0, first = -1;
    int probes = 0;
    MPI_Status st;
    for (double t = 0; t < wait;) /* no MPI call: the message arrives meanwhile */
      t += simblas_execute("dgemm", 64, 64, 64);
    flag = 0;
    for (;;) {
      MPI_Iprobe(r0, 4, rev, &flag, &st);
      probes++;
      if (first < 0)
        first = MPI_Wtime() - t0;
      if (flag)
        break;
      chunk = 0;
      while (chunk < wait / 3.3)
        chunk += simblas_execute("dgemm", 64, 64, 64);
    }
    printf("LATE %d %.12g %.12g %.12g\n", probes, MPI_Wtime() - t0, first, chunk);
    MPI_Recv(&x, 1, MPI_INT, r0, 4, rev, MPI_STATUS_IGNORE);
  }
  MPI_Comm_free(&rev);
  fflush(stdout);
  MPI_Finalize();
  return 0;
}
