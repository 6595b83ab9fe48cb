/*
 * simblas-calibrate -- measure the machine's real BLAS and write the model
 * file libsimblas reads.  See doc/calibration.md.
 *
 * Method, in short:
 *   1. a probe measures the dgemm and daxpy rates, to size the experiment;
 *   2. the design (design.c) draws, for every op of blas.def, shapes
 *      log-uniformly up to a size whose call lasts about --max-call seconds,
 *      plus HPL-shaped calls, until the op's time budget is spent (HPL
 *      kernels get most);
 *   3. the measuring (measure.c): one worker per core (hwloc, pinned) runs
 *      the whole design, all cores at once as HPL runs, each in its own
 *      random order; every point is called once untimed (warm-up pass),
 *      then once in each of R timed passes (CLOCK_MONOTONIC), each pass in
 *      a fresh random order, so that a call follows calls of other shapes
 *      as in an application; the mean of its R times is the point's time;
 *      a call another task interrupted is timed in the thread's CPU time (a
 *      short one is made again);
 *   4. per op, per core and for the node: GSL weighted least squares with
 *      term selection on 20% held-out points, a sigma model, quality figures
 *      (fit.c);
 *   5. the model is written by libsbcore's writer into a temporary file,
 *      opened (and its room reserved) before measuring, and renamed over
 *      the output: an interrupted run leaves the previous model untouched;
 *   6. the report (report.c).
 * This file is the driver: the BLAS and the machine, then the steps above
 * in order; the options are options.c's.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include <dlfcn.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <time.h>
#include <unistd.h>

#include "calls.h"
#include "network.h"
#include "options.h"
#include "report.h"
#include "trace.h"
#include "simblas.h"

#ifndef SB_CALIBRATION_BLAS
#define SB_CALIBRATION_BLAS "libopenblas.so.0"
#endif

/* ---- the BLAS and the routines to measure ------------------------------------ */
typedef struct blas {
  const char *name;
  void *handle;
  char *(*config)(void); /* OpenBLAS's openblas_get_config, or NULL */
  void *syms[SB_OP_COUNT];
  int ops[SB_OP_COUNT], nops, skipped;
  char skipped_names[4096];
} blas;

/* the real BLAS, one thread: each worker is one core */
static void open_blas(blas *b)
{
  setenv("OPENBLAS_NUM_THREADS", "1", 1);
  setenv("OMP_NUM_THREADS", "1", 1);
  b->name = cal_opt.blas ? cal_opt.blas : SB_CALIBRATION_BLAS;
  if (!(b->handle = dlopen(b->name, RTLD_NOW | RTLD_LOCAL)))
    cal_die("cannot load the BLAS to measure, %s: %s; name one with --blas (or configure --with-calibration-blas)",
            b->name, dlerror());
  /* the probe's dgemm sizes the experiment and is the reference speed
   * when no dgemm is measured: a library without it (--blas libc.so.6)
   * would have an unmeasured number written as measured */
  if (!dlsym(b->handle, "dgemm_"))
    cal_die("--blas %s: the library has no dgemm_, so it is no BLAS to calibrate; name a BLAS library with --blas "
            "(e.g. libopenblas.so.0, libblas.so.3)", b->name);
  void (*threads)(int) = (void (*)(int))dlsym(b->handle, "openblas_set_num_threads");
  if (threads)
    threads(1);
  b->config = (char *(*)(void))dlsym(b->handle, "openblas_get_config");
}

/* the ops of the table (or of --routines) this BLAS has, and their symbols */
static void select_ops(blas *b)
{
  char list[4096];
  snprintf(list, sizeof list, ",%s,", cal_opt.routines ? cal_opt.routines : "");
  if (cal_opt.routines) { /* every name must exist */
    char names[4096], *save = NULL;
    snprintf(names, sizeof names, "%s", cal_opt.routines);
    for (char *t = strtok_r(names, ",", &save); t; t = strtok_r(NULL, ",", &save))
      if (sb_op_lookup(t) < 0)
        cal_die("--routines: unknown routine '%s' (names as in the model file: dgemm, ztrsm, idamax ...)", t);
  }
  for (int op = 0; op < SB_OP_COUNT; op++) {
    char pat[80];
    snprintf(pat, sizeof pat, ",%s,", sb_ops[op].name);
    if (cal_opt.routines && !strstr(list, pat))
      continue;
    if (!cal_ops[op].symbol) /* kernels.def: measured in plain C */
      b->syms[op] = (void *)cal_ops[op].run;
    else if (!(b->syms[op] = dlsym(b->handle, cal_ops[op].symbol))) {
      b->skipped++;
      if (strlen(b->skipped_names) < sizeof b->skipped_names - 16) {
        strcat(b->skipped_names, " ");
        strcat(b->skipped_names, sb_ops[op].name);
      }
      continue;
    }
    b->ops[b->nops++] = op;
  }
  if (!b->nops)
    cal_die("nothing to measure: %s has none of the requested routines; name some it has with --routines, or "
            "another BLAS with --blas",
            b->name);
}

/* ---- the machine ------------------------------------------------------------------ */
static int machine(hwloc_topology_t topo, const blas *b, cal_info *info)
{
  int ncores = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_CORE);
  if (ncores < 1)
    ncores = 1;
  if (cal_opt.cores > ncores)
    fprintf(stderr, "simblas-calibrate: --cores %d: this machine has %d core(s); measuring on %d\n", cal_opt.cores,
            ncores, ncores);
  else if (cal_opt.cores > 0)
    ncores = cal_opt.cores;
  info->ncores = ncores;
  hwloc_obj_t pkg = hwloc_get_obj_by_type(topo, HWLOC_OBJ_PACKAGE, 0);
  const char *cpu = pkg ? hwloc_obj_get_info_by_name(pkg, "CPUModel") : NULL;
  snprintf(info->machine, sizeof info->machine, "%s", cpu ? cpu : "unknown CPU");
  hwloc_obj_t l3 = hwloc_get_obj_by_type(topo, HWLOC_OBJ_L3CACHE, 0);
  hwloc_obj_t l2 = hwloc_get_obj_by_type(topo, HWLOC_OBJ_L2CACHE, 0);
  snprintf(info->topology, sizeof info->topology,
           "%d packages, %d NUMA nodes, %d cores, %d PUs, L2 %llu KiB, L3 %llu KiB",
           hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PACKAGE), hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_NUMANODE),
           hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_CORE), hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PU),
           l2 ? (unsigned long long)l2->attr->cache.size >> 10 : 0ull,
           l3 ? (unsigned long long)l3->attr->cache.size >> 10 : 0ull);
  Dl_info di;
  int found = dladdr(b->syms[b->ops[0]], &di) && di.dli_fname;
  snprintf(info->backend, sizeof info->backend, "%s%s%s", b->config ? b->config() : b->name, found ? " at " : "",
           found ? di.dli_fname : "");
  return ncores;
}

/* HPL's local matrix on this machine: its leading dimension is the local
 * row count of an HPL run whose matrix fills 80% of the memory on a P x Q
 * grid of the node's cores (P the largest divisor of the cores up to their
 * square root, as HPL's tuning advice has P <= Q), from 4,096 to 65,536;
 * its columns fill a sixteenth of a core's share of the memory, from 256
 * MiB to 1 GiB, so that it is many times the caches: an operand placed
 * anywhere in it is in memory, as the trailing update's are */
