/*
 * fit.c -- see fit.h.  Least squares with GSL (gsl_multifit_wlinear);
 * weights 1/t^2 make the fit minimise relative, not absolute, error, so
 * that microsecond calls count as much as second-long ones.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_multifit.h>
#include <gsl/gsl_sf_gamma.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>

#include "fit.h"
#include "sb_splitmix.h"

/* fewer points than this are not fitted (the op keeps the fallback) */
#define FIT_MIN_POINTS 8

/* Weights are 1/max(t, t0)^2: relative error for calls longer than t0,
 * absolute error below, so that noise on short calls cannot pull the fit
 * away from the calls that make up a run: t0 = 100 us for level 3 (HPL's
 * time is in its long dgemm and dtrsm calls), 1 us for the rest (their
 * calls are short; the timer resolves about 20 ns). */
static _Thread_local double fit_t0 = 1e-4;
/* reweight wls by its own line (not for level 3): set by fit_op for its op */
static _Thread_local int fit_reweight = 1;
static double t0_for(int op) { return sb_ops[op].level == SB_LEVEL_3 ? 1e-4 : 1e-6; }

enum { T1 = 1u << 0, TM = 1u << 1, TN = 1u << 2, TMN = 1u << 3, TK = 1u << 4, TMK = 1u << 5, TNK = 1u << 6, TMNK = 1u << 7 };

/* the candidate term sets of each shape (the op table's shape column),
 * simplest first, ending at 0 */
#define FIT_LEVEL3 {TMNK, TMNK | T1, TMNK | TMN | T1, TMNK | TMN | TMK | TNK | T1, 0xff /* collinear ones dropped */}
#define FIT_MATRIX {TMN | T1, TMN | TM | TN | T1, TMN}
#define FIT_BAND {TNK | T1, TNK | TN | T1, TNK | TMN | TN | T1}
/* m x n moved; HPL_dlaswp04*: (m + k) x n */
#define FIT_MOVE {TMN | T1, TMN | TM | TN | T1, TMN | TNK | T1, TMN | TNK | TM | TN | T1}
static const unsigned candidates[][6] = {
    [SB_SHAPE_SCALAR] = {T1},        [SB_SHAPE_VECTOR] = {TN | T1, TN},
    [SB_SHAPE_GENERAL] = FIT_MATRIX, [SB_SHAPE_SQUARE] = FIT_MATRIX,  [SB_SHAPE_INPLACE] = FIT_MATRIX,
    [SB_SHAPE_BAND] = FIT_BAND,      [SB_SHAPE_SQBAND] = FIT_BAND,
    [SB_SHAPE_GEMM] = FIT_LEVEL3,    [SB_SHAPE_SIDED] = FIT_LEVEL3,   [SB_SHAPE_RANKK] = FIT_LEVEL3,
    [SB_SHAPE_MOVE] = FIT_MOVE,      [SB_SHAPE_MOVE2] = FIT_MOVE,
};

size_t fit_candidates(int op, unsigned out[8])
{
  const unsigned *c = candidates[sb_ops[op].shape];
  size_t n = 0;
  while (n < sizeof candidates[0] / sizeof *c && c[n])
    out[n] = c[n], n++;
  return n;
}

double fit_call_time(double wall, double cpu, double bias)
{
  double used = cpu - bias;
  if (used > 0 && wall - used > FIT_STOLEN_ABS + FIT_STOLEN_REL * wall)
    return used;
  return wall;
}

void fit_first_group(size_t *order, size_t n, const unsigned char *first, size_t *tmp)
{
  size_t k = 0;
  for (size_t i = 0; i < n; i++)
    if (first[order[i]])
      tmp[k++] = order[i];
  for (size_t i = 0; i < n; i++)
    if (!first[order[i]])
      tmp[k++] = order[i];
  memcpy(order, tmp, n * sizeof *order);
}

double fit_short_time(double (*call)(void *), void *ctx, double *first)
{
  double t = call(ctx);
  *first = t;
  for (int a = 1; a < FIT_SHORT_TRIES && t > FIT_SHORT_MAX; a++)
    t = call(ctx);
  return t;
}

