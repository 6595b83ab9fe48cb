/*
 * design.c -- see design.h.  The shapes, their number and their share of
 * the time follow the op table: level 3 is measured most, and most of all
 * the routines where HPL's time goes (focus HPL).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "calls.h"
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

/* an HPL-shaped call in HPL's layout, up to HPL's sizes: the trailing
 * update's dgemm (k = NB, m up to the local rows, n up to what a call of
 * about max_call seconds allows; a third of them n = NB, the look-ahead's
 * update of the next panel) in the 1xQ (NN) or PxQ (NT) form, and its
 * dtrsm, Left on the row panel (m = NB, 1xQ) or Right on U (n = NB, PxQ) */
static void draw_hpl(const cal_design *d, int op, int64_t nb, uint64_t *s, cal_point *p)
{
  const double flops = d->max_call * d->rate3, panel = 2.0 * (double)d->maxdim * (double)d->maxdim;
  p->layout = 1;
  p->form = (unsigned char)(rnd(s) & 1);
  if (sb_ops[op].shape == SB_SHAPE_GEMM) {
    p->k = nb;
    double mmax = fmin((double)(d->lld - nb), panel / (double)nb); /* L: m x k in a buffer */
    p->m = loguni(s, (double)nb, fmin(mmax, flops / (2.0 * (double)nb * (double)nb)));
    double nmax = fmin((double)d->lcols, fmin(panel / (double)nb, flops / (2.0 * (double)p->m * (double)nb)));
    p->n = unif(s) < 0.3 ? (int64_t)fmin((double)nb, nmax) : loguni(s, 8, nmax);
  } else if ((p->variant = (int)(rnd(s) & 1)) == 0) { /* Left: the row panel */
    p->m = p->k = nb;
    p->n = loguni(s, 8, fmin((double)d->lcols, flops / ((double)nb * (double)nb)));
  } else { /* Right: U, m x NB */
    p->n = p->k = nb;
    p->m = loguni(s, 8, fmin(panel / (double)nb, flops / ((double)nb * (double)nb)));
  }
}

/* draw one shape for op, as its shape column says; half of the level-3
 * calls of HPL's kernels are HPL-shaped */
