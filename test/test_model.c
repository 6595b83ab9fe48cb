/*
 * test_model.c -- the model core alone (no SimGrid, no libsimblas): the
 * parser's errors name the file and line, predictions are finite and
 * >= 0 for any sizes, sets and the flop-count fallback behave as
 * doc/model-format.md says.
 */
#include <dirent.h>
#include <fcntl.h>
#include <math.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "model.h"
#include "netfactors.h"
#include "parse_text.h"

/* cmocka 1.1 has no assert_close */
#define assert_close(a, b, tol) assert_close_((a), (b), (tol), #a, __FILE__, __LINE__)
static void assert_close_(double a, double b, double tol, const char *what, const char *file, int line)
{
  if (!(fabs(a - b) <= tol))
    fail_msg("%s:%d: %s = %.17g, expected %.17g", file, line, what, a, b);
}

static void *model_parser(FILE *f, char *err, size_t errlen) { return sb_model_parse(f, "test.model", err, errlen); }
static sb_model *parse(const char *text, char *err, size_t errlen) { return parse_text(model_parser, text, err, errlen); }
static void expect_error(const char *text, const char *needle) { expect_refused(model_parser, "a model", text, needle); }

static const char *good = "simblas-model 1\n"
                          "# a comment\n"
                          "meta machine \"test box\"\n"
                          "reference-speed 2e10\n"
                          "set node\n"
                          "dgemm mnk=1e-10 mn=2e-9 1=1e-6 | mnk=1e-12\n"
                          "daxpy n=1e-9 1=5e-7\n"
                          "set core1\n"
                          "dgemm mnk=2e-10\n"
                          "end\n";

static sb_call call(const char *name, int64_t m, int64_t n, int64_t k)
{
  sb_call c = {.op = sb_op_lookup(name), .m = m, .n = n, .k = k};
  assert_true(c.op >= 0);
  return c;
}

static void test_good_file(void **state)
{
  (void)state;
  char err[256];
  sb_model *m = parse(good, err, sizeof err);
  assert_non_null(m);
  assert_true(m->reference_speed == 2e10);
  sb_call c = call("dgemm", 10, 20, 30);
  const sb_coefs *co = sb_model_coefs(m, 0, c.op);
  assert_non_null(co);
  assert_close(sb_model_mean(m, co, &c), 1e-10 * 6000 + 2e-9 * 200 + 1e-6, 1e-18);
  assert_close(sb_model_sigma(co, &c), 1e-12 * 6000, 1e-20);
  /* per-core set overrides; a routine missing there falls back to node */
  int s1 = sb_model_set(m, "core1");
  assert_int_equal(s1, 1);
  assert_close(sb_model_mean(m, sb_model_coefs(m, s1, c.op), &c), 2e-10 * 6000, 1e-18);
  sb_call a = call("daxpy", 0, 1000, 0);
  assert_ptr_equal(sb_model_coefs(m, s1, a.op), sb_model_coefs(m, 0, a.op));
  assert_int_equal(sb_model_set(m, "core7"), -1);
  sb_model_free(m);
}

static void test_fallback_is_flops_over_speed(void **state)
{
  (void)state;
  char err[256];
  sb_model *m = parse(good, err, sizeof err);
  sb_call c = call("ztrsm", 100, 200, 100);
  assert_null(sb_model_coefs(m, 0, c.op));
  /* trsm: m*n*k flops (k = order of the triangle), complex x4 */
  assert_close(sb_model_mean(m, NULL, &c), 4.0 * 100 * 200 * 100 / 2e10, 1e-15);
  sb_model_free(m);
}

static void test_extreme_sizes(void **state)
{
  (void)state;
  char err[256];
  sb_model *m = parse("simblas-model 1\nreference-speed 1e9\n"
                      "dgemm mnk=1e-300 mn=-5 1=-1\n"
                      "dtrsm mnk=1e300\nend\n",
                      err, sizeof err);
  assert_non_null(m);
  const int64_t big = 2147483647;
  for (int op = 0; op < SB_OP_COUNT; op++) {
    sb_call c = {.op = op, .m = big, .n = big, .k = big};
    double t = sb_model_mean(m, sb_model_coefs(m, 0, op), &c);
    if (!isfinite(t) || t < 0)
      fail_msg("%s: prediction %g at 2^31-1", sb_ops[op].name, t);
    sb_call z = {.op = op};
    t = sb_model_mean(m, sb_model_coefs(m, 0, op), &z);
    if (!isfinite(t) || t < 0)
      fail_msg("%s: prediction %g at 0", sb_ops[op].name, t);
  }
  /* negative fits are clamped to 0, huge ones stay finite */
  sb_call g = call("dgemm", 1, 1, 1);
  assert_true(sb_model_mean(m, sb_model_coefs(m, 0, g.op), &g) == 0);
  sb_call t = call("dtrsm", big, big, big);
  assert_true(isfinite(sb_model_mean(m, sb_model_coefs(m, 0, t.op), &t)));
  sb_model_free(m);
}

static void test_malformed(void **state)
{
  (void)state;
  expect_error("", "test.model: empty model file");
  expect_error("dgemm mnk=1\n", "test.model:1: not a SimBLAS model file");
  expect_error("simblas-model 99\n", "test.model:1: model format 99 is newer");
  expect_error("simblas-model 1\nreference-speed -3\n", "test.model:2: reference-speed needs a positive");
  expect_error("simblas-model 1\nreference-speed 1e9\ndgem mnk=1\n", "test.model:3: unknown routine 'dgem'");
  expect_error("simblas-model 1\nreference-speed 1e9\ndgemm mnq=1\n", "test.model:3: unknown term 'mnq'");
  expect_error("simblas-model 1\nreference-speed 1e9\ndgemm mnk=abc\n", "test.model:3: coefficient 'abc'");
  expect_error("simblas-model 1\nreference-speed 1e9\ndgemm mnk=1e999\n", "test.model:3: coefficient");
  expect_error("simblas-model 1\nreference-speed 1e9\ndgemm mnk\n", "test.model:3: 'mnk' in the line of dgemm");
  expect_error("simblas-model 1\nreference-speed 1e9\ndgemm\n", "test.model:3: dgemm has no TERM");
  expect_error("simblas-model 1\nreference-speed 1e9\ndgemm 1=1\ndgemm 1=2\n", "test.model:4: second line for dgemm");
  expect_error("simblas-model 1\nreference-speed 1e9\nset\n", "test.model:3: 'set' needs a name");
  expect_error("simblas-model 1\nreference-speed 1e9\ndgemm 1=1\n", "test.model: truncated model file");
  expect_error("simblas-model 1\nreference-speed 1e9\nend\ndgemm 1=1\n", "test.model:4: text after the 'end'");
  expect_error("simblas-model 1\nend\n", "no 'reference-speed' line");
}

