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

/* what libsimblas exports: it is built with -fvisibility=hidden, and
 * only what this header (and simblas_app.h, hpl_simblas.h) declares with
 * SIMBLAS_EXPORT, the BLAS entry points and netlib's globals are seen
 * outside it (test/check-symbols.sh checks the set) */
#if defined(__GNUC__) || defined(__clang__)
#define SIMBLAS_EXPORT __attribute__((visibility("default")))
#else
#define SIMBLAS_EXPORT
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
SIMBLAS_EXPORT void simblas_set_hook(simblas_hook_fn fn, void *ctx);

/* "smpi", "null", "passthrough" or "trace" (initialises the library). */
SIMBLAS_EXPORT const char *simblas_mode(void);

/* Predict a kernel's duration in seconds on the model's reference host,
 * from the default coefficient set.  routine is a model-file key
 * ("dgemm", or "dtrsm.right" for the Right-side form); returns a negative
 * value for an unknown routine. */
SIMBLAS_EXPORT double simblas_predict(const char *routine, int64_t m, int64_t n, int64_t k);

/* Predict and inject through the active sink, as a BLAS call would:
 * for kernels that are not BLAS (HPL's dlaswp, dlacpy ...) whose model
 * rows the calibrator provides.  Returns the injected seconds, or a
 * negative value for an unknown routine. */
SIMBLAS_EXPORT double simblas_execute(const char *routine, int64_t m, int64_t n, int64_t k);

/* The same for a kernel whose time depends on the leading dimension of
 * the matrix it moves rows of (lib/kernels.def's ld column: HPL's row
 * swaps): ld is that leading dimension, which the model's "@ld" line
 * scales the prediction by (doc/model-format.md); 0 is "not given", the
 * layout the model was calibrated at. */
SIMBLAS_EXPORT double simblas_execute_ld(const char *routine, int64_t m, int64_t n, int64_t k, int64_t ld);
SIMBLAS_EXPORT double simblas_predict_ld(const char *routine, int64_t m, int64_t n, int64_t k, int64_t ld);

/* A kernel the program computed itself, timed by the program: in trace
 * mode (SIMBLAS_MODE=trace) a row of the trace, as a BLAS call's
 * (routine the model key, m, n, k, the model's prediction with the
 * leading dimension ld, the measured seconds, ld; 0: not given); in the
 * other modes nothing.  The HPL patch series' real build (without
 * SIMBLAS_HPL) calls it through a weak reference from HPL's memory
 * kernels (dlaswp*, dlacpy, dlatcpy; hpl-patches/17), so that a real
 * mpirun HPL with libsimblas preloaded in trace mode records them, and
 * simblas-calibrate --from-trace refits their lines.  An unknown routine
 * is said once and skipped. */
SIMBLAS_EXPORT void simblas_trace_kernel(const char *routine, int64_t m, int64_t n, int64_t k, int64_t ld,
                                         double seconds);

/* Per-rank counters: calls modelled, seconds injected so far, how many
 * injections reached SimGrid (fewer than calls with SIMBLAS_MERGE=1), and
 * the time charged for the program's own code (SIMBLAS_CODE_CLOCK=1). */
typedef struct simblas_stats {
  uint64_t calls;
  double injected_s;
  uint64_t flushes;
  double code_s; /* SIMBLAS_CODE_CLOCK=1: the program's own code, seconds charged */
} simblas_stats;
SIMBLAS_EXPORT simblas_stats simblas_get_stats(void);

/* SIMBLAS_MERGE=1 (smpi mode): the durations of a rank's consecutive BLAS
 * calls add up and reach SimGrid as one injection at the rank's next MPI
 * call -- one simulator event instead of many, the same simulated time.
 * libsimblas_pmpi wraps every MPI function to call simblas_flush() first;
 * link it before SimGrid: -lsimblas_pmpi -lsimblas. */
SIMBLAS_EXPORT void simblas_flush(void);
SIMBLAS_EXPORT extern int simblas_pmpi_linked;

/* SIMBLAS_CODE_CLOCK=1 (smpi mode, SIMBLAS_MERGE=1, SMPI run with
 * smpi/simulate-computation:no): SimBLAS charges the program's own code
 * between its BLAS and MPI calls, by the thread's CPU time, as SMPI's
 * computation timing would, but within the merged injections.
 * libsimblas_pmpi's wrappers call simblas_flush() before each MPI call
 * (the code before it is charged) and simblas_resume() after it (the
 * program's code runs again). */
SIMBLAS_EXPORT void simblas_resume(void);

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
SIMBLAS_EXPORT void simblas_poll(void);
SIMBLAS_EXPORT void simblas_polled(int flag);