void fit_holdout(fit_point *p, size_t n, double fraction, uint64_t seed)
{
  for (size_t i = 0; i < n; i++)
    p[i].heldout = (double)(sb_splitmix64(&seed) >> 11) * 0x1p-53 < fraction;
}

static void term_values(int64_t m64, int64_t n64, int64_t k64, double v[SB_NTERMS])
{
  double m = (double)m64, n = (double)n64, k = (double)k64;
  for (int t = 0; t < SB_NTERMS; t++)
    v[t] = (t & 1 ? m : 1) * (t & 2 ? n : 1) * (t & 4 ? k : 1);
}

double fit_predict(const double coef[SB_NTERMS], int64_t m, int64_t n, int64_t k)
{
  double v[SB_NTERMS], t = 0;
  term_values(m, n, k, v);
  for (int i = 0; i < SB_NTERMS; i++)
    t += coef[i] * v[i];
  return t > 0 ? t : 0;
}

/* wls's passes: the first weighted by the measured times, the others by
 * the line of the pass before (on a quick calibration's row swaps, the
 * second pass moved the coefficients by 20%, the third by 0.3%, a fourth
 * by under 0.01%) */
#define FIT_REWEIGHT_PASSES 3

/* weighted least squares of y on the chosen terms; which: 0 training
 * points, 1 all points; absolute: fit the spreads instead of the times */
static int wls(unsigned terms, const fit_point *p, size_t n, int all, int spreads, const double *mu_for_weight,
               double coef[SB_NTERMS])
{
  int idx[SB_NTERMS], nt = 0;
  size_t rows = 0;
  for (size_t i = 0; i < n; i++)
    if (all || !p[i].heldout)
      rows++;
  /* drop a term that is 0 on every point, or equal to an earlier one on
   * every point (for trsm, k = m makes nk the same column as mn): its
   * coefficient is not identifiable */
  for (int t = 0; t < SB_NTERMS; t++) {
    if (!(terms & (1u << t)))
      continue;
    int dup = 1;
    for (size_t i = 0; i < n && dup; i++) {
      double v[SB_NTERMS];
      term_values(p[i].m, p[i].n, p[i].k, v);
      dup = v[t] == 0;
    }
    for (int j = 0; j < nt && !dup; j++) {
      dup = 1;
      for (size_t i = 0; i < n && dup; i++) {
        double v[SB_NTERMS];
        term_values(p[i].m, p[i].n, p[i].k, v);
        dup = v[t] == v[idx[j]];
      }
    }
    if (!dup)
      idx[nt++] = t;
  }
  memset(coef, 0, sizeof(double) * SB_NTERMS);
  if (nt == 0 || rows < (size_t)nt)
    return -1;
  gsl_matrix *X = gsl_matrix_alloc(rows, (size_t)nt);
  gsl_vector *y = gsl_vector_alloc(rows), *w = gsl_vector_alloc(rows), *c = gsl_vector_alloc((size_t)nt);
  gsl_matrix *cov = gsl_matrix_alloc((size_t)nt, (size_t)nt);
  gsl_multifit_linear_workspace *ws = gsl_multifit_linear_alloc(rows, (size_t)nt);
  /* relative errors: each point weighted by 1 / its time squared.  The
   * time its own measurement gave would favour the points that came out
   * fast (a call measured low weighs more than one measured high) and put
   * the line below the points' means by about their spread squared: for
   * the row swaps, whose calls spread by 15-20%, the points (each the mean
   * of its repetitions) lay 2.8% above their line on average (AMD EPYC
   * VM, a quick calibration at leading dimension 12,000).  So the weights
   * are taken again from the line's own prediction (iteratively
   * reweighted least squares), the first pass's from the measured times.
   * Not for level 3 (fit_reweight): their calls spread by a few percent,
   * so the bias is a tenth of a point, while a line misses some shapes by
   * more (OpenBLAS's regimes), and weighting a shape by a line that misses
   * it 2-3 times gives it 4-9 times its weight: refitted from HPL's traced
   * calls (N=12000 1x2), dgemm's total came out +4.7% off reweighted,
   * +0.5% weighted by the measured times; daxpy, idamax and dger -1.2%,
   * -1.1% and +4.3% reweighted, -9.6%, -17.3% and -25.3% not */
  int rc = 0, passes = mu_for_weight || spreads || !fit_reweight ? 1 : FIT_REWEIGHT_PASSES;
  for (int pass = 0; pass < passes && rc == 0; pass++) {
    size_t r = 0;
    for (size_t i = 0; i < n; i++) {
      if (!(all || !p[i].heldout))
        continue;
      double v[SB_NTERMS];
      term_values(p[i].m, p[i].n, p[i].k, v);
      for (int j = 0; j < nt; j++)
        gsl_matrix_set(X, r, (size_t)j, v[idx[j]]);
      double yi = spreads ? p[i].spread : p[i].t;
      double scale = mu_for_weight ? mu_for_weight[i] : pass ? fit_predict(coef, p[i].m, p[i].n, p[i].k) : p[i].t;
      if (!(scale > fit_t0))
        scale = fit_t0;
      gsl_vector_set(y, r, yi);
      gsl_vector_set(w, r, 1 / (scale * scale));
      r++;
    }
    double chisq;
    rc = gsl_multifit_wlinear(X, w, y, c, cov, &chisq, ws);
    for (int j = 0; j < nt; j++)
      coef[idx[j]] = gsl_vector_get(c, (size_t)j);
  }
  gsl_multifit_linear_free(ws);
  gsl_matrix_free(cov);
  gsl_vector_free(c);
  gsl_vector_free(w);
  gsl_vector_free(y);
  gsl_matrix_free(X);
  for (int t = 0; t < SB_NTERMS; t++)
    if (!isfinite(coef[t]))
      return -1;
  return rc ? -1 : 0;
}

