/*
 * ktrace_prog.c -- for test/kernel-trace.sh: an HPL-like memory kernel
 * timed through the HPL patch series' hpl_ktrace.h (patch 17), built as
 * the real HPL is: a PIE that does not link libsimblas, so that
 * simblas_trace_kernel resolves only when libsimblas is preloaded.
 *
 *   ktrace_prog M N LDA [KEY]
 *
 * swaps M rows of an LDA x N matrix as HPL_dlaswp00N does (row i with row
 * ipiv[i] = M + 2i), reporting it as "hpl_dlaswp00N" with the rows' span
 * as patch 19's kernels do (HPL_rowspan: 3M - 1, not LDA); then the same sizes
 * as "hpl_dlaswp03N" without a leading dimension (0), as patch 17 does
 * for the kernels of U and W only; then a quick return (M = 0: no row);
 * then, if KEY is given, one call reported under KEY.  Prints "hook
 * present" or "hook absent", "rowspan A B C" (HPL_rowspan of patch 19
 * for rows {5, 9} with a move within A to row 20, {0, 1, 40} under an LDA
 * of 30, and the 00N form of M = 1 with IPIV {0}) and the wall seconds around each kernel call
 * ("bracket KEY SECONDS"), which the traced time must not exceed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "hpl_ktrace.h"

static double now(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* HPL_dlaswp00N's work: row i and row ipiv[i] of A exchanged, column by column */
static void swap_rows(const char *key, int M, int N, double *A, int LDA, const int *ipiv, int ld_given)
{
  if ((M <= 0) || (N <= 0))
    return;
  HPL_KTRACE_BEGIN
  for (int j = 0; j < N; j++)
    for (int i = 0; i < M; i++) {
      double *a = A + (size_t)j * (size_t)LDA, t = a[i];
      a[i] = a[ipiv[i]];
      a[ipiv[i]] = t;
    }
  HPL_KTRACE_END(key, M, N, 0, ld_given ? HPL_rowspan(LDA, M, ipiv, NULL, 1) : 0);
}

static void timed(const char *key, int M, int N, double *A, int LDA, const int *ipiv, int ld_given)
{
  double t0 = now();
  swap_rows(key, M, N, A, LDA, ipiv, ld_given);
  printf("bracket %s %.9g\n", key, now() - t0);
}

int main(int argc, char **argv)
{
  if (argc < 4) {
    fprintf(stderr, "usage: ktrace_prog M N LDA [KEY]\n");
    return 2;
  }
  int M = atoi(argv[1]), N = atoi(argv[2]), LDA = atoi(argv[3]);
  if (M < 1 || N < 1 || LDA < 3 * M) {
    fprintf(stderr, "ktrace_prog: need M >= 1, N >= 1, LDA >= 3M\n");
    return 2;
  }
  double *A = malloc(sizeof *A * (size_t)LDA * (size_t)N);
  int *ipiv = malloc(sizeof *ipiv * (size_t)M);
  if (!A || !ipiv)
    return 1;
  for (size_t i = 0; i < (size_t)LDA * (size_t)N; i++)
    A[i] = (double)i;
  for (int i = 0; i < M; i++)
    ipiv[i] = M + 2 * i;
  printf("hook %s\n", simblas_trace_kernel ? "present" : "absent");
  {
    const int ix[] = {5, 9}, neg[] = {3, -20}, far[] = {0, 1, 40}, zero[] = {0};
    printf("rowspan %d %d %d\n", HPL_rowspan(1000, 2, ix, neg, 0), HPL_rowspan(30, 3, far, NULL, 0),
           HPL_rowspan(1000, 1, zero, NULL, 1));
  }
  timed("hpl_dlaswp00N", M, N, A, LDA, ipiv, 1);
  timed("hpl_dlaswp03N", M, N, A, LDA, ipiv, 0);
  swap_rows("hpl_dlaswp00N", 0, N, A, LDA, ipiv, 1); /* a quick return: nothing traced */
  if (argc > 4)
    timed(argv[4], M, N, A, LDA, ipiv, 1);
  /* two swaps of each row pair: A is as it was */
  int same = 1;
  for (size_t i = 0; i < (size_t)LDA * (size_t)N; i++)
    same &= A[i] == (double)i;
  printf("matrix %s\n", argc > 4 ? "swapped three times" : same ? "restored" : "CHANGED");
  free(A);
  free(ipiv);
  return argc > 4 || same ? 0 : 1;
}
