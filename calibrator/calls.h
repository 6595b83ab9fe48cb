/*
 * calls.h -- how the calibrator makes one real BLAS call of any op of
 * blas.def at a canonical shape (m, n, k) (see doc/model-format.md for the
 * shapes).  The routine list is the table's: calls.c expands blas.def.
 */
#ifndef SB_CALLS_H
#define SB_CALLS_H

#include <stdint.h>

#include "sb_call.h"

typedef struct cal_bufs {
  void *a, *b, *c; /* matrices, each big enough for any call made */
  void *x, *y;     /* vectors */
} cal_bufs;

/* variant 1: the Right-side form (trmm, trsm, symm, hemm) */
typedef void (*cal_fn)(void *sym, int64_t m, int64_t n, int64_t k, int variant, const cal_bufs *b);

typedef struct cal_op {
  cal_fn run;
  const char *symbol; /* the Fortran symbol of the real BLAS: "dgemm_";
                         NULL: a kernel of kernels.def, run in plain C */
} cal_op;

extern const cal_op cal_ops[SB_OP_COUNT];

#endif