/* issue 21: each of these was accepted silently, refused with a wrong
 * reason, or refused with an empty message */
static void test_refused_precisely(void **state)
{
  (void)state;
#define HEAD "simblas-model 1\nreference-speed 1e9\n"
  expect_error(HEAD "dgemm mnk=1e-11 | 1=1 | 2=2\nend\n", "test.model:3: a second '|' in the line of dgemm");
  expect_error(HEAD "dgemm mnk=1e-11 |\nend\n", "test.model:3: nothing after '|' in the line of dgemm");
  expect_error(HEAD "dgemm | 1=1\nend\n", "test.model:3: dgemm has no TERM=COEFFICIENT pairs before '|'");
  expect_error(HEAD "dgemm mnk=1e-11 mnk=0\nend\n", "test.model:3: mean term mnk given twice in the line of dgemm");
  expect_error(HEAD "dgemm mnk=1 | 1=1 1=2\nend\n",
               "test.model:3: standard-deviation term 1 given twice in the line of dgemm");
  expect_error(HEAD "dgemm 1=1\ndgemm[m>=100] 1=2\ndgemm[m>=100] 1=3\nend\n",
               "test.model:5: piece dgemm[m>=100] given twice in set 'node'");
  expect_error(HEAD "dgemm 1=1\ndgemm[m>=100] 1=2\ndgemm[n>=100] 1=3\nend\n",
               "test.model:5: pieces dgemm[m>=100] and dgemm[n>=100] have the same bound");
  expect_error(HEAD "dgemm 1=1\ndgemm[m>=inf] 1=2\nend\n", "test.model:4: bad piece 'dgemm[m>=inf]': its bound 'inf' "
                                                          "is not a finite number");
  expect_error(HEAD "dgemm 1=1\ndgemm[m>=1e999] 1=2\nend\n", "its bound '1e999' is beyond the largest number");
  expect_error(HEAD "dgemm 1=1\ndgemm[m>=0.5] 1=2\nend\n", "its bound '0.5' is below 1");
  expect_error(HEAD "dgemm 1=1\ndgemm[1>=8] 1=2\nend\n", "test.model:4: bad piece 'dgemm[1>=8]': '1' is not a term to cut");
  expect_error("simblas-model 1\nreference-speed 1e10xyz\nend\n",
               "test.model:2: reference-speed '1e10xyz' is not a number");
  expect_error("simblas-model 1\nreference-speed 1e10\nreference-speed 2e10\nend\n",
               "test.model:3: second reference-speed line (the first is line 2)");
  expect_error("simblas-model 1abc\n", "test.model:1: '1abc' after simblas-model is not a format version");
  expect_error("simblas-model 0\n", "test.model:1: model format 0 does not exist");
  expect_error("simblas-model\n", "test.model:1: 'simblas-model' needs a format version number");
  expect_error("simblas-model 99999999999999999999999\n", "model format 99999999999999999999999 is newer");
  expect_error(HEAD "simblas-model 1\nend\n", "test.model:3: second 'simblas-model' line");
  expect_error(HEAD "dgemm mnk=1e-400\nend\n", "test.model:3: coefficient '1e-400' of dgemm.mnk is below the smallest");
  expect_error(HEAD "dgemm mnk=nan\nend\n", "test.model:3: coefficient 'nan' of dgemm.mnk is not a finite number");
  expect_error(HEAD "dgemm mnk=-inf\nend\n", "coefficient '-inf' of dgemm.mnk is not a finite number");
  expect_error(HEAD "set node core0\nend\n", "test.model:3: 'set' takes one name, not 'node core0 ...'");
  expect_error(HEAD "end now\n", "test.model:3: 'end' takes nothing after it, not 'now'");
  {
    static const char nul[] = "simblas-model 1\nreference-speed 1e9\ndgemm mnk=1\0 | junk\nend\n";
    char err[512] = "";
    FILE *f = fmemopen((void *)nul, sizeof nul - 1, "r");
    sb_model *m = sb_model_parse(f, "test.model", err, sizeof err);
    fclose(f);
    if (m || !strstr(err, "test.model:3: a NUL byte: binary data"))
      fail_msg("a NUL byte in a line: %s", m ? "accepted" : err);
  }
#undef HEAD
  /* a subnormal coefficient is a number: 1e-310 s per flop is nothing */
  char err[512] = "";
  sb_model *m = parse("simblas-model 1\nreference-speed 1e9\ndgemm mnk=1e-310 1=4.9e-324\nend\n", err, sizeof err);
  if (!m)
    fail_msg("a subnormal coefficient was refused: %s", err);
  sb_call c = call("dgemm", 1000, 1000, 1000);
  double t = sb_model_mean(m, sb_model_coefs(m, 0, c.op), &c);
  assert_true(t > 0 && t < 1e-300);
  sb_model_free(m);
}

/* more sets than a file may hold: refused before they fill the memory
 * (a set line of 8 bytes once cost 450 kB) */
