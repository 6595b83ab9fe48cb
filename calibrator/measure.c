/*
 * measure.c -- see measure.h.
 */
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>

#include "calls.h"
#include "cpuclock.h"
#include "die.h"
#include "fit.h"
#include "measure.h"
#include "sb_splitmix.h"

volatile sig_atomic_t cal_stop;
static void on_signal(int sig) { cal_stop = sig; }

void cal_catch_signals(void)
{
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_signal;
  sigaction(SIGINT, &sa, NULL);
  sigaction(SIGTERM, &sa, NULL);
  sigaction(SIGHUP, &sa, NULL);
}

_Noreturn void cal_die(const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  sb_vdie("simblas-calibrate", fmt, ap);
}

double cal_now(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static uint64_t rnd(uint64_t *s) { return sb_splitmix64(s); }
static double unif(uint64_t *s) { return (double)(rnd(s) >> 11) * 0x1p-53; }

typedef struct worker {
  int id;
  const cal_design *d;
  void *const *syms;
  hwloc_topology_t topo;
  hwloc_obj_t core;
  const cal_point *pts;
  size_t npts;
  cal_result *res; /* per point */
  cal_bufs bufs;
  _Atomic double done_est;
  int pinned;
  /* calls another task interrupted (timed in CPU time), and the wall
   * time that task took from them */
  size_t interrupted, timed;
  double stolen, timed_wall;
  double drift; /* (max - min) / mean of the timed passes' totals */
  double *pass_tot; /* each timed pass's total, in order (d->reps of them) */
  pthread_barrier_t *start; /* all start measuring together */
  struct solo_sync *sync;   /* the solo pairs' shared flags */
} worker;

/* the solo pairs' flags, shared by the workers: whether to stop (set by
 * core 0 before a barrier, read by all after it, so that all leave the
 * rounds together), and whether core 0's busy call is over */
typedef struct solo_sync {
  _Atomic int stop, busy_done;
} solo_sync;

static void fill(void *p, size_t bytes, uint64_t seed, int64_t maxdim)
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
  const cal_point *p;
  cal_bufs *bufs;
} one_call;

static double time_one(void *ctx)
{
  const one_call *c = ctx;
  const cal_point *p = c->p;
  cal_bufs *b = c->bufs;
  const int64_t lld = b->lld, lcols = b->lcols;
  if (p->ld) { /* the same local matrix seen with another leading dimension (design.h) */
    b->lcols = lcols * lld / p->ld;
    b->lld = p->ld;
  }
  double t0 = cal_now();
  if (p->layout)
    cal_hpl_call(p->op, c->sym, p->m, p->n, p->k, p->variant, p->form, b);
  else
    c->f(c->sym, p->m, p->n, p->k, p->variant, b);
  double t = cal_now() - t0;
  b->lld = lld;
  b->lcols = lcols;
  return t;
}

/* HPL's local matrix of a worker: lld x lcols, first touched by it */
static void local_matrix(worker *w)
{
  size_t n = (size_t)w->d->lld * (size_t)w->d->lcols, bytes = (n * sizeof(double) + 63) / 64 * 64;
  if (!(w->bufs.local = aligned_alloc(64, bytes)) || !(w->bufs.rows = malloc(sizeof(int) * (size_t)w->d->lld)))
    cal_die("out of memory for HPL's local matrix (%zu MB per core)", bytes >> 20);
  fill(w->bufs.local, bytes, (uint64_t)w->id * 104729 + 17, w->d->lld);
  w->bufs.lld = w->d->lld;
  w->bufs.lcols = w->d->lcols;
  w->bufs.rng = w->d->seed ^ (0x9E3779B97F4A7C15ull * (uint64_t)(w->id + 1));
}

/* one timed call of a point whose warm-up took `warm`: its time with what
 * other tasks took from it left out, counted in w's interruptions */
static double timed_call(worker *w, one_call *c, double warm, double bias)
{
  double wall, t;
  if (warm >= FIT_BRACKET_MIN) { /* the CPU clock around it */
    double c0 = sb_cpu_clock_kernel();
    wall = time_one(c);
    t = fit_call_time(wall, sb_cpu_clock_kernel() - c0, bias);
  } else { /* a short call: an interrupted one is made again */
    t = fit_short_time(time_one, c, &wall);
  }
  if (t < wall) { /* interrupted */
    w->interrupted++;
    w->stolen += wall - t;
  }
  w->timed++;
  w->timed_wall += wall;
  return t;
}

/* the mean of x[0], x[stride], ... (n of them) and their spread (the
 * sample standard deviation; 0 for one) */