static void local_matrix_size(int ncores, cal_design *d, int ref_calls)
{
  /* the kernel's count: hwloc's NUMA nodes saw 8.9 of a VM's 23.5 GiB */
  double mem = (double)sysconf(_SC_PHYS_PAGES) * (double)sysconf(_SC_PAGESIZE);
  int p = 1;
  for (int i = 1; i * i <= ncores; i++)
    if (ncores % i == 0)
      p = i;
  double lld = cal_opt.lld ? cal_opt.lld : fmin(65536, fmax(4096, sqrt(0.8 * mem / 8) / p));
  d->lld = (int64_t)lld / 8 * 8;
  double bytes = fmin(1 << 30, fmax(256 << 20, mem / ncores / 16));
  /* with the reference calls (dgemm in HPL's layout), at least 4,096
   * columns: the calls (design.c) are then m = n = 4096 whatever the
   * budget, their C (134 MB) many times the last-level cache as HPL's
   * large updates' are; at the trailing corner (calls.c) a quick
   * calibration's m = n = 2188 (38 MB) ran partly from the 32 MB L3 and
   * anchored dgemm 7% fast (Zen 5 VM, 2026-11-29).  Not for the others:
   * first touching memory is slow in a VM (4.5 s per GB on that one) */
  d->lcols = (int64_t)fmax(fmax((double)d->maxdim, ref_calls ? 4096 : 0), bytes / 8 / (double)d->lld);
}

/* ---- the output, checked before measuring ---------------------------------------- */
/* the temporary the model will be written into, opened first: whatever
 * ends the run before the model is in place (an error, a signal) removes
 * it; SIGKILL leaves it, and the next writer removes it */
static sb_model_out *output;
static void drop_output(void)
{
  sb_model_out_abandon(output);
  output = NULL;
}

static void open_output(void)
{
  char err[1024];
  if (!(output = sb_model_out_open(cal_opt.out, 0, err, sizeof err)))
    cal_die("-o %s", err);
  atexit(drop_output);
}

/* bytes of the report: for each figure a line per shape and core in
 * NAME.dat and two points in its SVG (measured: 53 and 213 bytes per
 * shape and core), a PNG of 30-40 kB; twice that, to be safe */
static double report_bytes(const cal_point *pts, size_t npts, int ncores)
{
  double bytes = 64e3 + 100.0 * CAL_NKEYS;
  for (int op = 0; op < SB_OP_COUNT; op++) {
    if (!sb_ops[op].figure)
      continue;
    for (size_t i = 0; i < npts; i++)
      bytes += pts[i].op == op ? 2 * (53.0 + 213.0) * ncores : 0;
    bytes += 2 * 40e3;
  }
  return bytes;
}

/* reserve room for the model in its temporary, and make sure the report
 * fits beside it: a full disk is said now, not after the measuring */
static void reserve_room(const blas *b, int ncores, const cal_point *pts, size_t npts)
{
  char err[1024];
  size_t keys = 0;
  for (int i = 0; i < b->nops; i++)
    keys += sb_ops[b->ops[i]].variants;
  size_t sets = ncores > 1 ? (size_t)ncores + 1 : 1;
  size_t model = 4096 + keys * 200 + sets * keys * SB_MODEL_LINE_MAX;
  if (sb_model_out_reserve(output, model, err, sizeof err) != 0)
    cal_die("%s", err);
  struct statvfs vf;
  char dir[4096];
  const char *slash = strrchr(cal_opt.out, '/');
  snprintf(dir, sizeof dir, "%.*s", slash ? (int)(slash - cal_opt.out) + (slash == cal_opt.out) : 1, slash ? cal_opt.out : ".");
  double need = report_bytes(pts, npts, ncores), avail;
  if (cal_opt.report && statvfs(dir, &vf) == 0 && (avail = (double)vf.f_bavail * (double)vf.f_frsize) < need)
    cal_die("no room for the report in %s: it needs about %.1f MB, %.1f MB are free (%.0f kB reserved for the "
            "model); free some space, choose another place with -o, or add --no-report",
            dir, need / 1e6, avail / 1e6, (double)model / 1e3);
}

/* ---- fitting ------------------------------------------------------------------------ */
/* per core, and pooled for the node; info->cores stays NULL for one core */
static void fit_all(const cal_run *run, cal_info *info)
{
  const int ncores = run->ncores;
  fit_result *node = calloc(CAL_NKEYS, sizeof *node);
  fit_result *cores = ncores > 1 ? calloc((size_t)ncores * CAL_NKEYS, sizeof *cores) : NULL;
  size_t room = (run->npts ? run->npts : 1) * (size_t)ncores;
  fit_point *fp = malloc(sizeof *fp * room), *lp = malloc(sizeof *lp * room);
  int64_t *lds = malloc(sizeof *lds * room), *pld = malloc(sizeof *pld * room);
  double *pratio = malloc(sizeof *pratio * room);
  if (!node || (ncores > 1 && !cores) || !fp || !lp || !lds || !pld || !pratio)
    cal_die("out of memory for the fits");
  for (int i = 0; i < info->nops; i++)
    for (int v = 0; v < sb_ops[info->ops[i]].variants; v++) {
      int op = info->ops[i], key = v * SB_OP_COUNT + op;
      size_t nn = 0, nl = 0, np = 0;
      for (int w = 0; w < ncores; w++) {
        size_t start = nn;
        for (size_t j = 0; j < run->npts; j++) {
          const cal_point *p = &run->pts[j];
          const cal_result *r = &run->res[w][j];
          if (p->op != op || p->variant != v || !(r->t > 0) || p->solo) /* solo: one core alone, not the line */
            continue;
          if (p->pair) { /* dgemm's pairs (design.h): their ratios, not the line */
            if (p->pair == 2 && r->ratio > 0)
              pld[np] = p->ld, pratio[np++] = r->ratio;
            continue;
          }
          fit_point f = {p->m, p->n, p->k, r->t, r->sd, cal_opt.reps, 0};
          if (p->ld) { /* at another leading dimension: the @ld factors, not the line */
            lds[nl] = p->ld;
            lp[nl++] = f;
          } else
            fp[nn++] = f;
        }
        fit_holdout(fp + start, nn - start, 0.2, cal_opt.seed + (uint64_t)key * 31 + (uint64_t)w);
        if (cores)
          fit_model(op, fp + start, nn - start, &cores[(size_t)w * CAL_NKEYS + (size_t)key]);
      }
      char kn[64];
      if (nn && fit_model(op, fp, nn, &node[key]) != 0)
        fprintf(stderr, "simblas-calibrate: could not fit %s (%zu points); it will use the fallback\n",
                cal_key_name(key, kn, sizeof kn), nn);
      /* the factors, from dgemm's pairs (design.h: the ratios of calls
       * made side by side) or from the node's line and every core's calls
       * at the ld levels; each core's line takes the node's (per core
       * they are a few calls each) */
      sb_ld_points said = {0};
      int got = np ? fit_ld_pairs(&node[key], pratio, pld, np, run->design->lld, &said)
                   : nl ? fit_ld_factors(&node[key], lp, lds, nl, run->design->lld) : 0;
      if (np) {
        char fs[256] = "";
        size_t at = 0;
        for (int l = 0; l < said.n && at < sizeof fs; l++)
          at += (size_t)snprintf(fs + at, sizeof fs - at, "%s%.3f at %.0f rows", l ? ", " : "", said.f[l], said.at[l]);
        char tail[160] = "kept (its @ld line)";
        if (!got)
          snprintf(tail, sizeof tail, "not kept, its line holds at every leading dimension (none %.0f%% or more from 1 "
                   "beyond its noise, or one outside 0.5-2: disturbed)", FIT_PAIRS_NOISE * 100);
        fprintf(stderr, "simblas-calibrate: %s at other leading dimensions, side by side with the same calls at "
                        "%lld rows: %s; %s\n", cal_key_name(key, kn, sizeof kn), (long long)run->design->lld,
                said.n ? fs : "none measured", tail);
      }
      if (got && cores)
        for (int w = 0; w < ncores; w++) {
          fit_result *c = &cores[(size_t)w * CAL_NKEYS + (size_t)key];
          c->ld = node[key].ld;
        }
    }
  free(fp);
  free(lp);
  free(lds);
  free(pld);
  free(pratio);
  info->node = node;
  info->cores = cores;
}

