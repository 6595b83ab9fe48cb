/*
 * timing.c -- SMPI timing test of libsimblas (driven by run-smpi-test.sh).
 *
 *   smpirun ... ./timing REFERENCE_SPEED HOST_SPEED[,HOST_SPEED...] [MEMORY_SPEED[,...]]
 *
 * (one HOST_SPEED for every rank, or one per rank: the speed each rank's
 * kernels run at, its host's times its SIMBLAS_HOST_FACTORS factor; the
 * MEMORY_SPEEDs, HOST_SPEED's by default: the speed its memory kernels
 * (level M, here hpl_dlaswp00N through simblas_execute) run at, its host's
 * times the factor file's MEMORY column)
 *
 * Every rank makes a few BLAS calls of fixed sizes, each bracketed by
 * MPI_Wtime(), and checks for each call that
 *
 *   - a SimBLAS hook saw exactly one call, of the expected routine,
 *     interface (Fortran / CBLAS), rank and canonical column-major shape
 *     (m, n, k) -- the shape is worked out here, independently of
 *     lib/check.c: a row-major cblas_dtrsm(Left, M, N) is the
 *     column-major dtrsm(Right, N, M), whose triangle has order M;
 *   - predicted_s equals simblas_predict() for that canonical shape;
 *   - injected_s equals predicted_s * REFERENCE_SPEED / HOST_SPEED, the
 *     factor given on the command line (the script reads the reference
 *     speed from the model file and wrote the host speed in the platform);
 *   - the MPI_Wtime() delta equals injected_s and the expected time
 *     simblas_predict() * REFERENCE_SPEED / HOST_SPEED, to REL_TOL;
 *
 * plus a quick-return call (daxpy, n = 0: no time, no hook) and the
 * per-rank counters of simblas_get_stats().
 *
 * Output, per rank: one "CALL" line per timed call, for the script
 *   CALL <rank> <label> <routine> <m> <n> <k> <predicted_s> <delta_s>
 * "FAIL <rank> <what>" for each failed check, and a closing
 *   SUMMARY <rank> <passed> <failed>
 * The exit status is 0 even when checks fail: the script judges from the
 * SUMMARY lines (smpirun's status says only whether the run completed).
 *
 * About the hook under SMPI: all ranks are user-level contexts of one OS
 * process and share the one libsimblas, hence its one hook; with SMPI's
 * default (dlopen) privatization each rank runs its own copy of this
 * program, so a global variable here is per rank while the hook installed
 * last is called for every rank's BLAS calls.  The hook therefore touches
 * no global of this program: it writes into the slot of call->rank of a
 * table that rank 0 allocates on the (shared) heap and broadcasts, and all
 * ranks install the same hook with the same table.
 */
#include <cblas.h>
#include <math.h>
#include <mpi.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "simblas.h"

/* Fortran BLAS, arguments by reference; the trailing size_t are the hidden
 * CHARACTER lengths gfortran passes */
void dgemm_(const char *transa, const char *transb, const int *m, const int *n, const int *k, const double *alpha,
            const double *a, const int *lda, const double *b, const int *ldb, const double *beta, double *c,
            const int *ldc, size_t transa_len, size_t transb_len);
void daxpy_(const int *n, const double *alpha, const double *x, const int *incx, double *y, const int *incy);

#define REL_TOL 1e-6    /* MPI_Wtime delta against the model              */
#define EXACT_TOL 1e-12 /* values computed by the same arithmetic        */

/* ---- the hook's table, shared by every rank ------------------------------- */
typedef struct slot {
  int count;          /* hook calls since the last reset */
  simblas_call last;  /* the last one                    */
} slot;

typedef struct table {
  int nslots;
  int bad_rank; /* hook calls with a rank outside [0, nslots) */
  slot s[];
} table;

static void hook(const simblas_call *call, void *ctx)
{
  table *t = ctx;
  if (call->rank < 0 || call->rank >= t->nslots) {
    t->bad_rank++;
    return;
  }
  t->s[call->rank].count++;
  t->s[call->rank].last = *call;
}

