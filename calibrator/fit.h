/*
 * fit.h -- fitting of SimBLAS's linear models (GSL least squares), term
 * selection on held-out error, the residual (sigma) model and the quality
 * figures.  No BLAS timing here: testable on synthetic data.
 */
#ifndef SB_FIT_H
#define SB_FIT_H

#include <stddef.h>
#include <stdint.h>

#include "model.h"

typedef struct fit_point {
  int64_t m, n, k;
  double t;        /* median of the repetitions, seconds         */
  double spread;   /* sample standard deviation of repetitions   */
  int reps;        /* how many repetitions (>= 2 for a spread)   */
  unsigned char heldout;
} fit_point;

typedef struct fit_result {
  int ok;
  unsigned terms;             /* bit t set: term t (model.h) is used */
  double mu[SB_NTERMS];
  double sigma[SB_NTERMS];
  int has_sigma;
  size_t n, n_heldout, n_scored; /* n_scored: held-out points used for the errors */
  int scored_ge_1ms;          /* the errors are over held-out calls >= 1 ms */
  double r2;                  /* on the held-out points */
  double median_rel_err, p95_rel_err;
  double train[SB_NTERMS];    /* the training fit the figures score */
  /* more pieces, along one term: piece i (hi[i]) covers the calls whose
   * term split_dim (an index into sb_term_names: 1 m, 2 n, 4 k, 3 mn,
   * 7 mnk) is >= hi[i].at (ascending bounds; the largest matching bound
   * wins, as libsimblas reads "dgemm[mnk>=1e+08]" lines); the fields
   * above are the piece below hi[0].at.  nsplit 0: one piece */
  int split_dim, nsplit;
  struct fit_piece {
    double at;
    unsigned terms;
    double mu[SB_NTERMS], sigma[SB_NTERMS], train[SB_NTERMS];
    int has_sigma;
  } hi[SB_MAX_PIECES - 1];
  /* the "@ld" factors (model.h), fit_ld_factors's; ld.n 0: none */
  sb_ld_points ld;
} fit_result;

/* Candidate term sets for an op (model.h bit masks), by its shape in the
 * op table, simplest first; returns how many. */
size_t fit_candidates(int op, unsigned out[8]);

/* One timed call's duration.  `wall` is its monotonic-clock time; `cpu`
 * the thread's CPU time across a bracket around it whose own cost, with
 * nothing inside, is `bias`.  When wall time exceeds CPU time by more than
 * FIT_STOLEN_ABS + FIT_STOLEN_REL x wall, another task took the core
 * during the call (a loaded machine), and its CPU time is the call's time,
 * as SMPI times computation in passthrough mode; otherwise the wall
 * time, which is exact to tens of nanoseconds. */
#define FIT_STOLEN_ABS 10e-6
#define FIT_STOLEN_REL 0.01
double fit_call_time(double wall, double cpu, double bias);

/* The CPU clock is a system call, and one just before a short call slows
 * it: quick calibrations with it measured level-1 calls of n = 16-256
 * 10-30% slower (some 20-60 ns) than without.  So only the calls whose
 * warm-up took FIT_BRACKET_MIN or more are bracketed by it (there its
 * cost is under 0.5%); a shorter call is timed by the wall clock alone,
 * and one that took more than FIT_SHORT_MAX -- a preemption lasts longer,
 * the call itself should not -- was interrupted, and is made again (up to
 * three times). */
#define FIT_BRACKET_MIN 20e-6
#define FIT_SHORT_MAX 50e-6
#define FIT_SHORT_TRIES 4
/* A short call's time: CALL(CTX) makes the call once and returns its wall
 * time; a try over FIT_SHORT_MAX is made again, FIT_SHORT_TRIES tries in
 * all.  Returns the last try's time; *FIRST gets the first's (over
 * FIT_SHORT_MAX: the call was interrupted). */
double fit_short_time(double (*call)(void *), void *ctx, double *first);

/* Reorder ORDER[0..n) so that the entries i with FIRST[ORDER[i]] nonzero
 * come first, each group keeping its order (a stable partition; TMP holds
 * n entries).  The calibrator runs each pass's level-3 points first. */
void fit_first_group(size_t *order, size_t n, const unsigned char *first, size_t *tmp);

