/*
 * options.c -- simblas-calibrate's command line: the usage, each option
 * parsed whole and range-checked, the modes' exclusions (an option the
 * mode does nothing with is refused, not ignored) and the defaults that
 * depend on --quick.  Every refusal is one line, exit status 2 (cal_die),
 * before anything is measured.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include <ctype.h>
#include <getopt.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "measure.h"
#include "options.h"

#ifndef SB_CALIBRATION_BLAS
#define SB_CALIBRATION_BLAS "libopenblas.so.0"
#endif

cal_options cal_opt = {.report = 1, .seed = 1, .ld_rounds = -1, .solo_rounds = -1};

static void usage(FILE *f)
{
  fprintf(f, "usage: simblas-calibrate [--quick] [-o MODEL] [options]\n"
              "       simblas-calibrate --from-trace [--base MODEL] -o MODEL TRACE.csv...\n"
              "       simblas-calibrate --summary MODEL\n"
              "       simblas-calibrate --network [--hostfile FILE] [-o NETWORK]\n"
              "       simblas-calibrate --reference-speed [MODEL]\n"
              "Measures this machine's BLAS and writes a SimBLAS model file; with --network, its MPI's messages.\n"
              "  -o, --output FILE     model to write (default: ./simblas.model); written atomically\n"
              "  -q, --quick           short run (one to two minutes on a 2-core VM) for CI and demos\n"
              "      --budget SEC      measuring time per core, 0.1 to 86400 (default 480; quick 30)\n"
              "      --max-call SEC    longest single call to draw, 0.001 to 10 (default 0.25; quick 0.05)\n"
              "      --reps N          timed repetitions per point, 2 to 1000 (default 5; quick 3)\n"
              "      --cores N         workers, one pinned per core, 1 to 4096 (default: all cores)\n"
              "      --routines LIST   only these ops, comma-separated (e.g. dgemm,dtrsm)\n"
              "      --blas LIB        the real BLAS to measure (default %s)\n"
              "      --seed N          experiment seed, decimal, 0 to 2^64-1 (default 1)\n"
              "      --lld N           leading dimension of HPL's local matrix, 1024 to 1048576 (default: HPL's local rows\n"
              "                        when its matrix fills 80%% of this machine's memory)\n"
              "      --ld-pairs N      rounds of dgemm's leading-dimension pairs (default 11; quick: none, as\n"
              "                        with 0: dgemm's line then holds at every leading dimension)\n"
              "      --solo-rounds N   rounds of the solo pairs: dgemm and HPL's row interchanges on one core\n"
              "                        alone against every core busy (default 9; quick 5; 0: none: no meta\n"
              "                        solo_speed: a host with idle cores then runs as a busy one)\n"
              "      --packed          HPL's dgemm and dtrsm on packed operands in the caches, not in\n"
              "                        HPL's layout (the calibrator before issue 23; for comparisons)\n"
              "      --mixed-order     each pass in one random order, not level 3 first (for comparisons)\n"
              "      --unanchored      dgemm's lines as fitted, not scaled to the reference speed measured\n"
              "                        at its shape (the calibrator before 2026-11-29; for comparisons)\n"
              "      --no-report       no gnuplot figures\n"
              "      --force           install the model even when other processes took more than 5%% of\n"
              "                        the timed calls' wall time (refused otherwise, the model kept aside)\n"
              "      --summary MODEL   check a model as libsimblas reads it and print its quality figures\n"
              "      --from-trace      refit the routines an application called from its trace-mode runs\n"
              "                        (SIMBLAS_MODE=trace CSV files, the arguments) and write the model\n"
              "      --base MODEL      the model --from-trace refines (default: -o's, when it exists)\n"
              "      --time-scale F    with --from-trace: multiply the traced times by F (0.5 to 2) before the\n"
              "                        refit: the machine's reference speed during the traced runs over the\n"
              "                        base model's, so that the refit stays at the base model's speed\n"
              "                        (simblas-hpl refine gives it; meta trace_time_scale records it)\n"
              "      --network         ping-pong and collectives with the real MPI (Open MPI's mpirun): fit SMPI's\n"
              "                        lat/bw factors and the intra-node link; write the network file that\n"
              "                        simblas-hpl run --network reads (-o, default ./simblas.network)\n"
              "      --hostfile FILE   with --network: also the interconnect, between the first two hosts of FILE\n"
              "                        (passwordless ssh to each)\n"
              "      --reference-speed only the reference speed, as a calibration measures it (its dgemm calls,\n"
              "                        all cores at once, --reps 3 by default; a few seconds), printed as JSON;\n"
              "                        with MODEL, at the shape and layout of MODEL's (its meta reference_speed)\n"
              "Refused in one line with exit status 2, before anything is measured: a number that is not whole or\n"
              "out of its range (no rounding), an unknown option or one without its value, an option the mode does\n"
              "nothing with, an empty --routines or -o, an -o that exists and is no model file (it is not replaced)\n"
              "or that is also an input (a trace, under any name or link), a --blas library without dgemm_. An -o\n"
              "that is a symbolic link is written through. Interrupted (SIGINT, SIGTERM), nothing is installed and\n"
              "the model there stays as it was.\n",
          SB_CALIBRATION_BLAS);
}

static double parse_pos(const char *o, const char *v)
{
  char *e;
  double d = strtod(v, &e);
  if (e == v || *e || !(d > 0) || !isfinite(d))
    cal_die("%s needs a positive number, not '%s'", o, v);
  return d;
}

/* a number from lo to hi (unit: what it counts, with the range's words),
 * the whole of v */