static cal_result mean_sd(const double *x, size_t n, size_t stride)
{
  double mean = 0, var = 0;
  for (size_t a = 0; a < n; a++)
    mean += x[a * stride] / (double)n;
  for (size_t a = 0; a < n; a++)
    var += (x[a * stride] - mean) * (x[a * stride] - mean) / (double)(n > 1 ? n - 1 : 1);
  return (cal_result){.t = mean, .sd = sqrt(var)};
}

/* dgemm's leading-dimension pairs (design.h): after the passes, every
 * core at once, d->ld_rounds rounds; in each the pairs in a fresh random
 * order, each pair's two calls back to back, the one at the lld first in
 * even rounds and second in odd ones (a call's neighbour warms or cools
 * it alike in both orders).  Each call's mean and spread into its result,
 * and the median of the rounds' ratios into the second's */
static void ld_pairs(worker *w, double bias, uint64_t *s)
{
  size_t np = 0, R = (size_t)(w->d->ld_rounds > 0 ? w->d->ld_rounds : 0);
  for (size_t i = 0; i + 1 < w->npts; i++)
    np += w->pts[i].pair == 1 && w->pts[i + 1].pair == 2;
  pthread_barrier_wait(w->start); /* all cores together, as in HPL's update */
  if (!np || !R || cal_stop)
    return;
  size_t *first = malloc(sizeof *first * np), *order = malloc(sizeof *order * np);
  double *t = malloc(sizeof *t * np * R * 2), *ratio = malloc(sizeof *ratio * R);
  if (!first || !order || !t || !ratio)
    cal_die("out of memory for %zu pairs", np);
  np = 0;
  for (size_t i = 0; i + 1 < w->npts; i++)
    if (w->pts[i].pair == 1 && w->pts[i + 1].pair == 2)
      order[np] = np, first[np++] = i;
  for (size_t j = 0; j < np * 2; j++) { /* warm-up: each call once */
    const cal_point *p = &w->pts[first[j / 2] + j % 2];
    one_call c = {cal_ops[p->op].run, w->syms[p->op], p, &w->bufs};
    time_one(&c);
  }
  size_t r = 0;
  for (; r < R && !cal_stop; r++) {
    for (size_t j = np; j > 1; j--) {
      size_t x = sb_splitmix64(s) % j, y = order[j - 1];
      order[j - 1] = order[x];
      order[x] = y;
    }
    for (size_t o = 0; o < np * 2 && !cal_stop; o++) {
      size_t j = order[o / 2], h = (r & 1) ? 1 - o % 2 : o % 2;
      const cal_point *p = &w->pts[first[j] + h];
      one_call c = {cal_ops[p->op].run, w->syms[p->op], p, &w->bufs};
      atomic_store(&w->done_est, atomic_load(&w->done_est) + p->est / (double)R);
      t[(j * R + r) * 2 + h] = timed_call(w, &c, FIT_BRACKET_MIN, bias);
    }
  }
  if (r == R) /* not stopped: every round's calls made */
    for (size_t j = 0; j < np; j++) {
      for (size_t h = 0; h < 2; h++)
        w->res[first[j] + h] = mean_sd(t + j * R * 2 + h, R, 2);
      for (size_t q = 0; q < R; q++)
        ratio[q] = t[(j * R + q) * 2 + 1] / t[(j * R + q) * 2];
      gsl_sort(ratio, 1, R);
      w->res[first[j] + 1].ratio = gsl_stats_median_from_sorted_data(ratio, 1, R);
    }
  free(first);
  free(order);
  free(t);
  free(ratio);
}

/* the solo pairs (design.h CAL_SOLO): for each solo point, core 0 makes
 * the call again and again in two states, in turn first: busy, every
 * other core making the same call until core 0 is done, and alone, the
 * others blocked in the barrier.  In each state, calls for CAL_SOLO_LEAD
 * seconds untimed, then for CAL_SOLO_WINDOW seconds timed, so that the
 * state is the machine's, not a blend with the one before (on the Zen 5
 * VM, 2026-11-29, held 1 s or switched every 0.1 s alike: dgemm alone
 * -0.1% to +1.0% faster; the same 4096 x 4096 x 128 dgemm beside a
 * separate process's, stopped and resumed every 2 s, 1.6%).  The
 * median over d->solo_rounds rounds of busy over alone (the timed calls'
 * mean) into the point's result (core 0's), with the alone calls' mean
 * and spread over the rounds */
