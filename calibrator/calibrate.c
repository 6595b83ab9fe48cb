/*
 * simblas-calibrate -- measure the machine's real BLAS and write the model
 * file libsimblas reads.  See doc/calibration.md.
 *
 * Method, in short:
 *   1. a probe measures the dgemm and daxpy rates, to size the experiment;
 *   2. the design draws, for every op of blas.def, shapes log-uniformly up
 *      to a size whose call lasts about --max-call seconds, plus HPL-shaped
 *      calls, until the op's time budget is spent (HPL kernels get most);
 *   3. one worker per core (hwloc, pinned) runs the whole design, all
 *      cores at once as HPL runs, each in its own random order; every
 *      point is called once untimed (warm-up pass), then once in each of
 *      R timed passes (CLOCK_MONOTONIC), each pass in a fresh random
 *      order, so that a call follows calls of other shapes as in an
 *      application; the mean of its R times is the point's time; a call
 *      another task interrupted is timed in the thread's CPU time (a
 *      short one is made again);
 *   4. per op, per core and for the node: GSL weighted least squares with
 *      term selection on 20% held-out points, a sigma model, quality figures;
 *   5. the model is written to a temporary file and renamed over the
 *      output: an interrupted run leaves the previous model untouched.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include <dlfcn.h>
#include <errno.h>
#include <getopt.h>
#include <hwloc.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "calls.h"
#include "cpuclock.h"
#include "fit.h"
#include "model.h"
#include "sb_splitmix.h"
#include "simblas.h"

#ifndef SB_CALIBRATION_BLAS
#define SB_CALIBRATION_BLAS "libopenblas.so.0"
#endif
#ifndef SB_GNUPLOT
#define SB_GNUPLOT ""
#endif

/* ---- options ------------------------------------------------------------- */
static struct {
  const char *out, *summary, *blas, *routines;
  int quick, cores, reps, report;
  double budget, max_call;
  uint64_t seed;
} opt = {NULL, NULL, NULL, NULL, 0, 0, 0, 1, 0, 0, 1};

static volatile sig_atomic_t stop_requested;
static void on_signal(int sig) { stop_requested = sig; }

static _Noreturn void die(const char *fmt, ...)
{
  va_list ap;
  fputs("simblas-calibrate: ", stderr);
  va_start(ap, fmt);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  fputc('\n', stderr);
  exit(2);
}

