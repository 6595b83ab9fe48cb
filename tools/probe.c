/*
 * simblas-probe -- the figures of THIS node that a node file compares a
 * target node with (doc/user-guide.md, "Nodes you cannot calibrate on"):
 *
 *   peak_gflops_per_core  fused multiply-adds in registers, one pinned
 *                         thread per core, all cores at once (the clock
 *                         they hold together, as the calibrator's cores)
 *   stream_gbs            STREAM triad a = b + s c, one pinned thread per
 *                         core, all at once, arrays far beyond the caches
 *                         (24 bytes an element, STREAM's count)
 *   stream_gbs_one_core   the same triad on one core alone
 *
 * Written as a node file (TOML, the schema of examples/nodes/) to -o
 * FILE (atomically, as a model is written: sb_model_out; a symbolic link
 * written through, only a regular file replaced) or stdout.  simblas-hpl run --node looks for it beside
 * the model, as MODEL.node.toml.  --hog SEC runs the triad on the calling
 * thread for SEC seconds and nothing else: memory-bandwidth pressure for
 * bench/node-split (run it under taskset).
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include <errno.h>
#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define SB_X86 1
#endif
#include <math.h>
#include <pthread.h>
#include <sys/stat.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "model.h" /* sb_model_out: the node file written atomically, as models are */

/* the node file's size, well above what main writes: reserved before measuring */
#define NODE_FILE_BYTES 4096

