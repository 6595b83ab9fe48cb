/*
 * pivot.c -- the thinned pivot search (SIMBLAS_PIVOT_EVERY,
 * simblas_pivot_exchange: simblas_app.h).
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "inject.h"
#include "rank.h"
#include "sb_rt.h"
#include "settings.h"
#include "simblas_app.h"
#include "smpi_adaptor.h"

/* Thinned pivot search (SIMBLAS_PIVOT_EVERY=k > 1; simblas-hpl
 * --pivot-every K).  HPL_pdmxswp exchanges, per column of a panel, the
 * pivot candidates of the P ranks of the panel's process column: NB x
 * log2(P) tiny messages per panel per rank, the bulk of the simulator's
 * work at Stampede's scale, while the pivots are SimBLAS's (simblas_hpl_pivot)
 * and known to every rank.  What an exchange does to a rank's clock: no
 * rank leaves before the last one arrived (every result depends on every
 * candidate), and a rank leaves d after that last arrival, d depending
 * on its place in the exchange (pos: its process row relative to the
 * panel's) and on who came last (from a common start every rank would
 * take all log2(P) steps: 5% too slow at N=20,000 4x16).
 * So: one column in k of each panel exchanges for real, at an offset that
 * moves from block to block and panel to panel (the first column of a
 * recursive factorization's leaf follows an update and comes with more
 * skew than the others: sampling only those was 3.6% off at N=20,000
 * 4x16).  Each rank notes its arrival in the process column's shared
 * record, and on leaving reads the last arrival (every rank has arrived
 * by then, since its result depends on all): its d goes to the column's
 * mean for its pos.  Another column skips the messages: its ranks meet
 * at a simulator barrier (no simulated time; it releases all at the last
 * arrival) and each waits, idle as in a blocking exchange, the mean d of
 * its pos, owed and slept at its next flush with its BLAS time.  A
 * barrier is one simcall per rank, where an exchange is log2(P) messages
 * through the network model.  Ranks run as contexts of one thread: the
 * shared records need no lock. */
/* Deferred barriers (SIMBLAS_PIVOT_DEFER, on with SIMBLAS_IDLE_MERGE):
 * the barrier and the injection before it are the simulator's work on a
 * thinned column (two events per rank and column), though the release
 * time is plain arithmetic when every rank has a core of its own: the
 * latest of the ranks' arrivals, each its clock plus the BLAS time and
 * waits it owes.  So a rank passes a thinned column without stopping: it
 * adds its arrival to the column's record (thinned columns are numbered
 * alike on every rank of the process column) and owes its d as before.
 * At its next flush (its next MPI call, real exchange included) it waits
 * until every rank has passed its last such column, and its clock is
 * brought to that column's release time R plus what it owed since.  A
 * rank's first column after a flush arrives at clock + owed (absolute);
 * its next ones at R of the column before + owed since (relative), so
 * R(t) = max(latest absolute arrival, R(t-1) + latest relative one): the
 * barrier's release, column by column, with one injection per flush. */
typedef struct defer_col {
  long t;            /* the thinned column (-1: free slot) */
  int count, done;   /* ranks passed, ranks that resolved it */
  int have_r;
  double abs, rel, r; /* latest absolute and relative arrival, release time */
} defer_col;

typedef struct pivot_group {
  int col, nprow, npcol;
  sb_barrier bar;
  long seq[2];    /* the real exchange each slot is for, */
  double last[2]; /* its latest arrival so far, */
  unsigned char *left[2]; /* and per pos, whether its rank has left it */
  double *dsum;   /* per pos: sum of d over the real exchanges, */
  long *dn;       /* and how many */
  defer_col *dc;  /* deferred barriers' records, by t modulo ndc */
  size_t ndc;
  sb_waitq *q;    /* ranks waiting for the others to pass a column, */
  int waiters;    /* how many */
} pivot_group;
static pivot_group **pgroups; /* each group stays where it is: ranks keep pointers to it */
static size_t npgroups, capgroups;

/* a rank's slice */
typedef struct pivot_rank {
  double t0;              /* clock when the real pivot exchange started, -1: none */
  pivot_group *group;     /* the process column of its pivot searches */
  long seq;               /* real exchanges made in it */
  long panels;            /* panels begun in it */
  int slot, pos;          /* the record of the current real one, the rank's place */
  double last;            /* the rank's latest d */
  uint64_t real, thinned;
  long lz_t;              /* thinned columns met in its pivot group (deferred barriers) */
  long lz_first, lz_last; /* the ones not resolved yet, -1: none */
} pivot_rank;

static void pivot_rank_init(void *p, const sb_rank *r)
{
  (void)r;
  pivot_rank *v = p;
  v->t0 = -1;
  v->lz_first = -1;
}

static sb_slice pivot_slice = SB_SLICE(pivot_rank, "the pivot search", pivot_rank_init);
#define PR(r) ((pivot_rank *)sb_rank_slice(r, &pivot_slice))

