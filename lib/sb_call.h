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
#define SB_KERNEL(name, kind) SB_OP_##name,
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

/* ---- families: one per signature shape ----------------------------------- */
#define SB_FAMILIES(X)                                                         \
  X(rotg) X(rotmg) X(rot) X(rotm) X(swap) X(scal) X(rscal) X(copy) X(axpy)     \
  X(axpby) X(dot) X(sdsdot) X(dotu) X(dotc) X(nrm2) X(asum) X(cabs1) X(iamax)  \
  X(rvalue) X(gemv) X(gbmv) X(symv) X(sbmv) X(spmv) X(trmv) X(tbmv) X(tpmv)    \
  X(ger) X(syr) X(spr) X(syr2) X(spr2) X(gemm) X(gemmt) X(symm) X(syrk)        \
  X(herk) X(syr2k) X(her2k) X(trmm) X(geadd) X(omatcopy) X(imatcopy)         \
  X(memk) /* kernels.def: memory movement, not BLAS */
#define SB_X_FAM(f) SB_FAM_##f,
enum sb_family { SB_FAMILIES(SB_X_FAM) SB_FAM_COUNT };
#undef SB_X_FAM

typedef struct sb_opinfo {
  const char *name;   /* "dgemm": the model-file key            */
  const char *stem;   /* "gemm"                                  */
  unsigned char fam;  /* enum sb_family                          */
  unsigned char cplx; /* element type is complex                 */
  unsigned char dbl;  /* element type is double precision        */
  unsigned char level;
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
} sb_call;

enum { SB_GO = 0, SB_QUICK = 1, SB_ERR = 2 };

/* flops of a call (complex counted as 4 real multiply-adds); the fallback
 * model for routines missing from the model file. */
double sb_call_flops(const sb_call *c) SB_HIDDEN;
/* the flop count's monomial (model.h term index) and its coefficient */
int sb_op_flop_term(int op, double *coef) SB_HIDDEN;

#endif
