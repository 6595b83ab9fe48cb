/*
 * families.h -- the signature families named in blas.def.
 *
 * For each family <f>:
 *   SB_FR_<f>(T_, R_)          Fortran return type
 *   SB_FP_<f>(T_, R_)          Fortran parameter list (hidden CHARACTER
 *                              lengths are not declared: they are unused)
 *   SB_FA_<f>                  the same parameter names, to forward a call
 *   SB_FCK_<f>(c, T_)          argument check: SB_GO, SB_QUICK or SB_ERR
 *   SB_CR_<f>(T_, R_)          CBLAS return type
 *   SB_CP_<f>(T_, R_, K_)      CBLAS parameter list
 *   SB_CA_<f>                  CBLAS parameter names
 *   SB_CCK_<f>(c, T_, K_)      CBLAS check (enums, canonicalisation, then
 *                              the Fortran-level check, as netlib's cblas)
 *   SB_RV_<f>                  VOID, or VAL for functions
 *   SB_FM_<f>(pfx, T_, R_)     what the model mode leaves in outputs that
 *                              are not arrays (returned values, rotg's c, s)
 *   SB_CM_<f>(pfx, T_, R_)     the same for the CBLAS form
 * The check functions (lib/check.c) see only integers and characters;
 * scalars enter them as "alpha is zero" / "beta is one" flags.
 */
#ifndef SB_FAMILIES_H
#define SB_FAMILIES_H

#include "sb_call.h"
#include "sb_check.h"

#ifndef CBLAS_INT
#define CBLAS_INT int
#endif

/* CBLAS passing conventions: K_ is R (real) or C (complex) */
#define SB_CS(K_, T_) SB_CS_##K_(T_) /* scalar in  */
#define SB_CS_R(T_) const T_
#define SB_CS_C(T_) const void *
#define SB_CI(K_, T_) SB_CI_##K_(T_) /* array in   */
#define SB_CI_R(T_) const T_ *
#define SB_CI_C(T_) const void *
#define SB_CO(K_, T_) SB_CO_##K_(T_) /* array out  */
#define SB_CO_R(T_) T_ *
#define SB_CO_C(T_) void *
#define SB_SP(K_, T_, x) SB_SP_##K_(T_, x) /* scalar as const T_ * */
#define SB_SP_R(T_, x) (&(x))
#define SB_SP_C(T_, x) ((const T_ *)(x))
/* OpenBLAS's matrix extensions pass complex scalars as const R_ * */
#define SB_XS(K_, R_) SB_XS_##K_(R_)
#define SB_XS_R(R_) const R_
#define SB_XS_C(R_) const R_ *
#define SB_XP(K_, T_, x) SB_XP_##K_(T_, x)
#define SB_XP_R(T_, x) (&(x))
#define SB_XP_C(T_, x) ((const T_ *)(const void *)(x))

/* Netlib's quick returns on scalar values (alpha = 0, beta = 1) apply
 * when a real BLAS runs (passthrough, trace) and in null mode.  In model
 * mode (SMPI) a call's time depends on its sizes only: a simulated
 * program's data are folded garbage, and HPL passes matrix entries as
 * alpha (HPL_pdpanrlT's daxpy), so the time charged depended on whatever
 * an uninitialised buffer held (valgrind; N=8,000 4x4 moved 1.3% with
 * MALLOC_PERTURB_) */
#define SB_VQ(e) (sb_value_quick() && (e))
#define SB_Z(p) SB_VQ(*(p) == 0)
#define SB_ONE(p) SB_VQ(*(p) == 1)

#define SB_NOTHING(...)

/* ===== Level 1 ============================================================ */
#define SB_FR_rotg(T_, R_) void
#define SB_FP_rotg(T_, R_) T_ *a, T_ *b, R_ *c, T_ *s
#define SB_FA_rotg a, b, c, s
#define SB_FCK_rotg(cl, T_) sb_chk_scalar(cl)
#define SB_CR_rotg(T_, R_) void
#define SB_CP_rotg(T_, R_, K_) SB_CO(K_, T_) a, SB_CO(K_, T_) b, R_ *c, SB_CO(K_, T_) s
#define SB_CA_rotg a, b, c, s
#define SB_CCK_rotg(cl, T_, K_) sb_chk_scalar(cl)
#define SB_RV_rotg VOID
#define SB_FM_rotg(pfx, T_, R_) sb_fake_rotg_##pfx(a, b, c, s);
#define SB_CM_rotg(pfx, T_, R_) sb_fake_rotg_##pfx((T_ *)a, (T_ *)b, c, (T_ *)s);

#define SB_FR_rotmg(T_, R_) void
#define SB_FP_rotmg(T_, R_) T_ *d1, T_ *d2, T_ *x1, const T_ *y1, T_ *param
#define SB_FA_rotmg d1, d2, x1, y1, param
#define SB_FCK_rotmg(cl, T_) sb_chk_scalar(cl)
#define SB_CR_rotmg(T_, R_) void
#define SB_CP_rotmg(T_, R_, K_) T_ *d1, T_ *d2, T_ *b1, const T_ b2, T_ *P
#define SB_CA_rotmg d1, d2, b1, b2, P
#define SB_CCK_rotmg(cl, T_, K_) sb_chk_scalar(cl)
#define SB_RV_rotmg VOID
#define SB_FM_rotmg(pfx, T_, R_) sb_fake_rotmg_##pfx(d1, d2, x1, param);
#define SB_CM_rotmg(pfx, T_, R_) sb_fake_rotmg_##pfx(d1, d2, b1, P);

/* vector-pair routines: rot (c, s real), rotm (param), swap, copy */
#define SB_FR_rot(T_, R_) void
#define SB_FP_rot(T_, R_)                                                      \
  const int *n, T_ *x, const int *incx, T_ *y, const int *incy, const R_ *c,   \
      const R_ *s
#define SB_FA_rot n, x, incx, y, incy, c, s
#define SB_FCK_rot(cl, T_) sb_chk_l1(cl, *n, 1, 0)
#define SB_CR_rot(T_, R_) void
#define SB_CP_rot(T_, R_, K_)                                                  \
  const CBLAS_INT N, SB_CO(K_, T_) X, const CBLAS_INT incX, SB_CO(K_, T_) Y,   \
      const CBLAS_INT incY, const R_ c, const R_ s
#define SB_CA_rot N, X, incX, Y, incY, c, s
#define SB_CCK_rot(cl, T_, K_) sb_chk_l1(cl, N, 1, 0)
#define SB_RV_rot VOID
#define SB_FM_rot SB_NOTHING
#define SB_CM_rot SB_NOTHING

#define SB_FR_rotm(T_, R_) void
#define SB_FP_rotm(T_, R_)                                                     \
  const int *n, T_ *x, const int *incx, T_ *y, const int *incy,                \
      const T_ *param
#define SB_FA_rotm n, x, incx, y, incy, param
#define SB_FCK_rotm(cl, T_) sb_chk_l1(cl, *n, 1, param[0] == -2)
#define SB_CR_rotm(T_, R_) void
#define SB_CP_rotm(T_, R_, K_)                                                 \
  const CBLAS_INT N, T_ *X, const CBLAS_INT incX, T_ *Y, const CBLAS_INT incY, \
      const T_ *P
