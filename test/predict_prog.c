/*
 * predict_prog.c -- for test/calibrate.sh: reads "key m n k [ld]" lines and
 * prints libsimblas's prediction for each (SIMBLAS_MODEL selects the
 * model; ld, the leading dimension a call gives, 0 or absent: none), so
 * that the calibrator's own predictions can be compared.
 */
#include <stdio.h>

#include "simblas.h"

int main(void)
{
  char line[256], key[64];
  long long m, n, k, ld;
  while (fgets(line, sizeof line, stdin)) {
    ld = 0;
    if (sscanf(line, "%63s %lld %lld %lld %lld", key, &m, &n, &k, &ld) < 4)
      return 2;
    printf("%.17g\n", simblas_predict_ld(key, m, n, k, ld));
  }
  return 0;
}
