/*
 * node.c -- node files: parsed, checked, and a call's time on the node
 * (node.h; the format in doc/model-format.md, "Node files").  The routine
 * lines of `host` and `accel` are model lines, read by the model's own
 * parser (model.c) as two small models, so that their syntax, pieces and
 * messages are the model file's.
 */
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "node.h"

/* an offload rule: the call runs on the accelerators when each size it
 * names is above its bound (no bound: always) */
typedef struct offload_rule {
  int on;
  double above[3]; /* m, n, k; -1: no bound */
} offload_rule;

enum share_kind { SHARE_UNSET, SHARE_FIXED, SHARE_BALANCED, SHARE_INCLUDED };

struct sb_node {
  char *path, *name;
  double flops, bandwidth, overhead;
  unsigned char level3[SB_NTERMS]; /* enum sb_node_resource of each level-3 term */
  sb_model *host, *accel;          /* the `host` and `accel` lines, NULL without any */
  int accelerators;                /* devices per rank */
  offload_rule offload[SB_OP_COUNT];
  int share_kind;
  double share;                    /* SHARE_FIXED: the host's share of an offloaded call */
  int link_none;                   /* the data lives on the device: no transfers */
  double link_bw, link_lat;        /* bytes/s, s */
  int link_c_out;                  /* c=out: C stays in host memory; a device's product comes back and the
                                      host adds it into C (at merge_bw) */
  int link_overlap;                /* transfers pipelined with the device's compute */
  double merge_bw;                 /* bytes/s of the host's C += product (c=out) */
  /* what the accelerators did, all ranks */
  pthread_mutex_t lock;
  double n_calls, n_offloaded, busy;
};

/* the resource each level-3 term follows when the file does not say: the
 * flop term the flops, the others (packing the operands, reading and
 * writing C: mk, nk, mn) the bandwidth.  Attributed from measurements on
 * the calibration VM (doc/model-format.md, "Which terms follow which
 * resource"; bench/node-split). */
static const unsigned char level3_default[SB_NTERMS] = {SB_RES_OVERHEAD,  SB_RES_BANDWIDTH, SB_RES_BANDWIDTH,
                                                        SB_RES_BANDWIDTH, SB_RES_BANDWIDTH, SB_RES_BANDWIDTH,
                                                        SB_RES_BANDWIDTH, SB_RES_FLOPS};
static const char *const resource_names[] = {"flops", "bandwidth", "overhead"};

/* ---- parsing ------------------------------------------------------------------ */
typedef struct nparser {
  sb_node *nd;
  const char *name;
  int line;
  char *err;
  size_t errlen;
  int version, seen_flops, seen_bw, seen_overhead, seen_level3, seen_acc, seen_share, seen_link, ended;
  int offload_line[SB_OP_COUNT], accel_line[SB_OP_COUNT];
  char *host_text, *accel_text; /* the mini models: one text line per file line */
  size_t host_len, accel_len;
  FILE *host_f, *accel_f;
} nparser;