#define SB_CA_rotm N, X, incX, Y, incY, P
#define SB_CCK_rotm(cl, T_, K_) sb_chk_l1(cl, N, 1, P[0] == -2)
#define SB_RV_rotm VOID
#define SB_FM_rotm SB_NOTHING
#define SB_CM_rotm SB_NOTHING

#define SB_FR_swap(T_, R_) void
#define SB_FP_swap(T_, R_) const int *n, T_ *x, const int *incx, T_ *y, const int *incy
#define SB_FA_swap n, x, incx, y, incy
#define SB_FCK_swap(cl, T_) sb_chk_l1(cl, *n, 1, 0)
#define SB_CR_swap(T_, R_) void
#define SB_CP_swap(T_, R_, K_)                                                 \
  const CBLAS_INT N, SB_CO(K_, T_) X, const CBLAS_INT incX, SB_CO(K_, T_) Y,   \
      const CBLAS_INT incY
#define SB_CA_swap N, X, incX, Y, incY
#define SB_CCK_swap(cl, T_, K_) sb_chk_l1(cl, N, 1, 0)
#define SB_RV_swap VOID
#define SB_FM_swap SB_NOTHING
#define SB_CM_swap SB_NOTHING

#define SB_FR_copy(T_, R_) void
#define SB_FP_copy(T_, R_) const int *n, const T_ *x, const int *incx, T_ *y, const int *incy
#define SB_FA_copy n, x, incx, y, incy
#define SB_FCK_copy(cl, T_) sb_chk_l1(cl, *n, 1, 0)
#define SB_CR_copy(T_, R_) void
#define SB_CP_copy(T_, R_, K_)                                                 \
  const CBLAS_INT N, SB_CI(K_, T_) X, const CBLAS_INT incX, SB_CO(K_, T_) Y,   \
      const CBLAS_INT incY
#define SB_CA_copy N, X, incX, Y, incY
#define SB_CCK_copy(cl, T_, K_) sb_chk_l1(cl, N, 1, 0)
#define SB_RV_copy VOID
#define SB_FM_copy SB_NOTHING
#define SB_CM_copy SB_NOTHING

/* x scaled: scal (alpha of the element type), rscal (real alpha) */
#define SB_FR_scal(T_, R_) void
#define SB_FP_scal(T_, R_) const int *n, const T_ *alpha, T_ *x, const int *incx
#define SB_FA_scal n, alpha, x, incx
#define SB_FCK_scal(cl, T_) sb_chk_l1(cl, *n, *incx, 0)
#define SB_CR_scal(T_, R_) void
#define SB_CP_scal(T_, R_, K_)                                                 \
  const CBLAS_INT N, SB_CS(K_, T_) alpha, SB_CO(K_, T_) X, const CBLAS_INT incX
#define SB_CA_scal N, alpha, X, incX
#define SB_CCK_scal(cl, T_, K_) sb_chk_l1(cl, N, incX, 0)
#define SB_RV_scal VOID
#define SB_FM_scal SB_NOTHING
#define SB_CM_scal SB_NOTHING

#define SB_FR_rscal(T_, R_) void
#define SB_FP_rscal(T_, R_) const int *n, const R_ *alpha, T_ *x, const int *incx
#define SB_FA_rscal n, alpha, x, incx
#define SB_FCK_rscal(cl, T_) sb_chk_l1(cl, *n, *incx, 0)
#define SB_CR_rscal(T_, R_) void
#define SB_CP_rscal(T_, R_, K_)                                                \
  const CBLAS_INT N, const R_ alpha, SB_CO(K_, T_) X, const CBLAS_INT incX
#define SB_CA_rscal N, alpha, X, incX
#define SB_CCK_rscal(cl, T_, K_) sb_chk_l1(cl, N, incX, 0)
#define SB_RV_rscal VOID
#define SB_FM_rscal SB_NOTHING
#define SB_CM_rscal SB_NOTHING

#define SB_FR_axpy(T_, R_) void
#define SB_FP_axpy(T_, R_)                                                     \
  const int *n, const T_ *alpha, const T_ *x, const int *incx, T_ *y,          \
      const int *incy
#define SB_FA_axpy n, alpha, x, incx, y, incy
#define SB_FCK_axpy(cl, T_) sb_chk_l1(cl, *n, 1, SB_Z(alpha))
#define SB_CR_axpy(T_, R_) void
#define SB_CP_axpy(T_, R_, K_)                                                 \
  const CBLAS_INT N, SB_CS(K_, T_) alpha, SB_CI(K_, T_) X,                     \
      const CBLAS_INT incX, SB_CO(K_, T_) Y, const CBLAS_INT incY
#define SB_CA_axpy N, alpha, X, incX, Y, incY
#define SB_CCK_axpy(cl, T_, K_) sb_chk_l1(cl, N, 1, SB_Z(SB_SP(K_, T_, alpha)))
#define SB_RV_axpy VOID
#define SB_FM_axpy SB_NOTHING
#define SB_CM_axpy SB_NOTHING

#define SB_FR_axpby(T_, R_) void
#define SB_FP_axpby(T_, R_)                                                    \
  const int *n, const T_ *alpha, const T_ *x, const int *incx,                 \
      const T_ *beta, T_ *y, const int *incy
#define SB_FA_axpby n, alpha, x, incx, beta, y, incy
#define SB_FCK_axpby(cl, T_) sb_chk_l1(cl, *n, 1, 0)
#define SB_CR_axpby(T_, R_) void
#define SB_CP_axpby(T_, R_, K_)                                                \
  const CBLAS_INT N, SB_CS(K_, T_) alpha, SB_CI(K_, T_) X,                     \
      const CBLAS_INT incX, SB_CS(K_, T_) beta, SB_CO(K_, T_) Y,               \
      const CBLAS_INT incY
#define SB_CA_axpby N, alpha, X, incX, beta, Y, incY
#define SB_CCK_axpby(cl, T_, K_) sb_chk_l1(cl, N, 1, 0)
#define SB_RV_axpby VOID
#define SB_FM_axpby SB_NOTHING
#define SB_CM_axpby SB_NOTHING

/* ---- level-1 functions ------------------------------------------------ */
#define SB_FR_dot(T_, R_) R_
#define SB_FP_dot(T_, R_) const int *n, const T_ *x, const int *incx, const T_ *y, const int *incy
#define SB_FA_dot n, x, incx, y, incy
#define SB_FCK_dot(cl, T_) sb_chk_l1(cl, *n, 1, 0)
#define SB_CR_dot(T_, R_) R_
#define SB_CP_dot(T_, R_, K_)                                                  \
  const CBLAS_INT N, const T_ *X, const CBLAS_INT incX, const T_ *Y,           \
      const CBLAS_INT incY
#define SB_CA_dot N, X, incX, Y, incY
#define SB_CCK_dot(cl, T_, K_) sb_chk_l1(cl, N, 1, 0)
#define SB_RV_dot VAL
#define SB_FM_dot(pfx, T_, R_) r_ = 0;
#define SB_CM_dot(pfx, T_, R_) r_ = 0;

#define SB_FR_sdsdot(T_, R_) R_
#define SB_FP_sdsdot(T_, R_)                                                   \
  const int *n, const T_ *sb, const T_ *x, const int *incx, const T_ *y,       \
      const int *incy