static double now(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* the thread's CPU time: on a shared machine another task's time slices
 * are not the core's speed (the calibrator times interrupted calls so) */
static double cpu_now(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* (the node file's temporary, made before measuring, is removed when the
 * run ends otherwise than by its commit: die's exit, or a signal; the file
 * named by -o is then left as it was: sb_model_out_guard) */
static _Noreturn void die(const char *fmt, const char *arg)
{
  fprintf(stderr, "simblas-probe: ");
  fprintf(stderr, fmt, arg);
  fputc('\n', stderr);
  exit(2);
}

/* ---- the FMA loop: 12 independent chains, enough to fill two pipes of
 * 4-5 cycles' latency; flops = 2 x lanes x chains x iterations ---------- */
#define CHAINS 12
#ifdef SB_X86
#define FMA_BODY(T, SET, FMA)                                                  \
  T x = SET(0.999999), y = SET(1e-7);                                          \
  T a0 = SET(1), a1 = SET(2), a2 = SET(3), a3 = SET(4), a4 = SET(5), a5 = SET(6); \
  T a6 = SET(7), a7 = SET(8), a8 = SET(9), a9 = SET(10), a10 = SET(11), a11 = SET(12); \
  for (long i = 0; i < iters; i++) {                                           \
    a0 = FMA(a0, x, y), a1 = FMA(a1, x, y), a2 = FMA(a2, x, y), a3 = FMA(a3, x, y); \
    a4 = FMA(a4, x, y), a5 = FMA(a5, x, y), a6 = FMA(a6, x, y), a7 = FMA(a7, x, y); \
    a8 = FMA(a8, x, y), a9 = FMA(a9, x, y), a10 = FMA(a10, x, y), a11 = FMA(a11, x, y); \
  }                                                                            \
  T s = a0 + a1 + a2 + a3 + a4 + a5 + a6 + a7 + a8 + a9 + a10 + a11;

__attribute__((target("avx2,fma"))) static double fma_avx2(long iters)
{
  FMA_BODY(__m256d, _mm256_set1_pd, _mm256_fmadd_pd)
  return s[0] + s[3];
}

__attribute__((target("avx512f"))) static double fma_avx512(long iters)
{
  FMA_BODY(__m512d, _mm512_set1_pd, _mm512_fmadd_pd)
  return _mm512_reduce_add_pd(s);
}

static int lanes; /* doubles per FMA: 8 (AVX-512), 4 (AVX2), 0: neither */

static double fma_run(long iters) { return lanes == 8 ? fma_avx512(iters) : fma_avx2(iters); }
#else /* no peak measured on other processors: the probe says so */
static int lanes;
static double fma_run(long iters) { return (double)iters; }
#endif

/* ---- workers: one per core, started together at a barrier ---------------- */
enum task { PEAK, TRIAD };
typedef struct worker {
  int cpu;
  enum task task;
  double seconds;     /* PEAK: how long to run */
  size_t n;           /* TRIAD: elements per array */
  double *a, *b, *c;
  double rate;        /* result: flop/s (PEAK) or bytes/s (TRIAD, best pass) */
  double sink;
  pthread_barrier_t *go;
} worker;

static void pin(int cpu)
{
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  sched_setaffinity(0, sizeof set, &set); /* best effort: unpinned still measures */
}

static double triad_pass(worker *w)
{
  double s = 3.0, t0 = cpu_now();
  double *restrict a = w->a, *restrict b = w->b, *restrict c = w->c;
  for (size_t i = 0; i < w->n; i++)
    a[i] = b[i] + s * c[i];
  double t = cpu_now() - t0;
  w->sink += a[w->n / 2];
  return t;
}

static void *work(void *p)
{
  worker *w = p;
  pin(w->cpu);
  if (w->task == TRIAD) { /* first touch by the pinned thread */
    if (!(w->a = malloc(w->n * sizeof *w->a)) || !(w->b = malloc(w->n * sizeof *w->b)) ||
        !(w->c = malloc(w->n * sizeof *w->c)))
      die("out of memory for the triad's arrays (%s)", "3 x 128 MiB per core");
    for (size_t i = 0; i < w->n; i++)
      w->a[i] = 0, w->b[i] = 1, w->c[i] = 2;
  }
  pthread_barrier_wait(w->go);
  if (w->task == PEAK) {
    long iters = 1 << 16; /* calibrate the count to the duration asked */
    double t;
    for (;;) {
      double t0 = cpu_now();
      w->sink += fma_run(iters);
      t = cpu_now() - t0;
      if (t > w->seconds / 8)
        break;
      iters *= 2;
    }
    iters = (long)((double)iters * w->seconds / t);
    double t0 = cpu_now();
    w->sink += fma_run(iters);
    t = cpu_now() - t0;
    w->rate = 2.0 * lanes * CHAINS * (double)iters / t;
  } else {
    double best = HUGE_VAL;
    for (int pass = 0; pass < 6; pass++) {
      double t = triad_pass(w);
      if (pass && t < best) /* the first pass warms up */
        best = t;
    }
    w->rate = 24.0 * (double)w->n / best;
    free(w->a), free(w->b), free(w->c);
  }
  return NULL;
}

/* the mean rate per worker (PEAK) or their sum (TRIAD) over `ncpu` cores */
static double measure(enum task task, const int *cpus, int ncpu, double seconds, size_t n)
{
  pthread_t th[ncpu];
  worker w[ncpu];
  pthread_barrier_t go;
  pthread_barrier_init(&go, NULL, (unsigned)ncpu);
  for (int i = 0; i < ncpu; i++) {
    w[i] = (worker){.cpu = cpus[i], .task = task, .seconds = seconds, .n = n, .go = &go};
    if (pthread_create(&th[i], NULL, work, &w[i]) != 0)
      die("cannot start a thread (%s)", strerror(errno));
  }
  double sum = 0;
  for (int i = 0; i < ncpu; i++) {
    pthread_join(th[i], NULL);
    sum += w[i].rate;
  }
  pthread_barrier_destroy(&go);
  return task == PEAK ? sum / ncpu : sum;
}

static void cpu_name(char *buf, size_t len)
{
  snprintf(buf, len, "unknown CPU");
  FILE *f = fopen("/proc/cpuinfo", "r");
  char line[512];
  while (f && fgets(line, sizeof line, f))
    if (!strncmp(line, "model name", 10)) {
      char *c = strchr(line, ':');
      if (c) {
        c += 1 + strspn(c + 1, " \t");
        c[strcspn(c, "\n\"\\")] = '\0';
        snprintf(buf, len, "%s", c);
      }
      break;
    }
  if (f)
    fclose(f);
}

static void usage(FILE *f)
{
  fprintf(f, "usage: simblas-probe [-o FILE] [--seconds SEC]\n"
             "       simblas-probe --hog SEC\n"
             "Measures this node's peak flop rate per core (all cores busy) and its memory bandwidth (STREAM\n"
             "triad, all cores and one core), and writes them as a node file (TOML).\n"
             "  -o FILE          write the node file there, atomically (default: stdout); simblas-hpl run\n"
             "                   --node reads it beside the model as MODEL.node.toml\n"
             "  --seconds SEC    measuring time of the peak (default 1)\n"
             "  --hog SEC        run the triad on this thread for SEC seconds (memory-bandwidth pressure)\n");
}

int main(int argc, char **argv)
{
  const char *out = NULL;
  double seconds = 1, hog = 0;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
      usage(stdout);
      return 0;
    }
    if (i + 1 >= argc || (strcmp(a, "-o") && strcmp(a, "--seconds") && strcmp(a, "--hog")))
      die("unknown or incomplete option '%s' (simblas-probe --help lists the options)", a);
    const char *v = argv[++i];
    if (!strcmp(a, "-o")) {
      out = v;
      continue;
    }
    char *end;
    double d = strtod(v, &end);
    if (end == v || *end || !(d > 0) || d > 86400) {
      fprintf(stderr, "simblas-probe: %s needs a number of seconds in (0, 86400], not '%s'\n", a, v);
      exit(2);
    }
    *(strcmp(a, "--hog") ? &seconds : &hog) = d;
  }
#ifdef SB_X86
  __builtin_cpu_init();
  lanes = __builtin_cpu_supports("avx512f") ? 8 : __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") ? 4 : 0;
#endif
  const size_t n = (size_t)16 << 20; /* 128 MiB per array */
  if (hog > 0 && out)
    die("-o %s does nothing with --hog, which writes nothing: leave it out", out);
  if (hog > 0) {
    worker w = {.cpu = -1, .task = TRIAD, .n = n};
    if (!(w.a = malloc(n * 8)) || !(w.b = malloc(n * 8)) || !(w.c = malloc(n * 8)))
      die("out of memory for the triad's arrays (%s)", "3 x 128 MiB");
    for (size_t i = 0; i < n; i++)
      w.a[i] = 0, w.b[i] = 1, w.c[i] = 2;
    for (double end = now() + hog; now() < end;)
      triad_pass(&w);
    return w.sink == 42.0; /* never: keeps the stores */
  }
  if (!lanes)
    die("this CPU has neither AVX2 with FMA nor AVX-512 (of %s): no peak to measure here; write the node file by "
        "hand (examples/nodes/)", "x86-64");
  /* the output's temporary, beside it, before measuring: a place that
   * cannot be written (or has no room for the file) is said now, not after
   * the measuring */
  sb_model_out *node = NULL;
  char err[1024];
  if (out) {
    struct stat st;
    if (!*out)
      die("-o '%s': an empty name; give the node file a file name, e.g. node.toml", out);
    if (stat(out, &st) == 0 && S_ISDIR(st.st_mode))
      die("-o %s is a directory: give the node file a file name in it", out);
    /* any regular file is replaced (magic NULL), as before */
    if (!(node = sb_model_out_open_as(out, "node file", "node.toml", NULL, NODE_FILE_BYTES, err, sizeof err))) {
      size_t ol = strlen(out);
      const char *why = strlen(err) > ol + 2 ? err + ol + 2 : ""; /* err is "OUT: why" */
      if (!strncmp(why, "cannot write the node file into ", 32)) /* the directory: said as always */
        die("cannot write beside %s; choose a writable place", out);
      die("%s", err);
    }
    sb_model_out_guard(node, NULL);
  }

  cpu_set_t set;
  if (sched_getaffinity(0, sizeof set, &set) != 0)
    die("cannot read the CPUs this process may use (%s)", strerror(errno));
  int cpus[CPU_SETSIZE], ncpu = 0;
  for (int c = 0; c < CPU_SETSIZE; c++)
    if (CPU_ISSET(c, &set))
      cpus[ncpu++] = c;

  double peak = measure(PEAK, cpus, ncpu, seconds, 0);
  double bw_all = measure(TRIAD, cpus, ncpu, 0, n);
  double bw_one = measure(TRIAD, cpus, 1, 0, n);

  char name[256], date[32];
  cpu_name(name, sizeof name);
  time_t t = time(NULL);
  strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", gmtime(&t));
  char *text;
  size_t len;
  FILE *m = open_memstream(&text, &len);
  if (!m)
    die("out of memory (%s)", "the node file");
  fprintf(m,
          "# This node, measured by simblas-probe on %s (node file schema: examples/nodes/).\n"
          "schema = \"simblas-node/0.1\"\n"
          "name   = \"%s, %d cores (measured here)\"\n\n"
          "[sources]\n"
          "probe = \"simblas-probe %s: FMA loop (%d doubles per instruction) and STREAM triad, one pinned thread "
          "per core, all cores at once\"\n\n"
          "[cpu]\n"
          "model = \"%s\"\n"
          "cores = { value = %d, kind = \"measured\", source = \"probe\", note = \"CPUs this process may use\" }\n"
          "peak_gflops_per_core = { value = %.4g, kind = \"measured\", source = \"probe\", note = \"all cores "
          "busy\" }\n"
          "stream_gbs = { value = %.4g, kind = \"measured\", source = \"probe\", note = \"triad, all cores\" }\n"
          "stream_gbs_one_core = { value = %.4g, kind = \"measured\", source = \"probe\", note = \"triad, one core "
          "alone\" }\n",
          date, name, ncpu, PACKAGE_VERSION, lanes, name, ncpu, peak / 1e9, bw_all / 1e9, bw_one / 1e9);
  fclose(m);
  if (!out) {
    fputs(text, stdout);
    free(text);
    return 0;
  }
  /* atomically: the temporary made before measuring, then a rename */
  if (sb_model_out_commit_text(node, text, len, err, sizeof err) != 0)
    die("%s", err);
  fprintf(stderr, "simblas-probe: %s: %.1f Gflop/s per core (all %d busy), triad %.1f GB/s (all cores), %.1f GB/s "
                  "(one core)\n",
          out, peak / 1e9, ncpu, bw_all / 1e9, bw_one / 1e9);
  free(text);
  return 0;
}
