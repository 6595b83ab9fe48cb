/*
 * network.c -- simblas-calibrate --network (network.h): runs
 * simblas-pingpong (pingpong.c) under Open MPI's mpirun, between two ranks
 * of this host and, with --hostfile, between two hosts; fits SMPI's
 * piecewise factors and the link on its times (netfit.c); writes the
 * network file that simblas-hpl run reads, written atomically as model
 * files are (sb_model_out_*, lib/model.h).
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "measure.h"
#include "model.h"
#include "netfit.h"
#include "network.h"
#include "settings.h"

#define NET_TIMEOUT_S 300 /* a ping-pong takes seconds; ssh asking for a password never ends */
#define NET_MAX_POINTS 128
#define NET_MAX_COLL 16
#define NET_MAX_SEG 8
#define NET_MIN_POINTS 4 /* a segment: at least an octave of sizes (four per octave) */
#define NET_FILE_BYTES 65536 /* reserved for the network file: a link's text takes at most about 12 kB */

static const char needs_mpi[] =
    "--network needs Open MPI's mpicc and mpirun: install openmpi-bin and libopenmpi-dev "
    "(scripts/install-deps.sh)";

typedef struct {
  char host0[256], host1[256];
  nf_point pts[NET_MAX_POINTS];
  double spread[NET_MAX_POINTS];
  size_t n;
  struct {
    char name[32];
    double size, t;
  } coll[NET_MAX_COLL];
  int ncoll;
  nf_fit fit;
} net_link;

/* ---- the programs ------------------------------------------------------------ */
/* simblas-pingpong: beside this program (a build tree, or bin/ and
 * libexec/ alike), else where it is installed */
