/*
 * test_abi.c -- calls every Fortran and CBLAS entry point of blas.def
 * (expanded from the same table as the library) in SIMBLAS_MODE=null,
 * through a recording hook, and checks that each call reaches the right
 * op with the right canonical column-major shape, row-major CBLAS calls
 * included.  Also checks the name / NAME aliases of every Fortran entry,
 * and the positions cblas_xerbla reports for row-major calls.
 */
#include <dlfcn.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "sb_cblas_types.h"
#include "sb_prec.h"
#include "simblas.h"

/* ---- recorder ------------------------------------------------------------- */
static struct {
  int n;
  simblas_call last;
  char name[32];
} rec;

static void record(const simblas_call *c, void *ctx)
{
  (void)ctx;
  rec.n++;
  rec.last = *c;
  strncpy(rec.name, c->routine, sizeof rec.name - 1);
}

static void expect(const char *what, const char *name, int cblas, int64_t m, int64_t n, int64_t k)
{
  if (rec.n != 1 || strcmp(rec.name, name) || rec.last.cblas != cblas || rec.last.m != m || rec.last.n != n ||
      rec.last.k != k)
    fail_msg("%s: expected one call of %s (cblas=%d) shape (%lld,%lld,%lld), got %d call(s) of %s (cblas=%d) "
             "shape (%lld,%lld,%lld)",
             what, name, cblas, (long long)m, (long long)n, (long long)k, rec.n, rec.n ? rec.name : "-",
             rec.last.cblas, (long long)rec.last.m, (long long)rec.last.n, (long long)rec.last.k);
  if (!(rec.last.predicted_s >= 0))
    fail_msg("%s: prediction %g is not >= 0", what, rec.last.predicted_s);
  rec.n = 0;
}

/* ---- arguments ------------------------------------------------------------ */
static double buf[8192]; /* zeros: never read in null mode */
static double pbuf[8] = {-1, 0, 0, 0, 0}; /* rotm/rotmg param: flag -1 */
static const int M = 3, N = 5, K = 7, LD = 50, INC = 1, KL = 1, KU = 2, KB = 2;
#define A_(T_) ((T_ *)(void *)buf)
#define P_(T_) ((T_ *)(void *)pbuf)

/* CBLAS scalars: by value for real types, by pointer for complex */
#define CS(K_, T_, v) CS_##K_(T_, v)
#define CS_R(T_, v) ((T_)(v))
#define CS_C(T_, v) ((const void *)&v)
#define XS(K_, T_, v) XS_##K_(T_, v)
#define XS_R(T_, v) ((T_)(v))
#define XS_C(T_, v) ((const void *)&v)

enum { FORT, COLM, ROWM };

/* Each family: a Fortran call, a column-major and a row-major CBLAS call,
 * with the canonical shape each must produce. */
#define DECL_SCALARS(T_, R_)                                                   \
  T_ one = 1, two = 2;                                                         \
  R_ rone = 1, rtwo = 2;                                                       \
  (void)one; (void)two; (void)rone; (void)rtwo;