int fit_terms(unsigned terms, const fit_point *p, size_t n, int use_heldout, double coef[SB_NTERMS])
{
  return wls(terms, p, n, use_heldout, 0, NULL, coef);
}

/* the value of term t at a shape */
static double dimval(int t, int64_t m, int64_t n, int64_t k)
{
  return (t & 1 ? (double)m : 1) * (t & 2 ? (double)n : 1) * (t & 4 ? (double)k : 1);
}

/* a piecewise predictor: coef[i] applies from bound at[i - 1] on (at[-1]
 * = 0) of term dim; nb bounds, nb + 1 pieces */
typedef struct pwise {
  int dim, nb;
  double at[SB_MAX_PIECES - 1];
  const double *coef[SB_MAX_PIECES];
} pwise;

static int piece_of(const pwise *w, int64_t m, int64_t n, int64_t k)
{
  double v = dimval(w->dim, m, n, k);
  int i = 0;
  while (i < w->nb && v >= w->at[i])
    i++;
  return i;
}

/* held-out quality of a predictor: median and p95 relative error over
 * held-out calls >= 1 ms when at least 5 are, else over all held-out
 * calls; R^2 over all held-out calls */
static double score(const pwise *w, const fit_point *p, size_t n, fit_result *q)
{
  size_t cnt = 0, big = 0;
  for (size_t i = 0; i < n; i++)
    if (p[i].heldout) {
      cnt++;
      big += p[i].t >= 1e-3;
    }
  int ge1ms = big >= 5;
  double *e = malloc(sizeof *e * (cnt ? cnt : 1));
  size_t ne = 0;
  double ybar = 0, ssr = 0, sst = 0;
  for (size_t i = 0; i < n; i++)
    if (p[i].heldout)
      ybar += p[i].t / (double)cnt;
  for (size_t i = 0; i < n; i++) {
    if (!p[i].heldout)
      continue;
    double pred = fit_predict(w->coef[piece_of(w, p[i].m, p[i].n, p[i].k)], p[i].m, p[i].n, p[i].k);
    ssr += (p[i].t - pred) * (p[i].t - pred);
    sst += (p[i].t - ybar) * (p[i].t - ybar);
    if (!ge1ms || p[i].t >= 1e-3)
      e[ne++] = fabs(pred - p[i].t) / p[i].t;
  }
  double med = INFINITY;
  if (ne) {
    gsl_sort(e, 1, ne);
    med = gsl_stats_median_from_sorted_data(e, 1, ne);
    if (q) {
      q->median_rel_err = med;
      q->p95_rel_err = gsl_stats_quantile_from_sorted_data(e, 1, ne, 0.95);
      q->n_scored = ne;
      q->scored_ge_1ms = ge1ms;
      q->r2 = sst > 0 ? 1 - ssr / sst : 1;
      q->n_heldout = cnt;
    }
  }
  free(e);
  return med;
}

