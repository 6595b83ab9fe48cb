/*
 * rank.c -- the per-rank registry (rank.h): a record per simulated rank,
 * keyed by its actor id, with a slice of state per module.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include <stdlib.h>
#include <string.h>

#include "rank.h"
#include "sb_rt.h"
#include "smpi_adaptor.h"

static sb_rank rank_solo; /* outside a simulation */
static sb_rank **ranks;
static size_t nranks;
static int nslices;
sb_hooks sb_rank_started_hooks;

void *sb_grow_table(void *tab, size_t *cap, size_t idx, size_t size, const char *what)
{
  if (idx < *cap)
    return tab;
  size_t n = *cap ? *cap : 64;
  while (n <= idx)
    n *= 2;
  char *p = realloc(tab, n * size);
  if (!p)
    sb_fatal("out of memory for %s (%zu entries)", what, n);
  memset(p + *cap * size, 0, (n - *cap) * size);
  *cap = n;
  return p;
}

sb_rank *sb_rank_self(void)
{
  if (!sb_smpi_active())
    return &rank_solo;
  long id = sb_smpi_rank();
  if (id < 0)
    id = 0;
  ranks = sb_grow_table(ranks, &nranks, (size_t)id, sizeof *ranks, "per-rank state");
  sb_rank *r = ranks[id];
  if (!r) {
    if (!(r = calloc(1, sizeof *r)))
      sb_fatal("out of memory for per-rank state");
    r->id = id;
    ranks[id] = r;
  }
  return r;
}

long sb_rank_public(const sb_rank *r) { return r == &rank_solo ? 0 : r->id - 1; }

void *sb_rank_slice_new(sb_rank *r, sb_slice *s)
{
  if (!s->index) {
    /* a module's first use, in whichever thread; the slots are few */
    int i = __atomic_add_fetch(&nslices, 1, __ATOMIC_RELAXED);
    if (i >= SB_RANK_SLICES)
      sb_fatal("internal error: more than %d per-rank slices (%s); raise SB_RANK_SLICES", SB_RANK_SLICES - 1,
               s->what);
    int none = 0; /* unless another thread gave it one first (slot i then stays unused) */
    __atomic_compare_exchange_n(&s->index, &none, i, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED);
  }
  void *p = calloc(1, s->size);
  if (!p)
    sb_fatal("out of memory for the per-rank state of %s", s->what);
  if (s->init)
    s->init(p, r);
  r->slice[s->index] = p;
  return p;
}

void sb_hooks_add(sb_hooks *h, sb_hook_fn fn)
{
  for (int i = 0; i < h->n; i++)
    if (h->fn[i] == fn)
      return;
  if (h->n >= SB_HOOKS_MAX)
    sb_fatal("internal error: more than %d hooks on one event; raise SB_HOOKS_MAX", SB_HOOKS_MAX);
  h->fn[h->n++] = fn;
}