#define TEST_FAMILY_l1v(F, C, fargs, cargs)                                    \
  F fargs; expect(#F, nm, 0, 0, N, 0);                                         \
  C cargs; expect(#C, nm, 1, 0, N, 0);

#define TF_rotg(pfx, T_, R_, K_, stem, nm)                                      \
  pfx##stem##_(A_(T_), A_(T_) + 1, (R_ *)(A_(T_) + 2), A_(T_) + 3);            \
  expect("f", nm, 0, 0, 1, 0);                                                 \
  cblas_##pfx##stem(A_(T_), A_(T_) + 1, (R_ *)(A_(T_) + 2), A_(T_) + 3);       \
  expect("c", nm, 1, 0, 1, 0);
#define TF_rotmg(pfx, T_, R_, K_, stem, nm)                                     \
  pfx##stem##_(A_(T_), A_(T_) + 1, A_(T_) + 2, A_(T_) + 3, A_(T_) + 8);        \
  expect("f", nm, 0, 0, 1, 0);                                                 \
  cblas_##pfx##stem(A_(T_), A_(T_) + 1, A_(T_) + 2, one, A_(T_) + 8);          \
  expect("c", nm, 1, 0, 1, 0);
#define TF_rot(pfx, T_, R_, K_, stem, nm)                                       \
  pfx##stem##_(&N, A_(T_), &INC, A_(T_), &INC, &rone, &rone);                  \
  expect("f", nm, 0, 0, N, 0);                                                 \
  cblas_##pfx##stem(N, A_(T_), INC, A_(T_), INC, rone, rone);                  \
  expect("c", nm, 1, 0, N, 0);
#define TF_rotm(pfx, T_, R_, K_, stem, nm)                                      \
  pfx##stem##_(&N, A_(T_), &INC, A_(T_), &INC, P_(T_));                        \
  expect("f", nm, 0, 0, N, 0);                                                 \
  cblas_##pfx##stem(N, A_(T_), INC, A_(T_), INC, P_(T_));                      \
  expect("c", nm, 1, 0, N, 0);
#define TF_xy(pfx, T_, R_, K_, stem, nm) /* swap, copy */                       \
  pfx##stem##_(&N, A_(T_), &INC, A_(T_), &INC);                                \
  expect("f", nm, 0, 0, N, 0);                                                 \
  cblas_##pfx##stem(N, A_(T_), INC, A_(T_), INC);                              \
  expect("c", nm, 1, 0, N, 0);
#define TF_swap TF_xy
#define TF_copy TF_xy
#define TF_scal(pfx, T_, R_, K_, stem, nm)                                      \
  pfx##stem##_(&N, &one, A_(T_), &INC);                                        \
  expect("f", nm, 0, 0, N, 0);                                                 \
  cblas_##pfx##stem(N, CS(K_, T_, one), A_(T_), INC);                          \
  expect("c", nm, 1, 0, N, 0);
#define TF_rscal(pfx, T_, R_, K_, stem, nm)                                     \
  pfx##stem##_(&N, &rone, A_(T_), &INC);                                       \
  expect("f", nm, 0, 0, N, 0);                                                 \
  cblas_##pfx##stem(N, rone, A_(T_), INC);                                     \
  expect("c", nm, 1, 0, N, 0);
#define TF_axpy(pfx, T_, R_, K_, stem, nm)                                      \
  pfx##stem##_(&N, &one, A_(T_), &INC, A_(T_), &INC);                          \
  expect("f", nm, 0, 0, N, 0);                                                 \
  TF_axpy_C_##stem(pfx, T_, K_, nm)
#define TF_axpy_C_axpy(pfx, T_, K_, nm)                                         \
  cblas_##pfx##axpy(N, CS(K_, T_, one), A_(T_), INC, A_(T_), INC);             \
  expect("c", nm, 1, 0, N, 0);
#define TF_axpy_C_axpyc(pfx, T_, K_, nm) /* Fortran only */
#define TF_axpby(pfx, T_, R_, K_, stem, nm)                                     \
  pfx##stem##_(&N, &one, A_(T_), &INC, &one, A_(T_), &INC);                    \
  expect("f", nm, 0, 0, N, 0);                                                 \
  cblas_##pfx##stem(N, CS(K_, T_, one), A_(T_), INC, CS(K_, T_, one), A_(T_), INC); \
  expect("c", nm, 1, 0, N, 0);
#define TF_vv(pfx, T_, R_, K_, stem, nm) /* dot, dotu, dotc */                  \
  (void)pfx##stem##_(&N, A_(T_), &INC, A_(T_), &INC);                          \
  expect("f", nm, 0, 0, N, 0);                                                 \
  (void)cblas_##pfx##stem(N, A_(T_), INC, A_(T_), INC);                        \
  expect("c", nm, 1, 0, N, 0);                                                 \
  { R_ r_; T_ t_; (void)r_; (void)t_;                                          \
    pfx##stem##sub_(&N, A_(T_), &INC, A_(T_), &INC, TF_vv_SUBOUT_##stem);       \
    expect("sub", nm, 0, 0, N, 0); }
#define TF_vv_SUBOUT_dot &r_
#define TF_vv_SUBOUT_dotu &t_
#define TF_vv_SUBOUT_dotc &t_
#define TF_dot TF_vv
#define TF_dotu(pfx, T_, R_, K_, stem, nm)                                      \
  TF_vv(pfx, T_, R_, K_, stem, nm)                                              \
  { T_ t_; cblas_##pfx##stem##_sub(N, A_(T_), INC, A_(T_), INC, &t_);          \
    expect("c_sub", nm, 1, 0, N, 0); }
#define TF_dotc TF_dotu
#define TF_sdsdot(pfx, T_, R_, K_, stem, nm)                                    \
  (void)pfx##stem##_(&N, &one, A_(T_), &INC, A_(T_), &INC);                    \
  expect("f", nm, 0, 0, N, 0);                                                 \
  (void)cblas_##pfx##stem(N, one, A_(T_), INC, A_(T_), INC);                   \
  expect("c", nm, 1, 0, N, 0);
#define TF_x(pfx, T_, R_, K_, stem, nm) /* nrm2 asum iamax sum ... */          \
  (void)pfx##stem##_(&N, A_(T_), &INC);                                        \
  expect("f", nm, 0, 0, N, 0);
#define TF_xc(pfx, T_, R_, K_, stem, nm)                                        \
  TF_x(pfx, T_, R_, K_, stem, nm)                                               \
  (void)cblas_##pfx##stem(N, A_(T_), INC);                                     \
  expect("c", nm, 1, 0, N, 0);
#define TF_xcs(pfx, T_, RT_, stem, nm) /* with the Fortran sub helper */        \
  { RT_ r_; pfx##stem##sub_(&N, A_(T_), &INC, &r_); expect("sub", nm, 0, 0, N, 0); }
#define TF_nrm2(pfx, T_, R_, K_, stem, nm) TF_xc(pfx, T_, R_, K_, stem, nm) TF_xcs(pfx, T_, R_, stem, nm)
#define TF_asum TF_nrm2
#define TF_iamax(pfx, T_, R_, K_, stem, nm)                                     \
  TF_xc(pfx, T_, R_, K_, stem, nm) TF_iamax_SUB_##stem(pfx, T_, stem, nm)
#define TF_iamax_SUB_amax(pfx, T_, stem, nm) TF_xcs(pfx, T_, int, stem, nm)
#define TF_iamax_SUB_amin(...)
#define TF_iamax_SUB_max(...)
#define TF_iamax_SUB_min(...)
#define TF_rvalue(pfx, T_, R_, K_, stem, nm) TF_rvalue_##stem(pfx, T_, R_, K_, stem, nm)
#define TF_rvalue_amax TF_x
#define TF_rvalue_amin TF_x
#define TF_rvalue_max TF_x
#define TF_rvalue_min TF_x
#define TF_rvalue_sum TF_xc
#define TF_cabs1(pfx, T_, R_, K_, stem, nm)                                     \
  (void)pfx##stem##_(A_(T_));                                                  \
  expect("f", nm, 0, 0, 1, 0);                                                 \
  (void)cblas_##pfx##stem(A_(T_));                                             \
  expect("c", nm, 1, 0, 1, 0);                                                 \
  { R_ r_; pfx##stem##sub_(A_(T_), &r_); expect("sub", nm, 0, 0, 1, 0); }

/* ---- level 2 ---- */
#define TF_gemv(pfx, T_, R_, K_, stem, nm)                                      \
  pfx##stem##_("N", &M, &N, &one, A_(T_), &LD, A_(T_), &INC, &one, A_(T_), &INC); \
  expect("f", nm, 0, M, N, 0);                                                 \
  for (int l = CblasRowMajor; l <= CblasColMajor; l++) {                       \
    cblas_##pfx##stem(l, CblasNoTrans, M, N, CS(K_, T_, one), A_(T_), LD,      \
                      A_(T_), INC, CS(K_, T_, one), A_(T_), INC);              \
    if (l == CblasColMajor) expect("col", nm, 1, M, N, 0);                     \
    else expect("row", nm, 1, N, M, 0);                                        \
  }
#define TF_gbmv(pfx, T_, R_, K_, stem, nm)                                      \
  pfx##stem##_("N", &M, &N, &KL, &KU, &one, A_(T_), &LD, A_(T_), &INC, &one,   \
               A_(T_), &INC);                                                  \
  expect("f", nm, 0, M, N, KL + KU + 1);                                       \
  for (int l = CblasRowMajor; l <= CblasColMajor; l++) {                       \
    cblas_##pfx##stem(l, CblasNoTrans, M, N, KL, KU, CS(K_, T_, one), A_(T_),  \
                      LD, A_(T_), INC, CS(K_, T_, one), A_(T_), INC);          \
    if (l == CblasColMajor) expect("col", nm, 1, M, N, KL + KU + 1);           \
    else expect("row", nm, 1, N, M, KL + KU + 1);                              \
  }
#define TF_symv(pfx, T_, R_, K_, stem, nm)                                      \
  pfx##stem##_("U", &N, &one, A_(T_), &LD, A_(T_), &INC, &one, A_(T_), &INC);  \
  expect("f", nm, 0, N, N, 0);                                                 \
  for (int l = CblasRowMajor; l <= CblasColMajor; l++) {                       \
    cblas_##pfx##stem(l, CblasUpper, N, CS(K_, T_, one), A_(T_), LD, A_(T_),   \
                      INC, CS(K_, T_, one), A_(T_), INC);                      \
    expect("c", nm, 1, N, N, 0);                                               \
  }