static double heldout_errors(const double coef[SB_NTERMS], const fit_point *p, size_t n, fit_result *q)
{
  pwise w = {.dim = 1, .nb = 0, .coef = {coef}};
  return score(&w, p, n, q);
}

int fit_op(int op, const fit_point *p, size_t n, fit_result *out)
{
  memset(out, 0, sizeof *out);
  out->n = n;
  fit_t0 = t0_for(op);
  fit_reweight = sb_ops[op].level != SB_LEVEL_3;
  if (n < FIT_MIN_POINTS)
    return -1;
  unsigned cand[8];
  size_t nc = fit_candidates(op, cand);
  double best = INFINITY;
  unsigned best_terms = 0;
  for (size_t c = 0; c < nc; c++) {
    double coef[SB_NTERMS];
    if (wls(cand[c], p, n, 0, 0, NULL, coef) != 0)
      continue;
    double e = heldout_errors(coef, p, n, NULL);
    /* a richer set must do clearly better (1% of relative error) */
    if (best_terms == 0 || e < best - 0.01) {
      best = e;
      best_terms = cand[c];
    }
  }
  if (!best_terms)
    return -1;
  wls(best_terms, p, n, 0, 0, NULL, out->train);
  heldout_errors(out->train, p, n, out); /* quality: training fit on held-out points */
  out->terms = best_terms;
  if (wls(best_terms, p, n, 1, 0, NULL, out->mu) != 0)
    return -1;
  for (int t = 0; t < SB_NTERMS; t++) /* drop what wls dropped */
    if (out->mu[t] == 0)
      out->terms &= ~(1u << t);
  if (!out->terms)
    out->terms = 1; /* a constant, even if 0 */
  /* sigma: the sample standard deviation s of r repetitions has mean
   * c4(r) sigma; fit sigma on s / c4(r), weighted by the mean */
  fit_point *q = malloc(sizeof *q * n);
  double *mu = malloc(sizeof *mu * n);
  size_t nq = 0;
  for (size_t i = 0; i < n; i++) {
    if (p[i].reps < 2)
      continue;
    double r = p[i].reps;
    double c4 = sqrt(2 / (r - 1)) * exp(gsl_sf_lngamma(r / 2) - gsl_sf_lngamma((r - 1) / 2));
    q[nq] = p[i];
    q[nq].spread = p[i].spread / c4;
    mu[nq] = fit_predict(out->mu, p[i].m, p[i].n, p[i].k);
    nq++;
  }
  if (nq > 0 && wls(best_terms, q, nq, 1, 1, mu, out->sigma) == 0)
    out->has_sigma = 1;
  free(q);
  free(mu);
  out->ok = 1;
  return 0;
}

double fit_result_predict(const fit_result *r, int64_t m, int64_t n, int64_t k)
{
  const double *c = r->mu;
  for (int i = 0; i < r->nsplit; i++)
    if (dimval(r->split_dim, m, n, k) >= r->hi[i].at)
      c = r->hi[i].mu;
  return fit_predict(c, m, n, k);
}

void fit_result_scale(fit_result *r, double f)
{
  for (int t = 0; t < SB_NTERMS; t++) {
    r->mu[t] *= f;
    r->sigma[t] *= f;
    for (int i = 0; i < r->nsplit; i++) {
      r->hi[i].mu[t] *= f;
      r->hi[i].sigma[t] *= f;
    }
  }
}

/* the smallest leading dimension of ld[0..n) above prev and below ref_ld (0: none) */
static int64_t next_level(const int64_t *ld, size_t n, int64_t prev, int64_t ref_ld)
{
  int64_t at = 0;
  for (size_t i = 0; i < n; i++)
    if (ld[i] > prev && ld[i] < ref_ld && (!at || ld[i] < at))
      at = ld[i];
  return at;
}

/* r's @ld points closed by factor 1 at ref_ld (when it has any); their count */
static int close_levels(fit_result *r, int64_t ref_ld)
{
  if (r->ld.n) {
    r->ld.at[r->ld.n] = (double)ref_ld;
    r->ld.g[r->ld.n] = 0;
    r->ld.f[r->ld.n++] = 1;
  }
  return r->ld.n;
}

