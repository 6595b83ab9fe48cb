/*
 * settings.h -- libsimblas's settings: the SIMBLAS_* variables of
 * settings.def, parsed and checked once (sb_settings_load), then read as
 * fields of sb_cfg; the calibrator reads its rows the same way, one by one
 * (sb_settings_load_row).  A bad value stops the program with one line naming
 * the variable and the values it accepts, before any work.
 */
#ifndef SB_SETTINGS_H
#define SB_SETTINGS_H

#include <float.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>

#include "netfactors.h"
#include "sb_call.h" /* SB_HIDDEN */

#ifndef SB_DEFAULT_MODEL
#define SB_DEFAULT_MODEL "default.model"
#endif
#ifndef SB_DEFAULT_BACKEND
#define SB_DEFAULT_BACKEND "libopenblas.so.0"
#endif

/* who reads a variable */
enum { SB_LIB = 1, SB_TOOL = 2, SB_TEST = 4 };
/* its type: how libsimblas parses it */
enum sb_setting_type { SB_TEXT, SB_ENUM, SB_FLAG, SB_COUNT, SB_UINT, SB_REAL, SB_BYTES, SB_FACTORS };

#define SB_CTYPE_TEXT const char *
#define SB_CTYPE_ENUM int
#define SB_CTYPE_FLAG int
#define SB_CTYPE_COUNT long
#define SB_CTYPE_UINT uint64_t
#define SB_CTYPE_REAL double
#define SB_CTYPE_BYTES size_t
#define SB_CTYPE_FACTORS sb_factors

typedef struct sb_settings {
#define SB_SETTING(NAME, field, TYPE, LO, HI, DEFAULT, USERS, OPTION, VALUES, ACCEPTS, HELP) SB_CTYPE_##TYPE field;
#include "settings.def"
#undef SB_SETTING
  /* each variable as given: NULL when unset or empty */
  struct {
#define SB_SETTING(NAME, field, ...) const char *field;
#include "settings.def"
#undef SB_SETTING
  } given;
} sb_settings;

/* The values, after sb_settings_load().  Besides each variable's own,
 * what settings.c derives: merge is 0 outside smpi mode; pivot_defer is 0
 * without idle_merge; poll_max is at least poll_cost; iterations is -1
 * for SIMBLAS_ITERATIONS=0 (allocate only), 0 when unset (all). */
extern sb_settings sb_cfg SB_HIDDEN;

/* parse and check every variable, once (the first call; later calls
 * return at once) */
SB_HIDDEN void sb_settings_load(void);

/* each row's index, in settings.def's order: SB_ROW_mpirun */
enum sb_setting_index {
#define SB_SETTING(NAME, field, ...) SB_ROW_##field,
#include "settings.def"
#undef SB_SETTING
  SB_ROW_COUNT
};
/* a program beside libsimblas (the calibrator): parse the one row ROW
 * into sb_cfg (its field and given), by the parser sb_settings_load uses,
 * stopping as it does on a bad value; no other row is read or checked */
SB_HIDDEN void sb_settings_load_row(int row);

/* one row of the table, for lib/mksettings */
typedef struct sb_setting_row {
  const char *name, *type;
  double lo, hi;
  const char *dflt;
  int users;
  const char *option, *values, *accepts, *help;
} sb_setting_row;
extern const sb_setting_row sb_setting_rows[] SB_HIDDEN;
extern const int sb_setting_count SB_HIDDEN;

/* one SB_NEEDS row: NAME set above ABOVE needs NEEDS ("VAR=VALUE VAR>X ...") */
typedef struct sb_setting_need {
  const char *name;
  double above;
  const char *needs, *why;
} sb_setting_need;
extern const sb_setting_need sb_setting_needs[] SB_HIDDEN;
extern const int sb_setting_need_count SB_HIDDEN;
/* the next "VAR=VALUE" or "VAR>X" of a NEEDS text at *P: its length (0 at
 * the end), *ITEM its start, *EQ the length of VAR (the '=' or '>' is
 * (*ITEM)[*EQ]); *P moves past it */
SB_HIDDEN size_t sb_need_next(const char **p, const char **item, size_t *eq);
/* NEEDS as the messages say it: "A=a, B=b and C=c", in OUT */
SB_HIDDEN const char *sb_needs_said(const char *needs, char *out, size_t outlen);

#endif
