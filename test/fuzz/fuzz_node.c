/*
 * fuzz_node.c -- libFuzzer target for node files (lib/node.c): any bytes
 * given as a node file (SIMBLAS_NODE), composed against a fixed model
 * (test/fuzz/seeds/pieces.model: pieces, sides, sigma parts, a second set,
 * a negative coefficient, routines left to the flop-count fallback).  A
 * finding is any of:
 *   - a memory error, undefined behaviour or a leak (the sanitizers);
 *   - a refused file whose message does not name it ("fuzz.node:LINE: "
 *     with a line of the file, or "fuzz.node: ", and a reason, on one
 *     line), or speaks of a model file (the host and accel lines are read
 *     by the model's parser: its file-level messages do not fit);
 *   - for an accepted file, a call on the node (every op, both sides, both
 *     sets, sizes from 0 to 2^31-1 and around every offload bound) whose
 *     time is not finite, is negative or exceeds SB_MODEL_MAX_SECONDS (what
 *     the model promises of any prediction, and what the sink is given),
 *     or whose accelerators' busy time is not finite, is negative, is not 0
 *     for a call left on the host, or exceeds the devices' count times the
 *     call's time;
 *   - an offloaded call timed without an accel line for it (the accel
 *     lines' mini model falling back to its flop count at 1 flop/s);
 *   - a call left on the host without a host line that the scales do not
 *     bound: a node of flops, bandwidth and overhead 1 predicts the
 *     model's time to the bit (doc/model-format.md), and for a model line
 *     without negative coefficients the time lies between the model's
 *     divided by the largest scale and by the smallest;
 *   - the accounting (sb_node_account, sb_node_totals) not adding up what
 *     the calls returned, or the report not being one line.
 * node.c is included, not linked: the checks read the node's fields.
 * Seeds: test/fuzz/node-seeds/: what simblas-hpl's nodefile.compose
 * writes for the files of examples/nodes it composes (against the built
 * models/default.model and test_nodefile.py's REFERENCE probe, one and two
 * ranks per node), and test_node.c's nodes; bench/fuzz-node runs it long,
 * test/fuzz-node.sh briefly in make check.
 */
#define FUZZ_PROG "fuzz_node"
#include "fuzz.h"
#include "node.c"

#define NAME "fuzz.node"
#define MAXT SB_MODEL_MAX_SECONDS

#ifndef SB_FUZZ_NODE_MODEL
#define SB_FUZZ_NODE_MODEL "test/fuzz/seeds/pieces.model"
#endif

static sb_model *model;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
  (void)argc;
  (void)argv;
  const char *path = getenv("SIMBLAS_FUZZ_MODEL");
  char err[1024];
  if (!(model = sb_model_load(path && *path ? path : SB_FUZZ_NODE_MODEL, err, sizeof err))) {
    fprintf(stderr, "fuzz_node: %s (SIMBLAS_FUZZ_MODEL names the model to compose against)\n", err);
    exit(2);
  }
  return 0;
}

static sb_node *parse(const uint8_t *data, size_t size, char *err, size_t errlen)
{
  FILE *f = fuzz_open(data, size);
  sb_node *nd = sb_node_parse(f, NAME, err, errlen);
  fclose(f);
  return nd;
}

/* the refusal's form, and no word of a model file's remedies (the host
 * and accel lines go through the model's parser) unless the input has it */
static void check_node_refusal(const char *err, const uint8_t *data, size_t size)
{
  static const char *const model_words[] = {"model file", "simblas-calibrate", "regenerate"};
  check_refusal(err, NAME, data, size);
  for (size_t i = 0; i < sizeof model_words / sizeof *model_words; i++)
    if (strstr(err, model_words[i]) && !memmem(data, size, model_words[i], strlen(model_words[i])))
      finding("a refusal of a node file that speaks of a model file: \"%s\"", err);
}

typedef struct account {
  double calls, offloaded, busy;
} account;

static int has_negative(const sb_coefs *co)
{
  for (int t = 0; co && t < SB_NTERMS; t++) {
    if (co->mu[t] < 0)
      return 1;
    for (int i = 0; i < co->npieces; i++)
      if (co->piece[i].mu[t] < 0)
        return 1;
  }
  return 0;
}

