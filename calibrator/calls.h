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
  /* HPL's local matrix: lld rows (its leading dimension) of lcols columns,
   * larger than the caches; the calls of HPL's layout (cal_hpl_call) and
   * the memory kernels work inside it, each at a new place */
  double *local;
  int64_t lld, lcols;
  int *rows;        /* lld row indices, drawn per call */
  uint64_t rng;     /* where the next call works */
} cal_bufs;

/* variant 1: the Right-side form (trmm, trsm, symm, hemm) */
typedef void (*cal_fn)(void *sym, int64_t m, int64_t n, int64_t k, int variant, cal_bufs *b);

/* 1 for the calls that make HPL's time, which the calibrator draws in
 * HPL's layout: blas.def's focus HPL at level 3 (dgemm, dtrsm) */
int cal_hpl_layout(int op);

/* those calls as HPL's trailing update makes them (hpl-patches'
 * HPL_pdupdate*): dgemm C (and B on a 1xQ grid) inside the local matrix,
 * leading dimension lld, at a new place each call (out of the caches, as
 * the update sweeps the matrix); form 0 HPL's 1xQ NN (B the row panel in
 * the matrix), 1 its PxQ NT (B the transposed U); dtrsm Left (variant 0)
 * Upper-Trans-Unit with B in the matrix (1xQ), Right (variant 1)
 * Upper-NoTrans-Unit on U (PxQ).  Returns 0, or -1 for another op (not
 * cal_hpl_layout's, or of neither family: gemm, trsm's trmm). */
int cal_hpl_call(int op, void *sym, int64_t m, int64_t n, int64_t k, int variant, int form, cal_bufs *b);

typedef struct cal_op {
  cal_fn run;
  const char *symbol; /* the Fortran symbol of the real BLAS: "dgemm_";
                         NULL: a kernel of kernels.def, run in plain C */
} cal_op;

extern const cal_op cal_ops[SB_OP_COUNT];

#endif
