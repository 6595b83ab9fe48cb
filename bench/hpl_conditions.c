/*
 * hpl_conditions.c -- the conditions HPL's calls run in, against those the
 * calibrator measured them in, with the real BLAS (OpenBLAS) alone.  Each
 * case runs on `cores` threads at once, one pinned per core, all making
 * the same calls (as HPL's ranks do); it prints the median rate per core.
 *
 *   gemm     dgemm k = NB, m = n: packed operands, the same buffers every
 *            call (the calibrator's conditions: C stays in the caches when
 *            it fits), against HPL's trailing update: C and B inside a
 *            local matrix of leading dimension LLD, the calls sweeping it
 *            (C out of the caches), transb as HPL's 1xQ (N) and PxQ (T)
 *            forms
 *   trsm     dtrsm of the row panel, m = NB rows: the calibrator's
 *            Left-Lower-NoTrans-Unit packed, against HPL's Left-Upper-Trans-
 *            Unit with B in the local matrix (1xQ) and Right-Upper-NoTrans-
 *            Unit on U (PxQ)
 *   swap     HPL_dlaswp00N's row interchanges (M = NB rows with rows drawn
 *            in the local matrix, blocks of 32 columns, stride LLD) against
 *            the calibrator's (column by column, rows permuted within M)
 *   mix      dgemm after other dgemm calls, against dgemm after level-1
 *            calls on other buffers (the calibrator's ordering question)
 *
 * Usage: hpl_conditions CASE CORES [LLD] [REPS]
 * Built and run by bench/hpl-conditions; links OpenBLAS.
 */
#define _GNU_SOURCE
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

void dgemm_(const char *, const char *, const int *, const int *, const int *, const double *, const double *,
            const int *, const double *, const int *, const double *, double *, const int *);
void dtrsm_(const char *, const char *, const char *, const char *, const int *, const int *, const double *,
            const double *, const int *, double *, const int *);
void daxpy_(const int *, const double *, const double *, const int *, double *, const int *);
void dscal_(const int *, const double *, double *, const int *);
int idamax_(const int *, const double *, const int *);
void openblas_set_num_threads(int);

#define NB 128
#define DEPTH 32

