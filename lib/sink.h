/*
 * sink.h -- where the call path (call.c) hands a call once its arguments
 * passed the checks: one sink per SIMBLAS_MODE.
 *
 *   entry points and checks (entry_*.c, check.c)
 *     -> call path (call.c): the model's prediction (model.c, pure C)
 *       -> sink: smpi (inject.c: into SimGrid, through smpi_adaptor.c),
 *                null (nothing), passthrough and trace (backend.c: the
 *                real BLAS ran; trace writes a row per call)
 *
 * A modelled call (smpi, null) reaches sink->inject with its predicted
 * seconds on the model's reference host; a computed one (passthrough,
 * trace) reaches sink->record with its prediction and its measured time.
 */
#ifndef SB_SINK_H
#define SB_SINK_H

#include "model.h"
#include "rank.h"
#include "sb_call.h"

typedef struct sb_sink {
  const char *mode; /* SIMBLAS_MODE's value */
  /* at initialisation, once the model is loaded: what the sink needs
   * (stops with a message when it cannot work) */
  void (*open)(const sb_model *m);
  /* modelled: T seconds on the reference host for rank R; returns what it
   * injected, in seconds of R's host */
  double (*inject)(sb_rank *r, double t);
  /* computed: the real kernel took MEASURED seconds, the model says
   * PREDICTED */
  void (*record)(sb_rank *r, const sb_call *c, double predicted, double measured);
} sb_sink;

/* by enum sb_mode */
extern const sb_sink sb_sink_smpi SB_HIDDEN, sb_sink_null SB_HIDDEN, sb_sink_passthrough SB_HIDDEN,
    sb_sink_trace SB_HIDDEN;

#endif