/* the reference speed: the median rate, over the cores and the timed
 * repetitions' means, of the reference calls (design.c: HPL's large
 * trailing update, measured; *measured, when given, one of them, else
 * left as it was); without them (no dgemm measured) the node model's rate
 * at m = n = k = 4096, or the probe's; to 6 digits */
static double reference_speed(const cal_info *info, const cal_run *run, double rate3, char *said, size_t len,
                              const cal_point **measured)
{
  int gop = sb_op_lookup("dgemm");
  double speed = rate3, big = 4096, t, rates[64 * CAL_REF_CALLS];
  size_t nr = 0;
  const cal_point *ref = NULL;
  for (int w = 0; w < run->ncores; w++)
    for (size_t j = 0; j < run->npts; j++)
      if (run->pts[j].ref && run->res[w][j].t > 0 && nr < sizeof rates / sizeof *rates) {
        ref = &run->pts[j];
        rates[nr++] = 2.0 * (double)ref->m * (double)ref->n * (double)ref->k / run->res[w][j].t;
      }
  if (nr) {
    gsl_sort(rates, 1, nr);
    speed = gsl_stats_median_from_sorted_data(rates, 1, nr);
    snprintf(said, len, "measured: dgemm m=%lld n=%lld k=%lld %s, median of %zu", (long long)ref->m,
             (long long)ref->n, (long long)ref->k, ref->layout ? "in HPL's layout" : "packed", nr);
    if (measured)
      *measured = ref;
  } else if (info->node[gop].ok && (t = fit_result_predict(&info->node[gop], 4096, 4096, 4096)) > 0) {
    speed = 2 * big * big * big / t;
    snprintf(said, len, "the dgemm model's rate at m = n = k = 4096");
  } else
    snprintf(said, len, "the probe's dgemm rate");
  char s[32];
  snprintf(s, sizeof s, "%.6g", speed);
  return strtod(s, NULL);
}

/* dgemm's lines scaled so that they predict, at the reference calls'
 * shape, the reference speed measured there.  The fit takes the shape of
 * dgemm's cost from many calls, but the level of its lines for HPL's
 * large calls from the few in its top piece, fitted with five terms: on
 * the same traced HPL calls (N=10000, 1x2 and 2x1, Zen 5 VM), four full
 * calibrations made over two days predicted the update's dgemm 3.3-3.4%
 * apart as fitted (each against the machine's speed when it ran), 0.8-1.0%
 * apart scaled so; eight full and quick ones 11% and 5.6% apart
 * (bench/models-on-trace, doc/performance.md).  The factor applies to every set (each
 * core's lines keep their difference from the node's); one outside
 * 0.8-1.25 is said and not applied.  ref: the reference calls' shape
 * (reference_speed's *measured; NULL when it was not measured: no
 * scaling).  Returns the factor, 0 when none. */
static double anchor_dgemm(cal_info *info, const cal_run *run, const cal_point *ref)
{
  int gop = sb_op_lookup("dgemm");
  fit_result *node = (fit_result *)info->node; /* fit_all's, allocated */
  if (gop < 0 || !ref || !node[gop].ok || !(info->reference_speed > 0))
    return 0;
  double flops = 2.0 * (double)ref->m * (double)ref->n * (double)ref->k,
         t = fit_result_predict(&node[gop], ref->m, ref->n, ref->k);
  if (!(t > 0))
    return 0;
  info->dgemm_fit_speed = flops / t;
  double f = info->dgemm_fit_speed / info->reference_speed;
  if (cal_opt.unanchored)
    return 0;
  if (f < 0.8 || f > 1.25) {
    fprintf(stderr, "simblas-calibrate: warning: dgemm's fitted lines give %.2f Gflop/s at the reference shape, where "
                    "%.2f were measured: not scaled (more than 25%% apart; calibrate again on an idle machine)\n",
            info->dgemm_fit_speed / 1e9, info->reference_speed / 1e9);
    return 0;
  }
  fit_result_scale(&node[gop], f);
  for (int w = 0; info->cores && w < run->ncores; w++)
    fit_result_scale((fit_result *)&info->cores[(size_t)w * CAL_NKEYS + (size_t)gop], f);
  return f;
}

/* ---- writing ------------------------------------------------------------------------- */
/* a fitted term set: the coefficients of its terms, the others 0 */
static void put_fit(double *dst, unsigned char *dmask, const double *src, unsigned terms)
{
  for (int t = 0; t < SB_NTERMS; t++)
    dst[t] = terms & (1u << t) ? src[t] : 0;
  *dmask = (unsigned char)terms;
}

static void put_result(sb_coefs *co, const fit_result *r)
{
  put_fit(co->mu, &co->terms, r->mu, r->terms);
  put_fit(co->sigma, &co->sigma_terms, r->sigma, r->has_sigma ? r->terms : 0);
  co->ld = r->ld;
  co->npieces = r->nsplit;
  for (int i = 0; i < r->nsplit; i++) {
    const struct fit_piece *h = &r->hi[i];
    sb_piece *p = &co->piece[i];
    p->term = r->split_dim;
    p->at = h->at;
    put_fit(p->mu, &p->terms, h->mu, h->terms);
    put_fit(p->sigma, &p->sigma_terms, h->sigma, h->has_sigma ? h->terms : 0);
  }
}