static double now(void)
{
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static double *matrix(size_t n)
{
  double *p = aligned_alloc(64, (n * sizeof(double) + 63) / 64 * 64);
  if (!p) {
    fprintf(stderr, "hpl_conditions: out of memory for %zu MB\n", n * 8 >> 20);
    exit(2);
  }
  for (size_t i = 0; i < n; i++)
    p[i] = 1e-3 * (double)((i * 7919) % 1000 + 1) / 1000.0;
  return p;
}

static int cmpd(const void *a, const void *b)
{
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static double median(double *v, int n)
{
  qsort(v, (size_t)n, sizeof *v, cmpd);
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

typedef struct job {
  int id, cores, lld, reps;
  const char *cas;
  pthread_barrier_t *bar;
  /* results: name, rate (Gflop/s or GB/s) */
  int nres;
  char name[64][96];
  double rate[64];
} job;

static void put(job *j, const char *name, double rate)
{
  snprintf(j->name[j->nres], sizeof j->name[0], "%s", name);
  j->rate[j->nres++] = rate;
}

/* ---- gemm ------------------------------------------------------------------- */
static void case_gemm(job *j)
{
  static const int sizes[] = {1000, 2000, 4000, 6000, 8000};
  const int k = NB, lld = j->lld, cols = 8000, reps = j->reps;
  const double one = 1, mone = -1;
  /* the local matrix (LLD x cols) and the panel L2 (packed), U (n x k) */
  double *A = matrix((size_t)lld * cols), *L2 = matrix((size_t)lld * k), *U = matrix((size_t)cols * k);
  double *pa = matrix((size_t)8000 * k), *pb = matrix((size_t)k * 8000), *pc = matrix((size_t)8000 * 8000);
  for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++) {
    int m = sizes[s], n = sizes[s];
    if (m > lld - k)
      continue;
    double t[3][32];
    for (int r = 0; r < reps; r++) {
      double flops = 2.0 * m * n * k, t0;
      /* the calibrator: packed, the same buffers */
      pthread_barrier_wait(j->bar);
      dgemm_("N", "N", &m, &n, &k, &mone, pa, &m, pb, &k, &one, pc, &m);
      pthread_barrier_wait(j->bar);
      t0 = now();
      dgemm_("N", "N", &m, &n, &k, &mone, pa, &m, pb, &k, &one, pc, &m);
      t[0][r] = flops / (now() - t0);
      /* HPL 1xQ: B the row panel inside A (ld LLD), C below it, the call
       * after an update of the whole local matrix (C out of the caches) */
      for (int c = 0; c + n <= cols; c += n) /* sweep: evict */
        dgemm_("N", "N", &m, &n, &k, &mone, L2, &lld, A + (size_t)c * lld, &lld, &one, A + (size_t)c * lld + k, &lld);
      pthread_barrier_wait(j->bar);
      t0 = now();
      dgemm_("N", "N", &m, &n, &k, &mone, L2, &m, A, &lld, &one, A + k, &lld);
      t[1][r] = flops / (now() - t0);
      /* HPL PxQ: U transposed (n x k, ld n), C in A */
      for (int c = 0; c + n <= cols; c += n)
        dgemm_("N", "T", &m, &n, &k, &mone, L2, &m, U, &n, &one, A + (size_t)c * lld, &lld);
      pthread_barrier_wait(j->bar);
      t0 = now();
      dgemm_("N", "T", &m, &n, &k, &mone, L2, &m, U, &n, &one, A, &lld);
      t[2][r] = flops / (now() - t0);
    }
    char nm[96];
    static const char *what[] = {"packed, same buffers (calibrator)", "HPL 1xQ: NN, B and C in A, ld LLD",
                                 "HPL PxQ: NT, C in A, ld LLD"};
    for (int w = 0; w < 3; w++) {
      snprintf(nm, sizeof nm, "dgemm m=n=%d k=%d %s", m, k, what[w]);
      put(j, nm, median(t[w], reps) / 1e9);
    }
  }
  free(A), free(L2), free(U), free(pa), free(pb), free(pc);
}

/* ---- trsm -------------------------------------------------------------------- */
static void case_trsm(job *j)
{
  static const int sizes[] = {1000, 2000, 4000, 8000};
  const int m = NB, lld = j->lld, reps = j->reps;
  const double one = 1;
  double *A = matrix((size_t)lld * 8000), *L1 = matrix((size_t)m * m), *B = matrix((size_t)m * 8000),
         *U = matrix((size_t)8000 * m);
  for (int i = 0; i < m; i++)
    L1[i + (size_t)i * m] = 1;
  for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++) {
    int n = sizes[s];
    double t[3][32];
    for (int r = 0; r < reps; r++) {
      double flops = (double)m * m * n, t0;
      pthread_barrier_wait(j->bar);
      t0 = now();
      dtrsm_("L", "L", "N", "U", &m, &n, &one, L1, &m, B, &m);
      t[0][r] = flops / (now() - t0);
      pthread_barrier_wait(j->bar);
      t0 = now();
      dtrsm_("L", "U", "T", "U", &m, &n, &one, L1, &m, A + (size_t)(r % 4) * 2000 * lld, &lld);
      t[1][r] = flops / (now() - t0);
      pthread_barrier_wait(j->bar);
      t0 = now();
      dtrsm_("R", "U", "N", "U", &n, &m, &one, L1, &m, U, &n);
      t[2][r] = flops / (now() - t0);
    }
    static const char *what[] = {"L-L-N-U packed (calibrator)", "L-U-T-U, B in A ld LLD (HPL 1xQ)",
                                 "R-U-N-U on U, ld n (HPL PxQ)"};
    for (int w = 0; w < 3; w++) {
      char nm[96];
      snprintf(nm, sizeof nm, "dtrsm m=%d n=%d %s", m, n, what[w]);
      put(j, nm, median(t[w], reps) / 1e9);
    }
  }
  free(A), free(L1), free(B), free(U);
}

/* ---- swap -------------------------------------------------------------------- */
static void swap_cal(int m, int n, double *A, double *B)
{
  for (size_t c = 0; c < (size_t)n; c++)
    for (size_t i = 0; i < (size_t)m; i++) {
      size_t p = (i * 7919u) % (size_t)m;
      double t = A[i + c * m];
      A[i + c * m] = B[p + c * m];
      B[p + c * m] = t;
    }
}

/* HPL_dlaswp00N: rows i < M against IPIV[i], DEPTH columns at a time */
static void swap_hpl(int M, int N, double *A, int lda, const int *ipiv)
{
  for (int j = 0; j < N; j += DEPTH, A += (size_t)lda * DEPTH) {
    int w = N - j < DEPTH ? N - j : DEPTH;
    for (int i = 0; i < M; i++) {
      int ip = ipiv[i];
      if (ip == i)
        continue;
      double *a0 = A + i, *a1 = A + ip;
      for (int c = 0; c < w; c++, a0 += lda, a1 += lda) {
        double r = *a0;
        *a0 = *a1;
        *a1 = r;
      }
    }
  }
}

static void case_swap(job *j)
{
  static const int sizes[] = {500, 2000, 6000};
  const int m = NB, lld = j->lld, reps = j->reps;
  double *A = matrix((size_t)lld * 6000), *X = matrix((size_t)m * 6000), *Y = matrix((size_t)m * 6000);
  int *ipiv = malloc(sizeof *ipiv * m);
  uint64_t s = 12345 + (uint64_t)j->id;
  for (int i = 0; i < m; i++) { /* pivots drawn among the local rows below */
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    ipiv[i] = i + (int)((s >> 33) % (uint64_t)(lld - i));
  }
  for (size_t z = 0; z < sizeof sizes / sizeof *sizes; z++) {
    int n = sizes[z];
    double t[2][32], bytes = 2.0 * 2 * 8 * m * n; /* two elements read and written */
    for (int r = 0; r < reps; r++) {
      pthread_barrier_wait(j->bar);
      double t0 = now();
      swap_cal(m, n, X, Y);
      t[0][r] = bytes / (now() - t0);
      pthread_barrier_wait(j->bar);
      t0 = now();
      swap_hpl(m, n, A, lld, ipiv);
      t[1][r] = bytes / (now() - t0);
    }
    char nm[96];
    snprintf(nm, sizeof nm, "swap M=%d N=%d calibrator (GB/s)", m, n);
    put(j, nm, median(t[0], reps) / 1e9);
    snprintf(nm, sizeof nm, "swap M=%d N=%d HPL_dlaswp00N ld LLD (GB/s)", m, n);
    put(j, nm, median(t[1], reps) / 1e9);
  }
  free(A), free(X), free(Y), free(ipiv);
}

/* ---- mix: what a dgemm follows -------------------------------------------------- */
static void case_mix(job *j)
{
  static const int sizes[] = {500, 1000, 2000};
  const int k = NB, reps = j->reps, one_i = 1;
  const double one = 1, mone = -1, small = 1e-3;
  double *pa = matrix((size_t)2000 * 2000), *pb = matrix((size_t)2000 * 2000), *pc = matrix((size_t)2000 * 2000);
  double *qa = matrix((size_t)2000 * 2000), *qb = matrix((size_t)2000 * 2000), *qc = matrix((size_t)2000 * 2000);
  double *x = matrix(1 << 22), *y = matrix(1 << 22);
  for (size_t z = 0; z < sizeof sizes / sizeof *sizes; z++) {
    int m = sizes[z], n = sizes[z];
    double t[2][32], flops = 2.0 * m * n * k;
    for (int r = 0; r < reps; r++) {
      /* after other dgemm calls (another shape, other buffers) */
      int m2 = m / 2 + 64, n2 = 1500;
      dgemm_("N", "N", &m2, &n2, &k, &mone, qa, &m2, qb, &k, &one, qc, &m2);
      pthread_barrier_wait(j->bar);
      double t0 = now();
      dgemm_("N", "N", &m, &n, &k, &mone, pa, &m, pb, &k, &one, pc, &m);
      t[0][r] = flops / (now() - t0);
      /* after level-1 calls over 32 MB of vectors */
      for (int v = 0; v < 8; v++) {
        int len = 1 << 19;
        daxpy_(&len, &small, x + (size_t)v * len, &one_i, y + (size_t)v * len, &one_i);
        (void)idamax_(&len, y + (size_t)v * len, &one_i);
      }
      pthread_barrier_wait(j->bar);
      t0 = now();
      dgemm_("N", "N", &m, &n, &k, &mone, pa, &m, pb, &k, &one, pc, &m);
      t[1][r] = flops / (now() - t0);
    }
    char nm[96];
    snprintf(nm, sizeof nm, "dgemm m=n=%d k=%d after a dgemm", m, k);
    put(j, nm, median(t[0], reps) / 1e9);
    snprintf(nm, sizeof nm, "dgemm m=n=%d k=%d after level-1 calls", m, k);
    put(j, nm, median(t[1], reps) / 1e9);
  }
  free(pa), free(pb), free(pc), free(qa), free(qb), free(qc), free(x), free(y);
}

static void *run(void *arg)
{
  job *j = arg;
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(j->id, &set);
  sched_setaffinity(0, sizeof set, &set);
  if (!strcmp(j->cas, "gemm"))
    case_gemm(j);
  else if (!strcmp(j->cas, "trsm"))
    case_trsm(j);
  else if (!strcmp(j->cas, "swap"))
    case_swap(j);
  else if (!strcmp(j->cas, "mix"))
    case_mix(j);
  return NULL;
}

int main(int argc, char **argv)
{
  if (argc < 3) {
    fprintf(stderr, "usage: hpl_conditions gemm|trsm|swap|mix CORES [LLD] [REPS]\n");
    return 2;
  }
  openblas_set_num_threads(1);
  int cores = atoi(argv[2]), lld = argc > 3 ? atoi(argv[3]) : 12000, reps = argc > 4 ? atoi(argv[4]) : 5;
  if (cores < 1 || cores > 64 || lld < 2000 || reps < 1 || reps > 32) {
    fprintf(stderr, "hpl_conditions: CORES 1-64, LLD >= 2000, REPS 1-32\n");
    return 2;
  }
  pthread_barrier_t bar;
  pthread_barrier_init(&bar, NULL, (unsigned)cores);
  job *js = calloc((size_t)cores, sizeof *js);
  pthread_t *th = calloc((size_t)cores, sizeof *th);
  for (int i = 0; i < cores; i++) {
    js[i] = (job){.id = i, .cores = cores, .lld = lld, .reps = reps, .cas = argv[1], .bar = &bar};
    pthread_create(&th[i], NULL, run, &js[i]);
  }
  for (int i = 0; i < cores; i++)
    pthread_join(th[i], NULL);
  for (int r = 0; r < js[0].nres; r++) {
    double sum = 0, lo = INFINITY, hi = 0;
    for (int i = 0; i < cores; i++) {
      sum += js[i].rate[r];
      lo = fmin(lo, js[i].rate[r]);
      hi = fmax(hi, js[i].rate[r]);
    }
    printf("%-72s %2d core(s) LLD %5d: %7.2f per core (%.2f-%.2f)\n", js[0].name[r], cores, lld, sum / cores, lo, hi);
  }
  return 0;
}
