/*
 * test_fit.c -- the calibrator's fitting on synthetic data with known
 * coefficients: the means and the noise model come back, the term
 * selection keeps what matters, the quality figures are right.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>

#include "fit.h"

enum { T1 = 0, TN = 2, TMN = 3, TMNK = 7 };

static void close_to(double got, double want, double rel, const char *what)
{
  if (!(fabs(got - want) <= rel * fabs(want)))
    fail_msg("%s: got %.6g, want %.6g (+-%.0f%%)", what, got, want, 100 * rel);
}

/* a generator seeded with SEED (in *R) and N zeroed points */
static fit_point *new_points(gsl_rng **r, unsigned long seed, size_t n)
{
  *r = gsl_rng_alloc(gsl_rng_mt19937);
  gsl_rng_set(*r, seed);
  return calloc(n, sizeof(fit_point));
}

/* log-uniform in [lo, hi) */
static int64_t log_uniform(gsl_rng *r, double lo, double hi)
{
  return (int64_t)exp(log(lo) + gsl_rng_uniform(r) * log(hi / lo));
}

/* a gemm-like shape: m, n, k log-uniform in [16, 2048) */
static void draw_shape(gsl_rng *r, fit_point *p)
{
  p->m = log_uniform(r, 16, 2048);
  p->n = log_uniform(r, 16, 2048);
  p->k = log_uniform(r, 16, 2048);
}

/* points of a gemm-like op: R repetitions ~ N(mu, sigma), median and sd */
static fit_point *synth(gsl_rng *r, size_t n, const double mu[SB_NTERMS], const double sg[SB_NTERMS], int reps)
{
  fit_point *p = calloc(n, sizeof *p);
  double rep[16];
  for (size_t i = 0; i < n; i++) {
    draw_shape(r, &p[i]);
    double m = fit_predict(mu, p[i].m, p[i].n, p[i].k), s = fit_predict(sg, p[i].m, p[i].n, p[i].k);
    for (int j = 0; j < reps; j++)
      rep[j] = m + gsl_ran_gaussian(r, s);
    gsl_sort(rep, 1, (size_t)reps);
    p[i].t = gsl_stats_median_from_sorted_data(rep, 1, (size_t)reps);
    p[i].spread = gsl_stats_sd(rep, 1, (size_t)reps);
    p[i].reps = reps;
  }
  fit_holdout(p, n, 0.2, 42);
  return p;
}

static void test_recovers_gemm_coefficients_and_sigma(void **state)
{
  (void)state;
  gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
  gsl_rng_set(r, 7);
  double mu[SB_NTERMS] = {0}, sg[SB_NTERMS] = {0};
  mu[TMNK] = 2e-11;
  mu[TMN] = 4e-9;
  mu[T1] = 3e-6;
  sg[TMNK] = 6e-13; /* 3% of the flop term */
  sg[T1] = 4e-7;
  size_t n = 3000;
  fit_point *p = synth(r, n, mu, sg, 5);
  fit_result res;
  assert_int_equal(fit_op(SB_OP_dgemm, p, n, &res), 0);
  assert_true(res.ok);
  close_to(res.mu[TMNK], mu[TMNK], 0.01, "mu.mnk");
  close_to(res.mu[TMN], mu[TMN], 0.25, "mu.mn");
  assert_true(res.terms & (1u << TMNK));
  assert_true(res.has_sigma);
  close_to(res.sigma[TMNK], sg[TMNK], 0.15, "sigma.mnk");
  /* the noise is 3%: held-out median error near 3% * 0.67 / sqrt(5)... */
  assert_true(res.median_rel_err < 0.03);
  assert_true(res.r2 > 0.99);
  assert_true(res.n_heldout > 400 && res.n_heldout < 800);
  assert_true(res.scored_ge_1ms);
  free(p);
  gsl_rng_free(r);
}

