/*
 * call.c -- initialisation (SIMBLAS_* variables, the model, the backend)
 * and the call path: what a BLAS call does once its arguments passed the
 * checks, and the public API on top of it.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include <dlfcn.h>
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "runtime.h"

#ifndef SB_DEFAULT_MODEL
#define SB_DEFAULT_MODEL "default.model"
#endif
#ifndef SB_DEFAULT_BACKEND
#define SB_DEFAULT_BACKEND "libopenblas.so.0"
#endif

int sb_mode_now = SB_MODE_UNSET;

static const char *const mode_names[] = {"smpi", "null", "passthrough", "trace"};

struct sb_rt rt;

static pthread_once_t init_once = PTHREAD_ONCE_INIT;

_Noreturn void sb_fatal(const char *fmt, ...)
{
  va_list ap;
  fputs("simblas: ", stderr);
  va_start(ap, fmt);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  fputc('\n', stderr);
  exit(2);
}

/* ---- initialisation ------------------------------------------------------ */
static void load_backend(void)
{
  const char *name = getenv("SIMBLAS_BACKEND");
  if (!name || !*name)
    name = SB_DEFAULT_BACKEND;
  rt.backend_name = name;
  rt.backend = dlopen(name, RTLD_NOW | RTLD_LOCAL);
  if (!rt.backend)
    sb_fatal("SIMBLAS_MODE=%s needs a real BLAS, but '%s' does not load (%s); set SIMBLAS_BACKEND to the path of one, "
          "e.g. /usr/lib/x86_64-linux-gnu/openblas-pthread/libopenblas.so.0",
          mode_names[sb_mode_now >= 0 ? sb_mode_now : SB_MODE_PASSTHROUGH], name, dlerror());
  /* the calibrator measures one thread per core: do the same */
  void (*set_threads)(int) = (void (*)(int))dlsym(rt.backend, "openblas_set_num_threads");
  if (set_threads) {
    const char *t = getenv("SIMBLAS_BACKEND_THREADS");
    set_threads(t && atoi(t) > 0 ? atoi(t) : 1);
  }
}

/* a number from the environment: dflt when unset or empty; stops with
 * "NAME='value' is not WHAT" outside [lo, hi] */
static double env_number(const char *name, double dflt, double lo, double hi, const char *what)
{
  const char *v = getenv(name);
  if (!v || !*v)
    return dflt;
  char *end;
  double x = strtod(v, &end);
  if (*end || !(x >= lo && x <= hi))
    sb_fatal("%s='%s' is not %s", name, v, what);
  return x;
}

/* a whole number from the environment: dflt when unset or empty; stops
 * with "NAME='value' is not WHAT" when not an integer >= lo */
static long env_count(const char *name, long dflt, long lo, const char *what)
{
  const char *v = getenv(name);
  if (!v || !*v)
    return dflt;
  char *end;
  errno = 0;
  long x = strtol(v, &end, 10);
  if (*end || errno || x < lo)
    sb_fatal("%s='%s' is not %s", name, v, what);
  return x;
}

