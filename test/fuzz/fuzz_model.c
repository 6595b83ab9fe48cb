/*
 * fuzz_model.c -- libFuzzer target for the model core (lib/model.c): any
 * bytes given as a model file.  A finding is any of:
 *   - a memory error, undefined behaviour or a leak (the sanitizers);
 *   - a refused file whose message does not name it ("fuzz.model:LINE: "
 *     with a line of the file, or "fuzz.model: ", and a reason, on one
 *     line);
 *   - for an accepted file, a prediction of a routine (every op, both
 *     sides, every set, sizes from 0 to 2^31-1 and around every piece's
 *     bound) that is not finite, is negative or exceeds
 *     SB_MODEL_MAX_SECONDS, its mean or its standard deviation;
 *   - the writer refusing what the parser accepted, the parser refusing
 *     what the writer wrote, a different prediction after the round trip
 *     (bit for bit), or different text when the read-back model is written
 *     again.
 * Seeds: test/fuzz/seeds/ and the built models/default.model; bench/fuzz-model
 * runs it long, test/fuzz-model.sh briefly in make check.
 */
#define FUZZ_PROG "fuzz_model"
#include "fuzz.h"
#include "model.h"

#define NAME "fuzz.model"

static sb_model *parse(const char *text, size_t len, const char *name, char *err, size_t errlen)
{
  FILE *f = fuzz_open(text, len);
  sb_model *m = sb_model_parse(f, name, err, errlen);
  fclose(f);
  return m;
}

/* the predictions of a model in a fixed order, into out[] (or compared
 * with it) */
typedef struct preds {
  double *v;
  size_t n, cap;
  int compare;
  const char *what;
} preds;

static void record(preds *p, double x, const sb_call *c, const char *kind)
{
  if (!isfinite(x) || x < 0 || x > SB_MODEL_MAX_SECONDS)
    finding("%s %s of %s%s at (%lld, %lld, %lld) is %.17g", p->what, kind, sb_ops[c->op].name,
            c->variant ? SB_RIGHT_SUFFIX : "", (long long)c->m, (long long)c->n, (long long)c->k, x);
  if (p->compare) {
    if (p->n >= p->cap || memcmp(&p->v[p->n], &x, sizeof x))
      finding("%s of %s%s at (%lld, %lld, %lld): %.17g after the round trip, %.17g before", kind,
              sb_ops[c->op].name, c->variant ? SB_RIGHT_SUFFIX : "", (long long)c->m, (long long)c->n,
              (long long)c->k, x, p->n < p->cap ? p->v[p->n] : NAN);
    p->n++;
    return;
  }
  if (p->n == p->cap && !(p->v = realloc(p->v, sizeof *p->v * (p->cap = p->cap ? 2 * p->cap : 4096))))
    finding("out of memory");
  p->v[p->n++] = x;
}

static void predict(preds *p, const sb_model *m, int set, int op, int variant, const int64_t (*shape)[3], int nshape)
{
  const sb_coefs *co = sb_model_coefs_v(m, set, op, variant);
  for (int i = 0; i < nshape; i++) {
    sb_call c = {.op = op, .m = shape[i][0], .n = shape[i][1], .k = shape[i][2], .variant = variant};
    record(p, sb_model_mean(m, co, &c), &c, "mean");
    record(p, sb_model_sigma(co, &c), &c, "sigma");
  }
  /* around each piece's bound: the term at bound - 1, bound, bound + 1
   * with equal sizes in the term's dimensions */
  for (int i = 0; co && i < co->npieces; i++) {
    const sb_piece *pc = &co->piece[i];
    int dims = (pc->term & 1) + (pc->term >> 1 & 1) + (pc->term >> 2 & 1);
    double side = pow(pc->at, 1.0 / dims);
    for (int d = -1; d <= 1; d++) {
      int64_t s = clamp_size(floor(side) + d), sz[3] = {7, 7, 7};
      for (int t = 0; t < 3; t++)
        if (pc->term >> t & 1)
          sz[t] = s;
      sb_call c = {.op = op, .m = sz[0], .n = sz[1], .k = sz[2], .variant = variant};
      record(p, sb_model_mean(m, co, &c), &c, "mean");
      record(p, sb_model_sigma(co, &c), &c, "sigma");
    }
  }
}

/* every op and side in set 0 (lines or the flop-count fallback), and in
 * the other sets the ops they have lines for */
static void predict_all(preds *p, const sb_model *m, const int64_t (*shape)[3], int nshape)
{
  for (int s = 0; s < m->nsets; s++) {
    if (sb_model_set(m, m->sets[s]->name) != s)
      finding("set '%s' is found at %d, not %d", m->sets[s]->name, sb_model_set(m, m->sets[s]->name), s);
    for (int op = 0; op < SB_OP_COUNT; op++) {
      if (s && !m->sets[s]->line[op] && !m->sets[s]->line[SB_OP_COUNT + op])
        continue;
      for (int v = 0; v < sb_ops[op].variants; v++)
        predict(p, m, s, op, v, shape, nshape);
    }
  }
}

static char *write_text(const sb_model *m, const char *what)
{
  char *text = NULL, err[1024] = "";
  size_t len = 0;
  FILE *f = open_memstream(&text, &len);
  if (!f)
    finding("open_memstream failed");
  if (sb_model_write(f, m, "fuzz\nsecond line", err, sizeof err) != 0)
    finding("the writer refused the %s model: %s", what, err);
  fclose(f);
  return text;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  char err[1024] = "";
  sb_model *a = parse((const char *)data, size, NAME, err, sizeof err);
  if (!a) {
    check_refusal(err, NAME, data, size);
    return 0;
  }
  int64_t shape[NSHAPES][3];
  fuzz_shapes(shape, data, size);
  int nshape = NSHAPES;
  preds p = {.what = "prediction"};
  predict_all(&p, a, (const int64_t (*)[3])shape, nshape);
  /* the round trip */
  char *first = write_text(a, "parsed");
  sb_model *b = parse(first, strlen(first), NAME " (written)", err, sizeof err);
  if (!b)
    finding("the parser refused what the writer wrote: %s\n%s", err, first);
  if (b->nsets != a->nsets || b->reference_speed != a->reference_speed)
    finding("the round trip changed the sets (%d, %d) or the reference speed (%.17g, %.17g)", a->nsets, b->nsets,
            a->reference_speed, b->reference_speed);
  for (int s = 0; s < a->nsets; s++)
    for (int k = 0; k < SB_NVARIANTS * SB_OP_COUNT; k++)
      if (!a->sets[s]->line[k] != !b->sets[s]->line[k])
        finding("the round trip changed which lines set %d has (%s)", s, sb_ops[k % SB_OP_COUNT].name);
  size_t total = p.n;
  p.compare = 1;
  p.cap = total;
  p.n = 0;
  p.what = "read-back prediction";
  predict_all(&p, b, (const int64_t (*)[3])shape, nshape);
  if (p.n != total)
    finding("the round trip changed the number of predictions: %zu, %zu", total, p.n);
  char *second = write_text(b, "read-back");
  if (strcmp(first, second))
    finding("writing the read-back model gave other text:\n%s\n----\n%s", first, second);
  free(first);
  free(second);
  free(p.v);
  sb_model_free(a);
  sb_model_free(b);
  return 0;
}
