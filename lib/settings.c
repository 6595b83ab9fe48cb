/*
 * settings.c -- every SIMBLAS_* variable libsimblas reads, parsed and
 * checked once, in one place (settings.def, settings.h); the calibrator's
 * rows parsed by the same parsers (sb_settings_load_row).  In libsbcore.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include <ctype.h>
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "die.h"
#include "sb_rt.h"
#include "settings.h"

sb_settings sb_cfg;

const sb_setting_row sb_setting_rows[] = {
#define SB_SETTING(NAME, field, TYPE, LO, HI, DEFAULT, USERS, OPTION, VALUES, ACCEPTS, HELP)                      \
  {NAME, #TYPE, LO, HI, DEFAULT, USERS, OPTION, VALUES, ACCEPTS, HELP},
#include "settings.def"
#undef SB_SETTING
};
const int sb_setting_count = (int)(sizeof sb_setting_rows / sizeof *sb_setting_rows);

const sb_setting_need sb_setting_needs[] = {
#define SB_SETTING(...)
#define SB_NEEDS(NAME, ABOVE, NEEDS, WHY) {NAME, ABOVE, NEEDS, WHY},
#include "settings.def"
#undef SB_NEEDS
#undef SB_SETTING
};
const int sb_setting_need_count = (int)(sizeof sb_setting_needs / sizeof *sb_setting_needs);

int sb_fatal_called;

_Noreturn void sb_fatal(const char *fmt, ...)
{
  sb_fatal_called = 1;
  va_list ap;
  va_start(ap, fmt);
  sb_vdie("simblas", fmt, ap);
}

/* the value a row takes: the variable when set and not empty, else its
 * default; *given the variable (NULL: unset) */
static const char *value_of(const sb_setting_row *row, const char **given)
{
  const char *v = getenv(row->name);
  *given = v && *v ? v : NULL;
  return *given ? *given : row->dflt;
}

static _Noreturn void refuse(const sb_setting_row *row, const char *v)
{
  sb_fatal("%s='%s' is not %s", row->name, v, row->accepts);
}

/* ---- one parser per type: 0, or -1 when V is not a value of it -------------- */
/* strtol, strtoull and strtod skip leading white space, and strtod reads
 * hexadecimal: ' 5', ' 64M' and '0x10' (16 seconds) were taken, which
 * simblas-hpl (settings.py's parse) refuses; a number starts with a sign or
 * a digit (or is inf), and only UINT reads 0x */
static int plain_number(const char *v, int hex_ok)
{
  if (!*v || isspace((unsigned char)*v))
    return 0;
  return hex_ok || !strpbrk(v, "xX");
}


static int parse_TEXT(const sb_setting_row *row, const char *v, const char **out)
{
  (void)row;
  *out = *v ? v : NULL;
  return 0;
}

static int parse_ENUM(const sb_setting_row *row, const char *v, int *out)
{
  size_t n = strlen(v);
  int i = 0;
  for (const char *p = row->values; *p; i++) {
    const char *bar = strchr(p, '|');
    size_t len = bar ? (size_t)(bar - p) : strlen(p);
    if (len == n && !strncmp(p, v, n)) {
      *out = i;
      return 0;
    }
    p += len + (bar != NULL);
  }
  return -1;
}

static int parse_FLAG(const sb_setting_row *row, const char *v, int *out)
{
  (void)row;
  if ((v[0] != '0' && v[0] != '1') || v[1])
    return -1;
  *out = v[0] == '1';
  return 0;
}

static int parse_COUNT(const sb_setting_row *row, const char *v, long *out)
{
  if (!*v) { /* no default: 0 */
    *out = 0;
    return 0;
  }
  char *end;
  errno = 0;
  if (!plain_number(v, 0))
    return -1;
  long x = strtol(v, &end, 10);
  if (*end || end == v || errno || !((double)x >= row->lo && (double)x <= row->hi))
    return -1;
  *out = x;
  return 0;
}

