/*
 * trace.h -- the calls an application really made, read from the CSV files
 * libsimblas writes in trace mode (SIMBLAS_MODE=trace, SIMBLAS_TRACE):
 * routine,m,n,k,predicted_s,measured_s,rank,cblas[,ld] (ld, the leading
 * dimension a kernel gave, since HPL's memory kernels are traced: 0 or
 * absent, not given).  simblas-calibrate --from-trace fits its models on
 * them (calibrate.c).
 */
#ifndef SB_CAL_TRACE_H
#define SB_CAL_TRACE_H

#include <stddef.h>
#include <stdint.h>

#include "fit.h"

/* the calls of one shape (and leading dimension) of one model key: their
 * mean time, the standard deviation and their count */
typedef struct cal_shape {
  int key; /* op, or op + SB_OP_COUNT for the Right-side form (design.h) */
  int64_t m, n, k;
  int64_t ld; /* the leading dimension the calls gave, 0: not given */
  double t, sd;
  size_t calls;
} cal_shape;

typedef struct cal_trace {
  cal_shape *shapes; /* sorted by key, then m, n, k, ld */
  size_t nshapes, calls, skipped;
  /* stalls left out: calls more than CAL_STALL_FACTOR times (and
   * CAL_STALL_MIN_S seconds) slower than their routine's other calls for
   * their size, as their predictions scale them (a machine's hiccup, not
   * what the call costs), when at most 5% of the routine's calls are
   * such (trace.c); their count and the seconds they took beyond the
   * others' pace */
  size_t stalled;
  double stalled_s;
} cal_trace;
#define CAL_STALL_FACTOR 10.0
#define CAL_STALL_MIN_S 1e-3

/* Read the trace files paths[0..n) into t (the shapes of all of them
 * together).  A routine's name is its model key ("dtrsm", "dtrsm.right");
 * a SIDED routine without the suffix (a trace of an older libsimblas) is
 * the Right form when k = n != m.  Stalls are left out (cal_trace).
 * Returns 0, or -1 with a message naming the file and line in err. */
int cal_trace_read(const char *const *paths, int n, cal_trace *t, char *err, size_t errlen);
void cal_trace_free(cal_trace *t);

/* The fit points of one key: the shapes [first, first + count) of t. */
size_t cal_trace_key(const cal_trace *t, int key, size_t *first);

#endif