/* SIMBLAS_PROBE=lagged under smpirun (simblas_probe_lagged() says 1):
 * Open MPI's probe looks at the messages it has taken in, then progresses,
 * so a message that arrived after the rank's previous MPI call is not
 * seen by the probe that pulls it in, only by the next one.
 * libsimblas_pmpi's wrappers say what that needs: a send wrapper calls
 * simblas_sent(DEST, TAG), DEST in MPI_COMM_WORLD, when the send begins;
 * a call that progresses (not MPI_Wtime, MPI_Comm_rank, the datatype
 * calls ...) calls simblas_progressed() when it returns; MPI_Iprobe's
 * wrapper returns simblas_probed(FLAG, source, tag, comm, FROM, MSG_TAG),
 * FLAG being PMPI_Iprobe's and FROM (in MPI_COMM_WORLD, or -1 if not
 * known) and MSG_TAG the message it found.  Otherwise FLAG.
 * (lib/app/probe.c) */
SIMBLAS_EXPORT int simblas_probe_lagged(void);
SIMBLAS_EXPORT void simblas_sent(int dest, int tag);
SIMBLAS_EXPORT void simblas_progressed(void);
SIMBLAS_EXPORT int simblas_probed(int flag, int source, int tag, const void *comm, int from, int msg_tag);

/* libsimblas_pmpi's MPI_Init calls simblas_rank_started() once the rank
 * runs: the program's code starts (SIMBLAS_CODE_CLOCK), and what
 * simblas_app.h needs of the rank (its host, for simblas_message_time)
 * is noted. */
SIMBLAS_EXPORT void simblas_rank_started(void);

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
SIMBLAS_EXPORT void *simblas_fold_malloc(size_t size);
SIMBLAS_EXPORT void simblas_fold_free(void *ptr);

/* The same, for buffers that MPI messages are sent from or received into
 * (HPL's panels): ranges shared by all ranks by size, and under smpirun
 * made by SMPI's shared malloc, so that SMPI copies no payload in or out.
 * Free with simblas_fold_free. */
SIMBLAS_EXPORT void *simblas_fold_malloc_buffer(size_t size);

/* Partial folding: nranges [start, stop) byte ranges of the allocation
 * (private_ranges[2 i], private_ranges[2 i + 1], in any order, overlapping
 * or not) are private to the caller (e.g. HPL's pivot indices), the rest
 * is folded.
 * Each call returns its own block; free it with simblas_fold_free. */
SIMBLAS_EXPORT void *simblas_fold_malloc_partial(size_t size, const size_t *private_ranges, int nranges);

/* Map now the pages of count ranges of bytes bytes, stride bytes apart,
 * starting at ptr in folded memory (a column-major block: bytes = rows *
 * element size, count = columns, stride = leading dimension * element
 * size); nothing if they are not all in one folded range.  The first
 * touch of a folded page costs a page fault, which the program's code
 * clock (SIMBLAS_CODE_CLOCK) would charge as the program's time; in the
 * real run the data is resident and the same code faults nothing.  Call
 * it, outside the timed code, on the part of folded memory the program's
 * own code is about to touch (HPL: the panel it factors, patch 16). */
SIMBLAS_EXPORT void simblas_fold_touch(void *ptr, size_t bytes, size_t count, size_t stride);

/* what folding holds now: address space reserved, memory mappings made,
 * the fold block size and the number of ranges; and the messages (and
 * bytes) sent out of simblas_fold_malloc memory whose copy SMPI skipped */
typedef struct simblas_fold_stats {
  size_t reserved_bytes, mappings, block_bytes, regions;
  size_t uncopied_messages, uncopied_bytes;
} simblas_fold_stats;
SIMBLAS_EXPORT simblas_fold_stats simblas_get_fold_stats(void);

/* ---- netlib error handling, exported as reference BLAS/CBLAS do ---------- */
SIMBLAS_EXPORT void xerbla_(const char *srname, const int *info, size_t srname_len);
SIMBLAS_EXPORT void xerbla_array_(const char *srname_array, const int *srname_len,
                   const int *info, size_t array_len);
SIMBLAS_EXPORT int lsame_(const char *ca, const char *cb, size_t la, size_t lb);
/* cblas_xerbla(int p, const char *rout, const char *form, ...) is exported
 * too; it is declared by cblas.h (OpenBLAS's header and netlib's disagree
 * on its const qualifiers, so it is not redeclared here). */
SIMBLAS_EXPORT extern int CBLAS_CallFromC;
SIMBLAS_EXPORT extern int RowMajorStrg;

#ifdef __cplusplus
}
#endif
#endif
