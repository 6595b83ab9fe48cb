/* foldcopy.c -- under smpirun, 2 ranks: what SMPI copies of messages sent
 * out of folded memory (test/smpi-foldcopy.sh).  Rank 0 sends 1 MiB out of
 * simblas_fold_malloc memory, 1 MiB out of malloc memory, and 1 KiB out of
 * the folded memory (a detached send, which SMPI copies at the send);
 * rank 1 receives each into private memory filled with 0x11 and prints
 * what arrived.  Then rank 0 prints the fold statistics. */
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
  MPI_Finalize();
  return 0;
}