#define TF_sbmv(pfx, T_, R_, K_, stem, nm)                                      \
  pfx##stem##_("U", &N, &KB, &one, A_(T_), &LD, A_(T_), &INC, &one, A_(T_), &INC); \
  expect("f", nm, 0, N, N, KB + 1);                                            \
  for (int l = CblasRowMajor; l <= CblasColMajor; l++) {                       \
    cblas_##pfx##stem(l, CblasUpper, N, KB, CS(K_, T_, one), A_(T_), LD,       \
                      A_(T_), INC, CS(K_, T_, one), A_(T_), INC);              \
    expect("c", nm, 1, N, N, KB + 1);                                          \
  }
#define TF_spmv(pfx, T_, R_, K_, stem, nm)                                      \
  pfx##stem##_("L", &N, &one, A_(T_), A_(T_), &INC, &one, A_(T_), &INC);       \
  expect("f", nm, 0, N, N, 0);                                                 \
  for (int l = CblasRowMajor; l <= CblasColMajor; l++) {                       \
    cblas_##pfx##stem(l, CblasLower, N, CS(K_, T_, one), A_(T_), A_(T_), INC,  \
                      CS(K_, T_, one), A_(T_), INC);                           \
    expect("c", nm, 1, N, N, 0);                                               \
  }
