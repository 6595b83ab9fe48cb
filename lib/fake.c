/*
 * fake.c -- what the modelling modes return where a BLAS routine returns
 * a value or writes scalars (doc/model-format.md, "Returned values"):
 * finite, deterministic, and never read from the caller's arrays.
 */
#include <math.h>

#include "sb_check.h"
#include "sb_rt.h"

#define SB_ROTG_FAKE(pfx, T_, R_)                                              \
  void sb_fake_rotg_##pfx(T_ *a, T_ *b, R_ *c, T_ *s)                          \
  {                                                                            \
    /* the identity rotation: r = a, c = 1, s = 0 */                           \
    if (!isfinite(creal(*a)) || !isfinite(cimag(*a)))                          \
      *a = 0;                                                                  \
    if (sizeof(T_) == sizeof(R_)) /* real: b returns z */                      \
      *b = 0;                                                                  \
    *c = 1;                                                                    \
    *s = 0;                                                                    \
  }
SB_ROTG_FAKE(s, float, float)
SB_ROTG_FAKE(d, double, double)
SB_ROTG_FAKE(c, sb_cf, float)
SB_ROTG_FAKE(z, sb_cd, double)

#define SB_ROTMG_FAKE(pfx, T_)                                                 \
  void sb_fake_rotmg_##pfx(T_ *d1, T_ *d2, T_ *x1, T_ *param)                 \
  {                                                                            \
    /* flag -2: H is the identity; keep d1, d2, x1 finite */                   \
    if (!isfinite(*d1)) *d1 = 1;                                               \
    if (!isfinite(*d2)) *d2 = 1;                                               \
    if (!isfinite(*x1)) *x1 = 0;                                               \
    param[0] = -2;                                                             \
  }
SB_ROTMG_FAKE(s, float)
SB_ROTMG_FAKE(d, double)

float sb_finite_f(float x) { return isfinite(x) ? x : 0; }

float sb_fake_cabs1_s(const sb_cf *z)
{
  float v = fabsf(crealf(*z)) + fabsf(cimagf(*z));
  return isfinite(v) ? v : 0;
}

double sb_fake_cabs1_d(const sb_cd *z)
{
  double v = fabs(creal(*z)) + fabs(cimag(*z));
  return isfinite(v) ? v : 0;
}

int64_t sb_fake_index(const sb_call *c)
{
  if (c->n <= 0)
    return 0;
  return 1 + (int64_t)(sb_rank_random() % (uint64_t)c->n);
}