static void test_too_many_sets(void **state)
{
  (void)state;
  size_t cap = 64 + 16 * (SB_MAX_SETS + 2);
  char *text = malloc(cap);
  size_t n = (size_t)sprintf(text, "simblas-model 1\nreference-speed 1e9\n");
  for (int i = 0; i <= SB_MAX_SETS; i++)
    n += (size_t)sprintf(text + n, "set s%d\n", i);
  strcpy(text + n, "end\n");
  char err[512] = "";
  sb_model *m = parse(text, err, sizeof err);
  if (m || !strstr(err, "more than 4096 coefficient sets"))
    fail_msg("%d sets: %s", SB_MAX_SETS + 2, m ? "accepted" : err);
  free(text);
}

/* ---- the writer ----------------------------------------------------------- */
static char *write_text(const sb_model *m)
{
  char *text = NULL, err[512] = "";
  size_t len = 0;
  FILE *f = open_memstream(&text, &len);
  if (sb_model_write(f, m, "a comment\nof two lines", err, sizeof err) != 0)
    fail_msg("write: %s", err);
  fclose(f);
  return text;
}

/* every prediction of a, at shapes on both sides of every piece bound and
 * up to 2^31-1, equals b's to the last bit */
static void same_predictions(const sb_model *a, const sb_model *b)
{
  static const int64_t sizes[] = {0, 1, 2, 7, 99, 100, 101, 383, 384, 1000, 4096, 1 << 20, 2147483647};
  const int ns = sizeof sizes / sizeof *sizes;
  assert_int_equal(a->nsets, b->nsets);
  assert_true(a->reference_speed == b->reference_speed);
  for (int s = 0; s < a->nsets; s++)
    for (int op = 0; op < SB_OP_COUNT; op++)
      for (int v = 0; v < sb_ops[op].variants; v++)
        for (int i = 0; i < ns * ns * ns; i++) {
          sb_call c = {.op = op, .m = sizes[i % ns], .n = sizes[i / ns % ns], .k = sizes[i / ns / ns], .variant = v};
          const sb_coefs *ca = sb_model_coefs_v(a, s, op, v), *cb = sb_model_coefs_v(b, s, op, v);
          for (int l = 0; l < 2; l++) { /* without a leading dimension, and with one between @ld points */
            c.ld = l ? 6000 : 0;
            double ma = sb_model_mean(a, ca, &c), mb = sb_model_mean(b, cb, &c);
            double sa = sb_model_sigma(ca, &c), sb = sb_model_sigma(cb, &c);
            if (memcmp(&ma, &mb, sizeof ma) || memcmp(&sa, &sb, sizeof sa))
              fail_msg("%s%s in set %d at (%lld, %lld, %lld) ld %lld: %.17g | %.17g read back as %.17g | %.17g",
                       sb_ops[op].name, v ? ".right" : "", s, (long long)c.m, (long long)c.n, (long long)c.k,
                       (long long)c.ld, ma, sa, mb, sb);
          }
        }
}

/* write, parse, same predictions; and writing that again gives the same
 * text */
static void test_round_trip(void **state)
{
  (void)state;
  static const char *text = "simblas-model 1\n"
                            "meta machine \"test box\"  \n"
                            "reference-speed 3.66469e+10\n"
                            "quality dgemm n=10 r2=0.99\n"
                            "dgemm mnk=1.2345678901234567e-11 mn=-3e-9 1=2e-6 | mnk=1e-13 1=0\n"
                            "dgemm[mnk>=1e8] mnk=1.1e-11 1=1e-4\n"
                            "dgemm[m>=384] mnk=1.05e-11\n"
                            "dtrsm mnk=2e-11\n"
                            "dtrsm.right mnk=2.5e-11 | mnk=1e-310\n"
                            "daxpy n=0.1 1=-0\n"
                            "hpl_dlaswp04N mn=3e-10 nk=3e-10 1=1e-7\n"
                            "hpl_dlaswp01T mn=1e-8 1=2e-6 | mn=1e-9\n"
                            "hpl_dlaswp01T[mn>=4096] mn=1.1e-8\n"
                            "hpl_dlaswp01T@ld 3142:0.61 6284:0.6300000000000001 50272:1\n"
                            "set core1\n"
                            "set core0\n"
                            "dgemm mnk=2e-11\n"
                            "end\n";
  char err[512] = "";
  sb_model *a = parse(text, err, sizeof err);
  if (!a)
    fail_msg("%s", err);
  char *first = write_text(a);
  FILE *f = fmemopen(first, strlen(first), "r");
  sb_model *b = sb_model_parse(f, "rewritten.model", err, sizeof err);
  fclose(f);
  if (!b)
    fail_msg("the written model does not parse: %s\n%s", err, first);
  same_predictions(a, b);
  char *second = write_text(b);
  assert_string_equal(first, second);
  assert_non_null(strstr(first, "meta machine \"test box\"\n"));
  assert_non_null(strstr(first, "quality dgemm n=10 r2=0.99\n"));
  assert_non_null(strstr(first, "reference-speed 3.66469e+10\n")); /* the fewest digits */
  assert_non_null(strstr(first, "dgemm[m>=384] mnk=1.05e-11\n"));
  assert_non_null(strstr(first, "hpl_dlaswp01T[mn>=4096] mn=1.1e-08\nhpl_dlaswp01T@ld 3142:0.61 6284:0.6300000000000001 50272:1\n"));
  assert_non_null(strstr(first, "# a comment\n# of two lines\n"));
  free(first);
  free(second);
  sb_model_free(a);
  sb_model_free(b);
  /* a model built line by line, as simblas-calibrate and mkdefault build it */
  sb_model *m = sb_model_new();
  m->reference_speed = 1e10;
  sb_coefs *co = sb_model_line(m, sb_model_add_set(m, "core0"), SB_OP_dgemm, 0);
  co->mu[7] = 1.0 / 3e10;
  co->terms = 1u << 7;
  char *t = write_text(m);
  f = fmemopen(t, strlen(t), "r");
  b = sb_model_parse(f, "built.model", err, sizeof err);
  fclose(f);
  if (!b)
    fail_msg("%s", err);
  same_predictions(m, b);
  free(t);
  sb_model_free(b);
  /* what the parser would refuse is not written */
  char *out = NULL;
  size_t len = 0;
  f = open_memstream(&out, &len);
  co->terms = 0;
  assert_int_equal(sb_model_write(f, m, NULL, err, sizeof err), -1);
  assert_non_null(strstr(err, "a line without terms in dgemm's line of set 'core0'"));
  co->terms = 1u << 7;
  m->reference_speed = 0;
  assert_int_equal(sb_model_write(f, m, NULL, err, sizeof err), -1);
  assert_non_null(strstr(err, "without a positive reference speed"));
  fclose(f);
  free(out);
  sb_model_free(m);
}