#define TF_trmv(pfx, T_, R_, K_, stem, nm)                                      \
  pfx##stem##_("U", "T", "N", &N, A_(T_), &LD, A_(T_), &INC);                  \
  expect("f", nm, 0, N, N, 0);                                                 \
  for (int l = CblasRowMajor; l <= CblasColMajor; l++) {                       \
    cblas_##pfx##stem(l, CblasUpper, CblasTrans, CblasNonUnit, N, A_(T_), LD,  \
                      A_(T_), INC);                                            \
    expect("c", nm, 1, N, N, 0);                                               \
  }
#define TF_tbmv(pfx, T_, R_, K_, stem, nm)                                      \
  pfx##stem##_("L", "N", "U", &N, &KB, A_(T_), &LD, A_(T_), &INC);             \
  expect("f", nm, 0, N, N, KB + 1);                                            \
  for (int l = CblasRowMajor; l <= CblasColMajor; l++) {                       \
    cblas_##pfx##stem(l, CblasLower, CblasNoTrans, CblasUnit, N, KB, A_(T_),   \
                      LD, A_(T_), INC);                                        \
    expect("c", nm, 1, N, N, KB + 1);                                          \
  }
#define TF_tpmv(pfx, T_, R_, K_, stem, nm)                                      \
  pfx##stem##_("U", "C", "N", &N, A_(T_), A_(T_), &INC);                       \
  expect("f", nm, 0, N, N, 0);                                                 \
  for (int l = CblasRowMajor; l <= CblasColMajor; l++) {                       \
    cblas_##pfx##stem(l, CblasUpper, CblasConjTrans, CblasNonUnit, N, A_(T_),  \
                      A_(T_), INC);                                            \
    expect("c", nm, 1, N, N, 0);                                               \
  }
#define TF_ger(pfx, T_, R_, K_, stem, nm)                                       \
  pfx##stem##_(&M, &N, &one, A_(T_), &INC, A_(T_), &INC, A_(T_), &LD);         \
  expect("f", nm, 0, M, N, 0);                                                 \
  for (int l = CblasRowMajor; l <= CblasColMajor; l++) {                       \
    cblas_##pfx##stem(l, M, N, CS(K_, T_, one), A_(T_), INC, A_(T_), INC,      \
                      A_(T_), LD);                                             \
    if (l == CblasColMajor) expect("col", nm, 1, M, N, 0);                     \
    else expect("row", nm, 1, N, M, 0);                                        \
  }
