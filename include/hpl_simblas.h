/*
 * hpl_simblas.h -- SimBLAS for HPL: what the patch series (hpl-patches/)
 * calls beyond simblas_app.h.  HPL's hpl.h includes it under -DSIMBLAS_HPL
 * (patch 01), after mpi.h; SimBLAS installs it beside simblas.h, and
 * libsimblas has its functions (lib/app/hpl.c, lib/app/roll.c).  Without
 * SIMBLAS_HPL the patched HPL is the unmodified benchmark: it generates,
 * factors, solves and checks.
 *
 * With SIMBLAS_HPL, HPL is linked with libsimblas and run under smpirun:
 * the BLAS calls and HPL's own memory kernels (dlaswp*, dlacpy, dlatcpy)
 * compute nothing; their predicted durations are injected into the
 * simulation.  The matrix and the floating-point parts of the panel
 * buffers are folded (simblas_fold_malloc*: their contents are garbage
 * shared by all ranks); only control data -- pivot indices, the info
 * flag, the integer index arrays of the row swaps -- is private and
 * computed for real, so that every rank takes the same decisions and
 * sends the same messages as in a real run.  See hpl-patches/README.md.
 */
#ifndef HPL_SIMBLAS_H
#define HPL_SIMBLAS_H

#include "simblas_app.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- the pivots (patches 03, 05, 13) -----------------------------------------
 * The matrix is folded garbage, so SimBLAS decides the pivots.
 * simblas_hpl_pivot(G, N): the pivot row of global column G of the N x N
 * matrix, a hash of G uniform over the remaining rows G..N-1, as a random
 * matrix's pivots are.  HPL_dlocmax makes this row win the pivot search
 * (its owner offers it with the value 2, the other process rows their
 * candidate with the value 1), and every rank fills its private DPIV with
 * the same values in HPL_pdpanel_init, so that the panel's floating-point
 * buffer can be folded and shared by all ranks without carrying control
 * data.  The row's owner among NPROW process rows, blocks of NB rows, is
 * process row (row / NB) mod NPROW (HPL_indxg2p with the source at 0). */
SIMBLAS_EXPORT int simblas_hpl_pivot(int g, int n);

/* After HPL_pdmxswp's combine, on every rank of the process column:
 * WORK[2] must be simblas_hpl_pivot's row and WORK[3] its owner, else
 * the ranks' row swaps would differ (a patch that let matrix garbage win,
 * a lost copy of WORK): stops the run, naming column G. */
SIMBLAS_EXPORT void simblas_hpl_pivot_check(int g, int n, int nb, int nprow, const double *work);

/* A column whose exchange SimBLAS thinned (simblas_pivot_exchange said 0):
 * set the combine's result every rank would get, WORK[0] = 2 (the owner's
 * offer), WORK[2] the row, WORK[3] its owner.  The owner (MYROW) checks
 * that it offered that row (WORK[2] from HPL_dlocmax); WORK[1] is read by
 * the owner only, which has it. */
SIMBLAS_EXPORT void simblas_hpl_pivot_thinned(int g, int n, int nb, int myrow, int nprow, double *work);

/* ---- spin-waits (patch 12) -----------------------------------------------------
 * 1 with SIMBLAS_BLOCKING_WAITS=1 (simblas-hpl run --waits block): a rank
 * whose only work left is waiting for a panel broadcast receives it with
 * a blocking MPI_Recv instead of polling MPI_Iprobe (HPL_1ring, HPL_1rinM,
 * HPL_2ring, HPL_2rinM; HPL_blong/blonM never poll).  The same messages
 * and the same receive; none of the failed polls, each a simulator step
 * (millions per run).  A spinning rank keeps its core busy and a blocked
 * one does not: simblas-hpl keeps polling when energy is measured. */
SIMBLAS_EXPORT int simblas_blocking_waits(void);

