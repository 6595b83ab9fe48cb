/*
 * rank.h -- the per-rank registry.
 *
 * One copy of libsimblas serves every simulated rank: SMPI runs ranks as
 * user-level contexts of one thread, so thread-local storage does not tell
 * them apart.  Each rank has a record, keyed by its actor id, and each
 * module that keeps per-rank state declares a slice of it (an sb_slice:
 * its size and how to initialise it), which the rank gets at the module's
 * first use.  No module sees another's state: it goes through the owner's
 * functions (inject.h for the injections, for instance).  Outside a
 * simulation every caller is the one rank sb_rank_self() returns.
 */
#ifndef SB_RANK_H
#define SB_RANK_H

#include <stddef.h>

#include "sb_call.h" /* SB_HIDDEN */

#define SB_RANK_SLICES 8

typedef struct sb_rank {
  long id; /* the actor id (0 outside a simulation) */
  void *slice[SB_RANK_SLICES]; /* by sb_slice index; slot 0 unused */
} sb_rank;

typedef struct sb_slice {
  const char *what;                        /* for messages: "the pivot search" */
  size_t size;                             /* of the module's per-rank struct */
  void (*init)(void *state, const sb_rank *r); /* NULL: all zero */
  int index;                               /* given at first use */
} sb_slice;
#define SB_SLICE(type, what, init) {what, sizeof(type), init, 0}

/* the calling rank's record */
SB_HIDDEN sb_rank *sb_rank_self(void);
/* the rank's rank as the public API numbers it: its MPI rank under
 * smpirun (actor id - 1), 0 outside */
SB_HIDDEN long sb_rank_public(const sb_rank *r);

SB_HIDDEN void *sb_rank_slice_new(sb_rank *r, sb_slice *s);
/* the rank's state of module S, made at its first use */
static inline void *sb_rank_slice(sb_rank *r, sb_slice *s)
{
  void *p = s->index ? r->slice[s->index] : NULL;
  return p ? p : sb_rank_slice_new(r, s);
}
/* the same, or NULL when the rank has not used the module yet */
static inline void *sb_rank_slice_if(const sb_rank *r, const sb_slice *s)
{
  return s->index ? r->slice[s->index] : NULL;
}

/* Hooks: a module asks to be called at an event that another module owns
 * (a flush, a rank's start), instead of the owner naming it.  Modules add
 * theirs from a constructor or at their first use. */
#define SB_HOOKS_MAX 8
typedef void (*sb_hook_fn)(sb_rank *r);
typedef struct sb_hooks {
  int n;
  sb_hook_fn fn[SB_HOOKS_MAX];
} sb_hooks;
SB_HIDDEN void sb_hooks_add(sb_hooks *h, sb_hook_fn fn);
static inline void sb_hooks_run(const sb_hooks *h, sb_rank *r)
{
  for (int i = 0; i < h->n; i++)
    h->fn[i](r);
}

/* when a rank starts (simblas_rank_started, from libsimblas_pmpi's
 * MPI_Init), before its code runs */
extern sb_hooks sb_rank_started_hooks SB_HIDDEN;

/* TAB (*CAP entries of SIZE bytes) with room for entry IDX, the new
 * entries zeroed; stops with "out of memory for WHAT" */
SB_HIDDEN void *sb_grow_table(void *tab, size_t *cap, size_t idx, size_t size, const char *what);

#endif
