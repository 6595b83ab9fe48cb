/*
 * sb_rt.h -- what the generated entry points need from the runtime: the
 * mode (call.c), the backend for passthrough (backend.c), and the two
 * ends of a call (call.c): sb_model_call() in the modelling modes,
 * sb_measured() after a real kernel ran.
 */
#ifndef SB_RT_H
#define SB_RT_H

#include "sb_call.h"

enum sb_mode { SB_MODE_UNSET = -1, SB_MODE_SMPI, SB_MODE_NULL, SB_MODE_PASSTHROUGH, SB_MODE_TRACE };

extern int sb_mode_now SB_HIDDEN;
SB_HIDDEN int sb_init(void);
/* "simblas: <message>" on stderr, exit status 2: configuration errors that
 * name the problem and the remedy (settings.c) */
SB_HIDDEN _Noreturn void sb_fatal(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* set once sb_fatal stops the program: the exit handlers keep nothing of
 * the stopped run (backend.c's trace) */
extern int sb_fatal_called SB_HIDDEN;

/* passthrough and trace run the real kernel */
/* value-based quick returns (alpha = 0, ...) apply: not in model mode */
static inline int sb_value_quick(void)
{
  int m = sb_mode_now;
  if (m == SB_MODE_UNSET)
    m = sb_init();
  return m != SB_MODE_SMPI;
}

static inline int sb_computes(void)
{
  int m = sb_mode_now;
  if (__builtin_expect(m == SB_MODE_UNSET, 0))
    m = sb_init();
  return m >= SB_MODE_PASSTHROUGH;
}

/* the backend's symbol for slot (op, or SB_OP_COUNT + op for cblas_);
 * stops with a clear message when the backend lacks it */
SB_HIDDEN void *sb_backend_sym(int slot, const char *name);
SB_HIDDEN double sb_clock(void);
SB_HIDDEN void sb_model_call(sb_call *c);
SB_HIDDEN void sb_measured(sb_call *c, double seconds);
/* the next number of the current rank's stream (SIMBLAS_SEED) */
SB_HIDDEN uint64_t sb_rank_random(void);
/* SIMBLAS_CODE_CLOCK: around a public entry point that may switch ranks
 * (or whose own time is not the program's), stop the calling rank's code
 * clock (its time so far joins the rank's pending injection) and restart
 * it; sb_code_pause returns NULL when the clock is off */
SB_HIDDEN void *sb_code_pause(void);
SB_HIDDEN void sb_code_resume(void *rank);
/* EXPR's value (of type T), computed with the code clock paused */
#define SB_NOT_CODE(T, EXPR)                                                   \
  __extension__({                                                              \
    void *sb_c_ = sb_code_pause();                                             \
    T sb_v_ = (EXPR);                                                          \
    sb_code_resume(sb_c_);                                                     \
    sb_v_;                                                                     \
  })

#endif
