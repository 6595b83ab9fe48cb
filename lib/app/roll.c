/*
 * roll.c -- HPL's merged rolls (hpl_simblas.h, patch 14): the steps of a
 * roll collected into at most two exchanges per run of 2G steps, and the
 * latencies the merged messages no longer pay charged as idle waits.
 * Its MPI calls are the program's (libsimblas_pmpi wraps them as it wraps
 * HPL's own), so it needs SimGrid's MPI.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#ifdef SB_HAVE_SIMGRID
#include <smpi/smpi.h>

#include "hpl_simblas.h"
#include "sb_rt.h"

static void reset(simblas_hpl_roll *r)
{
  r->len[0][0] = r->len[0][1] = r->len[1][0] = r->len[1][1] = 0;
  r->used[0] = r->used[1] = 0;
  r->first = 0;
  r->t[0] = r->t[1] = 0.0;
}

void simblas_hpl_roll_init(simblas_hpl_roll *r, double unit, int zeros)
{
  reset(r);
  r->world[0] = r->world[1] = -1;
  r->unit = unit;
  r->zeros = zeros;
}

/* the uncontended time of the message of LEN elements (none: 0) */
static double msg(const simblas_hpl_roll *r, int side, int len)
{
  if (len <= 0 && !r->zeros)
    return 0.0;
  return simblas_message_time(r->world[side], (double)(len > 0 ? len : 0) * r->unit);
}

/* what a step's exchange takes: its longer message */
static double pair(const simblas_hpl_roll *r, int side, int ls, int lr)
{
  double a = msg(r, side, ls), b = msg(r, side, lr);
  return a > b ? a : b;
}

/* After the run's exchange with SIDE: the rank waits, idle, what the
 * run's steps' messages would have taken beyond the merged ones (their
 * latencies, mostly: SMPI multiplies a large message's by 11.6), so that
 * the roll takes as long as HPL's, uncontended.  Both partners owe the
 * same. */
static void owe(const simblas_hpl_roll *r, int side)
{
  double owe = r->t[side] - pair(r, side, r->len[side][0], r->len[side][1]);
  if (owe > 0.0)
    simblas_idle(owe);
}

int simblas_hpl_roll_add(simblas_hpl_roll *r, int k, int n, int g, int side, int partner, int ls, int lr,
                         MPI_Comm comm)
{
  if (r->world[side] < 0) {
    MPI_Group grp, world;
    MPI_Comm_group(comm, &grp);
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    MPI_Group_translate_ranks(grp, 1, &partner, world, &r->world[side]);
    MPI_Group_free(&grp);
    MPI_Group_free(&world);
  }
  if (!r->used[0] && !r->used[1])
    r->first = side;
  r->used[side] = 1;
  r->partner[side] = partner;
  r->len[side][0] += ls;
  r->len[side][1] += lr;
  r->t[side] += pair(r, side, ls, lr);
  return (k + 1) % (2 * g) == 0 || k + 1 >= n;
}

/* the I-th (0, 1) exchange of the run: its side, or -1 when it has none */
static int side_of(const simblas_hpl_roll *r, int i)
{
  int s = i == 0 ? r->first : 1 - r->first;
  return r->used[s] ? s : -1;
}

static void check(MPI_Status *st, int want, int from)
{
  int cnt;
  if (MPI_Get_count(st, MPI_DOUBLE, &cnt) == MPI_SUCCESS && cnt != want)
    sb_fatal("merged roll: received %d elements from %d, expected %d; rebuild HPL with the installed patches "
             "(simblas-hpl build --force), or run without --roll-merge (SIMBLAS_ROLL_MERGE)",
             cnt, from, want);
}

int simblas_hpl_roll_bcast(simblas_hpl_roll *r, double *buf, MPI_Request *request, MPI_Status *status,
                           MPI_Comm comm, int msgid)
{
  int dummy = 0, ierr = MPI_SUCCESS;
  for (int i = 0; i < 2; i++) {
    int s = side_of(r, i);
    if (s < 0)
      continue;
    if (ierr == MPI_SUCCESS)
      ierr = r->len[s][0] > 0 ? MPI_Issend(buf, r->len[s][0], MPI_DOUBLE, r->partner[s], msgid, comm, request)
                              : MPI_Issend(&dummy, 0, MPI_BYTE, r->partner[s], msgid, comm, request);
    if (ierr == MPI_SUCCESS)
      ierr = r->len[s][1] > 0 ? MPI_Recv(buf, r->len[s][1], MPI_DOUBLE, r->partner[s], msgid, comm, status)
                              : MPI_Recv(&dummy, 0, MPI_BYTE, r->partner[s], msgid, comm, status);
    if (ierr == MPI_SUCCESS && r->len[s][1] > 0)
      check(status, r->len[s][1], r->partner[s]);
    if (ierr == MPI_SUCCESS)
      ierr = MPI_Wait(request, status);
    owe(r, s);
  }
  reset(r);
  return ierr;
}

int simblas_hpl_roll_swap(simblas_hpl_roll *r, double *u, int ldu, int n, int trans, MPI_Comm comm, int msgid)
{
  MPI_Datatype rtype, type;
  MPI_Request request;
  MPI_Status status;
  int ierr = MPI_SUCCESS;
  for (int i = 0; i < 2; i++) {
    int s = side_of(r, i);
    if (s < 0)
      continue;
    int ls = r->len[s][0], lr = r->len[s][1];
    if (lr > 0 && ierr == MPI_SUCCESS) {
      if (trans)
        ierr = MPI_Irecv(u, lr * ldu, MPI_DOUBLE, r->partner[s], msgid, comm, &request);
      else {
        ierr = MPI_Type_vector(n, lr, ldu, MPI_DOUBLE, &rtype);
        if (ierr == MPI_SUCCESS)
          ierr = MPI_Type_commit(&rtype);
        if (ierr == MPI_SUCCESS)
          ierr = MPI_Irecv(u, 1, rtype, r->partner[s], msgid, comm, &request);
      }
    }
    if (ls > 0 && ierr == MPI_SUCCESS) {
      if (trans)
        ierr = MPI_Send(u, ls * ldu, MPI_DOUBLE, r->partner[s], msgid, comm);
      else {
        ierr = MPI_Type_vector(n, ls, ldu, MPI_DOUBLE, &type);
        if (ierr == MPI_SUCCESS)
          ierr = MPI_Type_commit(&type);
        if (ierr == MPI_SUCCESS)
          ierr = MPI_Send(u, 1, type, r->partner[s], msgid, comm);
        if (ierr == MPI_SUCCESS)
          ierr = MPI_Type_free(&type);
      }
    }
    if (lr > 0 && ierr == MPI_SUCCESS) {
      ierr = MPI_Wait(&request, &status);
      if (ierr == MPI_SUCCESS)
        check(&status, lr * (trans ? ldu : n), r->partner[s]);
      if (ierr == MPI_SUCCESS && !trans)
        ierr = MPI_Type_free(&rtype);
    }
    owe(r, s);
  }
  reset(r);
  return ierr;
}
#endif
