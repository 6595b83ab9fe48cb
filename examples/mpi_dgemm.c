/*
 * mpi_dgemm.c -- the smallest SimBLAS example: every rank calls dgemm and
 * daxpy; under smpirun with libsimblas nothing is computed, and the
 * simulated MPI_Wtime advances by the predicted duration of each call.
 *
 *   smpicc -O2 mpi_dgemm.c -o mpi_dgemm -lsimblas
 *   smpirun -np 4 -platform platform.xml -hostfile hosts ./mpi_dgemm 4096
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include <simblas.h>

void dgemm_(const char *ta, const char *tb, const int *m, const int *n, const int *k, const double *alpha,
            const double *a, const int *lda, const double *b, const int *ldb, const double *beta, double *c,
            const int *ldc);
void daxpy_(const int *n, const double *alpha, const double *x, const int *incx, double *y, const int *incy);

int main(int argc, char **argv)
{
  MPI_Init(&argc, &argv);
  int rank, size, n = argc > 1 ? atoi(argv[1]) : 2048, inc = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  /* SimBLAS reads no array in model mode: 1 element stands for n*n */
  double *a = calloc(1, sizeof *a), one = 1;
  double t0 = MPI_Wtime();
  dgemm_("N", "N", &n, &n, &n, &one, a, &n, a, &n, &one, a, &n);
  double t1 = MPI_Wtime();
  daxpy_(&n, &one, a, &inc, a, &inc);
  double t2 = MPI_Wtime();
  MPI_Barrier(MPI_COMM_WORLD);
  double t3 = MPI_Wtime();
  printf("rank %d/%d: dgemm %dx%dx%d took %.6f s simulated (model: %.6f s on the reference host), "
         "daxpy %.3g s; after the barrier t=%.6f s\n",
         rank, size, n, n, n, t1 - t0, simblas_predict("dgemm", n, n, n), t2 - t1, t3);
  free(a);
  MPI_Finalize();
  return 0;
}