static void draw(const cal_design *d, int op, uint64_t *s, cal_point *p)
{
  const sb_opinfo *o = &sb_ops[op];
  static const int nbs[] = {64, 128, 256, 384, 512};
  const int64_t maxdim = d->maxdim;
  int64_t *m = &p->m, *n = &p->n, *k = &p->k;
  *p = (cal_point){.op = op}; /* a reference call only when design says so (ref) */
  switch (o->shape) {
  case SB_SHAPE_SCALAR:
    *n = 1;
    return;
  case SB_SHAPE_VECTOR:
    *n = loguni(s, 16, (double)size_cap(d, op, 1));
    return;
  case SB_SHAPE_GEMM: case SB_SHAPE_SIDED: case SB_SHAPE_RANKK:
    break;
  default: { /* matrices of level 2 and memory kernels (n: columns of the local matrix) */
    int64_t cap = size_cap(d, op, 2);
    if (o->level == SB_LEVEL_M && cap > d->lcols)
      cap = d->lcols;
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
    /* half of a kernel's draws at the smaller leading dimensions, the
     * rows among fewer rows (cal_ld_level) */
    if (o->ld_dep && unif(s) < 0.5) {
      int64_t ld = cal_ld_level(d, (int)(rnd(s) % CAL_LD_LEVELS));
      if (ld) {
        p->ld = ld;
        if (*m + *k > ld)
          *m = ld - *k > 1 ? ld - *k : 1;
      }
    }
    return;
  }
  }
  int64_t cap = size_cap(d, op, 3), nb = nbs[rnd(s) % 5];
  int hpl = o->focus == SB_FOCUS_HPL && unif(s) < 0.5;
  if (hpl && d->hpl_layout && cal_hpl_layout(op)) { /* dgemm, dtrsm: in HPL's layout */
    draw_hpl(d, op, nb, s, p);
    return;
  }
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

int64_t cal_ld_level(const cal_design *d, int i)
{
  int64_t ld = d->lld >> (CAL_LD_LEVELS - i);
  return i >= 0 && i < CAL_LD_LEVELS && ld >= 64 ? ld : 0;
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

/* m = n of the reference calls in HPL's layout (k = 256): HPL's large
 * trailing update, as much of it as the local matrix holds; the ld pairs
 * and the solo pairs take it too */
static int64_t ref_mn(const cal_design *d)
{
  return (int64_t)fmin(4096, fmin((double)(d->lld - 256), (double)d->lcols));
}

/* p with room for point n (twice its capacity when full), or NULL (p freed) */
static cal_point *room(cal_point *p, size_t n, size_t *cap)
{
  if (n < *cap)
    return p;
  cal_point *q = realloc(p, sizeof *p * (*cap *= 2));
  if (!q)
    free(p);
  return q;
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
    while (!d->ref_only && (spent < budget || count < min_points) && count < max_points) {
      if (!(p = room(p, n, &cap)))
        return NULL;
      draw(d, op, &s, &p[n]);
      p[n].est = estimate(d, op, p[n].m, p[n].n, p[n].k) * (d->reps + 1) + 2e-6;
      spent += p[n].est;
      n++;
      count++;
    }
    /* the reference speed's calls: HPL's large trailing update, in its
     * layout, both forms, measured rather than extrapolated from the fit
     * (m = n = k = 4096 extrapolated gave 99.9 Gflop/s where such calls
     * ran at 88-91 on a Skylake-X VM, issue 23); packed: the largest
     * cube the buffers hold */
    if (op == sb_op_lookup("dgemm") && p)
      for (int r = 0; r < CAL_REF_CALLS; r++) {
        if (!(p = room(p, n, &cap)))
          return NULL;
        cal_point *c = &p[n++];
        *c = (cal_point){.op = op, .ref = 1};
        if (d->hpl_layout) {
          c->m = c->n = ref_mn(d);
          c->k = 256;
          c->layout = 1;
          c->form = (unsigned char)(r & 1);
        } else
          c->m = c->n = c->k = d->maxdim;
        if (d->ref_m) { /* a model's own shape (simblas-calibrate --reference-speed MODEL) */
          c->m = d->ref_m;
          c->n = d->ref_n;
          c->k = d->ref_k;
        }
        c->est = estimate(d, op, c->m, c->n, c->k) * (d->reps + 1) + 2e-6;
      }
    /* dgemm's leading-dimension pairs (design.h): the reference calls'
     * shape, as much of it as the smaller leading dimension holds */
    if (op == sb_op_lookup("dgemm") && p && d->ld_rounds > 0 && d->hpl_layout && !d->ref_only)
      for (int i = 0; i < CAL_LD_PAIRS; i++)
        for (int form = 0; form < 2; form++) {
          int64_t ld = d->lld >> CAL_LD_PAIR_SHIFT(i), k = 256, mn = ref_mn(d);
          if (mn > ld - k)
            mn = ld - k;
          if (mn < k)
            continue;
          for (int h = 0; h < 2; h++) {
            if (!(p = room(p, n, &cap)))
              return NULL;
            cal_point *c = &p[n++];
            *c = (cal_point){.op = op, .m = mn, .n = mn, .k = k, .layout = 1, .form = (unsigned char)form,
                             .pair = (unsigned char)(h + 1), .ld = h ? ld : 0};
            c->est = estimate(d, op, c->m, c->n, c->k) * d->ld_rounds + 2e-6;
          }
        }
    /* the solo pairs (design.h): dgemm at the reference calls' m and n
     * with k = 128, HPL's default NB, and HPL's row interchanges */
    int solo_mem = op == sb_op_lookup("hpl_dlaswp00N");
    if ((op == sb_op_lookup("dgemm") || solo_mem) && p && d->solo_rounds > 0 && d->ncores > 1 && d->hpl_layout &&
        !d->ref_only) {
      if (!(p = room(p, n, &cap)))
        return NULL;
      cal_point *c = &p[n++];
      if (solo_mem)
        *c = (cal_point){.op = op, .m = CAL_SOLO_ROWS, .n = (int64_t)fmin(CAL_SOLO_COLS, (double)d->lcols), .solo = 1};
      else
        *c = (cal_point){.op = op, .m = ref_mn(d), .n = ref_mn(d), .k = 128, .layout = 1, .solo = 1};
      /* each round: two states, each its lead-in and its timed window */
      c->est = 2 * (CAL_SOLO_LEAD + CAL_SOLO_WINDOW) * d->solo_rounds;
    }
  }
  *npts = n;
  return p;
}