static void test_level1_selects_latency_and_slope(void **state)
{
  (void)state;
  gsl_rng *r;
  size_t n = 800;
  fit_point *p = new_points(&r, 11, n);
  for (size_t i = 0; i < n; i++) {
    p[i].n = log_uniform(r, 16, 1e6);
    p[i].t = (2e-7 + 5e-10 * (double)p[i].n) * (1 + 0.01 * gsl_ran_gaussian(r, 1));
    p[i].reps = 1;
  }
  fit_holdout(p, n, 0.2, 3);
  fit_result res;
  assert_int_equal(fit_op(SB_OP_daxpy, p, n, &res), 0);
  close_to(res.mu[TN], 5e-10, 0.02, "mu.n");
  close_to(res.mu[T1], 2e-7, 0.10, "mu.1");
  assert_false(res.has_sigma); /* one repetition: no noise model */
  free(p);
  gsl_rng_free(r);
}

/* two regimes along the flop count, as OpenBLAS has between cache-bound
 * and compute-bound calls: fit_model must cut on mnk near the change
 * and predict both sides, where one polynomial cannot */
static void test_pieces_follow_a_regime_change(void **state)
{
  (void)state;
  gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
  gsl_rng_set(r, 11);
  size_t n = 3000;
  fit_point *p = calloc(n, sizeof *p);
  for (size_t i = 0; i < n; i++) {
    draw_shape(r, &p[i]);
    double f = (double)p[i].m * (double)p[i].n * (double)p[i].k;
    double t = f < 3e7 ? 5e-11 * f + 2e-6 : 2e-11 * f + 9e-4; /* continuous at 3e7 */
    p[i].t = t * (1 + 0.01 * gsl_ran_gaussian(r, 1));
    p[i].spread = 0.01 * t;
    p[i].reps = 5;
  }
  fit_holdout(p, n, 0.2, 42);
  fit_result one, res;
  assert_int_equal(fit_op(SB_OP_dgemm, p, n, &one), 0);
  assert_int_equal(fit_model(SB_OP_dgemm, p, n, &res), 0);
  assert_int_equal(res.split_dim, TMNK);
  assert_in_range(res.nsplit, 1, SB_MAX_PIECES - 1);
  int near = 0;
  for (int i = 0; i < res.nsplit; i++) {
    near |= res.hi[i].at >= 1e7 && res.hi[i].at <= 1e8;
    if (i)
      assert_true(res.hi[i].at > res.hi[i - 1].at);
  }
  assert_true(near);
  assert_true(res.median_rel_err < 0.02);
  assert_true(res.median_rel_err < one.median_rel_err - 0.005);
  close_to(fit_result_predict(&res, 100, 100, 100), 5e-11 * 1e6 + 2e-6, 0.03, "cache-bound side");
  close_to(fit_result_predict(&res, 1500, 1500, 1500), 2e-11 * 3.375e9 + 9e-4, 0.03, "compute-bound side");
  /* scaled (the calibrator's anchoring of dgemm to its reference speed):
   * every piece's mean and spread, so every prediction, times the factor;
   * the fit's quality figures as they were */
  fit_result s = res;
  fit_result_scale(&s, 0.9);
  for (int64_t d = 50; d <= 1600; d = d * 3 / 2) {
    close_to(fit_result_predict(&s, d, d, d), 0.9 * fit_result_predict(&res, d, d, d), 1e-12, "scaled");
    for (int i = 0; i < res.nsplit; i++)
      for (int t = 0; t < SB_NTERMS; t++)
        assert_true(s.hi[i].sigma[t] == 0.9 * res.hi[i].sigma[t]);
  }
  assert_true(s.median_rel_err == res.median_rel_err && s.nsplit == res.nsplit);
  free(p);
  gsl_rng_free(r);
}

/* a memory kernel measured at its design's leading dimension (the line)
 * and at smaller ones: the @ld factors are each level's measured / line,
 * ascending, 1 at the design's; a level with fewer than 3 calls is left
 * out */
