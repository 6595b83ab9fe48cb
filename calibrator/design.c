/*
 * design.c -- see design.h.  The shapes, their number and their share of
 * the time follow the op table: level 3 is measured most, and most of all
 * the routines where HPL's time goes (focus HPL).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "design.h"
#include "sb_splitmix.h"

static uint64_t rnd(uint64_t *s) { return sb_splitmix64(s); }
static double unif(uint64_t *s) { return (double)(rnd(s) >> 11) * 0x1p-53; }
static int64_t loguni(uint64_t *s, double lo, double hi)
{
  if (hi < lo)
    hi = lo;
  return (int64_t)llround(exp(log(lo) + unif(s) * (log(hi) - log(lo))));
}

const char *cal_key_name(int key, char *buf, size_t len)
{
  int op = key % SB_OP_COUNT;
  snprintf(buf, len, "%s%s", sb_ops[op].name, key >= SB_OP_COUNT ? SB_RIGHT_SUFFIX : "");
  return buf;
}

int64_t cal_design_maxdim(double max_call, double rate3)
{
  return (int64_t)fmin(4096, fmax(512, cbrt(max_call * rate3 / 2) * 2));
}

/* estimated seconds of one call */
static double estimate(const cal_design *d, int op, int64_t m, int64_t n, int64_t k)
{
  sb_call c = {.op = op, .m = m, .n = n, .k = k};
  double f = sb_call_flops(&c);
  /* HPL's row gathers run well below daxpy's streaming rate */
  double r = sb_ops[op].level == SB_LEVEL_3 ? d->rate3 : sb_ops[op].level == SB_LEVEL_M ? d->rate12 / 8 : d->rate12;
  return 2e-7 + f / r;
}

/* the largest size for which a call of op takes about max_call seconds */
static int64_t size_cap(const cal_design *d, int op, int dims)
{
  double coef;
  sb_op_flop_term(op, &coef);
  double rate = sb_ops[op].level == SB_LEVEL_3 ? d->rate3 : d->rate12;
  double s = pow(d->max_call * rate / coef, 1.0 / dims), maxdim = (double)d->maxdim;
  if (s > maxdim)
    s = maxdim;
  if (dims == 1 && s > maxdim * maxdim)
    s = maxdim * maxdim;
  return s < 16 ? 16 : (int64_t)s;
}

/* draw one shape for op, as its shape column says; half of the level-3
 * calls of HPL's kernels are HPL-shaped */
static void draw(const cal_design *d, int op, uint64_t *s, cal_point *p)
{
  const sb_opinfo *o = &sb_ops[op];
  static const int nbs[] = {64, 128, 256, 384, 512};
  const int64_t maxdim = d->maxdim;
  int64_t *m = &p->m, *n = &p->n, *k = &p->k;
  p->op = op;
  p->variant = 0;
  *m = *n = *k = 0;
  switch (o->shape) {
  case SB_SHAPE_SCALAR:
    *n = 1;
    return;
  case SB_SHAPE_VECTOR:
    *n = loguni(s, 16, (double)size_cap(d, op, 1));
    return;
  case SB_SHAPE_GEMM: case SB_SHAPE_SIDED: case SB_SHAPE_RANKK:
    break;
  default: { /* matrices of level 2 and memory kernels */
    int64_t cap = size_cap(d, op, 2);
    int square = o->shape == SB_SHAPE_SQUARE || o->shape == SB_SHAPE_SQBAND;
    *m = loguni(s, 8, (double)cap);
    *n = square ? *m : loguni(s, 8, (double)cap);
    if (o->shape == SB_SHAPE_INPLACE)
      *n = *m;
    if (o->shape == SB_SHAPE_BAND || o->shape == SB_SHAPE_SQBAND)
      *k = loguni(s, 2, fmin((double)*n, 256));
    if (o->shape == SB_SHAPE_MOVE2) { /* M0 rows one way, M1 the other */
      *k = loguni(s, 1, (double)*m);
      if (*m + *k > maxdim)
        *m = maxdim - *k;
    }
    return;
  }
  }
  int64_t cap = size_cap(d, op, 3), nb = nbs[rnd(s) % 5];
  int hpl = o->focus == SB_FOCUS_HPL && unif(s) < 0.5;
  switch (o->shape) {
  case SB_SHAPE_GEMM:
    if (hpl) { /* trailing update: k = NB; or a long thin panel */
      *k = nb;
      *m = loguni(s, (double)nb, (double)maxdim);
      *n = unif(s) < 0.3 ? nb : loguni(s, 8, (double)maxdim);
    } else {
      *m = loguni(s, 8, (double)cap);
      *n = loguni(s, 8, (double)cap);
      *k = loguni(s, 8, (double)cap);
    }
    break;
  case SB_SHAPE_SIDED:
    *m = hpl ? nb : loguni(s, 8, (double)cap);
    *n = loguni(s, 8, hpl ? (double)maxdim : (double)cap);
    p->variant = !hpl && unif(s) < 0.5; /* side: Left (k = m) or Right (k = n) */
    *k = p->variant ? *n : *m;
    break;
  default: /* rank-k updates, gemmt: n x n, inner k */
    *m = *n = loguni(s, 8, (double)cap);
    *k = loguni(s, 8, (double)cap);
    break;
  }
  /* keep every operand within the buffers */
  if (*m > maxdim) *m = maxdim;
  if (*n > maxdim) *n = maxdim;
  if (*k > maxdim) *k = maxdim;
}

/* share of the measuring time: the HPL level-3 kernels (96% of HPL's
 * time) most, then dsyrk, the other HPL kernels and the memory kernels,
 * level 3, level 2, level 1 */
static double weight(int op)
{
  const sb_opinfo *o = &sb_ops[op];
  if (o->focus == SB_FOCUS_HPL || o->level == SB_LEVEL_M)
    return o->level == SB_LEVEL_3 ? 0.14 : 0.006;
  if (o->focus == SB_FOCUS_LAPACK)
    return 0.05;
  return o->level == SB_LEVEL_3 ? 0.006 : o->level == SB_LEVEL_2 ? 0.0015 : 0.0006;
}

cal_point *cal_design_points(const cal_design *d, const int *ops, int nops, size_t *npts)
{
  double wsum = 0;
  for (int i = 0; i < nops; i++)
    wsum += weight(ops[i]);
  size_t cap = 1024, n = 0;
  cal_point *p = malloc(sizeof *p * cap);
  uint64_t s = d->seed;
  for (int i = 0; i < nops && p; i++) {
    int op = ops[i], l = sb_ops[op].level;
    double budget = d->budget * weight(op) / wsum, spent = 0;
    int count = 0, min_points = 16,
        max_points = (sb_ops[op].focus == SB_FOCUS_HPL ? 4 : 1) * (l == SB_LEVEL_3 ? 4000 : l == SB_LEVEL_1 ? 400 : 1000);
    while ((spent < budget || count < min_points) && count < max_points) {
      if (n == cap) {
        cal_point *q = realloc(p, sizeof *p * (cap *= 2));
        if (!q) {
          free(p);
          return NULL;
        }
        p = q;
      }
      draw(d, op, &s, &p[n]);
      p[n].est = estimate(d, op, p[n].m, p[n].n, p[n].k) * (d->reps + 1) + 2e-6;
      spent += p[n].est;
      n++;
      count++;
    }
  }
  *npts = n;
  return p;
}
