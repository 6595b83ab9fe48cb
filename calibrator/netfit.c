/*
 * netfit.c -- SMPI's piecewise network model fitted on ping-pong times
 * (netfit.h).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>

#include "netfit.h"

/* weighted sums of points [i, j) with weights 1/t^2: least squares on
 * relative errors, so that a 1 us message counts as much as a 1 ms one */
typedef struct {
  double w, ws, wss, wt, wst;
} sums;

static sums sum_range(const nf_point *p, size_t i, size_t j)
{
  sums s = {0};
  for (size_t k = i; k < j; k++) {
    double w = 1 / (p[k].t * p[k].t);
    s.w += w;
    s.ws += w * p[k].size;
    s.wss += w * p[k].size * p[k].size;
    s.wt += w * p[k].t;
    s.wst += w * p[k].size * p[k].t;
  }
  return s;
}

/* t = a + c size on [i, j): a and c, unconstrained */
static void line(const nf_point *p, size_t i, size_t j, double *a, double *c)
{
  sums s = sum_range(p, i, j);
  double det = s.w * s.wss - s.ws * s.ws;
  *c = det > 0 ? (s.w * s.wst - s.ws * s.wt) / det : 0;
  *a = (s.wt - *c * s.ws) / s.w;
}

/* the sum of squared relative residuals of a line on [i, j) */
static double cost(const nf_point *p, size_t i, size_t j, double a, double c)
{
  double r = 0;
  for (size_t k = i; k < j; k++) {
    double e = (p[k].t - a - c * p[k].size) / p[k].t;
    r += e * e;
  }
  return r;
}

/* the best cut of the points into K segments, for every K up to max_seg
 * (dynamic programming); the K of least BIC (3 parameters a segment: a,
 * b and where it starts); its segments' bounds in cut[0..K] */
static int best_cut(const nf_point *p, size_t n, int max_seg, size_t mp, size_t *cut)
{
  double *seg_cost = malloc(sizeof *seg_cost * (n + 1) * (n + 1));
  double *best = malloc(sizeof *best * (size_t)(max_seg + 1) * (n + 1));
  size_t *from = malloc(sizeof *from * (size_t)(max_seg + 1) * (n + 1));
  int chosen = -1;
  if (!seg_cost || !best || !from)
    goto out;
  for (size_t i = 0; i < n; i++)
    for (size_t j = i + mp; j <= n; j++) {
      double a, c;
      line(p, i, j, &a, &c);
      seg_cost[i * (n + 1) + j] = cost(p, i, j, a, c);
    }
  for (size_t k = 0; k <= (size_t)max_seg; k++)
    for (size_t j = 0; j <= n; j++)
      best[k * (n + 1) + j] = k == 0 && j == 0 ? 0 : INFINITY;
  double best_bic = INFINITY;
  for (int k = 1; k <= max_seg; k++) {
    for (size_t j = mp * (size_t)k; j <= n; j++)
      for (size_t i = mp * (size_t)(k - 1); i + mp <= j; i++) {
        double c = best[(size_t)(k - 1) * (n + 1) + i] + seg_cost[i * (n + 1) + j];
        if (c < best[(size_t)k * (n + 1) + j]) {
          best[(size_t)k * (n + 1) + j] = c;
          from[(size_t)k * (n + 1) + j] = i;
        }
      }
    double rss = best[(size_t)k * (n + 1) + n];
    if (!isfinite(rss))
      break;
    /* a floor of 1e-6 relative error a point: exact (synthetic) data do
     * not make log(0), and below that the clock cannot tell */
    double bic = (double)n * log(fmax(rss, (double)n * 1e-12) / (double)n) + 3.0 * k * log((double)n);
    if (bic < best_bic - 1e-9) {
      best_bic = bic;
      chosen = k;
    }
  }
  if (chosen > 0) {
    cut[chosen] = n;
    for (int k = chosen; k > 0; k--)
      cut[k - 1] = from[(size_t)k * (n + 1) + cut[k]];
  }
out:
  free(seg_cost);
  free(best);
  free(from);
  return chosen;
}