static void test_ld_factors_recover_each_level(void **state)
{
  (void)state;
  gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
  gsl_rng_set(r, 5);
  const int64_t ref = 50000, lv[] = {3125, 6250, 12500, 25000, 777};
  const double want[] = {0.55, 0.6, 0.8, 0.95, 0.3};
  const int per[] = {40, 40, 40, 40, 2}; /* 777: too few calls */
  size_t n = 400, nl = 0;
  fit_point *p = calloc(n, sizeof *p), *lp = calloc(200, sizeof *lp);
  int64_t *lds = calloc(200, sizeof *lds);
  for (size_t i = 0; i < n; i++) {
    draw_shape(r, &p[i]);
    double t = 1e-8 * (double)p[i].m * (double)p[i].n + 5e-7 * (double)p[i].n + 2e-6;
    p[i].t = t * (1 + 0.01 * gsl_ran_gaussian(r, 1));
    p[i].spread = 0.01 * t;
    p[i].reps = 3;
  }
  fit_holdout(p, n, 0.2, 42);
  fit_result res;
  assert_int_equal(fit_model(SB_OP_hpl_dlaswp01T, p, n, &res), 0);
  for (int l = 0; l < 5; l++)
    for (int j = 0; j < per[l]; j++, nl++) {
      draw_shape(r, &lp[nl]);
      double t = fit_result_predict(&res, lp[nl].m, lp[nl].n, lp[nl].k) * want[l];
      lp[nl].t = t * (1 + 0.02 * gsl_ran_gaussian(r, 1));
      lds[nl] = lv[l];
    }
  assert_int_equal(fit_ld_factors(&res, lp, lds, nl, ref), 5);
  for (int l = 0; l < 4; l++) {
    assert_true(res.ld.at[l] == (double)lv[l]);
    close_to(res.ld.f[l], want[l], 0.02, "factor");
    assert_true(fabs(res.ld.g[l]) < 0.02); /* the same factor for every m */
  }
  assert_true(res.ld.at[4] == (double)ref && res.ld.f[4] == 1 && res.ld.g[4] == 0);
  /* a factor that follows m, F (m / 128)^G: F and G recovered at each
   * level; a level whose calls have nearly one m keeps one factor, the
   * median (G 0) */
  static const double wf[] = {0.4, 0.7, 0.9}, wg[] = {0.3, 0.15, 0.5};
  nl = 0;
  for (int l = 0; l < 4; l++)
    for (int j = 0; j < 40; j++, nl++) {
      draw_shape(r, &lp[nl]);
      if (l == 3)
        lp[nl].m = 200 + j % 3; /* one m, about */
      double f = l < 3 ? wf[l] * pow((double)lp[nl].m / 128, wg[l]) : 0.6;
      lp[nl].t = fit_result_predict(&res, lp[nl].m, lp[nl].n, lp[nl].k) * f * (1 + 0.02 * gsl_ran_gaussian(r, 1));
      lds[nl] = lv[l];
    }
  assert_int_equal(fit_ld_factors(&res, lp, lds, nl, ref), 5);
  for (int l = 0; l < 3; l++) {
    close_to(res.ld.f[l], wf[l], 0.03, "F");
    assert_true(fabs(res.ld.g[l] - wg[l]) < 0.02);
  }
  close_to(res.ld.f[3], 0.6, 0.02, "median factor");
  assert_true(res.ld.g[3] == 0);
  /* no calls at other leading dimensions: no factors */
  assert_int_equal(fit_ld_factors(&res, lp, lds, 0, ref), 0);
  assert_int_equal(res.ld.n, 0);
  free(p);
  free(lp);
  free(lds);
  gsl_rng_free(r);
}

/* dgemm's leading-dimension pairs: one factor per leading dimension, the
 * median of its ratios (an outlier does not move it); kept only when one
 * lies beyond the pairs' noise; none from a disturbed measure */
/* the pairs' median and its error from the MAD (the solo speeds' and the
 * @ld factors' noise rule) */
static void test_median_se(void **state)
{
  (void)state;
  double v[] = {1.10, 0.90, 1.00, 1.05, 0.95}, se = -1;
  assert_float_equal(fit_median_se(v, 5, &se), 1.00, 1e-12);
  assert_float_equal(se, 1.4826 * 0.05 / sqrt(5.0), 1e-12); /* deviations 0.1 0.1 0 0.05 0.05: MAD 0.05 */
  double w[] = {1.30, 1.02, 1.04}; /* an outlier moves neither */
  assert_float_equal(fit_median_se(w, 3, &se), 1.04, 1e-12);
  assert_float_equal(se, 1.4826 * 0.02 / sqrt(3.0), 1e-12);
  double one[] = {0.97};
  assert_float_equal(fit_median_se(one, 1, &se), 0.97, 1e-12);
  assert_float_equal(se, 0, 0);
}

