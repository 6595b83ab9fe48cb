/*
 * die.c -- see die.h.
 */
#include <stdio.h>
#include <stdlib.h>

#include "die.h"

_Noreturn void sb_vdie(const char *prog, const char *fmt, va_list ap)
{
  fprintf(stderr, "%s: ", prog);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  exit(2);
}
