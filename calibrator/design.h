/*
 * design.h -- the calibration's measurement design: which calls to time,
 * at which shapes, and how much of the time budget each routine gets.  It
 * reads the op table's columns (level, shape, focus) and nothing else about
 * a routine; the driver (calibrate.c) and the measuring (measure.c) do not
 * choose shapes.
 */
#ifndef SB_CAL_DESIGN_H
#define SB_CAL_DESIGN_H

#include <stddef.h>
#include <stdint.h>

#include "model.h"

/* one point of the design: a call shape, timed on every core */
typedef struct cal_point {
  int op, variant;
  int64_t m, n, k;
  double est; /* estimated seconds for warm-up + repetitions */
  unsigned char layout, form; /* layout 1: HPL's (cal_hpl_call, calls.h), in its form */
  unsigned char ref;          /* one of the reference speed's calls */
  unsigned char pair;         /* dgemm's leading-dimension pairs (CAL_LD_PAIRS): 1 the call at
                                 the design's lld, 2 the next point, the same call at ld */
  unsigned char solo;         /* one of the solo pairs' calls (CAL_SOLO): alone against busy */
  int64_t ld; /* kernels.def's ld column: the local matrix seen with this
                 leading dimension, one of cal_ld_level's (0: the design's
                 lld, the one the model's line describes) */
} cal_point;

typedef struct cal_design {
  double budget;   /* measuring seconds per core                       */
  double max_call; /* the longest call to draw, seconds                */
  int reps;        /* timed repetitions per point                      */
  uint64_t seed;
  double rate3, rate12; /* the probe's dgemm and daxpy flop/s on one core */
  int64_t maxdim;  /* operands are at most maxdim x maxdim (the buffers) */
  int64_t lld, lcols; /* HPL's local matrix: its leading dimension, its columns */
  int hpl_layout;  /* HPL-shaped dgemm and dtrsm in HPL's layout (else packed) */
  int mixed_order; /* each pass in one random order (else level 3 first) */
  int ref_only;    /* only the reference speed's calls (--reference-speed) */
  int64_t ref_m, ref_n, ref_k; /* their shape, when not the design's own (0) */
  int64_t bufdim;  /* the buffers' size when smaller than maxdim's (0: maxdim) */
  int ld_rounds;   /* rounds of dgemm's leading-dimension pairs (0: none) */
  int solo_rounds; /* rounds of the solo pairs (0: none; none on one core) */
  int ncores;      /* the workers (the solo pairs need two or more) */
} cal_design;

/* the buffers' size for a design: the largest level-3 operand the time cap
 * allows at the probe's dgemm rate */
int64_t cal_design_maxdim(double max_call, double rate3);

/* the points for ops[0..nops): each routine's share of the budget, its
 * shapes drawn log-uniformly up to a call of about max_call seconds, half
 * of HPL's level-3 calls HPL-shaped.  Returns malloc'ed points (NULL when
 * out of memory); their estimated time sums to about budget per core. */
cal_point *cal_design_points(const cal_design *d, const int *ops, int nops, size_t *npts);

/* the leading dimensions a kernel whose time depends on it (kernels.def's
 * ld column) is also measured at, below the design's lld: lld/128 ...
 * lld/4, lld/2 (level i of CAL_LD_LEVELS), each the local row count of a
 * smaller problem or a taller grid, or the span of the rows HPL's row
 * swaps move late in a factorization (hpl-patches/19: the rows lie among
 * the trailing rows, down to NB of them); 0 for a level under 64 rows.
 * The model scales the kernel's line by the ratio measured at each (its
 * "@ld" line, at most SB_MAX_LD points with lld's), 1 at lld itself and
 * beyond it. */
#define CAL_LD_LEVELS 7
int64_t cal_ld_level(const cal_design *d, int i);

/* dgemm's leading dimension, measured in pairs: the reference calls'
 * shape (HPL's large trailing update, both forms) at the design's lld and
 * at lld >> CAL_LD_PAIR_SHIFT(i), i < CAL_LD_PAIRS, the two calls of a
 * pair made one right after the other (in turn first), ld_rounds times,
 * after the passes (measure.c).  A ratio of two neighbouring calls is
 * free of the machine's drift, which spread the same comparison made
 * through the passes' means over 0.96-1.02 (Zen 5 VM, 2026-11-29) where
 * separate runs, interleaved, measured 0.942-0.948 at 10,000 rows against
 * 50,272 (m = n = 3680, k = 256).  The pair's ratio (cal_result.ratio)
 * makes the dgemm line's @ld factor there (fit_ld_pairs). */
#define CAL_LD_PAIRS 3
#define CAL_LD_PAIR_SHIFT(i) (3 - (i))

/* one core alone against every core busy, measured in pairs (CAL_SOLO):
 * after the passes and dgemm's leading-dimension pairs, solo_rounds rounds
 * of, for each solo point, the call made by core 0 with every other core
 * running the same call (busy) and by core 0 with the others idle, blocked
 * in a barrier (alone), in turn first, each state held CAL_SOLO_LEAD
 * seconds before CAL_SOLO_WINDOW seconds of timed calls (measure.c).  The median of the rounds' ratios
 * busy / alone (cal_result.ratio) is how much faster a host with idle
 * cores runs: HPL with one rank on a two-core node, or any host given
 * fewer ranks than cores (simblas-hpl run's occupancy, the model's meta
 * solo_speed and solo_speed_memory).  The points: dgemm at the reference
 * calls' m = n with k = 128 (HPL's large trailing update at its default
 * NB, in its layout) and HPL's row
 * interchanges (hpl_dlaswp00N, NB = 128 rows of at most 4,096 columns),
 * the memory kernels' representative.  A real 1x1 HPL on a two-core Zen 5
 * VM ran 7-12% faster than a model of all cores busy predicted. */
#define CAL_SOLO_LEAD 0.5   /* seconds in a state before its calls are timed */
#define CAL_SOLO_WINDOW 0.5 /* seconds of timed calls in each state */
#define CAL_SOLO_ROWS 128
#define CAL_SOLO_COLS 4096

/* the reference speed's calls (design.c), four: two of each of HPL's forms */
#define CAL_REF_CALLS 4

/* model keys: op, and op + SB_OP_COUNT for the Right-side form */
#define CAL_NKEYS (SB_NVARIANTS * SB_OP_COUNT)
const char *cal_key_name(int key, char *buf, size_t len);

#endif