/* model files: written atomically, world-readable whatever the umask,
 * stale temporaries of killed writers removed, live ones kept, a full
 * disk said before the work */
static void test_model_files(void **state)
{
  (void)state;
  char dir[] = "/tmp/sbmodel.XXXXXX", path[256], err[512] = "", live[300], stale[300];
  assert_non_null(mkdtemp(dir));
  snprintf(path, sizeof path, "%s/m.model", dir);
  snprintf(stale, sizeof stale, "%s/.m.model.tmp.AbCdEf", dir);
  snprintf(live, sizeof live, "%s/.m.model.tmp.LiVeOn", dir);
  int sfd = open(stale, O_CREAT | O_WRONLY, 0600), lfd = open(live, O_CREAT | O_WRONLY, 0600);
  assert_true(sfd >= 0 && lfd >= 0);
  close(sfd);
  assert_int_equal(flock(lfd, LOCK_EX), 0); /* a writer still at work: held by this fd */
  sb_model *m = parse(good, err, sizeof err);
  mode_t old = umask(077);
  sb_model_out *o = sb_model_out_open(path, 1 << 20, err, sizeof err);
  umask(old);
  if (!o)
    fail_msg("%s", err);
  assert_int_equal(access(stale, F_OK), -1);
  assert_int_equal(access(live, F_OK), 0);
  assert_int_equal(sb_model_out_commit(o, m, NULL, err, sizeof err), 0);
  struct stat st;
  assert_int_equal(stat(path, &st), 0);
  assert_int_equal(st.st_mode & 0777, 0644);
  sb_model *back = sb_model_load(path, err, sizeof err);
  if (!back)
    fail_msg("%s", err);
  same_predictions(m, back);
  sb_model_free(back);
  /* a model the writer refuses leaves the old file as it was */
  o = sb_model_out_open(path, 0, err, sizeof err);
  assert_non_null(o);
  double speed = m->reference_speed;
  m->reference_speed = -1;
  assert_int_equal(sb_model_out_commit(o, m, NULL, err, sizeof err), -1);
  m->reference_speed = speed;
  back = sb_model_load(path, err, sizeof err);
  assert_non_null(back);
  sb_model_free(back);
  /* no room: 1 MB under 'ulimit -f' of 64 kB */
  struct rlimit rl, small;
  getrlimit(RLIMIT_FSIZE, &rl);
  small = rl;
  small.rlim_cur = 65536;
  signal(SIGXFSZ, SIG_IGN);
  setrlimit(RLIMIT_FSIZE, &small);
  o = sb_model_out_open(path, 1 << 20, err, sizeof err);
  setrlimit(RLIMIT_FSIZE, &rl);
  if (o || !strstr(err, "no room for the model in"))
    fail_msg("a 1 MB reservation under a 64 kB limit: %s", o ? "accepted" : err);
  /* a directory, and a directory that does not exist */
  o = sb_model_out_open(dir, 0, err, sizeof err);
  assert_null(o);
  assert_non_null(strstr(err, "a directory; give a file name"));
  o = sb_model_out_open("/nonexistent/dir/m.model", 0, err, sizeof err);
  assert_null(o);
  assert_non_null(strstr(err, "cannot write the model into /nonexistent/dir"));
  close(lfd);
  unlink(live);
  unlink(path);
  /* nothing else left behind */
  assert_int_equal(rmdir(dir), 0);
  sb_model_free(m);
}

/* the temporaries ".m.tmp.XXXXXX" in dir */
static int temporaries(const char *dir)
{
  DIR *d = opendir(dir);
  int n = 0;
  for (struct dirent *e; d && (e = readdir(d));)
    n += !strncmp(e->d_name, ".m.tmp.", 7);
  if (d)
    closedir(d);
  return n;
}

static int said_fd = -1;
static void say_signal(int sig)
{
  char c = (char)sig;
  if (write(said_fd, &c, 1) != 1)
    _exit(99);
}

/* a child that opens DIR/m for writing and guards it, then (how) exits
 * with status 3 (0), stops itself with sig (1), or commits "new\n" and then
 * stops itself with sig (2); its status, and the signal its on_signal saw
 * (0: none) */
static int guarded_child(const char *dir, int how, int sig, int *seen)
{
  int fd[2];
  assert_int_equal(pipe(fd), 0);
  fflush(NULL); /* nothing of this process written twice */
  pid_t pid = fork();
  assert_true(pid >= 0);
  if (pid == 0) {
    char path[300], err[512];
    snprintf(path, sizeof path, "%s/m", dir);
    close(fd[0]);
    said_fd = fd[1];
    sb_model_out *o = sb_model_out_open_as(path, "test file", "m", NULL, 4096, err, sizeof err);
    if (!o)
      _exit(98);
    sb_model_out_guard(o, say_signal);
    if (temporaries(dir) != 1)
      _exit(97);
    if (how == 0)
      exit(3);
    if (how == 2 && sb_model_out_commit_text(o, "new\n", 4, err, sizeof err) != 0)
      _exit(96);
    raise(sig);
    _exit(95);
  }
  close(fd[1]);
  int st;
  char c = 0;
  while (waitpid(pid, &st, 0) < 0)
    ;
  *seen = read(fd[0], &c, 1) == 1 ? c : 0;
  close(fd[0]);
  return st;
}

