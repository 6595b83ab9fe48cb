/*
 * cpuclock.c -- the calling thread's CPU time without a system call per
 * read (cpuclock.h).  The thread CPU clock is read with syscall(2), not
 * clock_gettime(3): libsimblas_freeclock, preloaded beside it, answers
 * clock_gettime's thread CPU clock from a coarse monotonic one for SMPI.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include "cpuclock.h"

#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static double secs(const struct timespec *t) { return (double)t->tv_sec + 1e-9 * (double)t->tv_nsec; }

static double mono_now(void)
{
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return secs(&t);
}

double sb_cpu_clock_kernel(void)
{
  struct timespec t;
  if (syscall(SYS_clock_gettime, CLOCK_THREAD_CPUTIME_ID, &t) != 0)
    return 0;
  return secs(&t);
}

/* per OS thread: SimGrid's actors share one, each user-level context
 * reads the thread it runs on */
static _Thread_local struct {
  int started;
  double mono;  /* monotonic clock at the previous read */
  double value; /* what the previous read answered */
  double kcpu;  /* the kernel's CPU time at the last sync ... */
  double kval;  /* ... and the value then */
  unsigned long syncs;
} cc;

double sb_cpu_clock(void)
{
  double m = mono_now();
  if (cc.started && m - cc.mono < SB_CPU_SHORT && m >= cc.mono) {
    cc.value += m - cc.mono;
    cc.mono = m;
    return cc.value;
  }
  double k = sb_cpu_clock_kernel();
  cc.syncs++;
  if (!cc.started) {
    cc.started = 1;
    cc.value = k;
  } else {
    double v = cc.kval + (k - cc.kcpu); /* the kernel's count since the last sync */
    if (v > cc.value)
      cc.value = v;
  }
  cc.kcpu = k;
  cc.kval = cc.value;
  cc.mono = m;
  return cc.value;
}

unsigned long sb_cpu_clock_syncs(void) { return cc.syncs; }