static int parse_UINT(const sb_setting_row *row, const char *v, uint64_t *out)
{
  (void)row;
  char *end;
  errno = 0;
  if (!plain_number(v, 1) || *v == '-' || *v == '+')
    return -1;
  /* decimal (a leading 0 too: not octal, as the help says) or 0x hexadecimal */
  int hex = v[0] == '0' && (v[1] == 'x' || v[1] == 'X');
  unsigned long long x = strtoull(v, &end, hex ? 16 : 10);
  if (*end || end == v || errno)
    return -1;
  *out = x;
  return 0;
}

static int parse_REAL(const sb_setting_row *row, const char *v, double *out)
{
  char *end;
  double x = plain_number(v, 0) ? strtod(v, &end) : NAN;
  if (isnan(x) || *end || end == v || !(x >= row->lo && x <= row->hi))
    return -1;
  *out = x;
  return 0;
}

static int parse_BYTES(const sb_setting_row *row, const char *v, size_t *out)
{
  (void)row;
  char *end;
  if (!plain_number(v, 0))
    return -1;
  double x = strtod(v, &end);
  if (end == v)
    return -1;
  switch (*end) {
  case 'k': case 'K': x *= 1024; end++; break;
  case 'm': case 'M': x *= 1024 * 1024; end++; break;
  case 'g': case 'G': x *= 1024.0 * 1024 * 1024; end++; break;
  }
  if (*end || !(x > 0 && x < 0x1p62))
    return -1;
  *out = (size_t)x;
  return 0;
}

static int parse_FACTORS(const sb_setting_row *row, const char *v, sb_factors *out)
{
  (void)row;
  return sb_factors_parse(v, out);
}

/* ---- what the values need of each other (settings.def's SB_NEEDS rows) --------- */
size_t sb_need_next(const char **p, const char **item, size_t *eq)
{
  *p += strspn(*p, " ");
  *item = *p;
  size_t len = strcspn(*p, " ");
  *eq = strcspn(*item, "=>");
  if (*eq > len)
    *eq = len;
  *p += len;
  return len;
}

const char *sb_needs_said(const char *needs, char *out, size_t outlen)
{
  const char *p = needs, *item;
  size_t len, eq, at = 0;
  out[0] = '\0';
  while ((len = sb_need_next(&p, &item, &eq)) && at < outlen) {
    const char *sep = !at ? "" : p[strspn(p, " ")] ? ", " : " and ";
    int w = snprintf(out + at, outlen - at, "%s%.*s", sep, (int)len, item);
    at += w > 0 ? (size_t)w : 0;
  }
  return out;
}

/* the value a variable takes, as text (NULL: no such row); *GIVEN, if
 * GIVEN, as value_of sets it */
static const char *value_named(const char *name, const char **given)
{
  const char *unused;
  for (int i = 0; i < sb_setting_count; i++)
    if (!strcmp(sb_setting_rows[i].name, name))
      return value_of(&sb_setting_rows[i], given ? given : &unused);
  return NULL;
}

/* whether HAVE, a variable's value, is what WANT ("=VALUE" or ">X", LEN
 * characters of an item) asks; in OUT, what to set the variable to */
static int need_met(const char *have, const char *want, size_t len, char *out, size_t outlen)
{
  char x[128];
  snprintf(x, sizeof x, "%.*s", (int)len - 1, want + 1);
  if (*want == '=') {
    snprintf(out, outlen, "=%s", x);
    return have && !strcmp(have, x);
  }
  const char *named = value_named(x, NULL); /* X a variable's name: its value */
  double than = strtod(named ? named : x, NULL);
  snprintf(out, outlen, " above %g", than);
  return have && strtod(have, NULL) > than;
}