/* PATH holds exactly TEXT */
static void assert_holds(const char *path, const char *text)
{
  char buf[64] = "";
  FILE *f = fopen(path, "r");
  assert_non_null(f);
  buf[fread(buf, 1, sizeof buf - 1, f)] = 0;
  fclose(f);
  assert_string_equal(buf, text);
}

/* sb_model_out_guard: an output not yet committed has its temporary
 * removed when the program exits or is stopped by SIGINT, SIGTERM or
 * SIGHUP, on_signal called first and the signal's default action taken;
 * the old file stays as it was.  Committed, the new file stays. */
static void test_guarded_output(void **state)
{
  (void)state;
  char dir[] = "/tmp/sbguard.XXXXXX", path[300];
  assert_non_null(mkdtemp(dir));
  snprintf(path, sizeof path, "%s/m", dir);
  FILE *f = fopen(path, "w");
  assert_non_null(f);
  fputs("old\n", f);
  fclose(f);
  int seen, st = guarded_child(dir, 0, 0, &seen);
  assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 3 && seen == 0);
  assert_int_equal(temporaries(dir), 0);
  const int sigs[] = {SIGINT, SIGTERM, SIGHUP};
  for (int i = 0; i < 3; i++) {
    st = guarded_child(dir, 1, sigs[i], &seen);
    if (!WIFSIGNALED(st) || WTERMSIG(st) != sigs[i] || seen != sigs[i])
      fail_msg("signal %d: status %#x, on_signal saw %d", sigs[i], st, seen);
    assert_int_equal(temporaries(dir), 0);
  }
  assert_holds(path, "old\n");
  /* committed: a signal afterwards leaves the new file */
  st = guarded_child(dir, 2, SIGTERM, &seen);
  assert_true(WIFSIGNALED(st) && WTERMSIG(st) == SIGTERM && seen == SIGTERM);
  assert_int_equal(temporaries(dir), 0);
  assert_holds(path, "new\n");
  unlink(path);
  assert_int_equal(rmdir(dir), 0);
}

/* what an existing -o may be: a model or an empty file is replaced; any
 * other file (notes, a trace), a FIFO, is refused and left as it was; a
 * symbolic link is written through, the link kept pointing at the new
 * model (a dangling one too) */
static void test_output_kinds(void **state)
{
  (void)state;
  char dir[] = "/tmp/sbkinds.XXXXXX", path[300], target[300], err[512] = "";
  assert_non_null(mkdtemp(dir));
  sb_model *m = parse(good, err, sizeof err);
  assert_non_null(m);
  /* a text file: refused, untouched, no temporary left */
  snprintf(path, sizeof path, "%s/notes.txt", dir);
  FILE *f = fopen(path, "w");
  fputs("notes\n", f);
  fclose(f);
  sb_model_out *o = sb_model_out_open(path, 0, err, sizeof err);
  if (o || !strstr(err, "notes.txt: exists and is not a SimBLAS model (its first line is not 'simblas-model')"))
    fail_msg("a text file as output: %s", o ? "accepted" : err);
  assert_holds(path, "notes\n");
  /* a network file is no model, and a model no network file */
  o = sb_model_out_open_as(path, "network file", "simblas.network", "simblas-network", 0, err, sizeof err);
  assert_null(o);
  assert_non_null(strstr(err, "is not a SimBLAS network file"));
  unlink(path);
  /* a FIFO: refused (no rename over it) */
  snprintf(path, sizeof path, "%s/fifo", dir);
  assert_int_equal(mkfifo(path, 0600), 0);
  o = sb_model_out_open(path, 0, err, sizeof err);
  if (o || !strstr(err, "exists and is no regular file"))
    fail_msg("a FIFO as output: %s", o ? "accepted" : err);
  unlink(path);
  /* empty: replaced (nothing in it to lose: what mktemp makes) */
  snprintf(path, sizeof path, "%s/empty.model", dir);
  close(open(path, O_CREAT | O_WRONLY, 0600));
  o = sb_model_out_open(path, 0, err, sizeof err);
  if (!o)
    fail_msg("an empty file as output: %s", err);
  assert_int_equal(sb_model_out_commit(o, m, NULL, err, sizeof err), 0);
  /* a model (comment lines first, as the writer puts them after the version) is replaced */
  f = fopen(path, "w");
  fputs("# a comment\n\nsimblas-model 1\nreference-speed 1e10\nend\n", f);
  fclose(f);
  o = sb_model_out_open(path, 0, err, sizeof err);
  if (!o)
    fail_msg("a model as output: %s", err);
  assert_int_equal(sb_model_out_commit(o, m, NULL, err, sizeof err), 0);
  /* ... also after comment lines longer than 4,095 bytes, one or many (only
   * the first 4,095 bytes were read: "its first line is not 'simblas-model'") */
  for (int many = 0; many < 2; many++) {
    f = fopen(path, "w");
    for (int l = 0; l < (many ? 100 : 1); l++) {
      fputs("# ", f);
      for (int i = 0; i < (many ? 60 : 5000); i++)
        fputc('x', f);
      fputc('\n', f);
    }
    fputs("simblas-model 1\nreference-speed 1e10\nend\n", f);
    fclose(f);
    o = sb_model_out_open(path, 0, err, sizeof err);
    if (!o)
      fail_msg("a model after %s as output: %s", many ? "100 comment lines" : "a comment of 5,000 bytes", err);
    assert_int_equal(sb_model_out_commit(o, m, NULL, err, sizeof err), 0);
  }
  /* and a text file after that much comment is still no model */
  f = fopen(path, "w");
  for (int i = 0; i < 5000; i++)
    fputs(i ? "x" : "# ", f);
  fputs("\nsimblas-modelx 1\n", f);
  fclose(f);
  o = sb_model_out_open(path, 0, err, sizeof err);
  if (o || !strstr(err, "is not a SimBLAS model"))
    fail_msg("a text file after a comment of 5,000 bytes as output: %s", o ? "accepted" : err);
  unlink(path);
  /* a symbolic link, relative, to a file in a subdirectory: written through */
  snprintf(target, sizeof target, "%s/sub", dir);
  assert_int_equal(mkdir(target, 0755), 0);
  snprintf(target, sizeof target, "%s/sub/real.model", dir);
  snprintf(path, sizeof path, "%s/cur.model", dir);
  assert_int_equal(symlink("sub/real.model", path), 0);
  for (int round = 0; round < 2; round++) { /* dangling first, then to the model the first wrote */
    o = sb_model_out_open(path, 0, err, sizeof err);
    if (!o)
      fail_msg("a symbolic link as output (round %d): %s", round, err);
    assert_int_equal(sb_model_out_commit(o, m, NULL, err, sizeof err), 0);
    struct stat st;
    assert_int_equal(lstat(path, &st), 0);
    assert_true(S_ISLNK(st.st_mode));
    char to[300];
    ssize_t n = readlink(path, to, sizeof to - 1);
    assert_true(n > 0);
    to[n] = 0;
    assert_string_equal(to, "sub/real.model");
    sb_model *back = sb_model_load(target, err, sizeof err);
    if (!back)
      fail_msg("the link's target: %s", err);
    same_predictions(m, back);
    sb_model_free(back);
  }
  /* a link to a text file: refused, the text kept */
  f = fopen(target, "w");
  fputs("notes\n", f);
  fclose(f);
  o = sb_model_out_open(path, 0, err, sizeof err);
  assert_null(o);
  assert_holds(target, "notes\n");
  unlink(path);
  unlink(target);
  snprintf(target, sizeof target, "%s/sub", dir);
  assert_int_equal(rmdir(target), 0);
  assert_int_equal(rmdir(dir), 0); /* no temporary left anywhere */
  sb_model_free(m);
}