/* ---- checks ----------------------------------------------------------------
 * All per-rank state lives in a struct on main()'s stack, not in globals:
 * the test then also runs with --cfg=smpi/privatization:no, where the
 * ranks share this program's globals. */
typedef struct state {
  int rank, npass, nfail;
  double factor;       /* reference-speed / host speed           */
  double factor_mem;   /* ... for the memory kernels (level M)   */
  int ncalls;          /* calls the hook reported                */
  double injected_sum; /* their injected_s                       */
  table *t;
} state;

static double relerr(double got, double want)
{
  if (got == want)
    return 0;
  double d = fabs(want) > 0 ? fabs(want) : 1;
  return fabs(got - want) / d;
}

static void check(state *st, int ok, const char *label, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static void check(state *st, int ok, const char *label, const char *fmt, ...)
{
  if (ok) {
    st->npass++;
    return;
  }
  st->nfail++;
  va_list ap;
  printf("FAIL %d %s: ", st->rank, label);
  va_start(ap, fmt);
  vprintf(fmt, ap);
  va_end(ap);
  putchar('\n');
}

static void check_rel(state *st, const char *label, const char *what, double got, double want, double tol)
{
  double e = relerr(got, want);
  check(st, e <= tol, label, "%s is %.17g, expected %.17g (relative error %.3g > %.g)", what, got, want, e, tol);
}

typedef struct expect {
  const char *label;   /* for the output        */
  const char *routine; /* model-file key        */
  int cblas;
  int64_t m, n, k;     /* canonical shape       */
} expect;

/* judge one timed call from what the hook recorded and the MPI_Wtime delta */
static void judge(state *st, const expect *e, double delta)
{
  slot *s = &st->t->s[st->rank];
  const simblas_call *c = &s->last;
  check(st, s->count == 1, e->label, "the hook saw %d calls, expected 1", s->count);
  if (s->count != 1)
    return;
  st->ncalls++;
  st->injected_sum += c->injected_s;
  check(st, c->routine && !strcmp(c->routine, e->routine), e->label, "the hook saw routine '%s', expected '%s'",
        c->routine ? c->routine : "(null)", e->routine);
  check(st, c->cblas == e->cblas, e->label, "the hook saw cblas=%d, expected %d", c->cblas, e->cblas);
  check(st, c->rank == st->rank, e->label, "the hook saw rank %d, MPI says %d", c->rank, st->rank);
  check(st, c->m == e->m && c->n == e->n && c->k == e->k, e->label,
        "canonical shape (m, n, k) = (%lld, %lld, %lld), expected (%lld, %lld, %lld)", (long long)c->m,
        (long long)c->n, (long long)c->k, (long long)e->m, (long long)e->n, (long long)e->k);
  double predicted = simblas_predict(e->routine, e->m, e->n, e->k);
  check(st, predicted > 0, e->label, "simblas_predict(%s, %lld, %lld, %lld) = %g, not positive", e->routine,
        (long long)e->m, (long long)e->n, (long long)e->k, predicted);
  double factor = !strncmp(e->routine, "hpl_", 4) ? st->factor_mem : st->factor;
  double expected = predicted * factor;
  check_rel(st, e->label, "predicted_s (hook) vs simblas_predict()", c->predicted_s, predicted, EXACT_TOL);
  check_rel(st, e->label, "injected_s (hook) vs predicted_s * reference/host", c->injected_s,
            c->predicted_s * factor, EXACT_TOL);
  check_rel(st, e->label, "MPI_Wtime delta vs injected_s (hook)", delta, c->injected_s, REL_TOL);
  check_rel(st, e->label, "MPI_Wtime delta vs simblas_predict() * reference/host", delta, expected, REL_TOL);
  printf("CALL %d %s %s %lld %lld %lld %.17g %.17g\n", st->rank, e->label, e->routine, (long long)e->m,
         (long long)e->n, (long long)e->k, predicted, delta);
}

static double parse_speed(const char *s, const char *what)
{
  char *end;
  double v = strtod(s, &end);
  if (end == s || (*end && *end != ',') || !(v > 0)) {
    fprintf(stderr, "timing: %s '%s' is not a positive number of flop/s\n", what, s);
    exit(2);
  }
  return v;
}

int main(int argc, char **argv)
{
  MPI_Init(&argc, &argv);
  state st_ = {0}, *st = &st_;
  int size;
  MPI_Comm_rank(MPI_COMM_WORLD, &st->rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (argc != 3 && argc != 4) {
    if (st->rank == 0)
      fprintf(stderr, "usage: smpirun ... timing REFERENCE_SPEED HOST_SPEED [MEMORY_SPEED] (flop/s)\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  const char *speed = argv[2], *mspeed = argv[argc - 1]; /* this rank's: the rank-th of the list, or its last */
  for (int i = 0; i < st->rank && strchr(speed, ','); i++)
    speed = strchr(speed, ',') + 1;
  for (int i = 0; i < st->rank && strchr(mspeed, ','); i++)
    mspeed = strchr(mspeed, ',') + 1;
  st->factor = parse_speed(argv[1], "REFERENCE_SPEED") / parse_speed(speed, "HOST_SPEED");
  st->factor_mem = parse_speed(argv[1], "REFERENCE_SPEED") / parse_speed(mspeed, "MEMORY_SPEED");
  if (strcmp(simblas_mode(), "smpi")) {
    fprintf(stderr, "timing: SIMBLAS_MODE is '%s'; this test needs smpi\n", simblas_mode());
    MPI_Abort(MPI_COMM_WORLD, 2);
  }

  /* one table for all ranks, on the shared heap */
  uintptr_t tp = 0;
  if (st->rank == 0) {
    table *t = calloc(1, sizeof *t + (size_t)size * sizeof(slot));
    if (!t)
      MPI_Abort(MPI_COMM_WORLD, 2);
    t->nslots = size;
    tp = (uintptr_t)t;
  }
  MPI_Bcast(&tp, sizeof tp, MPI_BYTE, 0, MPI_COMM_WORLD);
  st->t = (table *)tp;
  simblas_set_hook(hook, st->t);
  MPI_Barrier(MPI_COMM_WORLD);

  /* operands: never read in smpi mode, but valid for a real BLAS */
  enum { GM = 500, GN = 400, GK = 300, TM = 300, TN = 200, AXN = 100000 };
  double *A = calloc((size_t)GM * GK, sizeof *A), *B = calloc((size_t)GK * GN, sizeof *B),
         *C = calloc((size_t)GM * GN, sizeof *C), *T = calloc((size_t)TM * TM, sizeof *T),
         *X = calloc((size_t)TM * TN, sizeof *X), *x = calloc(AXN, sizeof *x), *y = calloc(AXN, sizeof *y);
  if (!A || !B || !C || !T || !X || !x || !y)
    MPI_Abort(MPI_COMM_WORLD, 2);
  for (int i = 0; i < TM; i++)
    T[(size_t)i * TM + i] = 1;
  const int gm = GM, gn = GN, gk = GK, axn = AXN, one = 1, zero = 0;
  const double alpha = 1, beta = 0, two = 2;
  double t0, t1;
  slot *mine = &st->t->s[st->rank];

  /* dgemm_ NN 500 x 400 x 300: canonical (m, n, k) = (500, 400, 300) */
  static const expect e_gemm = {"dgemm_", "dgemm", 0, GM, GN, GK};
  mine->count = 0;
  t0 = MPI_Wtime();
  dgemm_("N", "N", &gm, &gn, &gk, &alpha, A, &gm, B, &gk, &beta, C, &gm, 1, 1);
  t1 = MPI_Wtime();
  judge(st, &e_gemm, t1 - t0);

  /* cblas_dtrsm ColMajor Left Lower NoTrans NonUnit m=300 n=200: B is
   * 300 x 200, the triangle has order m: canonical (300, 200, 300) */
  static const expect e_trsm_c = {"cblas_dtrsm(Col,Left)", "dtrsm", 1, TM, TN, TM};
  mine->count = 0;
  t0 = MPI_Wtime();
  cblas_dtrsm(CblasColMajor, CblasLeft, CblasLower, CblasNoTrans, CblasNonUnit, TM, TN, 1.0, T, TM, X, TM);
  t1 = MPI_Wtime();
  judge(st, &e_trsm_c, t1 - t0);

  /* the same in RowMajor: B is 300 x 200 row-major, i.e. a 200 x 300
   * column-major matrix multiplied on the Right by the transposed
   * (upper) triangle of order 300: canonical (200, 300, 300) */
  static const expect e_trsm_r = {"cblas_dtrsm(Row,Left)", "dtrsm", 1, TN, TM, TM};
  mine->count = 0;
  t0 = MPI_Wtime();
  cblas_dtrsm(CblasRowMajor, CblasLeft, CblasLower, CblasNoTrans, CblasNonUnit, TM, TN, 1.0, T, TM, X, TN);
  t1 = MPI_Wtime();
  judge(st, &e_trsm_r, t1 - t0);

  /* daxpy_ n = 100000: canonical (0, n, 0) */
  static const expect e_axpy = {"daxpy_", "daxpy", 0, 0, AXN, 0};
  mine->count = 0;
  t0 = MPI_Wtime();
  daxpy_(&axn, &two, x, &one, y, &one);
  t1 = MPI_Wtime();
  judge(st, &e_axpy, t1 - t0);

  /* HPL's row interchange, a memory kernel (level M) through
   * simblas_execute: canonical (m, n, 0) = (128, 512, 0) */
  static const expect e_swap = {"simblas_execute(hpl_dlaswp00N)", "hpl_dlaswp00N", 0, 128, 512, 0};
  mine->count = 0;
  t0 = MPI_Wtime();
  double said = simblas_execute("hpl_dlaswp00N", 128, 512, 0);
  t1 = MPI_Wtime();
  judge(st, &e_swap, t1 - t0);
  check_rel(st, e_swap.label, "simblas_execute's return vs the MPI_Wtime delta", said, t1 - t0, REL_TOL);

  /* a quick return (n = 0): no time, no hook call, not counted */
  mine->count = 0;
  t0 = MPI_Wtime();
  daxpy_(&zero, &two, x, &one, y, &one);
  t1 = MPI_Wtime();
  check(st, t1 - t0 == 0, "daxpy_(n=0)", "a quick return took %.17g s of simulated time", t1 - t0);
  check(st, mine->count == 0, "daxpy_(n=0)", "a quick return called the hook %d times", mine->count);

  /* per-rank counters */
  simblas_stats ss = simblas_get_stats();
  check(st, ss.calls == (uint64_t)st->ncalls, "simblas_get_stats", "calls = %llu, expected %d",
        (unsigned long long)ss.calls, st->ncalls);
  check_rel(st, "simblas_get_stats", "injected_s", ss.injected_s, st->injected_sum, EXACT_TOL);

  MPI_Barrier(MPI_COMM_WORLD); /* everybody is done with BLAS ... */
  check(st, st->t->bad_rank == 0, "hook", "%d hook calls had a rank outside [0, %d)", st->t->bad_rank, size);
  simblas_set_hook(NULL, NULL); /* ... before any rank's copy of hook() goes */
  printf("SUMMARY %d %d %d\n", st->rank, st->npass, st->nfail);
  fflush(stdout);
  MPI_Barrier(MPI_COMM_WORLD);
  if (st->rank == 0)
    free(st->t);
  free(A), free(B), free(C), free(T), free(X), free(x), free(y);
  MPI_Finalize();
  return 0;
}
