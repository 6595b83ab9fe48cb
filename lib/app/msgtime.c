/*
 * msgtime.c -- message times under SMPI's network model
 * (simblas_message_time) and idle waits (simblas_idle), for patches that
 * merge messages and charge what the merged ones no longer cost
 * (simblas_app.h).
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include <stdint.h>

#include "inject.h"
#include "rank.h"
#include "sb_rt.h"
#include "settings.h"
#include "simblas_app.h"
#include "smpi_adaptor.h"

/* Message times (simblas_message_time): what one message of a given size
 * takes, uncontended, under SimGrid's SMPI network model (CM02 with
 * SMPI's piecewise factors): the route's latency x lat-factor(size), then
 * size / (bw-factor(size) x min(narrowest link, TCP-gamma / (2 x route
 * latency))).  The factors are SMPI's smpi/lat-factor and smpi/bw-factor,
 * "threshold:value;..." (SIMBLAS_LAT_FACTOR, SIMBLAS_BW_FACTOR when the
 * run sets its own; SimGrid 3.32's defaults otherwise). */
static double tcp_gamma = -1; /* network/TCP-gamma, read once (-1: not yet) */
/* routes looked up, per rank (the source is the rank's host): a rank
 * sends to a few partners only (its roll and pivot-exchange peers), and
 * SimGrid computes a route on every call.  A rank's slots are direct-
 * mapped by destination rank. */
#define SB_ROUTE_BITS 5 /* 32 slots */
#define SB_ROUTE_SLOTS (1u << SB_ROUTE_BITS)
typedef struct sb_route {
  int to; /* destination world rank + 1, 0: empty */
  double lat, bw;
} sb_route;
/* a rank's slice, made at its first lookup */
typedef struct msg_rank {
  sb_route routes[SB_ROUTE_SLOTS];
} msg_rank;
static sb_slice msg_slice = SB_SLICE(msg_rank, "the routes of simblas_message_time", NULL);

static void **world_hosts; /* MPI_COMM_WORLD rank -> host */
static size_t nworld_hosts;

/* as a rank starts: its host, which the other ranks' routes end at */
static void note_host(sb_rank *r)
{
  (void)r;
  int w = sb_smpi_mpi_rank();
  if (w < 0)
    return;
  world_hosts = sb_grow_table(world_hosts, &nworld_hosts, (size_t)w, sizeof *world_hosts, "the ranks' hosts");
  world_hosts[w] = sb_smpi_host_self();
}

__attribute__((constructor)) static void msgtime_register(void) { sb_hooks_add(&sb_rank_started_hooks, note_host); }

double simblas_message_time(int world_rank, double bytes)
{
  sb_init();
  if (!sb_smpi_active() || world_rank < 0 || (size_t)world_rank >= nworld_hosts || !world_hosts[world_rank])
    return 0;
  if (tcp_gamma < 0)
    tcp_gamma = sb_smpi_tcp_gamma();
  msg_rank *m = sb_rank_slice(sb_rank_self(), &msg_slice);
  sb_route *e = &m->routes[((uint32_t)world_rank * 2654435761u) >> (32 - SB_ROUTE_BITS)];
  if (e->to != world_rank + 1) {
    /* SimGrid's route lookup is SimBLAS's time, not the program's code (a
     * hit costs a few tens of ns: reading the CPU clock twice to exclude
     * it would cost more than it) */
    void *c = sb_code_pause();
    e->lat = sb_smpi_route(world_hosts[world_rank], &e->bw);
    e->to = world_rank + 1;
    sb_code_resume(c);
  }
  double lat = e->lat, bw = e->bw;
  if (tcp_gamma > 0 && lat > 0 && tcp_gamma / (2 * lat) < bw)
    bw = tcp_gamma / (2 * lat);
  double t = lat * sb_factors_at(&sb_cfg.lat_factor, bytes);
  if (bytes > 0 && bw > 0)
    t += bytes / (bw * sb_factors_at(&sb_cfg.bw_factor, bytes));
  return t;
}

void simblas_idle(double seconds)
{
  sb_init();
  if (!(seconds > 0) || !sb_smpi_active())
    return;
  sb_rank *r = sb_rank_self();
  sb_inject_enter(r);
  sb_inject_owe_idle(r, seconds);
  sb_inject_flush(r);
  sb_inject_leave(r);
}