static double solo_state(worker *w, one_call *c, int timed_core, double bias)
{
  solo_sync *sy = w->sync;
  if (!timed_core) { /* busy: until core 0 is done */
    do
      time_one(c);
    while (!atomic_load(&sy->busy_done));
    return 0;
  }
  double t0 = cal_now(), sum = 0;
  size_t n = 0;
  while (cal_now() - t0 < CAL_SOLO_LEAD)
    time_one(c);
  t0 = cal_now();
  while (!n || cal_now() - t0 < CAL_SOLO_WINDOW) {
    sum += timed_call(w, c, FIT_BRACKET_MIN, bias);
    n++;
  }
  atomic_store(&sy->busy_done, 1);
  return sum / (double)n;
}

static void solo_pairs(worker *w, double bias)
{
  size_t R = (size_t)(w->d->solo_rounds > 0 ? w->d->solo_rounds : 0), np = 0;
  for (size_t i = 0; i < w->npts; i++)
    np += w->pts[i].solo;
  if (!np || !R) /* the same for every worker: none waits for another */
    return;
  solo_sync *sy = w->sync;
  double *t = calloc(np * R * 2, sizeof *t), *ratio = malloc(sizeof *ratio * R);
  size_t *idx = malloc(sizeof *idx * np);
  if (!t || !ratio || !idx)
    cal_die("out of memory for %zu solo pairs", np);
  np = 0;
  for (size_t i = 0; i < w->npts; i++)
    if (w->pts[i].solo)
      idx[np++] = i;
  if (w->id == 0)
    fprintf(stderr, "simblas-calibrate: one core alone against every core busy (the solo pairs): %zu call(s), %zu "
                    "rounds, about %.0f s\n", np, R, (double)(np * R) * 2 * (CAL_SOLO_LEAD + CAL_SOLO_WINDOW));
  size_t r = 0;
  for (; r < R; r++) {
    for (size_t j = 0; j < np; j++)
      for (size_t o = 0; o < 2; o++) {
        size_t alone = (r & 1) ? 1 - o : o; /* busy first in even rounds */
        const cal_point *p = &w->pts[idx[j]];
        one_call c = {cal_ops[p->op].run, w->syms[p->op], p, &w->bufs};
        if (w->id == 0) {
          atomic_store(&sy->stop, cal_stop != 0);
          atomic_store(&sy->busy_done, 0);
        }
        pthread_barrier_wait(w->start);
        if (atomic_load(&sy->stop))
          goto out;
        if (w->id == 0) {
          atomic_store(&w->done_est, atomic_load(&w->done_est) + p->est / (double)(R * 2));
          t[(j * R + r) * 2 + alone] = solo_state(w, &c, 1, bias);
        } else if (!alone)
          solo_state(w, &c, 0, bias);
        pthread_barrier_wait(w->start);
      }
  }
out:
  if (w->id == 0 && r == R)
    for (size_t j = 0; j < np; j++) {
      for (size_t q = 0; q < R; q++)
        ratio[q] = t[(j * R + q) * 2] / t[(j * R + q) * 2 + 1];
      w->res[idx[j]] = mean_sd(t + j * R * 2 + 1, R, 2);
      w->res[idx[j]].ratio = fit_median_se(ratio, R, &w->res[idx[j]].ratio_se);
    }
  free(t);
  free(ratio);
  free(idx);
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
  size_t dim = (size_t)(w->d->bufdim ? w->d->bufdim : w->d->maxdim);
  size_t mat = (dim * dim * 16 + 63) / 64 * 64; /* aligned_alloc: a multiple of 64 */
  void **bufs[] = {&w->bufs.a, &w->bufs.b, &w->bufs.c, &w->bufs.x, &w->bufs.y};
  for (int i = 0; i < 5; i++) {
    /* first touch by the pinned thread: pages on the worker's NUMA node */
    if (!(*bufs[i] = aligned_alloc(64, mat)))
      cal_die("out of memory for %zu MB of buffers per core; lower --max-call", 5 * mat >> 20);
    fill(*bufs[i], mat, (uint64_t)w->id * 7919 + (uint64_t)i, w->d->maxdim);
  }
  local_matrix(w);
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
    cal_die("out of memory for %zu points", w->npts);
  for (size_t i = 0; i < w->npts; i++) {
    order[i] = i;
    lvl3[i] = !w->d->mixed_order && sb_ops[w->pts[i].op].level == SB_LEVEL_3;
  }
  uint64_t s = w->d->seed ^ (0xA5A5ull * (uint64_t)(w->id + 1));
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
  size_t nreps = (size_t)w->d->reps;
  double *rep = malloc(sizeof *rep * w->npts * nreps), *warm = malloc(sizeof *warm * w->npts);
  w->pass_tot = calloc(nreps, sizeof *w->pass_tot);
  if (!rep || !order || !warm || !w->pass_tot)
    cal_die("out of memory for %zu points", w->npts);
  /* the CPU-clock bracket's own cost: its reads' system calls count part
   * of themselves into the CPU time between them (the least of 200) */
  double bias = INFINITY;
  for (int r = 0; r < 200; r++) {
    double c0 = sb_cpu_clock_kernel(), t0 = cal_now(), t1 = cal_now(), c1 = sb_cpu_clock_kernel();
    (void)t0, (void)t1;
    bias = fmin(bias, c1 - c0);
  }
  pthread_barrier_wait(w->start); /* all cores start measuring together */
  for (int pass = 0; pass <= w->d->reps && !cal_stop; pass++) {
    if (pass > 1) {
      for (size_t i = w->npts; i > 1; i--) {
        size_t j = rnd(&s) % i, t = order[i - 1];
        order[i - 1] = order[j];
        order[j] = t;
      }
      fit_first_group(order, w->npts, lvl3, tmp);
    }
    for (size_t oi = 0; oi < w->npts && !cal_stop; oi++) {
      size_t i = order[oi];
      const cal_point *p = &w->pts[i];
      if (p->pair || p->solo) /* the pairs' own phases, below */
        continue;
      one_call c = {cal_ops[p->op].run, w->syms[p->op], p, &w->bufs};
      atomic_store(&w->done_est, atomic_load(&w->done_est) + p->est / (w->d->reps + 1));
      if (pass == 0) { /* warm-up: its wall time sorts the point */
        warm[i] = time_one(&c);
        continue;
      }
      rep[i * nreps + (size_t)(pass - 1)] = timed_call(w, &c, warm[i], bias);
    }
  }
  ld_pairs(w, bias, &s);
  solo_pairs(w, bias);
  /* drift: every timed pass makes the same calls, so their totals differ
   * by what the machine did */
  double lo = INFINITY, hi = 0, sum = 0;
  for (size_t a = 0; a < nreps && !cal_stop; a++) {
    double tot = 0;
    for (size_t i = 0; i < w->npts; i++)
      tot += w->pts[i].pair || w->pts[i].solo ? 0 : rep[i * nreps + a];
    lo = fmin(lo, tot), hi = fmax(hi, tot), sum += tot;
    w->pass_tot[a] = tot;
  }
  w->drift = sum > 0 ? (hi - lo) / (sum / (double)nreps) : 0;
  for (size_t i = 0; i < w->npts && !cal_stop; i++) {
    if (w->pts[i].pair || w->pts[i].solo) /* ld_pairs' and solo_pairs' */
      continue;
    /* the mean, not the median: a simulated run adds durations up, so the
     * model must predict what calls take on average, slow ones included */
    w->res[i] = mean_sd(rep + i * nreps, nreps, 1);
  }
  free(rep);
  free(warm);
  free(order);
  free(tmp);
  free(lvl3);
  for (int i = 0; i < 5; i++)
    free(*bufs[i]);
  free(w->bufs.local);
  free(w->bufs.rows);
  return NULL;
}

