/*
 * model.c -- model-file parser, predictor and writer.  The format is
 * documented in doc/model-format.md; the parser rejects anything it does
 * not understand with the file, the line and the remedy, and the writer
 * writes only what the parser reads back to the same predictions.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

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

/* the slot of KEY's line (a model-file key: its op and variant) in the
 * current set (the default set before any 'set' line), NULL for an
 * unknown key */
static sb_coefs **line_slot(parser *p, const char *key, int *op, int *variant)
{
  *variant = 0;
  if ((*op = sb_model_key(key, variant)) < 0)
    return NULL;
  if (p->set < 0)
    p->set = 0;
  return &p->m->sets[p->set]->line[(size_t)*variant * SB_OP_COUNT + (size_t)*op];
}

/* "hpl_dlaswp01T@ld 3142:0.61:0.2 6284:0.65 ...": the leading-dimension
 * factors of the line before it (model.h) */
static int parse_ld(parser *p, char *key, char *at_sign, char **save)
{
  *at_sign = '\0';
  if (strcmp(at_sign + 1, "ld"))
    return fail(p, "bad key '%s@%s'; the only '@' line is '%s@ld LD:FACTOR ...'", key, at_sign + 1, key);
  int op, variant;
  sb_coefs **slot = line_slot(p, key, &op, &variant);
  if (!slot)
    return fail(p, "unknown routine '%s' in '%s@ld'", key, key);
  sb_coefs *co = *slot;
  if (!co)
    return fail(p, "%s@ld before the plain %s line; put that line first", key, key);
  if (co->ld.n)
    return fail(p, "%s@ld given twice in set '%s'; keep one", key, p->m->sets[p->set]->name);
  char *tok;
  int n = 0;
  while ((tok = strtok_r(NULL, " \t\r\n", save))) {
    char *colon = strchr(tok, ':');
    const char *why = NULL;
    double at, f, g = 0;
    if (!colon)
      return fail(p, "%s@ld: '%s' is not LD:FACTOR[:EXPONENT]; write e.g. %s@ld 6000:0.6 50000:1", key, tok, key);
    *colon = '\0';
    char *colon2 = strchr(colon + 1, ':');
    if (colon2) {
      *colon2 = '\0';
      if (number(colon2 + 1, &g, &why) != 0 || !(fabs(g) <= SB_LD_MAX_G))
        return fail(p, "%s@ld: the exponent of m '%s' %s; write a number from -%g to %g", key, colon2 + 1,
                    why ? why : "is out of range", SB_LD_MAX_G, SB_LD_MAX_G);
    }
    if (number(tok, &at, &why) != 0 || !(at >= 1) || at > 2147483647.0)
      return fail(p, "%s@ld: the leading dimension '%s' %s; write a size from 1 to 2^31-1", key, tok,
                  why ? why : "is out of range");
    if (number(colon + 1, &f, &why) != 0 || !(f > 0) || f > 1e6)
      return fail(p, "%s@ld: the factor '%s' %s; write a number > 0", key, colon + 1, why ? why : "is out of range");
    if (n == SB_MAX_LD)
      return fail(p, "%s@ld: more than %d points", key, SB_MAX_LD);
    if (n && !(at > co->ld.at[n - 1]))
      return fail(p, "%s@ld: the leading dimensions must ascend (%.17g after %.17g)", key, at, co->ld.at[n - 1]);
    co->ld.at[n] = at;
    co->ld.g[n] = g;
    co->ld.f[n++] = f;
  }
  if (!n)
    return fail(p, "%s@ld without points; write e.g. %s@ld 6000:0.6 50000:1", key, key);
  co->ld.n = n;
  return 0;
}

