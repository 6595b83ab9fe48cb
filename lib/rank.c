/*
 * rank.c -- per-rank state.
 *
 * One copy of libsimblas serves every simulated rank: SMPI runs ranks as
 * user-level contexts of one thread, so thread-local storage does not tell
 * them apart.  Everything that differs between ranks (random stream,
 * counters, coefficient set) lives in a record keyed by the rank's actor id.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime.h"
#include "sb_splitmix.h"

sb_rank sb_rank_solo = {.id = 0, .set = -1, .seg = -1, .piv_t0 = -1, .lz_first = -1, .code_t0 = -1}; /* outside a simulation */
static sb_rank **ranks;
static size_t nranks;

void sb_rank_seed(sb_rank *r)
{
  uint64_t s = rt.seed ^ ((uint64_t)r->id * 0xD1B54A32D192ED03ull);
  r->rng = sb_splitmix64(&s);
}

/* TAB (*CAP entries of SIZE bytes) with room for entry IDX, the new
 * entries zeroed */
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
    return &sb_rank_solo;
  long id = sb_smpi_rank();
  if (id < 0)
    id = 0;
  ranks = sb_grow_table(ranks, &nranks, (size_t)id, sizeof *ranks, "per-rank state");
  sb_rank *r = ranks[id];
  if (!r) {
    if (!(r = calloc(1, sizeof *r)))
      sb_fatal("out of memory for per-rank state");
    r->id = id;
    r->set = -1;
    r->seg = -1;
    r->piv_t0 = -1;
    r->lz_first = -1;
    r->code_t0 = -1;
    sb_rank_seed(r);
    ranks[id] = r;
  }
  return r;
}

uint64_t sb_rank_random(void) { return sb_splitmix64(&sb_rank_self()->rng); }

double sb_rank_normal(sb_rank *r)
{
  /* Box-Muller on two 53-bit uniforms in (0, 1] */
  double u1 = ((double)(sb_splitmix64(&r->rng) >> 11) + 1) * 0x1p-53;
  double u2 = (double)(sb_splitmix64(&r->rng) >> 11) * 0x1p-53;
  return sqrt(-2 * log(u1)) * cos(2 * M_PI * u2);
}

int sb_rank_set(sb_rank *r)
{
  if (r->set >= 0)
    return r->set;
  r->set = 0;
  const char *want = sb_smpi_active() ? sb_smpi_host_set() : getenv("SIMBLAS_SET");
  if (want && *want) {
    int s = sb_model_set(rt.model, want);
    if (s < 0)
      fprintf(stderr, "simblas: model %s has no coefficient set '%s'; rank %ld uses set 'node'\n", rt.model->path,
              want, r->id);
    else
      r->set = s;
  }
  return r->set;
}

long sb_public_rank(const sb_rank *r) { return r == &sb_rank_solo ? 0 : r->id - 1; }
