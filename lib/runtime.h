/*
 * runtime.h -- what the parts of libsimblas's runtime share: the settings
 * read at initialisation (rt) and the per-rank record.  Internal.
 */
#ifndef SB_RUNTIME_H
#define SB_RUNTIME_H

#include <stdint.h>
#include <stdio.h>

#include "model.h"
#include "sb_rt.h"
#include "simblas_app.h"
#include "smpi_adaptor.h"

struct sb_rt {
  sb_model *model;
  int noise;
  uint64_t seed;
  void *backend;
  const char *backend_name;
  void *syms[2 * SB_OP_COUNT];
  FILE *trace;
  simblas_hook_fn hook;
  void *hook_ctx;
  int merge;
  double poll_cost;  /* SIMBLAS_POLL_COST: seconds per poll (0: SMPI's own) */
  double poll_usage; /* SIMBLAS_POLL_USAGE: CPU share of a poll (1: merged) */
  double poll_growth; /* SIMBLAS_POLL_GROWTH: a spin's k-th poll costs 1 + growth x k */
  double poll_max;    /* SIMBLAS_POLL_MAX: the most one poll costs, seconds */
  long pivot_every;   /* SIMBLAS_PIVOT_EVERY: one real pivot exchange per this many columns */
  int idle_merge;     /* SIMBLAS_IDLE_MERGE=1: owed waits join the next injection */
  int pivot_defer;    /* thinned pivot barriers resolved at the next flush (needs idle_merge) */
  int code_clock;     /* SIMBLAS_CODE_CLOCK=1: the program's own code is timed here, not by SMPI */
  double code_min;    /* smpi/cpu-threshold: the least code time injected on its own */
  long iterations;   /* SIMBLAS_ITERATIONS: stop after that many (0: all, -1: none) */
  long samples;      /* SIMBLAS_SAMPLES: passes of that many iterations */
  int skip_solve;    /* SIMBLAS_SKIP_SOLVE=1: a run cut short skips the solve */
  FILE *iterlog;     /* SIMBLAS_ITER_LOG */
  unsigned char fallback_logged[SB_OP_COUNT];
};
extern struct sb_rt rt SB_HIDDEN;

/* ---- per-rank state (rank.c) ----------------------------------------------- */
typedef struct sb_rank {
  long id;
  int set; /* coefficient set, -1 until resolved */
  uint64_t rng;
  uint64_t calls;
  double injected;
  double pending;    /* SIMBLAS_MERGE: injected at the next MPI call */
  uint64_t flushes;  /* smpi_execute_benched calls made */
  int stopped;       /* simblas_iteration told it to leave the loop */
  long seg, seg_start; /* simblas_segment: pass number (-1: none yet), start */
  uint64_t spins;      /* failed polls in a row, nothing else between */
  double debt;         /* SIMBLAS_POLL_COST of polls not injected yet */
  double idle;         /* waits owed (thinned pivot exchanges), slept at the next flush */
  double piv_t0;       /* clock when the real pivot exchange started, -1: none */
  struct pivot_group *piv_group; /* the process column of its pivot searches */
  long piv_seq;        /* real exchanges made in it */
  long piv_panels;     /* panels begun in it */
  int piv_slot, piv_pos; /* the record of the current real one, the rank's place */
  double piv_last;     /* the rank's latest d */
  uint64_t piv_real, piv_thinned;
  long lz_t;           /* thinned columns met in its pivot group (deferred barriers) */
  long lz_first, lz_last; /* the ones not resolved yet, -1: none */
  double code_t0;      /* SIMBLAS_CODE_CLOCK: CPU clock when the program's code resumed, -1: in SimBLAS or MPI */
  double code_s;       /* the program's own code, seconds charged */
  double code_owed;    /* ... not injected yet */
  struct sb_route *routes; /* simblas_message_time's routes from this rank, NULL until one is asked */
} sb_rank;

extern sb_rank sb_rank_solo SB_HIDDEN;
SB_HIDDEN void sb_rank_seed(sb_rank *r);
SB_HIDDEN void *sb_grow_table(void *tab, size_t *cap, size_t idx, size_t size, const char *what);
SB_HIDDEN sb_rank *sb_rank_self(void);
SB_HIDDEN double sb_rank_normal(sb_rank *r);
SB_HIDDEN int sb_rank_set(sb_rank *r);
SB_HIDDEN long sb_public_rank(const sb_rank *r);

/* ---- the code clock and the injections (inject.c) -------------------------- */
SB_HIDDEN void sb_code_stop(sb_rank *r);
SB_HIDDEN void sb_code_start(sb_rank *r);
SB_HIDDEN void sb_flush_rank(sb_rank *r);

/* ---- deferred pivot barriers (app/pivot.c) ---------------------------------- */
SB_HIDDEN void sb_defer_resolve(sb_rank *r);

#endif