static sb_model *build_model(const cal_info *c)
{
  sb_model *m = sb_model_new();
  time_t now_t = time(NULL);
  char date[64], kn[64];
  strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", gmtime(&now_t));
  int bad = !m || sb_model_add_meta(m, "machine \"%s\"", c->machine) || sb_model_add_meta(m, "topology \"%s\"", c->topology) ||
            sb_model_add_meta(m, "cores %d", c->ncores) || sb_model_add_meta(m, "backend \"%s\"", c->backend) ||
            sb_model_add_meta(m, "date %s", date) || sb_model_add_meta(m, "mode %s", c->quick ? "quick" : "full") ||
            sb_model_add_meta(m, "seed %llu", (unsigned long long)c->seed) || sb_model_add_meta(m, "wall_s %.1f", c->wall) ||
            sb_model_add_meta(m, "interrupted_calls %zu", c->interrupted) || sb_model_add_meta(m, "stolen_s %.3f", c->stolen) ||
            sb_model_add_meta(m, "stolen_share %.4f", c->stolen_share) ||
            sb_model_add_meta(m, "spread %.4f", c->spread) || sb_model_add_meta(m, "drift %.4f", c->drift) ||
            sb_model_add_meta(m, "reference_speed \"%s\"", c->reference_said) ||
            (c->dgemm_fit_speed > 0 &&
             sb_model_add_meta(m, "dgemm_scale %.4f \"%s: the fitted lines gave %.2f Gflop/s at the reference shape\"",
                               c->dgemm_scale > 0 ? c->dgemm_scale : 1.0,
                               c->dgemm_scale > 0 ? "scaled to the reference speed" : "not scaled",
                               c->dgemm_fit_speed / 1e9));
  if (!bad && c->solo_speed > 0)
    bad = sb_model_add_meta(m, "solo_speed %.4f %s", c->solo_speed, c->solo_said[0]);
  if (!bad && c->solo_memory > 0)
    bad = sb_model_add_meta(m, "solo_speed_memory %.4f %s", c->solo_memory, c->solo_said[1]);
  for (int w = 0; !bad && w < c->ncores && c->cores; w++) {
    char name[32];
    snprintf(name, sizeof name, "core%d", w);
    bad = sb_model_add_set(m, name) != w + 1;
  }
  for (int i = 0; !bad && i < c->nops; i++)
    for (int v = 0; !bad && v < sb_ops[c->ops[i]].variants; v++) {
      int op = c->ops[i], key = v * SB_OP_COUNT + op;
      const fit_result *r = &c->node[key];
      if (r->ok)
        bad = sb_model_add_quality(m, "%s n=%zu r2=%.4f median_rel_err=%.4f p95_rel_err=%.4f heldout=%zu scope=%s",
                                   cal_key_name(key, kn, sizeof kn), r->n, r->r2, r->median_rel_err, r->p95_rel_err,
                                   r->n_scored, r->scored_ge_1ms ? "ge1ms" : "all");
      for (int s = 0; !bad && s <= (c->cores ? c->ncores : 0); s++) {
        const fit_result *f = s ? &c->cores[(size_t)(s - 1) * CAL_NKEYS + (size_t)key] : r;
        sb_coefs *co = f->ok ? sb_model_line(m, s, op, v) : NULL;
        if (f->ok && !co)
          bad = 1;
        else if (co)
          put_result(co, f);
      }
    }
  if (bad)
    cal_die("out of memory for the model");
  m->reference_speed = c->reference_speed;
  return m;
}

/* the model where it is kept when it is not put in place: the temporary
 * directory, so that the measuring is not lost */
static int keep_aside(sb_model *m, const char *comment, char *keep, size_t len, char *err, size_t elen)
{
  const char *tmpdir = getenv("TMPDIR");
  snprintf(keep, len, "%s/simblas-calibrate.%ld.model", tmpdir && *tmpdir ? tmpdir : "/tmp", (long)getpid());
  sb_model_out *o = sb_model_out_open(keep, 0, err, elen);
  return o && sb_model_out_commit(o, m, comment, err, elen) == 0 ? 0 : -1;
}

/* the solo pairs' factors (design.h CAL_SOLO) into info, and said: a
 * factor outside the range simblas-hpl uses (tools/simblas_hpl/model.py
 * SOLO_SPEED_RANGE, SOLO_MEMORY_RANGE) is a measurement gone wrong, said
 * and not written; one under 1 + FIT_PAIRS_NOISE, or within twice its
 * standard error of 1, is no gain the pairs can tell from their noise, and
 * is written as 1 (measured in the Zen 5 VM's quick calibrations,
 * 2026-11-29: dgemm 0.965-1.019, the row interchanges 0.897-1.033: a lone
 * core there runs as a busy one, within a few percent either way) */
static void solo_factors(cal_info *info, const cal_run *run)
{
  static const double range[2][2] = {{0.8, 1.5}, {0.5, 5.0}};
  for (size_t j = 0; j < run->npts; j++) {
    const cal_point *p = &run->pts[j];
    double f = run->res[0][j].ratio, se = run->res[0][j].ratio_se;
    if (!p->solo || !(f > 0))
      continue;
    int mem = sb_ops[p->op].level == SB_LEVEL_M, rounds = run->design->solo_rounds;
    const char *what = mem ? "HPL's row interchanges (hpl_dlaswp00N)" : "dgemm";
    char shape[64];
    snprintf(shape, sizeof shape, mem ? "%lld rows of %lld columns" : "m = n = %lld, k = %lld", (long long)p->m,
             (long long)(mem ? p->n : p->k));
    fprintf(stderr, "simblas-calibrate: one core alone ran %s (%s) %.1f%% %s than with every core busy (median of "
                    "%d rounds, +-%.1f%%; alone %.3g ms a call)", what, shape, 100 * fabs(f - 1),
            f >= 1 ? "faster" : "slower", rounds, 100 * se, 1e3 * run->res[0][j].t);
    if (f < range[mem][0] || f > range[mem][1]) {
      fprintf(stderr, ": outside %g-%g, a measurement gone wrong, not written (calibrate again on a quiet "
                      "machine)\n", range[mem][0], range[mem][1]);
      continue;
    }
    /* a core is not slower for its neighbours' idling: below 1 is noise
     * (or a machine whose speed moved between the states) */
    int effect = f - 1 >= FIT_PAIRS_NOISE && f - 1 >= 2 * se;
    const char *key = mem ? "solo_speed_memory" : "solo_speed";
    if (effect)
      fprintf(stderr, ": meta %s %.4f\n", key, f);
    else
      fprintf(stderr, ": no gain beyond its noise (%.0f%% and twice its error), meta %s 1\n", 100 * FIT_PAIRS_NOISE,
              key);
    *(mem ? &info->solo_memory : &info->solo_speed) = effect ? f : 1;
    snprintf(info->solo_said[mem], sizeof info->solo_said[mem],
             "\"simblas-calibrate: %s at %s on core 0 alone against all %d cores busy, the median of %d rounds "
             "%.4f +- %.4f%s\"", what, shape, run->ncores, rounds, f, se, effect ? "" : ", within its noise");
  }
}

/* the model into its place; if that fails now, or when the calibration is
 * refused (refused: why), into the temporary directory.  Returns the path
 * written. */
static const char *write_model(const cal_info *c, const char *refused)
{
  static const char comment[] =
      "written by simblas-calibrate " PACKAGE_VERSION "; read with simblas-calibrate --summary\n"
      "reference-speed: one core's dgemm rate while all cores work (meta reference_speed says how it was obtained)";
  static char keep[4096];
  char err[1024], err2[1024];
  sb_model *m = build_model(c);
  if (refused) {
    drop_output();
    if (keep_aside(m, comment, keep, sizeof keep, err2, sizeof err2) != 0)
      cal_die("%s; and the model could not be kept: %s", refused, err2);
    sb_model_free(m);
    return keep;
  }
  sb_model_out *out = output;
  output = NULL; /* committed or abandoned by sb_model_out_commit */
  if (sb_model_out_commit(out, m, comment, err, sizeof err) != 0) {
    if (keep_aside(m, comment, keep, sizeof keep, err2, sizeof err2) == 0)
      cal_die("%s; the model is kept in %s: move it into place once there is room", err, keep);
    cal_die("%s; and it could not be kept elsewhere: %s", err, err2);
  }
  sb_model_free(m);
  return cal_opt.out;
}

/* ---- what the run says at the end ------------------------------------------------------ */
/* a calibration in which other processes took more than this share of
 * the timed calls' wall time is refused (not put in place) unless
 * --force: their time slices are corrected, what they do to the caches
 * and the memory bandwidth is not (issue 23: a quick calibration with
 * 5.7% taken came out slower by about as much) */
#define CAL_MAX_STOLEN 0.05

/* other tasks on the cores: the calls they interrupted were timed in CPU
 * time (fit_call_time).  Returns the refusal, or NULL. */
