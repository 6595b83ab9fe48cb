/*
 * inject.c -- the SMPI sink's bookkeeping: a rank's merged injections
 * (SIMBLAS_MERGE), the cost of its polls, the code clock, and the entry
 * points libsimblas_pmpi's MPI wrappers call.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include <pthread.h>

#include "cpuclock.h"
#include "runtime.h"

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
void sb_code_stop(sb_rank *r)
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

void sb_code_start(sb_rank *r)
{
  if (rt.code_clock)
    r->code_t0 = sb_cpu_clock();
}

/* around a public entry point that may switch ranks: NULL when off */
void *sb_code_pause(void)
{
  if (!rt.code_clock || !sb_smpi_active())
    return NULL;
  sb_rank *r = sb_rank_self();
  sb_code_stop(r);
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
    sb_rank_self()->code_t0 = sb_cpu_clock();
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
void sb_flush_rank(sb_rank *r)
{
  code_owed(r);
  if (r->lz_first >= 0)
    sb_defer_resolve(r); /* the barriers of its thinned pivot exchanges, as owed idle time */
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
  sb_init();
  if (rt.poll_cost <= 0 || !sb_smpi_active()) {
    simblas_flush();
    return;
  }
  sb_rank *r = sb_rank_self();
  if (rt.code_clock)
    sb_code_stop(r);
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
  sb_flush_rank(r);
  if (bound)
    inject_poll(r, t);
}

void simblas_polled(int flag)
{
  simblas_resume();
  if (rt.poll_cost <= 0 || !sb_smpi_active())
    return;
  sb_rank *r = sb_rank_self();
  r->spins = flag ? 0 : r->spins + 1;
}

void simblas_flush(void)
{
  if (sb_mode_now == SB_MODE_UNSET || !sb_smpi_active())
    return;
  sb_rank *r = sb_rank_self();
  if (rt.code_clock)
    sb_code_stop(r);
  r->spins = 0; /* an MPI call other than a poll: not a spin loop */
  if (sb_mode_now == SB_MODE_SMPI && rt.merge)
    sb_flush_rank(r);
}

void simblas_idle(double seconds)
{
  sb_init();
  if (!(seconds > 0) || !sb_smpi_active())
    return;
  sb_rank *r = sb_rank_self();
  if (rt.code_clock)
    sb_code_stop(r);
  r->idle += seconds;
  sb_flush_rank(r);
  sb_code_start(r);
}