#define TF_syr(pfx, T_, R_, K_, stem, nm)                                       \
  pfx##stem##_("U", &N, &rone, A_(T_), &INC, A_(T_), &LD);                     \
  expect("f", nm, 0, N, N, 0);                                                 \
  for (int l = CblasRowMajor; l <= CblasColMajor; l++) {                       \
    cblas_##pfx##stem(l, CblasUpper, N, rone, A_(T_), INC, A_(T_), LD);        \
    expect("c", nm, 1, N, N, 0);                                               \
  }
#define TF_spr(pfx, T_, R_, K_, stem, nm)                                       \
  pfx##stem##_("U", &N, &rone, A_(T_), &INC, A_(T_));                          \
  expect("f", nm, 0, N, N, 0);                                                 \
  for (int l = CblasRowMajor; l <= CblasColMajor; l++) {                       \
    cblas_##pfx##stem(l, CblasUpper, N, rone, A_(T_), INC, A_(T_));            \
    expect("c", nm, 1, N, N, 0);                                               \
  }
#define TF_syr2(pfx, T_, R_, K_, stem, nm)                                      \
  pfx##stem##_("L", &N, &one, A_(T_), &INC, A_(T_), &INC, A_(T_), &LD);        \
  expect("f", nm, 0, N, N, 0);                                                 \
  for (int l = CblasRowMajor; l <= CblasColMajor; l++) {                       \
    cblas_##pfx##stem(l, CblasLower, N, CS(K_, T_, one), A_(T_), INC, A_(T_),  \
                      INC, A_(T_), LD);                                        \
    expect("c", nm, 1, N, N, 0);                                               \
  }
#define TF_spr2(pfx, T_, R_, K_, stem, nm)                                      \
  pfx##stem##_("L", &N, &one, A_(T_), &INC, A_(T_), &INC, A_(T_));             \
  expect("f", nm, 0, N, N, 0);                                                 \
  for (int l = CblasRowMajor; l <= CblasColMajor; l++) {                       \
    cblas_##pfx##stem(l, CblasLower, N, CS(K_, T_, one), A_(T_), INC, A_(T_),  \
                      INC, A_(T_));                                            \
    expect("c", nm, 1, N, N, 0);                                               \
  }

/* ---- level 3 ---- */
#define TF_gemm(pfx, T_, R_, K_, stem, nm)                                      \
  pfx##stem##_("N", "T", &M, &N, &K, &one, A_(T_), &LD, A_(T_), &LD, &two,     \
               A_(T_), &LD);                                                   \
  expect("f", nm, 0, M, N, K);                                                 \
  for (int l = CblasRowMajor; l <= CblasColMajor; l++) {                       \
    cblas_##pfx##stem(l, CblasNoTrans, CblasTrans, M, N, K, CS(K_, T_, one),   \
                      A_(T_), LD, A_(T_), LD, CS(K_, T_, two), A_(T_), LD);    \
    if (l == CblasColMajor) expect("col", nm, 1, M, N, K);                     \
    else expect("row", nm, 1, N, M, K);                                        \
  }
#define TF_gemmt(pfx, T_, R_, K_, stem, nm)                                     \
  pfx##stem##_("U", "N", "T", &N, &K, &one, A_(T_), &LD, A_(T_), &LD, &two,    \
               A_(T_), &LD);                                                   \
  expect("f", nm, 0, N, N, K);                                                 \
  for (int l = CblasRowMajor; l <= CblasColMajor; l++) {                       \
    cblas_##pfx##stem(l, CblasUpper, CblasNoTrans, CblasTrans, N, K,           \
                      CS(K_, T_, one), A_(T_), LD, A_(T_), LD,                 \
                      CS(K_, T_, two), A_(T_), LD);                            \
    expect("c", nm, 1, N, N, K);                                               \
  }
#define TF_symm(pfx, T_, R_, K_, stem, nm)                                      \
  pfx##stem##_("L", "U", &M, &N, &one, A_(T_), &LD, A_(T_), &LD, &two, A_(T_), &LD); \
  expect("f", nm, 0, M, N, M);                                                 \
  for (int l = CblasRowMajor; l <= CblasColMajor; l++) {                       \
    cblas_##pfx##stem(l, CblasLeft, CblasUpper, M, N, CS(K_, T_, one), A_(T_), \
                      LD, A_(T_), LD, CS(K_, T_, two), A_(T_), LD);            \
    if (l == CblasColMajor) expect("col", nm, 1, M, N, M);                     \
    else expect("row", nm, 1, N, M, M); /* side flips: order stays M */       \
  }
