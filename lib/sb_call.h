/*
 * sb_call.h -- the op enum generated from blas.def, the per-call record and
 * the internal interfaces shared by the entry points, the model and the
 * sinks.  Nothing here needs SimGrid.
 */
#ifndef SB_CALL_H
#define SB_CALL_H

#include <stddef.h>
#include <stdint.h>

#include "sb_prec.h"

#define SB_HIDDEN __attribute__((visibility("hidden")))

/* ---- ops: one per expanded row of blas.def ------------------------------ */
#define SB_X_ENUM(pfx, T_, R_, K_, fam, stem, ifc) SB_OP_##pfx##stem,
#define SB_OP(...) SB_EXPAND_OP(SB_X_ENUM, __VA_ARGS__)
#define SB_KERNEL(name, kind, shape, ld, figure) SB_OP_##name,
enum sb_op {
#include "blas.def"
  SB_OP_BLAS_COUNT, /* the ops with BLAS entry points come first */
  SB_OP_KERNELS_FIRST = SB_OP_BLAS_COUNT - 1,
#include "kernels.def"
  SB_OP_COUNT
};
#undef SB_OP
#undef SB_X_ENUM
#undef SB_KERNEL

/* ---- families: one per signature shape, with the facts about its
 * routines that the model, the calibrator, the fitter, models/mkdefault
 * and the CBLAS error handler read (one row each; nothing else lists
 * families):
 *
 *   X(family, level, shape, flop term, flops per term, row-major swap)
 *
 * level   1, 2 or 3 (BLAS levels; OpenBLAS's matrix copies are 2), or M:
 *         HPL's memory kernels (kernels.def)
 * shape   how a call's canonical (m, n, k) is formed (enum sb_shape,
 *         doc/model-format.md); SIDED families have a Right-side form
 * flops   real flops of a call = flops per term x the term (complex x4):
 *         the fallback for a routine the model lacks, and the nominal
 *         default model; approximate
 * swap    the CBLAS parameter positions that netlib's cblas_xerbla
 *         exchanges when a row-major call is reported (lib/xerbla.c): a
 *         row-major call hands the Fortran-level check some arguments in
 *         each other's places (M and N, A and B, x and y), and the number
 *         reported is the place the C caller used.  NO: none; SW(a, b[, c,
 *         d]): a with b (and c with d) in every routine of the family;
 *         HE(a, b): only in its Hermitian routines (blas.def's hermitian
 *         column: her2, hpr2 pass y for x; syr2, spr2 keep the order).
 *         gemmt has gemm's: netlib matches "gemm" in the routine's name
 *         (so its ?gemmtr too), though gemmt's 4 and 5 are TransB and N */