int fit_ld_factors(fit_result *r, const fit_point *p, const int64_t *ld, size_t n, int64_t ref_ld)
{
  r->ld.n = 0;
  if (!r->ok || ref_ld <= 0)
    return 0;
  double *ratio = malloc(sizeof *ratio * (n ? n : 1) * 2);
  if (!ratio)
    return 0;
  double *lm = ratio + (n ? n : 1); /* log(m / M0) of each ratio */
  int64_t prev = 0;
  while (r->ld.n < SB_MAX_LD - 1) {
    int64_t at = next_level(ld, n, prev, ref_ld);
    if (!at)
      break;
    size_t c = 0;
    double mlo = INFINITY, mhi = 0;
    for (size_t i = 0; i < n; i++) {
      double pr = ld[i] == at ? fit_result_predict(r, p[i].m, p[i].n, p[i].k) : 0;
      if (pr > 0 && p[i].t > 0) {
        double m = p[i].m > 1 ? (double)p[i].m : 1;
        lm[c] = log(m / SB_LD_M0);
        ratio[c++] = p[i].t / pr;
        mlo = fmin(mlo, m), mhi = fmax(mhi, m);
      }
    }
    if (c >= 3) {
      /* the factor follows m at one level: one factor per level left the
       * row movers' calls at 0.4-0.7 of it at m = 8 and 1.3-2.1 at m >=
       * 512 below lld/4 (bench/ld-levels, Zen 5 VM, 2026-11-28) */
      double f = 0, g = 0;
      if (c >= 8 && mhi >= 4 * mlo) {
        double sx = 0, sy = 0, sxx = 0, sxy = 0;
        for (size_t i = 0; i < c; i++) {
          double y = log(ratio[i]);
          sx += lm[i], sy += y, sxx += lm[i] * lm[i], sxy += lm[i] * y;
        }
        double den = (double)c * sxx - sx * sx;
        if (den > 0) {
          g = ((double)c * sxy - sx * sy) / den;
          g = fmax(-SB_LD_MAX_G, fmin(SB_LD_MAX_G, g));
          f = exp((sy - g * sx) / (double)c);
        }
      }
      if (!(f > 0) || !isfinite(f) || f > 1e6) { /* one factor: the median */
        gsl_sort(ratio, 1, c);
        f = gsl_stats_median_from_sorted_data(ratio, 1, c);
        g = 0;
      }
      r->ld.at[r->ld.n] = (double)at;
      r->ld.g[r->ld.n] = g;
      r->ld.f[r->ld.n++] = f;
    }
    prev = at;
  }
  free(ratio);
  return close_levels(r, ref_ld);
}

double fit_median_se(double *v, size_t n, double *se)
{
  gsl_sort(v, 1, n);
  double f = gsl_stats_median_from_sorted_data(v, 1, n);
  for (size_t i = 0; i < n; i++)
    v[i] = fabs(v[i] - f);
  gsl_sort(v, 1, n);
  *se = 1.4826 * gsl_stats_median_from_sorted_data(v, 1, n) / sqrt((double)n);
  return f;
}

int fit_ld_pairs(fit_result *r, const double *ratio, const int64_t *ld, size_t n, int64_t ref_ld, sb_ld_points *measured)
{
  r->ld.n = 0;
  if (!r->ok || ref_ld <= 0 || !n)
    return 0;
  double *v = malloc(sizeof *v * n);
  if (!v)
    return 0;
  int64_t prev = 0;
  int bad = 0, effect = 0; /* effect: a factor beyond the pairs' noise */
  while (r->ld.n < SB_MAX_LD - 1) {
    int64_t at = next_level(ld, n, prev, ref_ld);
    if (!at)
      break;
    size_t c = 0;
    for (size_t i = 0; i < n; i++)
      if (ld[i] == at && ratio[i] > 0 && isfinite(ratio[i]))
        v[c++] = ratio[i];
    if (c >= 2) {
      double se, f = fit_median_se(v, c, &se);
      bad |= !(f >= 0.5 && f <= 2);
      effect |= fabs(f - 1) > FIT_PAIRS_NOISE && fabs(f - 1) > 2 * se;
      r->ld.at[r->ld.n] = (double)at;
      r->ld.g[r->ld.n] = 0;
      r->ld.f[r->ld.n++] = f;
    }
    prev = at;
  }
  free(v);
  if (measured)
    *measured = r->ld;
  if (bad || !effect)
    r->ld.n = 0;
  return close_levels(r, ref_ld);
}