static pivot_group *pivot_group_find(int col, int nprow, int npcol)
{
  for (size_t i = 0; i < npgroups; i++)
    if (pgroups[i]->col == col && pgroups[i]->nprow == nprow && pgroups[i]->npcol == npcol)
      return pgroups[i];
  return NULL;
}

static pivot_group *pivot_group_of(int col, int nprow, int npcol)
{
  pivot_group *g = pivot_group_find(col, nprow, npcol);
  if (g)
    return g;
  /* the simulator's objects first: creating one is a simcall, which lets
   * the other ranks run, and one of them may create this group meanwhile;
   * a group is published only whole */
  sb_barrier bar = sb_smpi_barrier_new(nprow);
  sb_waitq *q = sb_smpi_waitq_new();
  if ((g = pivot_group_find(col, nprow, npcol))) {
    sb_smpi_barrier_free(bar);
    sb_smpi_waitq_free(q);
    return g;
  }
  pgroups = sb_grow_table(pgroups, &capgroups, npgroups, sizeof *pgroups, "the pivot search records");
  if (!(g = malloc(sizeof *g)))
    sb_fatal("out of memory for the pivot search records (%zu process columns)", npgroups + 1);
  *g = (pivot_group){.col = col, .nprow = nprow, .npcol = npcol, .seq = {-1, -1}, .bar = bar, .q = q};
  g->dsum = calloc((size_t)nprow, sizeof *g->dsum);
  g->dn = calloc((size_t)nprow, sizeof *g->dn);
  g->left[0] = calloc((size_t)nprow, 1);
  g->left[1] = calloc((size_t)nprow, 1);
  if (!g->dsum || !g->dn || !g->left[0] || !g->left[1] || (sb_smpi_active() && !q))
    sb_fatal("out of memory for the pivot search records (%d process rows)", nprow);
  pgroups[npgroups++] = g;
  return g;
}

static defer_col *defer_col_of(pivot_group *g, long t)
{
  if (g->ndc && g->dc[t % (long)g->ndc].t == t)
    return &g->dc[t % (long)g->ndc];
  while (!g->ndc || g->dc[t % (long)g->ndc].t >= 0) { /* the slot is another live column's: grow */
    size_t n = g->ndc ? 2 * g->ndc : 64;
    defer_col *dc = malloc(n * sizeof *dc);
    if (!dc)
      sb_fatal("out of memory for the thinned pivot search records (%zu columns)", n);
    for (size_t i = 0; i < n; i++)
      dc[i].t = -1;
    for (size_t i = 0; i < g->ndc; i++)
      if (g->dc[i].t >= 0)
        dc[g->dc[i].t % (long)n] = g->dc[i];
    free(g->dc);
    g->dc = dc;
    g->ndc = n;
    if (g->dc[t % (long)n].t == t)
      return &g->dc[t % (long)n];
  }
  defer_col *c = &g->dc[t % (long)g->ndc];
  *c = (defer_col){.t = t, .abs = -HUGE_VAL, .rel = -HUGE_VAL};
  return c;
}

static void defer_flush(sb_rank *r);

/* a rank passes thinned column t of its group without stopping */
static void defer_pass(sb_rank *r, pivot_rank *v, pivot_group *g)
{
  static int hooked;
  if (!hooked) { /* its barriers are resolved at its next flush */
    sb_inject_on_flush(defer_flush);
    hooked = 1;
  }
  long t = v->lz_t++;
  defer_col *c = defer_col_of(g, t);
  double owed = sb_inject_take_owed(r); /* one core each (idle_merge): its clock advances by all */
  if (v->lz_first < 0) {
    double a = sb_smpi_clock() + owed;
    if (a > c->abs)
      c->abs = a;
    v->lz_first = t;
  } else if (owed > c->rel)
    c->rel = owed;
  v->lz_last = t;
  if (++c->count == g->nprow && g->waiters)
    sb_smpi_waitq_wake(g->q);
}

typedef struct defer_wait {
  pivot_group *g;
  long t;
} defer_wait;

static int defer_passed(void *arg)
{
  const defer_wait *w = arg;
  return defer_col_of(w->g, w->t)->count == w->g->nprow;
}

typedef struct defer_left {
  pivot_group *g;
  int slot, pos;
} defer_left;

static int defer_has_left(void *arg)
{
  const defer_left *w = arg;
  return w->g->left[w->slot][w->pos];
}

static double defer_release(pivot_group *g, long t)
{
  defer_col *c = defer_col_of(g, t);
  if (!c->have_r) {
    c->r = c->abs;
    if (c->rel > -HUGE_VAL) { /* a rank's column before it is still live: it has not resolved it */
      double prev = defer_release(g, t - 1) + c->rel;
      if (prev > c->r)
        c->r = prev;
    }
    c->have_r = 1;
  }
  return c->r;
}

/* at a flush: wait until the others passed the rank's columns, then owe
 * the time to the last one's release */
