/*
 * probe.c -- Open MPI's lagged probe emulated (SIMBLAS_PROBE=lagged,
 * probe.h): the messages sent to each rank, and whether an MPI_Iprobe
 * that found one has taken it in only (simblas_probed).  Entry points for
 * libsimblas_pmpi's wrappers (simblas.h); a poll's return comes through
 * inject.h's hook.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include <stdlib.h>
#include <string.h>

#include "inject.h"
#include "probe.h"
#include "rank.h"
#include "sb_rt.h"
#include "settings.h"
#include "simblas.h"
#include "smpi_adaptor.h"

/* SIMBLAS_PROBE=lagged: Open MPI's MPI_Iprobe (ob1 and ucx) looks for a
 * match in the messages it has already taken in, and only when there is
 * none progresses (takes in what arrived) before it returns 0: a message
 * that arrived after the rank's previous MPI call is seen one probe
 * later, whatever that call was.  HPL's probe loops (HPL_bcast between
 * the chunks of the update) make no other MPI call, so in a 1xQ run with
 * look-ahead the root of a panel waits in MPI_Send a chunk of dgemm
 * longer than SMPI says; and when the panel arrives before the receiver
 * has reached its loop (it is still in its previous update), its first
 * probe misses it too (bench/mpi-probe-lag/hpl-events.sh: every panel of
 * a real N=8,000 1x2 run was seen at the second probe after its send).
 * MPICH looks again after progressing: immediate, SMPI's own semantics.
 *
 * When a message arrived is when its sender's MPI_Send (Isend, ...)
 * began: libsimblas_pmpi's send wrappers call simblas_sent() with the
 * destination's rank in MPI_COMM_WORLD, and the newest SENT_RING sends
 * to each rank are kept (an older one, or one whose sender is not known,
 * falls back to the rule for a probe loop: not seen when the previous
 * probe of the same source, tag and communicator failed, with no other
 * MPI call between). */

/* a rank's slice: its last MPI call was a failed MPI_Iprobe of (src, tag,
 * comm) */
typedef struct probe_rank {
  int probe_failed, probe_src, probe_tag, in_probe;
  const void *probe_comm;
  double progressed; /* ... and the simulated clock when its last MPI call that progresses returned */
} probe_rank;

static void probe_rank_init(void *p, const sb_rank *r)
{
  (void)r;
  ((probe_rank *)p)->progressed = -1;
}

static sb_slice probe_slice = SB_SLICE(probe_rank, "the lagged probes", probe_rank_init);
#define PR(r) ((probe_rank *)sb_rank_slice(r, &probe_slice))

#define SENT_RING 32
typedef struct sent_rec {
  int from, tag;
  double t;
} sent_rec;
static sent_rec *sent;  /* SENT_RING per destination rank, newest at sent_next[rank] - 1 */
static unsigned *sent_next;
static int sent_ranks;

int simblas_probe_lagged(void) { return sb_cfg.probe == SB_PROBE_LAGGED && sb_smpi_active(); }

void simblas_sent(int dest, int tag)
{
  if (!simblas_probe_lagged() || dest < 0)
    return;
  if (dest >= sent_ranks) { /* one process for every rank: grown by whichever rank sends first */
    int n = dest + 1 > 2 * sent_ranks ? dest + 1 : 2 * sent_ranks;
    sent_rec *ns = realloc(sent, (size_t)n * SENT_RING * sizeof *ns);
    unsigned *nn = realloc(sent_next, (size_t)n * sizeof *nn);
    if (!ns || !nn)
      sb_fatal("out of memory for SIMBLAS_PROBE=lagged's record of %d ranks' messages", n);
    memset(ns + (size_t)sent_ranks * SENT_RING, 0, (size_t)(n - sent_ranks) * SENT_RING * sizeof *ns);
    memset(nn + sent_ranks, 0, (size_t)(n - sent_ranks) * sizeof *nn);
    sent = ns, sent_next = nn, sent_ranks = n;
  }
  sent_rec *ring = sent + (size_t)dest * SENT_RING;
  ring[sent_next[dest]++ % SENT_RING] = (sent_rec){sb_smpi_mpi_rank(), tag, sb_smpi_clock()};
}

/* when the newest message from rank FROM with TAG to the calling rank was
 * sent, or -1 if it is not known */
static double sent_when(int from, int tag)
{
  int me = sb_smpi_mpi_rank();
  if (from < 0 || me >= sent_ranks)
    return -1;
  const sent_rec *ring = sent + (size_t)me * SENT_RING;
  for (unsigned i = 0, n = sent_next[me]; i < SENT_RING && i < n; i++) {
    const sent_rec *e = &ring[(n - 1 - i) % SENT_RING];
    if (e->from == from && e->tag == tag)
      return e->t;
  }
  return -1;
}

int simblas_probed(int flag, int source, int tag, const void *comm, int from, int msg_tag)
{
  if (!simblas_probe_lagged())
    return flag;
  probe_rank *s = PR(sb_rank_self());
  int lag = s->probe_failed && s->probe_src == source && s->probe_tag == tag && s->probe_comm == comm;
  s->in_probe = 1;
  if (flag && !lag) {
    double t = sent_when(from, msg_tag);
    lag = t >= 0 && t > s->progressed;
  }
  if (flag && lag) { /* it arrived since the rank's last MPI call: this probe only takes it in */
    s->probe_failed = 0;
    return 0;
  }
  s->probe_failed = !flag;
  s->probe_src = source;
  s->probe_tag = tag;
  s->probe_comm = comm;
  return flag;
}

/* an MPI call that progresses has returned (not MPI_Wtime, MPI_Comm_rank,
 * the datatype calls ...: libsimblas_pmpi's list): what arrived is taken in */
void simblas_progressed(void)
{
  if (!simblas_probe_lagged())
    return;
  probe_rank *s = PR(sb_rank_self());
  s->probe_failed = 0;
  s->progressed = sb_smpi_clock();
}

/* a poll (MPI_Iprobe, MPI_Test ...) has returned (simblas_polled, through
 * inject.h's hook): it progresses too, a failed probe after its look */
static void polled(sb_rank *r)
{
  if (!simblas_probe_lagged())
    return;
  probe_rank *s = PR(r);
  if (!s->in_probe) /* another poll (MPI_Test ...) */
    s->probe_failed = 0;
  s->in_probe = 0;
  s->progressed = sb_smpi_clock();
}

__attribute__((constructor)) static void probe_register(void) { sb_inject_on_polled(polled); }
