/*
 * simblas.h -- public API of SimBLAS, the BLAS that predicts instead of
 * computing.  The BLAS routines themselves need no header of ours: use
 * your usual cblas.h, or Fortran.  This header adds what only SimBLAS has.
 */
#ifndef SIMBLAS_H
#define SIMBLAS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define SIMBLAS_VERSION_MAJOR 0
#define SIMBLAS_VERSION_MINOR 1
#define SIMBLAS_MODEL_FORMAT 1 /* the model-file version this library reads */

/* ---- what happened in one BLAS call -------------------------------------- */
typedef struct simblas_call {
  const char *routine; /* "dgemm", "ctrsm", ... (the model-file key)   */
  int cblas;           /* 1 when entered through cblas_*                */
  int64_t m, n, k;     /* canonical column-major sizes, 0 when unused   */
  double predicted_s;  /* model prediction on the reference host        */
  double injected_s;   /* what the sink was asked to inject on the
                          current host (after host-speed scaling and
                          noise); 0 in the passthrough and trace modes */
  double measured_s;   /* passthrough/trace: the real kernel time       */
  int rank;            /* simulated rank (0 outside smpirun)            */
} simblas_call;

/* Called after every BLAS call that passed its argument checks and did not
 * quick-return, in every mode.  One hook per process; NULL removes it. */
typedef void (*simblas_hook_fn)(const simblas_call *call, void *ctx);
void simblas_set_hook(simblas_hook_fn fn, void *ctx);

/* "smpi", "null", "passthrough" or "trace" (initialises the library). */
const char *simblas_mode(void);

/* Predict a kernel's duration in seconds on the model's reference host,
 * from the default coefficient set.  routine is a model-file key
 * ("dgemm", or "dtrsm.right" for the Right-side form); returns a negative
 * value for an unknown routine. */
double simblas_predict(const char *routine, int64_t m, int64_t n, int64_t k);

/* Predict and inject through the active sink, as a BLAS call would:
 * for kernels that are not BLAS (HPL's dlaswp, dlacpy ...) whose model
 * rows the calibrator provides.  Returns the injected seconds, or a
 * negative value for an unknown routine. */
double simblas_execute(const char *routine, int64_t m, int64_t n, int64_t k);

/* Per-rank counters: calls modelled, seconds injected so far, how many
 * injections reached SimGrid (fewer than calls with SIMBLAS_MERGE=1), and
 * the pivot exchanges done and thinned (simblas_pivot_exchange), and the
 * time charged for the program's own code (SIMBLAS_CODE_CLOCK=1). */
typedef struct simblas_stats {
  uint64_t calls;
  double injected_s;
  uint64_t flushes;
  uint64_t pivot_real, pivot_thinned;
  double code_s; /* SIMBLAS_CODE_CLOCK=1: the program's own code, seconds charged */
} simblas_stats;
simblas_stats simblas_get_stats(void);

/* SIMBLAS_MERGE=1 (smpi mode): the durations of a rank's consecutive BLAS
 * calls add up and reach SimGrid as one injection at the rank's next MPI
 * call -- one simulator event instead of many, the same simulated time.
 * libsimblas_pmpi wraps every MPI function to call simblas_flush() first;
 * link it before SimGrid: -lsimblas_pmpi -lsimblas. */
void simblas_flush(void);
extern int simblas_pmpi_linked;

/* SIMBLAS_CODE_CLOCK=1 (smpi mode, SIMBLAS_MERGE=1, SMPI run with
 * smpi/simulate-computation:no): SimBLAS charges the program's own code
 * between its BLAS and MPI calls, by the thread's CPU time, as SMPI's
 * computation timing would, but within the merged injections.
 * libsimblas_pmpi's wrappers call simblas_flush() before each MPI call
 * (the code before it is charged) and simblas_resume() after it (the
 * program's code runs again). */
void simblas_resume(void);