/* ---- merged rolls (patch 14) ------------------------------------------------------
 * HPL "rolls" pieces around a ring of processes: in each of about R steps
 * (R the ring's size) every rank exchanges one piece with a neighbour,
 * alternately the next and the previous one -- about R^2 messages per
 * ring.  The long broadcasts (HPL_blong, HPL_blonM) roll the panel along
 * the process row (Q^2 messages per row and panel: 450,000 per iteration
 * at Stampede's scale, Q = 78), the long row swap (HPL_rollN, HPL_rollT,
 * swap=1, or 2 with NB above its threshold) rolls U along the process
 * column (P^2 per column: 8 million per iteration at P = 200); once the
 * pivot search is thinned they are most of the simulation's wall time.
 * The row swap's roll is merged only when no broadcast is pending
 * (PBCST == NULL: no look-ahead): with one, HPL polls it at every step,
 * and a rank that finds the next panel forwards it there, holding up its
 * ring; merged, that coupling was lost (-12% on an iteration's time at
 * 41,000 ranks).
 * simblas_roll_merge() is G, from SIMBLAS_ROLL_MERGE (simblas-hpl run
 * --roll-merge G): 1 (the default) rolls as HPL does; with G > 1, each run
 * of 2G consecutive steps (from step 0, so that a step and the one its
 * message is matched with at the wrap of an odd ring stay in the same
 * run) makes at most two exchanges, one per neighbour, in the order of the
 * run's first step, each carrying the elements the run's steps would have
 * exchanged with that neighbour; SIMBLAS_ROLL_MERGE=0 (G = 2^20): a whole
 * roll in two exchanges.  The same bytes cross the same links; after each
 * merged exchange the rank waits what the steps' messages would have
 * taken beyond the merged one, uncontended, under SMPI's network model
 * (simblas_message_time: their latencies, mostly).  What differs is the
 * step-by-step coupling and contention (doc/user-guide.md, --roll-merge,
 * shows the effect).  The floating-point data is folded garbage: a merged
 * message is sent from and received into the start of the buffer; every
 * receive checks the count it expected (the run stops otherwise). */
SIMBLAS_EXPORT int simblas_roll_merge(void);

#ifdef MPI_VERSION /* HPL includes mpi.h before this header */
typedef struct simblas_hpl_roll {
  int len[2][2]; /* [side][0: send, 1: receive] */
  int partner[2];
  int used[2];
  int first;
  int world[2]; /* the partners' MPI_COMM_WORLD ranks */
  int zeros;    /* zero-length steps send a message */
  double unit;  /* bytes per element */
  double t[2];  /* the run's steps' message times */
} simblas_hpl_roll;

/* at the start of a roll: UNIT bytes per element, ZEROS != 0 when a step
 * of length zero still sends a (zero-byte) message */
SIMBLAS_EXPORT void simblas_hpl_roll_init(simblas_hpl_roll *r, double unit, int zeros);

/* step K of N would exchange LS elements sent and LR received with
 * PARTNER (of COMM), SIDE (0 or 1) telling which neighbour.  Adds them to
 * R; returns 1 at the end of a run of 2G steps or of the roll: time for
 * the run's exchanges (simblas_hpl_roll_bcast or _swap). */
SIMBLAS_EXPORT int simblas_hpl_roll_add(simblas_hpl_roll *r, int k, int n, int g, int side, int partner, int ls, int lr,
                         MPI_Comm comm);

/* The broadcasts' run (HPL_blong, HPL_blonM): for each side, an Issend
 * and a Recv from the start of BUF (zero-length ones as HPL's, which keep
 * the handshake), then the Wait, on the panel's REQUEST and STATUS. */
SIMBLAS_EXPORT int simblas_hpl_roll_bcast(simblas_hpl_roll *r, double *buf, MPI_Request *request, MPI_Status *status,
                           MPI_Comm comm, int msgid);

/* The row swap's run (HPL_rollN: U is LDU x N, pieces of rows, sent as
 * MPI vectors, TRANS = 0; HPL_rollT: U is LDU x (rows), pieces of
 * columns, sent contiguous, TRANS = 1): for each side, Irecv, Send (none
 * of length zero, as HPL), Wait.  HPL's steps also poll the look-ahead's
 * broadcast; the callers merge only when there is none (PBCST == NULL),
 * so nothing is polled. */
SIMBLAS_EXPORT int simblas_hpl_roll_swap(simblas_hpl_roll *r, double *u, int ldu, int n, int trans, MPI_Comm comm, int msgid);
#endif

#ifdef __cplusplus
}
#endif
#endif
