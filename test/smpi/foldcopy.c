/* foldcopy.c -- under smpirun, 2 ranks: what SMPI copies of messages sent
 * out of folded memory (test/smpi-foldcopy.sh).  Rank 0 sends 1 MiB out of
 * simblas_fold_malloc memory, 1 MiB out of malloc memory, and 1 KiB out of
 * the folded memory (a detached send, which SMPI copies at the send);
 * rank 1 receives each into private memory filled with 0x11 and prints
 * what arrived.  Then rank 0 prints the fold statistics.  Last, each rank
 * allocates partially folded memory whose private ranges are given out of
 * order, writes its own byte into them, and after a barrier prints whether
 * it still reads its own (SMPI's shared ranges were computed as if the
 * ranges were sorted: a private range before an earlier one was shared). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "simblas.h"

#define BIG (1 << 20)
#define SMALL 1024

/* the byte every position of p[0..n) holds, or -1 when they differ */
static int uniform(const unsigned char *p, size_t n)
{
  for (size_t i = 1; i < n; i++)
    if (p[i] != p[0])
      return -1;
  return p[0];
}

int main(int argc, char **argv)
{
  MPI_Init(&argc, &argv);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0) {
    unsigned char *m = simblas_fold_malloc((size_t)64 << 20);
    unsigned char *p = malloc(BIG);
    memset(m, 0xAB, BIG);
    memset(p, 0xCD, BIG);
    MPI_Send(m, BIG, MPI_BYTE, 1, 1, MPI_COMM_WORLD);
    MPI_Send(p, BIG, MPI_BYTE, 1, 2, MPI_COMM_WORLD);
    MPI_Send(m + 4096, SMALL, MPI_BYTE, 1, 3, MPI_COMM_WORLD);
    MPI_Barrier(MPI_COMM_WORLD);
    simblas_fold_stats s = simblas_get_fold_stats();
    printf("STATS %zu %zu\n", s.uncopied_messages, s.uncopied_bytes);
    free(p);
    simblas_fold_free(m);
  } else {
    unsigned char *r = malloc(BIG);
    for (int tag = 1; tag <= 3; tag++) {
      int n = tag == 3 ? SMALL : BIG;
      memset(r, 0x11, BIG);
      MPI_Recv(r, n, MPI_BYTE, 0, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      printf("RECV %d 0x%02x\n", tag, uniform(r, (size_t)n) & 0xff);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    free(r);
  }
  /* private ranges out of order: the second page's first 64 bytes, then the
   * first page's; the rest (shared) is written by every rank */
  long page = 4096;
  size_t priv[4] = {(size_t)page, (size_t)page + 64, 0, 64};
  unsigned char *q = simblas_fold_malloc_partial(3 * (size_t)page, priv, 2);
  memset(q, 0x77, 3 * (size_t)page);
  memset(q, 0x30 + rank, 64);
  memset(q + page, 0x30 + rank, 64);
  MPI_Barrier(MPI_COMM_WORLD);
  int own = uniform(q, 64) == 0x30 + rank && uniform(q + page, 64) == 0x30 + rank;
  printf("PRIVATE %d %s\n", rank, own ? "own" : "another rank's");
  simblas_fold_free(q);
  MPI_Finalize();
  return 0;
}
