/*
 * node.h -- node composition (doc/model-format.md, "Node files"): the
 * model describes one core of the calibrated node; a node file says how a
 * rank of ANOTHER node differs from it, and libsimblas predicts with both.
 * Pure C, no SimGrid: any program linked with -lsimblas gets it through
 * SIMBLAS_NODE.  Read-only once loaded, except the offload counters.
 *
 * A call's time on the node:
 *   * each term of the model's line is divided by the scale of the
 *     resource that bounds it: `flops` for the flop term of a level-3
 *     routine (and the flop-count fallback), `bandwidth` for every term
 *     but the constant of level-1 and level-2 routines and HPL's memory
 *     kernels, and for level-3 terms the file assigns to it (`level3`),
 *     `overhead` for the constant (the call's own cost);
 *   * a `host` line replaces the model's line for its routine: the node's
 *     own measurement, in seconds, not scaled;
 *   * a routine with an `offload` rule whose bounds the call exceeds runs
 *     on the accelerators (`accel` lines: one device's time for a call),
 *     split with the host (`share`), its operands crossing the `link`:
 *     after the device's compute, or pipelined with it (`overlap=yes`);
 *     with `c=out` a gemm's C stays in host memory, the device's product
 *     comes back and the host adds it into C (`merge` bytes/s).
 */
#ifndef SB_NODE_H
#define SB_NODE_H

#include <stdio.h>

#include "model.h"

#define SIMBLAS_NODE_FORMAT 1

typedef struct sb_node sb_node;

/* Parse a node file (checked against the model's routines: an offload
 * rule without a rate says which routine).  NULL on error, with "FILE:LINE:
 * what is wrong; what to do" in err. */
SB_HIDDEN sb_node *sb_node_load(const char *path, char *err, size_t errlen);
SB_HIDDEN sb_node *sb_node_parse(FILE *f, const char *name, char *err, size_t errlen);
SB_HIDDEN void sb_node_free(sb_node *nd);
SB_HIDDEN const char *sb_node_name(const sb_node *nd);

/* a call on the node: its time (seconds, the model's clock: the reference
 * host's; finite, >= 0 and at most SB_MODEL_MAX_SECONDS, as the model's),
 * whether it was offloaded, and the accelerators' busy seconds (the sum
 * over the rank's devices, at most their count times the call's time) */
typedef struct sb_node_cost {
  double t, busy;
  int offloaded;
} sb_node_cost;
SB_HIDDEN sb_node_cost sb_node_time(const sb_node *nd, const sb_model *m, const sb_coefs *co, const sb_call *c);

/* the resource a term of op follows: the file's scale it is divided by */
enum sb_node_resource { SB_RES_FLOPS, SB_RES_BANDWIDTH, SB_RES_OVERHEAD };
SB_HIDDEN int sb_node_resource(const sb_node *nd, int op, int term);

/* what the accelerators did so far (all ranks): offloaded calls, calls
 * modelled, device-seconds busy; the counters are added under a lock */
SB_HIDDEN void sb_node_account(sb_node *nd, const sb_node_cost *cost);
SB_HIDDEN void sb_node_totals(const sb_node *nd, double *offloaded, double *calls, double *busy);
/* one line for the end of a run: "simblas: node NAME: ..." (parsed by
 * simblas-hpl) */
SB_HIDDEN void sb_node_report(const sb_node *nd, FILE *f);

#endif
