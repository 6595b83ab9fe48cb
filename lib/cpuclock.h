/*
 * cpuclock.h -- the calling thread's CPU time, read cheaply.
 *
 * The kernel's thread CPU clock (CLOCK_THREAD_CPUTIME_ID) is a system call
 * (about 0.6 us on a KVM guest, against 0.06 us for the vDSO's
 * CLOCK_MONOTONIC).  sb_cpu_clock() answers most reads from the monotonic
 * clock: over a gap shorter than SB_CPU_SHORT since the thread's previous
 * read, wall time is CPU time (a preemption by another task lasts far
 * longer).  A longer gap asks the kernel, and the clock then moves by the
 * CPU time really used since the kernel was last asked, less what the
 * short gaps between already counted, and never backwards.
 */
#ifndef SB_CPUCLOCK_H
#define SB_CPUCLOCK_H

#define SB_CPU_SHORT 50e-6 /* seconds */

/* seconds of CPU time of the calling thread, from an arbitrary origin */
double sb_cpu_clock(void);
/* the kernel's answer, a system call (for tests) */
double sb_cpu_clock_kernel(void);
/* the kernel reads sb_cpu_clock made on this thread (for tests) */
unsigned long sb_cpu_clock_syncs(void);

#endif