#define TF_syrk_(pfx, T_, R_, K_, stem, nm, al, be, AL, BE, tr, TR)             \
  pfx##stem##_("U", tr, &N, &K, &al, A_(T_), &LD, &be, A_(T_), &LD);           \
  expect("f", nm, 0, N, N, K);                                                 \
  for (int l = CblasRowMajor; l <= CblasColMajor; l++) {                       \
    cblas_##pfx##stem(l, CblasUpper, TR, N, K, AL, A_(T_), LD, BE, A_(T_), LD); \
    expect("c", nm, 1, N, N, K);                                               \
  }
#define TF_syrk(pfx, T_, R_, K_, stem, nm)                                      \
  TF_syrk_(pfx, T_, R_, K_, stem, nm, one, two, CS(K_, T_, one), CS(K_, T_, two), "T", CblasTrans)
#define TF_herk(pfx, T_, R_, K_, stem, nm)                                      \
  TF_syrk_(pfx, T_, R_, K_, stem, nm, rone, rtwo, rone, rtwo, "C", CblasConjTrans)
#define TF_syr2k_(pfx, T_, R_, K_, stem, nm, be, BE)                            \
  pfx##stem##_("L", "N", &N, &K, &one, A_(T_), &LD, A_(T_), &LD, &be, A_(T_), &LD); \
  expect("f", nm, 0, N, N, K);                                                 \
  for (int l = CblasRowMajor; l <= CblasColMajor; l++) {                       \
    cblas_##pfx##stem(l, CblasLower, CblasNoTrans, N, K, CS(K_, T_, one),      \
                      A_(T_), LD, A_(T_), LD, BE, A_(T_), LD);                 \
    expect("c", nm, 1, N, N, K);                                               \
  }
#define TF_syr2k(pfx, T_, R_, K_, stem, nm) TF_syr2k_(pfx, T_, R_, K_, stem, nm, two, CS(K_, T_, two))
#define TF_her2k(pfx, T_, R_, K_, stem, nm) TF_syr2k_(pfx, T_, R_, K_, stem, nm, rtwo, rtwo)
#define TF_trmm(pfx, T_, R_, K_, stem, nm)                                      \
  pfx##stem##_("L", "L", "N", "U", &M, &N, &one, A_(T_), &LD, A_(T_), &LD);    \
  expect("f", nm, 0, M, N, M);                                                 \
  pfx##stem##_("R", "U", "T", "N", &M, &N, &one, A_(T_), &LD, A_(T_), &LD);    \
  expect("f right", nm, 0, M, N, N);                                           \
  for (int l = CblasRowMajor; l <= CblasColMajor; l++) {                       \
    cblas_##pfx##stem(l, CblasLeft, CblasLower, CblasNoTrans, CblasUnit, M, N, \
                      CS(K_, T_, one), A_(T_), LD, A_(T_), LD);                \
    if (l == CblasColMajor) expect("col", nm, 1, M, N, M);                     \
    else expect("row", nm, 1, N, M, M);                                        \
  }

/* ---- OpenBLAS matrix extensions ---- */
#define TF_geadd(pfx, T_, R_, K_, stem, nm)                                     \
  pfx##stem##_(&M, &N, &one, A_(T_), &LD, &one, A_(T_), &LD);                  \
  expect("f", nm, 0, M, N, 0);                                                 \
  for (int l = CblasRowMajor; l <= CblasColMajor; l++) {                       \
    cblas_##pfx##stem(l, M, N, XS(K_, R_, one), A_(R_), LD, XS(K_, R_, one),   \
                      A_(R_), LD);                                             \
    if (l == CblasColMajor) expect("col", nm, 1, M, N, 0);                     \
    else expect("row", nm, 1, N, M, 0);                                        \
  }
#define TF_omatcopy(pfx, T_, R_, K_, stem, nm)                                  \
  pfx##stem##_("C", "T", &M, &N, &one, A_(T_), &LD, A_(T_), &LD);              \
  expect("f", nm, 0, M, N, 0);                                                 \
  for (int l = CblasRowMajor; l <= CblasColMajor; l++) {                       \
    cblas_##pfx##stem(l, CblasTrans, M, N, XS(K_, R_, one), A_(R_), LD,        \
                      A_(R_), LD);                                             \
    if (l == CblasColMajor) expect("col", nm, 1, M, N, 0);                     \
    else expect("row", nm, 1, N, M, 0);                                        \
  }