#define SB_FA_sdsdot n, sb, x, incx, y, incy
/* never a quick return: for n <= 0 reference sdsdot returns sb */
#define SB_FCK_sdsdot(cl, T_) (sb_chk_l1(cl, *n, 1, 0), SB_GO)
#define SB_CR_sdsdot(T_, R_) R_
#define SB_CP_sdsdot(T_, R_, K_)                                               \
  const CBLAS_INT N, const T_ alpha, const T_ *X, const CBLAS_INT incX,        \
      const T_ *Y, const CBLAS_INT incY
#define SB_CA_sdsdot N, alpha, X, incX, Y, incY
#define SB_CCK_sdsdot(cl, T_, K_) (sb_chk_l1(cl, N, 1, 0), SB_GO)
#define SB_RV_sdsdot VAL
#define SB_FM_sdsdot(pfx, T_, R_) r_ = sb_finite_f(*sb);
#define SB_CM_sdsdot(pfx, T_, R_) r_ = sb_finite_f(alpha);

/* dotu, dotc: complex result; CBLAS has the value form (OpenBLAS) and the
 * netlib _sub form, generated by SB_CX_<f> */
#define SB_FR_dotu(T_, R_) T_
#define SB_FP_dotu(T_, R_) SB_FP_dot(T_, R_)
#define SB_FA_dotu SB_FA_dot
#define SB_FCK_dotu(cl, T_) sb_chk_l1(cl, *n, 1, 0)
#define SB_CR_dotu(T_, R_) T_
#define SB_CP_dotu(T_, R_, K_)                                                 \
  const CBLAS_INT N, const void *X, const CBLAS_INT incX, const void *Y,       \
      const CBLAS_INT incY
#define SB_CA_dotu SB_CA_dot
#define SB_CCK_dotu(cl, T_, K_) sb_chk_l1(cl, N, 1, 0)
#define SB_RV_dotu VAL
#define SB_FM_dotu(pfx, T_, R_) r_ = 0;
#define SB_CM_dotu(pfx, T_, R_) r_ = 0;
#define SB_FR_dotc SB_FR_dotu
#define SB_FP_dotc SB_FP_dotu
#define SB_FA_dotc SB_FA_dot
#define SB_FCK_dotc SB_FCK_dotu
#define SB_CR_dotc SB_CR_dotu
#define SB_CP_dotc SB_CP_dotu
#define SB_CA_dotc SB_CA_dot
#define SB_CCK_dotc SB_CCK_dotu
#define SB_RV_dotc VAL
#define SB_FM_dotc SB_FM_dotu
#define SB_CM_dotc SB_CM_dotu

/* one vector in, a real out: nrm2, asum, and OpenBLAS's amax/amin/max/
 * min/sum values */
#define SB_FR_nrm2(T_, R_) R_
#define SB_FP_nrm2(T_, R_) const int *n, const T_ *x, const int *incx
#define SB_FA_nrm2 n, x, incx
#define SB_FCK_nrm2(cl, T_) sb_chk_l1(cl, *n, 1, 0)
#define SB_CR_nrm2(T_, R_) R_
#define SB_CP_nrm2(T_, R_, K_) const CBLAS_INT N, SB_CI(K_, T_) X, const CBLAS_INT incX
#define SB_CA_nrm2 N, X, incX
#define SB_CCK_nrm2(cl, T_, K_) sb_chk_l1(cl, N, 1, 0)
#define SB_RV_nrm2 VAL
#define SB_FM_nrm2(pfx, T_, R_) r_ = 0;
#define SB_CM_nrm2(pfx, T_, R_) r_ = 0;
#define SB_FR_asum SB_FR_nrm2
#define SB_FP_asum SB_FP_nrm2
#define SB_FA_asum SB_FA_nrm2
#define SB_FCK_asum(cl, T_) sb_chk_l1(cl, *n, *incx, 0)
#define SB_CR_asum SB_CR_nrm2
#define SB_CP_asum SB_CP_nrm2
#define SB_CA_asum SB_CA_nrm2
#define SB_CCK_asum(cl, T_, K_) sb_chk_l1(cl, N, incX, 0)
#define SB_RV_asum VAL
#define SB_FM_asum SB_FM_nrm2
#define SB_CM_asum SB_CM_nrm2
#define SB_FR_rvalue SB_FR_nrm2
#define SB_FP_rvalue SB_FP_nrm2
#define SB_FA_rvalue SB_FA_nrm2
#define SB_FCK_rvalue SB_FCK_asum
#define SB_CR_rvalue SB_CR_nrm2
#define SB_CP_rvalue SB_CP_nrm2
#define SB_CA_rvalue SB_CA_nrm2
#define SB_CCK_rvalue SB_CCK_asum
#define SB_RV_rvalue VAL
#define SB_FM_rvalue SB_FM_nrm2
#define SB_CM_rvalue SB_CM_nrm2

#define SB_FR_cabs1(T_, R_) R_
#define SB_FP_cabs1(T_, R_) const T_ *z
#define SB_FA_cabs1 z
#define SB_FCK_cabs1(cl, T_) sb_chk_scalar(cl)
#define SB_CR_cabs1(T_, R_) R_
#define SB_CP_cabs1(T_, R_, K_) const void *z
#define SB_CA_cabs1 z
#define SB_CCK_cabs1(cl, T_, K_) sb_chk_scalar(cl)
#define SB_RV_cabs1 VAL
#define SB_FM_cabs1(pfx, T_, R_) r_ = sb_fake_cabs1_##pfx(z);
#define SB_CM_cabs1(pfx, T_, R_) r_ = sb_fake_cabs1_##pfx((const T_ *)z);

/* index functions: Fortran 1-based int, CBLAS 0-based CBLAS_INDEX */
#define SB_FR_iamax(T_, R_) int
#define SB_FP_iamax(T_, R_) const int *n, const T_ *x, const int *incx
#define SB_FA_iamax n, x, incx
#define SB_FCK_iamax(cl, T_) sb_chk_l1(cl, *n, *incx, 0)
#define SB_CR_iamax(T_, R_) size_t
#define SB_CP_iamax(T_, R_, K_) const CBLAS_INT N, SB_CI(K_, T_) X, const CBLAS_INT incX
#define SB_CA_iamax N, X, incX
#define SB_CCK_iamax(cl, T_, K_) sb_chk_l1(cl, N, incX, 0)
#define SB_RV_iamax VAL
#define SB_FM_iamax(pfx, T_, R_) r_ = (int)sb_fake_index(&c_);
#define SB_CM_iamax(pfx, T_, R_) r_ = (size_t)sb_fake_index(&c_) - 1;

/* ===== Level 2 ============================================================ */
#define SB_FR_gemv(T_, R_) void
#define SB_FP_gemv(T_, R_)                                                     \
  const char *trans, const int *m, const int *n, const T_ *alpha, const T_ *a, \
      const int *lda, const T_ *x, const int *incx, const T_ *beta, T_ *y,     \
      const int *incy
#define SB_FA_gemv trans, m, n, alpha, a, lda, x, incx, beta, y, incy
#define SB_FCK_gemv(cl, T_)                                                    \
  sb_chk_gemv(cl, trans, m, n, lda, incx, incy, SB_Z(alpha) && SB_ONE(beta))
