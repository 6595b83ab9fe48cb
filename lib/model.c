/*
 * model.c -- model-file parser and predictor.  The format is documented in
 * doc/model-format.md; the parser rejects anything it does not understand
 * with the file, the line and the remedy.
 */
#include <ctype.h>
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "model.h"
#include "simblas.h"

const char *const sb_term_names[SB_NTERMS] = {"1", "m", "n", "mn", "k", "mk", "nk", "mnk"};

/* no prediction exceeds this: about 3 million years */
#define SB_MAX_SECONDS 1e14

static int term_index(const char *s, size_t len)
{
  for (int t = 0; t < SB_NTERMS; t++)
    if (strlen(sb_term_names[t]) == len && !memcmp(s, sb_term_names[t], len))
      return t;
  return -1;
}

static void seterr(char *err, size_t len, const char *name, int line, const char *fmt, ...)
{
  va_list ap;
  int n = line > 0 ? snprintf(err, len, "%s:%d: ", name, line) : snprintf(err, len, "%s: ", name);
  if (n < 0 || (size_t)n >= len)
    return;
  va_start(ap, fmt);
  vsnprintf(err + n, len - (size_t)n, fmt, ap);
  va_end(ap);
}

void sb_model_free(sb_model *m)
{
  if (!m)
    return;
  for (int i = 0; i < m->nsets; i++)
    free(m->set_names[i]);
  free(m->set_names);
  free(m->coefs);
  free(m->path);
  free(m);
}

int sb_model_set(const sb_model *m, const char *name)
{
  for (int i = 0; i < m->nsets; i++)
    if (!strcmp(m->set_names[i], name))
      return i;
  return -1;
}

static int add_set(sb_model *m, const char *name)
{
  char **names = realloc(m->set_names, sizeof *names * (size_t)(m->nsets + 1));
  if (!names)
    return -1;
  m->set_names = names;
  const size_t per = (size_t)SB_NVARIANTS * SB_OP_COUNT;
  sb_coefs *co = realloc(m->coefs, sizeof *co * per * (size_t)(m->nsets + 1));
  if (!co)
    return -1;
  m->coefs = co;
  memset(co + (size_t)m->nsets * per, 0, sizeof *co * per);
  if (!(names[m->nsets] = strdup(name)))
    return -1;
  return m->nsets++;
}

/* "mnk=1.5e-11" pairs into coefs; returns 0 or sets err */
static int parse_terms(char **save, double *out, const char *fname, int line,
                       const char *routine, char *err, size_t errlen, int *any)
{
  char *tok;
  while ((tok = strtok_r(NULL, " \t", save))) {
    if (!strcmp(tok, "|")) /* "|" starts the sigma terms */
      return 1;
    char *eq = strchr(tok, '=');
    if (!eq) {
      seterr(err, errlen, fname, line,
             "'%s' in the line of %s is not TERM=COEFFICIENT; write e.g. mnk=2.1e-11", tok, routine);
      return -1;
    }
    int t = term_index(tok, (size_t)(eq - tok));
    if (t < 0) {
      seterr(err, errlen, fname, line,
             "unknown term '%.*s' for %s; the terms are 1 m n mn k mk nk mnk", (int)(eq - tok), tok, routine);
      return -1;
    }
    char *end;
    errno = 0;
    double v = strtod(eq + 1, &end);
    if (end == eq + 1 || *end || errno == ERANGE || !isfinite(v)) {
      seterr(err, errlen, fname, line, "coefficient '%s' of %s.%s is not a finite number", eq + 1, routine,
             sb_term_names[t]);
      return -1;
    }
    out[t] = v;
    *any = 1;
  }
  return 0;
}

