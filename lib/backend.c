/*
 * backend.c -- the sinks that compute: passthrough runs each call on a
 * real BLAS (SIMBLAS_BACKEND, dlopen'ed once) and trace does too, writing
 * a CSV row per call (SIMBLAS_TRACE).
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sb_rt.h"
#include "settings.h"
#include "simblas.h"
#include "sink.h"

static struct {
  void *handle;
  const char *name;
  void *syms[2 * SB_OP_COUNT];
  FILE *trace;
  char *trace_part; /* the file written, renamed to SIMBLAS_TRACE at exit (NULL: written in place) */
  char *trace_lock; /* SIMBLAS_TRACE.lock, flock'ed while this process writes the trace */
} be;

static const char *mode_name(void) { return sb_mode_now == SB_MODE_TRACE ? "trace" : "passthrough"; }

static void backend_open(const sb_model *m)
{
  (void)m;
  be.name = sb_cfg.backend;
  be.handle = dlopen(be.name, RTLD_NOW | RTLD_LOCAL);
  if (!be.handle)
    sb_fatal("SIMBLAS_MODE=%s needs a real BLAS, but '%s' does not load (%s); set SIMBLAS_BACKEND to the path of one, "
             "e.g. /usr/lib/x86_64-linux-gnu/openblas-pthread/libopenblas.so.0",
             mode_name(), be.name, dlerror());
  /* a backend that is libsimblas (SIMBLAS_BACKEND naming it, a libblas.so.3
   * alternative resolving to it, a copy of it) would call itself forever */
  void *f = dlsym(be.handle, "dgemm_");
  Dl_info bi, own;
  if (dlsym(be.handle, "simblas_mode") ||
      (f && dladdr(f, &bi) && dladdr((void *)simblas_mode, &own) && bi.dli_fbase == own.dli_fbase))
    sb_fatal("SIMBLAS_MODE=%s computes with SIMBLAS_BACKEND, but '%s' is libsimblas itself (%s): every call would "
             "call itself; set SIMBLAS_BACKEND to a real BLAS, e.g. "
             "/usr/lib/x86_64-linux-gnu/openblas-pthread/libopenblas.so.0",
             mode_name(), be.name, f && dladdr(f, &bi) && bi.dli_fname ? bi.dli_fname : be.name);
  /* the calibrator measures one thread per core: do the same */
  void (*set_threads)(int) = (void (*)(int))dlsym(be.handle, "openblas_set_num_threads");
  if (set_threads)
    set_threads((int)sb_cfg.backend_threads);
}

void *sb_backend_sym(int slot, const char *name)
{
  void *f = be.syms[slot];
  if (__builtin_expect(f == NULL, 0)) {
    if (!(f = dlsym(be.handle, name)))
      sb_fatal("the backend BLAS %s has no %s, so SIMBLAS_MODE=%s cannot run it; pick a backend that has it with "
               "SIMBLAS_BACKEND, or use SIMBLAS_MODE=null",
               be.name, name, mode_name());
    be.syms[slot] = f;
  }
  return f;
}

const sb_sink sb_sink_passthrough = {"passthrough", backend_open, NULL, NULL};

/* ---- trace: passthrough, and a row per call --------------------------------
 * The rows go to SIMBLAS_TRACE.PID.part, renamed to SIMBLAS_TRACE when the
 * program exits: an interrupted run, or one libsimblas stopped, leaves no
 * trace under the name (an earlier one stays), never a truncated one that
 * simblas-calibrate --from-trace would read as a whole run.  A write that
 * fails (a full disk) stops the program with the reason.  A path that is
 * not a regular file (/dev/stdout, a pipe, a symbolic link) is written in
 * place. */
#define TRACE_LOST "cannot write the trace %s: %s; no trace was kept: free space there, or set SIMBLAS_TRACE to another path"

static void trace_unlock(void)
{
  if (be.trace_lock)
    unlink(be.trace_lock);
}

/* no trace kept: the rows aside removed, the name's lock released */
static void trace_discard(void)
{
  if (be.trace_part)
    unlink(be.trace_part);
  trace_unlock();
}

static _Noreturn void trace_failed(int err)
{
  trace_discard();
  sb_fatal(TRACE_LOST, sb_cfg.trace, strerror(err));
}

