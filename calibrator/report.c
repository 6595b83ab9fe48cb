/*
 * report.c -- see report.h.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "report.h"

#ifndef SB_GNUPLOT
#define SB_GNUPLOT ""
#endif

/* the routine and the precision of a key, as --summary and summary.txt
 * print them: "gemm" "d", "iamax" "s", "trsm.right" "z" */
static void split_name(int key, char *routine, char *prec)
{
  int op = key % SB_OP_COUNT;
  const char *name = sb_ops[op].name, *stem = sb_ops[op].stem, *sfx = key >= SB_OP_COUNT ? SB_RIGHT_SUFFIX : "";
  size_t pl = strlen(name) - strlen(stem);
  if (sb_ops[op].level == SB_LEVEL_M) { /* hpl_dlaswp00N: double precision */
    snprintf(routine, 32, "%s", name);
    snprintf(prec, 8, "d");
  } else { /* the prefix's precision letters: isamax's i belongs to the routine (prec_at) */
    int at = sb_ops[op].prec_at;
    snprintf(routine, 32, "%.*s%s%s", at, name, stem, sfx);
    snprintf(prec, 8, "%.*s", (int)pl - at, name + at);
  }
}

/* installed data is world-readable, whatever the umask and whatever an
 * earlier run left */
static void publish(const char *path, int dir) { chmod(path, dir ? 0755 : 0644); }

static void write_summary(const char *dir, const cal_info *c)
{
  char path[4400];
  snprintf(path, sizeof path, "%s/summary.txt", dir);
  FILE *sum = fopen(path, "w");
  if (!sum) {
    fprintf(stderr, "simblas-calibrate: no %s: %s\n", path, strerror(errno));
    return;
  }
  fprintf(sum, "SimBLAS calibration of %s (%d cores), %s\nreference speed %.4g flop/s, wall %.0f s\n", c->machine,
          c->ncores, c->backend, c->reference_speed, c->wall);
  char speeds[256];
  cal_pass_speeds(c, speeds, sizeof speeds);
  fprintf(sum, "repetitions: a call's spread %.2f%% (median of sd/mean, calls >= 1 ms), drift between passes %.2f%%%s; "
               "other processes took %.2f%% of the timed wall time\n\n",
          100 * c->spread, 100 * c->drift, speeds, 100 * c->stolen_share);
  fprintf(sum, "%-8s %-4s %6s %8s %10s %10s  (held-out calls, >= 1 ms where enough)\n", "routine", "prec", "n", "r2",
          "median_err", "p95_err");
  for (int i = 0; i < c->nops; i++)
    for (int v = 0; v < sb_ops[c->ops[i]].variants; v++) {
      int key = v * SB_OP_COUNT + c->ops[i];
      const fit_result *r = &c->node[key];
      char rt[32], pr[8];
      split_name(key, rt, pr);
      if (r->ok)
        fprintf(sum, "%-10s %-4s %6zu %8.4f %9.2f%% %9.2f%%\n", rt, pr, r->n, r->r2, 100 * r->median_rel_err,
                100 * r->p95_rel_err);
    }
  if (fclose(sum) != 0)
    fprintf(stderr, "simblas-calibrate: %s: %s\n", path, strerror(errno));
  publish(path, 0);
}

/* NAME.dat (every measured shape with the model's prediction), NAME.gp,
 * and with gnuplot the figures NAME.svg and NAME.png */
