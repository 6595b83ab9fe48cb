/*
 * entry_cblas.c -- every cblas_ entry point, generated from blas.def.
 *
 * When the system's cblas.h is available it is included first, so the
 * compiler checks each definition against its prototype.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#ifdef SB_SYSTEM_CBLAS_H
#include SB_SYSTEM_CBLAS_H
#endif
#include "sb_cblas_types.h"
#include "sb_gen.h"

#define SB_CBLAS_DEF(pfx, T_, R_, K_, fam, stem, ifc)                          \
  SB_CAT(SB_CBLAS_IF_, ifc)(pfx, T_, R_, K_, fam, stem)

#define SB_CBLAS_IF_F(...)
#define SB_CBLAS_IF_FC(...) SB_CBLAS_ONE(__VA_ARGS__)
#define SB_CBLAS_IF_FCS(pfx, T_, R_, K_, fam, stem)                            \
  SB_CBLAS_ONE(pfx, T_, R_, K_, fam, stem)                                     \
  SB_CSUB_##fam(pfx, T_, R_, K_, stem)

#define SB_CBLAS_ONE(pfx, T_, R_, K_, fam, stem)                               \
  __attribute__((visibility("default"))) SB_CR_##fam(T_, R_)                   \
      cblas_##pfx##stem(SB_CP_##fam(T_, R_, K_))                               \
          SB_ENTRY_BODY(SB_CR_##fam(T_, R_), SB_PARAMS(SB_CP_##fam(T_, R_, K_)),\
                        SB_PARAMS(SB_CA_##fam), SB_CCK_##fam(&c_, T_, K_),     \
                        SB_CM_##fam(pfx, T_, R_), SB_RV_##fam,                 \
                        SB_OP_##pfx##stem, SB_OP_COUNT + SB_OP_##pfx##stem,    \
                        "cblas_" #pfx #stem)

/* the netlib form of the complex dot products: the result through a
 * pointer (cblas_zdotc_sub); the other FCS families have none */
#define SB_CSUB_dot(...)
#define SB_CSUB_sdsdot(...)
#define SB_CSUB_nrm2(...)
#define SB_CSUB_asum(...)
#define SB_CSUB_cabs1(...)
#define SB_CSUB_iamax(...)
#define SB_CSUB_dotu(pfx, T_, R_, K_, stem)                                    \
  __attribute__((visibility("default"))) void cblas_##pfx##stem##_sub(         \
      SB_CP_dotu(T_, R_, K_), void *result)                                    \
  {                                                                            \
    *(T_ *)result = cblas_##pfx##stem(SB_CA_dotu);                             \
  }
#define SB_CSUB_dotc SB_CSUB_dotu

#define SB_OP(...) SB_EXPAND_OP(SB_CBLAS_DEF, __VA_ARGS__)
#include "blas.def"
#undef SB_OP
