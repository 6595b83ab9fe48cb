/*
 * report.h -- what a calibration says about itself: the report next to the
 * model (summary.txt, gnuplot figures of measured against predicted), and
 * --summary, which reads a model through libsimblas's parser and prints
 * its quality figures.
 */
#ifndef SB_CAL_REPORT_H
#define SB_CAL_REPORT_H

#include "fit.h"
#include "measure.h"

/* a calibration's facts, for its model file and its report */
typedef struct cal_info {
  char machine[256], topology[512], backend[256];
  int ncores, quick;
  uint64_t seed;
  double wall, reference_speed;
  char reference_said[160]; /* how the reference speed was obtained */
  double dgemm_scale;       /* dgemm's lines scaled by it to the measured
                               reference speed (anchor_dgemm; 0: not scaled) */
  double dgemm_fit_speed;   /* the fitted lines' rate at the reference shape */
  double solo_speed, solo_memory; /* the solo pairs' medians (design.h CAL_SOLO), dgemm's and the
                                     row interchanges'; 0: not measured, or out of range */
  char solo_said[2][320];   /* how each was measured, for its meta line */
  size_t interrupted; /* timed calls other tasks interrupted */
  double stolen;      /* the wall time they took from them */
  double stolen_share; /* ... of the timed calls' wall time */
  double spread, drift; /* the repetitions' (cal_run) */
  const double *pass_speed; /* each timed pass's speed against their mean, in order (cal_run) */
  int npasses;
  int nops;
  const int *ops;
  const fit_result *node;  /* per key (design.h) */
  const fit_result *cores; /* ncores * CAL_NKEYS; NULL for one core */
} cal_info;

/* MODEL.report/: summary.txt, the figures' data, and the figures when
 * gnuplot was found at configure time; files world-readable.  Failures are
 * said, not fatal. */
void cal_report(const char *model_path, const cal_info *c, const cal_run *run);

/* "; each pass's speed against their mean, in order: 1.031 1.012 ..."
 * into buf (empty without passes, or when they do not fit) */
void cal_pass_speeds(const cal_info *c, char *buf, size_t size);

/* --summary: one line per fitted routine and precision,
 * "<routine> <prec> n=<k> r2=<x> median_rel_err=<x> p95_rel_err=<x>".
 * A file libsimblas would refuse: its parser's message, exit status 2. */
int cal_summary(const char *path);

#endif
