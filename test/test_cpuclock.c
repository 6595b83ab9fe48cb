/*
 * test_cpuclock.c -- lib/cpuclock.c, the thread CPU clock read mostly
 * without a system call (SIMBLAS_CODE_CLOCK times HPL's own code with it):
 *   - over many short gaps it follows the kernel's thread CPU clock;
 *   - a sleep (wall time, no CPU) does not advance it;
 *   - it never goes backwards;
 *   - short gaps do not ask the kernel.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include <cmocka.h>

#include "cpuclock.h"

/* busy for about SEC of CPU, reading sb_cpu_clock between short bursts */
static unsigned long burn(double sec)
{
  unsigned long reads = 0;
  double k0 = sb_cpu_clock_kernel();
  volatile double x = 1;
  while (sb_cpu_clock_kernel() - k0 < sec)
    for (int j = 0; j < 200; j++) {
      for (int i = 0; i < 50; i++)
        x = x * 1.0000001 + 1e-9;
      sb_cpu_clock();
      reads++;
    }
  return reads;
}

static void follows_kernel(void **state)
{
  (void)state;
  double v0 = sb_cpu_clock(), k0 = sb_cpu_clock_kernel();
  burn(0.05);
  double dv = sb_cpu_clock() - v0, dk = sb_cpu_clock_kernel() - k0;
  /* the last read asked the kernel or came within SB_CPU_SHORT of a read
   * that did, so the two agree to the short gaps' wall-vs-CPU difference */
  if (!(dv > 0.9 * dk - 2 * SB_CPU_SHORT && dv < 1.1 * dk + 2 * SB_CPU_SHORT))
    fail_msg("sb_cpu_clock advanced %.6f s over %.6f s of thread CPU time", dv, dk);
}

static void sleep_is_not_cpu(void **state)
{
  (void)state;
  double v0 = sb_cpu_clock();
  struct timespec ts = {0, 30 * 1000 * 1000};
  nanosleep(&ts, NULL);
  double dv = sb_cpu_clock() - v0;
  if (!(dv >= 0 && dv < 0.005))
    fail_msg("sb_cpu_clock advanced %.6f s over a 30 ms sleep", dv);
}

static void monotonic(void **state)
{
  (void)state;
  double last = sb_cpu_clock();
  for (int i = 0; i < 200000; i++) {
    double v = sb_cpu_clock();
    if (v < last)
      fail_msg("read %d went back from %.9f to %.9f", i, last, v);
    last = v;
  }
}

static void short_gaps_skip_the_kernel(void **state)
{
  (void)state;
  unsigned long s0 = sb_cpu_clock_syncs();
  unsigned long reads = burn(0.02);
  unsigned long syncs = sb_cpu_clock_syncs() - s0;
  /* one read per ~1 us of work: only a preemption or a timer interrupt
   * makes a gap of 50 us */
  if (!(reads > 1000 && syncs * 10 < reads))
    fail_msg("%lu of %lu reads asked the kernel", syncs, reads);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(follows_kernel),
      cmocka_unit_test(sleep_is_not_cpu),
      cmocka_unit_test(monotonic),
      cmocka_unit_test(short_gaps_skip_the_kernel),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
