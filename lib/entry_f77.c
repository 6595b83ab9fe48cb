/*
 * entry_f77.c -- every Fortran entry point, generated from blas.def.
 *
 * Each op is defined once as a hidden sb_f_<name> and exported under the
 * three spellings Fortran compilers use: name_, name and NAME (the
 * upper-case list is generated at build time, see sb_upper.h).  Rows
 * marked FCS also get netlib CBLAS's Fortran helper <name>sub_.
 */
#include "sb_gen.h"

#define SB_F77_DEF(pfx, T_, R_, K_, fam, stem, ifc)                            \
  SB_HIDDEN SB_FR_##fam(T_, R_) sb_f_##pfx##stem(SB_FP_##fam(T_, R_))          \
      SB_ENTRY_BODY(SB_FR_##fam(T_, R_), SB_PARAMS(SB_FP_##fam(T_, R_)),       \
                    SB_PARAMS(SB_FA_##fam), SB_FCK_##fam(&c_, T_),             \
                    SB_FM_##fam(pfx, T_, R_), SB_RV_##fam, SB_OP_##pfx##stem,  \
                    SB_OP_##pfx##stem, #pfx #stem "_")                         \
  SB_F77_ALIAS(sb_f_##pfx##stem, pfx##stem##_)                                 \
  SB_F77_ALIAS(sb_f_##pfx##stem, pfx##stem)                                    \
  SB_CAT(SB_F77_SUB_, ifc)(pfx, T_, R_, fam, stem)

#define SB_F77_ALIAS(target, name)                                             \
  extern __typeof__(target) name                                               \
      __attribute__((alias(#target), visibility("default")));

/* netlib CBLAS's Fortran helpers: SUBROUTINE DDOTSUB(N, X, INCX, Y, INCY, DOT) */
#define SB_F77_SUB_F(...)
#define SB_F77_SUB_FC(...)
#define SB_F77_SUB_FCS(pfx, T_, R_, fam, stem)                                 \
  SB_HIDDEN void sb_f_##pfx##stem##sub(SB_FP_##fam(T_, R_),                    \
                                       SB_FR_##fam(T_, R_) * result)           \
  {                                                                            \
    *result = sb_f_##pfx##stem(SB_FA_##fam);                                   \
  }                                                                            \
  SB_F77_ALIAS(sb_f_##pfx##stem##sub, pfx##stem##sub_)                         \
  SB_F77_ALIAS(sb_f_##pfx##stem##sub, pfx##stem##sub)

#define SB_OP(...) SB_EXPAND_OP(SB_F77_DEF, __VA_ARGS__)
#include "blas.def"
#undef SB_OP

/* upper-case spellings: SB_UPPER(dgemm, DGEMM) rows made from blas.def */
#define SB_UPPER(lower, UPPER) SB_F77_ALIAS(sb_f_##lower, UPPER)
#include "sb_upper.h"