static void test_ld_pairs_median_per_level(void **state)
{
  (void)state;
  fit_result res = {.ok = 1};
  const int64_t ref = 50272;
  int64_t ld[] = {6284, 6284, 6284, 6284, 12568, 12568, 12568, 12568, 25136, 25136, 3000, 99999};
  double ratio[] = {0.95, 0.94, 0.96, 1.60, 0.97, 0.98, 0.99, 0.97, 1.0, 0.99, 0.9, 0.5};
  /* 3000: one ratio, no level; 99999: above ref, no level */
  sb_ld_points said;
  assert_int_equal(fit_ld_pairs(&res, ratio, ld, 12, ref, &said), 4);
  assert_int_equal(said.n, 3); /* as measured, without the lld's */
  assert_true(res.ld.at[0] == 6284 && res.ld.at[1] == 12568 && res.ld.at[2] == 25136 && res.ld.at[3] == ref);
  close_to(res.ld.f[0], 0.955, 1e-9, "median of four, the outlier's side");
  close_to(res.ld.f[1], 0.975, 1e-9, "median of four");
  close_to(res.ld.f[2], 0.995, 1e-9, "median of two");
  assert_true(res.ld.f[3] == 1 && res.ld.g[0] == 0 && res.ld.g[3] == 0);
  /* the model applies them: 0.955 at 6284, 1 at ref and beyond, between in log(ld) */
  close_to(sb_model_ld_factor(&res.ld, 6284, 4000), 0.955, 1e-9, "at the level");
  close_to(sb_model_ld_factor(&res.ld, 4000, 4000), 0.955, 1e-9, "below the first level");
  close_to(sb_model_ld_factor(&res.ld, 80000, 4000), 1, 1e-12, "beyond the lld");
  /* every factor within the noise of 1: none */
  double flat[] = {1.01, 0.99, 1.015, 0.985};
  int64_t fl[] = {6284, 6284, 12568, 12568};
  assert_int_equal(fit_ld_pairs(&res, flat, fl, 4, ref, &said), 0);
  assert_true(said.n == 2 && fabs(said.f[0] - 1) < 1e-12 && fabs(said.f[1] - 1) < 1e-12);
  assert_int_equal(res.ld.n, 0);
  /* 3% from 1, but the ratios spread so that the median's noise is larger: none */
  double noisy[] = {0.88, 1.04, 0.95, 0.99};
  int64_t nl4[] = {12568, 12568, 12568, 12568};
  assert_int_equal(fit_ld_pairs(&res, noisy, nl4, 4, ref, &said), 0);
  close_to(said.f[0], 0.97, 1e-9, "measured, not kept");
  /* the same median from tight ratios: kept */
  double tight[] = {0.965, 0.97, 0.97, 0.975};
  assert_int_equal(fit_ld_pairs(&res, tight, nl4, 4, ref, NULL), 2);
  /* a factor outside 0.5-2: a disturbed measure, none */
  double wild[] = {0.95, 0.94, 2.5, 2.6};
  assert_int_equal(fit_ld_pairs(&res, wild, fl, 4, ref, NULL), 0);
  /* no line: nothing to scale */
  fit_result none = {.ok = 0};
  assert_int_equal(fit_ld_pairs(&none, ratio, ld, 12, ref, NULL), 0);
}

/* calls spread by 20% around their line (multiplicative, the mean on the
 * line): the fitted line must describe the calls' mean, which the
 * simulation adds up.  Weighted by each point's own measured time, the
 * line came out 4% low (the points measured fast weigh more) */
