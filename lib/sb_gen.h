/*
 * sb_gen.h -- the generators that turn a blas.def row and its family
 * (families.h) into entry points.  Used by entry_f77.c and entry_cblas.c.
 */
#ifndef SB_GEN_H
#define SB_GEN_H

#include "families.h"
#include "sb_rt.h"

#define SB_CAT(a, b) SB_CAT_(a, b)
#define SB_CAT_(a, b) a##b

/* value-returning or not: SB_RV_<family> is VOID or VAL */
#define SB_RDECL_VOID(ty)
#define SB_RDECL_VAL(ty) ty r_ = 0;
#define SB_RSET_VOID
#define SB_RSET_VAL r_ =
#define SB_RRET_VOID
#define SB_RRET_VAL return r_;

/* One interface (Fortran or CBLAS) of one op: check, then either run the
 * backend's same-named symbol (passthrough, trace) or model the call. */
#define SB_ENTRY_BODY(RT, PARAMS, ARGS, CHECK, FAKE, rv, op_, slot, sym)       \
  {                                                                            \
    typedef RT (*fn_t)(PARAMS);                                                \
    sb_call c_ = {.op = op_, .iface = (slot) >= SB_OP_COUNT};                  \
    SB_CAT(SB_RDECL_, rv)(RT)                                                  \
    if (CHECK == SB_GO) {                                                      \
      if (sb_computes()) {                                                     \
        fn_t fn_ = (fn_t)sb_backend_sym(slot, sym);                            \
        double t0_ = sb_clock();                                               \
        SB_CAT(SB_RSET_, rv) fn_(ARGS);                                        \
        sb_measured(&c_, sb_clock() - t0_);                                    \
      } else {                                                                 \
        sb_model_call(&c_);                                                         \
        FAKE                                                                   \
      }                                                                        \
    }                                                                          \
    SB_CAT(SB_RRET_, rv)                                                       \
  }

#define SB_PARAMS(...) __VA_ARGS__

#endif