static void trace_close(void)
{
  FILE *f = be.trace;
  if (!f)
    return;
  be.trace = NULL;
  int err = fflush(f) != 0 ? errno : 0;
  if (fclose(f) != 0 && !err)
    err = errno;
  if (sb_fatal_called) { /* its line said why the run stopped */
    trace_discard();
    return;
  }
  if (!err && be.trace_part && rename(be.trace_part, sb_cfg.trace) != 0)
    err = errno;
  if (err) {
    /* an exit handler cannot exit(): the program's output flushed, then
     * status 2 as sb_fatal's */
    trace_discard();
    fprintf(stderr, "simblas: " TRACE_LOST "\n", sb_cfg.trace, strerror(err));
    fflush(NULL);
    _exit(2);
  }
  trace_unlock();
}

static void trace_open(const sb_model *m)
{
  backend_open(m);
  const char *path = sb_cfg.trace;
  if (!path)
    sb_fatal("SIMBLAS_MODE=trace writes a CSV to SIMBLAS_TRACE, which is not set; set SIMBLAS_TRACE=calls.csv");
  struct stat st;
  int in_place = lstat(path, &st) == 0 && !S_ISREG(st.st_mode); /* a link is written through, not replaced */
  if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
    sb_fatal("SIMBLAS_TRACE=%s is a directory; set SIMBLAS_TRACE to a file in it, e.g. %s/calls.csv", path, path);
  if (!in_place) {
    size_t n = strlen(path) + 32;
    if (!(be.trace_part = malloc(n)) || !(be.trace_lock = malloc(n)))
      sb_fatal("out of memory for the trace's name");
    snprintf(be.trace_part, n, "%s.%ld.part", path, (long)getpid());
    /* one writer per name: processes sharing SIMBLAS_TRACE (every rank of an
     * mpirun given one name) would each rename their rows over the others'
     * at exit, all but the last lost without a word */
    snprintf(be.trace_lock, n, "%s.lock", path);
    int lfd = open(be.trace_lock, O_WRONLY | O_CREAT | O_CLOEXEC, 0666);
    if (lfd >= 0 && flock(lfd, LOCK_EX | LOCK_NB) != 0 && errno == EWOULDBLOCK)
      sb_fatal("SIMBLAS_TRACE=%s is being written by another process (it holds %s): each would replace the other's "
               "rows; give each process its own file, e.g. SIMBLAS_TRACE=trace.$OMPI_COMM_WORLD_RANK.csv under mpirun",
               path, be.trace_lock);
    if (lfd < 0) { /* (the trace's own open, below, says why the place is not writable) */
      free(be.trace_lock);
      be.trace_lock = NULL;
    } else { /* held, by the open descriptor, until the process ends; so the
              * .part files of this name are those of runs killed before
              * their exit, which nothing will finish: removed */
      size_t gn = strlen(path) + 16;
      char *pat = malloc(gn);
      glob_t g;
      if (pat) {
        snprintf(pat, gn, "%s.*.part", path);
        if (glob(pat, GLOB_NOSORT, NULL, &g) == 0) {
          for (size_t i = 0; i < g.gl_pathc; i++)
            unlink(g.gl_pathv[i]);
          globfree(&g);
        }
        free(pat);
      }
    }
  }
  int fd = open(in_place ? path : be.trace_part, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
  if (fd < 0 || !(be.trace = fdopen(fd, "w")))
    sb_fatal("cannot write the trace %s (%s: %s); set SIMBLAS_TRACE to a writable path", path,
             in_place ? path : be.trace_part, strerror(errno));
  if (atexit(trace_close) != 0)
    sb_fatal("cannot register the trace's completion at exit; SIMBLAS_MODE=passthrough runs without a trace");
  /* ld (last, so that readers of the first eight columns read on): the
   * leading dimension a kernel gave (simblas_trace_kernel), 0 for BLAS
   * calls (not given) */
  if (fputs("routine,m,n,k,predicted_s,measured_s,rank,cblas,ld\n", be.trace) < 0)
    trace_failed(errno);
}

static void trace_record(sb_rank *r, const sb_call *c, double predicted, double measured)
{
  /* the routine as its model key: the Right-side form of trsm, trmm, symm
   * and hemm is "dtrsm.right" (simblas-calibrate --from-trace fits each) */
  if (fprintf(be.trace, "%s%s,%lld,%lld,%lld,%.9g,%.9g,%ld,%d,%lld\n", sb_ops[c->op].name,
              c->variant ? SB_RIGHT_SUFFIX : "", (long long)c->m, (long long)c->n, (long long)c->k, predicted, measured,
              sb_rank_public(r), c->iface, (long long)c->ld) < 0)
    trace_failed(errno);
}

const sb_sink sb_sink_trace = {"trace", trace_open, NULL, trace_record};