static double parse_range(const char *o, const char *v, double lo, double hi, const char *unit)
{
  char *e;
  double d = strtod(v, &e);
  if (e == v || *e || isspace((unsigned char)*v) || !(d >= lo && d <= hi))
    cal_die("%s needs %s, not '%s'", o, unit, v);
  return d;
}

/* a whole number from lo to hi, the whole of v in decimal digits: 2.9,
 * 1e10, 0x10 or abc are refused, not cut to a number */
static unsigned long long parse_whole(const char *o, const char *v, unsigned long long lo, unsigned long long hi,
                                      const char *unit)
{
  char *e;
  errno = 0;
  unsigned long long n = strtoull(v, &e, 10);
  if (!isdigit((unsigned char)*v) || *e || errno || n < lo || n > hi)
    cal_die("%s needs a whole number %s from %llu to %llu, not '%s'", o, unit, lo, hi, v);
  return n;
}

/* a number of rounds, 0 (none) to 1000 */
static int parse_rounds(const char *o, const char *v)
{
  char *e;
  errno = 0;
  long n = strtol(v, &e, 10);
  if (!isdigit((unsigned char)*v) || *e || errno || n < 0 || n > 1000)
    cal_die("%s needs a whole number of rounds from 0 (none) to 1000, not '%s'", o, v);
  return (int)n;
}

/* what each option does something in: the calibration, --summary,
 * --from-trace, --network, --reference-speed; any other is refused, not
 * ignored */
enum { IN_CAL = 1, IN_SUMMARY = 2, IN_TRACE = 4, IN_NETWORK = 8, IN_REFERENCE = 16 };
static const struct {
  int val, modes;
} option_modes[] = {
    {'o', IN_CAL | IN_TRACE | IN_NETWORK | IN_REFERENCE}, /* --reference-speed -o: its own message */
    {'q', IN_CAL | IN_REFERENCE}, {'b', IN_CAL}, {'M', IN_CAL | IN_REFERENCE}, {'r', IN_CAL | IN_REFERENCE},
    {'c', IN_CAL | IN_REFERENCE}, {'R', IN_CAL}, {'B', IN_CAL | IN_REFERENCE}, {'s', IN_CAL | IN_TRACE | IN_REFERENCE},
    {'N', IN_CAL}, {'S', IN_SUMMARY}, {'L', IN_CAL | IN_REFERENCE}, {'P', IN_CAL | IN_REFERENCE}, {'F', IN_CAL},
    {'X', IN_CAL}, {'U', IN_CAL}, {'D', IN_CAL}, {'O', IN_CAL}, {'T', IN_TRACE}, {'A', IN_TRACE},
    {'W', IN_NETWORK}, {'H', IN_NETWORK}, {'V', IN_REFERENCE}, {'K', IN_TRACE}};

