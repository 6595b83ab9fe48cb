/*
 * model.h -- the model core: reads a model file (doc/model-format.md),
 * predicts the duration of a call from its canonical shape, and writes
 * model files (the one writer, for simblas-calibrate and models/mkdefault).
 * Pure C: no SimGrid, no BLAS, no GSL.  Read-only once loaded, so one copy
 * serves every simulated rank.
 */
#ifndef SB_MODEL_H
#define SB_MODEL_H

#include <stdint.h>
#include <stdio.h>

#include "sb_call.h"

/* variant 1: a routine's Right-side form, key "<name>.right" */
#define SB_NVARIANTS 2
#define SB_RIGHT_SUFFIX ".right"

/* the 8 monomials of (m, n, k): bit 0 = m, bit 1 = n, bit 2 = k */
#define SB_NTERMS 8
extern const char *const sb_term_names[SB_NTERMS] SB_HIDDEN;

/* no prediction exceeds this: about 3 million years */
#define SB_MODEL_MAX_SECONDS 1e14

/* a file holds at most this many coefficient sets (a set is a core or a
 * kind of host) */
#define SB_MAX_SETS 4096

/* a piece: coefficients for calls whose term `term` (an index into
 * sb_term_names: m, n, k, mn, ...) is at least `at` -- the lines
 * "dtrsm[m>=384] ..." and "hpl_dlacpy[mn>=262144] ...".  Among matching
 * pieces the one with the largest bound wins; the plain line covers the
 * rest. */
#define SB_MAX_PIECES 4
typedef struct sb_piece {
  int term;
  double at;
  double mu[SB_NTERMS], sigma[SB_NTERMS];
  unsigned char terms, sigma_terms; /* the terms the line gives: bit t = term t */
} sb_piece;

/* one routine's line in one set: mean and standard deviation, seconds per
 * unit of each term (0 for a term the line does not give) */
/* the line "hpl_dlaswp01T@ld 3142:0.61:0.2 6284:0.65 ... 50272:1": a call
 * that gives its operand's leading dimension (sb_call.ld > 0) has its
 * prediction (mean and deviation) multiplied by f(ld, m), piecewise linear
 * in log(ld) through the points (ascending), constant beyond the first
 * and the last; at a point LD:F:G, f = F (m / SB_LD_M0)^G (G 0 when not
 * given: F for every m); a call without a leading dimension, or a line
 * without points, is not scaled */
#define SB_MAX_LD 8
#define SB_LD_M0 128.0
#define SB_LD_MAX_G 2.0
typedef struct sb_ld_points {
  int n; /* 0: no @ld line */
  double at[SB_MAX_LD], f[SB_MAX_LD], g[SB_MAX_LD];
} sb_ld_points;
typedef struct sb_coefs {
  double mu[SB_NTERMS];
  double sigma[SB_NTERMS];
  unsigned char terms, sigma_terms; /* bit t: the line gives term t (sigma: after '|') */
  int npieces;
  sb_piece piece[SB_MAX_PIECES];
  sb_ld_points ld;
} sb_coefs;

typedef struct sb_set {
  char *name;
  sb_coefs *line[SB_NVARIANTS * SB_OP_COUNT]; /* NULL: no line for that key */
} sb_set;

typedef struct sb_model {
  char *path;
  int version;
  double reference_speed; /* flop/s of the host the model describes */
  int nsets;
  sb_set **sets;          /* set 0 is "node": the default set */
  int nmeta, nquality;
  char **meta, **quality; /* the text after "meta " and "quality " */
} sb_model;

/* Parse a model file.  On error returns NULL and writes "FILE:LINE: what
 * is wrong; what to do" (or "FILE: ..." for the file as a whole) into err,
 * which always holds a message then. */
SB_HIDDEN sb_model *sb_model_load(const char *path, char *err, size_t errlen);
SB_HIDDEN sb_model *sb_model_parse(FILE *f, const char *name, char *err, size_t errlen);
SB_HIDDEN void sb_model_free(sb_model *m);

/* index of a set by name, -1 if absent */
SB_HIDDEN int sb_model_set(const sb_model *m, const char *name);

/* Coefficients for op in set (falling back to set 0); NULL when the file
 * has no line for the op in either, which means the flop-count fallback.
 * A variant without its own line uses the op's plain line. */
SB_HIDDEN const sb_coefs *sb_model_coefs(const sb_model *m, int set, int op);
SB_HIDDEN const sb_coefs *sb_model_coefs_v(const sb_model *m, int set, int op, int variant);
/* model-file key to (op, variant); -1 if unknown */
SB_HIDDEN int sb_model_key(const char *key, int *variant);

/* A line of a model file (and of a node file, node.c): BUF cut at its
 * comment ('#' to the end of the line), then its first word, the key,
 * returned (NULL: a blank or comment-only line), *REST the rest of the
 * line without its leading and trailing blanks ("" if nothing follows),
 * and *SAVE where strtok_r goes on through the rest's words.  BUF is
 * modified. */
SB_HIDDEN char *sb_model_split_line(char *buf, char **rest, char **save);

/* the mean prediction, finite, >= 0 and at most SB_MODEL_MAX_SECONDS for
 * any sizes in [0, 2^31) */
SB_HIDDEN double sb_model_mean(const sb_model *m, const sb_coefs *co, const sb_call *c);
/* the same with each term's part multiplied by w[term] (> 0; node.c: the
 * target node's scales); the flop-count fallback takes w of the op's flop
 * term */
