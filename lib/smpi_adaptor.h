/*
 * smpi_adaptor.h -- the SimGrid side of SimBLAS (smpi_adaptor.c, the only file that
 * includes SimGrid headers).  Without SimGrid support compiled in, the
 * stubs report that no simulation is running.
 */
#ifndef SB_SMPI_ADAPTOR_H
#define SB_SMPI_ADAPTOR_H

#include "sb_call.h"

/* 1 when called from a simulated rank (an SMPI/S4U actor) */
SB_HIDDEN int sb_smpi_active(void);
/* a small integer unique to the calling rank (0 outside a simulation) */
SB_HIDDEN long sb_smpi_rank(void);
/* speed of the current simulated host, flop/s */
SB_HIDDEN double sb_smpi_host_speed(void);
/* the host property selecting a coefficient set, or NULL */
SB_HIDDEN const char *sb_smpi_host_set(void);
/* the current simulated host's name (NULL outside a simulation) */
SB_HIDDEN const char *sb_smpi_host_name(void);
/* inject seconds of the simulated host */
SB_HIDDEN void sb_smpi_execute(double seconds);
/* inject seconds of the simulated host at a fraction usage (0, 1] of its
 * speed, as SMPI's MPI_Iprobe sleep does (the host_energy plugin then sees
 * that load): seconds x usage x speed flops, bounded to usage x speed */
SB_HIDDEN void sb_smpi_execute_bound(double seconds, double usage);
/* wait seconds of simulated time without load (an idle host) */
SB_HIDDEN void sb_smpi_sleep(double seconds);
/* a simulator barrier of count actors (costs no simulated time) and a wait
 * on it; the barrier is an opaque pointer */
typedef struct s4u_Barrier *sb_barrier;
SB_HIDDEN sb_barrier sb_smpi_barrier_new(int count);
SB_HIDDEN void sb_smpi_barrier_wait(sb_barrier b);
SB_HIDDEN void sb_smpi_barrier_free(sb_barrier b);
/* a wait queue: sb_smpi_waitq_until blocks the calling actor (no
 * simulated load; the clock runs on) until done(arg), rechecked each time
 * another actor calls sb_smpi_waitq_wake; returns at once if done */
typedef struct sb_waitq sb_waitq;
SB_HIDDEN sb_waitq *sb_smpi_waitq_new(void);
SB_HIDDEN void sb_smpi_waitq_until(sb_waitq *q, int (*done)(void *), void *arg);
SB_HIDDEN void sb_smpi_waitq_wake(sb_waitq *q);
SB_HIDDEN void sb_smpi_waitq_free(sb_waitq *q);
/* SMPI copies no message payload for which holds(buff, size) is true (it
 * copies the others as it did); returns 0 when this SimGrid cannot */
SB_HIDDEN int sb_smpi_skip_copies(int (*holds)(const void *, size_t));
/* SMPI's partial shared malloc (shared: [start, stop) pairs) and its free */
SB_HIDDEN void *sb_smpi_shared_malloc_partial(size_t size, size_t *shared, int nshared);
SB_HIDDEN void sb_smpi_shared_free(void *p);
/* the simulated clock, seconds (0 outside a simulation) */
SB_HIDDEN double sb_smpi_clock(void);
/* the caller's rank in MPI_COMM_WORLD (0 outside a simulation) */
SB_HIDDEN int sb_smpi_mpi_rank(void);
/* the caller's host (NULL outside a simulation) */
SB_HIDDEN void *sb_smpi_host_self(void);
/* the route from the caller's host to HOST: its latency (seconds, the sum
 * of its links') and, in *bw, its narrowest link's bandwidth (bytes/s) */
SB_HIDDEN double sb_smpi_route(void *host, double *bw);
/* SimGrid's network/TCP-gamma (bytes; 0: none) */
SB_HIDDEN double sb_smpi_tcp_gamma(void);
/* SMPI times the application's code (smpi/simulate-computation) */
SB_HIDDEN int sb_smpi_times_code(void);
/* smpi/cpu-threshold, seconds */
SB_HIDDEN double sb_smpi_cpu_threshold(void);

#endif