/* fit the pieces of the bounds at[0..nb-1] (ascending) on term dim; -1
 * when a piece has fewer than `need` points or does not fit */
static int fit_pieces(int op, int dim, const double *at, int nb, const fit_point *p, size_t n, size_t need,
                      fit_point *buf, fit_result *res)
{
  pwise w = {.dim = dim, .nb = nb};
  if (nb > 0)
    memcpy(w.at, at, sizeof(double) * (size_t)nb);
  for (int pc = 0; pc <= nb; pc++) {
    size_t c = 0;
    for (size_t i = 0; i < n; i++)
      if (piece_of(&w, p[i].m, p[i].n, p[i].k) == pc)
        buf[c++] = p[i];
    if (c < need || fit_op(op, buf, c, &res[pc]) != 0)
      return -1;
  }
  return 0;
}

static double score_pieces(int dim, const double *at, int nb, const fit_result *res, const fit_point *p, size_t n,
                           fit_result *q)
{
  pwise w = {.dim = dim, .nb = nb};
  for (int i = 0; i <= nb; i++) {
    if (i < nb)
      w.at[i] = at[i];
    w.coef[i] = res[i].train;
  }
  return score(&w, p, n, q);
}

/* cross-validated error of the pieces at[0..nb-1] on term dim: the
 * training points (not the held-out ones, kept for the quality figures)
 * in FIT_FOLDS folds, each fold scored by the pieces fitted on the others;
 * the mean of the folds' median relative errors.  One held-out draw is too
 * noisy to choose between cutting on m and on mnk: they differ by tenths
 * of a point there, and by a point on shapes the calibrator never drew
 * (bench/trace-accuracy.sh). */
#define FIT_FOLDS 4
static double cv_score(int op, int dim, const double *at, int nb, fit_point *cv, const unsigned char *fold,
                       size_t m, size_t need, fit_point *buf)
{
  double sum = 0;
  for (int f = 0; f < FIT_FOLDS; f++) {
    for (size_t i = 0; i < m; i++)
      cv[i].heldout = fold[i] == f;
    fit_result res[SB_MAX_PIECES];
    if (fit_pieces(op, dim, at, nb, cv, m, need * (FIT_FOLDS - 1) / FIT_FOLDS, buf, res) != 0)
      return INFINITY;
    double e = score_pieces(dim, at, nb, res, cv, m, NULL);
    if (!isfinite(e))
      return INFINITY;
    sum += e;
  }
  return sum / FIT_FOLDS;
}