static void init(void)
{
  const char *m = getenv("SIMBLAS_MODE");
  int mode = SB_MODE_SMPI;
  if (m && *m) {
    for (mode = 0; mode < 4 && strcmp(m, mode_names[mode]); mode++)
      ;
    if (mode == 4)
      sb_fatal("SIMBLAS_MODE='%s' is not one of smpi, null, passthrough, trace", m);
  }
  if (mode == SB_MODE_SMPI && !sb_smpi_active()) {
#ifdef SB_HAVE_SIMGRID
    sb_fatal("SIMBLAS_MODE=smpi (the default) injects times into SimGrid, but this program is not running under "
          "smpirun; start it with smpirun, or set SIMBLAS_MODE=null (predict only) or SIMBLAS_MODE=passthrough "
          "(compute with a real BLAS)");
#else
    sb_fatal("SIMBLAS_MODE=smpi (the default) needs SimGrid, and this libsimblas was built without it; rebuild with "
          "libsimgrid-dev installed, or set SIMBLAS_MODE=null or SIMBLAS_MODE=passthrough");
#endif
  }

  const char *path = getenv("SIMBLAS_MODEL");
  if (!path || !*path)
    path = SB_DEFAULT_MODEL;
  char err[512];
  if (!(rt.model = sb_model_load(path, err, sizeof err)))
    sb_fatal("%s", err);

  const char *noise = getenv("SIMBLAS_NOISE");
  rt.noise = noise && !strcmp(noise, "1");
  const char *seed = getenv("SIMBLAS_SEED");
  rt.seed = seed && *seed ? strtoull(seed, NULL, 0) : 1;
  sb_rank_seed(&sb_rank_solo);

  const char *merge = getenv("SIMBLAS_MERGE");
  rt.merge = mode == SB_MODE_SMPI && merge && !strcmp(merge, "1");
  if (rt.merge && !dlsym(RTLD_DEFAULT, "PMPI_Send"))
    sb_fatal("SIMBLAS_MERGE=1 needs SimGrid's PMPI interface; run under smpirun");
  if (rt.merge && !simblas_pmpi_linked)
    sb_fatal("SIMBLAS_MERGE=1 delays injections to the next MPI call, which only libsimblas_pmpi sees: link the "
          "program with -lsimblas_pmpi -lsimblas (before SimGrid), or unset SIMBLAS_MERGE");

  rt.poll_cost = env_number("SIMBLAS_POLL_COST", 0, 0, HUGE_VAL,
                            "a duration in seconds >= 0 (simulated cost of one failed poll, for example 1e-7); "
                            "unset it to leave polls to SMPI's smpi/iprobe");
  if (rt.poll_cost > 0 && sb_smpi_active() && !simblas_pmpi_linked)
    sb_fatal("SIMBLAS_POLL_COST charges MPI_Iprobe and MPI_Test in libsimblas_pmpi's wrappers, which this program "
             "does not have: link it with -lsimblas_pmpi -lsimblas (before SimGrid), or unset SIMBLAS_POLL_COST");
  rt.poll_growth = env_number("SIMBLAS_POLL_GROWTH", 1, 0, HUGE_VAL,
                              "a number >= 0 (the k-th failed poll of a spin loop costs 1 + growth x k times "
                              "SIMBLAS_POLL_COST); unset it for 1");
  rt.poll_max = env_number("SIMBLAS_POLL_MAX", HUGE_VAL, 0, HUGE_VAL,
                           "a duration in seconds >= 0 (the most one poll of a spin loop costs, hence how late it "
                           "may see a message); unset it for no bound");
  if (rt.poll_max < rt.poll_cost)
    rt.poll_max = rt.poll_cost;
  rt.poll_usage = env_number("SIMBLAS_POLL_USAGE", 1, 0x1p-30, 1,
                             "a CPU share in (0, 1] (SMPI's smpi/iprobe-cpu-usage, for example 0.8); unset it for 1");

  rt.pivot_every = env_count("SIMBLAS_PIVOT_EVERY", 1, 1,
                             "a number of columns >= 1 (one real pivot exchange per that many columns of a panel); "
                             "unset it for every column");
  if (rt.pivot_every > 1 && !(mode == SB_MODE_SMPI && rt.merge))
    sb_fatal("SIMBLAS_PIVOT_EVERY=%ld thins the pivot search of a simulated run, which needs SIMBLAS_MODE=smpi "
             "(the pivots are SimBLAS's) and SIMBLAS_MERGE=1 (libsimblas_pmpi); unset it otherwise",
             rt.pivot_every);
  /* A wait owed (a thinned pivot exchange, a merged roll: simblas_idle) is
   * slept, then the BLAS time executed: two simulator events.  When every
   * rank has a core of its own, executing the two as one ends at the same
   * time (nothing else competes for the core) and is one event; only the
   * energy tells idle from busy.  simblas-hpl sets it for one rank per
   * core without --energy. */
  rt.idle_merge = (int)env_count("SIMBLAS_IDLE_MERGE", 0, 0,
                                 "0 or 1 (1: every rank has a core of its own and the energy is not measured, "
                                 "so a rank's owed waits may join its next injection); unset it for 0");
  if (rt.idle_merge > 1)
    sb_fatal("SIMBLAS_IDLE_MERGE='%s' is not 0 or 1", getenv("SIMBLAS_IDLE_MERGE"));
  rt.pivot_defer = (int)env_count("SIMBLAS_PIVOT_DEFER", 1, 0,
                                  "0 or 1 (1: a thinned pivot exchange's barrier is computed at the rank's next "
                                  "flush, with SIMBLAS_IDLE_MERGE=1); unset it for 1");
  if (rt.pivot_defer > 1)
    sb_fatal("SIMBLAS_PIVOT_DEFER='%s' is not 0 or 1", getenv("SIMBLAS_PIVOT_DEFER"));
  rt.pivot_defer = rt.pivot_defer && rt.idle_merge;
  rt.code_clock = (int)env_count("SIMBLAS_CODE_CLOCK", 0, 0,
                                  "0 or 1 (1: SimBLAS charges the program's own code between its BLAS and MPI "
                                  "calls, instead of SMPI's smpi/simulate-computation); unset it for 0");
  if (rt.code_clock > 1)
    sb_fatal("SIMBLAS_CODE_CLOCK='%s' is not 0 or 1", getenv("SIMBLAS_CODE_CLOCK"));
  if (rt.code_clock && !(mode == SB_MODE_SMPI && rt.merge))
    sb_fatal("SIMBLAS_CODE_CLOCK=1 charges the program's code within the merged injections, which needs "
             "SIMBLAS_MODE=smpi and SIMBLAS_MERGE=1 (libsimblas_pmpi); unset it otherwise");
  if (rt.code_clock)
    rt.code_min = sb_smpi_cpu_threshold();
  if (rt.code_clock && sb_smpi_times_code())
    sb_fatal("SIMBLAS_CODE_CLOCK=1 charges the program's code, and SMPI times it too "
             "(smpi/simulate-computation is on): it would count twice; run smpirun with "
             "--cfg=smpi/simulate-computation:no, or unset SIMBLAS_CODE_CLOCK");
  rt.iterations = env_count("SIMBLAS_ITERATIONS", 0, 0,
                            "a number of iterations (0: allocate only); unset it to run them all");
  if (getenv("SIMBLAS_ITERATIONS") && *getenv("SIMBLAS_ITERATIONS") && rt.iterations == 0)
    rt.iterations = -1; /* allocate only: every pass stops at once */
  rt.samples = env_count("SIMBLAS_SAMPLES", 1, 1, "a positive number of passes; unset it for one");
  if (getenv("SIMBLAS_SAMPLES") && *getenv("SIMBLAS_SAMPLES") && rt.iterations <= 0)
    sb_fatal("SIMBLAS_SAMPLES=%ld samples the run in passes of SIMBLAS_ITERATIONS iterations, which is not set; "
             "set it, or unset SIMBLAS_SAMPLES",
             rt.samples);
  const char *skip = getenv("SIMBLAS_SKIP_SOLVE");
  rt.skip_solve = skip && !strcmp(skip, "1");
  const char *ilog = getenv("SIMBLAS_ITER_LOG");
  if (ilog && *ilog && !(rt.iterlog = fopen(ilog, "w")))
    sb_fatal("cannot write the iteration log %s: %s; set SIMBLAS_ITER_LOG to a writable path", ilog,
             strerror(errno));

  sb_mode_now = mode;
  if (mode >= SB_MODE_PASSTHROUGH)
    load_backend();
  if (mode == SB_MODE_TRACE) {
    const char *tpath = getenv("SIMBLAS_TRACE");
    if (!tpath || !*tpath)
      sb_fatal("SIMBLAS_MODE=trace writes a CSV to SIMBLAS_TRACE, which is not set; set SIMBLAS_TRACE=calls.csv");
    if (!(rt.trace = fopen(tpath, "w")))
      sb_fatal("cannot write the trace %s: %s; set SIMBLAS_TRACE to a writable path", tpath, strerror(errno));
    fputs("routine,m,n,k,predicted_s,measured_s,rank,cblas\n", rt.trace);
  }
}

