/*
 * simblas_app.h -- what simulating an application at scale needs beyond a
 * BLAS that injects time (simblas.h): iterations of its main loop sampled
 * and extrapolated, a thinned pivot search, message times for merged
 * messages.  HPL's patches (hpl-patches/, through hpl_simblas.h) use it;
 * another application can, the same way.
 */
#ifndef SIMBLAS_APP_H
#define SIMBLAS_APP_H

#include "simblas.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Thinned pivot search, opt-in (SIMBLAS_PIVOT_EVERY=k > 1, model mode with
 * SIMBLAS_MERGE=1): HPL_pdmxswp calls simblas_pivot_exchange(jj, pos, col,
 * nprow, npcol) for column jj of its panel, on each of the nprow ranks of
 * process column col of an nprow x npcol grid, pos being the rank's
 * process row relative to the panel's.  1: exchange as usual, then call
 * simblas_pivot_exchanged(), which times it (one column in k; every
 * column without SIMBLAS_PIVOT_EVERY, where nothing else happens).  0: the
 * column's ranks have met at a simulator barrier, and this one has been
 * charged an idle wait, the mean of its pos's real exchanges: skip the
 * messages and set the result every rank would get (SimBLAS decides the
 * pivots).  Changes the simulated communication (doc/user-guide.md gives
 * its effect on the Gflops). */
SIMBLAS_EXPORT int simblas_pivot_exchange(int jj, int pos, int col, int nprow, int npcol);
SIMBLAS_EXPORT void simblas_pivot_exchanged(void);
/* the calling rank's pivot exchanges done and thinned so far */
typedef struct simblas_pivot_stats {
  uint64_t real, thinned;
} simblas_pivot_stats;
SIMBLAS_EXPORT simblas_pivot_stats simblas_get_pivot_stats(void);

/* Message times, for patches that merge messages (HPL's rolls, patch 14)
 * and charge what the merged ones no longer cost (libsimblas_pmpi's
 * MPI_Init, simblas_rank_started(), notes the rank's host).
 * simblas_message_time(w, bytes): the seconds one message of BYTES bytes
 * from the calling rank to rank W of MPI_COMM_WORLD takes, uncontended,
 * under SMPI's network model (route latency x smpi/lat-factor, then bytes
 * / (smpi/bw-factor x the route's bandwidth, bounded by TCP-gamma));
 * 0 outside a simulation.  simblas_idle(s): the calling rank waits S
 * seconds, idle. */
SIMBLAS_EXPORT double simblas_message_time(int world_rank, double bytes);
SIMBLAS_EXPORT void simblas_idle(double seconds);

/* Iterations of an application's main loop (HPL's panel loop), for
 * simulating part of a run and extrapolating the rest (simblas-hpl run
 * --iterations K --samples S; doc/scale.md).  Every rank calls:
 *  - simblas_segment(total) before each pass over the loop (total: the
 *    number of iterations of the full loop).  It returns the iteration the
 *    pass starts at, or -1 when there is no more pass.  Without
 *    SIMBLAS_ITERATIONS there is one pass, from 0.  With
 *    SIMBLAS_ITERATIONS=K there is one pass of the first K iterations;
 *    with SIMBLAS_SAMPLES=S too, S passes of K iterations, pass s centred
 *    on the middle of the s-th of S equal strata of the loop.
 *  - simblas_segment_first(): the start of the current pass (0 outside).
 *  - simblas_iteration(i) as iteration i starts: 1 means leave the loop
 *    (K iterations of this pass done).  Every rank decides alike.
 *    SIMBLAS_ITERATIONS=0 allocates only: one pass that stops at once.
 *  - simblas_iteration(-1) once every pass is over: 1 if the run only
 *    allocates (SIMBLAS_ITERATIONS=0), when HPL then skips its solve; a
 *    run cut short still solves (its time is measured, not modelled),
 *    unless SIMBLAS_SKIP_SOLVE=1.
 * With SIMBLAS_ITER_LOG=FILE, rank 0 writes one line per call:
 *   seg <pass> <first iteration> <total>
 *   iter <i> <simulated s> <wall s, CLOCK_MONOTONIC> <BLAS s injected so far>
 *   end <cut short: 0|1> <simulated s> <wall s> <BLAS s injected> */
SIMBLAS_EXPORT long simblas_segment(long total);
SIMBLAS_EXPORT long simblas_segment_first(void);
SIMBLAS_EXPORT int simblas_iteration(long index);

#ifdef __cplusplus
}
#endif
#endif