#define SB_FAMILIES(X)                                                         \
  X(rotg,     1, SCALAR,  N,   10, NO)                                        \
  X(rotmg,    1, SCALAR,  N,   10, NO)                                        \
  X(rot,      1, VECTOR,  N,    6, NO)                                        \
  X(rotm,     1, VECTOR,  N,    6, NO)                                        \
  X(swap,     1, VECTOR,  N,    1, NO)                                        \
  X(scal,     1, VECTOR,  N,    1, NO)                                        \
  X(rscal,    1, VECTOR,  N,    1, NO)                                        \
  X(copy,     1, VECTOR,  N,    1, NO)                                        \
  X(axpy,     1, VECTOR,  N,    2, NO)                                        \
  X(axpby,    1, VECTOR,  N,    3, NO)                                        \
  X(dot,      1, VECTOR,  N,    2, NO)                                        \
  X(sdsdot,   1, VECTOR,  N,    2, NO)                                        \
  X(dotu,     1, VECTOR,  N,    2, NO)                                        \
  X(dotc,     1, VECTOR,  N,    2, NO)                                        \
  X(nrm2,     1, VECTOR,  N,    2, NO)                                        \
  X(asum,     1, VECTOR,  N,    1, NO)                                        \
  X(cabs1,    1, SCALAR,  N,    2, NO)                                        \
  X(iamax,    1, VECTOR,  N,    1, NO)                                        \
  X(rvalue,   1, VECTOR,  N,    1, NO)                                        \
  X(gemv,     2, GENERAL, MN,   2, SW(3, 4))                                  \
  X(gbmv,     2, BAND,    NK,   2, SW(3, 4, 5, 6))                            \
  X(symv,     2, SQUARE,  MN,   2, NO)                                        \
  X(sbmv,     2, SQBAND,  NK,   2, NO)                                        \
  X(spmv,     2, SQUARE,  MN,   2, NO)                                        \
  X(trmv,     2, SQUARE,  MN,   1, NO)                                        \
  X(tbmv,     2, SQBAND,  NK,   1, NO)                                        \
  X(tpmv,     2, SQUARE,  MN,   1, NO)                                        \
  X(ger,      2, GENERAL, MN,   2, SW(2, 3, 6, 8))                            \
  X(syr,      2, SQUARE,  MN,   1, NO)                                        \
  X(spr,      2, SQUARE,  MN,   1, NO)                                        \
  X(syr2,     2, SQUARE,  MN,   2, HE(6, 8))                                  \
  X(spr2,     2, SQUARE,  MN,   2, HE(6, 8))                                  \
  X(gemm,     3, GEMM,    MNK,  2, SW(4, 5, 9, 11))                           \
  X(gemmt,    3, RANKK,   MNK,  1, SW(4, 5, 9, 11))                           \
  X(symm,     3, SIDED,   MNK,  2, SW(4, 5))                                  \
  X(syrk,     3, RANKK,   MNK,  1, NO)                                        \
  X(herk,     3, RANKK,   MNK,  1, NO)                                        \
  X(syr2k,    3, RANKK,   MNK,  2, NO)                                        \
  X(her2k,    3, RANKK,   MNK,  2, NO)                                        \
  X(trmm,     3, SIDED,   MNK,  1, SW(6, 7))                                  \
  X(geadd,    2, GENERAL, MN,   2, NO)                                        \
  X(omatcopy, 2, GENERAL, MN,   1, NO)                                        \
  X(imatcopy, 2, INPLACE, MN,   1, NO)                                        \
  X(memk,     M, MOVE,    MN,   1, NO) /* kernels.def: memory movement, not BLAS */
#define SB_X_FAM(f, ...) SB_FAM_##f,
enum sb_family { SB_FAMILIES(SB_X_FAM) SB_FAM_COUNT };
#undef SB_X_FAM

/* the level column: BLAS levels 1-3, and M for HPL's memory kernels */
enum sb_level { SB_LEVEL_1 = 1, SB_LEVEL_2 = 2, SB_LEVEL_3 = 3, SB_LEVEL_M = 4 };

/* the shape column: the canonical (m, n, k) of a call */
enum sb_shape {
  SB_SHAPE_SCALAR,  /* (0, 1, 0): rotg, rotmg, cabs1                         */
  SB_SHAPE_VECTOR,  /* (0, n, 0)                                             */
  SB_SHAPE_GENERAL, /* (m, n, 0): an m x n matrix                            */
  SB_SHAPE_SQUARE,  /* (n, n, 0): symmetric, packed, triangular              */
  SB_SHAPE_INPLACE, /* (m, n, 0), calibrated at n = m: OpenBLAS's in-place
                       kernel (other shapes go through a copy)               */
  SB_SHAPE_BAND,    /* (m, n, kl + ku + 1)                                   */
  SB_SHAPE_SQBAND,  /* (n, n, k + 1)                                         */
  SB_SHAPE_GEMM,    /* (m, n, k)                                             */
  SB_SHAPE_SIDED,   /* (m, n, order of A: m Left, n Right); the Right-side
                       form has its own model line, NAME.right               */
  SB_SHAPE_RANKK,   /* (n, n, k): rank-k updates, gemmt                      */
  SB_SHAPE_MOVE,    /* (m, n, 0): m rows of n columns moved                  */
  SB_SHAPE_MOVE2,   /* (M0, n, M1): M0 rows moved one way, M1 the other      */
};

/* the model's terms by index (model.h): bit 0 = m, bit 1 = n, bit 2 = k */
enum sb_term { SB_TERM_1, SB_TERM_M, SB_TERM_N, SB_TERM_MN, SB_TERM_K, SB_TERM_MK, SB_TERM_NK, SB_TERM_MNK };