int sb_init(void)
{
  pthread_once(&init_once, init);
  return sb_mode_now;
}

void *sb_backend_sym(int slot, const char *name)
{
  void *f = rt.syms[slot];
  if (__builtin_expect(f == NULL, 0)) {
    if (!(f = dlsym(rt.backend, name)))
      sb_fatal("the backend BLAS %s has no %s, so SIMBLAS_MODE=%s cannot run it; pick a backend that has it with "
            "SIMBLAS_BACKEND, or use SIMBLAS_MODE=null",
            rt.backend_name, name, mode_names[sb_mode_now]);
    rt.syms[slot] = f;
  }
  return f;
}

double sb_clock(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* ---- the two ends of a call ---------------------------------------------- */
static const sb_coefs *coefs_for(sb_rank *r, int op, int variant)
{
  const sb_coefs *co = sb_model_coefs_v(rt.model, sb_rank_set(r), op, variant);
  if (!co && !rt.fallback_logged[op]) {
    rt.fallback_logged[op] = 1;
    fprintf(stderr,
            "simblas: model %s has no line for %s; using the flop-count fallback (flops / reference-speed), "
            "recalibrate to model it\n",
            rt.model->path, sb_ops[op].name);
  }
  return co;
}

static void notify(const sb_call *c, double predicted, double injected, double measured, long rank)
{
  if (rt.hook) {
    simblas_call pub = {sb_ops[c->op].name, c->iface, c->m, c->n, c->k, predicted, injected, measured, (int)rank};
    rt.hook(&pub, rt.hook_ctx);
  }
}

void sb_model_call(sb_call *c)
{
  sb_rank *r = sb_rank_self();
  if (rt.code_clock)
    sb_code_stop(r);
  const sb_coefs *co = coefs_for(r, c->op, c->variant);
  double t = sb_model_mean(rt.model, co, c), injected = 0;
  if (rt.noise && t > 0) {
    double s = sb_model_sigma(co, c);
    if (s > 0) {
      /* lognormal with mean t and standard deviation s */
      double v = log1p((s / t) * (s / t));
      t *= exp(sqrt(v) * sb_rank_normal(r) - v / 2);
    }
  }
  if (sb_mode_now == SB_MODE_SMPI && t > 0) {
    injected = t * rt.model->reference_speed / sb_smpi_host_speed();
    if (rt.merge) {
      r->pending += injected + r->debt + r->code_owed;
      r->debt = r->code_owed = 0;
    } else {
      sb_smpi_execute(injected);
      r->flushes++;
    }
  }
  r->calls++;
  r->spins = 0;
  r->injected += injected;
  notify(c, t, injected, 0, sb_public_rank(r));
  sb_code_start(r);
}

void sb_measured(sb_call *c, double seconds)
{
  sb_rank *r = sb_rank_self();
  double predicted = sb_model_mean(rt.model, coefs_for(r, c->op, c->variant), c);
  r->calls++;
  r->spins = 0;
  if (rt.trace)
    fprintf(rt.trace, "%s,%lld,%lld,%lld,%.9g,%.9g,%ld,%d\n", sb_ops[c->op].name, (long long)c->m, (long long)c->n,
            (long long)c->k, predicted, seconds, sb_public_rank(r), c->iface);
  notify(c, predicted, 0, seconds, sb_public_rank(r));
}

/* ---- public API ------------------------------------------------------------ */
void simblas_set_hook(simblas_hook_fn fn, void *ctx)
{
  rt.hook = fn;
  rt.hook_ctx = ctx;
}

const char *simblas_mode(void) { return mode_names[sb_init()]; }

double simblas_predict(const char *routine, int64_t m, int64_t n, int64_t k)
{
  sb_init();
  int variant, op = sb_model_key(routine, &variant);
  if (op < 0)
    return -1;
  sb_call c = {op, 0, m, n, k, variant};
  return sb_model_mean(rt.model, sb_model_coefs_v(rt.model, 0, op, variant), &c);
}

double simblas_execute(const char *routine, int64_t m, int64_t n, int64_t k)
{
  sb_init();
  void *code = sb_code_pause();
  int variant, op = sb_model_key(routine, &variant);
  double v = op < 0 ? -1 : 0;
  if (op >= 0 && !sb_computes()) { /* else the caller computes for real */
    sb_call c = {op, 0, m, n, k, variant};
    sb_rank *r = sb_rank_self();
    double before = r->injected;
    sb_model_call(&c);
    v = r->injected - before;
  }
  sb_code_resume(code);
  return v;
}

simblas_stats simblas_get_stats(void)
{
  sb_init();
  sb_rank *r = sb_rank_self();
  simblas_stats s = {r->calls, r->injected, r->flushes, r->code_s};
  return s;
}
