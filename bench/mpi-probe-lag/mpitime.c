/*
 * mpitime.c -- a PMPI library for real runs (bench/mpi-probe-lag/hpl-waits.sh):
 * each rank's time in MPI_Send, MPI_Recv and MPI_Iprobe (calls, and the
 * probes that matched), one line on stderr at MPI_Finalize:
 *   MPITIME rank R send S s (N) recv S s (N) iprobe S s (N, H hits)
 * Preload it: mpirun -x LD_PRELOAD=libmpitime.so ...
 */
#include <mpi.h>
#include <stdio.h>
#include <time.h>

static double now(void)
{
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static double t_send, t_recv, t_probe;
static long n_send, n_recv, n_probe, n_hit;

int MPI_Send(const void *b, int c, MPI_Datatype d, int dest, int tag, MPI_Comm comm)
{
  double t = now();
  int r = PMPI_Send(b, c, d, dest, tag, comm);
  t_send += now() - t;
  n_send++;
  return r;
}

int MPI_Recv(void *b, int c, MPI_Datatype d, int src, int tag, MPI_Comm comm, MPI_Status *s)
{
  double t = now();
  int r = PMPI_Recv(b, c, d, src, tag, comm, s);
  t_recv += now() - t;
  n_recv++;
  return r;
}

int MPI_Iprobe(int src, int tag, MPI_Comm comm, int *f, MPI_Status *s)
{
  double t = now();
  int r = PMPI_Iprobe(src, tag, comm, f, s);
  t_probe += now() - t;
  n_probe++;
  n_hit += *f;
  return r;
}

int MPI_Finalize(void)
{
  int rank;
  PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
  fprintf(stderr, "MPITIME rank %d send %.4f s (%ld) recv %.4f s (%ld) iprobe %.4f s (%ld, %ld hits)\n", rank, t_send,
          n_send, t_recv, n_recv, t_probe, n_probe, n_hit);
  return PMPI_Finalize();
}
