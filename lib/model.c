/*
 * model.c -- model-file parser and predictor.  The format is documented
 * in doc/model-format.md; the parser rejects anything it does not
 * understand with the file, the line and the remedy.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "model.h"
#include "simblas.h"

const char *const sb_term_names[SB_NTERMS] = {"1", "m", "n", "mn", "k", "mk", "nk", "mnk"};

static int term_index(const char *s, size_t len)
{
  for (int t = 0; t < SB_NTERMS; t++)
    if (strlen(sb_term_names[t]) == len && !memcmp(s, sb_term_names[t], len))
      return t;
  return -1;
}

/* "NAME:LINE: message" (LINE 0: "NAME: message") */
static void vseterr(char *err, size_t len, const char *name, int line, const char *fmt, va_list ap)
{
  if (!len)
    return;
  int n = line > 0 ? snprintf(err, len, "%s:%d: ", name, line) : snprintf(err, len, "%s: ", name);
  if (n >= 0 && (size_t)n < len)
    vsnprintf(err + n, len - (size_t)n, fmt, ap);
}

static void seterr(char *err, size_t len, const char *name, int line, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
static void seterr(char *err, size_t len, const char *name, int line, const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  vseterr(err, len, name, line, fmt, ap);
  va_end(ap);
}

/* ---- the model in memory ------------------------------------------------ */
void sb_model_free(sb_model *m)
{
  if (!m)
    return;
  for (int i = 0; i < m->nsets; i++) {
    for (int k = 0; k < SB_NVARIANTS * SB_OP_COUNT; k++)
      free(m->sets[i]->line[k]);
    free(m->sets[i]->name);
    free(m->sets[i]);
  }
  for (int i = 0; i < m->nmeta; i++)
    free(m->meta[i]);
  for (int i = 0; i < m->nquality; i++)
    free(m->quality[i]);
  free(m->sets);
  free(m->meta);
  free(m->quality);
  free(m->path);
  free(m);
}

int sb_model_set(const sb_model *m, const char *name)
{
  for (int i = 0; i < m->nsets; i++)
    if (!strcmp(m->sets[i]->name, name))
      return i;
  return -1;
}

int sb_model_add_set(sb_model *m, const char *name)
{
  int i = sb_model_set(m, name);
  if (i >= 0)
    return i;
  if (!*name || strpbrk(name, " \t\r\n#") || m->nsets >= SB_MAX_SETS)
    return -1;
  sb_set **sets = realloc(m->sets, sizeof *sets * (size_t)(m->nsets + 1));
  if (!sets)
    return -1;
  m->sets = sets;
  sb_set *s = calloc(1, sizeof *s);
  if (!s || !(s->name = strdup(name))) {
    free(s);
    return -1;
  }
  sets[m->nsets] = s;
  return m->nsets++;
}

sb_model *sb_model_new(void)
{
  sb_model *m = calloc(1, sizeof *m);
  if (!m)
    return NULL;
  m->version = SIMBLAS_MODEL_FORMAT;
  if (!(m->path = strdup("")) || sb_model_add_set(m, "node") != 0) {
    sb_model_free(m);
    return NULL;
  }
  return m;
}

sb_coefs *sb_model_line(sb_model *m, int set, int op, int variant)
{
  sb_coefs **slot = &m->sets[set]->line[(size_t)variant * SB_OP_COUNT + (size_t)op];
  if (!*slot)
    *slot = calloc(1, sizeof **slot);
  return *slot;
}

static int add_text(char ***v, int *n, const char *fmt, va_list ap)
{
  char *s, **nv;
  if (vasprintf(&s, fmt, ap) < 0)
    return -1;
  for (char *c = s; *c; c++)
    if (*c == '#' || *c == '\n' || *c == '\r')
      *c = ' ';
  if (!(nv = realloc(*v, sizeof *nv * (size_t)(*n + 1)))) {
    free(s);
    return -1;
  }
  *v = nv;
  nv[(*n)++] = s;
  return 0;
}

int sb_model_add_meta(sb_model *m, const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  int rc = add_text(&m->meta, &m->nmeta, fmt, ap);
  va_end(ap);
  return rc;
}

int sb_model_add_quality(sb_model *m, const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  int rc = add_text(&m->quality, &m->nquality, fmt, ap);
  va_end(ap);
  return rc;
}

/* ---- parsing --------------------------------------------------------------- */
typedef struct parser {
  sb_model *m;
  const char *name;
  int line, set, ended, speed_line;
  char *err;
  size_t errlen;
} parser;

static int fail(parser *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int fail(parser *p, const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  vseterr(p->err, p->errlen, p->name, p->line, fmt, ap);
  va_end(ap);
  return -1;
}

/* a number: 0, or -1 and what is wrong with it.  A subnormal number is a
 * number (strtod says ERANGE for it too); one that underflows to 0 or
 * overflows is not what the file says. */
static int number(const char *s, double *v, const char **why)
{
  char *end;
  errno = 0;
  double d = strtod(s, &end);
  if (end == s || *end)
    *why = "is not a number";
  else if (isnan(d) || (isinf(d) && errno != ERANGE))
    *why = "is not a finite number";
  else if (isinf(d))
    *why = "is beyond the largest number (about 1.8e308)";
  else if (errno == ERANGE && d == 0)
    *why = "is below the smallest number (about 4.9e-324); write 0 if you mean 0";
  else {
    *v = d;
    return 0;
  }
  return -1;
}

static int parse_version(parser *p, const char *key, const char *rest)
{
  if (strcmp(key, "simblas-model"))
    return fail(p,
                "not a SimBLAS model file (the first line must be 'simblas-model %d'); regenerate it with "
                "simblas-calibrate",
                SIMBLAS_MODEL_FORMAT);
  if (!*rest)
    return fail(p, "'simblas-model' needs a format version number, e.g. 'simblas-model %d'", SIMBLAS_MODEL_FORMAT);
  if (strspn(rest, "0123456789") != strlen(rest))
    return fail(p, "'%s' after simblas-model is not a format version (a whole number, e.g. %d)", rest,
                SIMBLAS_MODEL_FORMAT);
  errno = 0;
  long v = strtol(rest, NULL, 10);
  if (errno == ERANGE || v > SIMBLAS_MODEL_FORMAT)
    return fail(p, "model format %s is newer than this libsimblas reads (%d); upgrade SimBLAS or recalibrate", rest,
                SIMBLAS_MODEL_FORMAT);
  if (v < 1)
    return fail(p, "model format %ld does not exist (the first is 1); regenerate the model with simblas-calibrate", v);
  p->m->version = (int)v;
  return 0;
}

static int parse_speed(parser *p, const char *rest)
{
  double v;
  const char *why;
  if (p->speed_line)
    return fail(p, "second reference-speed line (the first is line %d); keep one", p->speed_line);
  if (!*rest)
    return fail(p, "reference-speed needs a positive number of flop/s, e.g. 1.6e10");
  if (number(rest, &v, &why) != 0)
    return fail(p, "reference-speed '%s' %s; write a positive number of flop/s, e.g. 1.6e10", rest, why);
  if (!(v > 0))
    return fail(p, "reference-speed needs a positive number of flop/s, e.g. 1.6e10, not %s", rest);
  p->m->reference_speed = v;
  p->speed_line = p->line;
  return 0;
}

/* "mnk=1.5e-11 1=2e-6 | mnk=3e-13": the mean's terms, then after '|' the
 * standard deviation's; WHAT names the line in messages */
static int parse_terms(parser *p, char **save, const char *what, double *mu, double *sigma, unsigned char *terms,
                       unsigned char *sigma_terms)
{
  int after_bar = 0;
  char *tok;
  while ((tok = strtok_r(NULL, " \t\r\n", save))) {
    if (!strcmp(tok, "|")) {
      if (after_bar)
        return fail(p,
                    "a second '|' in the line of %s; a line is NAME TERM=COEFFICIENT ... | TERM=COEFFICIENT ... "
                    "(the mean, then the standard deviation of a call)",
                    what);
      if (!*terms)
        return fail(p, "%s has no TERM=COEFFICIENT pairs before '|'; the mean's terms come first", what);
      after_bar = 1;
      continue;
    }
    char *eq = strchr(tok, '=');
    if (!eq)
      return fail(p, "'%s' in the line of %s is not TERM=COEFFICIENT; write e.g. mnk=2.1e-11", tok, what);
    int t = term_index(tok, (size_t)(eq - tok));
    if (t < 0)
      return fail(p, "unknown term '%.*s' for %s; the terms are 1 m n mn k mk nk mnk", (int)(eq - tok), tok, what);
    double v;
    const char *why;
    if (number(eq + 1, &v, &why) != 0)
      return fail(p, "coefficient '%s' of %s.%s %s", eq + 1, what, sb_term_names[t], why);
    unsigned char *mask = after_bar ? sigma_terms : terms;
    if (*mask & (1u << t))
      return fail(p, "%s term %s given twice in the line of %s; keep one", after_bar ? "standard-deviation" : "mean",
                  sb_term_names[t], what);
    *mask |= (unsigned char)(1u << t);
    (after_bar ? sigma : mu)[t] = v;
  }
  if (!*terms)
    return fail(p, "%s has no TERM=COEFFICIENT pairs", what);
  if (after_bar && !*sigma_terms)
    return fail(p,
                "nothing after '|' in the line of %s; give the standard deviation's TERM=COEFFICIENT pairs, or "
                "remove the '|'",
                what);
  return 0;
}

/* "dtrsm[m>=384]": the term and the bound of a piece; KEY is cut at its '['
 * BR */
static int parse_piece(parser *p, char *key, char *br, int *term, double *at)
{
  char *ge = strstr(br, ">="), *close = strrchr(br, ']');
  const char *why;
  if (!ge || !close || close < ge || close[1])
    return fail(p, "bad piece '%s'; write e.g. dtrsm[m>=384] or hpl_dlacpy[mn>=262144] (a term, >=, a size)", key);
  *term = term_index(br + 1, (size_t)(ge - br - 1));
  if (*term < 1)
    return fail(p, "bad piece '%s': '%.*s' is not a term to cut along; use m n mn k mk nk or mnk", key,
                (int)(ge - br - 1), br + 1);
  *close = '\0';
  if (number(ge + 2, at, &why) != 0)
    return fail(p, "bad piece '%s]': its bound '%s' %s; write a size, e.g. dtrsm[m>=384]", key, ge + 2, why);
  if (!(*at >= 1))
    return fail(p, "bad piece '%s]': its bound '%s' is below 1; write a size, e.g. dtrsm[m>=384]", key, ge + 2);
  *br = '\0';
  return 0;
}

static int parse_routine(parser *p, char *key, char **save)
{
  char *br = strchr(key, '[');
  int pterm = -1;
  double at = 0;
  if (br && parse_piece(p, key, br, &pterm, &at) != 0)
    return -1;
  int variant = 0, op = sb_model_key(key, &variant);
  if (op < 0)
    return fail(p,
                "unknown routine '%s'; a line starts with a routine name (dgemm, ztrsm, ...) or one of "
                "reference-speed, meta, quality, set, end",
                key);
  if (p->set < 0)
    p->set = 0;
  sb_model *m = p->m;
  sb_coefs **slot = &m->sets[p->set]->line[(size_t)variant * SB_OP_COUNT + (size_t)op];
  if (!br) {
    if (*slot)
      return fail(p, "second line for %s in set '%s'; keep one", key, m->sets[p->set]->name);
    sb_coefs co = {0};
    if (parse_terms(p, save, key, co.mu, co.sigma, &co.terms, &co.sigma_terms) != 0)
      return -1;
    if (!sb_model_line(m, p->set, op, variant))
      return fail(p, "out of memory");
    **slot = co;
    return 0;
  }
  char what[128];
  snprintf(what, sizeof what, "%s[%s>=%.17g]", key, sb_term_names[pterm], at);
  sb_coefs *co = *slot;
  if (!co)
    return fail(p, "piece %s before the plain %s line; put that line first", what, key);
  for (int i = 0; i < co->npieces; i++) {
    const sb_piece *q = &co->piece[i];
    if (q->at != at)
      continue;
    if (q->term == pterm)
      return fail(p, "piece %s given twice in set '%s'; keep one", what, m->sets[p->set]->name);
    return fail(p,
                "pieces %s[%s>=%.17g] and %s have the same bound, so which applies would depend on their order; "
                "give them different bounds",
                key, sb_term_names[q->term], q->at, what);
  }
  if (co->npieces == SB_MAX_PIECES)
    return fail(p, "more than %d pieces for %s", SB_MAX_PIECES, key);
  sb_piece pc = {.term = pterm, .at = at};
  if (parse_terms(p, save, what, pc.mu, pc.sigma, &pc.terms, &pc.sigma_terms) != 0)
    return -1;
  co->piece[co->npieces++] = pc;
  return 0;
}

static int parse_line(parser *p, char *buf)
{
  char *hash = strchr(buf, '#');
  if (hash)
    *hash = '\0';
  char *save = NULL, *key = strtok_r(buf, " \t\r\n", &save);
  if (!key)
    return 0;
  if (p->ended)
    return fail(p, "text after the 'end' line; remove it or regenerate the model");
  /* the rest of the line, without its leading and trailing blanks */
  char *rest = save ? save + strspn(save, " \t\r\n") : key + strlen(key);
  size_t len = strlen(rest);
  while (len && strchr(" \t\r\n", rest[len - 1]))
    rest[--len] = '\0';
  sb_model *m = p->m;
  if (!m->version)
    return parse_version(p, key, rest);
  if (!strcmp(key, "end")) {
    if (*rest)
      return fail(p, "'end' takes nothing after it, not '%s'", rest);
    p->ended = 1;
    return 0;
  }
  if (!strcmp(key, "simblas-model"))
    return fail(p, "second 'simblas-model' line; the version is given once, on the first line");
  if (!strcmp(key, "reference-speed"))
    return parse_speed(p, rest);
  if (!strcmp(key, "meta") || !strcmp(key, "quality")) { /* for people and tools */
    int rc = !strcmp(key, "meta") ? sb_model_add_meta(m, "%s", rest) : sb_model_add_quality(m, "%s", rest);
    return rc ? fail(p, "out of memory") : 0;
  }
  if (!strcmp(key, "set")) {
    char *name = strtok_r(NULL, " \t\r\n", &save);
    if (!name)
      return fail(p, "'set' needs a name, e.g. 'set node' or 'set core0'");
    char *extra = strtok_r(NULL, " \t\r\n", &save);
    if (extra)
      return fail(p, "'set' takes one name, not '%s %s ...'", name, extra);
    if ((p->set = sb_model_add_set(m, name)) < 0)
      return m->nsets >= SB_MAX_SETS ? fail(p, "more than %d coefficient sets; a set is a core or a kind of host",
                                           SB_MAX_SETS)
                                     : fail(p, "out of memory");
    return 0;
  }
  return parse_routine(p, key, &save);
}

sb_model *sb_model_parse(FILE *f, const char *name, char *err, size_t errlen)
{
  parser p = {.name = name, .set = -1, .err = err, .errlen = errlen};
  char *buf = NULL;
  size_t cap = 0;
  int ok = 0;
  if ((p.m = sb_model_new())) {
    free(p.m->path);
    p.m->path = strdup(name);
    p.m->version = 0; /* until the first line says */
  }
  if (!p.m || !p.m->path) {
    seterr(err, errlen, name, 0, "out of memory");
    goto out;
  }
  while (getline(&buf, &cap, f) >= 0) {
    p.line++;
    if (parse_line(&p, buf) != 0)
      goto out;
  }
  p.line = 0;
  if (ferror(f)) {
    seterr(err, errlen, name, 0, "read error: %s", strerror(errno));
    goto out;
  }
  if (!p.m->version) {
    seterr(err, errlen, name, 0, "empty model file (truncated?); regenerate it with simblas-calibrate");
    goto out;
  }
  if (!p.ended) {
    seterr(err, errlen, name, 0, "truncated model file: no 'end' line; regenerate it with simblas-calibrate");
    goto out;
  }
  if (!(p.m->reference_speed > 0)) {
    seterr(err, errlen, name, 0, "no 'reference-speed' line (truncated?); regenerate it with simblas-calibrate");
    goto out;
  }
  ok = 1;
out:
  free(buf);
  if (!ok) {
    sb_model_free(p.m);
    return NULL;
  }
  return p.m;
}

sb_model *sb_model_load(const char *path, char *err, size_t errlen)
{
  FILE *f = fopen(path, "r");
  if (!f) {
    seterr(err, errlen, path, 0, "cannot open model file: %s; run 'make calibrate' or set SIMBLAS_MODEL",
           strerror(errno));
    return NULL;
  }
  struct stat st;
  if (fstat(fileno(f), &st) == 0 && S_ISDIR(st.st_mode)) {
    fclose(f);
    seterr(err, errlen, path, 0, "a directory, not a model file; set SIMBLAS_MODEL to a file, e.g. %s/default.model",
           path);
    return NULL;
  }
  sb_model *m = sb_model_parse(f, path, err, errlen);
  fclose(f);
  return m;
}

int sb_model_key(const char *key, int *variant)
{
  size_t len = strlen(key), sl = strlen(SB_RIGHT_SUFFIX);
  *variant = 0;
  if (len > sl && !strcmp(key + len - sl, SB_RIGHT_SUFFIX)) {
    char base[64];
    if (len - sl >= sizeof base)
      return -1;
    memcpy(base, key, len - sl);
    base[len - sl] = '\0';
    int op = sb_op_lookup(base);
    if (op < 0 || sb_ops[op].variants < 2) /* only SIDED shapes have sides */
      return -1;
    *variant = 1;
    return op;
  }
  return sb_op_lookup(key);
}

/* ---- predicting ------------------------------------------------------------ */
static const sb_coefs *lookup(const sb_model *m, int set, int op, int variant)
{
  return m->sets[set]->line[(size_t)variant * SB_OP_COUNT + (size_t)op];
}

const sb_coefs *sb_model_coefs_v(const sb_model *m, int set, int op, int variant)
{
  const sb_coefs *co = NULL;
  if (set < 0 || set >= m->nsets)
    set = 0;
  if (variant && !(co = lookup(m, set, op, variant)) && set)
    co = lookup(m, 0, op, variant);
  if (!co)
    co = lookup(m, set, op, 0);
  if (!co && set)
    co = lookup(m, 0, op, 0);
  return co;
}

const sb_coefs *sb_model_coefs(const sb_model *m, int set, int op) { return sb_model_coefs_v(m, set, op, 0); }

static void terms(const sb_call *c, double v[SB_NTERMS])
{
  double m = (double)c->m, n = (double)c->n, k = (double)c->k;
  v[0] = 1;
  v[1] = m;
  v[2] = n;
  v[3] = m * n;
  v[4] = k;
  v[5] = m * k;
  v[6] = n * k;
  v[7] = m * n * k;
}

static double clamp(double t)
{
  if (!(t > 0)) /* negative, zero or NaN */
    return 0;
  return t < SB_MODEL_MAX_SECONDS ? t : SB_MODEL_MAX_SECONDS;
}

/* the piece that applies to the call, NULL for the plain line */
static const sb_piece *piece_for(const sb_coefs *co, const sb_call *c)
{
  const sb_piece *best = NULL;
  double v[SB_NTERMS];
  terms(c, v);
  for (int i = 0; i < co->npieces; i++) {
    const sb_piece *p = &co->piece[i];
    if (v[p->term] >= p->at && (!best || p->at > best->at))
      best = p;
  }
  return best;
}

double sb_model_mean(const sb_model *m, const sb_coefs *co, const sb_call *c)
{
  if (!co)
    return clamp(sb_call_flops(c) / m->reference_speed);
  const sb_piece *p = co->npieces ? piece_for(co, c) : NULL;
  const double *mu = p ? p->mu : co->mu;
  double v[SB_NTERMS], t = 0;
  terms(c, v);
  for (int i = 0; i < SB_NTERMS; i++)
    t += mu[i] * v[i];
  return clamp(t);
}

double sb_model_sigma(const sb_coefs *co, const sb_call *c)
{
  if (!co)
    return 0;
  const sb_piece *p = co->npieces ? piece_for(co, c) : NULL;
  if (!(p ? p->sigma_terms : co->sigma_terms))
    return 0;
  const double *sg = p ? p->sigma : co->sigma;
  double v[SB_NTERMS], s = 0;
  terms(c, v);
  for (int i = 0; i < SB_NTERMS; i++)
    s += sg[i] * v[i];
  return clamp(s);
}
