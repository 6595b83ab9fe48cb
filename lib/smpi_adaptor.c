/*
 * smpi_adaptor.c -- SimBLAS's calls into SimGrid (smpi_adaptor.h).
 *
 * smpi_execute_benched(d) closes SMPI's benchmark block (so SimBLAS's own
 * CPU time is not charged to the application) and executes d x speed
 * flops on the current host: d is seconds *of the simulated host*.  The
 * caller has already scaled the prediction by reference-speed / host speed.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include "smpi_adaptor.h"

#include <stdlib.h>

#ifdef SB_HAVE_SIMGRID
#include <simgrid/actor.h>
#include <simgrid/barrier.h>
#include <simgrid/cond.h>
#include <simgrid/engine.h>
#include <simgrid/exec.h>
#include <simgrid/host.h>
#include <simgrid/mutex.h>
#include <xbt/config.h>
#include <smpi/smpi.h>

int sb_smpi_active(void) { return sg_actor_self() != NULL; }
long sb_smpi_rank(void) { return sg_actor_self() ? (long)sg_actor_self_get_pid() : 0; }
double sb_smpi_host_speed(void) { return sg_host_get_speed(sg_host_self()); }
const char *sb_smpi_host_set(void) { return sg_host_get_property_value(sg_host_self(), "simblas_set"); }
const char *sb_smpi_host_name(void) { return sg_host_get_name(sg_host_self()); }
void sb_smpi_execute(double seconds) { smpi_execute_benched(seconds); }
void sb_smpi_execute_bound(double seconds, double usage)
{
  double speed = sb_smpi_host_speed();
  smpi_bench_end();
  sg_exec_t e = sg_actor_exec_init(seconds * usage * speed);
  sg_exec_set_bound(e, usage * speed);
  sg_exec_start(e);
  sg_exec_wait(e);
  smpi_bench_begin();
}
sb_barrier sb_smpi_barrier_new(int count) { return sg_barrier_init((unsigned)count); }
void sb_smpi_barrier_wait(sb_barrier b)
{
  smpi_bench_end();
  sg_barrier_wait(b);
  smpi_bench_begin();
}
struct sb_waitq {
  sg_cond_t cond;
  sg_mutex_t mutex;
};
sb_waitq *sb_smpi_waitq_new(void)
{
  sb_waitq *q = malloc(sizeof *q);
  if (q) {
    q->cond = sg_cond_init();
    q->mutex = sg_mutex_init();
  }
  return q;
}
void sb_smpi_waitq_until(sb_waitq *q, int (*done)(void *), void *arg)
{
  if (done(arg))
    return;
  smpi_bench_end();
  sg_mutex_lock(q->mutex);
  while (!done(arg))
    sg_cond_wait(q->cond, q->mutex);
  sg_mutex_unlock(q->mutex);
  smpi_bench_begin();
}
void sb_smpi_waitq_wake(sb_waitq *q) { sg_cond_notify_all(q->cond); }
void sb_smpi_waitq_free(sb_waitq *q)
{
  if (q) {
    sg_cond_destroy(q->cond);
    sg_mutex_destroy(q->mutex);
    free(q);
  }
}
void sb_smpi_barrier_free(sb_barrier b) { sg_barrier_destroy(b); }
void sb_smpi_sleep(double seconds)
{
  smpi_bench_end();
  sg_actor_sleep_for(seconds);
  smpi_bench_begin();
}
void *sb_smpi_shared_malloc_partial(size_t size, size_t *shared, int nshared)
{
  return smpi_shared_malloc_partial(size, shared, nshared);
}
void sb_smpi_shared_free(void *p) { smpi_shared_free(p); }
#ifdef SB_HAVE_SMPI_COPY_CALLBACK
/* SMPI's default copy, a C++ function: its symbol (configure checks it) */
extern void sb_smpi_default_copy(void *comm, void *buff, size_t size)
    __asm__("_Z30smpi_comm_copy_buffer_callbackPN7simgrid6kernel8activity8CommImplEPvm");
static int (*skip_holds)(const void *, size_t);
/* called as a transfer completes, with the sender's buffer (a copy of it
 * for a detached send, which SMPI frees in its default); the skipped
 * payloads are never detached: SMPI made those copies at the send */
static void copy_payload(smx_activity_t comm, void *buff, size_t size)
{
  if (skip_holds(buff, size))
    return;
  sb_smpi_default_copy(comm, buff, size);
}
int sb_smpi_skip_copies(int (*holds)(const void *, size_t))
{
  if (!skip_holds) {
    skip_holds = holds;
    smpi_comm_set_copy_data_callback(copy_payload);
  }
  return 1;
}
#else
int sb_smpi_skip_copies(int (*holds)(const void *, size_t)) { (void)holds; return 0; }
#endif
double sb_smpi_clock(void) { return simgrid_get_clock(); }
int sb_smpi_mpi_rank(void)
{
  int r = 0;
  PMPI_Comm_rank(MPI_COMM_WORLD, &r);
  return r;
}
void *sb_smpi_host_self(void) { return sg_actor_self() ? (void *)sg_host_self() : NULL; }
double sb_smpi_route(void *host, double *bw)
{
  *bw = sg_host_get_route_bandwidth(sg_host_self(), (sg_host_t)host);
  return sg_host_get_route_latency(sg_host_self(), (sg_host_t)host);
}
double sb_smpi_tcp_gamma(void) { return sg_cfg_get_double("network/TCP-gamma"); }
int sb_smpi_times_code(void) { return sg_cfg_get_boolean("smpi/simulate-computation"); }
double sb_smpi_cpu_threshold(void) { return sg_cfg_get_double("smpi/cpu-threshold"); }
#else
int sb_smpi_active(void) { return 0; }
long sb_smpi_rank(void) { return 0; }
double sb_smpi_host_speed(void) { return 1; }
const char *sb_smpi_host_set(void) { return NULL; }
const char *sb_smpi_host_name(void) { return NULL; }
void sb_smpi_execute(double seconds) { (void)seconds; }
void sb_smpi_execute_bound(double seconds, double usage) { (void)seconds, (void)usage; }
void sb_smpi_sleep(double seconds) { (void)seconds; }
sb_barrier sb_smpi_barrier_new(int count) { (void)count; return NULL; }
void sb_smpi_barrier_wait(sb_barrier b) { (void)b; }
sb_waitq *sb_smpi_waitq_new(void) { return NULL; }
void sb_smpi_waitq_until(sb_waitq *q, int (*done)(void *), void *arg) { (void)q, (void)done, (void)arg; }
void sb_smpi_waitq_wake(sb_waitq *q) { (void)q; }
void sb_smpi_waitq_free(sb_waitq *q) { (void)q; }
void sb_smpi_barrier_free(sb_barrier b) { (void)b; }
void *sb_smpi_shared_malloc_partial(size_t size, size_t *shared, int nshared)
{
  (void)size, (void)shared, (void)nshared;
  return NULL;
}
void sb_smpi_shared_free(void *p) { (void)p; }
int sb_smpi_skip_copies(int (*holds)(const void *, size_t)) { (void)holds; return 0; }
double sb_smpi_clock(void) { return 0; }
int sb_smpi_mpi_rank(void) { return 0; }
void *sb_smpi_host_self(void) { return NULL; }
double sb_smpi_route(void *host, double *bw)
{
  (void)host;
  *bw = 0;
  return 0;
}
double sb_smpi_tcp_gamma(void) { return 0; }
int sb_smpi_times_code(void) { return 0; }
double sb_smpi_cpu_threshold(void) { return 0; }
#endif