static const char *say_interruptions(const cal_run *run)
{
  static char why[512];
  double share = run->timed_wall > 0 ? run->stolen / run->timed_wall : 0;
  if (run->interrupted)
    fprintf(stderr,
            "simblas-calibrate: other processes interrupted %zu of %zu timed calls and took %.1f s (%.1f%%) of "
            "their wall time; those calls are timed in CPU time, the short ones made again\n",
            run->interrupted, run->timed, run->stolen, 100 * share);
  if (share <= CAL_MAX_STOLEN)
    return NULL;
  if (cal_opt.force) {
    fprintf(stderr, "simblas-calibrate: more than %.0f%% taken: the others' use of the caches and memory is in "
                    "every time; installing the model anyway (--force)\n", 100 * CAL_MAX_STOLEN);
    return NULL;
  }
  snprintf(why, sizeof why,
           "refused: other processes took %.1f%% of the timed calls' wall time (more than %.0f%%), and their use "
           "of the caches and memory is in every time; %s is left as it was",
           100 * share, 100 * CAL_MAX_STOLEN, cal_opt.out);
  return why;
}

static void say_quality(const cal_info *c, const blas *b)
{
  for (int i = 0; i < c->nops; i++) {
    int op = c->ops[i];
    const fit_result *r = &c->node[op];
    if (sb_ops[op].focus == SB_FOCUS_NONE || !r->ok)
      continue;
    fprintf(stderr, "  %-7s n=%-5zu r2=%.4f median_rel_err=%5.2f%% p95_rel_err=%6.2f%% (%zu held-out calls%s)\n",
            sb_ops[op].name, r->n, r->r2, 100 * r->median_rel_err, 100 * r->p95_rel_err, r->n_scored,
            r->scored_ge_1ms ? " >= 1 ms" : ", all sizes");
  }
  char speeds[256];
  cal_pass_speeds(c, speeds, sizeof speeds);
  fprintf(stderr, "simblas-calibrate: repetitions: a call's spread %.2f%% (median sd/mean, calls >= 1 ms), the "
                  "passes' totals %.2f%% apart (drift%s)\n", 100 * c->spread, 100 * c->drift, speeds);
  if (c->dgemm_scale > 0)
    fprintf(stderr, "simblas-calibrate: dgemm's lines scaled by %.4f: they gave %.2f Gflop/s at the reference shape, "
                    "where %.2f were measured (--unanchored keeps them as fitted)\n",
            c->dgemm_scale, c->dgemm_fit_speed / 1e9, c->reference_speed / 1e9);
  fprintf(stderr, "simblas-calibrate: wrote %s (reference speed %.3g flop/s, %s) in %.1f s wall time\n", cal_opt.out,
          c->reference_speed, c->reference_said, c->wall);
  if (b->skipped)
    fprintf(stderr, "simblas-calibrate: not in %s, so modelled by flop count:%s\n", b->name, b->skipped_names);
}

/* ---- --from-trace: the calls an application made ------------------------------- */
/* the base model's mean relative error on a key's traced calls, weighted
 * by their count: how far the model was from the application */
static double signed_error(const sb_model *m, int op, int variant, const cal_shape *s, size_t n)
{
  const sb_coefs *co = sb_model_coefs_v(m, 0, op, variant);
  double pred = 0, meas = 0;
  for (size_t i = 0; i < n; i++) {
    sb_call c = {.op = op, .m = s[i].m, .n = s[i].n, .k = s[i].k, .variant = variant, .ld = s[i].ld};
    double p = co ? sb_model_mean(m, co, &c) : sb_call_flops(&c) / m->reference_speed;
    pred += p * (double)s[i].calls;
    meas += s[i].t * (double)s[i].calls;
  }
  return meas > 0 ? pred / meas - 1 : 0;
}

/* append to the key's quality line (a line "NAME source=..." when it has none) */
static int mark_quality(sb_model *m, const char *name, const char *fmt, double v)
{
  size_t len = strlen(name);
  char add[128];
  snprintf(add, sizeof add, fmt, v);
  for (int i = 0; i < m->nquality; i++)
    if (!strncmp(m->quality[i], name, len) && m->quality[i][len] == ' ') {
      char *q = m->quality[i];
      int rc = sb_model_add_quality(m, "%s%s", q, add);
      if (!rc) { /* the new line takes the old one's place */
        m->quality[i] = m->quality[--m->nquality];
        free(q);
      }
      return rc;
    }
  return sb_model_add_quality(m, "%s%s", name, add);
}

/* drop what the model says of a key: its lines in every set and its quality line */
static void forget_key(sb_model *m, int key, const char *name)
{
  for (int s = 0; s < m->nsets; s++) {
    free(m->sets[s]->line[key]);
    m->sets[s]->line[key] = NULL;
  }
  size_t len = strlen(name);
  for (int i = 0; i < m->nquality; i++)
    if (!strncmp(m->quality[i], name, len) && m->quality[i][len] == ' ') {
      free(m->quality[i]);
      m->quality[i--] = m->quality[--m->nquality];
    }
}

/* A key traced at too few shapes for a fit (HPL calls HPL_dlaswp00N at
 * one shape, NB x NB, on 1xQ grids): each part of the base model's own
 * line (the plain line, a piece) that CAL_TRACE_MIN calls or more fall in
 * is scaled, mean and sigma, by their measured total over its prediction
 * of them (at their leading dimensions: the @ld factors are kept), so
 * that it predicts the application's calls as they ran; the parts no
 * call fell in are unchanged.  The key's lines in the other sets (the
 * calibrator's per-core ones, which override the node's where they
 * apply, and which --node-speeds model reads) are scaled by the calls'
 * overall factor, so that each keeps its difference from the node's.
 * Returns that factor, the calls' measured total over the prediction
 * before (0 when nothing was scaled). */
#define CAL_TRACE_MIN 8
/* part 0 of a line (its plain coefficients) or piece part - 1, mean and sigma, times f */
static void scale_part(sb_coefs *co, int part, double f)
{
  double *mu = part ? co->piece[part - 1].mu : co->mu, *sg = part ? co->piece[part - 1].sigma : co->sigma;
  for (int t = 0; t < SB_NTERMS; t++)
    mu[t] *= f, sg[t] *= f;
}

static double rescale_key(sb_model *m, int key, const cal_shape *sh, size_t n)
{
  int op = key % SB_OP_COUNT, v = key >= SB_OP_COUNT;
  sb_coefs *co = m->sets[0]->line[key];
  if (!co) /* the fallback (flops, or the plain line for a .right key): nothing of its own to scale */
    return 0;
  double pred[SB_MAX_PIECES + 1] = {0}, meas[SB_MAX_PIECES + 1] = {0}, tp = 0, tm = 0;
  size_t calls[SB_MAX_PIECES + 1] = {0};
  for (size_t i = 0; i < n; i++) {
    sb_call c = {.op = op, .m = sh[i].m, .n = sh[i].n, .k = sh[i].k, .variant = v, .ld = sh[i].ld};
    int part = sb_model_piece(co, &c) + 1;
    pred[part] += sb_model_mean(m, co, &c) * (double)sh[i].calls;
    meas[part] += sh[i].t * (double)sh[i].calls;
    calls[part] += sh[i].calls;
  }
  int scaled = 0;
  for (int part = 0; part <= co->npieces; part++) {
    if (calls[part] < CAL_TRACE_MIN || !(pred[part] > 0) || !(meas[part] > 0))
      continue;
    scale_part(co, part, meas[part] / pred[part]);
    tp += pred[part], tm += meas[part];
    scaled = 1;
  }
  if (!scaled)
    return 0;
  double f = tm / tp;
  for (int s = 1; s < m->nsets; s++) {
    sb_coefs *o = m->sets[s]->line[key];
    for (int part = 0; o && part <= o->npieces; part++)
      scale_part(o, part, f);
  }
  return f;
}

