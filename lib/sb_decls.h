/*
 * sb_decls.h -- declarations of every entry point, expanded from blas.def
 * and families.h: the library's own prototypes.  Include a cblas.h first
 * to have the compiler check the cblas_ ones against it (test/cblas-proto).
 */
#ifndef SB_DECLS_H
#define SB_DECLS_H

#include "sb_cblas_types.h"
#include "families.h"

#define SB_CAT_D(a, b) SB_CAT_D_(a, b)
#define SB_CAT_D_(a, b) a##b

#define SB_DECL_F(pfx, T_, R_, K_, fam, stem, ifc)                             \
  SB_FR_##fam(T_, R_) pfx##stem##_(SB_FP_##fam(T_, R_));                       \
  SB_CAT_D(SB_DECL_SUB_, ifc)(pfx, T_, R_, fam, stem)                          \
  SB_CAT_D(SB_DECL_C_, ifc)(pfx, T_, R_, K_, fam, stem)
#define SB_DECL_SUB_F(...)
#define SB_DECL_SUB_FC(...)
#define SB_DECL_SUB_FCS(pfx, T_, R_, fam, stem)                                \
  void pfx##stem##sub_(SB_FP_##fam(T_, R_), SB_FR_##fam(T_, R_) * result);
#define SB_DECL_C_F(...)
#define SB_DECL_C_FC(pfx, T_, R_, K_, fam, stem) SB_DECL_C_ONE(pfx, T_, R_, K_, fam, stem)
#define SB_DECL_C_FCS(pfx, T_, R_, K_, fam, stem)                              \
  SB_DECL_C_ONE(pfx, T_, R_, K_, fam, stem) SB_DECL_CSUB_##fam(pfx, T_, R_, K_, stem)
/* OpenBLAS's cblas.h gives cblas_csrot/zdrot a const x (netlib: not const);
 * SimBLAS follows netlib, so those two are not redeclared under it. */
#if defined(OPENBLAS_CONST)
#define SB_DECL_C_ONE(pfx, T_, R_, K_, fam, stem) SB_DECL_C_SKIP_##fam(pfx, T_, R_, K_, fam, stem)
#else
#define SB_DECL_C_ONE(pfx, T_, R_, K_, fam, stem) SB_DECL_C_REAL(pfx, T_, R_, K_, fam, stem)
#endif
#define SB_DECL_C_REAL(pfx, T_, R_, K_, fam, stem)                             \
  SB_CR_##fam(T_, R_) cblas_##pfx##stem(SB_CP_##fam(T_, R_, K_));
#define SB_DECL_C_SKIP_rotg SB_DECL_C_REAL
#define SB_DECL_C_SKIP_rotmg SB_DECL_C_REAL
#define SB_DECL_C_SKIP_rotm SB_DECL_C_REAL
#define SB_DECL_C_SKIP_swap SB_DECL_C_REAL
#define SB_DECL_C_SKIP_scal SB_DECL_C_REAL
#define SB_DECL_C_SKIP_rscal SB_DECL_C_REAL
#define SB_DECL_C_SKIP_copy SB_DECL_C_REAL
#define SB_DECL_C_SKIP_axpy SB_DECL_C_REAL
#define SB_DECL_C_SKIP_axpby SB_DECL_C_REAL
#define SB_DECL_C_SKIP_dot SB_DECL_C_REAL
#define SB_DECL_C_SKIP_sdsdot SB_DECL_C_REAL
#define SB_DECL_C_SKIP_dotu SB_DECL_C_REAL
#define SB_DECL_C_SKIP_dotc SB_DECL_C_REAL
#define SB_DECL_C_SKIP_nrm2 SB_DECL_C_REAL
#define SB_DECL_C_SKIP_asum SB_DECL_C_REAL
#define SB_DECL_C_SKIP_cabs1 SB_DECL_C_REAL
#define SB_DECL_C_SKIP_iamax SB_DECL_C_REAL
#define SB_DECL_C_SKIP_rvalue SB_DECL_C_REAL
#define SB_DECL_C_SKIP_gemv SB_DECL_C_REAL
#define SB_DECL_C_SKIP_gbmv SB_DECL_C_REAL
#define SB_DECL_C_SKIP_symv SB_DECL_C_REAL
#define SB_DECL_C_SKIP_sbmv SB_DECL_C_REAL
#define SB_DECL_C_SKIP_spmv SB_DECL_C_REAL
#define SB_DECL_C_SKIP_trmv SB_DECL_C_REAL
#define SB_DECL_C_SKIP_tbmv SB_DECL_C_REAL
#define SB_DECL_C_SKIP_tpmv SB_DECL_C_REAL
#define SB_DECL_C_SKIP_ger SB_DECL_C_REAL
#define SB_DECL_C_SKIP_syr SB_DECL_C_REAL
#define SB_DECL_C_SKIP_spr SB_DECL_C_REAL
#define SB_DECL_C_SKIP_syr2 SB_DECL_C_REAL
#define SB_DECL_C_SKIP_spr2 SB_DECL_C_REAL
#define SB_DECL_C_SKIP_gemm SB_DECL_C_REAL
#define SB_DECL_C_SKIP_gemmt SB_DECL_C_REAL
#define SB_DECL_C_SKIP_symm SB_DECL_C_REAL
#define SB_DECL_C_SKIP_syrk SB_DECL_C_REAL
#define SB_DECL_C_SKIP_herk SB_DECL_C_REAL
#define SB_DECL_C_SKIP_syr2k SB_DECL_C_REAL
#define SB_DECL_C_SKIP_her2k SB_DECL_C_REAL
#define SB_DECL_C_SKIP_trmm SB_DECL_C_REAL
#define SB_DECL_C_SKIP_geadd SB_DECL_C_REAL
#define SB_DECL_C_SKIP_omatcopy SB_DECL_C_REAL
#define SB_DECL_C_SKIP_imatcopy SB_DECL_C_REAL
#define SB_DECL_C_SKIP_rot(pfx, T_, R_, K_, fam, stem) SB_DECL_C_ROT_##K_(pfx, T_, R_, K_, fam, stem)
#define SB_DECL_C_ROT_R SB_DECL_C_REAL
#define SB_DECL_C_ROT_C(...)
#define SB_DECL_CSUB_dot(...)
#define SB_DECL_CSUB_sdsdot(...)
#define SB_DECL_CSUB_nrm2(...)
#define SB_DECL_CSUB_asum(...)
#define SB_DECL_CSUB_cabs1(...)
#define SB_DECL_CSUB_iamax(...)
#define SB_DECL_CSUB_dotu(pfx, T_, R_, K_, stem)                               \
  void cblas_##pfx##stem##_sub(SB_CP_dotu(T_, R_, K_), void *result);
#define SB_DECL_CSUB_dotc SB_DECL_CSUB_dotu

#define SB_OP(...) SB_EXPAND_OP(SB_DECL_F, __VA_ARGS__)
#include "blas.def"
#undef SB_OP

#endif