static void test_truncated(void **state)
{
  (void)state;
  /* cut a good file at every byte: never crashes, and a file cut before
   * its 'end' line is refused as truncated */
  size_t len = strlen(good);
  char *buf = malloc(len + 1);
  for (size_t cut = 0; cut < len; cut++) {
    memcpy(buf, good, cut);
    buf[cut] = '\0';
    char err[512] = "";
    sb_model *m = parse(buf, err, sizeof err);
    if (cut < len - 1) { /* "end" without its newline is complete */
      if (m)
        fail_msg("cut at %zu accepted", cut);
      assert_true(strstr(err, "test.model") != NULL);
    }
    sb_model_free(m);
  }
  free(buf);
}

/* the "@ld" line: a call that gives its leading dimension has its mean and
 * deviation scaled, piecewise linearly in log(ld) between the points and
 * constant beyond them; one without is not; the line's refusals */
static void test_ld_factors(void **state)
{
  (void)state;
  char err[256];
  sb_model *m = parse("simblas-model 1\nreference-speed 1e9\n"
                      "hpl_dlaswp01T mn=1e-8 | mn=1e-9\nhpl_dlaswp01T@ld 1000:0.5 8000:0.8 64000:1\nend\n",
                      err, sizeof err);
  if (!m)
    fail_msg("%s", err);
  sb_call c = call("hpl_dlaswp01T", 100, 1000, 0);
  const sb_coefs *co = sb_model_coefs(m, 0, c.op);
  static const struct { int64_t ld; double f; } at[] = {
      {0, 1}, {500, 0.5}, {1000, 0.5}, {8000, 0.8}, {22627, 0.9}, {64000, 1}, {1000000, 1}, {2828, 0.65}};
  for (size_t i = 0; i < sizeof at / sizeof *at; i++) {
    c.ld = at[i].ld;
    assert_close(sb_model_mean(m, co, &c), 1e-3 * at[i].f, 1e-3 * 1e-4);
    assert_close(sb_model_sigma(co, &c), 1e-4 * at[i].f, 1e-4 * 1e-4);
  }
  sb_model_free(m);
  /* LD:F:G: the factor follows the call's rows, F (m / 128)^G, and the
   * writer gives the exponent back */
  m = parse("simblas-model 1\nreference-speed 1e9\n"
            "hpl_dlaswp01T mn=1e-8\nhpl_dlaswp01T@ld 1000:0.5:0.5 8000:0.8 64000:1\nend\n",
            err, sizeof err);
  if (!m)
    fail_msg("%s", err);
  co = sb_model_coefs(m, 0, c.op);
  static const struct { int64_t ld, m; double f; } atm[] = {
      {1000, 512, 1.0}, {1000, 32, 0.25}, {500, 128, 0.5}, {8000, 32, 0.8}, {2828, 512, 0.9}, {1000, 0, 0.5 / sqrt(128)}};
  for (size_t i = 0; i < sizeof atm / sizeof *atm; i++) {
    c.ld = atm[i].ld;
    c.m = atm[i].m;
    double t = 1e-8 * (double)(atm[i].m) * 1000;
    assert_close(sb_model_ld_factor(&co->ld, c.ld, c.m), atm[i].f, 2e-4);
    if (t > 0)
      assert_close(sb_model_mean(m, co, &c), t * atm[i].f, t * 2e-4);
  }
  char *text = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&text, &len);
  assert_int_equal(sb_model_write(f, m, NULL, err, sizeof err), 0);
  fclose(f);
  if (!strstr(text, "hpl_dlaswp01T@ld 1e+03:0.5:0.5 8e+03:0.8 6.4e+04:1\n"))
    fail_msg("the writer's @ld line: %s", text);
  free(text);
  sb_model_free(m);