/* rescale_key, and the factor (when it scaled) appended to the key's
 * quality line as MARK says it (a format taking the factor) */
static double level_key(sb_model *m, int key, const char *name, const cal_shape *sh, size_t n, const char *mark)
{
  double f = rescale_key(m, key, sh, n);
  if (f > 0 && mark_quality(m, name, mark, f))
    cal_die("out of memory for the model");
  return f;
}

/* -o is the same file as an input (by device and inode: another name, a
 * link): the model would replace what this run reads; refused */
static void output_not_input(const char *input, const char *what)
{
  struct stat o, i;
  if (stat(cal_opt.out, &o) == 0 && stat(input, &i) == 0 && o.st_dev == i.st_dev && o.st_ino == i.st_ino)
    cal_die("-o %s is the same file as %s %s, which this run reads: the model would replace it; give -o another "
            "name", cal_opt.out, what, input);
}

static int from_trace(int nfiles, char **files)
{
  char err[1024], kn[64];
  for (int i = 0; i < nfiles; i++)
    output_not_input(files[i], "the trace");
  const char *base = cal_opt.base ? cal_opt.base : access(cal_opt.out, F_OK) == 0 ? cal_opt.out : NULL;
  if (!base)
    cal_die("--from-trace refines a model: give it with --base MODEL (the installed default.model, which `make "
            "calibrate` writes), or -o an existing model");
  open_output(); /* an -o that is no model is refused before the traces are read */
  sb_model *m = sb_model_load(base, err, sizeof err);
  if (!m)
    cal_die("--base %s", err);
  cal_trace t;
  if (cal_trace_read((const char *const *)files, nfiles, &t, err, sizeof err) != 0)
    cal_die("%s", err);
  fprintf(stderr, "simblas-calibrate: %zu calls of %zu shapes in %d trace file(s) (%zu quick returns left out); "
                  "refining %s\n", t.calls, t.nshapes, nfiles, t.skipped, base);
  if (t.stalled)
    fprintf(stderr, "simblas-calibrate: %zu stalled call(s) left out: more than %g times, and %g ms, slower than "
                    "their routine's other calls for their size (%.3f s beyond their pace; bench/trace-stalls lists "
                    "the calls far above their prediction, run by run)\n", t.stalled, CAL_STALL_FACTOR, 1e3 * CAL_STALL_MIN_S, t.stalled_s);
  /* the traced times as the base model's machine would run them: a VM's
   * speed moves by several percent within the hour, and the refit would
   * take on the speed of the traced runs while the lines it does not
   * touch keep the calibration's */
  if (cal_opt.time_scale > 0) {
    for (size_t i = 0; i < t.nshapes; i++) {
      t.shapes[i].t *= cal_opt.time_scale;
      t.shapes[i].sd *= cal_opt.time_scale;
    }
    fprintf(stderr, "simblas-calibrate: the traced times multiplied by %.4f (--time-scale: to the base model's "
                    "reference speed)\n", cal_opt.time_scale);
  }
  fit_point *fp = malloc(sizeof *fp * (t.nshapes ? t.nshapes : 1));
  if (!fp)
    cal_die("out of memory for %zu shapes", t.nshapes);
  int refitted = 0;
  for (int key = 0; key < CAL_NKEYS; key++) {
    size_t first, n = cal_trace_key(&t, key, &first);
    if (!n)
      continue;
    int op = key % SB_OP_COUNT, v = key >= SB_OP_COUNT;
    const cal_shape *sh = t.shapes + first;
    /* a kernel whose time depends on a leading dimension (HPL's row
     * movers: the model's line at the calibration's leading dimension,
     * scaled by the "@ld" factor f(ld)) is traced at the application's:
     * each shape's time divided by the base model's f at its ld is the
     * line's time, which is refitted; the factors stay the base model's */
    const sb_coefs *bco = sb_model_coefs_v(m, 0, op, v);
    /* the base line's factors, a copy: forget_key frees the line */
    const sb_ld_points ldc = bco ? bco->ld : (sb_ld_points){0};
    size_t calls = 0;
    double *f = malloc(sizeof *f * n);
    if (!f)
      cal_die("out of memory for %zu shapes", n);
    int64_t ld_lo = 0, ld_hi = 0;
    double f_lo = 0, f_hi = 0;
    for (size_t i = 0; i < n; i++) {
      calls += sh[i].calls;
      f[i] = sb_model_ld_factor(&ldc, sh[i].ld, sh[i].m);
      if (sh[i].ld && ldc.n) {
        ld_lo = ld_lo && ld_lo < sh[i].ld ? ld_lo : sh[i].ld;
        ld_hi = ld_hi > sh[i].ld ? ld_hi : sh[i].ld;
        f_lo = f_lo > 0 && f_lo < f[i] ? f_lo : f[i];
        f_hi = f_hi > f[i] ? f_hi : f[i];
      }
      fp[i] = (fit_point){sh[i].m, sh[i].n, sh[i].k, sh[i].t / f[i], sh[i].sd / f[i],
                          (int)(sh[i].calls > 1 << 20 ? 1 << 20 : sh[i].calls), 0};
    }
    cal_key_name(key, kn, sizeof kn);
    double before = signed_error(m, op, v, sh, n);
    fit_result r;
    fit_holdout(fp, n, 0.2, cal_opt.seed + (uint64_t)key * 31);
    if (n < CAL_TRACE_MIN || fit_model(op, fp, n, &r) != 0) {
      free(f);
      double scale = calls >= CAL_TRACE_MIN ? level_key(m, key, kn, sh, n, " source=trace-scaled trace_scale=%.4f") : 0;
      if (scale > 0) {
        refitted++;
        fprintf(stderr, "  %-14s %8zu calls, %5zu shapes: too few shapes to fit; the base model's line scaled by "
                        "%.3f where they fall (it predicted their total %+.1f%% off, now %+.1f%%)\n",
                kn, calls, n, scale, 100 * before, 100 * signed_error(m, op, v, sh, n));
      } else
        fprintf(stderr, "  %-14s %8zu calls, %5zu shapes: too few shapes to fit; the base model's line kept "
                        "(it predicts their total %+.1f%% off)\n", kn, calls, n, 100 * before);
      continue;
    }
    r.ld = ldc;
    /* the refit's error on the traced calls' total: a fit that predicts
     * them worse than the base model (few shapes, a poor held-out score)
     * is not kept */
    double pred = 0, meas = 0;
    for (size_t i = 0; i < n; i++) {
      pred += fit_result_predict(&r, sh[i].m, sh[i].n, sh[i].k) * f[i] * (double)sh[i].calls;
      meas += sh[i].t * (double)sh[i].calls;
    }
    free(f);
    double after = meas > 0 ? pred / meas - 1 : 0;
    if (!(fabs(after) <= fabs(before))) {
      double scale = level_key(m, key, kn, sh, n, " source=trace-scaled trace_scale=%.4f");
      fprintf(stderr, "  %-14s %8zu calls, %5zu shapes: the refit predicts their total %+.1f%% off, the base model "
                      "%+.1f%%: the base model's line kept", kn, calls, n, 100 * after, 100 * before);
      if (scale > 0) {
        fprintf(stderr, ", levelled (scaled by %.3f where they fall: now %+.1f%%)\n", scale,
                100 * signed_error(m, op, v, sh, n));
        refitted++;
      } else
        fputc('\n', stderr);
      continue;
    }
    forget_key(m, key, kn);
    sb_coefs *co = sb_model_line(m, 0, op, v);
    if (!co || sb_model_add_quality(m, "%s n=%zu r2=%.4f median_rel_err=%.4f p95_rel_err=%.4f heldout=%zu scope=%s "
                                       "source=trace", kn, r.n, r.r2, r.median_rel_err, r.p95_rel_err, r.n_scored,
                                    r.scored_ge_1ms ? "ge1ms" : "all"))
      cal_die("out of memory for the model");
    put_result(co, &r);
    refitted++;
    /* the refit's level: the fit weighs each shape's relative error, so
     * its line runs below the calls' mean where their times are skewed
     * (the refits of HPL's traces predicted their totals 2-15% short on
     * the Zen 5 VM, 2026-11-29), and a simulation adds the times up: each
     * part of the line is scaled to the traced calls' total, as for a
     * key with too few shapes; the fit gives the line's shape */
    double level = level_key(m, key, kn, sh, n, " trace_scale=%.4f");
    fprintf(stderr, "  %-14s %8zu calls, %5zu shapes: refitted (held-out median error %.2f%%); the base model "
                    "predicted their total %+.1f%% off, the refit %+.1f%%", kn, calls, n, 100 * r.median_rel_err,
            100 * before, 100 * after);
    if (level > 0)
      fprintf(stderr, ", levelled (scaled by %.3f where they fall): %+.1f%%", level,
              100 * signed_error(m, op, v, sh, n));
    fputc('\n', stderr);
    char fs[64]; /* the factors the calls had: one, or their range (they depend on m too) */
    if (f_lo == f_hi)
      snprintf(fs, sizeof fs, "%.3g", f_lo);
    else
      snprintf(fs, sizeof fs, "%.3g to %.3g", f_lo, f_hi);
    if (ld_lo == ld_hi && ld_lo)
      fprintf(stderr, "  %-14s traced at leading dimension %lld: the line refitted on the times divided by the base "
                      "model's @ld factor%s there (%s), whose factors it keeps\n", "", (long long)ld_lo,
              f_lo == f_hi ? "" : "s", fs);
    else if (ld_lo)
      fprintf(stderr, "  %-14s traced at leading dimensions %lld to %lld: the line refitted on the times divided by "
                      "the base model's @ld factors there (%s), which it keeps\n", "", (long long)ld_lo,
              (long long)ld_hi, fs);
  }
  free(fp);
  time_t now_t = time(NULL);
  char date[64];
  strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", gmtime(&now_t));
  if (sb_model_add_meta(m, "from_trace %s calls=%zu shapes=%zu files=%d base=\"%s\"", date, t.calls, t.nshapes,
                        nfiles, base))
    cal_die("out of memory for the model");
  /* where the refit came from: the traces, by name (simblas-hpl refine names
   * them after its runs, e.g. .../N10000-1x2/trace.0.csv) */
  size_t len = 0;
  for (int i = 0; i < nfiles; i++)
    len += strlen(files[i]) + 3;
  char *names = malloc(len + 1), *w = names;
  if (!names)
    cal_die("out of memory for the model");
  for (int i = 0; i < nfiles; i++)
    w += sprintf(w, "%s\"%s\"", i ? " " : "", files[i]);
  *w = 0;
  if (cal_opt.time_scale > 0) { /* the base model's own (an earlier refine's) is replaced */
    int keep = 0;
    for (int i = 0; i < m->nmeta; i++)
      if (strncmp(m->meta[i], "trace_time_scale ", 17))
        m->meta[keep++] = m->meta[i];
      else
        free(m->meta[i]);
    m->nmeta = keep;
    if (sb_model_add_meta(m, "trace_time_scale %.4f", cal_opt.time_scale))
      cal_die("out of memory for the model");
  }
  if (sb_model_add_meta(m, "refined_from %s", names))
    cal_die("out of memory for the model");
  free(names);
  sb_model_out *out = output;
  output = NULL;
  if (sb_model_out_commit(out, m, "refined by simblas-calibrate --from-trace " PACKAGE_VERSION
                          " from the calls an application made (trace mode)", err, sizeof err) != 0)
    cal_die("%s", err);
  fprintf(stderr, "simblas-calibrate: wrote %s: %d routine(s) refitted or scaled on the traced calls, the rest as in %s\n",
          cal_opt.out, refitted, base);
  cal_trace_free(&t);
  sb_model_free(m);
  return 0;
}

