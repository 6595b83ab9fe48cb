/*
 * call.c -- initialisation and the call path: what a BLAS call does once
 * its arguments passed the checks (the model's prediction, handed to the
 * mode's sink: sink.h), and the public API on top of it (simblas.h: the
 * hook, simblas_predict, simblas_execute, simblas_get_stats).
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "call.h"
#include "inject.h"
#include "node.h"
#include "sb_splitmix.h"
#include "settings.h"
#include "simblas.h"
#include "sink.h"
#include "smpi_adaptor.h"

int sb_mode_now = SB_MODE_UNSET;

static const sb_sink *const sinks[] = {&sb_sink_smpi, &sb_sink_null, &sb_sink_passthrough, &sb_sink_trace};

static struct {
  sb_model *model;
  sb_node *node; /* SIMBLAS_NODE: the model composed for another node */
  const sb_sink *sink;
  simblas_hook_fn hook;
  void *hook_ctx;
  unsigned char fallback_logged[SB_OP_COUNT];
} call;

sb_hooks sb_init_hooks;

/* a rank's slice: its random stream, coefficient set, host speed factor
 * and counters */
typedef struct call_rank {
  int set;       /* coefficient set, -1 until resolved */
  double factor; /* its host's speed factor (SIMBLAS_HOST_FACTORS), 0 until resolved */
  double factor_mem; /* ... for the memory kernels (level M), its third column */
  uint64_t rng;
  uint64_t calls;
  double injected;
} call_rank;

static void call_rank_init(void *p, const sb_rank *r)
{
  call_rank *c = p;
  c->set = -1;
  uint64_t s = sb_cfg.seed ^ ((uint64_t)r->id * 0xD1B54A32D192ED03ull);
  c->rng = sb_splitmix64(&s);
}

static sb_slice call_slice = SB_SLICE(call_rank, "the call counters", call_rank_init);
#define CR(r) ((call_rank *)sb_rank_slice(r, &call_slice))

/* ---- per-host speed factors (SIMBLAS_HOST_FACTORS) -------------------------
 * A file of "HOST FACTOR [MEMORY]" lines: every modelled kernel of a rank
 * on HOST takes its prediction divided by FACTOR (0.8: the host runs at
 * 80% of the model's speed), and the memory kernels (level M: kernels.def,
 * HPL's row swaps and copies) by MEMORY when the line gives it (a host
 * with idle cores: memory-bound kernels gain more than dgemm, the model's
 * meta solo_speed_memory).  Read once at initialisation, sorted by host
 * name; each rank looks its host up once (a binary search: 41,000 ranks on
 * as many hosts). */
typedef struct host_factor {
  char *host;
  double factor, memory;
} host_factor;
static host_factor *factors;
static size_t nfactors;

static int factor_cmp(const void *a, const void *b)
{
  return strcmp(((const host_factor *)a)->host, ((const host_factor *)b)->host);
}