/* ---- progress ------------------------------------------------------------------- */
static void progress(worker *ws, int nw, double total, double t0, int tty, double *last_plain)
{
  double done = 0;
  for (int i = 0; i < nw; i++)
    done += atomic_load(&ws[i].done_est);
  double frac = total > 0 ? done / (total * nw) : 1, el = cal_now() - t0;
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


void cal_probe(void *dgemm, void *daxpy, double *rate3, double *rate12)
{
  int gop = sb_op_lookup("dgemm"), aop = sb_op_lookup("daxpy");
  cal_bufs pb = {0};
  size_t bytes = (size_t)512 * 512 * 16;
  void **bufs[] = {&pb.a, &pb.b, &pb.c, &pb.x, &pb.y};
  for (int i = 0; i < 5; i++) {
    if (!(*bufs[i] = malloc(bytes)))
      cal_die("out of memory for the probe's buffers");
    fill(*bufs[i], bytes, (uint64_t)i + 1, 512);
  }
  if (dgemm) {
    cal_ops[gop].run(dgemm, 384, 384, 384, 0, &pb);
    double best = INFINITY;
    for (int r = 0; r < 3; r++) {
      double s = cal_now();
      cal_ops[gop].run(dgemm, 384, 384, 384, 0, &pb);
      best = fmin(best, cal_now() - s);
    }
    *rate3 = 2.0 * 384 * 384 * 384 / best;
  }
  if (daxpy) {
    double best = INFINITY;
    for (int r = 0; r < 5; r++) {
      double s = cal_now();
      cal_ops[aop].run(daxpy, 0, 200000, 0, 0, &pb);
      best = fmin(best, cal_now() - s);
    }
    *rate12 = 2.0 * 200000 / best;
  }
  for (int i = 0; i < 5; i++)
    free(*bufs[i]);
}

/* the median of sd / t over the calls of 1 ms or more, every core */
static double median_spread(const cal_run *r)
{
  size_t n = 0, cap = r->npts * (size_t)r->ncores;
  double *v = malloc(sizeof *v * (cap ? cap : 1));
  if (!v)
    return 0;
  for (int w = 0; w < r->ncores; w++)
    for (size_t i = 0; i < r->npts; i++)
      if (r->res[w][i].t >= 1e-3)
        v[n++] = r->res[w][i].sd / r->res[w][i].t;
  double med = 0;
  if (n) {
    gsl_sort(v, 1, n);
    med = gsl_stats_median_from_sorted_data(v, 1, n);
  }
  free(v);
  return med;
}

int cal_measure(cal_run *r)
{
  const int ncores = r->ncores;
  worker *ws = calloc((size_t)ncores, sizeof *ws);
  pthread_t *th = calloc((size_t)ncores, sizeof *th);
  char *joined = calloc((size_t)ncores, 1);
  if (!(r->res = calloc((size_t)ncores, sizeof *r->res)) || !ws || !th || !joined)
    cal_die("out of memory for %d workers", ncores);
  double total_est = 0, t0 = cal_now(), last_plain = 0;
  for (size_t i = 0; i < r->npts; i++)
    total_est += r->pts[i].est;
  pthread_barrier_t start;
  pthread_barrier_init(&start, NULL, (unsigned)ncores);
  solo_sync sync = {0};
  for (int w = 0; w < ncores; w++) {
    ws[w].start = &start;
    ws[w].sync = &sync;
    ws[w].id = w;
    ws[w].d = r->design;
    ws[w].syms = r->syms;
    ws[w].topo = r->topo;
    ws[w].core = hwloc_get_obj_by_type(r->topo, HWLOC_OBJ_CORE, (unsigned)w);
    ws[w].pts = r->pts;
    ws[w].npts = r->npts;
    if (!(ws[w].res = r->res[w] = calloc(r->npts ? r->npts : 1, sizeof *ws[w].res)))
      cal_die("out of memory for %zu points", r->npts);
    if (pthread_create(&th[w], NULL, run_worker, &ws[w]) != 0)
      cal_die("cannot start worker %d", w);
  }
  int tty = isatty(2), alive = ncores;
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
  pthread_barrier_destroy(&start);
  progress(ws, ncores, total_est, t0, tty, &last_plain);
  if (tty)
    fputc('\n', stderr);
  for (int w = 0; w < ncores; w++) {
    r->interrupted += ws[w].interrupted;
    r->stolen += ws[w].stolen;
    r->timed += ws[w].timed;
    r->timed_wall += ws[w].timed_wall;
    r->drift = fmax(r->drift, ws[w].drift);
  }
  /* the passes' speeds, every core's totals summed (a stopped run leaves
   * the passes it did not finish at 0: no speeds then) */
  int np = r->design->reps;
  double *tot = calloc((size_t)np, sizeof *tot), mean = 0;
  if (!tot || !(r->pass_speed = calloc((size_t)np, sizeof *r->pass_speed)))
    cal_die("out of memory for %d passes", np);
  for (int a = 0; a < np; a++) {
    for (int w = 0; w < ncores; w++)
      tot[a] += ws[w].pass_tot ? ws[w].pass_tot[a] : 0;
    mean += tot[a] / np;
  }
  for (int a = 0; a < np; a++)
    if (tot[a] > 0)
      r->pass_speed[a] = mean / tot[a];
  r->npasses = cal_stop ? 0 : np;
  for (int w = 0; w < ncores; w++)
    free(ws[w].pass_tot);
  free(tot);
  r->spread = median_spread(r);
  free(joined);
  free(th);
  free(ws);
  return cal_stop;
}

void cal_run_free(cal_run *r)
{
  for (int w = 0; r->res && w < r->ncores; w++)
    free(r->res[w]);
  free(r->res);
  r->res = NULL;
  free(r->pass_speed);
  r->pass_speed = NULL;
  r->npasses = 0;
}
