/*
 * predict_prog.c -- for test/calibrate.sh: reads "key m n k" lines and
 * prints libsimblas's prediction for each (SIMBLAS_MODEL selects the
 * model), so that the calibrator's own predictions can be compared.
 */
#include <stdio.h>

#include "simblas.h"

int main(void)
{
  char key[64];
  long long m, n, k;
  while (scanf("%63s %lld %lld %lld", key, &m, &n, &k) == 4)
    printf("%.17g\n", simblas_predict(key, m, n, k));
  return 0;
}