#define LDHEAD "simblas-model 1\nreference-speed 1e9\n"
  expect_error(LDHEAD "hpl_dlaswp01T@ld 1000:0.5\nhpl_dlaswp01T mn=1e-8\nend\n",
               "test.model:3: hpl_dlaswp01T@ld before the plain hpl_dlaswp01T line");
  expect_error(LDHEAD "hpl_dlaswp01T mn=1e-8\nhpl_dlaswp01T@ld 1000:0.5\nhpl_dlaswp01T@ld 2000:0.5\nend\n",
               "test.model:5: hpl_dlaswp01T@ld given twice");
  expect_error(LDHEAD "hpl_dlaswp01T mn=1e-8\nhpl_dlaswp01T@ld 2000:0.5 1000:0.6\nend\n",
               "test.model:4: hpl_dlaswp01T@ld: the leading dimensions must ascend");
  expect_error(LDHEAD "hpl_dlaswp01T mn=1e-8\nhpl_dlaswp01T@ld 1000:0\nend\n",
               "test.model:4: hpl_dlaswp01T@ld: the factor '0'");
  expect_error(LDHEAD "hpl_dlaswp01T mn=1e-8\nhpl_dlaswp01T@ld 1000\nend\n", "'1000' is not LD:FACTOR[:EXPONENT]");
  expect_error(LDHEAD "hpl_dlaswp01T mn=1e-8\nhpl_dlaswp01T@ld 1000:0.5:3\nend\n",
               "test.model:4: hpl_dlaswp01T@ld: the exponent of m '3' is out of range");
  expect_error(LDHEAD "hpl_dlaswp01T mn=1e-8\nhpl_dlaswp01T@ld 1000:0.5:x\nend\n", "the exponent of m 'x'");
  expect_error(LDHEAD "hpl_dlaswp01T mn=1e-8\nhpl_dlaswp01T@ld\nend\n", "hpl_dlaswp01T@ld without points");
  expect_error(LDHEAD "hpl_dlaswp01T mn=1e-8\nhpl_dlaswp01T@nb 1000:1\nend\n", "test.model:4: bad key 'hpl_dlaswp01T@nb'");
#undef LDHEAD
}

static void test_pieces_and_sides(void **state)
{
  (void)state;
  char err[256];
  sb_model *m = parse("simblas-model 1\nreference-speed 1e9\n"
                      "dgemm 1=1\ndgemm[m>=100] 1=2\ndgemm[mn>=100000] 1=5 | 1=0.5\ndgemm[m>=1000] 1=3\n"
                      "dtrsm mnk=1e-10\ndtrsm.right mnk=2e-10\nend\n",
                      err, sizeof err);
  if (!m)
    fail_msg("%s", err);
  sb_call c = call("dgemm", 50, 10, 10);
  const sb_coefs *co = sb_model_coefs(m, 0, c.op);
  assert_close(sb_model_mean(m, co, &c), 1, 0);
  c.m = 100;
  assert_close(sb_model_mean(m, co, &c), 2, 0);
  c.n = 1000; /* mn = 100000: both pieces match, the larger bound wins */
  assert_close(sb_model_mean(m, co, &c), 5, 0);
  assert_close(sb_model_sigma(co, &c), 0.5, 0);
  c.n = 10;
  c.m = 5000; /* m >= 1000 and mn = 50000 */
  assert_close(sb_model_mean(m, co, &c), 3, 0);
  assert_close(sb_model_sigma(co, &c), 0, 0);
  /* the Right-side form has its own line; Left uses the plain one */
  int v;
  int op = sb_model_key("dtrsm.right", &v);
  assert_int_equal(v, 1);
  sb_call t = {.op = op, .m = 10, .n = 20, .k = 20, .variant = 1};
  assert_close(sb_model_mean(m, sb_model_coefs_v(m, 0, op, 1), &t), 2e-10 * 4000, 1e-18);
  t.variant = 0;
  t.k = 10;
  assert_close(sb_model_mean(m, sb_model_coefs_v(m, 0, op, 0), &t), 1e-10 * 2000, 1e-18);
  /* without a .right line the Right side falls back to the plain line */
  int g = sb_model_key("dsymm.right", &v);
  assert_int_equal(v, 1);
  assert_null(sb_model_coefs_v(m, 0, g, 1));
  assert_int_equal(sb_model_key("dgemm.right", &v), -1); /* gemm has no sides */
  sb_model_free(m);
  expect_error("simblas-model 1\nreference-speed 1e9\ndgemm[m>=100] 1=2\ndgemm 1=1\nend\n",
               "test.model:3: piece dgemm[m>=100] before the plain dgemm line");
  expect_error("simblas-model 1\nreference-speed 1e9\ndgemm 1=1\ndgemm[q>=100] 1=2\nend\n", "test.model:4: bad piece");
  expect_error("simblas-model 1\nreference-speed 1e9\ndgemm 1=1\ndgemm[m<100] 1=2\nend\n", "test.model:4: bad piece");
  expect_error("simblas-model 1\nreference-speed 1e9\ndgemm.right 1=1\nend\n", "test.model:3: unknown routine 'dgemm.right'");
}

static void test_missing_file(void **state)
{
  (void)state;
  char err[512];
  assert_null(sb_model_load("/nonexistent/simblas.model", err, sizeof err));
  assert_non_null(strstr(err, "/nonexistent/simblas.model"));
  assert_non_null(strstr(err, "SIMBLAS_MODEL"));
}

/* the family table's columns, as doc/model-format.md states them, and
 * consistent with each other: the calibrator, the fitter and the model
 * read nothing else */
