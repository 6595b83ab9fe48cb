/*
 * msgtime.c -- simblas_message_time against SimGrid's own timing: rank 0
 * sends messages of several sizes to every other rank, one at a time
 * (MPI_Ssend, the receive posted first), and prints, per message, the
 * duration SMPI simulated and the one libsimblas predicts:
 *   MSG <dest> <bytes> <simulated s> <predicted s>
 * and simblas_idle(0.25) on rank 1, which must advance its clock by that:
 *   IDLE <seconds>
 * and what it predicts for a rank that does not exist (0):
 *   OUT <seconds>
 * then rank 0 asks again for every destination, last to first, twice, so
 * that libsimblas's per-rank route slots are evicted and refilled:
 *   AGAIN <dest> <bytes> <predicted s>
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include "simblas_app.h"

int main(int argc, char **argv)
{
  static const int sizes[] = {0, 100, 1000, 5000, 20000, 65536, 1 << 20, 16 << 20};
  const int nsizes = (int)(sizeof sizes / sizeof *sizes);
  int rank, size;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  char *buf = malloc(16 << 20);
  if (!buf)
    MPI_Abort(MPI_COMM_WORLD, 1);
  for (int d = 1; d < size; d++)
    for (int i = 0; i < nsizes; i++) {
      MPI_Request req = MPI_REQUEST_NULL;
      if (rank == d)
        MPI_Irecv(buf, sizes[i], MPI_BYTE, 0, 7, MPI_COMM_WORLD, &req);
      MPI_Barrier(MPI_COMM_WORLD);
      if (rank == 0) {
        double t0 = MPI_Wtime();
        MPI_Ssend(buf, sizes[i], MPI_BYTE, d, 7, MPI_COMM_WORLD);
        double t1 = MPI_Wtime();
        printf("MSG %d %d %.9e %.9e\n", d, sizes[i], t1 - t0, simblas_message_time(d, sizes[i]));
      } else if (rank == d)
        MPI_Wait(&req, MPI_STATUS_IGNORE);
      MPI_Barrier(MPI_COMM_WORLD);
    }
  if (rank == 0)
    for (int pass = 0; pass < 2; pass++)
      for (int d = size - 1; d >= 1; d--)
        for (int i = 0; i < nsizes; i += 3)
          printf("AGAIN %d %d %.9e\n", d, sizes[i], simblas_message_time(d, sizes[i]));
  if (rank == 1) {
    double t0 = MPI_Wtime();
    simblas_idle(0.25);
    printf("IDLE %.9e\n", MPI_Wtime() - t0);
    printf("OUT %.9e\n", simblas_message_time(size + 5, 100));
  }
  free(buf);
  MPI_Finalize();
  return 0;
}
