/*
 * inject.c -- what a rank owes the simulated clock and when it pays
 * (inject.h): its merged BLAS time (SIMBLAS_MERGE), the cost of its polls,
 * its idle waits and its own code's time (SIMBLAS_CODE_CLOCK); the SMPI
 * sink (SIMBLAS_MODE=smpi); and the entry points libsimblas_pmpi's MPI
 * wrappers call (simblas_flush, simblas_resume, simblas_poll,
 * simblas_polled, simblas_rank_started).
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include <dlfcn.h>

#include "cpuclock.h"
#include "inject.h"
#include "sb_rt.h"
#include "settings.h"
#include "simblas.h"
#include "sink.h"
#include "smpi_adaptor.h"

/* a rank's slice */
typedef struct inject_rank {
  double pending;   /* SIMBLAS_MERGE: injected at the next MPI call */
  uint64_t flushes; /* smpi_execute_benched calls made */
  uint64_t spins;   /* failed polls in a row, nothing else between */
  double debt;      /* SIMBLAS_POLL_COST of polls not injected yet */
  double idle;      /* waits owed (thinned pivot exchanges, merged rolls), slept at the next flush */
  double code_t0;   /* SIMBLAS_CODE_CLOCK: CPU clock when the program's code resumed, -1: in SimBLAS or MPI */
  double code_s;    /* the program's own code, seconds charged */
  double code_owed; /* ... not injected yet */
} inject_rank;

static void inject_rank_init(void *p, const sb_rank *r)
{
  (void)r;
  ((inject_rank *)p)->code_t0 = -1;
}

static sb_slice inject_slice = SB_SLICE(inject_rank, "the injections", inject_rank_init);
#define IJ(r) ((inject_rank *)sb_rank_slice(r, &inject_slice))

static double ref_speed; /* the model's reference speed: the code clock's time is the model's */
static double code_min;  /* smpi/cpu-threshold: the least code time injected on its own */
static sb_hooks flush_hooks, polled_hooks;

/* set by libsimblas_pmpi's constructor: its MPI wrappers flush */
int simblas_pmpi_linked;

