/*
 * runtime.c -- configuration (SIMBLAS_* variables), the model, per-rank
 * state and the sinks.
 *
 * One copy of libsimblas serves every simulated rank: SMPI runs ranks as
 * user-level contexts of one thread, so thread-local storage does not tell
 * them apart.  The model is read once and shared read-only; everything
 * that differs between ranks (random stream, counters, coefficient set)
 * lives in a record keyed by the rank's actor id.
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

#include "cpuclock.h"
#include "model.h"
#include "netfactors.h"
#include "sb_rt.h"
#include "sb_splitmix.h"
#include "simblas.h"
#include "sink.h"

#ifndef SB_DEFAULT_MODEL
#define SB_DEFAULT_MODEL "default.model"
#endif
#ifndef SB_DEFAULT_BACKEND
#define SB_DEFAULT_BACKEND "libopenblas.so.0"
#endif

int sb_mode_now = SB_MODE_UNSET;

static const char *const mode_names[] = {"smpi", "null", "passthrough", "trace"};

static struct {
  sb_model *model;
  int noise;
  uint64_t seed;
  void *backend;
  const char *backend_name;
  void *syms[2 * SB_OP_COUNT];
  FILE *trace;
  simblas_hook_fn hook;
  void *hook_ctx;
  int merge;
  double poll_cost;  /* SIMBLAS_POLL_COST: seconds per poll (0: SMPI's own) */
  double poll_usage; /* SIMBLAS_POLL_USAGE: CPU share of a poll (1: merged) */
  double poll_growth; /* SIMBLAS_POLL_GROWTH: a spin's k-th poll costs 1 + growth x k */
  double poll_max;    /* SIMBLAS_POLL_MAX: the most one poll costs, seconds */
  long pivot_every;   /* SIMBLAS_PIVOT_EVERY: one real pivot exchange per this many columns */
  int idle_merge;     /* SIMBLAS_IDLE_MERGE=1: owed waits join the next injection */
  int pivot_defer;    /* thinned pivot barriers resolved at the next flush (needs idle_merge) */
  int code_clock;     /* SIMBLAS_CODE_CLOCK=1: the program's own code is timed here, not by SMPI */
  double code_min;    /* smpi/cpu-threshold: the least code time injected on its own */
  long iterations;   /* SIMBLAS_ITERATIONS: stop after that many (0: all, -1: none) */
  long samples;      /* SIMBLAS_SAMPLES: passes of that many iterations */
  int skip_solve;    /* SIMBLAS_SKIP_SOLVE=1: a run cut short skips the solve */
  FILE *iterlog;     /* SIMBLAS_ITER_LOG */
  unsigned char fallback_logged[SB_OP_COUNT];
} rt;

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

/* ---- per-rank state ------------------------------------------------------ */
typedef struct sb_rank {
  long id;
  int set; /* coefficient set, -1 until resolved */
  uint64_t rng;
  uint64_t calls;
  double injected;
  double pending;    /* SIMBLAS_MERGE: injected at the next MPI call */
  uint64_t flushes;  /* smpi_execute_benched calls made */
  int stopped;       /* simblas_iteration told it to leave the loop */
  long seg, seg_start; /* simblas_segment: pass number (-1: none yet), start */
  uint64_t spins;      /* failed polls in a row, nothing else between */
  double debt;         /* SIMBLAS_POLL_COST of polls not injected yet */
  double idle;         /* waits owed (thinned pivot exchanges), slept at the next flush */
  double piv_t0;       /* clock when the real pivot exchange started, -1: none */
  struct pivot_group *piv_group; /* the process column of its pivot searches */
  long piv_seq;        /* real exchanges made in it */
  long piv_panels;     /* panels begun in it */
  int piv_slot, piv_pos; /* the record of the current real one, the rank's place */
  double piv_last;     /* the rank's latest d */
  uint64_t piv_real, piv_thinned;
  long lz_t;           /* thinned columns met in its pivot group (deferred barriers) */
  long lz_first, lz_last; /* the ones not resolved yet, -1: none */
  double code_t0;      /* SIMBLAS_CODE_CLOCK: CPU clock when the program's code resumed, -1: in SimBLAS or MPI */
  double code_s;       /* the program's own code, seconds charged */
  double code_owed;    /* ... not injected yet */
  struct sb_route *routes; /* simblas_message_time's routes from this rank, NULL until one is asked */
} sb_rank;