sb_model *sb_model_parse(FILE *f, const char *name, char *err, size_t errlen)
{
  sb_model *m = calloc(1, sizeof *m);
  char *buf = NULL;
  size_t cap = 0;
  int line = 0, set = -1, ok = 0, ended = 0;
  if (!m || !(m->path = strdup(name)) || add_set(m, "node") != 0) {
    seterr(err, errlen, name, 0, "out of memory");
    goto out;
  }
  while (getline(&buf, &cap, f) >= 0) {
    line++;
    char *hash = strchr(buf, '#');
    if (hash)
      *hash = '\0';
    char *save = NULL, *key = strtok_r(buf, " \t\r\n", &save);
    if (!key)
      continue;
    if (ended) {
      seterr(err, errlen, name, line, "text after the 'end' line; remove it or regenerate the model");
      goto out;
    }
    /* the rest of the line, without the newline */
    char *rest = save ? save + strspn(save, " \t") : NULL;
    if (rest)
      rest[strcspn(rest, "\r\n")] = '\0';
    if (!m->version) {
      if (strcmp(key, "simblas-model")) {
        seterr(err, errlen, name, line,
               "not a SimBLAS model file (the first line must be 'simblas-model %d'); "
               "regenerate it with simblas-calibrate",
               SIMBLAS_MODEL_FORMAT);
        goto out;
      }
      char *end;
      long v = rest ? strtol(rest, &end, 10) : 0;
      if (!rest || end == rest || v < 1) {
        seterr(err, errlen, name, line, "'simblas-model' needs a format version number");
        goto out;
      }
      if (v > SIMBLAS_MODEL_FORMAT) {
        seterr(err, errlen, name, line,
               "model format %ld is newer than this libsimblas reads (%d); upgrade SimBLAS or recalibrate", v,
               SIMBLAS_MODEL_FORMAT);
        goto out;
      }
      m->version = (int)v;
      continue;
    }
    if (!strcmp(key, "end")) {
      ended = 1;
    } else if (!strcmp(key, "reference-speed")) {
      char *end;
      double v = rest ? strtod(rest, &end) : 0;
      if (!rest || end == rest || !(v > 0) || !isfinite(v)) {
        seterr(err, errlen, name, line, "reference-speed needs a positive number of flop/s, e.g. 1.6e10");
        goto out;
      }
      m->reference_speed = v;
    } else if (!strcmp(key, "meta") || !strcmp(key, "quality")) {
      /* metadata and calibration quality: for people and tools */
    } else if (!strcmp(key, "set")) {
      char *sname = strtok_r(NULL, " \t\r\n", &save);
      if (!sname) {
        seterr(err, errlen, name, line, "'set' needs a name, e.g. 'set node' or 'set core0'");
        goto out;
      }
      set = sb_model_set(m, sname);
      if (set < 0 && (set = add_set(m, sname)) < 0) {
        seterr(err, errlen, name, line, "out of memory");
        goto out;
      }
    } else {
      /* "dtrsm[m>=384]": a piece of dtrsm's model */
      char *br = strchr(key, '[');
      int pterm = -1;
      double at = 0;
      if (br) {
        char *ge = strstr(br, ">="), *end = NULL;
        if (ge) {
          pterm = term_index(br + 1, (size_t)(ge - br - 1));
          at = strtod(ge + 2, &end);
        }
        if (!ge || pterm < 1 || !end || strcmp(end, "]") || !(at >= 1)) {
          seterr(err, errlen, name, line,
                 "bad piece '%s'; write e.g. dtrsm[m>=384] or hpl_dlacpy[mn>=262144] (a term, >=, a size)", br);
          goto out;
        }
        *br = '\0';
      }
      int variant = 0, op = sb_model_key(key, &variant);
      if (op < 0) {
        seterr(err, errlen, name, line,
               "unknown routine '%s'; a line starts with a routine name (dgemm, ztrsm, ...) or one of "
               "reference-speed, meta, quality, set",
               key);
        goto out;
      }
      if (set < 0)
        set = 0;
      sb_coefs *co = &m->coefs[((size_t)set * SB_NVARIANTS + (size_t)variant) * SB_OP_COUNT + (size_t)op];
      if (br) {
        if (!co->present) {
          seterr(err, errlen, name, line, "piece %s[%s>=%g] before the plain %s line; put that line first", key,
                 sb_term_names[pterm], at, key);
          goto out;
        }
        if (co->npieces == SB_MAX_PIECES) {
          seterr(err, errlen, name, line, "more than %d pieces for %s", SB_MAX_PIECES, key);
          goto out;
        }
        sb_piece *pc = &co->piece[co->npieces];
        memset(pc, 0, sizeof *pc);
        pc->term = pterm;
        pc->at = at;
        int any = 0, rc = parse_terms(&save, pc->mu, name, line, key, err, errlen, &any);
        if (rc < 0)
          goto out;
        if (!any) {
          seterr(err, errlen, name, line, "%s[%s>=%g] has no TERM=COEFFICIENT pairs", key, sb_term_names[pterm], at);
          goto out;
        }
        if (rc == 1) {
          int anys = 0;
          if (parse_terms(&save, pc->sigma, name, line, key, err, errlen, &anys) != 0)
            goto out;
          pc->has_sigma = anys;
        }
        co->npieces++;
        continue;
      }
      if (co->present) {
        seterr(err, errlen, name, line, "second line for %s in set '%s'; keep one", key, m->set_names[set]);
        goto out;
      }
      memset(co, 0, sizeof *co);
      int any = 0, rc = parse_terms(&save, co->mu, name, line, key, err, errlen, &any);
      if (rc < 0)
        goto out;
      if (!any) {
        seterr(err, errlen, name, line, "%s has no TERM=COEFFICIENT pairs", key);
        goto out;
      }
      if (rc == 1) {
        int anys = 0;
        if (parse_terms(&save, co->sigma, name, line, key, err, errlen, &anys) != 0)
          goto out;
        co->has_sigma = (unsigned char)anys;
      }
      co->present = 1;
    }
  }
  if (ferror(f)) {
    seterr(err, errlen, name, 0, "read error: %s", strerror(errno));
    goto out;
  }
  if (!m->version) {
    seterr(err, errlen, name, 0, "empty model file (truncated?); regenerate it with simblas-calibrate");
    goto out;
  }
  if (!ended) {
    seterr(err, errlen, name, 0, "truncated model file: no 'end' line; regenerate it with simblas-calibrate");
    goto out;
  }
  if (!(m->reference_speed > 0)) {
    seterr(err, errlen, name, 0, "no 'reference-speed' line (truncated?); regenerate it with simblas-calibrate");
    goto out;
  }
  ok = 1;
out:
  free(buf);
  if (!ok) {
    sb_model_free(m);
    return NULL;
  }
  return m;
}

sb_model *sb_model_load(const char *path, char *err, size_t errlen)
{
  FILE *f = fopen(path, "r");
  if (!f) {
    seterr(err, errlen, path, 0, "cannot open model file: %s; run 'make calibrate' or set SIMBLAS_MODEL", strerror(errno));
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

static const sb_coefs *lookup(const sb_model *m, int set, int op, int variant)
{
  const sb_coefs *co = &m->coefs[((size_t)set * SB_NVARIANTS + (size_t)variant) * SB_OP_COUNT + (size_t)op];
  return co->present ? co : NULL;
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
  return t < SB_MAX_SECONDS ? t : SB_MAX_SECONDS;
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
  if (p ? !p->has_sigma : !co->has_sigma)
    return 0;
  const double *sg = p ? p->sigma : co->sigma;
  double v[SB_NTERMS], s = 0;
  terms(c, v);
  for (int i = 0; i < SB_NTERMS; i++)
    s += sg[i] * v[i];
  return clamp(s);
}