static void write_figure(const char *dir, const char *name, const cal_info *c, const cal_run *run)
{
  int op = sb_op_lookup(name);
  char path[4400];
  if (op < 0 || !c->node[op].ok)
    return;
  snprintf(path, sizeof path, "%s/%s.dat", dir, name);
  FILE *d = fopen(path, "w");
  if (!d)
    return;
  fprintf(d, "# flops measured_s predicted_s core m n k model_key ld (0: the line's calls, at the local matrix's)\n");
  for (int w = 0; w < run->ncores; w++)
    for (size_t i = 0; i < run->npts; i++) {
      const cal_point *p = &run->pts[i];
      if (p->op != op || !(run->res[w][i].t > 0) || p->solo) /* solo: one core alone */
        continue;
      sb_call cl = {.op = op, .m = p->m, .n = p->n, .k = p->k, .variant = p->variant};
      char kn[64];
      int key = p->variant * SB_OP_COUNT + op;
      /* the @ld factors' calls (p->ld) too, at their leading dimension,
       * predicted with the factor there; the figure shows the line's */
      double f = sb_model_ld_factor(&c->node[key].ld, p->ld, p->m); /* 1 for the line's calls (ld 0) */
      fprintf(d, "%.6g %.6g %.17g %d %lld %lld %lld %s %lld\n", sb_call_flops(&cl), run->res[w][i].t,
              f * fit_result_predict(&c->node[key], p->m, p->n, p->k), w, (long long)p->m, (long long)p->n,
              (long long)p->k, cal_key_name(key, kn, sizeof kn), (long long)p->ld);
    }
  fclose(d);
  publish(path, 0);
  snprintf(path, sizeof path, "%s/%s.gp", dir, name);
  FILE *g = fopen(path, "w");
  if (!g)
    return;
  fprintf(g,
          "set logscale xy\nset xlabel 'flops of the call'\nset ylabel 'seconds'\nset key top left\n"
          "set title '%s on %s: measured (all cores) and the fitted model'\nset grid\n"
          "plot '%s.dat' using 1:($9 == 0 ? $2 : 1/0) with points pt 7 ps 0.4 title 'measured', "
          "'%s.dat' using 1:($9 == 0 ? $3 : 1/0) with points pt 1 ps 0.6 lc rgb 'red' title 'model'\n",
          name, c->machine, name, name);
  fclose(g);
  publish(path, 0);
  if (!*SB_GNUPLOT)
    return;
  char cmd[9000];
  snprintf(cmd, sizeof cmd,
           "cd '%s' && '%s' -e \"set terminal svg size 900,600; set output '%s.svg'\" %s.gp && "
           "'%s' -e \"set terminal pngcairo size 900,600; set output '%s.png'\" %s.gp",
           dir, SB_GNUPLOT, name, name, SB_GNUPLOT, name, name);
  if (system(cmd) != 0)
    fprintf(stderr, "simblas-calibrate: gnuplot failed for %s (figures skipped)\n", name);
  const char *ext[] = {"svg", "png"};
  for (int e = 0; e < 2; e++) {
    snprintf(path, sizeof path, "%s/%s.%s", dir, name, ext[e]);
    publish(path, 0);
  }
}

void cal_pass_speeds(const cal_info *c, char *buf, size_t size)
{
  size_t used = 0;
  buf[0] = '\0';
  for (int a = 0; a < c->npasses && c->pass_speed; a++) {
    int k = snprintf(buf + used, size - used, "%s%.3f", a ? " " : "; each pass's speed against their mean, in order: ",
                     c->pass_speed[a]);
    if (k < 0 || (size_t)k >= size - used) {
      buf[0] = '\0';
      return;
    }
    used += (size_t)k;
  }
}

void cal_report(const char *model_path, const cal_info *c, const cal_run *run)
{
  char dir[4200];
  snprintf(dir, sizeof dir, "%s.report", model_path);
  if (mkdir(dir, 0755) != 0 && errno != EEXIST) {
    fprintf(stderr, "simblas-calibrate: no report: cannot create %s: %s\n", dir, strerror(errno));
    return;
  }
  publish(dir, 1);
  write_summary(dir, c);
  for (int op = 0; op < SB_OP_COUNT; op++)
    if (sb_ops[op].figure)
      write_figure(dir, sb_ops[op].name, c, run);
  if (!*SB_GNUPLOT)
    fprintf(stderr, "simblas-calibrate: gnuplot was not found at configure time: report %s has the data, no figures\n", dir);
  else
    fprintf(stderr, "simblas-calibrate: report in %s\n", dir);
}

int cal_summary(const char *path)
{
  char err[1024];
  sb_model *m = sb_model_load(path, err, sizeof err);
  if (!m)
    cal_die("%s", err);
  for (int i = 0; i < m->nquality; i++) {
    const char *line = m->quality[i];
    char name[64];
    int variant, op;
    if (sscanf(line, "%63s", name) != 1 || (op = sb_model_key(name, &variant)) < 0) {
      fprintf(stderr, "simblas-calibrate: %s: a quality line of no routine ('%s'), skipped\n", path, line);
      continue;
    }
    char rt[32], pr[8];
    split_name(variant * SB_OP_COUNT + op, rt, pr);
    const char *keys[] = {"n=", "r2=", "median_rel_err=", "p95_rel_err="};
    printf("%s %s", rt, pr);
    for (int k = 0; k < 4; k++) {
      const char *q = strstr(line, keys[k]);
      printf(" %.*s", q ? (int)strcspn(q, " ") : 0, q ? q : "");
    }
    putchar('\n');
  }
  if (!m->nquality)
    fprintf(stderr, "simblas-calibrate: %s is a valid model without quality figures: not measured (the nominal "
                    "model?); 'make calibrate' measures this machine\n", path);
  sb_model_free(m);
  return 0;
}
