/* bench/alone_busy.c -- a dgemm loop as HPL's trailing update makes it
 * (C = C - A B at the bottom rows of a local matrix of leading dimension
 * LLD, k = 128) for SECONDS, printing every half second the time since
 * its start and its rate in Gflop/s (bench/alone-busy runs two of them).
 * Usage: alone_busy SECONDS M LLD */
#include <cblas.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now(void)
{
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
  if (argc != 4) {
    fprintf(stderr, "usage: alone_busy SECONDS M LLD\n");
    return 2;
  }
  double T = atof(argv[1]);
  int m = atoi(argv[2]), k = 128;
  long lld = atol(argv[3]);
  if (!(T > 0) || m < k || lld < m) {
    fprintf(stderr, "alone_busy: SECONDS > 0, M >= 128 and LLD >= M\n");
    return 2;
  }
  size_t na = (size_t)lld * (size_t)(m + k), nb = (size_t)k * (size_t)m;
  double *A = malloc(sizeof *A * na), *B = malloc(sizeof *B * nb);
  if (!A || !B) {
    fprintf(stderr, "alone_busy: out of memory\n");
    return 1;
  }
  for (size_t i = 0; i < na; i++)
    A[i] = 1e-3;
  for (size_t i = 0; i < nb; i++)
    B[i] = 1e-3;
  printf("start\n");
  fflush(stdout);
  double t0 = now(), w0 = t0, fl = 0;
  while (now() - t0 < T) {
    cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, m, m, k, -1, A + (lld - m), (int)lld, B, k, 1,
                A + lld * k + (lld - m), (int)lld);
    fl += 2.0 * m * m * k;
    double t = now();
    if (t - w0 >= 0.5) {
      printf("%.2f %.3f\n", t - t0, fl / (t - w0) / 1e9);
      fflush(stdout);
      w0 = t;
      fl = 0;
    }
  }
  free(A);
  free(B);
  return 0;
}
