/*
 * events.c -- a PMPI library for bench/mpi-probe-lag/hpl-events.sh: every
 * MPI_Send, MPI_Recv and MPI_Iprobe of each rank with its start and end,
 * written at MPI_Finalize to ev.RANK in the working directory:
 *   KIND PEER TAG FLAG START END BYTES   (KIND S, R or P; FLAG: a probe's)
 * Built twice:
 *   real (mpicc): times from CLOCK_MONOTONIC, one process per rank;
 *   -DSMPI_EVENTS (cc -I/usr/include/smpi), preloaded before
 *   libsimblas_pmpi under smpirun: simulated times (MPI_Wtime's clock),
 *   per rank in the one process (ranks are keyed by their number, not by
 *   thread), chaining to the next wrapper (libsimblas_pmpi's lagged
 *   probe).  A send or receive first asks libsimblas to inject what the
 *   rank owes (simblas_flush, as the next wrapper would), so that its start
 *   is the simulated clock's; a probe is logged at its end only, and adds
 *   no MPI call of its own that the lagged probe would count.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

typedef struct ev {
  char kind;
  int peer, tag, flag;
  double t0, t1;
  long bytes;
} ev;

#ifdef SMPI_EVENTS
#define MAXR 4096
static ev *E[MAXR];
static long n[MAXR], cap[MAXR];
static int me(void)
{
  int r;
  PMPI_Comm_rank(MPI_COMM_WORLD, &r);
  return r < MAXR ? r : MAXR - 1;
}
static double now(void) { return PMPI_Wtime(); }
static void owed(void)
{
  static void (*f)(void);
  if (!f)
    f = (void (*)(void))dlsym(RTLD_DEFAULT, "simblas_flush");
  if (f)
    f();
}
#define FORWARD(T, name) static T f_; if (!f_) f_ = (T)dlsym(RTLD_NEXT, #name)
#else
static ev *E[1];
static long n[1], cap[1];
static int me(void) { return 0; }
static double now(void)
{
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}
static void owed(void) {}
#define FORWARD(T, name) T f_ = P##name
#endif

static void add(int r, char kind, int peer, int tag, int flag, double t0, double t1, long bytes)
{
  if (n[r] == cap[r]) {
    cap[r] = cap[r] ? 2 * cap[r] : 65536;
    if (!(E[r] = realloc(E[r], (size_t)cap[r] * sizeof(ev)))) {
      fprintf(stderr, "events: out of memory\n");
      exit(2);
    }
  }
  E[r][n[r]++] = (ev){kind, peer, tag, flag, t0, t1, bytes};
}

typedef int (*send_t)(const void *, int, MPI_Datatype, int, int, MPI_Comm);
typedef int (*recv_t)(void *, int, MPI_Datatype, int, int, MPI_Comm, MPI_Status *);
typedef int (*probe_t)(int, int, MPI_Comm, int *, MPI_Status *);

int MPI_Send(const void *b, int c, MPI_Datatype d, int dest, int tag, MPI_Comm comm)
{
  FORWARD(send_t, MPI_Send);
  int sz, r = me();
  PMPI_Type_size(d, &sz);
  owed();
  double t = now();
  int x = f_(b, c, d, dest, tag, comm);
  add(r, 'S', dest, tag, 0, t, now(), (long)sz * c);
  return x;
}

int MPI_Recv(void *b, int c, MPI_Datatype d, int src, int tag, MPI_Comm comm, MPI_Status *s)
{
  FORWARD(recv_t, MPI_Recv);
  int r = me();
  owed();
  double t = now();
  int x = f_(b, c, d, src, tag, comm, s);
  add(r, 'R', src, tag, 0, t, now(), 0);
  return x;
}

int MPI_Iprobe(int src, int tag, MPI_Comm comm, int *flag, MPI_Status *s)
{
  FORWARD(probe_t, MPI_Iprobe);
  int r = me();
  int x = f_(src, tag, comm, flag, s);
  double t = now();
  add(r, 'P', src, tag, *flag, t, t, 0);
  return x;
}

int MPI_Finalize(void)
{
  int r, w;
  PMPI_Comm_rank(MPI_COMM_WORLD, &w);
  r = me();
  char fn[64];
  snprintf(fn, sizeof fn, "ev.%d", w);
  FILE *o = fopen(fn, "w");
  for (long i = 0; o && i < n[r]; i++)
    fprintf(o, "%c %d %d %d %.7f %.7f %ld\n", E[r][i].kind, E[r][i].peer, E[r][i].tag, E[r][i].flag, E[r][i].t0,
            E[r][i].t1, E[r][i].bytes);
  if (!o || fclose(o) != 0)
    fprintf(stderr, "events: cannot write %s\n", fn);
  return PMPI_Finalize();
}
