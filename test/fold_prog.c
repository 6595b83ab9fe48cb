/* fold_prog.c -- for test/fold-errors.sh: fold SIZE bytes (suffix K/M/G/T);
 * a negative SIZE: fold 1 MiB, then SIZE converted to size_t, as a program
 * whose size computation went negative.  "partial N": 1 MiB partially
 * folded, N private ranges (all [0, 4096)) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "simblas.h"

int main(int argc, char **argv)
{
  if (argc > 2 && !strcmp(argv[1], "partial")) {
    size_t priv[2] = {0, 4096};
    char *p = simblas_fold_malloc_partial(1 << 20, priv, atoi(argv[2]));
    p[0] = 1;
    printf("partial %p\n", (void *)p);
    return 0;
  }
  double v = argc > 1 ? atof(argv[1]) : 1;
  char u = argc > 1 ? argv[1][strlen(argv[1]) - 1] : 'G';
  v *= u == 'T' ? 1099511627776.0 : u == 'G' ? 1073741824.0 : u == 'M' ? 1048576.0 : u == 'K' ? 1024.0 : 1;
  size_t size = (size_t)v;
  if (v < 0) {
    simblas_fold_malloc(1 << 20);
    size = (size_t)0 - (size_t)-v;
  }
  char *p = simblas_fold_malloc(size);
  p[0] = 1;
  simblas_fold_stats s = simblas_get_fold_stats();
  printf("reserved %zu mappings %zu block %zu\n", s.reserved_bytes, s.mappings, s.block_bytes);
  return 0;
}