void sb_inject_open(const sb_model *m)
{
  ref_speed = m->reference_speed;
  if (sb_cfg.merge && !dlsym(RTLD_DEFAULT, "PMPI_Send"))
    sb_fatal("SIMBLAS_MERGE=1 needs SimGrid's PMPI interface; run under smpirun");
  if (sb_cfg.merge && !simblas_pmpi_linked)
    sb_fatal("SIMBLAS_MERGE=1 delays injections to the next MPI call, which only libsimblas_pmpi sees: link the "
             "program with -lsimblas_pmpi -lsimblas (before SimGrid), or unset SIMBLAS_MERGE");
  if (sb_cfg.poll_cost > 0 && sb_smpi_active() && !simblas_pmpi_linked)
    sb_fatal("SIMBLAS_POLL_COST charges MPI_Iprobe and MPI_Test in libsimblas_pmpi's wrappers, which this program "
             "does not have: link it with -lsimblas_pmpi -lsimblas (before SimGrid), or unset SIMBLAS_POLL_COST");
  if (sb_cfg.code_clock)
    code_min = sb_smpi_cpu_threshold();
  if (sb_cfg.code_clock && sb_smpi_times_code())
    sb_fatal("SIMBLAS_CODE_CLOCK=1 charges the program's code, and SMPI times it too "
             "(smpi/simulate-computation is on): it would count twice; run smpirun with "
             "--cfg=smpi/simulate-computation:no, or unset SIMBLAS_CODE_CLOCK");
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
static void code_stop(inject_rank *s)
{
  if (s->code_t0 < 0)
    return;
  double t = sb_cpu_clock() - s->code_t0;
  s->code_t0 = -1;
  if (t > 0) {
    double d = t * ref_speed / sb_smpi_host_speed();
    s->code_owed += d;
    s->code_s += d;
  }
}

/* the code's time joins the next injection; at an MPI call with nothing
 * else to inject, it is injected alone once it reaches smpi/cpu-threshold
 * (shorter, SMPI would drop it; here it waits for the next injection) */
static void code_owed(inject_rank *s)
{
  if (s->code_owed > 0 && (s->pending > 0 || s->code_owed >= code_min)) {
    s->pending += s->code_owed;
    s->code_owed = 0;
  }
}

void sb_inject_enter(sb_rank *r)
{
  if (sb_cfg.code_clock)
    code_stop(IJ(r));
}

void sb_inject_leave(sb_rank *r)
{
  if (sb_cfg.code_clock)
    IJ(r)->code_t0 = sb_cpu_clock();
}

/* around a public entry point that may switch ranks: NULL when off */
void *sb_code_pause(void)
{
  if (!sb_cfg.code_clock || !sb_smpi_active())
    return NULL;
  inject_rank *s = IJ(sb_rank_self());
  code_stop(s);
  return s;
}

void sb_code_resume(void *s)
{
  if (s)
    ((inject_rank *)s)->code_t0 = sb_cpu_clock();
}

void simblas_resume(void)
{
  if (sb_cfg.code_clock && sb_smpi_active())
    IJ(sb_rank_self())->code_t0 = sb_cpu_clock();
}

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
static void flush(sb_rank *r, inject_rank *s)
{
  code_owed(s);
  sb_hooks_run(&flush_hooks, r); /* what must happen first: the barriers of thinned pivot exchanges, as owed idle time */
  if (sb_cfg.idle_merge && s->idle > 0) { /* a core of its own: idle or busy, the same clock */
    s->pending += s->idle;
    s->idle = 0;
  }
  if (s->idle > 0) { /* waits first: the order inside one rank's stretch changes nothing */
    double t = s->idle;
    s->idle = 0;
    sb_smpi_sleep(t);
    s->flushes++;
  }
  if (s->pending > 0) {
    double t = s->pending;
    s->pending = 0;
    sb_smpi_execute(t);
    s->flushes++;
  }
}

void sb_inject_flush(sb_rank *r) { flush(r, IJ(r)); }

void sb_inject_on_flush(sb_hook_fn fn) { sb_hooks_add(&flush_hooks, fn); }

void sb_inject_on_polled(sb_hook_fn fn) { sb_hooks_add(&polled_hooks, fn); }

void sb_inject_busy(sb_rank *r) { IJ(r)->spins = 0; }

void sb_inject_owe_idle(sb_rank *r, double seconds) { IJ(r)->idle += seconds; }

double sb_inject_take_owed(sb_rank *r)
{
  inject_rank *s = IJ(r);
  double owed = s->pending + s->idle + s->code_owed;
  s->pending = s->idle = s->code_owed = 0;
  return owed;
}

void sb_inject_counts(sb_rank *r, uint64_t *flushes, double *code_s)
{
  inject_rank *s = IJ(r);
  *flushes = s->flushes;
  *code_s = s->code_s;
}

/* one poll's cost as an injection of its own, at SIMBLAS_POLL_USAGE */
static void inject_poll(inject_rank *s, double t)
{
  if (sb_cfg.poll_usage < 1)
    sb_smpi_execute_bound(t, sb_cfg.poll_usage);
  else
    sb_smpi_execute(t);
  s->flushes++;
}

static void flush_mpi(int poll);

void simblas_poll(void)
{
  sb_init();
  if (sb_cfg.poll_cost <= 0 || !sb_smpi_active()) {
    flush_mpi(1);
    return;
  }
  sb_rank *r = sb_rank_self();
  inject_rank *s = IJ(r);
  if (sb_cfg.code_clock)
    code_stop(s);
  /* the back-off starts with the spin loop, past the bounded runs */
  double k = s->spins > SB_SPIN_LAZY ? (double)(s->spins - SB_SPIN_LAZY) : 0;
  double t = sb_cfg.poll_cost * (1 + sb_cfg.poll_growth * k);
  if (t > sb_cfg.poll_max)
    t = sb_cfg.poll_max;
  if (!sb_cfg.merge) { /* passthrough, or --no-merge: one injection per poll, as SMPI's */
    inject_poll(s, t);
    return;
  }
  int spin = s->spins >= SB_SPIN_LAZY;
  int bound = spin && sb_cfg.poll_usage < 1; /* the polling load is what the energy sees */
  if (!bound)
    s->debt += t;
  if (!spin && s->pending <= 0)
    return; /* owed until the rank's next injection */
  s->pending += s->debt;
  s->debt = 0;
  flush(r, s);
  if (bound)
    inject_poll(s, t);
}

void simblas_polled(int flag)
{
  simblas_resume();
  if (!sb_smpi_active())
    return;
  sb_rank *r = sb_rank_self();
  sb_hooks_run(&polled_hooks, r); /* a poll progresses: SIMBLAS_PROBE=lagged's record (lib/app/probe.c) */
  inject_rank *s = IJ(r);
  if (sb_cfg.poll_cost <= 0)
    return;
  s->spins = flag ? 0 : s->spins + 1;
}

/* a call into MPI: pay what the rank owes (SIMBLAS_MERGE); poll: a poll's
 * (it may be a spin loop's) */
static void flush_mpi(int poll)
{
  if (sb_mode_now == SB_MODE_UNSET || !sb_smpi_active())
    return;
  sb_rank *r = sb_rank_self();
  inject_rank *s = IJ(r);
  if (sb_cfg.code_clock)
    code_stop(s);
  if (!poll)
    s->spins = 0; /* an MPI call other than a poll: not a spin loop */
  if (sb_cfg.merge)
    flush(r, s);
}

void simblas_flush(void) { flush_mpi(0); }

void simblas_rank_started(void)
{
  sb_init();
  if (!sb_smpi_active())
    return;
  sb_hooks_run(&sb_rank_started_hooks, sb_rank_self());
  simblas_resume(); /* the program's code runs from MPI_Init on */
}

/* ---- the SMPI sink: a modelled call's time, on the rank's host ------------- */
static double smpi_inject(sb_rank *r, double t)
{
  if (!(t > 0))
    return 0;
  inject_rank *s = IJ(r);
  double injected = t * ref_speed / sb_smpi_host_speed();
  if (sb_cfg.merge) {
    s->pending += injected + s->debt + s->code_owed;
    s->debt = s->code_owed = 0;
  } else {
    sb_smpi_execute(injected);
    s->flushes++;
  }
  return injected;
}

const sb_sink sb_sink_smpi = {"smpi", NULL, smpi_inject, NULL};
