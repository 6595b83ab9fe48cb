/*
 * freeclock.c -- libsimblas_freeclock.so, preloaded by `simblas-hpl run
 * --hpl-code free`, and with --hpl-code timed when SimBLAS times HPL's code
 * (SIMBLAS_CODE_CLOCK=1): SMPI's benchmark timer without its system calls.
 *
 * SMPI starts and stops a per-thread CPU-time timer around every MPI call
 * and every injection (smpi_bench_begin/end: clock_gettime of
 * CLOCK_THREAD_CPUTIME_ID, which is a real system call, not a vDSO one).
 * With smpi/simulate-computation:no the measured time is never used, yet
 * the calls cost 7% of the wall at Stampede's scale and 12% at 64 ranks.
 * Here that clock answers from CLOCK_MONOTONIC_COARSE (vDSO, no system
 * call); every other clock is the C library's.  Nothing else in a model-
 * mode HPL run reads the thread CPU clock (HPL's CPU timers use clock(),
 * the process clock; SimBLAS's code clock, lib/cpuclock.c, asks the kernel
 * by syscall(2), past this).  Never preload it where SMPI times the
 * computation (smpi/simulate-computation:yes).
 */
#include <dlfcn.h>
#include <time.h>

typedef int (*clock_gettime_fn)(clockid_t, struct timespec *);
static clock_gettime_fn real_clock_gettime;

int clock_gettime(clockid_t clk, struct timespec *ts)
{
  if (!real_clock_gettime)
    real_clock_gettime = (clock_gettime_fn)dlsym(RTLD_NEXT, "clock_gettime");
  return real_clock_gettime(clk == CLOCK_THREAD_CPUTIME_ID ? CLOCK_MONOTONIC_COARSE : clk, ts);
}
