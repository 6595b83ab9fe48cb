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
#define SB_DEFAULT_LAT_FACTOR                                                  \
  "65472:11.6436;15424:3.48845;9376:2.59299;5776:2.18796;3484:1.88101;"        \
  "1426:1.61075;732:1.9503;257:1.95341;0:2.01467"
#define SB_DEFAULT_BW_FACTOR                                                   \
  "65472:0.940694;15424:0.697866;9376:0.58729;5776:1.08739;3484:0.77493;"      \
  "1426:0.608902;732:0.341987;257:0.338112;0:0.812084"
extern const char sb_default_lat_factor[] SB_HIDDEN, sb_default_bw_factor[] SB_HIDDEN;

/* 0 when TEXT is a valid list (stored in F, thresholds sorted
 * decreasing), -1 otherwise */
SB_HIDDEN int sb_factors_parse(const char *text, sb_factors *f);
/* the factor of a message of SIZE bytes (1 below every threshold) */
SB_HIDDEN double sb_factors_at(const sb_factors *f, double size);

#endif