SB_HIDDEN double sb_model_mean_w(const sb_model *m, const sb_coefs *co, const sb_call *c, const double w[SB_NTERMS]);
/* standard deviation of the residual (0 without a sigma part), bounded
 * the same way */
SB_HIDDEN double sb_model_sigma(const sb_coefs *co, const sb_call *c);
/* the piece of co that predicts the call (an index into co->piece), -1
 * for the plain line */
SB_HIDDEN int sb_model_piece(const sb_coefs *co, const sb_call *c);
/* the factor of a line's "@ld" points for a call of m rows at leading
 * dimension ld (1 without points or without a leading dimension) */
SB_HIDDEN double sb_model_ld_factor(const sb_ld_points *pts, int64_t ld, int64_t m);

/* ---- building and writing a model ------------------------------------------
 * What the parser builds, a writer builds the same way: a new model (format
 * SIMBLAS_MODEL_FORMAT, set "node", no reference speed yet), sets, lines,
 * meta and quality text.  These return -1 or NULL when out of memory, or
 * for a set name the format cannot hold (empty, blank, '#'), or past
 * SB_MAX_SETS. */
SB_HIDDEN sb_model *sb_model_new(void);
SB_HIDDEN int sb_model_add_set(sb_model *m, const char *name); /* its index (existing or new) */
/* the line of (op, variant) in set, created empty (no terms) if absent */
SB_HIDDEN sb_coefs *sb_model_line(sb_model *m, int set, int op, int variant);
/* a "meta" or "quality" line; '#' and line breaks in the text become ' ' */
SB_HIDDEN int sb_model_add_meta(sb_model *m, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
SB_HIDDEN int sb_model_add_quality(sb_model *m, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Write m in the format the parser reads: the version, `comment` (lines
 * of text, each written after "# "; may be NULL), meta lines, the reference
 * speed, quality lines, then every set and its lines, pieces after their
 * line, and "end".  Numbers are written in the fewest digits that read
 * back to the same double, so that parsing the output gives the same
 * predictions, and writing that again the same text.  Returns 0, or -1
 * with the reason in err for a model the parser would refuse (no
 * reference speed, a line without terms, a non-finite coefficient, two
 * pieces at one bound) or a write error. */
SB_HIDDEN int sb_model_write(FILE *f, const sb_model *m, const char *comment, char *err, size_t errlen);

/* Writing a model file atomically: sb_model_out_open creates a locked
 * temporary ".NAME.tmp.XXXXXX" beside PATH (mode 0644: installed data is
 * world-readable), after removing the stale ones a killed writer left (a
 * temporary no process holds locked), and reserves `reserve` bytes in it, so
 * that a full disk or an unwritable place is said before any long work.
 * An existing PATH is replaced only if it is a model (its first line
 * 'simblas-model') or empty: any other file, or no regular file, is
 * refused, so that a mistyped -o loses nothing.  A symbolic link is
 * written through: the temporary is made beside the file it ends at,
 * which is replaced, and the link kept.
 * sb_model_out_commit renders the model and commits the text
 * (sb_model_out_commit_text).  sb_model_out_abandon removes the temporary.
 * Both commits and abandon free `o`.  Errors: NULL or -1 and "PATH: what;
 * what to do" in err. */
typedef struct sb_model_out sb_model_out;
SB_HIDDEN sb_model_out *sb_model_out_open(const char *path, size_t reserve, char *err, size_t errlen);
/* the same for another kind of file written atomically (simblas-calibrate
 * --network's network file): `what` names it in the errors ("network
 * file"), `name` is the file name suggested when PATH is a directory,
 * `magic` the first word of every file of the kind ("simblas-network"),
 * the only non-empty files replaced (NULL: any regular file is); all
 * static strings */
SB_HIDDEN sb_model_out *sb_model_out_open_as(const char *path, const char *what, const char *name, const char *magic,
                                             size_t reserve, char *err, size_t errlen);
/* reserve `bytes` in the temporary (sb_model_out_open's reserve, later) */
SB_HIDDEN int sb_model_out_reserve(sb_model_out *o, size_t bytes, char *err, size_t errlen);
SB_HIDDEN int sb_model_out_commit(sb_model_out *o, const sb_model *m, const char *comment, char *err, size_t errlen);
/* an already-rendered text, `len` bytes, written into the temporary, synced
 * and renamed over PATH (the rename synced too) with signals blocked: PATH
 * is the old file or the new one, never a part; on failure the temporary
 * is removed and PATH left as it was */
SB_HIDDEN int sb_model_out_commit_text(sb_model_out *o, const char *text, size_t len, char *err, size_t errlen);
SB_HIDDEN void sb_model_out_abandon(sb_model_out *o);
/* until `o` is committed or abandoned, its temporary is removed when the
 * program exits (exit, cal_die) or is stopped by SIGINT, SIGTERM or SIGHUP:
 * the handler calls on_signal(sig) first (NULL: nothing; it must be
 * async-signal-safe, e.g. kill a child), removes the temporary, and the
 * signal then takes its default action.  One output guarded at a time: a
 * second call replaces the first. */
SB_HIDDEN void sb_model_out_guard(sb_model_out *o, void (*on_signal)(int sig));
/* the longest line (with its pieces' lines and its @ld line) the writer writes, to size a
 * reservation */
#define SB_MODEL_LINE_MAX ((SB_MAX_PIECES + 1) * 560 + 64 + SB_MAX_LD * 80)

#endif