/* Mark about `fraction` of the points held out (seeded, deterministic). */
void fit_holdout(fit_point *p, size_t n, double fraction, uint64_t seed);

/* Fit mu = sum c_t term_t by least squares weighted for relative error
 * (above 100 us; absolute below),
 * for each candidate; keep the one with the lowest held-out median
 * relative error (ties: fewer terms); refit it on all points; fit sigma
 * (the run-to-run standard deviation of one call) on the repetitions'
 * standard deviations, corrected for small-sample bias; compute the
 * quality figures.  Returns 0 or -1. */
int fit_op(int op, const fit_point *p, size_t n, fit_result *out);

/* fit_op, then for level-3 families and memory kernels also piecewise
 * models along one term (m, n, k or mnk at BLAS block and size bounds;
 * mn at cache sizes for memory kernels): bounds are added greedily, one
 * at a time, up to SB_MAX_PIECES pieces, each while it lowers the
 * held-out median relative error by 0.1 point or more, each piece with
 * at least a tenth of the points and fitted as fit_op does.  The best
 * piecewise model is kept when it beats one piece by half a point or
 * more.  OpenBLAS's kernels change regime at its block sizes and between
 * cache-bound and compute-bound calls, which one polynomial cannot
 * follow. */
int fit_model(int op, const fit_point *p, size_t n, fit_result *out);

/* The "@ld" factors of a kernel whose time depends on a leading
 * dimension (kernels.def's ld column), r fitted on its calls at ref_ld:
 * p[i] measured at leading dimension ld[i] < ref_ld; at each leading
 * dimension with 3 calls or more, the ratio measured / r's prediction as
 * F (m / SB_LD_M0)^G (model.h): least squares of log ratio on log m when
 * the level has 8 calls or more whose m spans a factor of 4 or more (G
 * within +-SB_LD_MAX_G), else G = 0 and F the median ratio; and 1 at
 * ref_ld; into r->ld, ascending (ld.n 0 when no level has 3 calls).
 * Returns r->ld.n. */
int fit_ld_factors(fit_result *r, const fit_point *p, const int64_t *ld, size_t n, int64_t ref_ld);

/* The "@ld" factors of dgemm from its leading-dimension pairs (design.h):
 * ratio[i] the time at ld[i] < ref_ld over the same call's at ref_ld,
 * measured side by side.  At each leading dimension with 2 ratios or
 * more, F the median ratio (G = 0: the pairs have one shape), and 1 at
 * ref_ld; into r->ld, ascending.  None is kept unless a factor lies
 * FIT_PAIRS_NOISE or more from 1 and twice its median's standard
 * error (1.4826 MAD / sqrt(ratios)) or more: no effect the pairs can
 * tell from their noise (on the Zen 5 VM, 2026-11-29, dgemm calibrations
 * gave 0.991-1.010 with 11 rounds, 0.974-0.998 with 3), nor when one lies outside
 * 0.5-2 (a disturbed measure).  *measured (when not NULL): the factors
 * as measured, kept or not (without ref_ld's).  Returns r->ld.n (0: none). */
#define FIT_PAIRS_NOISE 0.02
/* the median of v[0..n) (sorted in place, then overwritten) and, into
 * *se, its standard error from the median absolute deviation, 1.4826 MAD
 * / sqrt(n): what the pairs' factors (dgemm's @ld, the solo speeds) are
 * told from their noise with */
double fit_median_se(double *v, size_t n, double *se);
int fit_ld_pairs(fit_result *r, const double *ratio, const int64_t *ld, size_t n, int64_t ref_ld,
                 sb_ld_points *measured);

/* the prediction of a fitted result (pieces included) */
double fit_result_predict(const fit_result *r, int64_t m, int64_t n, int64_t k);

/* every coefficient of r's mean and spread, its pieces' included, times f
 * (the quality figures and the training fit stay the fit's) */
void fit_result_scale(fit_result *r, double f);

/* One weighted least-squares fit of the given terms (exposed for tests). */
int fit_terms(unsigned terms, const fit_point *p, size_t n, int use_heldout, double coef[SB_NTERMS]);

double fit_predict(const double coef[SB_NTERMS], int64_t m, int64_t n, int64_t k);

#endif
