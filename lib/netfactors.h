/*
 * netfactors.h -- SMPI's piecewise network factors (smpi/lat-factor,
 * smpi/bw-factor: "threshold:value;..."), parsed and looked up as SimGrid
 * does: a message of SIZE bytes gets the value of the largest threshold
 * <= SIZE.  Pure C, for simblas_message_time (lib/app/msgtime.c).
 */
#ifndef SB_NETFACTORS_H
#define SB_NETFACTORS_H

#include "sb_call.h" /* SB_HIDDEN */

#define SB_MAX_FACTORS 32
typedef struct {
  int n;
  double at[SB_MAX_FACTORS], value[SB_MAX_FACTORS]; /* thresholds, decreasing */
} sb_factors;

/* SimGrid 3.32's defaults */
extern const char sb_default_lat_factor[] SB_HIDDEN, sb_default_bw_factor[] SB_HIDDEN;

/* 0 when TEXT is a valid list (stored in F, thresholds sorted
 * decreasing), -1 otherwise */
SB_HIDDEN int sb_factors_parse(const char *text, sb_factors *f);
/* the factor of a message of SIZE bytes (1 below every threshold) */
SB_HIDDEN double sb_factors_at(const sb_factors *f, double size);

#endif