#define SB_CR_gemv(T_, R_) void
#define SB_CP_gemv(T_, R_, K_)                                                 \
  const CBLAS_LAYOUT layout, const CBLAS_TRANSPOSE TransA, const CBLAS_INT M,  \
      const CBLAS_INT N, SB_CS(K_, T_) alpha, SB_CI(K_, T_) A,                 \
      const CBLAS_INT lda, SB_CI(K_, T_) X, const CBLAS_INT incX,              \
      SB_CS(K_, T_) beta, SB_CO(K_, T_) Y, const CBLAS_INT incY
#define SB_CA_gemv layout, TransA, M, N, alpha, A, lda, X, incX, beta, Y, incY
#define SB_CCK_gemv(cl, T_, K_)                                                \
  sb_cchk_gemv(cl, layout, TransA, M, N, lda, incX, incY,                      \
               SB_Z(SB_SP(K_, T_, alpha)) && SB_ONE(SB_SP(K_, T_, beta)))
#define SB_RV_gemv VOID
#define SB_FM_gemv SB_NOTHING
#define SB_CM_gemv SB_NOTHING

#define SB_FR_gbmv(T_, R_) void
#define SB_FP_gbmv(T_, R_)                                                     \
  const char *trans, const int *m, const int *n, const int *kl,                \
      const int *ku, const T_ *alpha, const T_ *a, const int *lda,             \
      const T_ *x, const int *incx, const T_ *beta, T_ *y, const int *incy
#define SB_FA_gbmv trans, m, n, kl, ku, alpha, a, lda, x, incx, beta, y, incy
#define SB_FCK_gbmv(cl, T_)                                                    \
  sb_chk_gbmv(cl, trans, m, n, kl, ku, lda, incx, incy,                        \
              SB_Z(alpha) && SB_ONE(beta))
#define SB_CR_gbmv(T_, R_) void
#define SB_CP_gbmv(T_, R_, K_)                                                 \
  const CBLAS_LAYOUT layout, const CBLAS_TRANSPOSE TransA, const CBLAS_INT M,  \
      const CBLAS_INT N, const CBLAS_INT KL, const CBLAS_INT KU,               \
      SB_CS(K_, T_) alpha, SB_CI(K_, T_) A, const CBLAS_INT lda,               \
      SB_CI(K_, T_) X, const CBLAS_INT incX, SB_CS(K_, T_) beta,               \
      SB_CO(K_, T_) Y, const CBLAS_INT incY
#define SB_CA_gbmv layout, TransA, M, N, KL, KU, alpha, A, lda, X, incX, beta, Y, incY
#define SB_CCK_gbmv(cl, T_, K_)                                                \
  sb_cchk_gbmv(cl, layout, TransA, M, N, KL, KU, lda, incX, incY,              \
               SB_Z(SB_SP(K_, T_, alpha)) && SB_ONE(SB_SP(K_, T_, beta)))
#define SB_RV_gbmv VOID
#define SB_FM_gbmv SB_NOTHING
#define SB_CM_gbmv SB_NOTHING

/* symv, hemv: symmetric/Hermitian full storage; sbmv/hbmv banded;
 * spmv/hpmv packed */
#define SB_FR_symv(T_, R_) void
#define SB_FP_symv(T_, R_)                                                     \
  const char *uplo, const int *n, const T_ *alpha, const T_ *a,                \
      const int *lda, const T_ *x, const int *incx, const T_ *beta, T_ *y,     \
      const int *incy
#define SB_FA_symv uplo, n, alpha, a, lda, x, incx, beta, y, incy
#define SB_FCK_symv(cl, T_)                                                    \
  sb_chk_symv(cl, uplo, n, NULL, lda, incx, incy, SB_Z(alpha) && SB_ONE(beta))
#define SB_CR_symv(T_, R_) void
#define SB_CP_symv(T_, R_, K_)                                                 \
  const CBLAS_LAYOUT layout, const CBLAS_UPLO Uplo, const CBLAS_INT N,         \
      SB_CS(K_, T_) alpha, SB_CI(K_, T_) A, const CBLAS_INT lda,               \
      SB_CI(K_, T_) X, const CBLAS_INT incX, SB_CS(K_, T_) beta,               \
      SB_CO(K_, T_) Y, const CBLAS_INT incY
#define SB_CA_symv layout, Uplo, N, alpha, A, lda, X, incX, beta, Y, incY
#define SB_CCK_symv(cl, T_, K_)                                                \
  sb_cchk_symv(cl, layout, Uplo, N, SB_NA, lda, incX, incY,                       \
               SB_Z(SB_SP(K_, T_, alpha)) && SB_ONE(SB_SP(K_, T_, beta)))
#define SB_RV_symv VOID
#define SB_FM_symv SB_NOTHING
#define SB_CM_symv SB_NOTHING

#define SB_FR_sbmv(T_, R_) void
#define SB_FP_sbmv(T_, R_)                                                     \
  const char *uplo, const int *n, const int *k, const T_ *alpha, const T_ *a,  \
      const int *lda, const T_ *x, const int *incx, const T_ *beta, T_ *y,     \
      const int *incy
#define SB_FA_sbmv uplo, n, k, alpha, a, lda, x, incx, beta, y, incy
#define SB_FCK_sbmv(cl, T_)                                                    \
  sb_chk_symv(cl, uplo, n, k, lda, incx, incy, SB_Z(alpha) && SB_ONE(beta))
#define SB_CR_sbmv(T_, R_) void
#define SB_CP_sbmv(T_, R_, K_)                                                 \
  const CBLAS_LAYOUT layout, const CBLAS_UPLO Uplo, const CBLAS_INT N,         \
      const CBLAS_INT K, SB_CS(K_, T_) alpha, SB_CI(K_, T_) A,                 \
      const CBLAS_INT lda, SB_CI(K_, T_) X, const CBLAS_INT incX,              \
      SB_CS(K_, T_) beta, SB_CO(K_, T_) Y, const CBLAS_INT incY
#define SB_CA_sbmv layout, Uplo, N, K, alpha, A, lda, X, incX, beta, Y, incY
#define SB_CCK_sbmv(cl, T_, K_)                                                \
  sb_cchk_symv(cl, layout, Uplo, N, K, lda, incX, incY,                        \
               SB_Z(SB_SP(K_, T_, alpha)) && SB_ONE(SB_SP(K_, T_, beta)))
#define SB_RV_sbmv VOID
#define SB_FM_sbmv SB_NOTHING
#define SB_CM_sbmv SB_NOTHING

#define SB_FR_spmv(T_, R_) void
#define SB_FP_spmv(T_, R_)                                                     \
  const char *uplo, const int *n, const T_ *alpha, const T_ *ap, const T_ *x,  \
      const int *incx, const T_ *beta, T_ *y, const int *incy
#define SB_FA_spmv uplo, n, alpha, ap, x, incx, beta, y, incy
#define SB_FCK_spmv(cl, T_)                                                    \
  sb_chk_symv(cl, uplo, n, NULL, NULL, incx, incy, SB_Z(alpha) && SB_ONE(beta))
#define SB_CR_spmv(T_, R_) void
#define SB_CP_spmv(T_, R_, K_)                                                 \
  const CBLAS_LAYOUT layout, const CBLAS_UPLO Uplo, const CBLAS_INT N,         \
      SB_CS(K_, T_) alpha, SB_CI(K_, T_) Ap, SB_CI(K_, T_) X,                  \
      const CBLAS_INT incX, SB_CS(K_, T_) beta, SB_CO(K_, T_) Y,               \
      const CBLAS_INT incY
