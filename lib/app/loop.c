/*
 * loop.c -- iterations of an application's main loop (HPL's panel loop),
 * for simulating part of a run and extrapolating the rest: passes of
 * SIMBLAS_ITERATIONS iterations (simblas_segment, simblas_iteration,
 * simblas_app.h) and the iteration log (SIMBLAS_ITER_LOG).
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "call.h"
#include "settings.h"
#include "simblas_app.h"
#include "smpi_adaptor.h"

/* a rank's slice */
typedef struct loop_rank {
  int stopped;         /* simblas_iteration told it to leave the loop */
  long seg, seg_start; /* simblas_segment: pass number (-1: none yet), start */
} loop_rank;

static void loop_rank_init(void *p, const sb_rank *r)
{
  (void)r;
  ((loop_rank *)p)->seg = -1;
}

static sb_slice loop_slice = SB_SLICE(loop_rank, "the loop's passes", loop_rank_init);
#define LR(r) ((loop_rank *)sb_rank_slice(r, &loop_slice))

static FILE *iterlog; /* SIMBLAS_ITER_LOG */

static void open_log(sb_rank *unused)
{
  (void)unused;
  const char *ilog = sb_cfg.iter_log;
  if (ilog && !(iterlog = fopen(ilog, "w")))
    sb_fatal("cannot write the iteration log %s: %s; set SIMBLAS_ITER_LOG to a writable path", ilog,
             strerror(errno));
}

__attribute__((constructor)) static void loop_register(void) { sb_hooks_add(&sb_init_hooks, open_log); }

static long segment(long total)
{
  loop_rank *l = LR(sb_rank_self());
  long iterations = sb_cfg.iterations, samples = sb_cfg.samples;
  if (l->seg < 0)
    l->seg = 0; /* the first pass starts at 0 */
  else if (iterations != 0 && l->seg + 1 < samples)
    l->seg++;
  else
    return -1;
  /* one pass: from 0.  S passes: pass s is centred on the middle of the
   * s-th of S equal strata of the run (its iterations then stand for the
   * stratum: stratified sampling); the trailing matrix has the size it has
   * at that point of the full run */
  l->seg_start = 0;
  if (samples > 1) {
    long c = (2 * l->seg + 1) * total / (2 * samples) - iterations / 2;
    if (c > total - iterations) /* the pass must fit in the loop */
      c = total - iterations;
    l->seg_start = c > 0 ? c : 0;
  }
  l->stopped = 0;
  if (iterlog && sb_smpi_mpi_rank() == 0) {
    fprintf(iterlog, "seg %ld %ld %ld\n", l->seg, l->seg_start, total);
    fflush(iterlog);
  }
  return l->seg_start;
}

long simblas_segment(long total)
{
  sb_init();
  return SB_NOT_CODE(long, segment(total));
}

long simblas_segment_first(void)
{
  sb_init();
  return LR(sb_rank_self())->seg_start; /* 0 until the first pass */
}

static int iteration(long index)
{
  sb_rank *r = sb_rank_self();
  loop_rank *l = LR(r);
  long iterations = sb_cfg.iterations;
  simblas_flush(); /* the rank's clock includes everything before the mark */
  if (iterlog && sb_smpi_mpi_rank() == 0) {
    if (index >= 0)
      fprintf(iterlog, "iter %ld %.9g %.6f %.9g\n", index, sb_smpi_clock(), sb_clock(), sb_call_injected(r));
    else
      fprintf(iterlog, "end %d %.9g %.6f %.9g\n", iterations != 0, sb_smpi_clock(), sb_clock(),
              sb_call_injected(r));
    fflush(iterlog);
  }
  if (index < 0) /* the solve runs, as in a full run, unless nothing did */
    return iterations < 0 || (iterations > 0 && sb_cfg.skip_solve);
  if (iterations < 0 || (iterations > 0 && index - l->seg_start >= iterations))
    l->stopped = 1;
  return l->stopped;
}

int simblas_iteration(long index)
{
  sb_init();
  return SB_NOT_CODE(int, iteration(index));
}