int nf_fit_segments(const nf_point *p, size_t n, int max_seg, int min_points, nf_fit *out)
{
  memset(out, 0, sizeof *out);
  if (max_seg < 1 || max_seg > NF_MAX_SEG || min_points < 2 || n < (size_t)min_points)
    return -1;
  for (size_t i = 0; i < n; i++)
    if (!(p[i].t > 0) || !(p[i].size >= 0) || (i && p[i].size <= p[i - 1].size))
      return -1;
  size_t cut[NF_MAX_SEG + 1];
  int k = best_cut(p, n, max_seg, (size_t)min_points, cut);
  if (k < 1)
    return -1;
  double c[NF_MAX_SEG];
  out->nseg = k;
  for (int s = 0; s < k; s++) {
    nf_segment *g = &out->seg[s];
    g->first = cut[s];
    g->n = cut[s + 1] - cut[s];
    g->from = s ? p[cut[s]].size : 0;
    line(p, cut[s], cut[s + 1], &g->a, &c[s]);
  }
  /* the link: the smallest messages' latency, the largest messages'
   * bandwidth (else the steepest segment's) */
  double cmin = INFINITY;
  for (int s = 0; s < k; s++)
    if (c[s] > 0)
      cmin = fmin(cmin, c[s]);
  if (!isfinite(cmin))
    return -1; /* no segment grows with the size: no bandwidth to fit */
  out->bandwidth = c[k - 1] > 0 ? 1 / c[k - 1] : 1 / cmin;
  out->latency = out->seg[0].a > 0 ? out->seg[0].a : p[0].t;
  /* factors SimGrid takes (> 0): a flat segment keeps a bandwidth term of
   * at most 1/NF_MAX_BW_FACTOR of the link's, a segment whose line
   * crosses zero a small latency; each refitted with the other fixed */
  double cfloor = 1 / (NF_MAX_BW_FACTOR * out->bandwidth), afloor = NF_MIN_LAT_FACTOR * out->latency;
  for (int s = 0; s < k; s++) {
    nf_segment *g = &out->seg[s];
    sums m = sum_range(p, g->first, g->first + g->n);
    if (c[s] < cfloor) {
      c[s] = cfloor;
      g->a = (m.wt - c[s] * m.ws) / m.w;
    }
    if (g->a < afloor) {
      g->a = afloor;
      c[s] = fmax(cfloor, (m.wst - g->a * m.ws) / m.wss);
    }
    g->b = 1 / c[s];
  }
  /* quality: the relative error of every point */
  double *e = malloc(sizeof *e * n);
  if (!e)
    return -1;
  for (int s = 0; s < k; s++) {
    nf_segment *g = &out->seg[s];
    for (size_t i = g->first; i < g->first + g->n; i++) {
      e[i] = fabs(g->a + p[i].size / g->b - p[i].t) / p[i].t;
      g->max_rel_err = fmax(g->max_rel_err, e[i]);
      out->max_rel_err = fmax(out->max_rel_err, e[i]);
    }
  }
  gsl_sort(e, 1, n); /* as fit.c's quality figures */
  out->median_rel_err = gsl_stats_median_from_sorted_data(e, 1, n);
  free(e);
  return 0;
}

static const nf_segment *segment_of(const nf_fit *f, double size)
{
  int s = f->nseg - 1;
  while (s > 0 && size < f->seg[s].from)
    s--;
  return &f->seg[s];
}

double nf_predict(const nf_fit *f, double size)
{
  const nf_segment *g = segment_of(f, size);
  return f->latency * (g->a / f->latency) + size / (f->bandwidth * (g->b / f->bandwidth));
}

static void factors(const nf_fit *f, int bw, char *buf, size_t len)
{
  size_t at = 0;
  buf[0] = 0;
  for (int s = f->nseg - 1; s >= 0 && at < len; s--) {
    const nf_segment *g = &f->seg[s];
    double v = bw ? g->b / f->bandwidth : g->a / f->latency;
    int w = snprintf(buf + at, len - at, "%s%.0f:%.6g", s == f->nseg - 1 ? "" : ";", g->from, v);
    at += w > 0 ? (size_t)w : 0;
  }
}

void nf_lat_factor(const nf_fit *f, char *buf, size_t len) { factors(f, 0, buf, len); }
void nf_bw_factor(const nf_fit *f, char *buf, size_t len) { factors(f, 1, buf, len); }