static sb_rank rank_solo = {.id = 0, .set = -1, .seg = -1, .piv_t0 = -1, .lz_first = -1, .code_t0 = -1}; /* outside a simulation */
static sb_rank **ranks;
static size_t nranks;

static void rank_seed(sb_rank *r)
{
  uint64_t s = rt.seed ^ ((uint64_t)r->id * 0xD1B54A32D192ED03ull);
  r->rng = sb_splitmix64(&s);
}

/* TAB (*CAP entries of SIZE bytes) with room for entry IDX, the new
 * entries zeroed */
static void *grow_table(void *tab, size_t *cap, size_t idx, size_t size, const char *what)
{
  if (idx < *cap)
    return tab;
  size_t n = *cap ? *cap : 64;
  while (n <= idx)
    n *= 2;
  char *p = realloc(tab, n * size);
  if (!p)
    sb_fatal("out of memory for %s (%zu entries)", what, n);
  memset(p + *cap * size, 0, (n - *cap) * size);
  *cap = n;
  return p;
}

static sb_rank *rank_self(void)
{
  if (!sb_smpi_active())
    return &rank_solo;
  long id = sb_smpi_rank();
  if (id < 0)
    id = 0;
  ranks = grow_table(ranks, &nranks, (size_t)id, sizeof *ranks, "per-rank state");
  sb_rank *r = ranks[id];
  if (!r) {
    if (!(r = calloc(1, sizeof *r)))
      sb_fatal("out of memory for per-rank state");
    r->id = id;
    r->set = -1;
    r->seg = -1;
    r->piv_t0 = -1;
    r->lz_first = -1;
    r->code_t0 = -1;
    rank_seed(r);
    ranks[id] = r;
  }
  return r;
}

uint64_t sb_rank_random(void) { return sb_splitmix64(&rank_self()->rng); }

static double rank_normal(sb_rank *r)
{
  /* Box-Muller on two 53-bit uniforms in (0, 1] */
  double u1 = ((double)(sb_splitmix64(&r->rng) >> 11) + 1) * 0x1p-53;
  double u2 = (double)(sb_splitmix64(&r->rng) >> 11) * 0x1p-53;
  return sqrt(-2 * log(u1)) * cos(2 * M_PI * u2);
}

