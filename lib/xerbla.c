/*
 * xerbla.c -- netlib's error handlers and the CBLAS globals, exported as
 * reference BLAS/CBLAS export them.  The library reaches xerbla_ and
 * cblas_xerbla through their dynamic symbols, so a program's own handlers
 * (the netlib test programs have them) take over.
 */
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sb_call.h"
#include "simblas.h"
SIMBLAS_EXPORT void cblas_xerbla(int p, const char *rout, const char *form, ...);

int CBLAS_CallFromC = 0;
int RowMajorStrg = 0;

/* As OpenBLAS (which SimBLAS replaces): print and return.  Called from a
 * cblas_ routine, hand over to cblas_xerbla with the CBLAS parameter
 * number, as netlib's cblas does. */
void xerbla_(const char *srname, const int *info, size_t len)
{
  size_t n = strnlen(srname, 32);
  if (len > 0 && len < n)
    n = len;
  while (n > 0 && srname[n - 1] == ' ')
    n--;
  if (CBLAS_CallFromC) {
    char rout[40] = "cblas_";
    for (size_t i = 0; i < n; i++)
      rout[6 + i] = (char)tolower((unsigned char)srname[i]);
    rout[6 + n] = '\0';
    cblas_xerbla(*info + 1, rout, "");
    return;
  }
  fprintf(stderr, " ** On entry to %-6.*s parameter number %2d had an illegal value\n", (int)n, srname, *info);
}

SIMBLAS_EXPORT extern __typeof__(xerbla_) __xerbla __attribute__((alias("xerbla_")));

void xerbla_array_(const char *srname_array, const int *srname_len, const int *info, size_t array_len)
{
  (void)array_len;
  char name[33];
  int n = *srname_len < 32 ? *srname_len : 32;
  if (n < 0)
    n = 0;
  memset(name, ' ', sizeof name - 1);
  memcpy(name, srname_array, (size_t)n);
  name[32] = '\0';
  xerbla_(name, info, 32);
}

int lsame_(const char *ca, const char *cb, size_t la, size_t lb)
{
  (void)la;
  (void)lb;
  return toupper((unsigned char)*ca) == toupper((unsigned char)*cb);
}

/* netlib cblas_xerbla: in row-major calls the Fortran-level check saw
 * some arguments in each other's places; report the position the C caller
 * used.  Which positions is the routine's row-major swap (the family
 * table's swap column, lib/sb_call.h); a name that is not a routine of
 * the table ("cblas_" optional) swaps nothing. */
void cblas_xerbla(int info, const char *rout, const char *form, ...)
{
  va_list ap;
  if (RowMajorStrg) {
    int op = sb_op_lookup(strncmp(rout, "cblas_", 6) ? rout : rout + 6);
    const unsigned char *sw = op >= 0 ? sb_ops[op].rm_swap : (const unsigned char[4]){0};
    for (int i = 0; i < 4; i += 2)
      if (info == sw[i] || info == sw[i + 1]) {
        info = sw[i] + sw[i + 1] - info;
        break;
      }
  }
  if (info)
    fprintf(stderr, "Parameter %d to routine %s was incorrect\n", info, rout);
  va_start(ap, form);
  vfprintf(stderr, form, ap);
  va_end(ap);
  exit(-1);
}

/* the other spellings Fortran compilers use */
SIMBLAS_EXPORT extern __typeof__(xerbla_) xerbla __attribute__((alias("xerbla_")));
SIMBLAS_EXPORT extern __typeof__(xerbla_) XERBLA __attribute__((alias("xerbla_")));
SIMBLAS_EXPORT extern __typeof__(xerbla_array_) xerbla_array __attribute__((alias("xerbla_array_")));
SIMBLAS_EXPORT extern __typeof__(xerbla_array_) XERBLA_ARRAY __attribute__((alias("xerbla_array_")));
SIMBLAS_EXPORT extern __typeof__(lsame_) lsame __attribute__((alias("lsame_")));
SIMBLAS_EXPORT extern __typeof__(lsame_) LSAME __attribute__((alias("lsame_")));