static void test_noisy_points_fit_their_mean(void **state)
{
  (void)state;
  gsl_rng *r;
  const double sd = 0.2;
  size_t n = 4000;
  fit_point *p = new_points(&r, 23, n);
  for (size_t i = 0; i < n; i++) {
    p[i].n = log_uniform(r, 1e3, 1e6);
    p[i].t = (2e-6 + 5e-10 * (double)p[i].n) * exp(sd * gsl_ran_gaussian(r, 1) - sd * sd / 2);
    p[i].reps = 1;
  }
  fit_holdout(p, n, 0.2, 3);
  fit_result res;
  assert_int_equal(fit_op(SB_OP_daxpy, p, n, &res), 0);
  double ratio = 0;
  for (size_t i = 0; i < n; i++)
    ratio += p[i].t / fit_result_predict(&res, p[i].m, p[i].n, p[i].k) / (double)n;
  close_to(ratio, 1, 0.01, "mean of measured / predicted");
  close_to(res.mu[TN], 5e-10, 0.02, "mu.n");
  free(p);
  gsl_rng_free(r);
}

/* a row mover whose cost per element falls with the rows moved per
 * column, as HPL's row swaps do (more rows share a line and a page):
 * fit_model cuts on m and predicts HPL's 128-row calls, which one line
 * in mn, n, m, 1 (or pieces along mn) misses */
static double rows_cost(int64_t m, int64_t n)
{
  double per = 14e-9 - 2.4e-9 * log2((double)m / 16); /* 14 ns at 16 rows, 4.4 at 2,048 */
  return 2e-6 + 1e-7 * (double)n + per * (double)m * (double)n;
}

static void test_memory_kernel_cuts_on_rows(void **state)
{
  (void)state;
  gsl_rng *r;
  size_t n = 3000;
  fit_point *p = new_points(&r, 29, n);
  for (size_t i = 0; i < n; i++) {
    p[i].m = log_uniform(r, 16, 2048);
    p[i].n = log_uniform(r, 8, 4096);
    double t = rows_cost(p[i].m, p[i].n);
    p[i].t = t * (1 + 0.02 * gsl_ran_gaussian(r, 1));
    p[i].spread = 0.02 * t;
    p[i].reps = 3;
  }
  fit_holdout(p, n, 0.2, 42);
  fit_result res;
  assert_int_equal(fit_model(SB_OP_hpl_dlaswp00N, p, n, &res), 0);
  assert_int_equal(res.split_dim, 1); /* m */
  for (int64_t cols = 128; cols <= 4096; cols *= 8)
    close_to(fit_result_predict(&res, 128, cols, 0), rows_cost(128, cols), 0.05, "128 rows");
  free(p);
  gsl_rng_free(r);
}

static void test_holdout_is_deterministic_and_about_a_fifth(void **state)
{
  (void)state;
  fit_point a[1000], b[1000];
  memset(a, 0, sizeof a);
  memset(b, 0, sizeof b);
  fit_holdout(a, 1000, 0.2, 99);
  fit_holdout(b, 1000, 0.2, 99);
  size_t held = 0;
  for (int i = 0; i < 1000; i++) {
    assert_int_equal(a[i].heldout, b[i].heldout);
    held += a[i].heldout;
  }
  assert_in_range(held, 160, 240);
}

static void test_too_few_points_fail(void **state)
{
  (void)state;
  fit_point p[2] = {{.m = 10, .n = 10, .k = 10, .t = 1e-5, .reps = 3}, {.m = 20, .n = 20, .k = 20, .t = 8e-5, .reps = 3}};
  fit_result res;
  assert_int_equal(fit_op(SB_OP_dgemm, p, 2, &res), -1);
  assert_false(res.ok);
}

static void test_call_time_takes_cpu_time_only_when_interrupted(void **state)
{
  (void)state;
  const double bias = 0.4e-6; /* the clock bracket's own CPU time */
  /* uninterrupted: wall time, even when the CPU clock reads a little
   * more or less than it (the bracket's noise) */
  assert_true(fit_call_time(1e-3, 1e-3 + bias + 2e-7, bias) == 1e-3);
  assert_true(fit_call_time(1e-3, 1e-3 + bias - 5e-6, bias) == 1e-3);
  assert_true(fit_call_time(3e-8, bias + 2e-8, bias) == 3e-8);
  /* a 4 ms time slice of another task inside a 1 ms call: the CPU time */
  close_to(fit_call_time(5e-3, 1e-3 + bias, bias), 1e-3, 1e-9, "interrupted 1 ms call");
  /* a short call interrupted for 30 us */
  close_to(fit_call_time(32e-6, 2e-6 + bias, bias), 2e-6, 1e-9, "interrupted 2 us call");
  /* the thresholds: 1% of wall above 10 us of difference */
  assert_true(fit_call_time(1.0, 0.995 + bias, bias) == 1.0);
  close_to(fit_call_time(1.0, 0.985 + bias, bias), 0.985, 1e-12, "1.5% stolen from a 1 s call");
  /* a CPU reading below the bias (clock noise) never gives zero */
  assert_true(fit_call_time(2e-5, bias / 2, bias) == 2e-5);
}

