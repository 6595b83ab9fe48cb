/*
 * ops.c -- the op table (names = model-file keys, families, precision, the
 * row's focus, hermitian, figure and ld0 columns, and the family's facts: level, shape,
 * sides, flop count), generated from blas.def, kernels.def and the family
 * table in sb_call.h.  The flop count is the documented fallback for a
 * routine the model file lacks.
 */
#include <string.h>

#include "sb_call.h"

/* the swap column (NO, SW(a, b[, c, d]), HE(a, b)) as: to which routines
 * it applies, then two pairs of positions, 0 0 for no pair */
#define SB_RMS_NONE 0
#define SB_RMS_ALL 1
#define SB_RMS_HERM 2
#define SB_RMS_NO SB_RMS_NONE, 0, 0, 0, 0
#define SB_RMS_SW(...) SB_RMS_SW_(__VA_ARGS__, 0, 0, )
#define SB_RMS_SW_(a_, b_, c_, d_, ...) SB_RMS_ALL, a_, b_, c_, d_
#define SB_RMS_HE(a_, b_) SB_RMS_HERM, a_, b_, 0, 0
#define SB_X_RMS(f_, ...) SB_X_RMS_(f_, __VA_ARGS__)
#define SB_X_RMS_(f_, to_, a_, b_, c_, d_)                                     \
  SB_RMS_TO_OF_##f_ = to_, SB_RMS_A_OF_##f_ = a_, SB_RMS_B_OF_##f_ = b_,       \
  SB_RMS_C_OF_##f_ = c_, SB_RMS_D_OF_##f_ = d_

/* each family's columns as constants, for the initialisers below */
#define SB_X_FACTS(f_, level_, shape_, term_, coef_, swap_)                    \
  SB_LEVEL_OF_##f_ = SB_LEVEL_##level_, SB_SHAPE_OF_##f_ = SB_SHAPE_##shape_,  \
  SB_TERM_OF_##f_ = SB_TERM_##term_, SB_COEF_OF_##f_ = coef_,                  \
  SB_X_RMS(f_, SB_RMS_##swap_),
enum { SB_FAMILIES(SB_X_FACTS) };
#undef SB_X_FACTS

/* an op's row-major swap: its family's, if it applies to the routine */
#define SB_RMS_ON(f_, herm_)                                                   \
  (SB_RMS_TO_OF_##f_ == SB_RMS_ALL || (SB_RMS_TO_OF_##f_ == SB_RMS_HERM && (herm_)))
#define SB_RMS_POS(f_, herm_, p_) (SB_RMS_ON(f_, herm_) ? SB_RMS_##p_##_OF_##f_ : 0)
#define SB_X_RM_SWAP(f_, herm_)                                                \
  {SB_RMS_POS(f_, herm_, A), SB_RMS_POS(f_, herm_, B), SB_RMS_POS(f_, herm_, C), \
   SB_RMS_POS(f_, herm_, D)}

/* the columns an op takes from its family (its shape: the family's, or
 * kernels.def's for a memory kernel) */
#define SB_X_COLUMNS(f_, shape_, cplx_)                                        \
  .fam = SB_FAM_##f_, .cplx = (cplx_), .level = SB_LEVEL_OF_##f_,              \
  .shape = (shape_), .variants = (int)(shape_) == SB_SHAPE_SIDED ? 2 : 1,          \
  .flop_term = SB_TERM_OF_##f_, .flop_coef = SB_COEF_OF_##f_ * ((cplx_) ? 4 : 1)
#define SB_X_INFO(pfx_, T_, R_, K_, f_, stem_, ifc_, focus_, herm_, fig_, ld0_) \
  {.name = #pfx_ #stem_, .stem = #stem_, .dbl = sizeof(R_) == sizeof(double),  \
   SB_X_COLUMNS(f_, SB_SHAPE_OF_##f_, sizeof(T_) > sizeof(R_) || #K_[0] == 'C'), \
   .focus = sizeof(T_) == sizeof(double) && #K_[0] == 'R' ? SB_FOCUS(focus_) : SB_FOCUS_NONE, \
   .figure = sizeof(T_) == sizeof(double) && #K_[0] == 'R' ? SB_FIGURE(fig_) : 0, \
   .ld0 = SB_LD0(ld0_), .herm = SB_HERM(herm_), .prec_at = #pfx_[0] == 'i', .rm_swap = SB_X_RM_SWAP(f_, SB_HERM(herm_))},
#define SB_OP(...) SB_EXPAND_OP_COLUMNS(SB_X_INFO, __VA_ARGS__)
#define SB_LD_DEP_LDA 1
#define SB_LD_DEP_NONE 0
#define SB_KERNEL(name_, kind_, shape_, ld_, fig_)                             \
  [SB_OP_##name_] = {.name = #name_, .stem = #name_, .dbl = 1, SB_X_COLUMNS(memk, SB_SHAPE_##shape_, 0), \
                     .ld_dep = SB_LD_DEP_##ld_, .figure = SB_FIGURE(fig_)},
const sb_opinfo sb_ops[SB_OP_COUNT] = {
#include "blas.def"
#include "kernels.def"
};
#undef SB_OP
#undef SB_KERNEL

static const char *const fam_names[SB_FAM_COUNT] = {
#define SB_X_NAME(f, ...) #f,
    SB_FAMILIES(SB_X_NAME)
#undef SB_X_NAME
};

const char *sb_family_name(int fam) { return fam >= 0 && fam < SB_FAM_COUNT ? fam_names[fam] : "?"; }

int sb_op_lookup(const char *name)
{
  for (int i = 0; i < SB_OP_COUNT; i++)
    if (!strcmp(sb_ops[i].name, name))
      return i;
  return -1;
}

int sb_op_flop_term(int op, double *coef)
{
  *coef = sb_ops[op].flop_coef;
  return sb_ops[op].flop_term;
}

double sb_call_flops(const sb_call *c)
{
  double coef, m = (double)c->m, n = (double)c->n, k = (double)c->k;
  int t = sb_op_flop_term(c->op, &coef);
  return coef * (t & 1 ? m : 1) * (t & 2 ? n : 1) * (t & 4 ? k : 1);
}
