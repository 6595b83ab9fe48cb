/*
 * loop.c -- iterations of an application's main loop (HPL's panel loop),
 * for simulating part of a run and extrapolating the rest: passes of
 * SIMBLAS_ITERATIONS iterations (simblas_segment, simblas_iteration) and
 * the iteration log.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include <stdio.h>

#include "runtime.h"

static long segment(long total);

long simblas_segment(long total)
{
  sb_init();
  void *c = sb_code_pause();
  long v = segment(total);
  sb_code_resume(c);
  return v;
}

static long segment(long total)
{
  sb_rank *r = sb_rank_self();
  if (r->seg < 0)
    r->seg = 0; /* the first pass starts at 0 */
  else if (rt.iterations != 0 && r->seg + 1 < rt.samples)
    r->seg++;
  else
    return -1;
  /* one pass: from 0.  S passes: pass s is centred on the middle of the
   * s-th of S equal strata of the run (its iterations then stand for the
   * stratum: stratified sampling); the trailing matrix has the size it has
   * at that point of the full run */
  r->seg_start = 0;
  if (rt.samples > 1) {
    long c = (2 * r->seg + 1) * total / (2 * rt.samples) - rt.iterations / 2;
    if (c > total - rt.iterations) /* the pass must fit in the loop */
      c = total - rt.iterations;
    r->seg_start = c > 0 ? c : 0;
  }
  r->stopped = 0;
  if (rt.iterlog && sb_smpi_mpi_rank() == 0) {
    fprintf(rt.iterlog, "seg %ld %ld %ld\n", r->seg, r->seg_start, total);
    fflush(rt.iterlog);
  }
  return r->seg_start;
}

long simblas_segment_first(void)
{
  sb_init();
  sb_rank *r = sb_rank_self();
  return r->seg_start; /* 0 until the first pass */
}

static int iteration(long index);

int simblas_iteration(long index)
{
  sb_init();
  void *c = sb_code_pause();
  int v = iteration(index);
  sb_code_resume(c);
  return v;
}

static int iteration(long index)
{
  sb_rank *r = sb_rank_self();
  simblas_flush(); /* the rank's clock includes everything before the mark */
  if (rt.iterlog && sb_smpi_mpi_rank() == 0) {
    if (index >= 0)
      fprintf(rt.iterlog, "iter %ld %.9g %.6f %.9g\n", index, sb_smpi_clock(), sb_clock(), r->injected);
    else
      fprintf(rt.iterlog, "end %d %.9g %.6f %.9g\n", rt.iterations != 0, sb_smpi_clock(), sb_clock(),
              r->injected);
    fflush(rt.iterlog);
  }
  if (index < 0) /* the solve runs, as in a full run, unless nothing did */
    return rt.iterations < 0 || (rt.iterations > 0 && rt.skip_solve);
  if (rt.iterations < 0 || (rt.iterations > 0 && index - r->seg_start >= rt.iterations))
    r->stopped = 1;
  return r->stopped;
}