#define SB_CA_spmv layout, Uplo, N, alpha, Ap, X, incX, beta, Y, incY
#define SB_CCK_spmv(cl, T_, K_)                                                \
  sb_cchk_symv(cl, layout, Uplo, N, SB_NA, SB_NA, incX, incY,                        \
               SB_Z(SB_SP(K_, T_, alpha)) && SB_ONE(SB_SP(K_, T_, beta)))
#define SB_RV_spmv VOID
#define SB_FM_spmv SB_NOTHING
#define SB_CM_spmv SB_NOTHING

/* triangular: trmv/trsv full, tbmv/tbsv banded, tpmv/tpsv packed */
#define SB_FR_trmv(T_, R_) void
#define SB_FP_trmv(T_, R_)                                                     \
  const char *uplo, const char *trans, const char *diag, const int *n,         \
      const T_ *a, const int *lda, T_ *x, const int *incx
#define SB_FA_trmv uplo, trans, diag, n, a, lda, x, incx
#define SB_FCK_trmv(cl, T_) sb_chk_trmv(cl, uplo, trans, diag, n, NULL, lda, incx)
#define SB_CR_trmv(T_, R_) void
#define SB_CP_trmv(T_, R_, K_)                                                 \
  const CBLAS_LAYOUT layout, const CBLAS_UPLO Uplo,                            \
      const CBLAS_TRANSPOSE TransA, const CBLAS_DIAG Diag, const CBLAS_INT N,  \
      SB_CI(K_, T_) A, const CBLAS_INT lda, SB_CO(K_, T_) X,                   \
      const CBLAS_INT incX
#define SB_CA_trmv layout, Uplo, TransA, Diag, N, A, lda, X, incX
#define SB_CCK_trmv(cl, T_, K_) sb_cchk_trmv(cl, layout, Uplo, TransA, Diag, N, SB_NA, lda, incX)
#define SB_RV_trmv VOID
#define SB_FM_trmv SB_NOTHING
#define SB_CM_trmv SB_NOTHING

#define SB_FR_tbmv(T_, R_) void
#define SB_FP_tbmv(T_, R_)                                                     \
  const char *uplo, const char *trans, const char *diag, const int *n,         \
      const int *k, const T_ *a, const int *lda, T_ *x, const int *incx
#define SB_FA_tbmv uplo, trans, diag, n, k, a, lda, x, incx
#define SB_FCK_tbmv(cl, T_) sb_chk_trmv(cl, uplo, trans, diag, n, k, lda, incx)
#define SB_CR_tbmv(T_, R_) void
#define SB_CP_tbmv(T_, R_, K_)                                                 \
  const CBLAS_LAYOUT layout, const CBLAS_UPLO Uplo,                            \
      const CBLAS_TRANSPOSE TransA, const CBLAS_DIAG Diag, const CBLAS_INT N,  \
      const CBLAS_INT K, SB_CI(K_, T_) A, const CBLAS_INT lda,                 \
      SB_CO(K_, T_) X, const CBLAS_INT incX
#define SB_CA_tbmv layout, Uplo, TransA, Diag, N, K, A, lda, X, incX
#define SB_CCK_tbmv(cl, T_, K_) sb_cchk_trmv(cl, layout, Uplo, TransA, Diag, N, K, lda, incX)
#define SB_RV_tbmv VOID
#define SB_FM_tbmv SB_NOTHING
#define SB_CM_tbmv SB_NOTHING

#define SB_FR_tpmv(T_, R_) void
#define SB_FP_tpmv(T_, R_)                                                     \
  const char *uplo, const char *trans, const char *diag, const int *n,         \
      const T_ *ap, T_ *x, const int *incx
#define SB_FA_tpmv uplo, trans, diag, n, ap, x, incx
#define SB_FCK_tpmv(cl, T_) sb_chk_trmv(cl, uplo, trans, diag, n, NULL, NULL, incx)
#define SB_CR_tpmv(T_, R_) void
#define SB_CP_tpmv(T_, R_, K_)                                                 \
  const CBLAS_LAYOUT layout, const CBLAS_UPLO Uplo,                            \
      const CBLAS_TRANSPOSE TransA, const CBLAS_DIAG Diag, const CBLAS_INT N,  \
      SB_CI(K_, T_) Ap, SB_CO(K_, T_) X, const CBLAS_INT incX
#define SB_CA_tpmv layout, Uplo, TransA, Diag, N, Ap, X, incX
#define SB_CCK_tpmv(cl, T_, K_) sb_cchk_trmv(cl, layout, Uplo, TransA, Diag, N, SB_NA, SB_NA, incX)
#define SB_RV_tpmv VOID
#define SB_FM_tpmv SB_NOTHING
#define SB_CM_tpmv SB_NOTHING

/* rank-1 and rank-2 updates */
#define SB_FR_ger(T_, R_) void
#define SB_FP_ger(T_, R_)                                                      \
  const int *m, const int *n, const T_ *alpha, const T_ *x, const int *incx,   \
      const T_ *y, const int *incy, T_ *a, const int *lda
#define SB_FA_ger m, n, alpha, x, incx, y, incy, a, lda
#define SB_FCK_ger(cl, T_) sb_chk_ger(cl, m, n, incx, incy, lda, SB_Z(alpha))
#define SB_CR_ger(T_, R_) void
#define SB_CP_ger(T_, R_, K_)                                                  \
  const CBLAS_LAYOUT layout, const CBLAS_INT M, const CBLAS_INT N,             \
      SB_CS(K_, T_) alpha, SB_CI(K_, T_) X, const CBLAS_INT incX,              \
      SB_CI(K_, T_) Y, const CBLAS_INT incY, SB_CO(K_, T_) A,                  \
      const CBLAS_INT lda
#define SB_CA_ger layout, M, N, alpha, X, incX, Y, incY, A, lda
#define SB_CCK_ger(cl, T_, K_)                                                 \
  sb_cchk_ger(cl, layout, M, N, incX, incY, lda, SB_Z(SB_SP(K_, T_, alpha)))
#define SB_RV_ger VOID
#define SB_FM_ger SB_NOTHING
#define SB_CM_ger SB_NOTHING

/* syr, her (real alpha); spr, hpr (packed) */
#define SB_FR_syr(T_, R_) void
#define SB_FP_syr(T_, R_)                                                      \
  const char *uplo, const int *n, const R_ *alpha, const T_ *x,                \
      const int *incx, T_ *a, const int *lda
#define SB_FA_syr uplo, n, alpha, x, incx, a, lda
#define SB_FCK_syr(cl, T_) sb_chk_syr(cl, uplo, n, incx, NULL, lda, SB_Z(alpha))
#define SB_CR_syr(T_, R_) void
#define SB_CP_syr(T_, R_, K_)                                                  \
  const CBLAS_LAYOUT layout, const CBLAS_UPLO Uplo, const CBLAS_INT N,         \
      const R_ alpha, SB_CI(K_, T_) X, const CBLAS_INT incX, SB_CO(K_, T_) A,  \
      const CBLAS_INT lda
#define SB_CA_syr layout, Uplo, N, alpha, X, incX, A, lda
#define SB_CCK_syr(cl, T_, K_) sb_cchk_syr(cl, layout, Uplo, N, incX, SB_NA, lda, SB_VQ(alpha == 0))
#define SB_RV_syr VOID
#define SB_FM_syr SB_NOTHING
#define SB_CM_syr SB_NOTHING