/* ---- --reference-speed: the reference speed alone --------------------------------- */
/* the shape and layout of MODEL's measured reference speed, from its meta
 * reference_speed ("measured: dgemm m=M n=N k=K in HPL's layout|packed,
 * median of ..."): the calls a calibration here made, since m and n
 * follow the probe's rate (the buffers) and differ between calibrations
 * (quick 1964, full 3280-3442 on the EPYC VM) */
static void model_reference_shape(const char *path, cal_design *d)
{
  char err[1024], lay[16];
  sb_model *m = sb_model_load(path, err, sizeof err);
  if (!m)
    cal_die("--reference-speed %s", err);
  const char *said = NULL;
  for (int i = 0; i < m->nmeta; i++)
    if (!strncmp(m->meta[i], "reference_speed ", 16))
      said = m->meta[i] + 16;
  long long a, b, c;
  if (!said || sscanf(said, "\"measured: dgemm m=%lld n=%lld k=%lld %15[a-z]", &a, &b, &c, lay) != 4 || a < 1 ||
      b < 1 || c < 1 || a > 65536 || b > 65536 || c > 65536 || (strcmp(lay, "in") && strcmp(lay, "packed")))
    cal_die("%s: its reference speed was not measured (meta reference_speed %s): a model of the calibrator before "
            "issue 23, nothing to measure again; calibrate again, or leave MODEL out", path, said ? said : "absent");
  d->ref_m = a, d->ref_n = b, d->ref_k = c;
  d->hpl_layout = !strcmp(lay, "in");
  sb_model_free(m);
}

/* the reference calls of a calibration, and nothing else: on every core at
 * once, warmed up, then --reps interleaved passes; the median over the
 * cores and the calls of their repetitions' mean, printed as one JSON line */
