/*
 * test_netfit.c -- simblas-calibrate --network's fit (calibrator/netfit.c)
 * on synthetic ping-pong times from known segments: the segments, the
 * link and SMPI's factors come back.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "netfit.h"

static void close_to(double got, double want, double rel, const char *what)
{
  if (!(fabs(got - want) <= rel * fabs(want)))
    fail_msg("%s: got %.6g, want %.6g (+-%g%%)", what, got, want, 100 * rel);
}

/* three protocols, as a shared-memory MPI has: eager copies up to 4 KiB,
 * a slower second copy up to 64 KiB, single-copy rendezvous beyond */
static const double from[] = {0, 4096, 65536};
static const double lat[] = {0.4e-6, 1.5e-6, 9e-6};  /* s */
static const double bw[] = {1.5e9, 3e9, 8e9};       /* B/s */

/* the ping-pong's sizes (1 byte, four per octave, up to 8 MiB) and their
 * times from the segments, times (1 + noise x a deterministic wobble) */
static size_t synth(nf_point *p, double noise)
{
  size_t n = 0;
  uint64_t r = 88172645463325252ull;
  for (double s = 1; s <= 8 << 20; s *= 1.189207115002721) {
    double size = floor(s + 0.5);
    if (n && size == p[n - 1].size)
      continue;
    int g = size >= from[2] ? 2 : size >= from[1] ? 1 : 0;
    r ^= r << 13, r ^= r >> 7, r ^= r << 17;
    double u = (double)(r >> 11) / 9007199254740992.0 * 2 - 1; /* [-1, 1) */
    p[n].size = size;
    p[n++].t = (lat[g] + size / bw[g]) * (1 + noise * u);
  }
  return n;
}

static void check_recovered(const nf_fit *f, double rel)
{
  assert_int_equal(f->nseg, 3);
  close_to(f->latency, lat[0], rel, "link latency (the small messages')");
  close_to(f->bandwidth, bw[2], rel, "link bandwidth (the large messages')");
  for (int s = 0; s < 3; s++) {
    char what[64];
    snprintf(what, sizeof what, "segment %d's latency", s);
    close_to(f->seg[s].a, lat[s], s == 2 ? 4 * rel : rel, what); /* 9 us under 1 ms messages: loosely tied */
    snprintf(what, sizeof what, "segment %d's bandwidth", s);
    close_to(f->seg[s].b, bw[s], rel, what);
  }
}

/* the synthetic times (noise: their relative wobble) fitted as --network fits */
static size_t fit_synth(nf_point *p, double noise, nf_fit *f)
{
  size_t n = synth(p, noise);
  assert_int_equal(nf_fit_segments(p, n, 8, 4, f), 0);
  return n;
}

/* exact times: the cuts fall where the protocols change, the factors are
 * the ratios to the link's, written as SimGrid writes its defaults */
static void exact_times_give_the_segments_and_factors(void **state)
{
  (void)state;
  nf_point p[128];
  nf_fit f;
  size_t n = fit_synth(p, 0, &f);
  check_recovered(&f, 1e-6);
  /* a segment starts at its first measured size: 4096 and 65536 are sizes of the grid */
  assert_true(f.seg[1].from == 4096 && f.seg[2].from == 65536);
  assert_true(f.max_rel_err < 1e-6);
  char l[256], b[256], want[256];
  nf_lat_factor(&f, l, sizeof l);
  nf_bw_factor(&f, b, sizeof b);
  snprintf(want, sizeof want, "65536:%.6g;4096:%.6g;0:1", lat[2] / lat[0], lat[1] / lat[0]);
  assert_string_equal(l, want);
  snprintf(want, sizeof want, "65536:1;4096:%.6g;0:%.6g", bw[1] / bw[2], bw[0] / bw[2]);
  assert_string_equal(b, want);
  /* and SMPI's formula with those factors gives the times back */
  for (size_t i = 0; i < n; i++)
    close_to(nf_predict(&f, p[i].size), p[i].t, 1e-6, "predicted time");
}

/* 2% of noise: the same three segments, each parameter within 5% */
static void noisy_times_within_five_percent(void **state)
{
  (void)state;
  nf_point p[128];
  nf_fit f;
  fit_synth(p, 0.02, &f);
  check_recovered(&f, 0.05);
  assert_true(f.max_rel_err < 0.05 && f.median_rel_err < 0.02);
}

/* one straight line: one segment, factors of 1 */
static void one_protocol_one_segment(void **state)
{
  (void)state;
  nf_point p[40];
  for (int i = 0; i < 40; i++)
    p[i] = (nf_point){.size = ldexp(1, i / 2), .t = 2e-6 + ldexp(1, i / 2) / 1e9};
  for (int i = 1; i < 40; i++) /* strictly increasing sizes */
    p[i].size = p[i].size <= p[i - 1].size ? p[i - 1].size + 1 : p[i].size;
  for (int i = 0; i < 40; i++)
    p[i].t = 2e-6 + p[i].size / 1e9;
  nf_fit f;
  assert_int_equal(nf_fit_segments(p, 40, 8, 4, &f), 0);
  assert_int_equal(f.nseg, 1);
  char l[64], b[64];
  nf_lat_factor(&f, l, sizeof l);
  nf_bw_factor(&f, b, sizeof b);
  assert_string_equal(l, "0:1");
  assert_string_equal(b, "0:1");
}

/* a segment whose time does not grow with the size gets a bandwidth
 * factor of at most NF_MAX_BW_FACTOR, one whose line crosses zero a
 * latency factor of NF_MIN_LAT_FACTOR: SimGrid takes neither 0 nor inf */
static void flat_and_negative_segments_are_bounded(void **state)
{
  (void)state;
  nf_point p[48];
  for (int i = 0; i < 48; i++) {
    double s = 64.0 * (i + 1);
    p[i].size = i < 24 ? s : 1e5 * (i - 23);
    /* flat 1 us, then a line through -50 us at 1 GB/s */
    p[i].t = i < 24 ? 1e-6 : -50e-6 + p[i].size / 1e9;
  }
  nf_fit f;
  assert_int_equal(nf_fit_segments(p, 48, 8, 4, &f), 0);
  assert_int_equal(f.nseg, 2);
  close_to(f.seg[0].b / f.bandwidth, NF_MAX_BW_FACTOR, 1e-9, "the flat segment's bw-factor");
  close_to(f.seg[1].a / f.latency, NF_MIN_LAT_FACTOR, 1e-9, "the negative intercept's lat-factor");
  close_to(f.latency, 1e-6, 0.01, "the link latency");
}

static void bad_points_are_refused(void **state)
{
  (void)state;
  nf_point p[8];
  nf_fit f;
  for (int i = 0; i < 8; i++)
    p[i] = (nf_point){.size = i + 1, .t = 1e-6 * (i + 1)};
  assert_int_equal(nf_fit_segments(p, 3, 8, 4, &f), -1); /* fewer than a segment */
  p[5].t = 0;
  assert_int_equal(nf_fit_segments(p, 8, 8, 4, &f), -1); /* a time of 0 */
  p[5].t = 6e-6;
  p[6].size = p[5].size; /* sizes not increasing */
  assert_int_equal(nf_fit_segments(p, 8, 8, 4, &f), -1);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(exact_times_give_the_segments_and_factors),
      cmocka_unit_test(noisy_times_within_five_percent),
      cmocka_unit_test(one_protocol_one_segment),
      cmocka_unit_test(flat_and_negative_segments_are_bounded),
      cmocka_unit_test(bad_points_are_refused),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
