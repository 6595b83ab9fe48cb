/*
 * netfactors.c -- SMPI's piecewise network factors (netfactors.h).
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "netfactors.h"

const char sb_default_lat_factor[] = SB_DEFAULT_LAT_FACTOR;
const char sb_default_bw_factor[] = SB_DEFAULT_BW_FACTOR;

/* 0 when TEXT is a valid factor list (stored in F, thresholds sorted
 * decreasing), -1 otherwise */
int sb_factors_parse(const char *text, sb_factors *f)
{
  f->n = 0;
  const char *p = text;
  /* strtod skips white space and reads inf and hexadecimal, which SMPI's
   * lists (and simblas-hpl's check, settings.py) have not */
  if (text[strspn(text, "0123456789.eE+-:;")])
    return -1;
  while (*p) {
    char *end;
    errno = 0;
    double at = strtod(p, &end);
    if (end == p || *end != ':' || errno || at < 0 || f->n == SB_MAX_FACTORS)
      return -1;
    p = end + 1;
    double v = strtod(p, &end);
    if (end == p || errno || !(v > 0))
      return -1;
    int i = f->n++;
    while (i > 0 && f->at[i - 1] < at) { /* insertion: decreasing thresholds */
      f->at[i] = f->at[i - 1];
      f->value[i] = f->value[i - 1];
      i--;
    }
    f->at[i] = at;
    f->value[i] = v;
    p = end;
    if (*p == ';')
      p++;
    else if (*p)
      return -1;
  }
  return f->n ? 0 : -1;
}

/* the factor of a message of SIZE bytes: the value of the largest
 * threshold <= SIZE (1 below every threshold) */
double sb_factors_at(const sb_factors *f, double size)
{
  for (int i = 0; i < f->n; i++)
    if (size >= f->at[i])
      return f->value[i];
  return 1;
}

