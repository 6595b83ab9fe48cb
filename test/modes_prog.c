/*
 * modes_prog.c -- driven by test/modes.sh: makes a few BLAS calls and
 * prints what the hook saw, one line per call:
 *   routine m n k predicted injected measured
 * Usage: modes_prog [CALLS]
 */
#include <stdio.h>
#include <stdlib.h>

#include "simblas.h"

void dgemm_(const char *, const char *, const int *, const int *, const int *, const double *, const double *,
            const int *, const double *, const int *, const double *, double *, const int *);
void daxpy_(const int *, const double *, const double *, const int *, double *, const int *);

static void show(const simblas_call *c, void *ctx)
{
  (void)ctx;
  printf("%s %lld %lld %lld %.17g %.17g %.17g\n", c->routine, (long long)c->m, (long long)c->n, (long long)c->k,
         c->predicted_s, c->injected_s, c->measured_s);
}

int main(int argc, char **argv)
{
  int calls = argc > 1 ? atoi(argv[1]) : 1;
  int m = 64, n = 48, k = 32, one_i = 1, len = 1000;
  double *a = calloc(64 * 64, sizeof *a), *x = calloc(1000, sizeof *x), one = 1;
  if (!a || !x)
    return 1;
  simblas_set_hook(show, NULL);
  for (int i = 0; i < calls; i++) {
    dgemm_("N", "N", &m, &n, &k, &one, a, &m, a, &k, &one, a, &m);
    daxpy_(&len, &one, x, &one_i, x, &one_i);
  }
  simblas_stats s = simblas_get_stats();
  fprintf(stderr, "stats calls=%llu\n", (unsigned long long)s.calls);
  free(a);
  free(x);
  return 0;
}
