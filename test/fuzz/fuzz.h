/*
 * fuzz.h -- what the fuzzers of test/fuzz/ share: a finding (FUZZ_PROG
 * names the harness), the input as a file, the form of a refusal, and the
 * call sizes they predict at.
 */
#ifndef SB_FUZZ_H
#define SB_FUZZ_H

#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static _Noreturn void finding(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static _Noreturn void finding(const char *fmt, ...)
{
  va_list ap;
  fputs(FUZZ_PROG ": FINDING: ", stderr);
  va_start(ap, fmt);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  fputc('\n', stderr);
  abort();
}

/* len bytes of text as a file to read */
static FILE *fuzz_open(const void *text, size_t len)
{
  static const char empty[1] = "";
  FILE *f = fmemopen(len ? (void *)text : (void *)empty, len ? len : 1, "r");
  if (!f)
    finding("fmemopen failed");
  if (!len)
    fgetc(f); /* an empty file: fmemopen wants a size of 1 at least */
  return f;
}

/* a refusal of the file `name` (size bytes of data): "NAME:LINE: reason"
 * with a line of the file, or "NAME: reason", on one line */
static void check_refusal(const char *err, const char *name, const uint8_t *data, size_t size)
{
  size_t nl = strlen(name);
  const char *why = err + nl + 2;
  if (strncmp(err, name, nl) || err[nl] != ':' || strchr(err, '\n'))
    finding("a refusal that does not name the file on one line: \"%s\"", err);
  if (err[nl + 1] != ' ') { /* NAME:LINE: reason */
    long lines = 0;
    for (size_t i = 0; i < size; i++)
      lines += data[i] == '\n' || i == size - 1;
    char *end;
    long line = strtol(err + nl + 1, &end, 10);
    if (line < 1 || strncmp(end, ": ", 2))
      finding("a refusal without its line: \"%s\"", err);
    if (line > lines)
      finding("a refusal at line %ld of a file of %ld lines: \"%s\"", line, lines, err);
    why = end + 2;
  }
  if (strlen(why) < 8)
    finding("a refusal without a reason: \"%s\"", err);
}

#define MAXSIZE INT64_C(2147483647)
#define NSHAPES 24

static int64_t clamp_size(double s) { return s < 0 ? 0 : s > (double)MAXSIZE ? MAXSIZE : (int64_t)s; }

/* the call sizes, shape[NSHAPES]: the edges (0, 1, 2^31-1, the int32
 * square root) and a few drawn from the input's bytes, log-uniformly up to
 * 2^31-1: the same input, the same shapes */
static void fuzz_shapes(int64_t shape[NSHAPES][3], const uint8_t *data, size_t size)
{
  static const int64_t edges[16][3] = {{0, 0, 0}, {1, 1, 1}, {2, 3, 7}, {384, 384, 384}, {1000, 10, 384},
                                       {4096, 4096, 128}, {46341, 46341, 46341}, {65536, 65536, 65536},
                                       {100, 100000, 1}, {MAXSIZE, MAXSIZE, MAXSIZE}, {MAXSIZE, 1, 1},
                                       {1, MAXSIZE, 1}, {1, 1, MAXSIZE}, {MAXSIZE, MAXSIZE, 0},
                                       {0, MAXSIZE, MAXSIZE}, {MAXSIZE, 0, MAXSIZE}};
  int n = 0;
  for (; n < 16; n++)
    for (int d = 0; d < 3; d++)
      shape[n][d] = edges[n][d];
  uint64_t h = 1469598103934665603ull;
  for (size_t i = 0; i < size; i++)
    h = (h ^ data[i]) * 1099511628211ull;
  for (; n < NSHAPES; n++)
    for (int d = 0; d < 3; d++) {
      h = h * 6364136223846793005ull + 1442695040888963407ull;
      shape[n][d] = clamp_size(exp2((double)(h >> 11) * 0x1p-53 * 31) - 1);
    }
}

#endif