#define TF_imatcopy(pfx, T_, R_, K_, stem, nm)                                  \
  pfx##stem##_("R", "N", &M, &N, &one, A_(T_), &LD, &LD);                      \
  expect("f", nm, 0, N, M, 0);                                                 \
  for (int l = CblasRowMajor; l <= CblasColMajor; l++) {                       \
    cblas_##pfx##stem(l, CblasNoTrans, M, N, XS(K_, R_, one), A_(R_), LD, LD); \
    if (l == CblasColMajor) expect("col", nm, 1, M, N, 0);                     \
    else expect("row", nm, 1, N, M, 0);                                        \
  }

/* the library's own declarations of every entry point */
#include "sb_decls.h"

static int ncalled;
#define TEST_ONE(pfx, T_, R_, K_, fam, stem, ifc)                              \
  {                                                                            \
    DECL_SCALARS(T_, R_)                                                       \
    TF_##fam(pfx, T_, R_, K_, stem, #pfx #stem) ncalled++;                      \
  }

static void test_every_entry_point(void **state)
{
  (void)state;
  simblas_set_hook(record, NULL);
#define SB_OP(...) SB_EXPAND_OP(TEST_ONE, __VA_ARGS__)
#include "blas.def"
#undef SB_OP
  assert_true(ncalled > 200);
  simblas_set_hook(NULL, NULL);
}

/* the same function under name_, name and NAME */
static void test_aliases(void **state)
{
  (void)state;
  static const char *const names[] = {
#define SB_UPPER(lower, UPPER) #lower, #UPPER,
#include "sb_upper.h"
#undef SB_UPPER
  };
  void *self = dlopen(NULL, RTLD_NOW);
  size_t n = sizeof names / sizeof *names;
  for (size_t i = 0; i < n; i += 2) {
    char under[64];
    snprintf(under, sizeof under, "%s_", names[i]);
    void *a = dlsym(self, under), *b = dlsym(self, names[i]), *c = dlsym(self, names[i + 1]);
    if (!a || a != b || a != c)
      fail_msg("%s: %s=%p %s=%p %s=%p", names[i], under, a, names[i], b, names[i + 1], c);
  }
  assert_true(n / 2 > 200);
}

/* argument errors reach the program's XERBLA and nothing is modelled */
static int xerbla_info;
static char xerbla_name[8];
void xerbla_(const char *srname, const int *info, size_t len)
{
  (void)len;
  xerbla_info = *info;
  memcpy(xerbla_name, srname, 6);
}

static void test_error_reaches_program_xerbla(void **state)
{
  (void)state;
  simblas_set_hook(record, NULL);
  rec.n = 0;
  int bad = -1, ld = 1;
  double one = 1;
  dgemm_("N", "N", &M, &bad, &K, &one, A_(double), &LD, A_(double), &LD, &one, A_(double), &LD);
  assert_int_equal(xerbla_info, 4);
  assert_memory_equal(xerbla_name, "DGEMM ", 6);
  dgemv_("X", &M, &N, &one, A_(double), &LD, A_(double), &INC, &one, A_(double), &INC);
  assert_int_equal(xerbla_info, 1);
  dtrsm_("L", "U", "N", "N", &M, &N, &one, A_(double), &ld, A_(double), &LD);
  assert_int_equal(xerbla_info, 9);
  assert_int_equal(rec.n, 0);
  simblas_set_hook(NULL, NULL);
}

/* the library's cblas_xerbla reports a row-major call's error at the
 * position the C caller used, as netlib's (CBLAS/src/cblas_xerbla.c 3.11;
 * the library looks the exchange up in the family table's swap column):
 * what it prints for INFO p of a routine, in a child, as it exits */
static int reported(const char *rout, int p, int rowmajor)
{
  void (*xer)(int, const char *, const char *, ...) =
      (void (*)(int, const char *, const char *, ...))dlsym(RTLD_DEFAULT, "cblas_xerbla");
  int fd[2], got = -1, st;
  char out[128] = "", want[128];
  assert_non_null(xer);
  assert_int_equal(pipe(fd), 0);
  fflush(NULL);
  pid_t pid = fork();
  if (pid == 0) {
    dup2(fd[1], 2);
    RowMajorStrg = rowmajor;
    xer(p, rout, "");
    _exit(99);
  }
  close(fd[1]);
  ssize_t n = read(fd[0], out, sizeof out - 1);
  close(fd[0]);
  waitpid(pid, &st, 0);
  assert_true(n > 0 && WIFEXITED(st) && WEXITSTATUS(st) == 255);
  out[n] = '\0';
  if (sscanf(out, "Parameter %d to routine ", &got) != 1)
    fail_msg("%s", out);
  snprintf(want, sizeof want, "Parameter %d to routine %s was incorrect\n", got, rout);
  assert_string_equal(out, want);
  return got;
}