static int nfail(nparser *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int nfail(nparser *p, const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  int n = p->line > 0 ? snprintf(p->err, p->errlen, "%s:%d: ", p->name, p->line)
                      : snprintf(p->err, p->errlen, "%s: ", p->name);
  if (n >= 0 && (size_t)n < p->errlen)
    vsnprintf(p->err + n, p->errlen - (size_t)n, fmt, ap);
  va_end(ap);
  return -1;
}

/* a positive finite number, or -1 with the message */
static int positive(nparser *p, const char *key, const char *text, double *v)
{
  char *end;
  errno = 0;
  double d = text ? strtod(text, &end) : 0;
  if (!text || end == text || *end || !(d > 0) || !isfinite(d) || errno == ERANGE)
    return nfail(p, "'%s' needs a positive number, not '%s'", key, text ? text : "");
  *v = d;
  return 0;
}

static int once(nparser *p, int *seen, const char *key)
{
  if (*seen)
    return nfail(p, "second '%s' line (the first is line %d); keep one", key, *seen);
  *seen = p->line;
  return 0;
}

/* the routine a `host`/`accel` line models: its op, or -1 */
static int line_op(const char *rest, int *variant)
{
  char key[64];
  size_t len = strcspn(rest, " \t[");
  if (!len || len >= sizeof key)
    return -1;
  memcpy(key, rest, len);
  key[len] = '\0';
  return sb_model_key(key, variant);
}

/* `offload ROUTINE [m>M] [n>N] [k>K]` */
static int parse_offload(nparser *p, char *rest)
{
  char *save = NULL, *name = strtok_r(rest, " \t", &save);
  int variant, op = name ? sb_model_key(name, &variant) : -1;
  if (op < 0 || variant)
    return nfail(p, "'offload' needs a routine (a model key: dgemm, dtrsm, ...), then optional bounds such as m>1280, "
                    "not '%s'",
                 name ? name : "");
  if (p->offload_line[op])
    return nfail(p, "second offload rule for %s (the first is line %d); keep one", name, p->offload_line[op]);
  offload_rule *r = &p->nd->offload[op];
  r->on = 1;
  r->above[0] = r->above[1] = r->above[2] = -1;
  for (char *tok; (tok = strtok_r(NULL, " \t", &save));) {
    const char *dims = "mnk", *d = tok[0] ? strchr(dims, tok[0]) : NULL;
    char *end;
    double v = d && tok[1] == '>' ? strtod(tok + 2, &end) : -1;
    if (!d || tok[1] != '>' || end == tok + 2 || *end || !(v >= 0) || !isfinite(v))
      return nfail(p, "bad offload bound '%s' for %s; write m>SIZE, n>SIZE or k>SIZE (the call's canonical sizes, "
                      "doc/model-format.md)",
                   tok, name);
    if (r->above[d - dims] >= 0)
      return nfail(p, "offload bound %c given twice for %s; keep one", tok[0], name);
    r->above[d - dims] = v;
  }
  p->offload_line[op] = p->line;
  return 0;
}

/* `level3 mn=bandwidth mk=flops ...` */
static int parse_level3(nparser *p, char *rest)
{
  char *save = NULL;
  for (char *tok = strtok_r(rest, " \t", &save); tok; tok = strtok_r(NULL, " \t", &save)) {
    char *eq = strchr(tok, '=');
    int t = -1, r = -1;
    if (eq) {
      *eq = '\0';
      for (int i = 1; i < SB_NTERMS; i++)
        if (!strcmp(tok, sb_term_names[i]))
          t = i;
      for (int i = 0; i < 2; i++)
        if (!strcmp(eq + 1, resource_names[i]))
          r = i;
    }
    if (t < 0 || r < 0)
      return nfail(p, "bad level3 assignment '%s%s%s'; write TERM=flops or TERM=bandwidth, TERM one of m n mn k mk nk "
                      "mnk (the constant is the overhead's)",
                   tok, eq ? "=" : "", eq ? eq + 1 : "");
    p->nd->level3[t] = (unsigned char)r;
  }
  return 0;
}

/* `share S | balanced | included` */
static int parse_share(nparser *p, const char *rest)
{
  sb_node *nd = p->nd;
  if (!strcmp(rest, "balanced"))
    nd->share_kind = SHARE_BALANCED;
  else if (!strcmp(rest, "included"))
    nd->share_kind = SHARE_INCLUDED;
  else {
    char *end;
    double s = strtod(rest, &end);
    if (end == rest || *end || !(s >= 0 && s <= 1))
      return nfail(p, "'share' is the host's part of an offloaded call: a number in [0, 1], 'balanced' (in "
                      "proportion to the host's and the devices' rates) or 'included' (the accel lines are the "
                      "whole call, host and transfers included), not '%s'",
                   rest);
    nd->share_kind = SHARE_FIXED;
    nd->share = s;
  }
  return 0;
}

/* `link none | bandwidth=B latency=L [c=inout|out] [merge=B] [overlap=yes|no]` */
static int parse_link(nparser *p, char *rest)
{
  sb_node *nd = p->nd;
  if (!strcmp(rest, "none")) {
    nd->link_none = 1;
    return 0;
  }
  static const char *const keys[] = {"bandwidth", "latency", "c", "merge", "overlap"};
  const char *syntax = "'link' is 'none' (the data lives on the device) or bandwidth=BYTES_PER_S latency=SECONDS "
                       "(the host-device link), then optionally c=inout|out (C crosses in and out, or stays in host "
                       "memory and the device's product comes back), merge=BYTES_PER_S (c=out: the host adds the "
                       "product into C at this memory bandwidth) and overlap=yes|no (transfers pipelined with the "
                       "device's compute), e.g. link bandwidth=8e9 latency=1e-5 c=out merge=6.4e10 overlap=yes";
  char *save = NULL;
  unsigned got = 0;
  for (char *tok = strtok_r(rest, " \t", &save); tok; tok = strtok_r(NULL, " \t", &save)) {
    char *eq = strchr(tok, '='), *end = NULL;
    int key = -1;
    if (eq) {
      *eq = '\0';
      for (int i = 0; i < (int)(sizeof keys / sizeof *keys); i++)
        if (!strcmp(tok, keys[i]))
          key = i;
    }
    if (key < 0)
      return nfail(p, "%s; not '%s%s'", syntax, tok, eq ? "=..." : "");
    if (got & (1u << key))
      return nfail(p, "'link' gives %s twice; keep one", keys[key]);
    got |= 1u << key;
    const char *v = eq + 1;
    if (key == 2 || key == 4) { /* c=inout|out, overlap=yes|no */
      const char *yes = key == 2 ? "out" : "yes", *no = key == 2 ? "inout" : "no";
      if (strcmp(v, yes) && strcmp(v, no))
        return nfail(p, "'link' %s=%s: write %s=%s or %s=%s", keys[key], v, keys[key], no, keys[key], yes);
      *(key == 2 ? &nd->link_c_out : &nd->link_overlap) = !strcmp(v, yes);
      continue;
    }
    double d = strtod(v, &end);
    if (end == v || *end || !isfinite(d) || (key == 1 ? !(d >= 0) : !(d > 0)))
      return nfail(p, "'link' %s=%s: %s", keys[key], v,
                   key == 1 ? "a latency is a number of seconds >= 0" : "a bandwidth is a number of bytes/s > 0");
    *(key == 0 ? &nd->link_bw : key == 1 ? &nd->link_lat : &nd->merge_bw) = d;
  }
  if ((got & 3) != 3)
    return nfail(p, "'link' needs both bandwidth=BYTES_PER_S and latency=SECONDS, or 'none'");
  if (nd->link_c_out && !(got & 8))
    return nfail(p, "'link' c=out: the host adds each device's product into C; give merge=BYTES_PER_S, the host's "
                    "memory bandwidth for it (STREAM triad's)");
  if (!nd->link_c_out && (got & 8))
    return nfail(p, "'link' merge= is the host's cost of adding the devices' products into C, which only c=out has: "
                    "remove it, or give c=out");
  return 0;
}

static int parse_nline(nparser *p, char *buf)
{
  char *rest, *save, *key = sb_model_split_line(buf, &rest, &save);
  if (!key)
    return 0;
  sb_node *nd = p->nd;
  if (p->ended)
    return nfail(p, "text after the 'end' line; remove it");
  if (!strcmp(key, "simblas-node"))
    return nfail(p, "second 'simblas-node' line; the version is given once, on the first line");
  if (!strcmp(key, "end")) {
    if (*rest)
      return nfail(p, "'end' takes nothing after it, not '%s'", rest);
    p->ended = p->line;
    return 0;
  }
  if (!strcmp(key, "name")) {
    free(nd->name);
    return (nd->name = strdup(rest)) ? 0 : nfail(p, "out of memory");
  }
  if (!strcmp(key, "flops"))
    return once(p, &p->seen_flops, key) ? -1 : positive(p, key, rest, &nd->flops);
  if (!strcmp(key, "bandwidth"))
    return once(p, &p->seen_bw, key) ? -1 : positive(p, key, rest, &nd->bandwidth);
  if (!strcmp(key, "overhead"))
    return once(p, &p->seen_overhead, key) ? -1 : positive(p, key, rest, &nd->overhead);
  if (!strcmp(key, "level3"))
    return once(p, &p->seen_level3, key) ? -1 : parse_level3(p, rest);
  if (!strcmp(key, "accelerators")) {
    double a;
    if (once(p, &p->seen_acc, key) || positive(p, key, rest, &a))
      return -1;
    if (a != floor(a) || a > 1e6)
      return nfail(p, "'accelerators' is a whole number of devices per rank, not '%s'", rest);
    nd->accelerators = (int)a;
    return 0;
  }
  if (!strcmp(key, "offload"))
    return parse_offload(p, rest);
  if (!strcmp(key, "share"))
    return once(p, &p->seen_share, key) ? -1 : parse_share(p, rest);
  if (!strcmp(key, "link"))
    return once(p, &p->seen_link, key) ? -1 : parse_link(p, rest);
  if (!strcmp(key, "host") || !strcmp(key, "accel")) {
    int accel = key[0] == 'a', variant, op = line_op(rest, &variant);
    if (op < 0)
      return nfail(p, "'%s' needs a model line, a routine then TERM=COEFFICIENT pairs (e.g. %s dgemm mnk=1e-11 "
                      "1=2e-6), not '%s'",
                   key, key, rest);
    if (accel && !p->accel_line[op])
      p->accel_line[op] = p->line;
    fprintf(accel ? p->accel_f : p->host_f, "%s", rest); /* this file line's place in the mini model */
    return 0;
  }
  return nfail(p, "unknown directive '%s'; a line is one of name, flops, bandwidth, overhead, level3, host, "
                  "accelerators, accel, offload, share, link, end (doc/model-format.md, \"Node files\")",
               key);
}

/* parse a mini model (the routine lines of one kind, each on its line) */
static sb_model *mini_model(nparser *p, FILE *f, char **text, size_t *len)
{
  fputs("\nreference-speed 1\nend\n", f);
  if (fclose(f) != 0) {
    nfail(p, "out of memory");
    return NULL;
  }
  FILE *in = fmemopen(*text, *len, "r");
  if (!in) {
    nfail(p, "out of memory");
    return NULL;
  }
  p->line = 0;
  sb_model *m = sb_model_parse(in, p->name, p->err, p->errlen);
  fclose(in);
  return m;
}

static int check(nparser *p)
{
  sb_node *nd = p->nd;
  p->line = 0;
  if (!p->ended)
    return nfail(p, "no 'end' line (truncated?); the last line of a node file is 'end'");
  if (!p->seen_flops || !p->seen_bw)
    return nfail(p, "no '%s' line: a node file gives the rank's flop rate and memory bandwidth against the model's "
                    "reference core (flops F, bandwidth B)",
                 p->seen_flops ? "bandwidth" : "flops");
  int any_offload = 0;
  for (int op = 0; op < SB_OP_COUNT; op++) {
    const char *name = sb_ops[op].name;
    if (p->offload_line[op]) {
      any_offload = 1;
      p->line = p->offload_line[op];
      if (!p->accel_line[op])
        return nfail(p, "offload %s, but the accelerator has no rate for %s: give it one ('accel %s TERM=COEFFICIENT "
                        "...', its time on one device) or do not offload %s",
                     name, name, name, name);
      if (!nd->accel->sets[0]->line[op]) /* the Left side's (a Right side without its own line takes it) */
        return nfail(p, "offload %s, but the accelerator has a rate for %s%s only: give its Left side's too ('accel "
                        "%s TERM=COEFFICIENT ...'), which %s%s takes when it has no line of its own",
                     name, name, SB_RIGHT_SUFFIX, name, name, SB_RIGHT_SUFFIX);
      int splits = sb_ops[op].shape == SB_SHAPE_GEMM || sb_ops[op].shape == SB_SHAPE_SIDED;
      if (!splits && nd->share_kind != SHARE_INCLUDED && !(nd->share_kind == SHARE_FIXED && nd->share == 0))
        return nfail(p, "offload %s: a %s call is not split between host and devices (only gemm-like and "
                        "side-taking routines are); give 'share 0' or do not offload it",
                     name, sb_family_name(sb_ops[op].fam));
      if (!splits && !nd->link_none && nd->share_kind != SHARE_INCLUDED)
        return nfail(p, "offload %s: its operands' transfer is not modelled (only gemm-like and side-taking "
                        "routines'); give 'link none' (the data lives on the device) or do not offload it",
                     name);
    } else if (p->accel_line[op]) {
      p->line = p->accel_line[op];
      return nfail(p, "'accel %s' without an offload rule: the device would never run it; add 'offload %s' "
                      "(with its size bounds) or remove the line",
                   name, name);
    }
  }
  p->line = 0;
  if (!any_offload) {
    const char *extra = p->seen_acc ? "accelerators" : p->seen_share ? "share" : p->seen_link ? "link" : NULL;
    if (extra) {
      p->line = p->seen_acc ? p->seen_acc : p->seen_share ? p->seen_share : p->seen_link;
      return nfail(p, "'%s' without any offload rule or accel line: remove it, or describe what the accelerators "
                      "run (accel ROUTINE ..., offload ROUTINE ...)",
                   extra);
    }
    return 0;
  }
  if (!p->seen_acc)
    return nfail(p, "offload rules but no 'accelerators N' line: how many devices does a rank have?");
  if (!p->seen_share)
    return nfail(p, "offload rules but no 'share' line: the host's part of an offloaded call (a number in [0, 1]), "
                    "'balanced' or 'included'");
  if (nd->share_kind == SHARE_INCLUDED) {
    if (p->seen_link) {
      p->line = p->seen_link;
      return nfail(p, "'share included' says the accel lines already include the transfers; this 'link' would "
                      "count them twice: remove it");
    }
  } else if (!p->seen_link)
    return nfail(p, "offload rules but no 'link' line: the host-device link (link bandwidth=B latency=L), or "
                    "'link none' when the data lives on the device");
  return 0;
}

sb_node *sb_node_parse(FILE *f, const char *name, char *err, size_t errlen)
{
  nparser p = {.name = name, .err = err, .errlen = errlen};
  sb_node *nd = calloc(1, sizeof *nd);
  char *buf = NULL;
  size_t cap = 0;
  int ok = 0;
  if (err && errlen)
    err[0] = '\0';
  if (!nd || !(nd->path = strdup(name)) || !(p.host_f = open_memstream(&p.host_text, &p.host_len)) ||
      !(p.accel_f = open_memstream(&p.accel_text, &p.accel_len))) {
    nfail(&p, "out of memory");
    goto out;
  }
  p.nd = nd;
  nd->overhead = 1;
  memcpy(nd->level3, level3_default, sizeof nd->level3);
  pthread_mutex_init(&nd->lock, NULL);
  ssize_t len;
  while ((len = getline(&buf, &cap, f)) >= 0) {
    p.line++;
    if ((size_t)len != strlen(buf)) {
      nfail(&p, "a NUL byte: binary data, not a node file");
      goto out;
    }
    if (!p.version) { /* the first directive, and the mini models' */
      char *rest, *save, *key = sb_model_split_line(buf, &rest, &save);
      char *v = key ? strtok_r(NULL, " \t\r\n", &save) : NULL;
      if (key && (strcmp(key, "simblas-node") || !v || strcmp(v, "1") || strtok_r(NULL, " \t\r\n", &save))) {
        nfail(&p, "not a SimBLAS node file of format %d (the first line must be 'simblas-node %d'); simblas-hpl run "
                  "--node writes one from a TOML node file",
              SIMBLAS_NODE_FORMAT, SIMBLAS_NODE_FORMAT);
        goto out;
      }
      p.version = key != NULL;
      fputs(key ? "simblas-model 1\n" : "\n", p.host_f);
      fputs(key ? "simblas-model 1\n" : "\n", p.accel_f);
      continue;
    }
    if (parse_nline(&p, buf) != 0)
      goto out;
    fputc('\n', p.host_f);
    fputc('\n', p.accel_f);
  }
  if (ferror(f)) {
    p.line = 0;
    nfail(&p, "read error: %s", strerror(errno));
    goto out;
  }
  if (!p.version) {
    p.line = 0;
    nfail(&p, "empty node file (truncated?)");
    goto out;
  }
  /* each stream handed over as it is closed: a refused host line left
   * the accel stream open (a leak) */
  FILE *hf = p.host_f;
  p.host_f = NULL;
  if (!(nd->host = mini_model(&p, hf, &p.host_text, &p.host_len)))
    goto out;
  FILE *af = p.accel_f;
  p.accel_f = NULL;
  if (!(nd->accel = mini_model(&p, af, &p.accel_text, &p.accel_len)))
    goto out;
  if (check(&p) != 0)
    goto out;
  ok = 1;
out:
  if (p.host_f)
    fclose(p.host_f);
  if (p.accel_f)
    fclose(p.accel_f);
  free(p.host_text);
  free(p.accel_text);
  free(buf);
  if (!ok) {
    sb_node_free(nd);
    return NULL;
  }
  return nd;
}

sb_node *sb_node_load(const char *path, char *err, size_t errlen)
{
  FILE *f = fopen(path, "r");
  struct stat st;
  if (!f || (fstat(fileno(f), &st) == 0 && S_ISDIR(st.st_mode))) {
    snprintf(err, errlen, "%s: cannot read the node file: %s; set SIMBLAS_NODE to a node file (simblas-hpl run --node "
                          "writes one)",
             path, f ? "a directory" : strerror(errno));
    if (f)
      fclose(f);
    return NULL;
  }
  sb_node *nd = sb_node_parse(f, path, err, errlen);
  fclose(f);
  return nd;
}

void sb_node_free(sb_node *nd)
{
  if (!nd)
    return;
  sb_model_free(nd->host);
  sb_model_free(nd->accel);
  free(nd->path);
  free(nd->name);
  free(nd);
}

const char *sb_node_name(const sb_node *nd) { return nd->name ? nd->name : nd->path; }

/* ---- a call on the node ----------------------------------------------------------- */
int sb_node_resource(const sb_node *nd, int op, int term)
{
  if (term == SB_TERM_1)
    return SB_RES_OVERHEAD;
  if (sb_ops[op].level == SB_LEVEL_3)
    return nd->level3[term];
  return SB_RES_BANDWIDTH;
}

/* the call on the host alone: the host's own line, or the model's
 * scaled term by term */
static double host_time(const sb_node *nd, const sb_model *m, const sb_coefs *co, const sb_call *c)
{
  const sb_coefs *own = nd->host ? sb_model_coefs_v(nd->host, 0, c->op, c->variant) : NULL;
  if (own)
    return sb_model_mean(nd->host, own, c);
  const double scale[3] = {nd->flops, nd->bandwidth, nd->overhead};
  double w[SB_NTERMS];
  for (int t = 0; t < SB_NTERMS; t++)
    w[t] = 1 / scale[sb_node_resource(nd, c->op, t)];
  return sb_model_mean_w(m, co, c, w);
}

/* which size an offloaded call is split along: n (gemm, Left side), m
 * (Right side); NULL for a call that is not split */
static int64_t *free_dim(sb_call *c)
{
  if (sb_ops[c->op].shape == SB_SHAPE_GEMM || (sb_ops[c->op].shape == SB_SHAPE_SIDED && !c->variant))
    return &c->n;
  return sb_ops[c->op].shape == SB_SHAPE_SIDED ? &c->m : NULL;
}

static double elem_bytes(const sb_call *c) { return (sb_ops[c->op].dbl ? 8 : 4) * (sb_ops[c->op].cplx ? 2 : 1); }

/* bytes a device's operands move over the link: gemm A (m x k) and B (k x
 * n) in, and C (m x n) in and out, or with c=out only the product out;
 * side-taking routines the k x k triangle, B in and out */
static double link_bytes(const sb_node *nd, const sb_call *c)
{
  double m = (double)c->m, n = (double)c->n, k = (double)c->k;
  double elems = sb_ops[c->op].shape == SB_SHAPE_GEMM ? m * k + k * n + (nd->link_c_out ? 1 : 2) * m * n
                                                      : k * k + 2 * m * n;
  return elems * elem_bytes(c);
}

/* the host adding the devices' products, cols columns of C, into C (c=out,
 * gemm-like calls): C read and written, the product read */
static double merge_time(const sb_node *nd, const sb_call *c, double cols)
{
  if (!nd->link_c_out || sb_ops[c->op].shape != SB_SHAPE_GEMM)
    return 0;
  return 3 * (double)c->m * cols * elem_bytes(c) / nd->merge_bw;
}

static double device_time(const sb_node *nd, const sb_call *c)
{
  return sb_model_mean(nd->accel, sb_model_coefs_v(nd->accel, 0, c->op, c->variant), c);
}

/* a device's part of a call: its compute (*compute) and the link, one
 * after the other, or pipelined (overlap=yes: the longer of the two, after
 * one latency) */
static double device_side(const sb_node *nd, const sb_call *c, double *compute)
{
  double tc = device_time(nd, c);
  *compute = tc;
  if (nd->link_none)
    return tc;
  double tl = link_bytes(nd, c) / nd->link_bw;
  return nd->link_lat + (nd->link_overlap ? fmax(tc, tl) : tc + tl);
}

static int offloads(const offload_rule *r, const sb_call *c)
{
  if (!r->on)
    return 0;
  const int64_t size[3] = {c->m, c->n, c->k};
  for (int d = 0; d < 3; d++)
    if (r->above[d] >= 0 && !((double)size[d] > r->above[d]))
      return 0;
  return 1;
}

sb_node_cost sb_node_time(const sb_node *nd, const sb_model *m, const sb_coefs *co, const sb_call *c)
{
  sb_node_cost cost = {0, 0, 0};
  if (!offloads(&nd->offload[c->op], c)) {
    cost.t = host_time(nd, m, co, c);
    return cost;
  }
  cost.offloaded = 1;
  const int acc = nd->accelerators;
  if (nd->share_kind == SHARE_INCLUDED) { /* the fit is the node's: host, devices and transfers */
    cost.t = device_time(nd, c);
    cost.busy = cost.t * acc;
    return cost;
  }
  sb_call dev = *c, host = *c;
  int64_t *dfree = free_dim(&dev), *hfree = free_dim(&host);
  if (!dfree) { /* the whole call on one device (share 0, data on the device) */
    cost.t = cost.busy = device_time(nd, c);
    return cost;
  }
  const int64_t total = *dfree;
  double s = nd->share;
  if (nd->share_kind == SHARE_BALANCED) { /* each side timed on the whole call */
    double tc, th = host_time(nd, m, co, c), td = device_side(nd, c, &tc), mg = merge_time(nd, c, (double)total);
    if (mg > 0) {
      /* the host's part s of the call plus the merge of the rest, s th + (1 - s) mg, against a device's
       * (1 - s) td / acc: where they meet, or the end (all on the host, all on the devices) that is shorter */
      double a = td / acc, den = th + a - mg, x = den > 0 ? (a - mg) / den : -1;
      s = 1;
      double best = th;
      if (fmax(mg, a) < best)
        s = 0, best = fmax(mg, a);
      if (x > 0 && x < 1 && a * (1 - x) < best)
        s = x;
    } else { /* in proportion to the rates */
      double rh = th > 0 ? 1 / th : HUGE_VAL, rd = td > 0 ? 1 / td : HUGE_VAL;
      s = isinf(rh) ? 1 : isinf(rd) ? 0 : rh / (rh + acc * rd);
    }
  }
  /* each device gets an equal part of the rest, whole columns (rows):
   * rounded up; balanced, rounded up or down, whichever ends sooner (up
   * alone gave a device much slower than the host one column, a call far
   * longer than on the host alone) */
  const double exact = (1 - s) * (double)total / acc;
  const int64_t parts[2] = {(int64_t)ceil(exact), (int64_t)floor(exact)};
  const int tries = nd->share_kind == SHARE_BALANCED && parts[1] != parts[0] ? 2 : 1;
  cost.t = HUGE_VAL;
  for (int i = 0; i < tries; i++) {
    *dfree = parts[i];
    *hfree = total - acc * *dfree;
    if (*hfree < 0)
      *hfree = 0;
    double th = (*hfree > 0 ? host_time(nd, m, co, &host) : 0) + merge_time(nd, c, (double)(total - *hfree));
    double tc = 0, td = *dfree > 0 ? device_side(nd, &dev, &tc) : 0;
    /* bounded as the model's predictions are: the link's and the merge's
     * parts are not (a link of bandwidth=1e-300 made a call's time inf, and
     * sizes near 2^31 pushed it past the bound) */
    double t = fmin(th > td ? th : td, SB_MODEL_MAX_SECONDS);
    if (t < cost.t) {
      cost.t = t;
      cost.busy = tc * acc;
    }
  }
  return cost;
}

void sb_node_account(sb_node *nd, const sb_node_cost *cost)
{
  pthread_mutex_lock(&nd->lock);
  nd->n_calls++;
  if (cost->offloaded) {
    nd->n_offloaded++;
    nd->busy += cost->busy;
  }
  pthread_mutex_unlock(&nd->lock);
}

void sb_node_totals(const sb_node *nd, double *offloaded, double *calls, double *busy)
{
  pthread_mutex_lock((pthread_mutex_t *)&nd->lock);
  *offloaded = nd->n_offloaded;
  *calls = nd->n_calls;
  *busy = nd->busy;
  pthread_mutex_unlock((pthread_mutex_t *)&nd->lock);
}

void sb_node_report(const sb_node *nd, FILE *f)
{
  double off, calls, busy;
  sb_node_totals(nd, &off, &calls, &busy);
  fprintf(f, "simblas: node %s: %.0f of %.0f modelled calls offloaded, accelerators busy %.9g s (device-seconds, all "
             "ranks)\n",
          sb_node_name(nd), off, calls, busy);
}