#define SB_FR_spr(T_, R_) void
#define SB_FP_spr(T_, R_)                                                      \
  const char *uplo, const int *n, const R_ *alpha, const T_ *x,                \
      const int *incx, T_ *ap
#define SB_FA_spr uplo, n, alpha, x, incx, ap
#define SB_FCK_spr(cl, T_) sb_chk_syr(cl, uplo, n, incx, NULL, NULL, SB_Z(alpha))
#define SB_CR_spr(T_, R_) void
#define SB_CP_spr(T_, R_, K_)                                                  \
  const CBLAS_LAYOUT layout, const CBLAS_UPLO Uplo, const CBLAS_INT N,         \
      const R_ alpha, SB_CI(K_, T_) X, const CBLAS_INT incX, SB_CO(K_, T_) Ap
#define SB_CA_spr layout, Uplo, N, alpha, X, incX, Ap
#define SB_CCK_spr(cl, T_, K_) sb_cchk_syr(cl, layout, Uplo, N, incX, SB_NA, SB_NA, SB_VQ(alpha == 0))
#define SB_RV_spr VOID
#define SB_FM_spr SB_NOTHING
#define SB_CM_spr SB_NOTHING

/* syr2, her2 (alpha of element type); spr2, hpr2 (packed) */
#define SB_FR_syr2(T_, R_) void
#define SB_FP_syr2(T_, R_)                                                     \
  const char *uplo, const int *n, const T_ *alpha, const T_ *x,                \
      const int *incx, const T_ *y, const int *incy, T_ *a, const int *lda
#define SB_FA_syr2 uplo, n, alpha, x, incx, y, incy, a, lda
#define SB_FCK_syr2(cl, T_) sb_chk_syr(cl, uplo, n, incx, incy, lda, SB_Z(alpha))
#define SB_CR_syr2(T_, R_) void
#define SB_CP_syr2(T_, R_, K_)                                                 \
  const CBLAS_LAYOUT layout, const CBLAS_UPLO Uplo, const CBLAS_INT N,         \
      SB_CS(K_, T_) alpha, SB_CI(K_, T_) X, const CBLAS_INT incX,              \
      SB_CI(K_, T_) Y, const CBLAS_INT incY, SB_CO(K_, T_) A,                  \
      const CBLAS_INT lda
#define SB_CA_syr2 layout, Uplo, N, alpha, X, incX, Y, incY, A, lda
#define SB_CCK_syr2(cl, T_, K_)                                                \
  sb_cchk_syr(cl, layout, Uplo, N, incX, incY, lda, SB_Z(SB_SP(K_, T_, alpha)))
#define SB_RV_syr2 VOID
#define SB_FM_syr2 SB_NOTHING
#define SB_CM_syr2 SB_NOTHING

#define SB_FR_spr2(T_, R_) void
#define SB_FP_spr2(T_, R_)                                                     \
  const char *uplo, const int *n, const T_ *alpha, const T_ *x,                \
      const int *incx, const T_ *y, const int *incy, T_ *ap
#define SB_FA_spr2 uplo, n, alpha, x, incx, y, incy, ap
#define SB_FCK_spr2(cl, T_) sb_chk_syr(cl, uplo, n, incx, incy, NULL, SB_Z(alpha))
#define SB_CR_spr2(T_, R_) void
#define SB_CP_spr2(T_, R_, K_)                                                 \
  const CBLAS_LAYOUT layout, const CBLAS_UPLO Uplo, const CBLAS_INT N,         \
      SB_CS(K_, T_) alpha, SB_CI(K_, T_) X, const CBLAS_INT incX,              \
      SB_CI(K_, T_) Y, const CBLAS_INT incY, SB_CO(K_, T_) Ap
#define SB_CA_spr2 layout, Uplo, N, alpha, X, incX, Y, incY, Ap
#define SB_CCK_spr2(cl, T_, K_)                                                \
  sb_cchk_syr(cl, layout, Uplo, N, incX, incY, SB_NA, SB_Z(SB_SP(K_, T_, alpha)))
#define SB_RV_spr2 VOID
#define SB_FM_spr2 SB_NOTHING
#define SB_CM_spr2 SB_NOTHING

/* ===== Level 3 ============================================================ */
#define SB_FR_gemm(T_, R_) void
#define SB_FP_gemm(T_, R_)                                                     \
  const char *transa, const char *transb, const int *m, const int *n,          \
      const int *k, const T_ *alpha, const T_ *a, const int *lda,              \
      const T_ *b, const int *ldb, const T_ *beta, T_ *c, const int *ldc
#define SB_FA_gemm transa, transb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc
#define SB_FCK_gemm(cl, T_)                                                    \
  sb_chk_gemm(cl, transa, transb, m, n, k, lda, ldb, ldc, SB_Z(alpha),         \
              SB_ONE(beta))
#define SB_CR_gemm(T_, R_) void
#define SB_CP_gemm(T_, R_, K_)                                                 \
  const CBLAS_LAYOUT layout, const CBLAS_TRANSPOSE TransA,                     \
      const CBLAS_TRANSPOSE TransB, const CBLAS_INT M, const CBLAS_INT N,      \
      const CBLAS_INT K, SB_CS(K_, T_) alpha, SB_CI(K_, T_) A,                 \
      const CBLAS_INT lda, SB_CI(K_, T_) B, const CBLAS_INT ldb,               \
      SB_CS(K_, T_) beta, SB_CO(K_, T_) C, const CBLAS_INT ldc
#define SB_CA_gemm layout, TransA, TransB, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc
#define SB_CCK_gemm(cl, T_, K_)                                                \
  sb_cchk_gemm(cl, layout, TransA, TransB, M, N, K, lda, ldb, ldc,             \
               SB_Z(SB_SP(K_, T_, alpha)), SB_ONE(SB_SP(K_, T_, beta)))
#define SB_RV_gemm VOID
#define SB_FM_gemm SB_NOTHING
#define SB_CM_gemm SB_NOTHING

#define SB_FR_gemmt(T_, R_) void
#define SB_FP_gemmt(T_, R_)                                                    \
  const char *uplo, const char *transa, const char *transb, const int *n,      \
      const int *k, const T_ *alpha, const T_ *a, const int *lda,              \
      const T_ *b, const int *ldb, const T_ *beta, T_ *c, const int *ldc
#define SB_FA_gemmt uplo, transa, transb, n, k, alpha, a, lda, b, ldb, beta, c, ldc
#define SB_FCK_gemmt(cl, T_)                                                   \
  sb_chk_gemmt(cl, uplo, transa, transb, n, k, lda, ldb, ldc, SB_Z(alpha),     \
               SB_ONE(beta))
#define SB_CR_gemmt(T_, R_) void
#define SB_CP_gemmt(T_, R_, K_)                                                \
  const CBLAS_LAYOUT layout, const CBLAS_UPLO Uplo,                            \
      const CBLAS_TRANSPOSE TransA, const CBLAS_TRANSPOSE TransB,              \
      const CBLAS_INT N, const CBLAS_INT K, SB_CS(K_, T_) alpha,               \
      SB_CI(K_, T_) A, const CBLAS_INT lda, SB_CI(K_, T_) B,                   \
      const CBLAS_INT ldb, SB_CS(K_, T_) beta, SB_CO(K_, T_) C,                \
      const CBLAS_INT ldc
