/*
 * die.h -- the one-line refusal that libsimblas (sb_fatal) and the
 * calibrator (cal_die) share: "PROG: message" on stderr, exit status 2.
 */
#ifndef SB_DIE_H
#define SB_DIE_H

#include <stdarg.h>

#include "sb_call.h" /* SB_HIDDEN */

/* print "PROG: " and FMT with AP, then a newline, on stderr; exit(2) */
SB_HIDDEN _Noreturn void sb_vdie(const char *prog, const char *fmt, va_list ap);

#endif
