/*
 * pivots.c -- SMPI test of the thinned pivot search (SIMBLAS_PIVOT_EVERY,
 * simblas_pivot_exchange), driven by test/smpi-pivots.sh.
 *
 *   smpirun -np P*Q ... ./pivots P Q PANELS JB
 *
 * The ranks form a P x Q grid; rank r is in process column r / P.  For
 * PANELS panels of JB columns, every rank computes (modelled dgemm calls,
 * simblas_execute) then does what HPL_pdmxswp does: simblas_pivot_exchange
 * and, when it answers 1, a real exchange among its column (MPI_Allreduce,
 * MAX, one double) and simblas_pivot_exchanged().  The work is unbalanced
 * and the slowest rank changes from column to column: rank at row i of
 * process column c computes (1 + ((i + j) % P)) x (1 + 2c) units for column
 * j.  Process column c then needs at least sum_j max_i of its ranks' work,
 * which an exchange (or the barrier of a thinned one) enforces.
 * Each rank prints
 *   RANK <rank> <col> <MPI_Wtime at the end> <real> <thinned> <bound>
 * with <bound> = sum over columns of the column's slowest rank's work
 * (injected seconds).
 * Before that, rank 0 prints
 *   VALUES <calls modelled for daxpy with alpha = 0 and dgemm with alpha = 0,
 *          beta = 1> <injected seconds>
 * In model mode a call's time depends on its sizes, never on its scalars
 * (a simulated program's data are garbage): both are charged.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include "simblas_app.h"

void daxpy_(const int *, const double *, const double *, const int *, double *, const int *);
void dgemm_(const char *, const char *, const int *, const int *, const int *, const double *, const double *,
            const int *, const double *, const int *, const double *, double *, const int *);

int main(int argc, char **argv)
{
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (argc != 5) {
    if (rank == 0)
      fprintf(stderr, "usage: pivots P Q PANELS JB\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  int P = atoi(argv[1]), Q = atoi(argv[2]), panels = atoi(argv[3]), jb = atoi(argv[4]);
  if (P * Q != size || P < 2 || Q < 1 || panels < 1 || jb < 1) {
    if (rank == 0)
      fprintf(stderr, "pivots: P*Q must be the number of ranks, P >= 2\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  int row = rank % P, col = rank / P;
  MPI_Comm colcomm;
  MPI_Comm_split(MPI_COMM_WORLD, col, row, &colcomm);
  if (rank == 0) {
    int n = 1000, one = 1;
    double zero = 0, unitb = 1, x[1] = {0}, y[1] = {0};
    simblas_stats s0 = simblas_get_stats();
    daxpy_(&n, &zero, x, &one, y, &one); /* x, y are never touched in model mode */
    dgemm_("N", "N", &n, &n, &n, &zero, x, &n, y, &n, &unitb, x, &n);
    simblas_stats s1 = simblas_get_stats();
    printf("VALUES %llu %.12g\n", (unsigned long long)(s1.calls - s0.calls), s1.injected_s - s0.injected_s);
  }
  double unit = 0, bound = 0; /* injected seconds of one unit */
  MPI_Barrier(MPI_COMM_WORLD);
  double t0 = MPI_Wtime();
  for (int p = 0; p < panels; p++) {
    for (int j = 0; j < jb; j++) {
      int units = (1 + (row + j) % P) * (1 + 2 * col);
      for (int u = 0; u < units; u++)
        unit = simblas_execute("dgemm", 64, 64, 64);
      if (!(unit > 0)) {
        fprintf(stderr, "pivots: the model injects no time for dgemm 64^3\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
      }
      bound += P * (1 + 2 * col) * unit;
      if (simblas_pivot_exchange(j, (row - p % P + P) % P, col, P, Q)) {
        double mine = row + j, all;
        MPI_Allreduce(&mine, &all, 1, MPI_DOUBLE, MPI_MAX, colcomm);
        simblas_pivot_exchanged();
      }
    }
  }
  double t = MPI_Wtime() - t0;
  simblas_pivot_stats s = simblas_get_pivot_stats();
  printf("RANK %d %d %.12g %llu %llu %.12g\n", rank, col, t, (unsigned long long)s.real,
         (unsigned long long)s.thinned, bound);
  MPI_Comm_free(&colcomm);
  MPI_Finalize();
  return 0;
}