static void defer_resolve(sb_rank *r, pivot_rank *v)
{
  pivot_group *g = v->group;
  long last = v->lz_last;
  defer_wait w = {g, last};
  if (!defer_passed(&w)) {
    g->waiters++;
    sb_smpi_waitq_until(g->q, defer_passed, &w);
    g->waiters--;
  }
  double release = 0;
  for (long t = v->lz_first; t <= last; t++) /* in order: R(t) may need R(t - 1) */
    release = defer_release(g, t);
  double owed = release - sb_smpi_clock();
  for (long t = v->lz_first; t <= last; t++) {
    defer_col *c = defer_col_of(g, t);
    if (++c->done == g->nprow)
      c->t = -1;
  }
  v->lz_first = -1;
  if (owed > 0)
    sb_inject_owe_idle(r, owed); /* joins the flush's injection (idle_merge) */
}

/* the flush hook: the barriers of the rank's thinned pivot exchanges, as
 * owed idle time */
static void defer_flush(sb_rank *r)
{
  pivot_rank *v = sb_rank_slice_if(r, &pivot_slice);
  if (v && v->lz_first >= 0)
    defer_resolve(r, v);
}

static int pivot_exchange(int jj, int pos, int col, int nprow, int npcol)
{
  if (!sb_smpi_active())
    return 1;
  sb_rank *r = sb_rank_self();
  pivot_rank *v = PR(r);
  if (sb_cfg.pivot_every <= 1 || nprow < 2 || pos < 0 || pos >= nprow) {
    v->real++;
    return 1;
  }
  pivot_group *g = v->group;
  if (!g || g->col != col || g->nprow != nprow || g->npcol != npcol) { /* a new grid: its own counts */
    sb_inject_flush(r);
    v->group = g = pivot_group_of(col, nprow, npcol);
    v->seq = 0;
    v->panels = 0;
    v->lz_t = 0;
  }
  if (jj == 0)
    v->panels++; /* the same count on every rank of the column */
  long k = sb_cfg.pivot_every;
  /* real or not: the same answer on every rank of the column (the same
   * jj, panel count and count of real ones), else a barrier would wait
   * for ranks gone into the exchange's messages */
  if (jj % k == (v->panels + jj / k) % k || v->seq == 0) {
    sb_inject_flush(r); /* the rank's clock at its arrival */
    sb_inject_busy(r);
    long s = v->seq++;
    int slot = (int)(s & 1); /* a rank is at most one real exchange ahead */
    double now = sb_smpi_clock();
    if (g->seq[slot] != s) {
      g->seq[slot] = s;
      g->last[slot] = now;
      memset(g->left[slot], 0, (size_t)nprow);
    } else if (now > g->last[slot])
      g->last[slot] = now;
    v->slot = slot;
    v->pos = pos;
    v->t0 = now;
    v->real++;
    return 1;
  }
  sb_inject_busy(r);
  if (sb_cfg.pivot_defer) {
    defer_pass(r, v, g);
    /* its d below is the mean over the real exchanges before this column,
     * all of them left, as at a barrier: the last one's rank at its pos
     * may not have left it yet when no MPI call came between (a panel's
     * last columns and the next one's first: pos moves) */
    long s = v->seq - 1;
    defer_left w = {g, (int)(s & 1), pos};
    if (s >= 0 && g->seq[s & 1] == s && !defer_has_left(&w)) {
      g->waiters++;
      sb_smpi_waitq_until(g->q, defer_has_left, &w);
      g->waiters--;
    }
  } else {
    sb_inject_flush(r); /* the rank's clock at its arrival */
    sb_smpi_barrier_wait(g->bar);
  }
  /* the mean for this place; until a rank in it has counted a real
   * exchange, this rank's own latest */
  sb_inject_owe_idle(r, g->dn[pos] ? g->dsum[pos] / (double)g->dn[pos] : v->last);
  v->thinned++;
  return 0;
}

int simblas_pivot_exchange(int jj, int pos, int col, int nprow, int npcol)
{
  sb_init();
  return SB_NOT_CODE(int, pivot_exchange(jj, pos, col, nprow, npcol));
}

static int pivot_exchanged(void)
{
  if (sb_cfg.pivot_every <= 1 || !sb_smpi_active())
    return 0;
  sb_rank *r = sb_rank_self();
  pivot_rank *v = PR(r);
  if (v->t0 < 0 || !v->group)
    return 0;
  sb_inject_flush(r); /* the exchange's own copies */
  pivot_group *g = v->group;
  double d = sb_smpi_clock() - g->last[v->slot];
  v->last = d > 0 ? d : 0;
  g->dsum[v->pos] += v->last;
  g->dn[v->pos]++;
  g->left[v->slot][v->pos] = 1;
  if (g->waiters)
    sb_smpi_waitq_wake(g->q);
  v->t0 = -1;
  return 1;
}

void simblas_pivot_exchanged(void) { (void)SB_NOT_CODE(int, pivot_exchanged()); }

simblas_pivot_stats simblas_get_pivot_stats(void)
{
  sb_init();
  pivot_rank *v = PR(sb_rank_self());
  simblas_pivot_stats s = {v->real, v->thinned};
  return s;
}
