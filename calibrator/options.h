/*
 * options.h -- simblas-calibrate's options (options.c), parsed once by
 * cal_parse_options and read by the driver (calibrate.c).
 */
#ifndef SB_CAL_OPTIONS_H
#define SB_CAL_OPTIONS_H

#include <stdint.h>

typedef struct cal_options {
  const char *out, *summary, *blas, *routines, *base, *hostfile;
  int quick, cores, reps, report, packed, force, mixed, unanchored, from_trace, network, reference, ld_rounds, solo_rounds;
  double budget, max_call, lld;
  uint64_t seed;
  double time_scale; /* --from-trace: the traced times multiplied by it (0: not given) */
} cal_options;

extern cal_options cal_opt;

/* argv into cal_opt, every default set; one line and exit 2 on anything
 * wrong; the operands start at getopt's optind */
void cal_parse_options(int argc, char **argv);

#endif