void cal_parse_options(int argc, char **argv)
{
  static const struct option lo[] = {
      {"output", required_argument, 0, 'o'}, {"quick", no_argument, 0, 'q'},
      {"budget", required_argument, 0, 'b'}, {"max-call", required_argument, 0, 'M'},
      {"reps", required_argument, 0, 'r'},   {"cores", required_argument, 0, 'c'},
      {"routines", required_argument, 0, 'R'}, {"blas", required_argument, 0, 'B'},
      {"seed", required_argument, 0, 's'},   {"no-report", no_argument, 0, 'N'},
      {"summary", required_argument, 0, 'S'}, {"help", no_argument, 0, 'h'},
      {"lld", required_argument, 0, 'L'},    {"packed", no_argument, 0, 'P'},
      {"force", no_argument, 0, 'F'},        {"mixed-order", no_argument, 0, 'X'},
      {"unanchored", no_argument, 0, 'U'},   {"ld-pairs", required_argument, 0, 'D'},
      {"solo-rounds", required_argument, 0, 'O'},
      {"from-trace", no_argument, 0, 'T'},   {"base", required_argument, 0, 'A'},
      {"network", no_argument, 0, 'W'},      {"hostfile", required_argument, 0, 'H'},
      {"reference-speed", no_argument, 0, 'V'}, {"time-scale", required_argument, 0, 'K'}, {0, 0, 0, 0}};
  int c, seen[128] = {0};
  opterr = 0;
  while ((c = getopt_long(argc, argv, ":o:qh", lo, NULL)) != -1) {
    if (c > 0 && c < 128)
      seen[c] = 1;
    switch (c) {
    case 'o': cal_opt.out = optarg; break;
    case 'q': cal_opt.quick = 1; break;
    case 'b': cal_opt.budget = parse_range("--budget", optarg, 0.1, 86400, "seconds per core from 0.1 to 86400 (a day)"); break;
    case 'M': cal_opt.max_call = parse_range("--max-call", optarg, 0.001, 10, "seconds from 0.001 to 10"); break;
    case 'r': cal_opt.reps = (int)parse_whole("--reps", optarg, 2, 1000, "of repetitions"); break;
    case 'c': cal_opt.cores = (int)parse_whole("--cores", optarg, 1, 4096, "of cores"); break;
    case 'R':
      if (!optarg[strspn(optarg, ", ")])
        cal_die("--routines '%s' names no routine: give some, comma-separated (e.g. dgemm,dtrsm), or leave it out "
                "for all", optarg);
      cal_opt.routines = optarg;
      break;
    case 'B': cal_opt.blas = optarg; break;
    case 's': cal_opt.seed = parse_whole("--seed", optarg, 0, UINT64_MAX, "(decimal)"); break;
    case 'N': cal_opt.report = 0; break;
    case 'S': cal_opt.summary = optarg; break;
    case 'L': cal_opt.lld = (double)parse_whole("--lld", optarg, 1024, 1 << 20, "of rows"); break;
    case 'P': cal_opt.packed = 1; break;
    case 'F': cal_opt.force = 1; break;
    case 'X': cal_opt.mixed = 1; break;
    case 'U': cal_opt.unanchored = 1; break;
    case 'D': cal_opt.ld_rounds = parse_rounds("--ld-pairs", optarg); break;
    case 'O': cal_opt.solo_rounds = parse_rounds("--solo-rounds", optarg); break;
    case 'T': cal_opt.from_trace = 1; break;
    case 'A': cal_opt.base = optarg; break;
    case 'W': cal_opt.network = 1; break;
    case 'H': cal_opt.hostfile = optarg; break;
    case 'V': cal_opt.reference = 1; break;
    case 'K':
      cal_opt.time_scale = parse_pos("--time-scale", optarg);
      if (cal_opt.time_scale < 0.5 || cal_opt.time_scale > 2)
        cal_die("--time-scale %s: outside 0.5 to 2, a machine twice as fast or slow as the base model's; the traces "
                "were not made on the machine it was calibrated on: calibrate there (make calibrate)", optarg);
      break;
    case 'h': usage(stdout); exit(0);
    case ':': /* one line, as every refusal: --help has the usage */
      cal_die("%s needs a value (simblas-calibrate --help lists the options)", argv[optind - 1]);
    default:
      if (optopt > 0 && optopt < 128 && strncmp(argv[optind - 1], "--", 2))
        cal_die("unknown option '-%c' (simblas-calibrate --help lists the options)", optopt);
      cal_die("unknown or incomplete option '%s' (simblas-calibrate --help lists the options)", argv[optind - 1]);
    }
  }
  if (cal_opt.reference && (cal_opt.from_trace || cal_opt.network || cal_opt.summary || cal_opt.out))
    cal_die("--reference-speed measures and prints, and writes no file: run it on its own "
            "(simblas-calibrate --reference-speed [MODEL])");
  if (cal_opt.reference && argc - optind > 1)
    cal_die("--reference-speed takes one MODEL at most (the model whose reference speed to measure again)");
  if (optind < argc && !cal_opt.from_trace && !cal_opt.reference)
    cal_die("unexpected argument '%s' (see --help)", argv[optind]);
  if (cal_opt.from_trace && optind == argc)
    cal_die("--from-trace needs the trace files: simblas-calibrate --from-trace [--base MODEL] -o MODEL TRACE.csv...");
  if (cal_opt.time_scale > 0 && !cal_opt.from_trace)
    cal_die("--time-scale F scales the traced times --from-trace refits: add --from-trace and the trace files");
  if (cal_opt.base && !cal_opt.from_trace)
    cal_die("--base MODEL is the model --from-trace refines: add --from-trace and the trace files");
  if (cal_opt.network && (cal_opt.from_trace || cal_opt.summary))
    cal_die("--network measures the MPI, not the BLAS: run it on its own (simblas-calibrate --network [-o FILE])");
  if (cal_opt.hostfile && !cal_opt.network)
    cal_die("--hostfile FILE names the hosts of --network's interconnect ping-pong: add --network");
  int mode = cal_opt.summary ? IN_SUMMARY : cal_opt.from_trace ? IN_TRACE : cal_opt.network ? IN_NETWORK
           : cal_opt.reference ? IN_REFERENCE : IN_CAL;
  const char *mode_said = mode == IN_SUMMARY ? "--summary, which only reads MODEL"
                          : mode == IN_TRACE ? "--from-trace, which refits a model on the traced calls"
                          : mode == IN_NETWORK ? "--network, which measures the MPI"
                                               : "--reference-speed, which measures only dgemm's reference calls";
  for (size_t i = 0; i < sizeof option_modes / sizeof *option_modes; i++)
    if (seen[option_modes[i].val] && !(option_modes[i].modes & mode)) {
      const char *name = "?";
      for (const struct option *l = lo; l->name; l++)
        if (l->val == option_modes[i].val)
          name = l->name;
      cal_die("%s%s does nothing with %s: leave it out", option_modes[i].val == 'o' ? "-o, --" : "--", name,
              mode_said);
    }
  if (!cal_opt.out)
    cal_opt.out = cal_opt.network ? "simblas.network" : "simblas.model";
  if (!cal_opt.budget)
    cal_opt.budget = cal_opt.quick ? 30 : 480;
  if (!cal_opt.max_call)
    cal_opt.max_call = cal_opt.quick ? 0.05 : 0.25;
  if (!cal_opt.reps)
    cal_opt.reps = cal_opt.quick || cal_opt.reference ? 3 : 5;
  if (cal_opt.ld_rounds < 0)
    cal_opt.ld_rounds = cal_opt.quick ? 0 : 11;
  if (cal_opt.solo_rounds < 0)
    cal_opt.solo_rounds = cal_opt.quick ? 5 : 9;
}
