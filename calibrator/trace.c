/*
 * trace.c -- see trace.h.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "design.h"
#include "trace.h"

typedef struct row {
  int key;
  int64_t m, n, k, ld;
  double t, pred; /* measured and predicted (the tracing model's; 0: none) */
} row;

/* stalls (trace.h: CAL_STALL_FACTOR, CAL_STALL_MIN_S), in a key of
 * CAL_STALL_PEERS calls or more with predictions, of which at most
 * CAL_STALL_SHARE are such: more are the model's error, which the refit is
 * for.  On a Zen 5 VM (doc/performance.md, 2026-11-29), HPL's first row
 * swaps of a run took 67-344 times their prediction and up to 1.2 s each,
 * a few calls in 37,000; refitted on two rounds of such traces, a model
 * predicted a stall-free run's memory kernels at 1.24 and 1.00 of their
 * time with the stalls, 0.90 and 1.04 without */
#define CAL_STALL_PEERS 8
#define CAL_STALL_SHARE 0.05

static int cmp_row(const void *a, const void *b)
{
  const row *x = a, *y = b;
  if (x->key != y->key)
    return x->key < y->key ? -1 : 1;
  if (x->m != y->m)
    return x->m < y->m ? -1 : 1;
  if (x->n != y->n)
    return x->n < y->n ? -1 : 1;
  if (x->k != y->k)
    return x->k < y->k ? -1 : 1;
  return (x->ld > y->ld) - (x->ld < y->ld);
}

/* the model key of a routine column: "dgemm", "dtrsm.right" */
static int key_of(const char *name, int64_t m, int64_t n, int64_t k)
{
  char base[64];
  size_t len = strlen(name), sl = strlen(SB_RIGHT_SUFFIX);
  int right = len > sl && !strcmp(name + len - sl, SB_RIGHT_SUFFIX);
  snprintf(base, sizeof base, "%.*s", (int)(right ? len - sl : len), name);
  int op = sb_op_lookup(base);
  if (op < 0 || (right && sb_ops[op].variants < 2))
    return -1;
  if (!right && sb_ops[op].variants > 1 && k == n && k != m) /* an older trace: no suffix */
    right = 1;
  return op + (right ? SB_OP_COUNT : 0);
}

static int read_one(const char *path, row **rows, size_t *nrows, size_t *cap, cal_trace *t, char *err, size_t errlen)
{
  FILE *f = fopen(path, "r");
  if (!f) {
    snprintf(err, errlen, "--from-trace %s: %s", path, strerror(errno));
    return -1;
  }
  /* getline: a row of any length is one row (a 512-byte fgets read a longer
   * one's tail as the next row, refused with the next row's number) */
  char *line = NULL;
  size_t linecap = 0, lineno = 0;
  int rc = 0, with_ld = 0;
  while (getline(&line, &linecap, f) >= 0) {
    lineno++;
    if (lineno == 1) {
      if (strncmp(line, "routine,m,n,k,predicted_s,measured_s", 36) != 0) {
        snprintf(err, errlen, "--from-trace %s:1: not a SimBLAS trace (its header is not "
                 "routine,m,n,k,predicted_s,measured_s,rank,cblas,ld); SIMBLAS_MODE=trace writes one", path);
        rc = -1;
        break;
      }
      /* a trace of a libsimblas before the ld column has eight */
      with_ld = !strncmp(line, "routine,m,n,k,predicted_s,measured_s,rank,cblas,ld", 50) && strchr("\r\n,", line[50]);
      continue;
    }
    char name[64];
    long long m, n, k, ld = 0;
    double pred, meas;
    long rank;
    int cblas;
    int got = sscanf(line, "%63[^,],%lld,%lld,%lld,%lf,%lf,%ld,%d,%lld", name, &m, &n, &k, &pred, &meas, &rank,
                     &cblas, &ld);
    if (got < 6 || (with_ld && got != 9) || m < 0 || n < 0 || k < 0 || ld < 0 || !isfinite(meas)) {
      snprintf(err, errlen, "--from-trace %s:%zu: not a trace row (routine,m,n,k,predicted_s,measured_s,rank,cblas%s)",
               path, lineno, with_ld ? ",ld" : "");
      rc = -1;
      break;
    }
    if (!with_ld)
      ld = 0;
    int key = key_of(name, m, n, k);
    if (key < 0) {
      snprintf(err, errlen, "--from-trace %s:%zu: unknown routine '%s'", path, lineno, name);
      rc = -1;
      break;
    }
    if (!(meas > 0)) { /* a quick return, timed as nothing */
      t->skipped++;
      continue;
    }
    if (*nrows == *cap) {
      size_t nc = *cap ? 2 * *cap : 4096;
      row *r = realloc(*rows, sizeof *r * nc);
      if (!r) {
        snprintf(err, errlen, "out of memory reading %s", path);
        rc = -1;
        break;
      }
      *rows = r, *cap = nc;
    }
    (*rows)[(*nrows)++] = (row){key, m, n, k, ld, meas, isfinite(pred) && pred > 0 ? pred : 0};
    t->calls++;
  }
  if (!rc && ferror(f)) { /* a directory opens, then reads as EISDIR: not an empty file */
    snprintf(err, errlen, "--from-trace %s: cannot read it: %s; give the trace file SIMBLAS_TRACE wrote", path,
             strerror(errno));
    rc = -1;
  } else if (!rc && lineno == 0) {
    snprintf(err, errlen, "--from-trace %s: an empty file (a trace has a header line, then a row per call)", path);
    rc = -1;
  }
  free(line);
  fclose(f);
  return rc;
}