static int rank_set(sb_rank *r)
{
  if (r->set >= 0)
    return r->set;
  r->set = 0;
  const char *want = sb_smpi_active() ? sb_smpi_host_set() : getenv("SIMBLAS_SET");
  if (want && *want) {
    int s = sb_model_set(rt.model, want);
    if (s < 0)
      fprintf(stderr, "simblas: model %s has no coefficient set '%s'; rank %ld uses set 'node'\n", rt.model->path,
              want, r->id);
    else
      r->set = s;
  }
  return r->set;
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
  rank_seed(&rank_solo);

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

/* ---- the program's own code (SIMBLAS_CODE_CLOCK=1) ------------------------
 * SMPI with smpi/simulate-computation:yes times the program's code between
 * two MPI calls (or injections) by the thread CPU clock, a system call at
 * both ends, and executes it as an activity of its own: one simulator
 * event more per MPI call.  With SIMBLAS_CODE_CLOCK=1 (and SMPI's timing
 * off) SimBLAS times it instead: the code between any two calls into
 * SimBLAS or MPI is read on sb_cpu_clock() (cpuclock.h, mostly without a
 * system call), scaled as SMPI scales it (smpi/host-speed, which
 * simblas-hpl sets to the model's reference speed, over the host's
 * speed), and joins the rank's pending injection.  SimBLAS's own time
 * (merged calls, model evaluation) is no longer charged as the program's.
 * Ranks share one OS thread: every call into SimBLAS that may switch to
 * another rank (a flush, a barrier) stops the rank's clock first. */
static void code_stop(sb_rank *r)
{
  if (r->code_t0 < 0)
    return;
  double t = sb_cpu_clock() - r->code_t0;
  r->code_t0 = -1;
  if (t > 0) {
    double d = t * rt.model->reference_speed / sb_smpi_host_speed();
    r->code_owed += d;
    r->code_s += d;
  }
}

/* the code's time joins the next injection; at an MPI call with nothing
 * else to inject, it is injected alone once it reaches smpi/cpu-threshold
 * (shorter, SMPI would drop it; here it waits for the next injection) */
static void code_owed(sb_rank *r)
{
  if (r->code_owed > 0 && (r->pending > 0 || r->code_owed >= rt.code_min)) {
    r->pending += r->code_owed;
    r->code_owed = 0;
  }
}

static void code_start(sb_rank *r)
{
  if (rt.code_clock)
    r->code_t0 = sb_cpu_clock();
}

/* around a public entry point that may switch ranks: NULL when off */
void *sb_code_pause(void)
{
  if (!rt.code_clock || !sb_smpi_active())
    return NULL;
  sb_rank *r = rank_self();
  code_stop(r);
  return r;
}

void sb_code_resume(void *r)
{
  if (r)
    ((sb_rank *)r)->code_t0 = sb_cpu_clock();
}

void simblas_resume(void)
{
  if (rt.code_clock && sb_smpi_active())
    rank_self()->code_t0 = sb_cpu_clock();
}

/* ---- the two ends of a call ---------------------------------------------- */
static const sb_coefs *coefs_for(sb_rank *r, int op, int variant)
{
  const sb_coefs *co = sb_model_coefs_v(rt.model, rank_set(r), op, variant);
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

static long public_rank(const sb_rank *r) { return r == &rank_solo ? 0 : r->id - 1; }

void sb_model_call(sb_call *c)
{
  sb_rank *r = rank_self();
  if (rt.code_clock)
    code_stop(r);
  const sb_coefs *co = coefs_for(r, c->op, c->variant);
  double t = sb_model_mean(rt.model, co, c), injected = 0;
  if (rt.noise && t > 0) {
    double s = sb_model_sigma(co, c);
    if (s > 0) {
      /* lognormal with mean t and standard deviation s */
      double v = log1p((s / t) * (s / t));
      t *= exp(sqrt(v) * rank_normal(r) - v / 2);
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
  notify(c, t, injected, 0, public_rank(r));
  code_start(r);
}

void sb_measured(sb_call *c, double seconds)
{
  sb_rank *r = rank_self();
  double predicted = sb_model_mean(rt.model, coefs_for(r, c->op, c->variant), c);
  r->calls++;
  r->spins = 0;
  if (rt.trace)
    fprintf(rt.trace, "%s,%lld,%lld,%lld,%.9g,%.9g,%ld,%d\n", sb_ops[c->op].name, (long long)c->m, (long long)c->n,
            (long long)c->k, predicted, seconds, public_rank(r), c->iface);
  notify(c, predicted, 0, seconds, public_rank(r));
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
    sb_rank *r = rank_self();
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
  sb_rank *r = rank_self();
  simblas_stats s = {r->calls, r->injected, r->flushes, r->piv_real, r->piv_thinned, r->code_s};
  return s;
}

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
  sb_rank *r = rank_self();
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
  sb_rank *r = rank_self();
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
  sb_rank *r = rank_self();
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

/* set by libsimblas_pmpi's constructor: its MPI wrappers flush */
int simblas_pmpi_linked;

/* A failed poll (MPI_Iprobe, MPI_Test) costs SIMBLAS_POLL_COST seconds,
 * times 1 + SIMBLAS_POLL_GROWTH x k, k counting the rank's own failed polls
 * in a row, with no BLAS or other MPI call between them, beyond the first
 * SB_SPIN_LAZY (a spin loop), and at most SIMBLAS_POLL_MAX seconds.  SMPI's smpi/iprobe does the
 * same with ONE count for all ranks (smpi/grow-injected-times), which any
 * rank's failed poll raises and any rank's success resets: at 1,024 ranks
 * a poll cost milliseconds and HPL's simulated time doubled
 * (doc/performance.md).  Per rank, a spin loop still backs off (1, 2, 3,
 * ... times the cost: the wait is found within about sqrt(2 x wait x
 * cost)), and a poll between other work costs the cost, as a real one.
 *
 * Simulator events: a poll owes its cost as a debt, injected with the
 * rank's next BLAS time (at once if some is pending, since the poll must
 * see the clock after it): one event fewer per poll, the same simulated
 * time up to when it is charged.  Only a spin loop must advance the
 * rank's clock, else it never ends: from the SB_SPIN_LAZY-th failed poll
 * in a row on, each poll injects its debt.  Bounded runs of polls with
 * nothing between (HPL_spreadT polls once per step of its log2(P) steps,
 * in some of which the rank has no message) stay lazy. */
#define SB_SPIN_LAZY 32
static void defer_resolve(sb_rank *r);
static void flush_rank(sb_rank *r)
{
  code_owed(r);
  if (r->lz_first >= 0)
    defer_resolve(r); /* the barriers of its thinned pivot exchanges, as owed idle time */
  if (rt.idle_merge && r->idle > 0) { /* a core of its own: idle or busy, the same clock */
    r->pending += r->idle;
    r->idle = 0;
  }
  if (r->idle > 0) { /* waits first: the order inside one rank's stretch changes nothing */
    double t = r->idle;
    r->idle = 0;
    sb_smpi_sleep(t);
    r->flushes++;
  }
  if (r->pending > 0) {
    double t = r->pending;
    r->pending = 0;
    sb_smpi_execute(t);
    r->flushes++;
  }
}

/* one poll's cost as an injection of its own, at SIMBLAS_POLL_USAGE */
static void inject_poll(sb_rank *r, double t)
{
  if (rt.poll_usage < 1)
    sb_smpi_execute_bound(t, rt.poll_usage);
  else
    sb_smpi_execute(t);
  r->flushes++;
}

void simblas_poll(void)
{
  pthread_once(&init_once, init);
  if (rt.poll_cost <= 0 || !sb_smpi_active()) {
    simblas_flush();
    return;
  }
  sb_rank *r = rank_self();
  if (rt.code_clock)
    code_stop(r);
  /* the back-off starts with the spin loop, past the bounded runs */
  double k = r->spins > SB_SPIN_LAZY ? (double)(r->spins - SB_SPIN_LAZY) : 0;
  double t = rt.poll_cost * (1 + rt.poll_growth * k);
  if (t > rt.poll_max)
    t = rt.poll_max;
  if (!rt.merge) { /* passthrough, or --no-merge: one injection per poll, as SMPI's */
    inject_poll(r, t);
    return;
  }
  int spin = r->spins >= SB_SPIN_LAZY;
  int bound = spin && rt.poll_usage < 1; /* the polling load is what the energy sees */
  if (!bound)
    r->debt += t;
  if (!spin && r->pending <= 0)
    return; /* owed until the rank's next injection */
  r->pending += r->debt;
  r->debt = 0;
  flush_rank(r);
  if (bound)
    inject_poll(r, t);
}

void simblas_polled(int flag)
{
  simblas_resume();
  if (rt.poll_cost <= 0 || !sb_smpi_active())
    return;
  sb_rank *r = rank_self();
  r->spins = flag ? 0 : r->spins + 1;
}

void simblas_flush(void)
{
  if (sb_mode_now == SB_MODE_UNSET || !sb_smpi_active())
    return;
  sb_rank *r = rank_self();
  if (rt.code_clock)
    code_stop(r);
  r->spins = 0; /* an MPI call other than a poll: not a spin loop */
  if (sb_mode_now == SB_MODE_SMPI && rt.merge)
    flush_rank(r);
}

/* Thinned pivot search (SIMBLAS_PIVOT_EVERY=k > 1; simblas-hpl
 * --pivot-every K).  HPL_pdmxswp exchanges, per column of a panel, the
 * pivot candidates of the P ranks of the panel's process column: NB x
 * log2(P) tiny messages per panel per rank, the bulk of the simulator's
 * work at Stampede's scale, while the pivots are SimBLAS's (HPL_sb_pivot)
 * and known to every rank.  What an exchange does to a rank's clock: no
 * rank leaves before the last one arrived (every result depends on every
 * candidate), and a rank leaves d after that last arrival, d depending
 * on its place in the exchange (pos: its process row relative to the
 * panel's) and on who came last (from a common start every rank would
 * take all log2(P) steps: 5% too slow at N=20,000 4x16).
 * So: one column in k of each panel exchanges for real, at an offset that
 * moves from block to block and panel to panel (the first column of a
 * recursive factorization's leaf follows an update and comes with more
 * skew than the others: sampling only those was 3.6% off at N=20,000
 * 4x16).  Each rank notes its arrival in the process column's shared
 * record, and on leaving reads the last arrival (every rank has arrived
 * by then, since its result depends on all): its d goes to the column's
 * mean for its pos.  Another column skips the messages: its ranks meet
 * at a simulator barrier (no simulated time; it releases all at the last
 * arrival) and each waits, idle as in a blocking exchange, the mean d of
 * its pos, owed and slept at its next flush with its BLAS time.  A
 * barrier is one simcall per rank, where an exchange is log2(P) messages
 * through the network model.  Ranks run as contexts of one thread: the
 * shared records need no lock. */
/* Deferred barriers (SIMBLAS_PIVOT_DEFER, on with SIMBLAS_IDLE_MERGE):
 * the barrier and the injection before it are the simulator's work on a
 * thinned column (two events per rank and column), though the release
 * time is plain arithmetic when every rank has a core of its own: the
 * latest of the ranks' arrivals, each its clock plus the BLAS time and
 * waits it owes.  So a rank passes a thinned column without stopping: it
 * adds its arrival to the column's record (thinned columns are numbered
 * alike on every rank of the process column) and owes its d as before.
 * At its next flush (its next MPI call, real exchange included) it waits
 * until every rank has passed its last such column, and its clock is
 * brought to that column's release time R plus what it owed since.  A
 * rank's first column after a flush arrives at clock + owed (absolute);
 * its next ones at R of the column before + owed since (relative), so
 * R(t) = max(latest absolute arrival, R(t-1) + latest relative one): the
 * barrier's release, column by column, with one injection per flush. */
typedef struct defer_col {
  long t;            /* the thinned column (-1: free slot) */
  int count, done;   /* ranks passed, ranks that resolved it */
  int have_r;
  double abs, rel, r; /* latest absolute and relative arrival, release time */
} defer_col;

typedef struct pivot_group {
  int col, nprow, npcol;
  sb_barrier bar;
  long seq[2];    /* the real exchange each slot is for, */
  double last[2]; /* its latest arrival so far, */
  unsigned char *left[2]; /* and per pos, whether its rank has left it */
  double *dsum;   /* per pos: sum of d over the real exchanges, */
  long *dn;       /* and how many */
  defer_col *dc;  /* deferred barriers' records, by t modulo ndc */
  size_t ndc;
  sb_waitq *q;    /* ranks waiting for the others to pass a column, */
  int waiters;    /* how many */
} pivot_group;
static pivot_group **pgroups; /* each group stays where it is: ranks keep pointers to it */
static size_t npgroups, capgroups;

static pivot_group *pivot_group_find(int col, int nprow, int npcol)
{
  for (size_t i = 0; i < npgroups; i++)
    if (pgroups[i]->col == col && pgroups[i]->nprow == nprow && pgroups[i]->npcol == npcol)
      return pgroups[i];
  return NULL;
}

static pivot_group *pivot_group_of(int col, int nprow, int npcol)
{
  pivot_group *g = pivot_group_find(col, nprow, npcol);
  if (g)
    return g;
  /* the simulator's objects first: creating one is a simcall, which lets
   * the other ranks run, and one of them may create this group meanwhile;
   * a group is published only whole */
  sb_barrier bar = sb_smpi_barrier_new(nprow);
  sb_waitq *q = sb_smpi_waitq_new();
  if ((g = pivot_group_find(col, nprow, npcol))) {
    sb_smpi_barrier_free(bar);
    sb_smpi_waitq_free(q);
    return g;
  }
  pgroups = grow_table(pgroups, &capgroups, npgroups, sizeof *pgroups, "the pivot search records");
  if (!(g = malloc(sizeof *g)))
    sb_fatal("out of memory for the pivot search records (%zu process columns)", npgroups + 1);
  *g = (pivot_group){.col = col, .nprow = nprow, .npcol = npcol, .seq = {-1, -1}, .bar = bar, .q = q};
  g->dsum = calloc((size_t)nprow, sizeof *g->dsum);
  g->dn = calloc((size_t)nprow, sizeof *g->dn);
  g->left[0] = calloc((size_t)nprow, 1);
  g->left[1] = calloc((size_t)nprow, 1);
  if (!g->dsum || !g->dn || !g->left[0] || !g->left[1] || (sb_smpi_active() && !q))
    sb_fatal("out of memory for the pivot search records (%d process rows)", nprow);
  pgroups[npgroups++] = g;
  return g;
}

static defer_col *defer_col_of(pivot_group *g, long t)
{
  if (g->ndc && g->dc[t % (long)g->ndc].t == t)
    return &g->dc[t % (long)g->ndc];
  while (!g->ndc || g->dc[t % (long)g->ndc].t >= 0) { /* the slot is another live column's: grow */
    size_t n = g->ndc ? 2 * g->ndc : 64;
    defer_col *dc = malloc(n * sizeof *dc);
    if (!dc)
      sb_fatal("out of memory for the thinned pivot search records (%zu columns)", n);
    for (size_t i = 0; i < n; i++)
      dc[i].t = -1;
    for (size_t i = 0; i < g->ndc; i++)
      if (g->dc[i].t >= 0)
        dc[g->dc[i].t % (long)n] = g->dc[i];
    free(g->dc);
    g->dc = dc;
    g->ndc = n;
    if (g->dc[t % (long)n].t == t)
      return &g->dc[t % (long)n];
  }
  defer_col *c = &g->dc[t % (long)g->ndc];
  *c = (defer_col){.t = t, .abs = -HUGE_VAL, .rel = -HUGE_VAL};
  return c;
}

/* a rank passes thinned column t of its group without stopping */
static void defer_pass(sb_rank *r, pivot_group *g)
{
  long t = r->lz_t++;
  defer_col *c = defer_col_of(g, t);
  double owed = r->pending + r->idle + r->code_owed; /* one core each (idle_merge): its clock advances by all */
  r->pending = r->idle = r->code_owed = 0;
  if (r->lz_first < 0) {
    double a = sb_smpi_clock() + owed;
    if (a > c->abs)
      c->abs = a;
    r->lz_first = t;
  } else if (owed > c->rel)
    c->rel = owed;
  r->lz_last = t;
  if (++c->count == g->nprow && g->waiters)
    sb_smpi_waitq_wake(g->q);
}

typedef struct defer_wait {
  pivot_group *g;
  long t;
} defer_wait;

static int defer_passed(void *arg)
{
  const defer_wait *w = arg;
  return defer_col_of(w->g, w->t)->count == w->g->nprow;
}

typedef struct defer_left {
  pivot_group *g;
  int slot, pos;
} defer_left;

static int defer_has_left(void *arg)
{
  const defer_left *w = arg;
  return w->g->left[w->slot][w->pos];
}

static double defer_release(pivot_group *g, long t)
{
  defer_col *c = defer_col_of(g, t);
  if (!c->have_r) {
    c->r = c->abs;
    if (c->rel > -HUGE_VAL) { /* a rank's column before it is still live: it has not resolved it */
      double prev = defer_release(g, t - 1) + c->rel;
      if (prev > c->r)
        c->r = prev;
    }
    c->have_r = 1;
  }
  return c->r;
}

/* at a flush: wait until the others passed the rank's columns, then owe
 * the time to the last one's release */
static void defer_resolve(sb_rank *r)
{
  pivot_group *g = r->piv_group;
  long last = r->lz_last;
  defer_wait w = {g, last};
  if (!defer_passed(&w)) {
    g->waiters++;
    sb_smpi_waitq_until(g->q, defer_passed, &w);
    g->waiters--;
  }
  double release = 0;
  for (long t = r->lz_first; t <= last; t++) /* in order: R(t) may need R(t - 1) */
    release = defer_release(g, t);
  double owed = release - sb_smpi_clock();
  for (long t = r->lz_first; t <= last; t++) {
    defer_col *c = defer_col_of(g, t);
    if (++c->done == g->nprow)
      c->t = -1;
  }
  r->lz_first = -1;
  if (owed > 0)
    r->idle += owed; /* joins the flush's injection (idle_merge) */
}

static int pivot_exchange(int jj, int pos, int col, int nprow, int npcol);

int simblas_pivot_exchange(int jj, int pos, int col, int nprow, int npcol)
{
  pthread_once(&init_once, init);
  void *c = sb_code_pause();
  int v = pivot_exchange(jj, pos, col, nprow, npcol);
  sb_code_resume(c);
  return v;
}

static int pivot_exchange(int jj, int pos, int col, int nprow, int npcol)
{
  if (!sb_smpi_active())
    return 1;
  sb_rank *r = rank_self();
  if (rt.pivot_every <= 1 || nprow < 2 || pos < 0 || pos >= nprow) {
    r->piv_real++;
    return 1;
  }
  pivot_group *g = r->piv_group;
  if (!g || g->col != col || g->nprow != nprow || g->npcol != npcol) { /* a new grid: its own counts */
    flush_rank(r);
    r->piv_group = g = pivot_group_of(col, nprow, npcol);
    r->piv_seq = 0;
    r->piv_panels = 0;
    r->lz_t = 0;
  }
  if (jj == 0)
    r->piv_panels++; /* the same count on every rank of the column */
  long k = rt.pivot_every;
  /* real or not: the same answer on every rank of the column (the same
   * jj, panel count and count of real ones), else a barrier would wait
   * for ranks gone into the exchange's messages */
  if (jj % k == (r->piv_panels + jj / k) % k || r->piv_seq == 0) {
    flush_rank(r); /* the rank's clock at its arrival */
    r->spins = 0;
    long s = r->piv_seq++;
    int slot = (int)(s & 1); /* a rank is at most one real exchange ahead */
    double now = sb_smpi_clock();
    if (g->seq[slot] != s) {
      g->seq[slot] = s;
      g->last[slot] = now;
      memset(g->left[slot], 0, (size_t)nprow);
    } else if (now > g->last[slot])
      g->last[slot] = now;
    r->piv_slot = slot;
    r->piv_pos = pos;
    r->piv_t0 = now;
    r->piv_real++;
    return 1;
  }
  r->spins = 0;
  if (rt.pivot_defer) {
    defer_pass(r, g);
    /* its d below is the mean over the real exchanges before this column,
     * all of them left, as at a barrier: the last one's rank at its pos
     * may not have left it yet when no MPI call came between (a panel's
     * last columns and the next one's first: pos moves) */
    long s = r->piv_seq - 1;
    defer_left w = {g, (int)(s & 1), pos};
    if (s >= 0 && g->seq[s & 1] == s && !defer_has_left(&w)) {
      g->waiters++;
      sb_smpi_waitq_until(g->q, defer_has_left, &w);
      g->waiters--;
    }
  } else {
    flush_rank(r); /* the rank's clock at its arrival */
    sb_smpi_barrier_wait(g->bar);
  }
  /* the mean for this place; until a rank in it has counted a real
   * exchange, this rank's own latest */
  r->idle += g->dn[pos] ? g->dsum[pos] / (double)g->dn[pos] : r->piv_last;
  r->piv_thinned++;
  return 0;
}

static void pivot_exchanged(void);

void simblas_pivot_exchanged(void)
{
  void *c = sb_code_pause();
  pivot_exchanged();
  sb_code_resume(c);
}

static void pivot_exchanged(void)
{
  if (rt.pivot_every <= 1 || !sb_smpi_active())
    return;
  sb_rank *r = rank_self();
  if (r->piv_t0 < 0 || !r->piv_group)
    return;
  flush_rank(r); /* the exchange's own copies */
  pivot_group *g = r->piv_group;
  double d = sb_smpi_clock() - g->last[r->piv_slot];
  r->piv_last = d > 0 ? d : 0;
  g->dsum[r->piv_pos] += r->piv_last;
  g->dn[r->piv_pos]++;
  g->left[r->piv_slot][r->piv_pos] = 1;
  if (g->waiters)
    sb_smpi_waitq_wake(g->q);
  r->piv_t0 = -1;
}

/* Message times (simblas_message_time): what one message of a given size
 * takes, uncontended, under SimGrid's SMPI network model (CM02 with
 * SMPI's piecewise factors): the route's latency x lat-factor(size), then
 * size / (bw-factor(size) x min(narrowest link, TCP-gamma / (2 x route
 * latency))).  The factors are SMPI's smpi/lat-factor and smpi/bw-factor,
 * "threshold:value;..." (SIMBLAS_LAT_FACTOR, SIMBLAS_BW_FACTOR when the
 * run sets its own; SimGrid 3.32's defaults otherwise). */
static sb_factors lat_factors, bw_factors;
static double tcp_gamma; /* network/TCP-gamma, read once */
/* routes looked up, per rank (the source is the rank's host): a rank
 * sends to a few partners only (its roll and pivot-exchange peers), and
 * SimGrid computes a route on every call.  A rank's slots are allocated at
 * its first lookup, direct-mapped by destination rank. */
#define SB_ROUTE_BITS 5 /* 32 slots */
#define SB_ROUTE_SLOTS (1u << SB_ROUTE_BITS)
typedef struct sb_route {
  int to; /* destination world rank + 1, 0: empty */
  double lat, bw;
} sb_route;
static void **world_hosts; /* MPI_COMM_WORLD rank -> host */
static size_t nworld_hosts;
static pthread_once_t factors_once = PTHREAD_ONCE_INIT;

static void factors_init(void)
{
  const char *l = getenv("SIMBLAS_LAT_FACTOR"), *b = getenv("SIMBLAS_BW_FACTOR");
  if (sb_factors_parse(l && *l ? l : sb_default_lat_factor, &lat_factors))
    sb_fatal("SIMBLAS_LAT_FACTOR='%s' is not a list of size:factor pairs (SMPI's smpi/lat-factor, for example "
             "65472:11.6436;0:2.01467); unset it for SimGrid 3.32's default", l);
  if (sb_factors_parse(b && *b ? b : sb_default_bw_factor, &bw_factors))
    sb_fatal("SIMBLAS_BW_FACTOR='%s' is not a list of size:factor pairs (SMPI's smpi/bw-factor, for example "
             "65472:0.940694;0:0.812084); unset it for SimGrid 3.32's default", b);
  tcp_gamma = sb_smpi_tcp_gamma();
}

void simblas_rank_started(void)
{
  pthread_once(&init_once, init);
  if (!sb_smpi_active())
    return;
  int w = sb_smpi_mpi_rank();
  if (w < 0)
    return;
  world_hosts = grow_table(world_hosts, &nworld_hosts, (size_t)w, sizeof *world_hosts, "the ranks' hosts");
  world_hosts[w] = sb_smpi_host_self();
  simblas_resume(); /* the program's code runs from MPI_Init on */
}

double simblas_message_time(int world_rank, double bytes)
{
  pthread_once(&init_once, init);
  if (!sb_smpi_active() || world_rank < 0 || (size_t)world_rank >= nworld_hosts || !world_hosts[world_rank])
    return 0;
  pthread_once(&factors_once, factors_init);
  sb_rank *r = rank_self();
  if (!r->routes && !(r->routes = calloc(SB_ROUTE_SLOTS, sizeof *r->routes)))
    sb_fatal("out of memory for the routes of rank %ld", r->id);
  sb_route *e = &r->routes[((uint32_t)world_rank * 2654435761u) >> (32 - SB_ROUTE_BITS)];
  if (e->to != world_rank + 1) {
    /* SimGrid's route lookup is SimBLAS's time, not the program's code (a
     * hit costs a few tens of ns: reading the CPU clock twice to exclude
     * it would cost more than it) */
    void *c = sb_code_pause();
    e->lat = sb_smpi_route(world_hosts[world_rank], &e->bw);
    e->to = world_rank + 1;
    sb_code_resume(c);
  }
  double lat = e->lat, bw = e->bw;
  if (tcp_gamma > 0 && lat > 0 && tcp_gamma / (2 * lat) < bw)
    bw = tcp_gamma / (2 * lat);
  double t = lat * sb_factors_at(&lat_factors, bytes);
  if (bytes > 0 && bw > 0)
    t += bytes / (bw * sb_factors_at(&bw_factors, bytes));
  return t;
}

void simblas_idle(double seconds)
{
  pthread_once(&init_once, init);
  if (!(seconds > 0) || !sb_smpi_active())
    return;
  sb_rank *r = rank_self();
  if (rt.code_clock)
    code_stop(r);
  r->idle += seconds;
  flush_rank(r);
  code_start(r);
}