static int reference_only(const char *model)
{
  static blas b;
  cal_opt.routines = "dgemm";
  open_blas(&b);
  select_ops(&b);
  hwloc_topology_t topo;
  hwloc_topology_init(&topo);
  hwloc_topology_load(topo);
  cal_info info = {.seed = cal_opt.seed, .nops = b.nops, .ops = b.ops};
  int ncores = machine(topo, &b, &info);
  double t0 = cal_now();
  cal_design d = {.budget = cal_opt.budget, .max_call = cal_opt.max_call, .reps = cal_opt.reps, .seed = cal_opt.seed,
                  .rate3 = 1e10, .rate12 = 1e9, .ref_only = 1, .hpl_layout = !cal_opt.packed};
  cal_probe(b.syms[b.ops[0]], NULL, &d.rate3, &d.rate12);
  d.maxdim = cal_design_maxdim(cal_opt.max_call, d.rate3);
  if (model) {
    model_reference_shape(model, &d);
    /* the buffers and the local matrix's columns hold the model's calls */
    int64_t need = d.hpl_layout ? (d.ref_m > d.ref_n ? d.ref_m : d.ref_n) : d.ref_m;
    d.maxdim = d.hpl_layout && d.maxdim > need ? d.maxdim : need;
  }
  local_matrix_size(ncores, &d, d.hpl_layout);
  /* HPL's layout: C in the local matrix, L (m x k) and U (n x k) at the
   * start of their buffers: buffers of that size, filled as a calibration
   * fills its own (--reference-speed's setup was most of its time) */
  if (d.hpl_layout) {
    double mn = d.ref_m ? (double)(d.ref_m > d.ref_n ? d.ref_m : d.ref_n) : 4096, k = d.ref_m ? (double)d.ref_k : 256;
    d.bufdim = (int64_t)ceil(sqrt(mn * k / 2)) + 1;
  }
  if (d.hpl_layout && d.ref_m && (d.ref_m + d.ref_k > d.lld || d.ref_n > d.lcols))
    cal_die("%s's reference calls (m=%lld n=%lld k=%lld) do not fit this machine's local matrix (%lld x %lld): "
            "was it calibrated with --lld? give the same --lld", model, (long long)d.ref_m, (long long)d.ref_n,
            (long long)d.ref_k, (long long)d.lld, (long long)d.lcols);
  size_t npts;
  cal_point *pts = cal_design_points(&d, b.ops, b.nops, &npts);
  fit_result *node = calloc(CAL_NKEYS, sizeof *node);
  if (!pts || !node)
    cal_die("out of memory for the design");
  info.node = node;
  cal_catch_signals();
  cal_run run = {.pts = pts, .npts = npts, .syms = b.syms, .design = &d, .ncores = ncores, .topo = topo};
  int sig = cal_measure(&run);
  if (sig) {
    fprintf(stderr, "simblas-calibrate: interrupted (signal %d)\n", sig);
    return 130;
  }
  char said[256];
  double speed = reference_speed(&info, &run, d.rate3, said, sizeof said, NULL);
  printf("{\"reference_speed\": %.6g, \"said\": \"%s\", \"cores\": %d, \"reps\": %d, \"stolen_share\": %.4f, "
         "\"wall_s\": %.2f}\n", speed, said, ncores, cal_opt.reps, run.timed_wall > 0 ? run.stolen / run.timed_wall : 0,
         cal_now() - t0);
  cal_run_free(&run);
  free(node);
  free(pts);
  hwloc_topology_destroy(topo);
  return fflush(stdout) == 0 ? 0 : 1;
}

int main(int argc, char **argv)
{
  cal_parse_options(argc, argv);
  if (cal_opt.summary)
    return cal_summary(cal_opt.summary);
  if (cal_opt.from_trace)
    return from_trace(argc - optind, argv + optind);
  if (cal_opt.network) {
    if (cal_opt.hostfile)
      output_not_input(cal_opt.hostfile, "--hostfile");
    return cal_network(cal_opt.out, cal_opt.hostfile);
  }
  if (cal_opt.reference)
    return reference_only(optind < argc ? argv[optind] : NULL);
  open_output();
  static blas b;
  open_blas(&b);
  select_ops(&b);
  hwloc_topology_t topo;
  hwloc_topology_init(&topo);
  hwloc_topology_load(topo);
  cal_info info = {.quick = cal_opt.quick, .seed = cal_opt.seed, .nops = b.nops, .ops = b.ops};
  int ncores = machine(topo, &b, &info);
  cal_catch_signals();

  double t0 = cal_now();
  cal_design d = {.budget = cal_opt.budget, .max_call = cal_opt.max_call, .reps = cal_opt.reps, .seed = cal_opt.seed,
                  .rate3 = 1e10, .rate12 = 1e9};
  void *daxpy = dlsym(b.handle, "daxpy_");
  cal_probe(dlsym(b.handle, "dgemm_"), daxpy, &d.rate3, &d.rate12);
  char axpy_rate[64];
  if (daxpy)
    snprintf(axpy_rate, sizeof axpy_rate, "daxpy %.2f GFlop/s", d.rate12 / 1e9);
  else /* the level 1-2 estimates then take a guess: say it is one */
    snprintf(axpy_rate, sizeof axpy_rate, "no daxpy_ in this BLAS, %.0f GFlop/s assumed", d.rate12 / 1e9);
  d.maxdim = cal_design_maxdim(cal_opt.max_call, d.rate3);
  d.ld_rounds = cal_opt.packed ? 0 : cal_opt.ld_rounds;
  d.solo_rounds = cal_opt.solo_rounds;
  d.ncores = ncores;
  d.hpl_layout = !cal_opt.packed;
  d.mixed_order = cal_opt.mixed;
  int with_dgemm = 0;
  for (int i = 0; i < b.nops; i++)
    with_dgemm |= b.ops[i] == sb_op_lookup("dgemm");
  local_matrix_size(ncores, &d, d.hpl_layout && with_dgemm);
  size_t npts;
  cal_point *pts = cal_design_points(&d, b.ops, b.nops, &npts);
  if (!pts)
    cal_die("out of memory for the design");
  reserve_room(&b, ncores, pts, npts);
  double total_est = 0;
  for (size_t i = 0; i < npts; i++)
    total_est += pts[i].est;
  fprintf(stderr,
          "simblas-calibrate: %s, %d core(s); %s\n"
          "simblas-calibrate: %d routines (%d not in this BLAS), %zu shapes x %d repetitions on every core, "
          "about %.0f s (probe: dgemm %.1f GFlop/s, %s)\n"
          "simblas-calibrate: HPL's local matrix: %lld rows (its leading dimension) x %lld columns, %.0f MB per "
          "core; HPL's dgemm and dtrsm %s\n",
          info.machine, ncores, info.backend, b.nops, b.skipped, npts, cal_opt.reps, total_est, d.rate3 / 1e9,
          axpy_rate, (long long)d.lld, (long long)d.lcols, (double)d.lld * (double)d.lcols * 8 / 1e6,
          cal_opt.packed ? "packed, in the caches (--packed)" : "in HPL's layout, in it");

  cal_run run = {.pts = pts, .npts = npts, .syms = b.syms, .design = &d, .ncores = ncores, .topo = topo};
  int sig = cal_measure(&run);
  if (sig) {
    fprintf(stderr, "simblas-calibrate: interrupted (signal %d); %s left untouched\n", sig, cal_opt.out);
    return 130;
  }
  const char *refused = say_interruptions(&run);
  info.interrupted = run.interrupted;
  info.stolen = run.stolen;
  info.stolen_share = run.timed_wall > 0 ? run.stolen / run.timed_wall : 0;
  info.spread = run.spread;
  info.drift = run.drift;
  info.pass_speed = run.pass_speed;
  info.npasses = run.npasses;

  fit_all(&run, &info);
  const cal_point *ref = NULL;
  info.reference_speed = reference_speed(&info, &run, d.rate3, info.reference_said, sizeof info.reference_said, &ref);
  info.dgemm_scale = anchor_dgemm(&info, &run, ref);
  solo_factors(&info, &run);
  info.wall = cal_now() - t0;
  const char *written = write_model(&info, refused);
  if (cal_opt.report)
    cal_report(written, &info, &run);
  if (refused) {
    fprintf(stderr, "simblas-calibrate: %s; the model measured is kept in %s; calibrate again on an idle machine "
                    "(stop the other processes), or add --force to install a disturbed one\n", refused, written);
    return 1;
  }
  say_quality(&info, &b);
  cal_run_free(&run);
  free((void *)info.node);
  free((void *)info.cores);
  free(pts);
  hwloc_topology_destroy(topo);
  return 0;
}