static int cmp_double(const void *a, const void *b)
{
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* a stalled call (trace.h), med the key's median measured/predicted ratio */
static int stalled(const row *r, double med)
{
  return r->pred > 0 && r->t > CAL_STALL_FACTOR * med * r->pred && r->t - med * r->pred >= CAL_STALL_MIN_S;
}

/* the stalls of the rows [a, b) of one key left out (trace.h): rows
 * compacted in place, t's counts updated; the new end */
static size_t drop_stalls(row *rows, size_t a, size_t b, double *ratio, cal_trace *t)
{
  size_t nr = 0, stalls = 0;
  for (size_t i = a; i < b; i++)
    if (rows[i].pred > 0)
      ratio[nr++] = rows[i].t / rows[i].pred;
  if (nr < CAL_STALL_PEERS)
    return b;
  qsort(ratio, nr, sizeof *ratio, cmp_double);
  double med = nr % 2 ? ratio[nr / 2] : 0.5 * (ratio[nr / 2 - 1] + ratio[nr / 2]);
  for (size_t i = a; i < b; i++)
    stalls += stalled(&rows[i], med);
  if (!stalls || (double)stalls > CAL_STALL_SHARE * (double)(b - a))
    return b;
  size_t w = a;
  for (size_t i = a; i < b; i++)
    if (stalled(&rows[i], med)) {
      t->stalled++;
      t->stalled_s += rows[i].t - med * rows[i].pred;
    } else
      rows[w++] = rows[i];
  t->calls -= stalls;
  return w;
}

int cal_trace_read(const char *const *paths, int n, cal_trace *t, char *err, size_t errlen)
{
  memset(t, 0, sizeof *t);
  row *rows = NULL;
  size_t nrows = 0, cap = 0;
  for (int i = 0; i < n; i++)
    if (read_one(paths[i], &rows, &nrows, &cap, t, err, errlen) != 0) {
      free(rows);
      return -1;
    }
  qsort(rows, nrows, sizeof *rows, cmp_row);
  t->shapes = malloc(sizeof *t->shapes * (nrows ? nrows : 1));
  double *ratio = malloc(sizeof *ratio * (nrows ? nrows : 1));
  if (!t->shapes || !ratio) {
    free(rows);
    free(ratio);
    free(t->shapes);
    t->shapes = NULL;
    snprintf(err, errlen, "out of memory for %zu trace rows", nrows);
    return -1;
  }
  /* each key's stalls left out, the rows kept in order */
  size_t kept = 0;
  for (size_t a = 0; a < nrows;) {
    size_t b = a;
    while (b < nrows && rows[b].key == rows[a].key)
      b++;
    size_t end = drop_stalls(rows, a, b, ratio, t);
    memmove(rows + kept, rows + a, sizeof *rows * (end - a));
    kept += end - a;
    a = b;
  }
  free(ratio);
  nrows = kept;
  for (size_t a = 0; a < nrows;) {
    size_t b = a;
    double sum = 0, ss = 0;
    while (b < nrows && !cmp_row(&rows[a], &rows[b]))
      sum += rows[b++].t;
    double mean = sum / (double)(b - a);
    for (size_t i = a; i < b; i++)
      ss += (rows[i].t - mean) * (rows[i].t - mean);
    t->shapes[t->nshapes++] = (cal_shape){rows[a].key, rows[a].m, rows[a].n, rows[a].k, rows[a].ld, mean,
                                          b - a > 1 ? sqrt(ss / (double)(b - a - 1)) : 0, b - a};
    a = b;
  }
  free(rows);
  return 0;
}

size_t cal_trace_key(const cal_trace *t, int key, size_t *first)
{
  size_t i = 0;
  while (i < t->nshapes && t->shapes[i].key < key)
    i++;
  *first = i;
  size_t j = i;
  while (j < t->nshapes && t->shapes[j].key == key)
    j++;
  return j - i;
}

void cal_trace_free(cal_trace *t)
{
  free(t->shapes);
  memset(t, 0, sizeof *t);
}