/* Polls (libsimblas_pmpi's MPI_Iprobe, MPI_Improbe and MPI_Test* wrappers):
 * with SIMBLAS_POLL_COST=SEC under smpirun (run SMPI with smpi/iprobe:0 and
 * smpi/test:0), simblas_poll() charges a failed poll (1 + g k) x SEC, k
 * being the rank's own count of failed polls in a row with no BLAS or
 * other MPI call between them and g SIMBLAS_POLL_GROWTH (default 1), at
 * most SIMBLAS_POLL_MAX seconds (default: no bound), at
 * SIMBLAS_POLL_USAGE (default 1) of the host's speed; the charge joins
 * the rank's next injection (lib/inject.c).  simblas_polled(flag) then
 * counts the result.  Without SIMBLAS_POLL_COST, simblas_poll() flushes
 * like any other MPI call. */
void simblas_poll(void);
void simblas_polled(int flag);

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
int simblas_pivot_exchange(int jj, int pos, int col, int nprow, int npcol);
void simblas_pivot_exchanged(void);

/* Message times, for patches that merge messages (HPL's rolls, patch 14)
 * and charge what the merged ones no longer cost.  libsimblas_pmpi's
 * MPI_Init calls simblas_rank_started(), which notes the rank's host.
 * simblas_message_time(w, bytes): the seconds one message of BYTES bytes
 * from the calling rank to rank W of MPI_COMM_WORLD takes, uncontended,
 * under SMPI's network model (route latency x smpi/lat-factor, then bytes
 * / (smpi/bw-factor x the route's bandwidth, bounded by TCP-gamma));
 * 0 outside a simulation.  simblas_idle(s): the calling rank waits S
 * seconds, idle. */
void simblas_rank_started(void);
double simblas_message_time(int world_rank, double bytes);
void simblas_idle(double seconds);

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
long simblas_segment(long total);
long simblas_segment_first(void);
int simblas_iteration(long index);

/* ---- memory folding ---------------------------------------------------------
 * Memory whose contents do not matter in a simulation (HPL's matrix when
 * SimBLAS computes nothing): every page of it maps the same few physical
 * pages, and every rank asking for a size within the same class gets the
 * same virtual range, so that both physical memory and virtual address
 * space grow with one rank's matrix, not with the whole run's.  The
 * contents are garbage shared by everybody: never read control data from it.
 * Under smpirun a message sent out of it carries no data: SMPI copies no
 * payload that lies wholly in it (the receiver's buffer keeps what it held;
 * messages under smpi/send-is-detached-thresh are still copied by SMPI at
 * the send).  Use simblas_fold_malloc_buffer for message buffers.
 * See doc/folding.md.
 * Errors (out of address space, vm.max_map_count, hugetlbfs) stop the
 * program with a message that names the limit and how to raise it. */
void *simblas_fold_malloc(size_t size);
void simblas_fold_free(void *ptr);

/* The same, for buffers that MPI messages are sent from or received into
 * (HPL's panels): ranges shared by all ranks by size, and under smpirun
 * made by SMPI's shared malloc, so that SMPI copies no payload in or out.
 * Free with simblas_fold_free. */
void *simblas_fold_malloc_buffer(size_t size);

/* Partial folding: nranges [start, stop) byte ranges of the allocation are
 * private to the caller (e.g. HPL's pivot indices), the rest is folded.
 * Each call returns its own block; free it with simblas_fold_free. */
void *simblas_fold_malloc_partial(size_t size, const size_t *private_ranges, int nranges);

/* what folding holds now: address space reserved, memory mappings made,
 * the fold block size and the number of ranges; and the messages (and
 * bytes) sent out of simblas_fold_malloc memory whose copy SMPI skipped */
typedef struct simblas_fold_stats {
  size_t reserved_bytes, mappings, block_bytes, regions;
  size_t uncopied_messages, uncopied_bytes;
} simblas_fold_stats;
simblas_fold_stats simblas_get_fold_stats(void);

/* ---- netlib error handling, exported as reference BLAS/CBLAS do ---------- */
void xerbla_(const char *srname, const int *info, size_t srname_len);
void xerbla_array_(const char *srname_array, const int *srname_len,
                   const int *info, size_t array_len);
int lsame_(const char *ca, const char *cb, size_t la, size_t lb);
/* cblas_xerbla(int p, const char *rout, const char *form, ...) is exported
 * too; it is declared by cblas.h (OpenBLAS's header and netlib's disagree
 * on its const qualifiers, so it is not redeclared here). */
extern int CBLAS_CallFromC;
extern int RowMajorStrg;

#ifdef __cplusplus
}
#endif
#endif