int fit_model(int op, const fit_point *p, size_t n, fit_result *out)
{
  if (fit_op(op, p, n, out) != 0)
    return -1;
  int memk = sb_ops[op].level == SB_LEVEL_M; /* memory movement: in cache or not */
  if (sb_ops[op].level != SB_LEVEL_3 && !memk)
    return 0;
  /* where to cut: m, n or k near BLAS blocking sizes, or the flop count
   * mnk between cache-bound and compute-bound calls, for level 3; the
   * number of elements moved (mn) near cache sizes for memory kernels */
  enum { NB = 8 };
  static const double dims3[NB] = {64, 128, 256, 384, 512, 768, 1024, 2048};
  static const double flops3[NB] = {1e5, 1e6, 3e6, 1e7, 3e7, 1e8, 3e8, 1e9};
  static const double cache[NB] = {4096, 16384, 65536, 262144, 1048576, 4194304, 16777216, 67108864};
  /* and the rows moved per column (m): a row mover's cost per element
   * falls with them, from 14 to 4.5 ns between 16 and 1,024 rows (AMD
   * EPYC VM, hpl_dlaswp00N at leading dimension 12,000), as more of them
   * share a cache line and a page; one line in mn, n, m cannot follow
   * that, and predicted HPL's 128-row swaps 10-25% fast */
  static const double rows[NB] = {8, 16, 32, 64, 128, 256, 512, 1024};
  static const int terms3[] = {1, 2, 4, 7}, termsm[] = {3, 1};
  const int *tl = memk ? termsm : terms3;
  int ntl = memk ? 2 : 4;
  size_t need = n / 10 > 40 ? n / 10 : 40;
  fit_point *buf = malloc(sizeof *buf * n), *cv = malloc(sizeof *cv * n);
  unsigned char *fold = malloc(n);
  /* the training points (the held-out ones stay for the quality figures)
   * and their folds, drawn once */
  size_t m = 0;
  uint64_t seed = 0x5EEDF01Dull;
  for (size_t i = 0; i < n; i++)
    if (!p[i].heldout) {
      cv[m] = p[i];
      fold[m++] = (unsigned char)(sb_splitmix64(&seed) % FIT_FOLDS);
    }
  double one = cv_score(op, 1, NULL, 0, cv, fold, m, need, buf);
  double best_score = one - 0.005, best_at[SB_MAX_PIECES - 1];
  int best_dim = -1, best_nb = 0;
  for (int ti = 0; ti < ntl; ti++) {
    int d = tl[ti];
    /* a term equal to an earlier one everywhere (syrk: m = n) adds nothing */
    int same = ti > 0 && d != 7;
    for (size_t i = 0; i < n && same; i++)
      same = dimval(d, p[i].m, p[i].n, p[i].k) == dimval(tl[ti - 1], p[i].m, p[i].n, p[i].k) ||
             (d == 4 && p[i].k == p[i].m);
    if (same)
      continue;
    const double *bounds = memk ? (d == 3 ? cache : rows) : d == 7 ? flops3 : dims3;
    double at[SB_MAX_PIECES - 1], cur_score = one;
    int nb = 0;
    /* greedy: add the bound that helps most, while one helps */
    while (nb < SB_MAX_PIECES - 1) {
      double step_score = cur_score - 0.001, step_at[SB_MAX_PIECES - 1];
      int found = 0;
      for (int b = 0; b < NB; b++) {
        double tat[SB_MAX_PIECES - 1];
        int tn = 0, dup = 0;
        for (int i = 0; i < nb; i++)
          dup |= at[i] == bounds[b];
        if (dup)
          continue;
        for (int i = 0; i < nb; i++) /* insert in order */
          tat[tn++] = at[i];
        tat[tn++] = bounds[b];
        for (int i = tn - 1; i > 0 && tat[i] < tat[i - 1]; i--) {
          double t = tat[i];
          tat[i] = tat[i - 1];
          tat[i - 1] = t;
        }
        double e = cv_score(op, d, tat, tn, cv, fold, m, need, buf);
        if (e < step_score) {
          step_score = e;
          memcpy(step_at, tat, sizeof tat);
          found = 1;
        }
      }
      if (!found)
        break;
      nb++;
      memcpy(at, step_at, sizeof at);
      cur_score = step_score;
      if (cur_score < best_score) {
        best_score = cur_score;
        best_dim = d;
        best_nb = nb;
        memcpy(best_at, at, sizeof at);
      }
    }
  }
  fit_result best[SB_MAX_PIECES];
  if (best_dim >= 0 && fit_pieces(op, best_dim, best_at, best_nb, p, n, need, buf, best) != 0)
    best_dim = -1;
  if (best_dim >= 0) {
    size_t whole = out->n;
    *out = best[0];
    out->n = whole;
    out->split_dim = best_dim;
    out->nsplit = best_nb;
    for (int i = 0; i < best_nb; i++) {
      struct fit_piece *h = &out->hi[i];
      h->at = best_at[i];
      h->terms = best[i + 1].terms;
      memcpy(h->mu, best[i + 1].mu, sizeof h->mu);
      memcpy(h->sigma, best[i + 1].sigma, sizeof h->sigma);
      memcpy(h->train, best[i + 1].train, sizeof h->train);
      h->has_sigma = best[i + 1].has_sigma;
    }
    score_pieces(best_dim, best_at, best_nb, best, p, n, out);
  }
  free(buf);
  free(cv);
  free(fold);
  return 0;
}
