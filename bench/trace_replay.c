/*
 * trace_replay.c -- calls dgemm, dtrsm (both sides) and dsyrk at random
 * shapes that the calibrator never drew (another generator, another seed),
 * for bench/trace-accuracy.sh, which runs it in SIMBLAS_MODE=trace and
 * compares each call's measured time with the model's prediction.
 * Usage: trace_replay CALLS SEED MAXDIM
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

void dgemm_(const char *, const char *, const int *, const int *, const int *, const double *, const double *,
            const int *, const double *, const int *, const double *, double *, const int *);
void dtrsm_(const char *, const char *, const char *, const char *, const int *, const int *, const double *,
            const double *, const int *, double *, const int *);
void dsyrk_(const char *, const char *, const int *, const int *, const double *, const double *, const int *,
            const double *, double *, const int *);

static int dim(int lo, int hi) { return (int)exp(log(lo) + drand48() * (log(hi) - log(lo))); }

int main(int argc, char **argv)
{
  int calls = argc > 1 ? atoi(argv[1]) : 300, maxd = argc > 3 ? atoi(argv[3]) : 1500;
  srand48(argc > 2 ? atol(argv[2]) : 12345);
  size_t sz = (size_t)maxd * (size_t)maxd;
  double *a = malloc(sz * sizeof *a), *b = malloc(sz * sizeof *b), *c = malloc(sz * sizeof *c);
  if (!a || !b || !c)
    return 1;
  for (size_t i = 0; i < sz; i++)
    a[i] = b[i] = c[i] = (0.5 + drand48()) / maxd;
  double al = 0.999, be = 1;
  for (int i = 0; i < calls; i++) {
    int m = dim(64, maxd), n = dim(64, maxd), k = dim(64, maxd);
    switch (i % 4) {
    case 0: dgemm_("N", "N", &m, &n, &k, &al, a, &m, b, &k, &be, c, &m); break;
    case 1: dtrsm_("L", "L", "N", "U", &m, &n, &al, a, &m, b, &m); break;
    case 2: dtrsm_("R", "U", "N", "N", &m, &n, &al, a, &n, b, &m); break;
    default: dsyrk_("U", "N", &n, &k, &al, a, &n, &be, c, &n); break;
    }
  }
  free(a);
  free(b);
  free(c);
  return 0;
}