static void test_cblas_xerbla_row_major(void **state)
{
  (void)state;
  static const struct { const char *rout; int p, row; } cases[] = {
      {"cblas_dgemm", 4, 5}, {"cblas_dgemm", 5, 4}, {"cblas_dgemm", 9, 11},
      {"cblas_dgemm", 11, 9}, {"cblas_dgemm", 6, 6}, {"cblas_zgemm3m", 9, 11},
      {"cblas_sgemmt", 4, 5}, /* netlib matches "gemm" in the name */
      {"cblas_chemm", 4, 5}, {"cblas_dsymm", 5, 4}, {"cblas_dsymm", 9, 9},
      {"cblas_dtrsm", 6, 7}, {"cblas_ztrmm", 7, 6}, {"cblas_dgemv", 3, 4},
      {"cblas_sgemv", 6, 6}, {"cblas_cgbmv", 5, 6}, {"cblas_dgbmv", 4, 3},
      {"cblas_zgerc", 2, 3}, {"cblas_dger", 8, 6}, {"cblas_cher2", 6, 8},
      {"cblas_zhpr2", 8, 6}, {"cblas_dsyr2", 6, 6}, {"cblas_zsyr2", 8, 8},
      {"cblas_cher2k", 6, 6}, {"cblas_dsyrk", 4, 4}, {"cblas_zhemv", 6, 6},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    assert_int_equal(reported(cases[i].rout, cases[i].p, 1), cases[i].row);
    assert_int_equal(reported(cases[i].rout, cases[i].p, 0), cases[i].p);
  }
}

/* quick returns model nothing */
static void test_quick_returns(void **state)
{
  (void)state;
  simblas_set_hook(record, NULL);
  rec.n = 0;
  int zero = 0;
  double one = 1, zerod = 0;
  dgemm_("N", "N", &zero, &N, &K, &one, A_(double), &LD, A_(double), &LD, &one, A_(double), &LD);
  dgemm_("N", "N", &M, &N, &K, &zerod, A_(double), &LD, A_(double), &LD, &one, A_(double), &LD);
  daxpy_(&N, &zerod, A_(double), &INC, A_(double), &INC);
  assert_int_equal(idamax_(&zero, A_(double), &INC), 0);
  assert_int_equal(rec.n, 0);
  simblas_set_hook(NULL, NULL);
}

/* returned values are valid without reading the arrays */
static void test_returned_values(void **state)
{
  (void)state;
  double nan_buf[64];
  for (int i = 0; i < 64; i++)
    nan_buf[i] = __builtin_nan("");
  int n = 37, inc = 1;
  for (int i = 0; i < 50; i++) {
    int ix = idamax_(&n, nan_buf, &inc);
    assert_in_range(ix, 1, n);
    assert_in_range(cblas_idamax(n, nan_buf, 1), 0, n - 1);
  }
  assert_true(__builtin_isfinite(ddot_(&n, nan_buf, &inc, nan_buf, &inc)));
  assert_true(__builtin_isfinite(dnrm2_(&n, nan_buf, &inc)));
  assert_true(__builtin_isfinite(dasum_(&n, nan_buf, &inc)));
  double a = nan_buf[0], b = nan_buf[1], c, s;
  drotg_(&a, &b, &c, &s);
  assert_true(__builtin_isfinite(a) && __builtin_isfinite(b) && __builtin_isfinite(c) && __builtin_isfinite(s));
  double d1 = nan_buf[0], d2 = 1, x1 = 1, y1 = 1, param[5];
  drotmg_(&d1, &d2, &x1, &y1, param);
  assert_true(__builtin_isfinite(d1) && param[0] == -2);
}

int main(void)
{
  /* nothing computed, nothing simulated: the library initialises lazily */
  setenv("SIMBLAS_MODE", "null", 1);
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_every_entry_point),
      cmocka_unit_test(test_aliases),
      cmocka_unit_test(test_error_reaches_program_xerbla),
      cmocka_unit_test(test_cblas_xerbla_row_major),
      cmocka_unit_test(test_quick_returns),
      cmocka_unit_test(test_returned_values),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