#define SB_CA_gemmt layout, Uplo, TransA, TransB, N, K, alpha, A, lda, B, ldb, beta, C, ldc
#define SB_CCK_gemmt(cl, T_, K_)                                               \
  sb_cchk_gemmt(cl, layout, Uplo, TransA, TransB, N, K, lda, ldb, ldc,         \
                SB_Z(SB_SP(K_, T_, alpha)), SB_ONE(SB_SP(K_, T_, beta)))
#define SB_RV_gemmt VOID
#define SB_FM_gemmt SB_NOTHING
#define SB_CM_gemmt SB_NOTHING

#define SB_FR_symm(T_, R_) void
#define SB_FP_symm(T_, R_)                                                     \
  const char *side, const char *uplo, const int *m, const int *n,              \
      const T_ *alpha, const T_ *a, const int *lda, const T_ *b,               \
      const int *ldb, const T_ *beta, T_ *c, const int *ldc
#define SB_FA_symm side, uplo, m, n, alpha, a, lda, b, ldb, beta, c, ldc
#define SB_FCK_symm(cl, T_)                                                    \
  sb_chk_symm(cl, side, uplo, m, n, lda, ldb, ldc, SB_Z(alpha) && SB_ONE(beta))
#define SB_CR_symm(T_, R_) void
#define SB_CP_symm(T_, R_, K_)                                                 \
  const CBLAS_LAYOUT layout, const CBLAS_SIDE Side, const CBLAS_UPLO Uplo,     \
      const CBLAS_INT M, const CBLAS_INT N, SB_CS(K_, T_) alpha,               \
      SB_CI(K_, T_) A, const CBLAS_INT lda, SB_CI(K_, T_) B,                   \
      const CBLAS_INT ldb, SB_CS(K_, T_) beta, SB_CO(K_, T_) C,                \
      const CBLAS_INT ldc
#define SB_CA_symm layout, Side, Uplo, M, N, alpha, A, lda, B, ldb, beta, C, ldc
#define SB_CCK_symm(cl, T_, K_)                                                \
  sb_cchk_symm(cl, layout, Side, Uplo, M, N, lda, ldb, ldc,                    \
               SB_Z(SB_SP(K_, T_, alpha)) && SB_ONE(SB_SP(K_, T_, beta)))
#define SB_RV_symm VOID
#define SB_FM_symm SB_NOTHING
#define SB_CM_symm SB_NOTHING

/* syrk (alpha, beta of element type), herk (real alpha, beta) */
#define SB_FR_syrk(T_, R_) void
#define SB_FP_syrk(T_, R_)                                                     \
  const char *uplo, const char *trans, const int *n, const int *k,             \
      const T_ *alpha, const T_ *a, const int *lda, const T_ *beta, T_ *c,     \
      const int *ldc
#define SB_FA_syrk uplo, trans, n, k, alpha, a, lda, beta, c, ldc
#define SB_FCK_syrk(cl, T_)                                                    \
  sb_chk_syrk(cl, uplo, trans, n, k, lda, NULL, ldc, SB_Z(alpha), SB_ONE(beta))
#define SB_CR_syrk(T_, R_) void
#define SB_CP_syrk(T_, R_, K_)                                                 \
  const CBLAS_LAYOUT layout, const CBLAS_UPLO Uplo,                            \
      const CBLAS_TRANSPOSE Trans, const CBLAS_INT N, const CBLAS_INT K,       \
      SB_CS(K_, T_) alpha, SB_CI(K_, T_) A, const CBLAS_INT lda,               \
      SB_CS(K_, T_) beta, SB_CO(K_, T_) C, const CBLAS_INT ldc
#define SB_CA_syrk layout, Uplo, Trans, N, K, alpha, A, lda, beta, C, ldc
#define SB_CCK_syrk(cl, T_, K_)                                                \
  sb_cchk_syrk(cl, layout, Uplo, Trans, N, K, lda, SB_NA, ldc,                    \
               SB_Z(SB_SP(K_, T_, alpha)), SB_ONE(SB_SP(K_, T_, beta)))
#define SB_RV_syrk VOID
#define SB_FM_syrk SB_NOTHING
#define SB_CM_syrk SB_NOTHING

#define SB_FR_herk(T_, R_) void
#define SB_FP_herk(T_, R_)                                                     \
  const char *uplo, const char *trans, const int *n, const int *k,             \
      const R_ *alpha, const T_ *a, const int *lda, const R_ *beta, T_ *c,     \
      const int *ldc
#define SB_FA_herk SB_FA_syrk
#define SB_FCK_herk SB_FCK_syrk
#define SB_CR_herk(T_, R_) void
#define SB_CP_herk(T_, R_, K_)                                                 \
  const CBLAS_LAYOUT layout, const CBLAS_UPLO Uplo,                            \
      const CBLAS_TRANSPOSE Trans, const CBLAS_INT N, const CBLAS_INT K,       \
      const R_ alpha, SB_CI(K_, T_) A, const CBLAS_INT lda, const R_ beta,     \
      SB_CO(K_, T_) C, const CBLAS_INT ldc
#define SB_CA_herk SB_CA_syrk
#define SB_CCK_herk(cl, T_, K_)                                                \
  sb_cchk_syrk(cl, layout, Uplo, Trans, N, K, lda, SB_NA, ldc, SB_VQ(alpha == 0), \
               SB_VQ(beta == 1))
#define SB_RV_herk VOID
#define SB_FM_herk SB_NOTHING
#define SB_CM_herk SB_NOTHING

/* syr2k (alpha, beta of element type), her2k (real beta) */
#define SB_FR_syr2k(T_, R_) void
#define SB_FP_syr2k(T_, R_)                                                    \
  const char *uplo, const char *trans, const int *n, const int *k,             \
      const T_ *alpha, const T_ *a, const int *lda, const T_ *b,               \
      const int *ldb, const T_ *beta, T_ *c, const int *ldc
#define SB_FA_syr2k uplo, trans, n, k, alpha, a, lda, b, ldb, beta, c, ldc
#define SB_FCK_syr2k(cl, T_)                                                   \
  sb_chk_syrk(cl, uplo, trans, n, k, lda, ldb, ldc, SB_Z(alpha), SB_ONE(beta))
#define SB_CR_syr2k(T_, R_) void
#define SB_CP_syr2k(T_, R_, K_)                                                \
  const CBLAS_LAYOUT layout, const CBLAS_UPLO Uplo,                            \
      const CBLAS_TRANSPOSE Trans, const CBLAS_INT N, const CBLAS_INT K,       \
      SB_CS(K_, T_) alpha, SB_CI(K_, T_) A, const CBLAS_INT lda,               \
      SB_CI(K_, T_) B, const CBLAS_INT ldb, SB_CS(K_, T_) beta,                \
      SB_CO(K_, T_) C, const CBLAS_INT ldc
#define SB_CA_syr2k layout, Uplo, Trans, N, K, alpha, A, lda, B, ldb, beta, C, ldc
#define SB_CCK_syr2k(cl, T_, K_)                                               \
  sb_cchk_syrk(cl, layout, Uplo, Trans, N, K, lda, ldb, ldc,                   \
               SB_Z(SB_SP(K_, T_, alpha)), SB_ONE(SB_SP(K_, T_, beta)))
