/*
 * measure.h -- timing a design on the machine: one pinned worker per core,
 * all at once, each point warmed up then timed in interleaved passes; the
 * probe that sizes the design; the signals that stop it.  What to time is
 * the design's (design.h); how to call a routine is calls.c's.
 */
#ifndef SB_CAL_MEASURE_H
#define SB_CAL_MEASURE_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#include <hwloc.h>

#include "design.h"

typedef struct cal_result {
  double t, sd; /* the mean of the repetitions and their spread; t = 0: not timed */
  double ratio; /* a pair's second call (cal_point.pair 2): the median over the
                   rounds of its time over its partner's, the call beside it; a
                   solo point's (cal_point.solo), core 0's only: the median of
                   its busy over its alone time; else 0 */
  double ratio_se; /* a solo point's: that median's standard error (fit_median_se) */
} cal_result;

typedef struct cal_run {
  /* what to measure, where */
  const cal_point *pts;
  size_t npts;
  void *const *syms; /* per op: the real BLAS's symbol, or the kernel's own function */
  const cal_design *design;
  int ncores;
  hwloc_topology_t topo;
  /* the measurements */
  cal_result **res; /* res[core][point] */
  /* calls other tasks interrupted (timed in CPU time), of all timed, and
   * the wall time those tasks took from them, of the timed calls' */
  size_t interrupted, timed;
  double stolen, timed_wall;
  /* the repetitions: the median spread of a call (the standard deviation
   * of its repetitions over their mean, calls of 1 ms or more), and the
   * drift: how far the timed passes' totals, each pass every point once,
   * lie apart on a core ((max - min) / mean, the largest of the cores),
   * which the interleaving turns into spread rather than bias */
  double spread, drift;
  /* each timed pass's speed, in order: the passes' mean total over this
   * pass's total, every core's calls summed (1.05: 5% faster than the
   * mean); a trend says the machine slowed or sped up while calibrating,
   * a lone outlier a spell.  npasses entries (--reps), cal_run_free frees */
  double *pass_speed;
  int npasses;
} cal_run;

/* Times the design on every core (the progress on stderr).  Returns 0, or
 * the signal (SIGINT, SIGTERM, SIGHUP) that stopped it; res is then
 * incomplete.  Out of memory: exits. */
int cal_measure(cal_run *r);
void cal_run_free(cal_run *r);

/* the probe: dgemm 384^3 and daxpy 2e5 flop/s on one core (best of a few),
 * each left at its default where the BLAS lacks it (NULL) */
void cal_probe(void *dgemm, void *daxpy, double *rate3, double *rate12);

/* SIGINT, SIGTERM and SIGHUP stop the measuring (cal_measure returns the
 * signal) instead of the program */
void cal_catch_signals(void);

double cal_now(void); /* CLOCK_MONOTONIC seconds */
_Noreturn void cal_die(const char *fmt, ...) __attribute__((format(printf, 1, 2))); /* one line, exit 2 */

#endif