static void on_node(sb_node *nd, account *acc, const sb_coefs *co, int op, int variant, int64_t m, int64_t n,
                    int64_t k)
{
  sb_call c = {.op = op, .m = m, .n = n, .k = k, .variant = variant};
  sb_node_cost cost = sb_node_time(nd, model, co, &c);
  const char *name = sb_ops[op].name, *side = variant ? SB_RIGHT_SUFFIX : "";
#define AT name, side, (long long)m, (long long)n, (long long)k
  if (!isfinite(cost.t) || cost.t < 0 || cost.t > MAXT)
    finding("the time of %s%s at (%lld, %lld, %lld) on the node is %.17g", AT, cost.t);
  if (!isfinite(cost.busy) || cost.busy < 0)
    finding("the accelerators' busy time of %s%s at (%lld, %lld, %lld) is %.17g", AT, cost.busy);
  if (!cost.offloaded && cost.busy != 0)
    finding("%s%s at (%lld, %lld, %lld) left on the host keeps the accelerators busy %.17g s", AT, cost.busy);
  if (cost.busy > nd->accelerators * cost.t * (1 + 1e-12))
    finding("%s%s at (%lld, %lld, %lld) keeps %d devices busy %.17g s in a call of %.17g s", AT, nd->accelerators,
            cost.busy, cost.t);
  if (cost.offloaded && !sb_model_coefs_v(nd->accel, 0, op, variant))
    finding("%s%s at (%lld, %lld, %lld) is offloaded, and the accelerator has no line for it: %.17g s (the flop "
            "count at 1 flop/s)",
            AT, cost.t);
  if (!cost.offloaded && !(nd->host && sb_model_coefs_v(nd->host, 0, op, variant))) {
    double mean = sb_model_mean(model, co, &c);
    if (nd->flops == 1 && nd->bandwidth == 1 && nd->overhead == 1 && memcmp(&mean, &cost.t, sizeof mean))
      finding("%s%s at (%lld, %lld, %lld) on a node of scales 1: %.17g s, the model's %.17g s", AT, cost.t, mean);
    if (!has_negative(co)) {
      double lo = fmin(fmin(nd->flops, nd->bandwidth), nd->overhead);
      double hi = fmax(fmax(nd->flops, nd->bandwidth), nd->overhead);
      double tmin = fmin(MAXT, mean / hi) * (1 - 1e-12) - 1e-300;
      double tmax = mean < MAXT ? fmin(MAXT, mean / lo) * (1 + 1e-12) + 1e-300 : MAXT;
      if (!(cost.t >= tmin && cost.t <= tmax))
        finding("%s%s at (%lld, %lld, %lld): %.17g s on the node, outside the model's %.17g s divided by its "
                "scales %.17g to %.17g",
                AT, cost.t, mean, hi, lo);
    }
  }
#undef AT
  sb_node_account(nd, &cost);
  acc->calls++;
  if (cost.offloaded) {
    acc->offloaded++;
    acc->busy += cost.busy;
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  char err[1024] = "";
  sb_node *nd = parse(data, size, err, sizeof err);
  if (!nd) {
    check_node_refusal(err, data, size);
    return 0;
  }
  const char *name = sb_node_name(nd);
  if (!name || strchr(name, '\n'))
    finding("the node's name is %s", name ? "more than one line" : "NULL");
  for (int op = 0; op < SB_OP_COUNT; op++)
    for (int t = 0; t < SB_NTERMS; t++) {
      int r = sb_node_resource(nd, op, t);
      if (r < SB_RES_FLOPS || r > SB_RES_OVERHEAD || (t == SB_TERM_1 && r != SB_RES_OVERHEAD) ||
          (sb_ops[op].level != SB_LEVEL_3 && t != SB_TERM_1 && r != SB_RES_BANDWIDTH))
        finding("term %s of %s follows resource %d", sb_term_names[t], sb_ops[op].name, r);
    }
  int64_t shape[NSHAPES][3];
  fuzz_shapes(shape, data, size);
  int nshape = NSHAPES;
  int core0 = sb_model_set(model, "core0");
  account acc = {0, 0, 0};
  for (int op = 0; op < SB_OP_COUNT; op++)
    for (int v = 0; v < sb_ops[op].variants; v++)
      for (int s = 0; s < 2; s++) {
        int set = s ? core0 : 0;
        if (s && (set < 0 || !model->sets[set]->line[(size_t)v * SB_OP_COUNT + (size_t)op]))
          continue;
        const sb_coefs *co = sb_model_coefs_v(model, set, op, v);
        for (int i = 0; i < nshape; i++)
          on_node(nd, &acc, co, op, v, shape[i][0], shape[i][1], shape[i][2]);
        /* around the offload rule's bounds: each bounded size at bound - 1,
         * bound, bound + 1, the others small and large */
        const offload_rule *r = &nd->offload[op];
        for (int d = -1; r->on && d <= 1; d++)
          for (int64_t other = 7; other <= 65536; other += 65529) {
            int64_t sz[3];
            for (int x = 0; x < 3; x++)
              sz[x] = r->above[x] >= 0 ? clamp_size(floor(r->above[x]) + d) : other;
            on_node(nd, &acc, co, op, v, sz[0], sz[1], sz[2]);
          }
      }
  double off, calls, busy;
  sb_node_totals(nd, &off, &calls, &busy);
  if (off != acc.offloaded || calls != acc.calls || memcmp(&busy, &acc.busy, sizeof busy))
    finding("the totals (%.17g of %.17g calls offloaded, busy %.17g s) are not the calls' (%.17g of %.17g, %.17g s)",
            off, calls, busy, acc.offloaded, acc.calls, acc.busy);
  char *report = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&report, &len);
  if (!f)
    finding("open_memstream failed");
  sb_node_report(nd, f);
  fclose(f);
  if (strncmp(report, "simblas: node ", 14) || !len || strchr(report, '\n') != report + len - 1 ||
      !strstr(report, " modelled calls offloaded, accelerators busy "))
    finding("the report is not one line as simblas-hpl reads it: \"%s\"", report);
  free(report);
  sb_node_free(nd);
  return 0;
}