#define SB_RV_syr2k VOID
#define SB_FM_syr2k SB_NOTHING
#define SB_CM_syr2k SB_NOTHING

#define SB_FR_her2k(T_, R_) void
#define SB_FP_her2k(T_, R_)                                                    \
  const char *uplo, const char *trans, const int *n, const int *k,             \
      const T_ *alpha, const T_ *a, const int *lda, const T_ *b,               \
      const int *ldb, const R_ *beta, T_ *c, const int *ldc
#define SB_FA_her2k SB_FA_syr2k
#define SB_FCK_her2k SB_FCK_syr2k
#define SB_CR_her2k(T_, R_) void
#define SB_CP_her2k(T_, R_, K_)                                                \
  const CBLAS_LAYOUT layout, const CBLAS_UPLO Uplo,                            \
      const CBLAS_TRANSPOSE Trans, const CBLAS_INT N, const CBLAS_INT K,       \
      SB_CS(K_, T_) alpha, SB_CI(K_, T_) A, const CBLAS_INT lda,               \
      SB_CI(K_, T_) B, const CBLAS_INT ldb, const R_ beta, SB_CO(K_, T_) C,    \
      const CBLAS_INT ldc
#define SB_CA_her2k SB_CA_syr2k
#define SB_CCK_her2k(cl, T_, K_)                                               \
  sb_cchk_syrk(cl, layout, Uplo, Trans, N, K, lda, ldb, ldc,                   \
               SB_Z(SB_SP(K_, T_, alpha)), SB_VQ(beta == 1))
#define SB_RV_her2k VOID
#define SB_FM_her2k SB_NOTHING
#define SB_CM_her2k SB_NOTHING

/* trmm, trsm */
#define SB_FR_trmm(T_, R_) void
#define SB_FP_trmm(T_, R_)                                                     \
  const char *side, const char *uplo, const char *transa, const char *diag,    \
      const int *m, const int *n, const T_ *alpha, const T_ *a,                \
      const int *lda, T_ *b, const int *ldb
#define SB_FA_trmm side, uplo, transa, diag, m, n, alpha, a, lda, b, ldb
#define SB_FCK_trmm(cl, T_) sb_chk_trmm(cl, side, uplo, transa, diag, m, n, lda, ldb)
#define SB_CR_trmm(T_, R_) void
#define SB_CP_trmm(T_, R_, K_)                                                 \
  const CBLAS_LAYOUT layout, const CBLAS_SIDE Side, const CBLAS_UPLO Uplo,     \
      const CBLAS_TRANSPOSE TransA, const CBLAS_DIAG Diag, const CBLAS_INT M,  \
      const CBLAS_INT N, SB_CS(K_, T_) alpha, SB_CI(K_, T_) A,                 \
      const CBLAS_INT lda, SB_CO(K_, T_) B, const CBLAS_INT ldb
#define SB_CA_trmm layout, Side, Uplo, TransA, Diag, M, N, alpha, A, lda, B, ldb
#define SB_CCK_trmm(cl, T_, K_)                                                \
  sb_cchk_trmm(cl, layout, Side, Uplo, TransA, Diag, M, N, lda, ldb)
#define SB_RV_trmm VOID
#define SB_FM_trmm SB_NOTHING
#define SB_CM_trmm SB_NOTHING

/* ===== OpenBLAS matrix extensions ========================================= */
#define SB_FR_geadd(T_, R_) void
#define SB_FP_geadd(T_, R_)                                                    \
  const int *m, const int *n, const T_ *alpha, T_ *a, const int *lda,          \
      const T_ *beta, T_ *c, const int *ldc
#define SB_FA_geadd m, n, alpha, a, lda, beta, c, ldc
#define SB_FCK_geadd(cl, T_) sb_chk_geadd(cl, m, n, lda, ldc)
#define SB_CR_geadd(T_, R_) void
#define SB_CP_geadd(T_, R_, K_)                                                \
  const CBLAS_LAYOUT layout, const CBLAS_INT crows, const CBLAS_INT ccols,     \
      SB_XS(K_, R_) calpha, R_ *a, const CBLAS_INT clda, SB_XS(K_, R_) cbeta,  \
      R_ *c, const CBLAS_INT cldc
#define SB_CA_geadd layout, crows, ccols, calpha, a, clda, cbeta, c, cldc
#define SB_CCK_geadd(cl, T_, K_) sb_cchk_geadd(cl, layout, crows, ccols, clda, cldc)
#define SB_RV_geadd VOID
#define SB_FM_geadd SB_NOTHING
#define SB_CM_geadd SB_NOTHING

#define SB_FR_omatcopy(T_, R_) void
#define SB_FP_omatcopy(T_, R_)                                                 \
  const char *order, const char *trans, const int *rows, const int *cols,      \
      const T_ *alpha, const T_ *a, const int *lda, T_ *b, const int *ldb
#define SB_FA_omatcopy order, trans, rows, cols, alpha, a, lda, b, ldb
#define SB_FCK_omatcopy(cl, T_) sb_chk_matcopy(cl, order, trans, rows, cols, lda, ldb, 0)
#define SB_CR_omatcopy(T_, R_) void
#define SB_CP_omatcopy(T_, R_, K_)                                             \
  const CBLAS_LAYOUT CORDER, const CBLAS_TRANSPOSE CTRANS,                     \
      const CBLAS_INT crows, const CBLAS_INT ccols, SB_XS(K_, R_) calpha,      \
      const R_ *a, const CBLAS_INT clda, R_ *b, const CBLAS_INT cldb
#define SB_CA_omatcopy CORDER, CTRANS, crows, ccols, calpha, a, clda, b, cldb
#define SB_CCK_omatcopy(cl, T_, K_) sb_cchk_matcopy(cl, CORDER, CTRANS, crows, ccols, clda, cldb, 0)
#define SB_RV_omatcopy VOID
#define SB_FM_omatcopy SB_NOTHING
#define SB_CM_omatcopy SB_NOTHING

#define SB_FR_imatcopy(T_, R_) void
#define SB_FP_imatcopy(T_, R_)                                                 \
  const char *order, const char *trans, const int *rows, const int *cols,      \
      const T_ *alpha, T_ *a, const int *lda, const int *ldb
#define SB_FA_imatcopy order, trans, rows, cols, alpha, a, lda, ldb
#define SB_FCK_imatcopy(cl, T_) sb_chk_matcopy(cl, order, trans, rows, cols, lda, ldb, 1)
#define SB_CR_imatcopy(T_, R_) void
#define SB_CP_imatcopy(T_, R_, K_)                                             \
  const CBLAS_LAYOUT CORDER, const CBLAS_TRANSPOSE CTRANS,                     \
      const CBLAS_INT crows, const CBLAS_INT ccols, SB_XS(K_, R_) calpha,      \
      R_ *a, const CBLAS_INT clda, const CBLAS_INT cldb
#define SB_CA_imatcopy CORDER, CTRANS, crows, ccols, calpha, a, clda, cldb
#define SB_CCK_imatcopy(cl, T_, K_) sb_cchk_matcopy(cl, CORDER, CTRANS, crows, ccols, clda, cldb, 1)
#define SB_RV_imatcopy VOID
#define SB_FM_imatcopy SB_NOTHING
#define SB_CM_imatcopy SB_NOTHING

#endif
