/*
 * pingpong.c -- simblas-pingpong: the real MPI's message times between two
 * ranks, for simblas-calibrate --network (calibrator/network.c), which
 * runs it under Open MPI's mpirun and fits SMPI's network factors on what
 * it prints.  Compiled with Open MPI's compile and link flags (configure
 * takes them from mpicc --showme), never with smpicc.
 *
 * Rank 0 prints, on stdout:
 *   hosts NAME0 NAME1                 where the two ranks ran
 *   pingpong SIZE SECONDS SPREAD      one-way time of a SIZE-byte message
 *                                     (half a round trip, median of the
 *                                     passes) and the passes' spread
 *                                     ((max - min) / median)
 *   collective NAME SIZE SECONDS      MPI_Bcast, MPI_Allreduce (median)
 * The sizes are measured in PASSES passes, each in its own random order
 * (the same on both ranks), so that a drift of the machine shows as
 * spread, not as a bias of some sizes.
 */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_SIZES 128
#define SAMPLE_S 2e-3 /* a sample's round trips last about this long */

static double median(double *v, int n)
{
  for (int i = 1; i < n; i++) /* insertion sort: a handful of values */
    for (int j = i; j > 0 && v[j - 1] > v[j]; j--) {
      double t = v[j];
      v[j] = v[j - 1];
      v[j - 1] = t;
    }
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* `iters` round trips of `size` bytes from rank 0 to 1 and back; the
 * seconds they took (rank 0) */
static double round_trips(char *buf, long size, long iters, int rank)
{
  MPI_Barrier(MPI_COMM_WORLD);
  double t0 = MPI_Wtime();
  for (long i = 0; i < iters; i++) {
    if (rank == 0) {
      MPI_Send(buf, (int)size, MPI_BYTE, 1, 0, MPI_COMM_WORLD);
      MPI_Recv(buf, (int)size, MPI_BYTE, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else if (rank == 1) {
      MPI_Recv(buf, (int)size, MPI_BYTE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      MPI_Send(buf, (int)size, MPI_BYTE, 0, 0, MPI_COMM_WORLD);
    }
  }
  return MPI_Wtime() - t0;
}

/* the sizes: 1 byte, then four per octave up to max (rounded to whole bytes) */
static int sizes_upto(long max, long *sizes)
{
  int n = 0;
  for (double s = 1; s <= (double)max && n < MAX_SIZES; s *= 1.189207115002721) { /* 2^(1/4) */
    long v = (long)(s + 0.5);
    if (!n || v != sizes[n - 1])
      sizes[n++] = v;
  }
  return n;
}

static void collectives(char *buf, int passes, int rank)
{
  static const long csizes[] = {8, 65536, 1 << 20};
  const char *names[] = {"bcast", "allreduce"};
  double t[64];
  for (int c = 0; c < 2; c++)
    for (size_t k = 0; k < sizeof csizes / sizeof *csizes; k++) {
      long iters = csizes[k] < 65536 ? 200 : 20;
      int n = passes < 64 ? passes : 64;
      for (int p = 0; p < n; p++) {
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        for (long i = 0; i < iters; i++) {
          if (c == 0)
            MPI_Bcast(buf, (int)csizes[k], MPI_BYTE, 0, MPI_COMM_WORLD);
          else
            MPI_Allreduce(MPI_IN_PLACE, buf, (int)(csizes[k] / 8), MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        }
        t[p] = (MPI_Wtime() - t0) / (double)iters;
      }
      if (rank == 0)
        printf("collective %s %ld %.6e\n", names[c], csizes[k], median(t, n));
    }
}

int main(int argc, char **argv)
{
  long max = 8L << 20;
  int passes = 7;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!strcmp(argv[i], "--max-size"))
      max = atol(argv[i + 1]);
    else if (!strcmp(argv[i], "--passes"))
      passes = atoi(argv[i + 1]);
  }
  if (max < 1024 || passes < 3 || passes > 64) {
    fprintf(stderr, "simblas-pingpong: --max-size is at least 1024 bytes, --passes from 3 to 64\n");
    return 2;
  }
  MPI_Init(&argc, &argv);
  int rank, nranks, len;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nranks);
  if (nranks != 2) {
    if (!rank)
      fprintf(stderr, "simblas-pingpong: needs exactly 2 ranks (mpirun -np 2), not %d\n", nranks);
    MPI_Finalize();
    return 2;
  }
  char name[MPI_MAX_PROCESSOR_NAME], other[MPI_MAX_PROCESSOR_NAME];
  memset(name, 0, sizeof name);
  MPI_Get_processor_name(name, &len);
  if (rank == 1)
    MPI_Send(name, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, 0, 1, MPI_COMM_WORLD);
  else
    MPI_Recv(other, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  if (!rank)
    printf("hosts %s %s\n", name, other);

  long sizes[MAX_SIZES], iters[MAX_SIZES];
  int n = sizes_upto(max, sizes);
  char *buf = malloc((size_t)max);
  if (!buf)
    MPI_Abort(MPI_COMM_WORLD, 2);
  memset(buf, 1, (size_t)max);
  /* warm-up, and the round trips of each size's sample (rank 0 decides) */
  for (int i = 0; i < n; i++) {
    round_trips(buf, sizes[i], 3, rank);
    double t = round_trips(buf, sizes[i], 5, rank) / 5;
    long it = t > 0 ? (long)(SAMPLE_S / t) : 1000;
    iters[i] = it < 1 ? 1 : it > 20000 ? 20000 : it;
  }
  MPI_Bcast(iters, n, MPI_LONG, 0, MPI_COMM_WORLD);

  double *times = malloc(sizeof *times * (size_t)(n * passes));
  int order[MAX_SIZES];
  uint64_t rng = 0x9e3779b97f4a7c15ull; /* the same stream on both ranks */
  for (int p = 0; p < passes; p++) {
    for (int i = 0; i < n; i++)
      order[i] = i;
    for (int i = n - 1; i > 0; i--) { /* Fisher-Yates, xorshift64 */
      rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
      int j = (int)(rng % (uint64_t)(i + 1)), t = order[i];
      order[i] = order[j];
      order[j] = t;
    }
    for (int k = 0; k < n; k++) {
      int i = order[k];
      times[i * passes + p] = round_trips(buf, sizes[i], iters[i], rank) / (double)iters[i] / 2;
    }
  }
  if (!rank)
    for (int i = 0; i < n; i++) {
      double *v = times + i * passes, lo = v[0], hi = v[0];
      for (int p = 1; p < passes; p++)
        lo = v[p] < lo ? v[p] : lo, hi = v[p] > hi ? v[p] : hi;
      double med = median(v, passes);
      printf("pingpong %ld %.6e %.4f\n", sizes[i], med, med > 0 ? (hi - lo) / med : 0);
    }
  memset(buf, 0, (size_t)max); /* sums of zeros: no overflow, no slow arithmetic */
  collectives(buf, passes, rank);
  free(times);
  free(buf);
  MPI_Finalize();
  return 0;
}