/* blas.def's optional focus column: where an application's time goes, so
 * the calibrator spends most of its budget there (for the double-precision
 * real form of the row) */
enum sb_focus { SB_FOCUS_NONE, SB_FOCUS_LAPACK, SB_FOCUS_HPL };
#define SB_FOCUS(f) SB_FOCUS_##f
#define SB_FOCUS_ SB_FOCUS_NONE /* a row without the column */

/* blas.def's optional hermitian column: HERM, or nothing */
#define SB_HERM(h) SB_HERM_##h
#define SB_HERM_HERM 1
#define SB_HERM_NONE 0 /* before a later column */
#define SB_HERM_ 0

/* blas.def's optional figure column and kernels.def's: FIGURE, or NONE */
#define SB_FIGURE(f) SB_FIGURE_##f
#define SB_FIGURE_FIGURE 1
#define SB_FIGURE_NONE 0
#define SB_FIGURE_ 0

/* blas.def's optional ld0 column: LD0, or nothing */
#define SB_LD0(z) SB_LD0_##z
#define SB_LD0_LD0 1
#define SB_LD0_ 0

typedef struct sb_opinfo {
  const char *name;        /* "dgemm": the model-file key                */
  const char *stem;        /* "gemm"                                     */
  unsigned char fam;       /* enum sb_family                             */
  unsigned char cplx;      /* element type is complex                    */
  unsigned char dbl;       /* element type is double precision           */
  unsigned char level;     /* enum sb_level: the family's                */
  unsigned char shape;     /* enum sb_shape: the family's, or kernels.def's */
  unsigned char variants;  /* 2 for SIDED shapes (Left, Right), else 1   */
  unsigned char focus;     /* enum sb_focus: blas.def's column           */
  unsigned char herm;      /* 1: a Hermitian routine (blas.def's column) */
  unsigned char figure;    /* 1: drawn in the calibration report (the
                              figure columns of blas.def, kernels.def)  */
  unsigned char ld0;       /* 1: leading dimensions may be 0 (blas.def's
                              ld0 column: ?gemm3m)                       */
  unsigned char prec_at;   /* where the precision letters start in name:
                              1 after an index function's i (isamax: "s"
                              of routine iamax), else 0                   */
  unsigned char rm_swap[4]; /* the family's swap column as it applies to
                              this routine: positions rm_swap[0] and [1]
                              exchange, and [2] and [3]; 0 for none      */
  unsigned char ld_dep;    /* kernels.def's ld column: 1 when the time
                              depends on A's leading dimension (LDA)     */
  unsigned char flop_term; /* enum sb_term: flops = flop_coef x the term */
  double flop_coef;        /* the family's, x4 for complex               */
} sb_opinfo;

extern const sb_opinfo sb_ops[SB_OP_COUNT] SB_HIDDEN;
int sb_op_lookup(const char *name) SB_HIDDEN; /* -1 if unknown */
const char *sb_family_name(int fam) SB_HIDDEN;

/* ---- one call --------------------------------------------------------------
 * m, n, k are the canonical (column-major) sizes the model sees; 0 where a
 * size does not apply.  See doc/model-format.md for each family's shape.   */
typedef struct sb_call {
  int op;
  int iface; /* 0 Fortran, 1 CBLAS */
  int64_t m, n, k;
  int variant; /* 1: the Right-side form of trmm/trsm/symm/hemm, which
                  the model may describe with its own line (".right") */
  int64_t ld;  /* the leading dimension of the operand the time depends
                  on (kernels.def's ld column), 0 when not given: the
                  model's "@ld" line scales the prediction by it */
} sb_call;

enum { SB_GO = 0, SB_QUICK = 1, SB_ERR = 2 };

/* flops of a call (complex counted as 4 real multiply-adds); the fallback
 * model for routines missing from the model file. */
double sb_call_flops(const sb_call *c) SB_HIDDEN;
/* the flop count's monomial (model.h term index) and its coefficient */
int sb_op_flop_term(int op, double *coef) SB_HIDDEN;

#endif