static double now(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* ---- random numbers --------------------------------------------------------- */
static uint64_t rnd(uint64_t *s) { return sb_splitmix64(s); }
static double unif(uint64_t *s) { return (double)(rnd(s) >> 11) * 0x1p-53; }
static int64_t loguni(uint64_t *s, double lo, double hi)
{
  if (hi < lo)
    hi = lo;
  return (int64_t)llround(exp(log(lo) + unif(s) * (log(hi) - log(lo))));
}

/* ---- the experiment --------------------------------------------------------- */
typedef struct point {
  int op, variant;
  int64_t m, n, k;
  double est; /* estimated seconds for warm-up + repetitions */
} point;

/* rates measured by the probe, to estimate a call's duration */
static double rate3 = 1e10, rate12 = 1e9;
static int64_t maxdim = 2048; /* buffers hold maxdim^2 complex doubles */

static double estimate(int op, int64_t m, int64_t n, int64_t k)
{
  sb_call c = {.op = op, .m = m, .n = n, .k = k};
  double f = sb_call_flops(&c);
  /* HPL's row gathers run well below daxpy's streaming rate */
  double r = sb_ops[op].level == SB_LEVEL_3 ? rate3 : sb_ops[op].level == SB_LEVEL_M ? rate12 / 8 : rate12;
  return 2e-7 + f / r;
}

/* the largest size for which a call of op takes about max_call seconds */
static int64_t size_cap(int op, int dims)
{
  double coef;
  sb_op_flop_term(op, &coef);
  double rate = sb_ops[op].level == SB_LEVEL_3 ? rate3 : rate12;
  double s = pow(opt.max_call * rate / coef, 1.0 / dims);
  if (s > (double)maxdim)
    s = (double)maxdim;
  if (dims == 1 && s > (double)maxdim * (double)maxdim)
    s = (double)maxdim * (double)maxdim;
  return s < 16 ? 16 : (int64_t)s;
}

/* draw one shape for op, as its shape column says; half of the level-3
 * calls of HPL's kernels are HPL-shaped */
static void draw(int op, uint64_t *s, int64_t *m, int64_t *n, int64_t *k, int *variant)
{
  const sb_opinfo *o = &sb_ops[op];
  static const int nbs[] = {64, 128, 256, 384, 512};
  *variant = 0;
  *m = *n = *k = 0;
  switch (o->shape) {
  case SB_SHAPE_SCALAR:
    *n = 1;
    return;
  case SB_SHAPE_VECTOR:
    *n = loguni(s, 16, (double)size_cap(op, 1));
    return;
  case SB_SHAPE_GEMM: case SB_SHAPE_SIDED: case SB_SHAPE_RANKK:
    break;
  default: { /* matrices of level 2 and memory kernels */
    int64_t cap = size_cap(op, 2);
    int square = o->shape == SB_SHAPE_SQUARE || o->shape == SB_SHAPE_SQBAND;
    *m = loguni(s, 8, (double)cap);
    *n = square ? *m : loguni(s, 8, (double)cap);
    if (o->shape == SB_SHAPE_INPLACE)
      *n = *m;
    if (o->shape == SB_SHAPE_BAND || o->shape == SB_SHAPE_SQBAND)
      *k = loguni(s, 2, fmin((double)*n, 256));
    if (o->shape == SB_SHAPE_MOVE2) { /* M0 rows one way, M1 the other */
      *k = loguni(s, 1, (double)*m);
      if (*m + *k > maxdim)
        *m = maxdim - *k;
    }
    return;
  }
  }
  int64_t cap = size_cap(op, 3), nb = nbs[rnd(s) % 5];
  int hpl = o->focus == SB_FOCUS_HPL && unif(s) < 0.5;
  switch (o->shape) {
  case SB_SHAPE_GEMM:
    if (hpl) { /* trailing update: k = NB; or a long thin panel */
      *k = nb;
      *m = loguni(s, nb, (double)maxdim);
      *n = unif(s) < 0.3 ? nb : loguni(s, 8, (double)maxdim);
    } else {
      *m = loguni(s, 8, (double)cap);
      *n = loguni(s, 8, (double)cap);
      *k = loguni(s, 8, (double)cap);
    }
    break;
  case SB_SHAPE_SIDED:
    *m = hpl ? nb : loguni(s, 8, (double)cap);
    *n = loguni(s, 8, hpl ? (double)maxdim : (double)cap);
    *variant = !hpl && unif(s) < 0.5; /* side: Left (k = m) or Right (k = n) */
    *k = *variant ? *n : *m;
    break;
  default: /* rank-k updates, gemmt: n x n, inner k */
    *m = *n = loguni(s, 8, (double)cap);
    *k = loguni(s, 8, (double)cap);
    break;
  }
  /* keep every operand within the buffers */
  if (*m > maxdim) *m = maxdim;
  if (*n > maxdim) *n = maxdim;
  if (*k > maxdim) *k = maxdim;
}

/* share of the measuring time: the HPL level-3 kernels (96% of HPL's
 * time) most, then dsyrk, the other HPL kernels and the memory kernels,
 * level 3, level 2, level 1 */
static double weight(int op)
{
  const sb_opinfo *o = &sb_ops[op];
  if (o->focus == SB_FOCUS_HPL || o->level == SB_LEVEL_M)
    return o->level == SB_LEVEL_3 ? 0.14 : 0.006;
  if (o->focus == SB_FOCUS_LAPACK)
    return 0.05;
  return o->level == SB_LEVEL_3 ? 0.006 : o->level == SB_LEVEL_2 ? 0.0015 : 0.0006;
}

static point *design(const int *ops, int nops, size_t *npts)
{
  /* seconds of one worker's time per op: HPL kernels most, then level 3,
   * level 2, level 1 */
  double wsum = 0;
  for (int i = 0; i < nops; i++)
    wsum += weight(ops[i]);
  size_t cap = 1024, n = 0;
  point *p = malloc(sizeof *p * cap);
  uint64_t s = opt.seed;
  for (int i = 0; i < nops; i++) {
    int op = ops[i], l = sb_ops[op].level;
    double budget = opt.budget * weight(op) / wsum, spent = 0;
    int count = 0, min_points = 16,
        max_points = (sb_ops[op].focus == SB_FOCUS_HPL ? 4 : 1) * (l == SB_LEVEL_3 ? 4000 : l == SB_LEVEL_1 ? 400 : 1000);
    while ((spent < budget || count < min_points) && count < max_points) {
      if (n == cap)
        p = realloc(p, sizeof *p * (cap *= 2));
      draw(op, &s, &p[n].m, &p[n].n, &p[n].k, &p[n].variant);
      p[n].op = op;
      p[n].est = estimate(op, p[n].m, p[n].n, p[n].k) * (opt.reps + 1) + 2e-6;
      spent += p[n].est;
      n++;
      count++;
    }
  }
  *npts = n;
  return p;
}

/* ---- workers ------------------------------------------------------------------ */
typedef struct result {
  double t, sd;
} result;

typedef struct worker {
  int id;
  hwloc_topology_t topo;
  hwloc_obj_t core;
  const point *pts;
  size_t npts;
  result *res; /* per point */
  cal_bufs bufs;
  _Atomic double done_est;
  int pinned;
  /* calls another task interrupted (timed in CPU time), and the wall
   * time that task took from them */
  size_t interrupted, timed;
  double stolen, timed_wall;
  pthread_barrier_t *start; /* all start measuring together */
} worker;

static void *blas_handle;
static void *syms[SB_OP_COUNT];

static void fill(void *p, size_t bytes, uint64_t seed)
{
  /* small positive values: no overflow, no denormals, unit-triangular
   * solves stay bounded */
  double *d = p;
  size_t n = bytes / sizeof(double);
  for (size_t i = 0; i < n; i++)
    d[i] = (0.5 + unif(&seed)) / (double)maxdim;
}

/* one call of a point; time_one makes it and returns its wall time */
typedef struct one_call {
  cal_fn f;
  void *sym;
  const point *p;
  cal_bufs *bufs;
} one_call;

static double time_one(void *ctx)
{
  const one_call *c = ctx;
  double t0 = now();
  c->f(c->sym, c->p->m, c->p->n, c->p->k, c->p->variant, c->bufs);
  return now() - t0;
}

static void *run_worker(void *arg)
{
  worker *w = arg;
  if (w->core) {
    hwloc_cpuset_t set = hwloc_bitmap_dup(w->core->cpuset);
    hwloc_bitmap_singlify(set);
    w->pinned = hwloc_set_cpubind(w->topo, set, HWLOC_CPUBIND_THREAD) == 0;
    hwloc_bitmap_free(set);
  }
  size_t mat = ((size_t)maxdim * (size_t)maxdim * 16 + 63) / 64 * 64; /* aligned_alloc: a multiple of 64 */
  void **bufs[] = {&w->bufs.a, &w->bufs.b, &w->bufs.c, &w->bufs.x, &w->bufs.y};
  for (int i = 0; i < 5; i++) {
    /* first touch by the pinned thread: pages on the worker's NUMA node */
    if (!(*bufs[i] = aligned_alloc(64, mat)))
      die("out of memory for %zu MB of buffers per core; lower --max-call", 5 * mat >> 20);
    fill(*bufs[i], mat, (uint64_t)w->id * 7919 + (uint64_t)i);
  }
  /* this worker's own random order: what runs beside a call varies, as
   * it does between HPL's ranks (a synchronised design, every core on the
   * same shape at once, measured 7% core-to-core spread against 5% here) */
  /* each pass runs the level-3 points first, then the others, each group
   * in its random order (fit_first_group): a level-3 call follows level-3
   * calls, as HPL's update follows its own dgemm and dtrsm calls, and the
   * cores are in the level-3 phase at about the same time, as HPL's ranks
   * are.  Mixed with the level-1/2 calls, dgemm came out 4-7% slower than
   * in HPL (AMD EPYC VM, 2026-11-25: model -2.6% to -5.3% against
   * passthrough in four runs; grouped, -0.0% to +2.6%) */
  size_t *order = malloc(sizeof *order * w->npts), *tmp = malloc(sizeof *tmp * w->npts);
  unsigned char *lvl3 = malloc(w->npts ? w->npts : 1);
  if (!order || !tmp || !lvl3)
    die("out of memory for %zu points", w->npts);
  for (size_t i = 0; i < w->npts; i++) {
    order[i] = i;
    lvl3[i] = sb_ops[w->pts[i].op].level == SB_LEVEL_3;
  }
  uint64_t s = opt.seed ^ (0xA5A5ull * (uint64_t)(w->id + 1));
  for (size_t i = w->npts; i > 1; i--) {
    size_t j = rnd(&s) % i, t = order[i - 1];
    order[i - 1] = order[j];
    order[j] = t;
  }
  fit_first_group(order, w->npts, lvl3, tmp);
  /* the repetitions are interleaved: pass 0 calls every point once,
   * untimed (first touch, lazy initialisation), then each of the R timed
   * passes calls every point once, in a fresh random order.  A call thus
   * follows calls of other shapes, as in an application: R back-to-back
   * calls of one shape ran 3-6% faster than the same calls among others
   * (packing buffers, TLB and prefetchers trained on that shape), the bias
   * the trace replay showed against a back-to-back calibration */
  size_t nreps = (size_t)opt.reps;
  double *rep = malloc(sizeof *rep * w->npts * nreps), *warm = malloc(sizeof *warm * w->npts);
  if (!rep || !order || !warm)
    die("out of memory for %zu points", w->npts);
  /* the CPU-clock bracket's own cost: its reads' system calls count part
   * of themselves into the CPU time between them (the least of 200) */
  double bias = INFINITY;
  for (int r = 0; r < 200; r++) {
    double c0 = sb_cpu_clock_kernel(), t0 = now(), t1 = now(), c1 = sb_cpu_clock_kernel();
    (void)t0, (void)t1;
    bias = fmin(bias, c1 - c0);
  }
  pthread_barrier_wait(w->start); /* all cores start measuring together */
  for (int pass = 0; pass <= opt.reps && !stop_requested; pass++) {
    if (pass > 1) {
      for (size_t i = w->npts; i > 1; i--) {
        size_t j = rnd(&s) % i, t = order[i - 1];
        order[i - 1] = order[j];
        order[j] = t;
      }
      fit_first_group(order, w->npts, lvl3, tmp);
    }
    for (size_t oi = 0; oi < w->npts && !stop_requested; oi++) {
      size_t i = order[oi];
      const point *p = &w->pts[i];
      one_call c = {cal_ops[p->op].run, syms[p->op], p, &w->bufs};
      atomic_store(&w->done_est, atomic_load(&w->done_est) + p->est / (opt.reps + 1));
      if (pass == 0) { /* warm-up: its wall time sorts the point */
        warm[i] = time_one(&c);
        continue;
      }
      double wall, t;
      if (warm[i] >= FIT_BRACKET_MIN) { /* the CPU clock around it */
        double c0 = sb_cpu_clock_kernel();
        wall = time_one(&c);
        t = fit_call_time(wall, sb_cpu_clock_kernel() - c0, bias);
      } else { /* a short call: an interrupted one is made again */
        t = fit_short_time(time_one, &c, &wall);
      }
      if (t < wall) { /* interrupted */
        w->interrupted++;
        w->stolen += wall - t;
      }
      w->timed++;
      w->timed_wall += wall;
      rep[i * nreps + (size_t)(pass - 1)] = t;
    }
  }
  for (size_t i = 0; i < w->npts && !stop_requested; i++) {
    /* the mean, not the median: a simulated run adds durations up, so the
     * model must predict what calls take on average, slow ones included */
    const double *r = rep + i * nreps;
    double mean = 0, var = 0;
    for (size_t a = 0; a < nreps; a++)
      mean += r[a] / (double)nreps;
    for (size_t a = 0; a < nreps; a++)
      var += (r[a] - mean) * (r[a] - mean) / (double)(nreps > 1 ? nreps - 1 : 1);
    w->res[i].t = mean;
    w->res[i].sd = sqrt(var);
  }
  free(rep);
  free(warm);
  free(order);
  free(tmp);
  free(lvl3);
  for (int i = 0; i < 5; i++)
    free(*bufs[i]);
  return NULL;
}

/* ---- progress ------------------------------------------------------------------- */
static void progress(worker *ws, int nw, double total, double t0, int tty, double *last_plain)
{
  double done = 0;
  for (int i = 0; i < nw; i++)
    done += atomic_load(&ws[i].done_est);
  double frac = total > 0 ? done / (total * nw) : 1, el = now() - t0;
  if (frac > 1)
    frac = 1;
  double eta = frac > 0.01 ? el / frac - el : total;
  if (tty) {
    int bar = (int)(frac * 40);
    fprintf(stderr, "\r[%.*s%*s] %3.0f%%  %4.0fs elapsed, ETA %4.0fs ", bar,
            "########################################", 40 - bar, "", frac * 100, el, eta);
  } else if (el - *last_plain >= 10 || frac >= 1) {
    fprintf(stderr, "simblas-calibrate: %3.0f%% measured, %.0f s elapsed, about %.0f s left\n", frac * 100, el, eta);
    *last_plain = el;
  }
}

/* ---- output ------------------------------------------------------------------ */
/* fits are kept per model-file key: op, and op + SB_OP_COUNT for the
 * Right-side form of the routines that have sides */
#define NKEYS (SB_NVARIANTS * SB_OP_COUNT)
static const char *key_name(int key, char *buf, size_t len)
{
  int op = key % SB_OP_COUNT;
  snprintf(buf, len, "%s%s", sb_ops[op].name, key >= SB_OP_COUNT ? SB_RIGHT_SUFFIX : "");
  return buf;
}

static void split_name(int key, char *routine, char *prec)
{
  int op = key % SB_OP_COUNT;
  const char *name = sb_ops[op].name, *stem = sb_ops[op].stem, *sfx = key >= SB_OP_COUNT ? SB_RIGHT_SUFFIX : "";
  size_t pl = strlen(name) - strlen(stem);
  if (sb_ops[op].level == SB_LEVEL_M) { /* hpl_dlaswp00N: double precision */
    snprintf(routine, 32, "%s", name);
    snprintf(prec, 8, "d");
  } else if (sb_ops[op].fam == SB_FAM_iamax) { /* isamax: routine iamax, precision s */
    snprintf(routine, 32, "i%s", stem);
    snprintf(prec, 8, "%.*s", (int)pl - 1, name + 1);
  } else {
    snprintf(routine, 32, "%s%s", stem, sfx);
    snprintf(prec, 8, "%.*s", (int)pl, name);
  }
}

static void write_terms(FILE *f, const double *c, unsigned terms)
{
  for (int t = SB_NTERMS - 1; t >= 0; t--)
    if (terms & (1u << t))
      fprintf(f, " %s=%.15g", sb_term_names[t], c[t]);
}

static void write_line(FILE *f, int key, const fit_result *r)
{
  char kn[64];
  fprintf(f, "%-10s", key_name(key, kn, sizeof kn));
  write_terms(f, r->mu, r->terms);
  if (r->has_sigma) {
    fputs(" |", f);
    write_terms(f, r->sigma, r->terms);
  }
  fputc('\n', f);
  for (int i = 0; i < r->nsplit; i++) {
    const struct fit_piece *h = &r->hi[i];
    fprintf(f, "%s[%s>=%.17g]", kn, sb_term_names[r->split_dim], h->at);
    write_terms(f, h->mu, h->terms);
    if (h->has_sigma) {
      fputs(" |", f);
      write_terms(f, h->sigma, h->terms);
    }
    fputc('\n', f);
  }
}

typedef struct calib {
  int nops, ncores;
  const int *ops;
  fit_result *node;  /* per key */
  fit_result *cores; /* ncores * NKEYS */
  double reference_speed;
  char machine[256], topology[512], backend[256];
  double wall;
  size_t interrupted; /* timed calls other tasks interrupted */
  double stolen;      /* the wall time they took from them */
} calib;

static int write_model(const char *path, const calib *c)
{
  char dir[4096], tmp[4200];
  snprintf(dir, sizeof dir, "%s", path);
  char *slash = strrchr(dir, '/');
  if (slash)
    *slash = '\0';
  else
    strcpy(dir, ".");
  snprintf(tmp, sizeof tmp, "%s/.%s.tmp.XXXXXX", dir, slash ? slash + 1 : path);
  /* no signal between writing and renaming: either the new model is in
   * place or the old one is untouched */
  sigset_t all, old;
  sigfillset(&all);
  sigprocmask(SIG_BLOCK, &all, &old);
  int fd = mkstemp(tmp);
  if (fd < 0) {
    sigprocmask(SIG_SETMASK, &old, NULL);
    die("cannot write the model next to %s: %s; choose a writable path with -o", path, strerror(errno));
  }
  FILE *f = fdopen(fd, "w");
  time_t now_t = time(NULL);
  char date[64];
  strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", gmtime(&now_t));
  fprintf(f, "simblas-model %d\n", SIMBLAS_MODEL_FORMAT);
  fprintf(f, "# written by simblas-calibrate %s; read with simblas-calibrate --summary\n", PACKAGE_VERSION);
  fprintf(f, "meta machine \"%s\"\nmeta topology \"%s\"\nmeta cores %d\n", c->machine, c->topology, c->ncores);
  fprintf(f, "meta backend \"%s\"\nmeta date %s\nmeta mode %s\nmeta seed %llu\nmeta wall_s %.1f\n", c->backend, date,
          opt.quick ? "quick" : "full", (unsigned long long)opt.seed, c->wall);
  fprintf(f, "meta interrupted_calls %zu\nmeta stolen_s %.3f\n", c->interrupted, c->stolen);
  fprintf(f, "# reference-speed: the node model's dgemm rate at m = n = k = 4096, one core, all cores busy\n");
  fprintf(f, "reference-speed %.6g\n", c->reference_speed);
  char kn[64];
  for (int i = 0; i < c->nops; i++)
    for (int v = 0; v < sb_ops[c->ops[i]].variants; v++) {
      int key = v * SB_OP_COUNT + c->ops[i];
      const fit_result *r = &c->node[key];
      if (r->ok)
        fprintf(f, "quality %s n=%zu r2=%.4f median_rel_err=%.4f p95_rel_err=%.4f heldout=%zu scope=%s\n",
                key_name(key, kn, sizeof kn), r->n, r->r2, r->median_rel_err, r->p95_rel_err, r->n_scored,
                r->scored_ge_1ms ? "ge1ms" : "all");
    }
  for (int w = -1; w < (c->ncores > 1 ? c->ncores : 0); w++) {
    if (w < 0)
      fputs("set node\n", f);
    else
      fprintf(f, "set core%d\n", w);
    const fit_result *res = w < 0 ? c->node : &c->cores[(size_t)w * NKEYS];
    for (int i = 0; i < c->nops; i++)
      for (int v = 0; v < sb_ops[c->ops[i]].variants; v++) {
        int key = v * SB_OP_COUNT + c->ops[i];
        if (res[key].ok)
          write_line(f, key, &res[key]);
      }
  }
  fputs("end\n", f);
  int bad = fflush(f) != 0 || fsync(fd) != 0;
  bad |= fclose(f) != 0;
  if (bad || rename(tmp, path) != 0) {
    int e = errno;
    unlink(tmp);
    sigprocmask(SIG_SETMASK, &old, NULL);
    die("cannot write %s: %s", path, strerror(e));
  }
  sigprocmask(SIG_SETMASK, &old, NULL);
  return 0;
}

/* ---- report (gnuplot) ------------------------------------------------------------ */
static void report(const char *model_path, const calib *c, worker *ws, int nw, const point *pts, size_t npts)
{
  char dir[4200];
  snprintf(dir, sizeof dir, "%s.report", model_path);
  if (mkdir(dir, 0777) != 0 && errno != EEXIST) {
    fprintf(stderr, "simblas-calibrate: no report: cannot create %s: %s\n", dir, strerror(errno));
    return;
  }
  static const char *const show[] = {"dgemm", "dtrsm", "dsyrk", "dgemv", "dger", "daxpy", "idamax", "hpl_dlaswp01T"};
  char path[4400];
  snprintf(path, sizeof path, "%s/summary.txt", dir);
  FILE *sum = fopen(path, "w");
  if (sum) {
    fprintf(sum, "SimBLAS calibration of %s (%d cores), %s\nreference speed %.4g flop/s, wall %.0f s\n\n",
            c->machine, c->ncores, c->backend, c->reference_speed, c->wall);
    fprintf(sum, "%-8s %-4s %6s %8s %10s %10s  (held-out calls, >= 1 ms where enough)\n", "routine", "prec", "n",
            "r2", "median_err", "p95_err");
    for (int i = 0; i < c->nops; i++)
      for (int v = 0; v < sb_ops[c->ops[i]].variants; v++) {
        int key = v * SB_OP_COUNT + c->ops[i];
        const fit_result *r = &c->node[key];
        char rt[32], pr[8];
        split_name(key, rt, pr);
        if (r->ok)
          fprintf(sum, "%-10s %-4s %6zu %8.4f %9.2f%% %9.2f%%\n", rt, pr, r->n, r->r2, 100 * r->median_rel_err,
                  100 * r->p95_rel_err);
      }
    fclose(sum);
  }
  if (!*SB_GNUPLOT) {
    fprintf(stderr, "simblas-calibrate: gnuplot was not found at configure time: report %s has no figures\n", dir);
    return;
  }
  for (size_t s = 0; s < sizeof show / sizeof *show; s++) {
    int op = sb_op_lookup(show[s]);
    if (op < 0 || !c->node[op].ok)
      continue;
    snprintf(path, sizeof path, "%s/%s.dat", dir, show[s]);
    FILE *d = fopen(path, "w");
    if (!d)
      continue;
    fprintf(d, "# flops measured_s predicted_s core m n k model_key\n");
    for (int w = 0; w < nw; w++)
      for (size_t i = 0; i < npts; i++) {
        if (pts[i].op != op || !(ws[w].res[i].t > 0))
          continue;
        sb_call cl = {.op = op, .m = pts[i].m, .n = pts[i].n, .k = pts[i].k, .variant = pts[i].variant};
        double x = sb_call_flops(&cl);
        char kn[64];
        fprintf(d, "%.6g %.6g %.17g %d %lld %lld %lld %s\n", x, ws[w].res[i].t,
                fit_result_predict(&c->node[pts[i].variant * SB_OP_COUNT + op], pts[i].m, pts[i].n, pts[i].k), w,
                (long long)pts[i].m, (long long)pts[i].n, (long long)pts[i].k,
                key_name(pts[i].variant * SB_OP_COUNT + op, kn, sizeof kn));
      }
    fclose(d);
    snprintf(path, sizeof path, "%s/%s.gp", dir, show[s]);
    FILE *g = fopen(path, "w");
    if (!g)
      continue;
    fprintf(g,
            "set logscale xy\nset xlabel 'flops of the call'\nset ylabel 'seconds'\nset key top left\n"
            "set title '%s on %s: measured (all cores) and the fitted model'\nset grid\n"
            "plot '%s.dat' using 1:2 with points pt 7 ps 0.4 title 'measured', "
            "'%s.dat' using 1:3 with points pt 1 ps 0.6 lc rgb 'red' title 'model'\n",
            show[s], c->machine, show[s], show[s]);
    fclose(g);
    char cmd[9000];
    snprintf(cmd, sizeof cmd,
             "cd '%s' && '%s' -e \"set terminal svg size 900,600; set output '%s.svg'\" %s.gp && "
             "'%s' -e \"set terminal pngcairo size 900,600; set output '%s.png'\" %s.gp",
             dir, SB_GNUPLOT, show[s], show[s], SB_GNUPLOT, show[s], show[s]);
    if (system(cmd) != 0)
      fprintf(stderr, "simblas-calibrate: gnuplot failed for %s (figures skipped)\n", show[s]);
  }
  fprintf(stderr, "simblas-calibrate: report in %s\n", dir);
}

/* ---- --summary ------------------------------------------------------------------ */
static int summary(const char *path)
{
  FILE *f = fopen(path, "r");
  if (!f)
    die("cannot open %s: %s", path, strerror(errno));
  char *line = NULL;
  size_t cap = 0;
  int any = 0;
  while (getline(&line, &cap, f) >= 0) {
    char name[64];
    if (sscanf(line, "quality %63s", name) != 1)
      continue;
    int variant, op = sb_model_key(name, &variant);
    if (op < 0)
      continue;
    char rt[32], pr[8], *q;
    split_name(variant * SB_OP_COUNT + op, rt, pr);
    const char *keys[] = {"n=", "r2=", "median_rel_err=", "p95_rel_err="};
    printf("%s %s", rt, pr);
    for (int i = 0; i < 4; i++) {
      q = strstr(line, keys[i]);
      int len = q ? (int)strcspn(q, " \n") : 0;
      printf(" %.*s", len, q ? q : "");
    }
    putchar('\n');
    any = 1;
  }
  free(line);
  fclose(f);
  if (!any)
    die("%s has no quality lines: not written by simblas-calibrate?", path);
  return 0;
}

/* ---- main ------------------------------------------------------------------ */
static void usage(FILE *f)
{
  fprintf(f, "usage: simblas-calibrate [--quick] [-o MODEL] [options]\n"
              "       simblas-calibrate --summary MODEL\n"
              "Measures this machine's BLAS and writes a SimBLAS model file.\n"
              "  -o, --output FILE     model to write (default: ./simblas.model); written atomically\n"
              "  -q, --quick           short run (under a minute) for CI and demos\n"
              "      --budget SEC      measuring time per core (default 480; quick 30)\n"
              "      --max-call SEC    longest single call to draw (default 0.25; quick 0.05)\n"
              "      --reps N          timed repetitions per point (default 5; quick 3)\n"
              "      --cores N         workers, one pinned per core (default: all cores)\n"
              "      --routines LIST   only these ops, comma-separated (e.g. dgemm,dtrsm)\n"
              "      --blas LIB        the real BLAS to measure (default %s)\n"
              "      --seed N          experiment seed (default 1)\n"
              "      --no-report       no gnuplot figures\n"
              "      --summary MODEL   print the quality figures of a model\n",
          SB_CALIBRATION_BLAS);
}

static double parse_pos(const char *o, const char *v)
{
  char *e;
  double d = strtod(v, &e);
  if (e == v || *e || !(d > 0) || !isfinite(d))
    die("%s needs a positive number, not '%s'", o, v);
  return d;
}

int main(int argc, char **argv)
{
  static const struct option lo[] = {
      {"output", required_argument, 0, 'o'}, {"quick", no_argument, 0, 'q'},
      {"budget", required_argument, 0, 'b'}, {"max-call", required_argument, 0, 'M'},
      {"reps", required_argument, 0, 'r'},   {"cores", required_argument, 0, 'c'},
      {"routines", required_argument, 0, 'R'}, {"blas", required_argument, 0, 'B'},
      {"seed", required_argument, 0, 's'},   {"no-report", no_argument, 0, 'N'},
      {"summary", required_argument, 0, 'S'}, {"help", no_argument, 0, 'h'}, {0, 0, 0, 0}};
  int c;
  opterr = 0;
  while ((c = getopt_long(argc, argv, "o:qh", lo, NULL)) != -1) {
    switch (c) {
    case 'o': opt.out = optarg; break;
    case 'q': opt.quick = 1; break;
    case 'b': opt.budget = parse_pos("--budget", optarg); break;
    case 'M': opt.max_call = parse_pos("--max-call", optarg); break;
    case 'r': opt.reps = (int)parse_pos("--reps", optarg); break;
    case 'c': opt.cores = (int)parse_pos("--cores", optarg); break;
    case 'R': opt.routines = optarg; break;
    case 'B': opt.blas = optarg; break;
    case 's': opt.seed = strtoull(optarg, NULL, 0); break;
    case 'N': opt.report = 0; break;
    case 'S': opt.summary = optarg; break;
    case 'h': usage(stdout); return 0;
    default:
      fprintf(stderr, "simblas-calibrate: unknown or incomplete option '%s'\n", argv[optind - 1]);
      usage(stderr);
      return 2;
    }
  }
  if (optind < argc)
    die("unexpected argument '%s' (see --help)", argv[optind]);
  if (opt.summary)
    return summary(opt.summary);
  if (!opt.out)
    opt.out = "simblas.model";
  if (!opt.budget)
    opt.budget = opt.quick ? 30 : 480;
  if (!opt.max_call)
    opt.max_call = opt.quick ? 0.05 : 0.25;
  if (!opt.reps)
    opt.reps = opt.quick ? 3 : 5;
  if (opt.reps < 2)
    die("--reps must be at least 2 (the noise model needs repetitions)");

  /* check the output before spending minutes */
  {
    char dir[4096];
    snprintf(dir, sizeof dir, "%s", opt.out);
    char *sl = strrchr(dir, '/');
    if (sl)
      *sl = '\0';
    else
      strcpy(dir, ".");
    struct stat st;
    if (stat(opt.out, &st) == 0 && S_ISDIR(st.st_mode))
      die("-o %s is a directory; give a file name, e.g. -o %s/simblas.model", opt.out, opt.out);
    if (access(dir, W_OK) != 0)
      die("cannot write the model into %s: %s; choose another path with -o", dir, strerror(errno));
  }

  /* the real BLAS, one thread: each worker is one core */
  setenv("OPENBLAS_NUM_THREADS", "1", 1);
  setenv("OMP_NUM_THREADS", "1", 1);
  const char *blas = opt.blas ? opt.blas : SB_CALIBRATION_BLAS;
  if (!(blas_handle = dlopen(blas, RTLD_NOW | RTLD_LOCAL)))
    die("cannot load the BLAS to measure, %s: %s; name one with --blas (or configure --with-calibration-blas)",
        blas, dlerror());
  void (*threads)(int) = (void (*)(int))dlsym(blas_handle, "openblas_set_num_threads");
  if (threads)
    threads(1);
  char *(*config)(void) = (char *(*)(void))dlsym(blas_handle, "openblas_get_config");

  /* which ops */
  int ops[SB_OP_COUNT], nops = 0, skipped = 0;
  char skipped_names[4096] = "";
  for (int op = 0; op < SB_OP_COUNT; op++) {
    if (opt.routines) {
      char pat[80];
      snprintf(pat, sizeof pat, ",%s,", sb_ops[op].name);
      char list[4096];
      snprintf(list, sizeof list, ",%s,", opt.routines);
      if (!strstr(list, pat))
        continue;
    }
    if (!cal_ops[op].symbol) { /* kernels.def: measured in plain C */
      syms[op] = (void *)cal_ops[op].run;
      ops[nops++] = op;
      continue;
    }
    if (!(syms[op] = dlsym(blas_handle, cal_ops[op].symbol))) {
      skipped++;
      if (strlen(skipped_names) < sizeof skipped_names - 16) {
        strcat(skipped_names, " ");
        strcat(skipped_names, sb_ops[op].name);
      }
      continue;
    }
    ops[nops++] = op;
  }
  if (opt.routines) { /* every name must exist */
    char list[4096], *save = NULL;
    snprintf(list, sizeof list, "%s", opt.routines);
    for (char *t = strtok_r(list, ",", &save); t; t = strtok_r(NULL, ",", &save))
      if (sb_op_lookup(t) < 0)
        die("--routines: unknown routine '%s' (names as in the model file: dgemm, ztrsm, idamax ...)", t);
  }
  if (!nops)
    die("nothing to measure: %s has none of the requested routines", blas);

  /* topology and workers */
  hwloc_topology_t topo;
  hwloc_topology_init(&topo);
  hwloc_topology_load(topo);
  int ncores = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_CORE);
  if (ncores < 1)
    ncores = 1;
  if (opt.cores > ncores)
    fprintf(stderr, "simblas-calibrate: --cores %d: this machine has %d core(s); measuring on %d\n", opt.cores,
            ncores, ncores);
  else if (opt.cores > 0)
    ncores = opt.cores;
  calib cal = {0};
  cal.ncores = ncores;
  hwloc_obj_t pkg = hwloc_get_obj_by_type(topo, HWLOC_OBJ_PACKAGE, 0);
  const char *cpu = pkg ? hwloc_obj_get_info_by_name(pkg, "CPUModel") : NULL;
  snprintf(cal.machine, sizeof cal.machine, "%s", cpu ? cpu : "unknown CPU");
  {
    hwloc_obj_t l3 = hwloc_get_obj_by_type(topo, HWLOC_OBJ_L3CACHE, 0);
    hwloc_obj_t l2 = hwloc_get_obj_by_type(topo, HWLOC_OBJ_L2CACHE, 0);
    snprintf(cal.topology, sizeof cal.topology, "%d packages, %d NUMA nodes, %d cores, %d PUs, L2 %llu KiB, L3 %llu KiB",
             hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PACKAGE), hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_NUMANODE),
             hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_CORE), hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PU),
             l2 ? (unsigned long long)l2->attr->cache.size >> 10 : 0ull,
             l3 ? (unsigned long long)l3->attr->cache.size >> 10 : 0ull);
  }
  Dl_info di;
  snprintf(cal.backend, sizeof cal.backend, "%s%s%s", config ? config() : blas,
           dladdr(syms[ops[0]], &di) && di.dli_fname ? " at " : "", dladdr(syms[ops[0]], &di) ? di.dli_fname : "");

  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_signal;
  sigaction(SIGINT, &sa, NULL);
  sigaction(SIGTERM, &sa, NULL);
  sigaction(SIGHUP, &sa, NULL);

  double t0 = now();
  /* probe: dgemm and daxpy rates on one core, to size the design */
  {
    int gop = sb_op_lookup("dgemm"), aop = sb_op_lookup("daxpy");
    void *g = dlsym(blas_handle, "dgemm_"), *a = dlsym(blas_handle, "daxpy_");
    maxdim = 512;
    cal_bufs pb;
    size_t bytes = (size_t)512 * 512 * 16;
    pb.a = malloc(bytes); pb.b = malloc(bytes); pb.c = malloc(bytes); pb.x = malloc(bytes); pb.y = malloc(bytes);
    fill(pb.a, bytes, 1); fill(pb.b, bytes, 2); fill(pb.c, bytes, 3); fill(pb.x, bytes, 4); fill(pb.y, bytes, 5);
    if (g) {
      cal_ops[gop].run(g, 384, 384, 384, 0, &pb);
      double best = INFINITY;
      for (int r = 0; r < 3; r++) {
        double s = now();
        cal_ops[gop].run(g, 384, 384, 384, 0, &pb);
        best = fmin(best, now() - s);
      }
      rate3 = 2.0 * 384 * 384 * 384 / best;
    }
    if (a) {
      double best = INFINITY;
      for (int r = 0; r < 5; r++) {
        double s = now();
        cal_ops[aop].run(a, 0, 200000, 0, 0, &pb);
        best = fmin(best, now() - s);
      }
      rate12 = 2.0 * 200000 / best;
    }
    free(pb.a); free(pb.b); free(pb.c); free(pb.x); free(pb.y);
    /* buffers: the largest level-3 operand the time cap allows */
    maxdim = (int64_t)fmin(4096, fmax(512, cbrt(opt.max_call * rate3 / 2) * 2));
  }
  size_t npts;
  point *pts = design(ops, nops, &npts);
  double total_est = 0;
  for (size_t i = 0; i < npts; i++)
    total_est += pts[i].est;
  fprintf(stderr,
          "simblas-calibrate: %s, %d core(s); %s\n"
          "simblas-calibrate: %d routines (%d not in this BLAS), %zu shapes x %d repetitions on every core, "
          "about %.0f s (probe: dgemm %.1f GFlop/s, daxpy %.2f GFlop/s)\n",
          cal.machine, ncores, cal.backend, nops, skipped, npts, opt.reps, total_est, rate3 / 1e9, rate12 / 1e9);

  worker *ws = calloc((size_t)ncores, sizeof *ws);
  pthread_t *th = calloc((size_t)ncores, sizeof *th);
  pthread_barrier_t start;
  pthread_barrier_init(&start, NULL, (unsigned)ncores);
  for (int w = 0; w < ncores; w++) {
    ws[w].start = &start;
    ws[w].id = w;
    ws[w].topo = topo;
    ws[w].core = hwloc_get_obj_by_type(topo, HWLOC_OBJ_CORE, (unsigned)w);
    ws[w].pts = pts;
    ws[w].npts = npts;
    ws[w].res = calloc(npts, sizeof *ws[w].res);
    if (pthread_create(&th[w], NULL, run_worker, &ws[w]) != 0)
      die("cannot start worker %d", w);
  }
  int tty = isatty(2), alive = ncores;
  char *joined = calloc((size_t)ncores, 1);
  double last_plain = 0;
  while (alive) {
    for (int w = 0; w < ncores; w++)
      if (!joined[w] && pthread_tryjoin_np(th[w], NULL) == 0) {
        joined[w] = 1;
        alive--;
      }
    progress(ws, ncores, total_est, t0, tty, &last_plain);
    struct timespec ts = {0, 250000000};
    if (alive)
      nanosleep(&ts, NULL);
  }
  free(joined);
  pthread_barrier_destroy(&start);
  progress(ws, ncores, total_est, t0, tty, &last_plain);
  if (tty)
    fputc('\n', stderr);
  if (stop_requested) {
    fprintf(stderr, "simblas-calibrate: interrupted (signal %d); %s left untouched\n", (int)stop_requested, opt.out);
    return 130;
  }

  /* other tasks on the cores: the calls they interrupted were timed in
   * CPU time (fit_call_time), which corrects the time slices they took
   * but not what they did to the caches and memory bandwidth */
  size_t timed = 0;
  double timed_wall = 0;
  for (int w = 0; w < ncores; w++) {
    cal.interrupted += ws[w].interrupted;
    cal.stolen += ws[w].stolen;
    timed += ws[w].timed;
    timed_wall += ws[w].timed_wall;
  }
  if (cal.interrupted) {
    double share = timed_wall > 0 ? cal.stolen / timed_wall : 0;
    fprintf(stderr,
            "simblas-calibrate: other processes interrupted %zu of %zu timed calls and took %.1f s (%.1f%%) of "
            "their wall time; those calls are timed in CPU time, the short ones made again%s\n",
            cal.interrupted, timed, cal.stolen, 100 * share,
            share > 0.05 ? ", but the others' use of the caches and memory is in every time: for the best "
                           "model, stop them and run the calibration again"
                         : "");
  }

  /* fit: per core, and pooled for the node */
  cal.nops = nops;
  cal.ops = ops;
  cal.node = calloc(NKEYS, sizeof *cal.node);
  cal.cores = calloc((size_t)ncores * NKEYS, sizeof *cal.cores);
  fit_point *fp = malloc(sizeof *fp * npts * (size_t)ncores);
  for (int i = 0; i < nops; i++)
    for (int v = 0; v < sb_ops[ops[i]].variants; v++) {
      int op = ops[i], key = v * SB_OP_COUNT + op;
      size_t nn = 0;
      for (int w = 0; w < ncores; w++) {
        size_t start = nn;
        for (size_t j = 0; j < npts; j++)
          if (pts[j].op == op && pts[j].variant == v && ws[w].res[j].t > 0)
            fp[nn++] = (fit_point){pts[j].m, pts[j].n, pts[j].k, ws[w].res[j].t, ws[w].res[j].sd, opt.reps, 0};
        fit_holdout(fp + start, nn - start, 0.2, opt.seed + (uint64_t)key * 31 + (uint64_t)w);
        if (ncores > 1)
          fit_model(op, fp + start, nn - start, &cal.cores[(size_t)w * NKEYS + (size_t)key]);
      }
      char kn[64];
      if (nn && fit_model(op, fp, nn, &cal.node[key]) != 0)
        fprintf(stderr, "simblas-calibrate: could not fit %s (%zu points); it will use the fallback\n",
                key_name(key, kn, sizeof kn), nn);
    }
  free(fp);
  int gop = sb_op_lookup("dgemm");
  cal.reference_speed = rate3;
  if (cal.node[gop].ok) { /* the node model's rate for a large dgemm */
    double big = 4096, t = fit_result_predict(&cal.node[gop], 4096, 4096, 4096);
    if (t > 0)
      cal.reference_speed = 2 * big * big * big / t;
  }
  cal.wall = now() - t0;
  write_model(opt.out, &cal);
  if (opt.report)
    report(opt.out, &cal, ws, ncores, pts, npts);
  for (int i = 0; i < nops; i++) {
    int op = ops[i];
    if (sb_ops[op].focus == SB_FOCUS_NONE)
      continue;
    if (!cal.node[op].ok)
      continue;
    const fit_result *r = &cal.node[op];
    fprintf(stderr, "  %-7s n=%-5zu r2=%.4f median_rel_err=%5.2f%% p95_rel_err=%6.2f%% (%zu held-out calls%s)\n",
            sb_ops[op].name, r->n, r->r2, 100 * r->median_rel_err, 100 * r->p95_rel_err, r->n_scored,
            r->scored_ge_1ms ? " >= 1 ms" : ", all sizes");
  }
  fprintf(stderr, "simblas-calibrate: wrote %s (reference speed %.3g flop/s) in %.1f s wall time\n", opt.out,
          cal.reference_speed, cal.wall);
  if (skipped)
    fprintf(stderr, "simblas-calibrate: not in %s, so modelled by flop count:%s\n", blas, skipped_names);
  for (int w = 0; w < ncores; w++)
    free(ws[w].res);
  free(ws);
  free(th);
  free(pts);
  hwloc_topology_destroy(topo);
  return 0;
}
