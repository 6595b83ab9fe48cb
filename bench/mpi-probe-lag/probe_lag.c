/*
 * probe_lag.c -- when does MPI_Iprobe see a message? (bench/mpi-probe-lag/run.sh)
 *
 * Rank 0 computes F ms plus a fraction of a chunk (a different one each
 * round, spread evenly), then sends S bytes (MPI_Send, blocking); rank 1
 * computes in chunks of C ms with one MPI_Iprobe after each, as HPL's
 * update probes for the next panel between its NB-column chunks, and on a
 * match receives.  R rounds, each after a barrier.  Prints, as rank 1
 * measured them:
 *   probe_lag C_MS F_MS S seen_after_ms chunks sender_blocked_ms
 * seen_after: from the send's start to the probe that matched, mean over
 * the rounds; chunks: the same in chunks.  An MPI whose probe sees a
 * message at the first probe after it arrives gives about half a chunk
 * on average (SMPI, MPICH); one whose probe takes it in first (Open MPI)
 * one chunk more.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now(void)
{
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static volatile double sink;
static void busy(double s)
{
  double t0 = now(), x = 0;
  while (now() - t0 < s)
    for (int i = 0; i < 1000; i++)
      x += i * 1e-9;
  sink = x;
}

int main(int argc, char **argv)
{
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (argc < 4 || size != 2) {
    if (rank == 0)
      fprintf(stderr, "usage: mpirun -np 2 probe_lag CHUNK_MS F_MS BYTES [ROUNDS]\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  double chunk = atof(argv[1]) * 1e-3, f = atof(argv[2]) * 1e-3;
  long bytes = atol(argv[3]);
  int rounds = argc > 4 ? atoi(argv[4]) : 20;
  char *buf = calloc((size_t)bytes, 1);
  double seen_sum = 0, blocked_sum = 0;
  for (int r = 0; r < rounds; r++) {
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
      double frac = r * 0.6180339887498949; /* golden-ratio steps: evenly spread in [0, 1) */
      busy(f + chunk * (frac - (int)frac));
      double t0 = now();
      MPI_Send(buf, (int)bytes, MPI_CHAR, 1, 7, MPI_COMM_WORLD);
      double blocked = now() - t0;
      double times[2] = {t0, blocked};
      MPI_Send(times, 2, MPI_DOUBLE, 1, 8, MPI_COMM_WORLD);
    } else {
      int flag = 0;
      while (!flag) {
        busy(chunk);
        MPI_Iprobe(0, 7, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
      }
      double seen = now();
      MPI_Recv(buf, (int)bytes, MPI_CHAR, 0, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      double times[2];
      MPI_Recv(times, 2, MPI_DOUBLE, 0, 8, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      seen_sum += seen - times[0]; /* one host: the same monotonic clock */
      blocked_sum += times[1];
    }
  }
  if (rank == 1)
    printf("probe_lag %g %g %ld %.2f %.2f %.2f\n", chunk * 1e3, f * 1e3, bytes, 1e3 * seen_sum / rounds,
           seen_sum / rounds / chunk, 1e3 * blocked_sum / rounds);
  free(buf);
  MPI_Finalize();
  return 0;
}