/* a call whose tries take the given wall times in turn */
typedef struct tries {
  const double *t;
  int n, made;
} tries;

static double next_try(void *ctx)
{
  tries *c = ctx;
  return c->t[c->made < c->n ? c->made++ : c->n - 1];
}

static void test_short_call_made_again_when_interrupted(void **state)
{
  (void)state;
  double first;
  /* not interrupted: one try */
  tries a = {(const double[]){3e-6}, 1, 0};
  assert_true(fit_short_time(next_try, &a, &first) == 3e-6);
  assert_true(first == 3e-6);
  assert_int_equal(a.made, 1);
  /* a 4 ms time slice inside the first try: made again, the clean time kept */
  tries b = {(const double[]){4e-3, 2.5e-6}, 2, 0};
  assert_true(fit_short_time(next_try, &b, &first) == 2.5e-6);
  assert_true(first == 4e-3);
  assert_int_equal(b.made, 2);
  /* just under the bound: kept */
  tries c = {(const double[]){FIT_SHORT_MAX * 0.99}, 1, 0};
  assert_true(fit_short_time(next_try, &c, &first) == FIT_SHORT_MAX * 0.99);
  assert_int_equal(c.made, 1);
  /* interrupted every time: FIT_SHORT_TRIES tries, the last kept */
  tries d = {(const double[]){1e-3, 2e-3, 3e-3, 4e-3, 5e-3}, 5, 0};
  assert_true(fit_short_time(next_try, &d, &first) == 4e-3);
  assert_int_equal(d.made, FIT_SHORT_TRIES);
}

static void test_first_group_stable_partition(void **state)
{
  (void)state;
  /* points 1, 4 and 5 are level 3: they go first, each group in the
   * shuffled order it had */
  const unsigned char lvl3[7] = {0, 1, 0, 0, 1, 1, 0};
  size_t order[7] = {6, 5, 0, 1, 3, 4, 2}, tmp[7];
  const size_t want[7] = {5, 1, 4, 6, 0, 3, 2};
  fit_first_group(order, 7, lvl3, tmp);
  for (int i = 0; i < 7; i++)
    assert_int_equal(order[i], want[i]);
  /* none or all in the first group: the order is kept */
  const unsigned char none[3] = {0, 0, 0}, all[3] = {1, 1, 1};
  size_t o2[3] = {2, 0, 1}, o3[3] = {1, 2, 0};
  fit_first_group(o2, 3, none, tmp);
  fit_first_group(o3, 3, all, tmp);
  assert_int_equal(o2[0], 2); assert_int_equal(o2[1], 0); assert_int_equal(o2[2], 1);
  assert_int_equal(o3[0], 1); assert_int_equal(o3[1], 2); assert_int_equal(o3[2], 0);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_recovers_gemm_coefficients_and_sigma),
      cmocka_unit_test(test_level1_selects_latency_and_slope),
      cmocka_unit_test(test_pieces_follow_a_regime_change),
      cmocka_unit_test(test_ld_factors_recover_each_level),
      cmocka_unit_test(test_median_se),
      cmocka_unit_test(test_ld_pairs_median_per_level),
      cmocka_unit_test(test_noisy_points_fit_their_mean),
      cmocka_unit_test(test_memory_kernel_cuts_on_rows),
      cmocka_unit_test(test_holdout_is_deterministic_and_about_a_fifth),
      cmocka_unit_test(test_too_few_points_fail),
      cmocka_unit_test(test_call_time_takes_cpu_time_only_when_interrupted),
      cmocka_unit_test(test_short_call_made_again_when_interrupted),
      cmocka_unit_test(test_first_group_stable_partition),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