static int parse_routine(parser *p, char *key, char **save)
{
  char *at_sign = strchr(key, '@');
  if (at_sign)
    return parse_ld(p, key, at_sign, save);
  char *br = strchr(key, '[');
  int pterm = -1;
  double at = 0;
  if (br && parse_piece(p, key, br, &pterm, &at) != 0)
    return -1;
  int op, variant;
  sb_coefs **slot = line_slot(p, key, &op, &variant);
  if (!slot)
    return fail(p,
                "unknown routine '%s'; a line starts with a routine name (dgemm, ztrsm, ...) or one of "
                "reference-speed, meta, quality, set, end",
                key);
  sb_model *m = p->m;
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

char *sb_model_split_line(char *buf, char **rest, char **save)
{
  char *hash = strchr(buf, '#');
  if (hash)
    *hash = '\0';
  *save = NULL;
  char *key = strtok_r(buf, " \t\r\n", save);
  if (!key)
    return NULL;
  char *r = *save ? *save + strspn(*save, " \t\r\n") : key + strlen(key);
  size_t len = strlen(r);
  while (len && strchr(" \t\r\n", r[len - 1]))
    r[--len] = '\0';
  *rest = r;
  return key;
}

static int parse_line(parser *p, char *buf)
{
  char *rest, *save, *key = sb_model_split_line(buf, &rest, &save);
  if (!key)
    return 0;
  if (p->ended)
    return fail(p, "text after the 'end' line; remove it or regenerate the model");
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
  ssize_t len;
  while ((len = getline(&buf, &cap, f)) >= 0) {
    p.line++;
    if ((size_t)len != strlen(buf)) {
      fail(&p, "a NUL byte: binary data, not a model file (or a damaged one); regenerate it with simblas-calibrate");
      goto out;
    }
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

int sb_model_piece(const sb_coefs *co, const sb_call *c)
{
  const sb_piece *p = co && co->npieces ? piece_for(co, c) : NULL;
  return p ? (int)(p - co->piece) : -1;
}

/* point i's factor for m rows: F (m / M0)^G */
static double ld_point(const sb_ld_points *p, int i, double rm)
{
  return p->g[i] != 0 ? p->f[i] * pow(rm, p->g[i]) : p->f[i];
}

double sb_model_ld_factor(const sb_ld_points *p, int64_t ld, int64_t m)
{
  if (!p || p->n <= 0 || ld <= 0)
    return 1;
  double x = (double)ld, rm = (double)(m > 1 ? m : 1) / SB_LD_M0, f;
  int n = p->n;
  if (x <= p->at[0])
    f = ld_point(p, 0, rm);
  else if (x >= p->at[n - 1])
    f = ld_point(p, n - 1, rm);
  else {
    int i = 1;
    while (x > p->at[i])
      i++;
    double u = log(x / p->at[i - 1]) / log(p->at[i] / p->at[i - 1]);
    f = ld_point(p, i - 1, rm) + u * (ld_point(p, i, rm) - ld_point(p, i - 1, rm));
  }
  return f < 1e6 ? f : 1e6; /* (m / M0)^G for m up to 2^31: at most 1e6 as a factor */
}

double sb_model_mean_w(const sb_model *m, const sb_coefs *co, const sb_call *c, const double w[SB_NTERMS])
{
  if (!co) {
    double coef;
    return clamp(sb_call_flops(c) / m->reference_speed * (w ? w[sb_op_flop_term(c->op, &coef)] : 1));
  }
  const sb_piece *p = co->npieces ? piece_for(co, c) : NULL;
  const double *mu = p ? p->mu : co->mu;
  double v[SB_NTERMS], t = 0;
  terms(c, v);
  for (int i = 0; i < SB_NTERMS; i++)
    t += mu[i] * v[i] * (w ? w[i] : 1);
  return clamp(t * sb_model_ld_factor(&co->ld, c->ld, c->m));
}

double sb_model_mean(const sb_model *m, const sb_coefs *co, const sb_call *c) { return sb_model_mean_w(m, co, c, NULL); }

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
  return clamp(s * sb_model_ld_factor(&co->ld, c->ld, c->m));
}

/* ---- writing --------------------------------------------------------------- */
/* the fewest digits that read back to the same double */
static void put_number(FILE *f, double v)
{
  char buf[40];
  for (int prec = 1; prec <= 17; prec++) {
    snprintf(buf, sizeof buf, "%.*g", prec, v);
    if (strtod(buf, NULL) == v)
      break;
  }
  fputs(buf, f);
}

static void put_terms(FILE *f, const double *c, unsigned terms)
{
  for (int t = SB_NTERMS - 1; t >= 0; t--)
    if (terms & (1u << t)) {
      fprintf(f, " %s=", sb_term_names[t]);
      put_number(f, c[t]);
    }
}

static int finite_terms(const double *c, unsigned terms)
{
  for (int t = 0; t < SB_NTERMS; t++)
    if ((terms & (1u << t)) && !isfinite(c[t]))
      return 0;
  return 1;
}

/* what the parser would refuse in a line, or NULL */
static const char *bad_line(const sb_coefs *co)
{
  if (!co->terms)
    return "a line without terms";
  if (!finite_terms(co->mu, co->terms) || !finite_terms(co->sigma, co->sigma_terms))
    return "a coefficient that is not a finite number";
  if (co->npieces < 0 || co->npieces > SB_MAX_PIECES)
    return "too many pieces";
  for (int i = 0; i < co->npieces; i++) {
    const sb_piece *p = &co->piece[i];
    if (p->term < 1 || p->term >= SB_NTERMS || !(p->at >= 1) || !isfinite(p->at))
      return "a piece whose term or bound is not a size";
    if (!p->terms || !finite_terms(p->mu, p->terms) || !finite_terms(p->sigma, p->sigma_terms))
      return "a piece without terms, or with a coefficient that is not a finite number";
    for (int j = 0; j < i; j++)
      if (co->piece[j].at == p->at)
        return "two pieces at the same bound";
  }
  if (co->ld.n < 0 || co->ld.n > SB_MAX_LD)
    return "too many @ld points";
  for (int i = 0; i < co->ld.n; i++)
    if (!(co->ld.at[i] >= 1) || co->ld.at[i] > 2147483647.0 || !(co->ld.f[i] > 0) || co->ld.f[i] > 1e6 ||
        !(fabs(co->ld.g[i]) <= SB_LD_MAX_G) || (i && !(co->ld.at[i] > co->ld.at[i - 1])))
      return "an @ld point whose leading dimension is not an ascending size, whose factor is not > 0 or whose "
             "exponent of m is out of range";
  return NULL;
}

static const char *bad_text(const char *s) { return strpbrk(s, "\n#") ? "meta or quality text with '#' or a line break" : NULL; }

static void put_line(FILE *f, const char *key, const sb_coefs *co)
{
  fprintf(f, "%-10s", key);
  put_terms(f, co->mu, co->terms);
  if (co->sigma_terms) {
    fputs(" |", f);
    put_terms(f, co->sigma, co->sigma_terms);
  }
  fputc('\n', f);
  for (int i = 0; i < co->npieces; i++) {
    const sb_piece *p = &co->piece[i];
    fprintf(f, "%s[%s>=", key, sb_term_names[p->term]);
    put_number(f, p->at);
    fputc(']', f);
    put_terms(f, p->mu, p->terms);
    if (p->sigma_terms) {
      fputs(" |", f);
      put_terms(f, p->sigma, p->sigma_terms);
    }
    fputc('\n', f);
  }
  if (co->ld.n > 0) {
    fprintf(f, "%s@ld", key);
    for (int i = 0; i < co->ld.n; i++) {
      fputc(' ', f);
      put_number(f, co->ld.at[i]);
      fputc(':', f);
      put_number(f, co->ld.f[i]);
      if (co->ld.g[i] != 0) {
        fputc(':', f);
        put_number(f, co->ld.g[i]);
      }
    }
    fputc('\n', f);
  }
}

int sb_model_write(FILE *f, const sb_model *m, const char *comment, char *err, size_t errlen)
{
  const char *name = m->path && *m->path ? m->path : "model";
  if (!(m->reference_speed > 0) || !isfinite(m->reference_speed)) {
    seterr(err, errlen, name, 0, "cannot write a model without a positive reference speed");
    return -1;
  }
  for (int i = 0; i < m->nmeta + m->nquality; i++) {
    const char *why = bad_text(i < m->nmeta ? m->meta[i] : m->quality[i - m->nmeta]);
    if (why) {
      seterr(err, errlen, name, 0, "cannot write %s", why);
      return -1;
    }
  }
  for (int s = 0; s < m->nsets; s++)
    for (int k = 0; k < SB_NVARIANTS * SB_OP_COUNT; k++) {
      const sb_coefs *co = m->sets[s]->line[k];
      const char *why = co ? bad_line(co) : NULL;
      if (why) {
        seterr(err, errlen, name, 0, "cannot write %s in %s%s's line of set '%s'", why, sb_ops[k % SB_OP_COUNT].name,
               k >= SB_OP_COUNT ? SB_RIGHT_SUFFIX : "", m->sets[s]->name);
        return -1;
      }
    }
  fprintf(f, "simblas-model %d\n", m->version ? m->version : SIMBLAS_MODEL_FORMAT);
  for (const char *c = comment; c && *c;) {
    size_t len = strcspn(c, "\n");
    fprintf(f, "# %.*s\n", (int)len, c);
    c += len + (c[len] == '\n');
  }
  for (int i = 0; i < m->nmeta; i++)
    fprintf(f, "meta %s\n", m->meta[i]);
  fputs("reference-speed ", f);
  put_number(f, m->reference_speed);
  fputc('\n', f);
  for (int i = 0; i < m->nquality; i++)
    fprintf(f, "quality %s\n", m->quality[i]);
  for (int s = 0; s < m->nsets; s++) {
    fprintf(f, "set %s\n", m->sets[s]->name);
    /* each op's plain line, then its Right-side line */
    for (int op = 0; op < SB_OP_COUNT; op++)
      for (int v = 0; v < SB_NVARIANTS; v++) {
        const sb_coefs *co = m->sets[s]->line[(size_t)v * SB_OP_COUNT + (size_t)op];
        char key[64];
        snprintf(key, sizeof key, "%s%s", sb_ops[op].name, v ? SB_RIGHT_SUFFIX : "");
        if (co)
          put_line(f, key, co);
      }
  }
  fputs("end\n", f);
  if (fflush(f) != 0 || ferror(f)) {
    seterr(err, errlen, name, 0, "write error: %s", strerror(errno));
    return -1;
  }
  return 0;
}

/* ---- model files, written atomically ----------------------------------------- */
struct sb_model_out {
  int fd;
  char *path, *tmp; /* path: the file renamed over, a symbolic link's target */
  char *shown;      /* the path as given, in the errors */
  const char *what; /* the file's kind, in errors: "model" */
};

/* the output sb_model_out_guard guards (one at a time), and what its
 * signal handler does first */
static sb_model_out *volatile guarded;
static void (*volatile guard_first)(int);

/* DIR and BASE of PATH ("." for a bare name) */
static int split_path(const char *path, char **dir, const char **base)
{
  const char *slash = strrchr(path, '/');
  *base = slash ? slash + 1 : path;
  *dir = slash ? strndup(path, slash == path ? 1 : (size_t)(slash - path)) : strdup(".");
  return *dir ? 0 : -1;
}

/* remove the temporaries ".BASE.tmp.XXXXXX" of DIR that no writer holds
 * locked: a writer killed between its write and its rename left them */
static void remove_stale(const char *dir, const char *base)
{
  DIR *d = opendir(dir);
  if (!d)
    return;
  size_t blen = strlen(base);
  struct dirent *e;
  while ((e = readdir(d))) {
    const char *n = e->d_name;
    if (n[0] != '.' || strncmp(n + 1, base, blen) || strncmp(n + 1 + blen, ".tmp.", 5) || strlen(n + 6 + blen) != 6)
      continue;
    int fd = openat(dirfd(d), n, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0)
      continue;
    struct stat a, b;
    if (flock(fd, LOCK_EX | LOCK_NB) == 0 && fstat(fd, &a) == 0 && S_ISREG(a.st_mode) &&
        fstatat(dirfd(d), n, &b, AT_SYMLINK_NOFOLLOW) == 0 && a.st_ino == b.st_ino && a.st_dev == b.st_dev)
      unlinkat(dirfd(d), n, 0);
    close(fd);
  }
  closedir(d);
}

static void out_free(sb_model_out *o)
{
  if (guarded == o)
    guarded = NULL;
  if (o->fd >= 0)
    close(o->fd);
  free(o->path);
  free(o->tmp);
  free(o->shown);
  free(o);
}

void sb_model_out_abandon(sb_model_out *o)
{
  if (!o)
    return;
  unlink(o->tmp);
  out_free(o);
}

sb_model_out *sb_model_out_open(const char *path, size_t reserve, char *err, size_t errlen)
{
  return sb_model_out_open_as(path, "model", "simblas.model", "simblas-model", reserve, err, errlen);
}

/* the file a chain of symbolic links ends at (PATH itself when it is no
 * link), which may not exist: the model is written there, and the links
 * keep pointing at it; NULL with errno set */
static char *link_target(const char *path)
{
  char *cur = strdup(path);
  for (int hops = 0; cur; hops++) {
    struct stat st;
    if (lstat(cur, &st) != 0 || !S_ISLNK(st.st_mode))
      return cur;
    char to[4096];
    ssize_t n = hops < 40 ? readlink(cur, to, sizeof to - 1) : -1;
    if (n < 0) {
      if (hops >= 40)
        errno = ELOOP;
      free(cur);
      return NULL;
    }
    to[n] = 0;
    char *dir, *next = NULL;
    const char *base;
    if (to[0] == '/')
      next = strdup(to);
    else if (split_path(cur, &dir, &base) == 0) {
      if ((next = malloc(strlen(dir) + (size_t)n + 2)))
        sprintf(next, "%s/%s", dir, to);
      free(dir);
    }
    free(cur);
    cur = next;
  }
  errno = ENOMEM;
  return NULL;
}

/* 1 when the file at fd starts (after blank and comment lines) with the
 * word magic, as every file of its kind does; 0 when not; -1 when it
 * cannot be read.  Read as a stream, a block at a time: the first 4,095
 * bytes alone held no magic word after comment lines that long, and a
 * model of the kind was not replaced ("its first line is not ...") */
static int has_magic(int fd, const char *magic)
{
  char buf[4096];
  size_t len = strlen(magic), j = 0; /* j: bytes of the first word matched */
  int comment = 0;
  for (off_t at = 0;;) {
    ssize_t n = pread(fd, buf, sizeof buf, at);
    if (n < 0)
      return -1;
    if (n == 0)
      return j == len; /* the magic word, then the file's end */
    at += n;
    for (ssize_t i = 0; i < n; i++) {
      char c = buf[i];
      int space = c == ' ' || c == '\t' || c == '\r' || c == '\n';
      if (j == len)
        return space;
      if (j) {
        if (c != magic[j])
          return 0;
        j++;
      } else if (comment)
        comment = c != '\n';
      else if (c == '#')
        comment = 1;
      else if (!space) {
        if (c != magic[0])
          return 0;
        j = 1;
      }
    }
  }
}

/* an existing PATH (its link's target) that the output may replace: a
 * regular file, empty (nothing is lost: what mktemp makes) or of the
 * output's kind (magic); 0, or -1 with the reason in err */
static int replaceable(const char *shown, const char *target, const char *what, const char *magic, char *err,
                       size_t errlen)
{
  struct stat st;
  if (stat(target, &st) != 0)
    return 0; /* nothing there: written anew */
  if (!S_ISREG(st.st_mode)) {
    seterr(err, errlen, shown, 0, "exists and is no regular file; give the %s a file name", what);
    return -1;
  }
  if (!magic || st.st_size == 0)
    return 0;
  int fd = open(target, O_RDONLY | O_CLOEXEC | O_NONBLOCK), is = fd >= 0 ? has_magic(fd, magic) : -1;
  int e = errno;
  if (fd >= 0)
    close(fd);
  if (is < 0) {
    seterr(err, errlen, shown, 0, "exists and cannot be read to check that it is a %s (%s); give another name",
           what, strerror(e));
    return -1;
  }
  if (!is) {
    seterr(err, errlen, shown, 0, "exists and is not a SimBLAS %s (its first line is not '%s'), so it is not "
           "replaced; give another name, or remove the file first", what, magic);
    return -1;
  }
  return 0;
}

sb_model_out *sb_model_out_open_as(const char *path, const char *what, const char *name, const char *magic,
                                   size_t reserve, char *err, size_t errlen)
{
  struct stat st;
  char *dir = NULL, *target = NULL;
  const char *base;
  if (!*path) {
    seterr(err, errlen, "''", 0, "an empty name; give the %s a file name, e.g. %s", what, name);
    return NULL;
  }
  if ((stat(path, &st) == 0 && S_ISDIR(st.st_mode)) || path[strlen(path) - 1] == '/') {
    seterr(err, errlen, path, 0, "a directory; give a file name, e.g. %s%s%s", path,
           path[strlen(path) - 1] == '/' ? "" : "/", name);
    return NULL;
  }
  if (!(target = link_target(path))) {
    seterr(err, errlen, path, 0, "cannot follow its symbolic links: %s; give another name", strerror(errno));
    return NULL;
  }
  if (replaceable(path, target, what, magic, err, errlen) != 0) {
    free(target);
    return NULL;
  }
  sb_model_out *o = calloc(1, sizeof *o);
  if (o) {
    o->fd = -1;
    o->what = what;
    o->path = target;
    target = NULL;
  }
  if (!o || split_path(o->path, &dir, &base) != 0 || !(o->shown = strdup(path)) ||
      !(o->tmp = malloc(strlen(dir) + strlen(base) + 16))) {
    seterr(err, errlen, path, 0, "out of memory");
    free(target);
    goto fail;
  }
  sprintf(o->tmp, "%s/.%s.tmp.XXXXXX", dir, base);
  remove_stale(dir, base);
  for (int tries = 0; o->fd < 0; tries++) {
    strcpy(o->tmp + strlen(o->tmp) - 6, "XXXXXX");
    if ((o->fd = mkostemp(o->tmp, O_CLOEXEC)) < 0) {
      seterr(err, errlen, path, 0, "cannot write the %s into %s: %s; choose a writable place", what, dir,
             strerror(errno));
      goto fail;
    }
    /* held until the rename: another writer's remove_stale leaves it; one
     * that locked it in the moment before removed it, so try another */
    struct stat a, b;
    if (flock(o->fd, LOCK_EX) != 0 || fstat(o->fd, &a) != 0 || stat(o->tmp, &b) != 0 || a.st_ino != b.st_ino) {
      close(o->fd);
      o->fd = -1;
      if (tries == 8) {
        seterr(err, errlen, path, 0, "cannot lock a temporary file in %s; choose another place", dir);
        goto fail;
      }
    }
  }
  if (fchmod(o->fd, 0644) != 0) {
    seterr(err, errlen, path, 0, "cannot make the %s world-readable: %s", what, strerror(errno));
    goto fail_unlink;
  }
  if (reserve && sb_model_out_reserve(o, reserve, err, errlen) != 0)
    goto fail_unlink;
  free(dir);
  return o;
fail_unlink:
  unlink(o->tmp);
fail:
  free(dir);
  if (o)
    out_free(o);
  return NULL;
}

int sb_model_out_reserve(sb_model_out *o, size_t bytes, char *err, size_t errlen)
{
  int rc = posix_fallocate(o->fd, 0, (off_t)bytes);
  if (rc != ENOSPC && rc != EDQUOT && rc != EFBIG)
    return 0; /* done, or not possible on this filesystem: the write will say */
  char *dir;
  const char *base;
  struct statvfs vf;
  double mb = split_path(o->path, &dir, &base) == 0 && statvfs(dir, &vf) == 0
                  ? (double)vf.f_bavail * (double)vf.f_frsize / 1e6
                  : -1;
  seterr(err, errlen, o->shown, 0,
         "no room for the %s in %s: it needs up to %.1f MB, %.1f MB %s (%s); free some space there or choose "
         "another place",
         o->what, dir ? dir : ".", (double)bytes / 1e6, mb, rc == EFBIG ? "are allowed by 'ulimit -f'" : "are free",
         strerror(rc));
  free(dir);
  return -1;
}

int sb_model_out_commit(sb_model_out *o, const sb_model *m, const char *comment, char *err, size_t errlen)
{
  char *text = NULL;
  size_t len = 0;
  FILE *mem = open_memstream(&text, &len);
  if (!mem) {
    seterr(err, errlen, o->shown, 0, "out of memory");
    sb_model_out_abandon(o);
    return -1;
  }
  int bad = sb_model_write(mem, m, comment, err, errlen);
  fclose(mem);
  int rc = bad ? -1 : sb_model_out_commit_text(o, text, len, err, errlen);
  if (bad)
    sb_model_out_abandon(o);
  free(text);
  return rc;
}

int sb_model_out_commit_text(sb_model_out *o, const char *text, size_t len, char *err, size_t errlen)
{
  int rc = -1;
  /* no signal between writing and renaming: the old file or the new */
  sigset_t all, old;
  sigfillset(&all);
  sigprocmask(SIG_BLOCK, &all, &old);
  size_t done = 0;
  errno = 0;
  while (done < len) {
    ssize_t w = pwrite(o->fd, text + done, len - done, (off_t)done);
    if (w < 0 && errno == EINTR)
      continue;
    if (w <= 0)
      break;
    done += (size_t)w;
  }
  if (done < len || ftruncate(o->fd, (off_t)len) != 0 || fsync(o->fd) != 0 || rename(o->tmp, o->path) != 0) {
    seterr(err, errlen, o->shown, 0, "cannot write the %s: %s", o->what, strerror(errno ? errno : EIO));
    unlink(o->tmp);
  } else {
    char *dir;
    const char *base;
    if (split_path(o->path, &dir, &base) == 0) { /* the rename itself, on disk */
      int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
      if (dfd >= 0) {
        fsync(dfd);
        close(dfd);
      }
      free(dir);
    }
    rc = 0;
  }
  if (guarded == o) /* renamed or removed: a signal from now on has nothing to remove */
    guarded = NULL;
  sigprocmask(SIG_SETMASK, &old, NULL);
  out_free(o);
  return rc;
}

/* exit, or SIGINT, SIGTERM, SIGHUP: the guarded output's temporary removed */
static void drop_guarded(void)
{
  sb_model_out *o = guarded;
  guarded = NULL;
  if (o)
    unlink(o->tmp);
}

static void drop_guarded_signal(int sig)
{
  void (*first)(int) = guard_first;
  if (first)
    first(sig);
  drop_guarded();
  signal(sig, SIG_DFL);
  raise(sig); /* held until this handler returns: then the default action */
}

void sb_model_out_guard(sb_model_out *o, void (*on_signal)(int))
{
  static int registered;
  if (!registered && atexit(drop_guarded) == 0)
    registered = 1;
  guard_first = on_signal;
  guarded = o;
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = drop_guarded_signal;
  sigemptyset(&sa.sa_mask);
  sigaddset(&sa.sa_mask, SIGINT);
  sigaddset(&sa.sa_mask, SIGTERM);
  sigaddset(&sa.sa_mask, SIGHUP);
  sigaction(SIGINT, &sa, NULL);
  sigaction(SIGTERM, &sa, NULL);
  sigaction(SIGHUP, &sa, NULL);
}