static void load_host_factors(const char *path)
{
  FILE *f = fopen(path, "r");
  if (!f)
    sb_fatal("SIMBLAS_HOST_FACTORS=%s: cannot open it (%s); give a file of 'HOST FACTOR' lines, or unset it", path,
             strerror(errno));
  /* getline: a line of any length is one line (a 4096-byte fgets took a
   * longer one's tail for the next line: its text parsed as a line of its
   * own, every later line's number one too high); host names of any length */
  char *line = NULL;
  size_t linecap = 0, cap = 0, ln = 0;
  ssize_t len;
  while ((len = getline(&line, &linecap, f)) >= 0) {
    ln++;
    if ((size_t)len != strlen(line))
      sb_fatal("%s:%zu: a NUL byte: binary data, not a file of 'HOST FACTOR [MEMORY]' lines; give such a file "
               "(SIMBLAS_HOST_FACTORS), or unset it",
               path, ln);
    char *hash = strchr(line, '#');
    if (hash)
      *hash = '\0';
    static const char ws[] = " \t\n\v\f\r";
    char *save, *host = strtok_r(line, ws, &save);
    if (!host)
      continue; /* blank or a comment */
    /* then FACTOR, an optional MEMORY column, and nothing else */
    char *fs = strtok_r(NULL, ws, &save), *ms = fs ? strtok_r(NULL, ws, &save) : NULL, *end;
    double v = fs ? strtod(fs, &end) : NAN;
    if (fs && *end)
      v = NAN;
    double vm = ms ? strtod(ms, &end) : v;
    if (ms && *end)
      vm = NAN;
    if ((ms && strtok_r(NULL, ws, &save)) || !(v > 0) || !isfinite(v) || !(vm > 0) || !isfinite(vm))
      sb_fatal("%s:%zu: expected 'HOST FACTOR [MEMORY]', a host name, its speed factor > 0 (1: the model's speed, "
               "0.8: 80%% of it) and optionally its memory kernels' factor > 0 (SIMBLAS_HOST_FACTORS)",
               path, ln);
    factors = sb_grow_table(factors, &cap, nfactors, sizeof *factors, "the host factors");
    if (!(factors[nfactors].host = strdup(host)))
      sb_fatal("out of memory for the host factors");
    factors[nfactors].memory = vm;
    factors[nfactors++].factor = v;
  }
  /* a directory opens, then reads nothing; a file without a line would
   * leave every host at the model's speed without the word a missing host
   * gets */
  int err = ferror(f) ? errno : 0;
  free(line);
  fclose(f);
  if (err)
    sb_fatal("SIMBLAS_HOST_FACTORS=%s: cannot read it (%s); give a file of 'HOST FACTOR' lines, or unset it", path,
             strerror(err));
  if (!nfactors)
    sb_fatal("SIMBLAS_HOST_FACTORS=%s has no 'HOST FACTOR' line; give one line per host, or unset it", path);
  qsort(factors, nfactors, sizeof *factors, factor_cmp);
  for (size_t i = 1; i < nfactors; i++)
    if (!strcmp(factors[i].host, factors[i - 1].host))
      sb_fatal("%s: host %s has two factors; give one line per host (SIMBLAS_HOST_FACTORS)", path, factors[i].host);
}

/* ---- initialisation ------------------------------------------------------ */
/* at exit: what the node's accelerators did (simblas-hpl reads the line) */
static void node_report(void) { sb_node_report(call.node, stderr); }

static void init(void)
{
  sb_settings_load();
  int mode = sb_cfg.mode;
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

  char err[512] = "";
  if (!(call.model = sb_model_load(sb_cfg.model, err, sizeof err))) {
    if (!err[0]) /* a loader failure without its reason: still name the file */
      sb_fatal("cannot load the model file %s (no reason given); check it against doc/model-format.md, or set "
               "SIMBLAS_MODEL to another model",
               sb_cfg.model);
    sb_fatal("%s", err);
  }

  if (sb_cfg.node) {
    if (mode == SB_MODE_PASSTHROUGH || mode == SB_MODE_TRACE)
      sb_fatal("SIMBLAS_NODE composes the model's predictions for another node, and SIMBLAS_MODE=%s computes on this "
               "one; unset SIMBLAS_NODE, or set SIMBLAS_MODE=smpi or null",
               mode == SB_MODE_TRACE ? "trace" : "passthrough");
    if (!(call.node = sb_node_load(sb_cfg.node, err, sizeof err)))
      sb_fatal("%s", err);
    atexit(node_report);
  }
  if (sb_cfg.host_factors && *sb_cfg.host_factors)
    load_host_factors(sb_cfg.host_factors);
  sb_inject_open(call.model);
  sb_hooks_run(&sb_init_hooks, NULL);
  sb_mode_now = mode;
  call.sink = sinks[mode];
  if (call.sink->open)
    call.sink->open(call.model);
}

static pthread_once_t init_once = PTHREAD_ONCE_INIT;

int sb_init(void)
{
  pthread_once(&init_once, init);
  return sb_mode_now;
}