static void check_needs(void)
{
  for (int i = 0; i < sb_setting_need_count; i++) {
    const sb_setting_need *r = &sb_setting_needs[i];
    const char *given = NULL, *v = value_named(r->name, &given), *p = r->needs, *item;
    if (!given || strtod(v, NULL) <= r->above)
      continue;
    size_t len, eq;
    while ((len = sb_need_next(&p, &item, &eq))) {
      char var[128], said[512], to[160] = "", is[160] = "unset";
      snprintf(var, sizeof var, "%.*s", (int)eq, item);
      const char *have = value_named(var, NULL);
      if (eq < len && need_met(have, item + eq, len - eq, to, sizeof to))
        continue;
      if (have && *have)
        snprintf(is, sizeof is, "'%s'", have);
      sb_fatal("%s=%s %s, which needs %s (%s is %s); set %s%s, or unset %s", r->name, v, r->why,
               sb_needs_said(r->needs, said, sizeof said), var, is, var, to, r->name);
    }
  }
}

/* ---- what the values imply together ------------------------------------------- */
static void derive(void)
{
  sb_settings *s = &sb_cfg;
  int smpi = s->mode == SB_MODE_SMPI;
  s->merge = smpi && s->merge;
  if (s->poll_max < s->poll_cost)
    s->poll_max = s->poll_cost;
  /* A wait owed (a thinned pivot exchange, a merged roll: simblas_idle) is
   * slept, then the BLAS time executed: two simulator events.  When every
   * rank has a core of its own, executing the two as one ends at the same
   * time (nothing else competes for the core) and is one event; only the
   * energy tells idle from busy.  simblas-hpl sets it for one rank per
   * core without --energy. */
  s->pivot_defer = s->pivot_defer && s->idle_merge;
  if (s->given.iterations && s->iterations == 0)
    s->iterations = -1; /* allocate only: every pass stops at once */
  /* SIMBLAS_SAMPLES and SIMBLAS_SAMPLE_ONLY need SIMBLAS_ITERATIONS > 0,
   * and SIMBLAS_SAMPLE_ONLY is below SIMBLAS_SAMPLES: settings.def's
   * SB_NEEDS rows, checked before (check_needs) */
  if (s->roll_merge == 0 || s->roll_merge > 1 << 20)
    s->roll_merge = 1 << 20; /* a whole roll */
}

/* a SIMBLAS_* variable that is no row is a typo, most likely: say so */
static void warn_unknown(void)
{
  extern char **environ;
  for (char **e = environ; e && *e; e++) {
    if (strncmp(*e, "SIMBLAS_", 8))
      continue;
    size_t n = strcspn(*e, "=");
    int known = 0;
    for (int i = 0; i < sb_setting_count && !known; i++)
      known = strlen(sb_setting_rows[i].name) == n && !strncmp(sb_setting_rows[i].name, *e, n);
    if (!known)
      fprintf(stderr, "simblas: warning: %.*s is not a SimBLAS setting and is ignored (doc/settings.md lists them)\n",
              (int)n, *e);
  }
}

/* ---- one row read: its variable, by its type's parser ------------------------- */
#define SB_SETTING(NAME, field, TYPE, ...)                                                                         \
  static void load_##field(const sb_setting_row *row)                                                              \
  {                                                                                                                \
    const char *v = value_of(row, &sb_cfg.given.field);                                                            \
    if (parse_##TYPE(row, v, &sb_cfg.field))                                                                       \
      refuse(row, v);                                                                                              \
  }
#include "settings.def"
#undef SB_SETTING

static void (*const load_fn[SB_ROW_COUNT])(const sb_setting_row *row) = {
#define SB_SETTING(NAME, field, ...) load_##field,
#include "settings.def"
#undef SB_SETTING
};

void sb_settings_load_row(int row) { load_fn[row](&sb_setting_rows[row]); }

static void load(void)
{
  for (int i = 0; i < SB_ROW_COUNT; i++)
    sb_settings_load_row(i);
  check_needs();
  derive();
  warn_unknown();
}

static pthread_once_t load_once = PTHREAD_ONCE_INIT;

void sb_settings_load(void) { pthread_once(&load_once, load); }