static void test_table_columns(void **state)
{
  (void)state;
  for (int op = 0; op < SB_OP_COUNT; op++) {
    const sb_opinfo *o = &sb_ops[op];
    int sh = o->shape, l3 = sh == SB_SHAPE_GEMM || sh == SB_SHAPE_SIDED || sh == SB_SHAPE_RANKK;
    if ((o->level == SB_LEVEL_3) != l3 || (o->level == SB_LEVEL_M) != (sh == SB_SHAPE_MOVE || sh == SB_SHAPE_MOVE2) ||
        (o->level == SB_LEVEL_1) != (sh == SB_SHAPE_SCALAR || sh == SB_SHAPE_VECTOR))
      fail_msg("%s: level %d and shape %d disagree", o->name, o->level, sh);
    if ((o->level == SB_LEVEL_3) != (o->flop_term == SB_TERM_MNK))
      fail_msg("%s: level %d, flop term %d", o->name, o->level, o->flop_term);
    /* a NAME.right key exactly for the routines with a Right-side form */
    char key[64];
    snprintf(key, sizeof key, "%s.right", o->name);
    int v = -1;
    assert_int_equal(sb_model_key(key, &v), o->variants == 2 ? op : -1);
    if (o->focus != SB_FOCUS_NONE && !(o->dbl && !o->cplx))
      fail_msg("%s: a focus on a routine HPL or LAPACK's double-precision code does not call", o->name);
  }
  struct { const char *name; int level, variants, focus; double flops; } want[] = {
      {"dgemm", 3, 1, SB_FOCUS_HPL, 2.0 * 10 * 20 * 30}, {"sgemm", 3, 1, SB_FOCUS_NONE, 2.0 * 10 * 20 * 30},
      {"ztrsm", 3, 2, SB_FOCUS_NONE, 4.0 * 10 * 20 * 30}, {"dsymm", 3, 2, SB_FOCUS_NONE, 2.0 * 10 * 20 * 30},
      {"dsyrk", 3, 1, SB_FOCUS_LAPACK, 10.0 * 20 * 30}, {"dgemv", 2, 1, SB_FOCUS_HPL, 2.0 * 10 * 20},
      {"dgbmv", 2, 1, SB_FOCUS_NONE, 2.0 * 20 * 30},     {"idamax", 1, 1, SB_FOCUS_HPL, 20},
      {"daxpy", 1, 1, SB_FOCUS_HPL, 2.0 * 20},           {"drotg", 1, 1, SB_FOCUS_NONE, 10.0 * 20},
      {"hpl_dlaswp01T", SB_LEVEL_M, 1, SB_FOCUS_NONE, 10.0 * 20},
  };
  for (size_t i = 0; i < sizeof want / sizeof *want; i++) {
    sb_call c = call(want[i].name, 10, 20, 30);
    const sb_opinfo *o = &sb_ops[c.op];
    if (o->level != want[i].level || o->variants != want[i].variants || o->focus != want[i].focus ||
        sb_call_flops(&c) != want[i].flops)
      fail_msg("%s: level %d variants %d focus %d flops %g", o->name, o->level, o->variants, o->focus,
               sb_call_flops(&c));
  }
  assert_int_equal(sb_ops[sb_op_lookup("hpl_dlaswp04N")].shape, SB_SHAPE_MOVE2);
}

static void test_every_op_has_a_key(void **state)
{
  (void)state;
  for (int op = 0; op < SB_OP_COUNT; op++)
    assert_int_equal(sb_op_lookup(sb_ops[op].name), op);
  assert_int_equal(sb_op_lookup("dgemm_"), -1);
}

/* SMPI's network factors, as SimGrid reads smpi/lat-factor: the value
 * of the largest threshold <= the size, whatever order they are given in */
static void test_network_factors(void **state)
{
  (void)state;
  sb_factors f;
  assert_int_equal(sb_factors_parse(sb_default_lat_factor, &f), 0);
  assert_int_equal(f.n, 9);
  assert_true(f.at[0] == 65472 && f.at[8] == 0);
  assert_true(sb_factors_at(&f, 0) == 2.01467);
  assert_true(sb_factors_at(&f, 256) == 2.01467);
  assert_true(sb_factors_at(&f, 257) == 1.95341);
  assert_true(sb_factors_at(&f, 65471) == 3.48845);
  assert_true(sb_factors_at(&f, 65472) == 11.6436);
  assert_true(sb_factors_at(&f, 1e9) == 11.6436);
  assert_int_equal(sb_factors_parse(sb_default_bw_factor, &f), 0);
  assert_true(sb_factors_at(&f, 1 << 20) == 0.940694);
  assert_true(sb_factors_at(&f, 1000) == 0.341987);
  /* any order; below every threshold: 1; a trailing ';' is accepted */
  assert_int_equal(sb_factors_parse("100:2;1000:3;10:0.5;", &f), 0);
  assert_int_equal(f.n, 3);
  assert_true(sb_factors_at(&f, 5) == 1);
  assert_true(sb_factors_at(&f, 10) == 0.5);
  assert_true(sb_factors_at(&f, 999) == 2);
  assert_true(sb_factors_at(&f, 1000) == 3);
  const char *bad[] = {"", "12", "12:", ":3", "12:x", "12:0", "12:-1", "-1:2", "1:2,3:4", "1:2;;3:4",
                       /* what strtod reads beyond SMPI's lists: inf, white space, hexadecimal */
                       "0:inf", "inf:1", " 0:1", "0: 1", "0x10:1", "0:0x1p-3"};
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
    assert_int_equal(sb_factors_parse(bad[i], &f), -1);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_good_file),    cmocka_unit_test(test_fallback_is_flops_over_speed),
      cmocka_unit_test(test_extreme_sizes), cmocka_unit_test(test_malformed),
      cmocka_unit_test(test_truncated),     cmocka_unit_test(test_missing_file),
      cmocka_unit_test(test_pieces_and_sides),
      cmocka_unit_test(test_ld_factors),
      cmocka_unit_test(test_every_op_has_a_key), cmocka_unit_test(test_table_columns),
      cmocka_unit_test(test_refused_precisely), cmocka_unit_test(test_too_many_sets),
      cmocka_unit_test(test_round_trip),        cmocka_unit_test(test_model_files),
      cmocka_unit_test(test_guarded_output),    cmocka_unit_test(test_output_kinds),
      cmocka_unit_test(test_network_factors),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
