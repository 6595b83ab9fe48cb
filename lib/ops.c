/*
 * ops.c -- the op table (names = model-file keys, families, precision),
 * generated from blas.def, and each family's flop count, which is the
 * documented fallback for a routine the model file lacks.
 */
#include <string.h>

#include "sb_call.h"

#define SB_X_INFO(pfx, T_, R_, K_, fam, stem, ifc)                             \
  {#pfx #stem, #stem, SB_FAM_##fam, sizeof(T_) > sizeof(R_) || #K_[0] == 'C',   \
   sizeof(R_) == sizeof(double), 0},
#define SB_OP(...) SB_EXPAND_OP(SB_X_INFO, __VA_ARGS__)
#define SB_KERNEL(name, kind) [SB_OP_##name] = {#name, #name, SB_FAM_memk, 0, 1, 0},
const sb_opinfo sb_ops[SB_OP_COUNT] = {
#include "blas.def"
#include "kernels.def"
};
#undef SB_OP
#undef SB_KERNEL

static const char *const fam_names[SB_FAM_COUNT] = {
#define SB_X_NAME(f) #f,
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

/* flops of each family as one monomial of the canonical shape (terms as
 * in model.h: 2 = n, 3 = mn, 6 = nk, 7 = mnk), real arithmetic; complex
 * counts 4 times.  Approximate: a fallback and a nominal default model. */
#define T_N 2
#define T_MN 3
#define T_NK 6
#define T_MNK 7
static const struct { unsigned char term; unsigned char coef; } fam_flops[SB_FAM_COUNT] = {
    [SB_FAM_gemm] = {T_MNK, 2},  [SB_FAM_symm] = {T_MNK, 2},   [SB_FAM_syr2k] = {T_MNK, 2},
    [SB_FAM_her2k] = {T_MNK, 2}, [SB_FAM_gemmt] = {T_MNK, 1},  [SB_FAM_syrk] = {T_MNK, 1},
    [SB_FAM_herk] = {T_MNK, 1},  [SB_FAM_trmm] = {T_MNK, 1},   [SB_FAM_gemv] = {T_MN, 2},
    [SB_FAM_symv] = {T_MN, 2},   [SB_FAM_spmv] = {T_MN, 2},    [SB_FAM_ger] = {T_MN, 2},
    [SB_FAM_syr2] = {T_MN, 2},   [SB_FAM_spr2] = {T_MN, 2},    [SB_FAM_geadd] = {T_MN, 2},
    [SB_FAM_gbmv] = {T_NK, 2},   [SB_FAM_sbmv] = {T_NK, 2},    [SB_FAM_tbmv] = {T_NK, 1},
    [SB_FAM_trmv] = {T_MN, 1},   [SB_FAM_tpmv] = {T_MN, 1},    [SB_FAM_syr] = {T_MN, 1},
    [SB_FAM_spr] = {T_MN, 1},    [SB_FAM_omatcopy] = {T_MN, 1}, [SB_FAM_imatcopy] = {T_MN, 1},
    [SB_FAM_rot] = {T_N, 6},     [SB_FAM_rotm] = {T_N, 6},     [SB_FAM_axpy] = {T_N, 2},
    [SB_FAM_axpby] = {T_N, 3},   [SB_FAM_dot] = {T_N, 2},      [SB_FAM_sdsdot] = {T_N, 2},
    [SB_FAM_dotu] = {T_N, 2},    [SB_FAM_dotc] = {T_N, 2},     [SB_FAM_nrm2] = {T_N, 2},
    [SB_FAM_rotg] = {T_N, 10},   [SB_FAM_rotmg] = {T_N, 10},   [SB_FAM_cabs1] = {T_N, 2},
    [SB_FAM_scal] = {T_N, 1},    [SB_FAM_rscal] = {T_N, 1},    [SB_FAM_copy] = {T_N, 1},
    [SB_FAM_swap] = {T_N, 1},    [SB_FAM_asum] = {T_N, 1},     [SB_FAM_iamax] = {T_N, 1},
    [SB_FAM_rvalue] = {T_N, 1},  [SB_FAM_memk] = {T_MN, 1},
};

int sb_op_flop_term(int op, double *coef)
{
  int f = sb_ops[op].fam;
  *coef = (double)fam_flops[f].coef * (sb_ops[op].cplx ? 4 : 1);
  return fam_flops[f].term;
}

double sb_call_flops(const sb_call *c)
{
  double coef, m = (double)c->m, n = (double)c->n, k = (double)c->k;
  int t = sb_op_flop_term(c->op, &coef);
  return coef * (t & 1 ? m : 1) * (t & 2 ? n : 1) * (t & 4 ? k : 1);
}
