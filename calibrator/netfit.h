/*
 * netfit.h -- SMPI's piecewise network model fitted on ping-pong times
 * (simblas-calibrate --network; doc/calibration.md, "The network").
 *
 * SMPI times a message of S bytes on a route of latency L and bandwidth B
 * as  L x lat-factor(S) + S / (B x bw-factor(S)),  each factor piecewise
 * constant in S (smpi/lat-factor, smpi/bw-factor: "size:factor;...", the
 * factor of the largest size <= S).  The fit: the sizes are cut into
 * segments (dynamic programming, the number of segments by BIC), in each
 * segment t = a + S / b by least squares on relative errors; the link's L
 * is the first segment's a and B the last segment's b, so that the
 * factors are a / L and b / B (1 for the smallest messages' latency and
 * the largest messages' bandwidth).  C and GSL, for test/test_netfit.c.
 */
#ifndef CAL_NETFIT_H
#define CAL_NETFIT_H

#include <stddef.h>

#define NF_MAX_SEG 12
#define NF_MAX_BW_FACTOR 100   /* a flat segment's bandwidth term: at most 1% of the link's time */
#define NF_MIN_LAT_FACTOR 1e-3 /* a segment whose intercept is <= 0 */

typedef struct {
  double size, t; /* bytes, one-way seconds */
} nf_point;

typedef struct {
  double from;      /* the segment's first size (its threshold; 0 for the first) */
  double a, b;      /* t = a + size / b: seconds, bytes/s */
  size_t first, n;  /* its points */
  double max_rel_err;
} nf_segment;

typedef struct {
  int nseg;
  nf_segment seg[NF_MAX_SEG];
  double latency, bandwidth; /* the link: the first segment's a, the last one's b */
  double median_rel_err, max_rel_err;
} nf_fit;

/* fit POINTS (sorted by increasing size, times > 0) with at most MAX_SEG
 * segments of at least MIN_POINTS points each: 0, or -1 (too few points,
 * or a time <= 0) */
int nf_fit_segments(const nf_point *p, size_t n, int max_seg, int min_points, nf_fit *out);
/* the fit's time for a message of SIZE bytes (as SMPI computes it) */
double nf_predict(const nf_fit *f, double size);
/* SMPI's lists: "size:factor;..." from the largest threshold down, as
 * SimGrid's defaults are written */
void nf_lat_factor(const nf_fit *f, char *buf, size_t len);
void nf_bw_factor(const nf_fit *f, char *buf, size_t len);

#endif
