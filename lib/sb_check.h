/*
 * sb_check.h -- argument checks of every family, as reference BLAS
 * (Fortran) and netlib CBLAS (cblas_) perform them: same INFO numbers,
 * same quick returns, XERBLA / cblas_xerbla reached through their dynamic
 * symbols so that a program's own handlers interpose.
 *
 * Each check fills the canonical column-major shape (c->m, c->n, c->k) and
 * returns SB_GO, SB_QUICK (valid, nothing to do) or SB_ERR (reported).
 * Fortran checks take Fortran's pointers; CBLAS checks take values, turn
 * the enums into the characters netlib's cblas would pass, swap what a
 * row-major call swaps, and run the Fortran check with CBLAS_CallFromC and
 * RowMajorStrg set as netlib does.
 */
#ifndef SB_CHECK_H
#define SB_CHECK_H

#include "sb_call.h"

#define SB_CHK SB_HIDDEN int


SB_CHK sb_chk_scalar(sb_call *c);
SB_CHK sb_chk_l1(sb_call *c, int n, int inc, int quick);

SB_CHK sb_chk_gemv(sb_call *c, const char *trans, const int *m, const int *n,
                   const int *lda, const int *incx, const int *incy, int q);
SB_CHK sb_chk_gbmv(sb_call *c, const char *trans, const int *m, const int *n,
                   const int *kl, const int *ku, const int *lda,
                   const int *incx, const int *incy, int q);
/* symv/hemv (k, lda), sbmv/hbmv (k given), spmv/hpmv (lda NULL) */
SB_CHK sb_chk_symv(sb_call *c, const char *uplo, const int *n, const int *k,
                   const int *lda, const int *incx, const int *incy, int q);
SB_CHK sb_chk_trmv(sb_call *c, const char *uplo, const char *trans,
                   const char *diag, const int *n, const int *k,
                   const int *lda, const int *incx);
SB_CHK sb_chk_ger(sb_call *c, const int *m, const int *n, const int *incx,
                  const int *incy, const int *lda, int q);
/* syr/her/spr/hpr (incy NULL), syr2/her2/spr2/hpr2; packed: lda NULL */
SB_CHK sb_chk_syr(sb_call *c, const char *uplo, const int *n,
                  const int *incx, const int *incy, const int *lda, int q);
SB_CHK sb_chk_gemm(sb_call *c, const char *ta, const char *tb, const int *m,
                   const int *n, const int *k, const int *lda, const int *ldb,
                   const int *ldc, int alpha0, int beta1);
SB_CHK sb_chk_gemmt(sb_call *c, const char *uplo, const char *ta,
                    const char *tb, const int *n, const int *k,
                    const int *lda, const int *ldb, const int *ldc,
                    int alpha0, int beta1);
SB_CHK sb_chk_symm(sb_call *c, const char *side, const char *uplo,
                   const int *m, const int *n, const int *lda, const int *ldb,
                   const int *ldc, int q);
/* syrk/herk (ldb NULL), syr2k/her2k */
SB_CHK sb_chk_syrk(sb_call *c, const char *uplo, const char *trans,
                   const int *n, const int *k, const int *lda, const int *ldb,
                   const int *ldc, int alpha0, int beta1);
SB_CHK sb_chk_trmm(sb_call *c, const char *side, const char *uplo,
                   const char *transa, const char *diag, const int *m,
                   const int *n, const int *lda, const int *ldb);
SB_CHK sb_chk_geadd(sb_call *c, const int *m, const int *n, const int *lda,
                    const int *ldc);
SB_CHK sb_chk_matcopy(sb_call *c, const char *order, const char *trans,
                      const int *rows, const int *cols, const int *lda,
                      const int *ldb, int inplace);

/* CBLAS forms; SB_NA for a size the routine does not have */
#include <limits.h>
#define SB_NA INT_MIN
SB_CHK sb_cchk_gemv(sb_call *c, int layout, int ta, int m, int n, int lda,
                    int incx, int incy, int q);
SB_CHK sb_cchk_gbmv(sb_call *c, int layout, int ta, int m, int n, int kl,
                    int ku, int lda, int incx, int incy, int q);
SB_CHK sb_cchk_symv(sb_call *c, int layout, int uplo, int n, int k, int lda,
                    int incx, int incy, int q);
SB_CHK sb_cchk_trmv(sb_call *c, int layout, int uplo, int ta, int diag, int n,
                    int k, int lda, int incx);
SB_CHK sb_cchk_ger(sb_call *c, int layout, int m, int n, int incx, int incy,
                   int lda, int q);
SB_CHK sb_cchk_syr(sb_call *c, int layout, int uplo, int n, int incx,
                   int incy, int lda, int q);
SB_CHK sb_cchk_gemm(sb_call *c, int layout, int ta, int tb, int m, int n,
                    int k, int lda, int ldb, int ldc, int alpha0, int beta1);
SB_CHK sb_cchk_gemmt(sb_call *c, int layout, int uplo, int ta, int tb, int n,
                     int k, int lda, int ldb, int ldc, int alpha0, int beta1);
SB_CHK sb_cchk_symm(sb_call *c, int layout, int side, int uplo, int m, int n,
                    int lda, int ldb, int ldc, int q);
SB_CHK sb_cchk_syrk(sb_call *c, int layout, int uplo, int trans, int n, int k,
                    int lda, int ldb, int ldc, int alpha0, int beta1);
SB_CHK sb_cchk_trmm(sb_call *c, int layout, int side, int uplo, int ta,
                    int diag, int m, int n, int lda, int ldb);
SB_CHK sb_cchk_geadd(sb_call *c, int layout, int rows, int cols, int lda,
                     int ldc);
SB_CHK sb_cchk_matcopy(sb_call *c, int order, int trans, int rows, int cols,
                       int lda, int ldb, int inplace);

/* model-mode stand-ins for outputs that are not arrays (lib/fake.c) */
#define SB_FAKE_DECL(pfx, T_, R_)                                              \
  SB_HIDDEN void sb_fake_rotg_##pfx(T_ *a, T_ *b, R_ *c, T_ *s);
SB_FAKE_DECL(s, float, float)
SB_FAKE_DECL(d, double, double)
SB_FAKE_DECL(c, sb_cf, float)
SB_FAKE_DECL(z, sb_cd, double)
#undef SB_FAKE_DECL
SB_HIDDEN void sb_fake_rotmg_s(float *d1, float *d2, float *x1, float *param);
SB_HIDDEN void sb_fake_rotmg_d(double *d1, double *d2, double *x1, double *param);
SB_HIDDEN float sb_fake_cabs1_s(const sb_cf *z);
SB_HIDDEN double sb_fake_cabs1_d(const sb_cd *z);
SB_HIDDEN float sb_finite_f(float x);
/* an index in [1, n] drawn from the rank's stream: deterministic per seed */
SB_HIDDEN int64_t sb_fake_index(const sb_call *c);

#endif