static void pingpong_path(char *buf, size_t len)
{
  char self[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
  if (n > 0) {
    self[n] = 0;
    char *slash = strrchr(self, '/');
    snprintf(buf, len, "%.*s/simblas-pingpong", slash ? (int)(slash - self) : 1, slash ? self : ".");
    if (access(buf, X_OK) == 0)
      return;
  }
#ifdef SB_PINGPONG
  snprintf(buf, len, "%s", SB_PINGPONG);
  if (access(buf, X_OK) == 0)
    return;
#endif
  cal_die("%s", needs_mpi);
}

/* Open MPI's mpirun: SIMBLAS_MPIRUN (settings.def), else the PATH's */
static void mpirun_path(char *buf, size_t len)
{
  sb_settings_load_row(SB_ROW_mpirun);
  const char *env = sb_cfg.mpirun, *path = getenv("PATH");
  if (env) { /* set and not empty */
    if (access(env, X_OK) != 0)
      cal_die("SIMBLAS_MPIRUN=%s is not an executable: unset it or name Open MPI's mpirun", env);
    snprintf(buf, len, "%s", env);
    return;
  }
  for (const char *p = path ? path : "/usr/bin:/bin"; *p;) {
    const char *e = strchr(p, ':');
    size_t l = e ? (size_t)(e - p) : strlen(p);
    snprintf(buf, len, "%.*s/mpirun", (int)l, l ? p : ".");
    if (access(buf, X_OK) == 0)
      return;
    p += l + (e != NULL);
  }
  cal_die("%s", needs_mpi);
}

/* ---- one ping-pong ------------------------------------------------------------ */
static void parse_line(net_link *k, const char *line)
{
  double s, t, sp;
  char name[32];
  if (sscanf(line, "hosts %255s %255s", k->host0, k->host1) == 2)
    return;
  if (sscanf(line, "pingpong %lf %lf %lf", &s, &t, &sp) == 3 && k->n < NET_MAX_POINTS) {
    k->pts[k->n] = (nf_point){s, t};
    k->spread[k->n++] = sp;
  } else if (sscanf(line, "collective %31s %lf %lf", name, &s, &t) == 3 && k->ncoll < NET_MAX_COLL) {
    snprintf(k->coll[k->ncoll].name, sizeof k->coll[k->ncoll].name, "%s", name);
    k->coll[k->ncoll].size = s;
    k->coll[k->ncoll++].t = t;
  }
}

static volatile pid_t child; /* mpirun's process group, while it runs */

/* ^C, SIGTERM, SIGHUP: mpirun (a process group of its own, which the
 * terminal's ^C does not reach) stopped; sb_model_out_guard then removes
 * the temporary and the signal ends this program */
static void stop_mpirun(int sig)
{
  (void)sig;
  if (child > 0)
    kill(-child, SIGTERM);
}

/* run argv, its output (stdout and stderr) parsed line by line; the last
 * line that is not the ping-pong's kept for the error */
static void run_pingpong(char *const argv[], net_link *k, const char *what)
{
  int fd[2];
  if (pipe(fd) != 0)
    cal_die("cannot make a pipe for mpirun: %s", strerror(errno));
  fflush(stderr);
  /* a stop that arrives while mpirun is being started waits until `child`
   * names it, so that it reaches mpirun */
  sigset_t stops, old;
  sigemptyset(&stops);
  sigaddset(&stops, SIGINT);
  sigaddset(&stops, SIGTERM);
  sigaddset(&stops, SIGHUP);
  sigprocmask(SIG_BLOCK, &stops, &old);
  pid_t pid = fork();
  if (pid < 0)
    cal_die("cannot start mpirun: %s", strerror(errno));
  if (pid == 0) {
    signal(SIGINT, SIG_DFL); /* this program's handler is not mpirun's */
    signal(SIGTERM, SIG_DFL);
    signal(SIGHUP, SIG_DFL);
    sigprocmask(SIG_SETMASK, &old, NULL);
    setpgid(0, 0); /* its own group: stopped as a whole on a timeout */
    dup2(fd[1], 1);
    dup2(fd[1], 2);
    close(fd[0]);
    close(fd[1]);
    execv(argv[0], argv);
    fprintf(stderr, "cannot run %s: %s\n", argv[0], strerror(errno));
    _exit(127);
  }
  child = pid;
  sigprocmask(SIG_SETMASK, &old, NULL);
  close(fd[1]);
  char buf[8192], last[512] = "";
  size_t have = 0;
  double t0 = cal_now();
  int timed_out = 0;
  for (;;) {
    struct pollfd p = {.fd = fd[0], .events = POLLIN};
    int left = (int)((NET_TIMEOUT_S - (cal_now() - t0)) * 1000);
    if (left <= 0 || poll(&p, 1, left) == 0) {
      timed_out = 1;
      kill(-pid, SIGTERM);
      sleep(1);
      kill(-pid, SIGKILL);
      break;
    }
    ssize_t r = read(fd[0], buf + have, sizeof buf - 1 - have);
    if (r < 0 && errno == EINTR)
      continue;
    if (r <= 0)
      break;
    have += (size_t)r;
    buf[have] = 0;
    char *nl, *line = buf;
    while ((nl = strchr(line, '\n'))) {
      *nl = 0;
      parse_line(k, line);
      if (strncmp(line, "pingpong ", 9) && strncmp(line, "collective ", 11) && strncmp(line, "hosts ", 6) && *line)
        snprintf(last, sizeof last, "%s", line);
      line = nl + 1;
    }
    have = strlen(line);
    memmove(buf, line, have + 1);
    if (have == sizeof buf - 1)
      have = 0; /* a line longer than the buffer: not ours */
  }
  close(fd[0]);
  int st = 0;
  while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
    ;
  child = 0;
  if (timed_out)
    cal_die("the %s ping-pong did not finish in %d s (mpirun stopped): with --hostfile, check that ssh to "
            "each host works without a password (ssh HOST true)", what, NET_TIMEOUT_S);
  if (!WIFEXITED(st) || WEXITSTATUS(st) != 0 || k->n < 2 * NET_MIN_POINTS)
    cal_die("the %s ping-pong failed (mpirun %s %d, %zu sizes measured): %s; run the mpirun command printed above "
            "by hand to see why",
            what,
            WIFEXITED(st) ? "exit status" : "signal", WIFEXITED(st) ? WEXITSTATUS(st) : WTERMSIG(st), k->n,
            *last ? last : "no message");
}

/* the intra-node link (hostfile NULL: two cores of this host) or the
 * interconnect (two hosts of the hostfile) */
static void measure(net_link *k, const char *hostfile, const char *mpirun, const char *pingpong)
{
  const char *what = hostfile ? "interconnect" : "intra-node";
  char *argv[24];
  int a = 0;
  argv[a++] = (char *)mpirun;
  if (geteuid() == 0)
    argv[a++] = "--allow-run-as-root";
  argv[a++] = "-np";
  argv[a++] = "2";
  argv[a++] = "--bind-to";
  argv[a++] = "core";
  argv[a++] = "--map-by";
  if (hostfile) {
    argv[a++] = "node"; /* one rank on each of the first two hosts */
    argv[a++] = "--hostfile";
    argv[a++] = (char *)hostfile;
  } else {
    argv[a++] = "core";
    argv[a++] = "--host";
    argv[a++] = "localhost:2";
  }
  argv[a++] = (char *)pingpong;
  argv[a] = NULL;
  fprintf(stderr, "simblas-calibrate: the %s ping-pong:", what);
  for (int i = 0; i < a; i++)
    fprintf(stderr, " %s", argv[i]);
  fprintf(stderr, "\n");
  memset(k, 0, sizeof *k);
  run_pingpong(argv, k, what);
  if (hostfile && !strcmp(k->host0, k->host1))
    cal_die("--hostfile %s: both ranks ran on %s; the interconnect needs two hosts: name two hosts in it, "
            "one per line", hostfile, k->host0);
  if (nf_fit_segments(k->pts, k->n, NET_MAX_SEG, NET_MIN_POINTS, &k->fit) != 0)
    cal_die("the %s ping-pong's times cannot be fitted (%zu sizes; times that do not grow with the size?); "
            "measure again with the machine otherwise idle",
            what, k->n);
}

/* ---- the network file ---------------------------------------------------------- */
static void write_link(FILE *f, const char *sec, const net_link *k)
{
  char lat[1024], bw[1024];
  const nf_fit *x = &k->fit;
  nf_lat_factor(x, lat, sizeof lat);
  nf_bw_factor(x, bw, sizeof bw);
  fprintf(f, "\n# %s: two ranks on %s%s%s; SMPI's time for S bytes: latency x lat-factor(S) + S / (bandwidth x "
             "bw-factor(S))\n", sec, k->host0, strcmp(k->host0, k->host1) ? " and " : "",
          strcmp(k->host0, k->host1) ? k->host1 : "");
  fprintf(f, "%s link %.6g %.6g  # latency s, bandwidth B/s\n", sec, x->latency, x->bandwidth);
  fprintf(f, "%s lat-factor %s\n%s bw-factor %s\n", sec, lat, sec, bw);
  fprintf(f, "%s fit segments=%d median_rel_err=%.4f max_rel_err=%.4f sizes=%zu\n", sec, x->nseg,
          x->median_rel_err, x->max_rel_err, k->n);
  for (int s = 0; s < x->nseg; s++)
    fprintf(f, "%s segment %.0f %.6g %.6g  # from SIZE: t = a + S / b (max rel err %.4f)\n", sec, x->seg[s].from,
            x->seg[s].a, x->seg[s].b, x->seg[s].max_rel_err);
  for (size_t i = 0; i < k->n; i++)
    fprintf(f, "%s pingpong %.0f %.6e %.4f\n", sec, k->pts[i].size, k->pts[i].t, k->spread[i]);
  for (int i = 0; i < k->ncoll; i++)
    fprintf(f, "%s collective %s %.0f %.6e\n", sec, k->coll[i].name, k->coll[i].size, k->coll[i].t);
}

static void say_link(const char *sec, const net_link *k)
{
  const nf_fit *x = &k->fit;
  double spread[NET_MAX_POINTS];
  memcpy(spread, k->spread, sizeof spread[0] * k->n);
  double worst = 0;
  for (size_t i = 0; i < k->n; i++)
    worst = fmax(worst, spread[i]);
  fprintf(stderr, "simblas-calibrate: %s: latency %.3g us, bandwidth %.3g GB/s, %d segment(s), the fit within "
                  "%.1f%% (median %.1f%%) of %zu sizes; passes up to %.0f%% apart\n",
          sec, x->latency * 1e6, x->bandwidth / 1e9, x->nseg, 100 * x->max_rel_err, 100 * x->median_rel_err,
          k->n, 100 * worst);
}

int cal_network(const char *out, const char *hostfile)
{
#ifndef SB_HAVE_PINGPONG
  (void)out;
  (void)hostfile;
  cal_die("%s", needs_mpi);
#else
  char pingpong[PATH_MAX + 32], mpirun[PATH_MAX + 32];
  if (hostfile && access(hostfile, R_OK) != 0)
    cal_die("--hostfile %s: %s (a file naming two hosts, one per line)", hostfile, strerror(errno));
  pingpong_path(pingpong, sizeof pingpong);
  mpirun_path(mpirun, sizeof mpirun);
  long cores = sysconf(_SC_NPROCESSORS_ONLN);
  if (cores < 2)
    cal_die("the intra-node link is measured between two ranks bound to two cores; this machine has %ld: run "
            "simblas-calibrate --network on a host with two cores or more",
            cores);
  /* the temporary beside OUT, opened before anything is measured: an
   * unwritable place or a full disk is said now */
  char err[1024];
  sb_model_out *o = sb_model_out_open_as(out, "network file", "simblas.network", "simblas-network", NET_FILE_BYTES, err, sizeof err);
  if (!o)
    cal_die("-o %s", err);
  sb_model_out_guard(o, stop_mpirun);
  static net_link intra, inter;
  measure(&intra, NULL, mpirun, pingpong);
  say_link("intra", &intra);
  if (hostfile) {
    measure(&inter, hostfile, mpirun, pingpong);
    say_link("inter", &inter);
  }
  time_t now = time(NULL);
  char date[64];
  strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
  char *text = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&text, &len);
  if (!f)
    cal_die("out of memory for the network file");
  fprintf(f, "simblas-network 1\n# written by simblas-calibrate --network " PACKAGE_VERSION
             "; read by simblas-hpl run (--network FILE); doc/model-format.md, \"Network files\"\n");
  fprintf(f, "meta date %s\nmeta mpirun \"%s\"\n", date, mpirun);
  write_link(f, "intra", &intra);
  if (hostfile)
    write_link(f, "inter", &inter);
  if (fclose(f) != 0)
    cal_die("out of memory for the network file");
  if (sb_model_out_commit_text(o, text, len, err, sizeof err) != 0)
    cal_die("-o %s; %s is left as it was", err, out);
  free(text);
  fprintf(stderr, "simblas-calibrate: wrote %s; simblas-hpl run --network %s uses it\n", out, out);
  return 0;
#endif
}
