/*
 * inject.h -- what a rank owes the simulated clock, and when it pays
 * (inject.c): its merged BLAS time (SIMBLAS_MERGE), its polls' cost, its
 * idle waits, its own code's time (SIMBLAS_CODE_CLOCK).  It pays at a
 * flush: its next MPI call, or whenever a module needs its clock exact.
 * Other modules owe time and flush through these functions; those that
 * must act just before a flush add a hook (sb_inject_on_flush).
 */
#ifndef SB_INJECT_H
#define SB_INJECT_H

#include <stdint.h>

#include "model.h"
#include "rank.h"

/* at initialisation, in every mode: what merging, polls and the code
 * clock need (stops with a message when the program lacks it) */
SB_HIDDEN void sb_inject_open(const sb_model *m);

/* SimBLAS's own time starts (the program's code clock stops: its time so
 * far is owed), and ends (the clock restarts) */
SB_HIDDEN void sb_inject_enter(sb_rank *r);
SB_HIDDEN void sb_inject_leave(sb_rank *r);

/* a BLAS call (or anything but a failed poll) happened: polls since are
 * no spin loop */
SB_HIDDEN void sb_inject_busy(sb_rank *r);
/* the rank owes SECONDS idle (a wait: no load on its core), paid at its
 * next flush */
SB_HIDDEN void sb_inject_owe_idle(sb_rank *r, double seconds);
/* all the rank owes (BLAS time, waits, code), taken: the caller accounts
 * for it (a deferred barrier) */
SB_HIDDEN double sb_inject_take_owed(sb_rank *r);
/* pay now: the flush hooks, then the waits, then the rest */
SB_HIDDEN void sb_inject_flush(sb_rank *r);
/* run FN at each flush of a rank, before it pays */
SB_HIDDEN void sb_inject_on_flush(sb_hook_fn fn);
/* run FN when a poll of a rank under smpirun has returned
 * (simblas_polled), before its cost is counted */
SB_HIDDEN void sb_inject_on_polled(sb_hook_fn fn);

/* the rank's counters, for simblas_get_stats */
SB_HIDDEN void sb_inject_counts(sb_rank *r, uint64_t *flushes, double *code_s);

#endif