double sb_clock(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* ---- a rank's random stream and coefficient set ------------------------------ */
uint64_t sb_rank_random(void) { return sb_splitmix64(&CR(sb_rank_self())->rng); }

static double rank_normal(call_rank *c)
{
  /* Box-Muller on two 53-bit uniforms in (0, 1] */
  double u1 = ((double)(sb_splitmix64(&c->rng) >> 11) + 1) * 0x1p-53;
  double u2 = (double)(sb_splitmix64(&c->rng) >> 11) * 0x1p-53;
  return sqrt(-2 * log(u1)) * cos(2 * M_PI * u2);
}

static int rank_set(sb_rank *r, call_rank *c)
{
  if (c->set >= 0)
    return c->set;
  c->set = 0;
  const char *want = sb_smpi_active() ? sb_smpi_host_set() : sb_cfg.set;
  if (want && *want) {
    int s = sb_model_set(call.model, want);
    if (s < 0)
      fprintf(stderr, "simblas: model %s has no coefficient set '%s'; rank %ld uses set 'node'\n", call.model->path,
              want, r->id);
    else
      c->set = s;
  }
  return c->set;
}

/* the speed factor of the rank's host for op: 1 without SIMBLAS_HOST_FACTORS
 * or outside smpirun; a host the file lacks runs at 1, said once per rank;
 * the memory kernels (level M) take the line's MEMORY column */
static double rank_factor(sb_rank *r, call_rank *c, int op)
{
  if (c->factor > 0)
    return sb_ops[op].level == SB_LEVEL_M ? c->factor_mem : c->factor;
  c->factor = c->factor_mem = 1;
  const char *host = nfactors && sb_smpi_active() ? sb_smpi_host_name() : NULL;
  if (host) {
    host_factor key = {.host = (char *)host};
    const host_factor *hf = bsearch(&key, factors, nfactors, sizeof *factors, factor_cmp);
    if (hf)
      c->factor = hf->factor, c->factor_mem = hf->memory;
    else
      fprintf(stderr, "simblas: SIMBLAS_HOST_FACTORS %s has no line for host %s; rank %ld runs at the model's speed (add "
              "a line '%s FACTOR' to change it)\n",
              sb_cfg.host_factors, host, sb_rank_public(r), host);
  }
  return sb_ops[op].level == SB_LEVEL_M ? c->factor_mem : c->factor;
}

/* ---- the two ends of a call ---------------------------------------------- */
static const sb_coefs *coefs_for(sb_rank *r, call_rank *cr, int op, int variant)
{
  const sb_coefs *co = sb_model_coefs_v(call.model, rank_set(r, cr), op, variant);
  if (!co && !call.fallback_logged[op]) {
    call.fallback_logged[op] = 1;
    fprintf(stderr,
            "simblas: model %s has no line for %s; using the flop-count fallback (flops / reference-speed), "
            "recalibrate to model it\n",
            call.model->path, sb_ops[op].name);
  }
  return co;
}

static void notify(const sb_call *c, double predicted, double injected, double measured, long rank)
{
  if (call.hook) {
    simblas_call pub = {sb_ops[c->op].name, c->iface, c->m, c->n, c->k, predicted, injected, measured, (int)rank};
    call.hook(&pub, call.hook_ctx);
  }
}

void sb_model_call(sb_call *c)
{
  sb_rank *r = sb_rank_self();
  call_rank *cr = CR(r);
  sb_inject_enter(r);
  const sb_coefs *co = coefs_for(r, cr, c->op, c->variant);
  double t = sb_model_mean(call.model, co, c), t_model = t;
  if (call.node) { /* on the node of SIMBLAS_NODE; the noise keeps its relative size */
    sb_node_cost cost = sb_node_time(call.node, call.model, co, c);
    sb_node_account(call.node, &cost);
    t = cost.t;
  }
  if (sb_cfg.noise && t > 0) {
    double s = sb_model_sigma(co, c);
    if (call.node)
      s = t_model > 0 ? s * (t / t_model) : 0;
    if (s > 0) {
      /* lognormal with mean t and standard deviation s */
      double v = log1p((s / t) * (s / t));
      t *= exp(sqrt(v) * rank_normal(cr) - v / 2);
    }
  }
  /* the host's speed factor slows (or speeds) the kernel; the hook still
   * sees the model's prediction */
  double injected = call.sink->inject(r, t / rank_factor(r, cr, c->op));
  cr->calls++;
  sb_inject_busy(r);
  cr->injected += injected;
  notify(c, t, injected, 0, sb_rank_public(r));
  sb_inject_leave(r);
}

void sb_measured(sb_call *c, double seconds)
{
  sb_rank *r = sb_rank_self();
  call_rank *cr = CR(r);
  double predicted = sb_model_mean(call.model, coefs_for(r, cr, c->op, c->variant), c);
  cr->calls++;
  sb_inject_busy(r);
  if (call.sink->record)
    call.sink->record(r, c, predicted, seconds);
  notify(c, predicted, 0, seconds, sb_rank_public(r));
}

double sb_call_injected(sb_rank *r) { return CR(r)->injected; }

/* ---- the null sink: predictions only --------------------------------------- */
static double null_inject(sb_rank *r, double t)
{
  (void)r, (void)t;
  return 0;
}

const sb_sink sb_sink_null = {"null", NULL, null_inject, NULL};

/* ---- public API ------------------------------------------------------------ */
void simblas_set_hook(simblas_hook_fn fn, void *ctx)
{
  call.hook = fn;
  call.hook_ctx = ctx;
}

const char *simblas_mode(void) { return sinks[sb_init()]->mode; }

double simblas_predict(const char *routine, int64_t m, int64_t n, int64_t k)
{
  return simblas_predict_ld(routine, m, n, k, 0);
}

double simblas_predict_ld(const char *routine, int64_t m, int64_t n, int64_t k, int64_t ld)
{
  sb_init();
  int variant, op = sb_model_key(routine, &variant);
  if (op < 0)
    return -1;
  sb_call c = {.op = op, .m = m, .n = n, .k = k, .variant = variant, .ld = ld > 0 ? ld : 0};
  const sb_coefs *co = sb_model_coefs_v(call.model, 0, op, variant);
  return call.node ? sb_node_time(call.node, call.model, co, &c).t : sb_model_mean(call.model, co, &c);
}

double simblas_execute(const char *routine, int64_t m, int64_t n, int64_t k)
{
  return simblas_execute_ld(routine, m, n, k, 0);
}

double simblas_execute_ld(const char *routine, int64_t m, int64_t n, int64_t k, int64_t ld)
{
  sb_init();
  void *code = sb_code_pause();
  int variant, op = sb_model_key(routine, &variant);
  double v = op < 0 ? -1 : 0;
  if (op >= 0 && !sb_computes()) { /* else the caller computes for real */
    sb_call c = {.op = op, .m = m, .n = n, .k = k, .variant = variant, .ld = ld > 0 ? ld : 0};
    call_rank *cr = CR(sb_rank_self());
    double before = cr->injected;
    sb_model_call(&c);
    v = cr->injected - before;
  }
  sb_code_resume(code);
  return v;
}

void simblas_trace_kernel(const char *routine, int64_t m, int64_t n, int64_t k, int64_t ld, double seconds)
{
  static int unknown_said;
  if (sb_init() != SB_MODE_TRACE)
    return;
  int variant, op = sb_model_key(routine, &variant);
  if (op < 0) {
    if (!__atomic_exchange_n(&unknown_said, 1, __ATOMIC_RELAXED))
      fprintf(stderr, "simblas: simblas_trace_kernel: '%s' is no model key of this libsimblas; its calls are not "
                      "traced (a newer HPL patch series than this library? rebuild both from one SimBLAS)\n",
              routine ? routine : "(null)");
    return;
  }
  sb_call c = {.op = op, .m = m, .n = n, .k = k, .variant = variant, .ld = ld > 0 ? ld : 0};
  sb_measured(&c, seconds);
}

simblas_stats simblas_get_stats(void)
{
  sb_init();
  sb_rank *r = sb_rank_self();
  call_rank *cr = CR(r);
  simblas_stats s = {cr->calls, cr->injected, 0, 0};
  sb_inject_counts(r, &s.flushes, &s.code_s);
  return s;
}
