/*
 * msgtime.c -- message times under SMPI's network model
 * (simblas_message_time), for patches that merge messages.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>

#include "netfactors.h"
#include "runtime.h"

/* Message times (simblas_message_time): what one message of a given size
 * takes, uncontended, under SimGrid's SMPI network model (CM02 with
 * SMPI's piecewise factors): the route's latency x lat-factor(size), then
 * size / (bw-factor(size) x min(narrowest link, TCP-gamma / (2 x route
 * latency))).  The factors are SMPI's smpi/lat-factor and smpi/bw-factor,
 * "threshold:value;..." (SIMBLAS_LAT_FACTOR, SIMBLAS_BW_FACTOR when the
 * run sets its own; SimGrid 3.32's defaults otherwise). */
static sb_factors lat_factors, bw_factors;
static double tcp_gamma; /* network/TCP-gamma, read once */
/* routes looked up, per rank (the source is the rank's host): a rank
 * sends to a few partners only (its roll and pivot-exchange peers), and
 * SimGrid computes a route on every call.  A rank's slots are allocated at
 * its first lookup, direct-mapped by destination rank. */
#define SB_ROUTE_BITS 5 /* 32 slots */
#define SB_ROUTE_SLOTS (1u << SB_ROUTE_BITS)
typedef struct sb_route {
  int to; /* destination world rank + 1, 0: empty */
  double lat, bw;
} sb_route;
static void **world_hosts; /* MPI_COMM_WORLD rank -> host */
static size_t nworld_hosts;
static pthread_once_t factors_once = PTHREAD_ONCE_INIT;

static void factors_init(void)
{
  const char *l = getenv("SIMBLAS_LAT_FACTOR"), *b = getenv("SIMBLAS_BW_FACTOR");
  if (sb_factors_parse(l && *l ? l : sb_default_lat_factor, &lat_factors))
    sb_fatal("SIMBLAS_LAT_FACTOR='%s' is not a list of size:factor pairs (SMPI's smpi/lat-factor, for example "
             "65472:11.6436;0:2.01467); unset it for SimGrid 3.32's default", l);
  if (sb_factors_parse(b && *b ? b : sb_default_bw_factor, &bw_factors))
    sb_fatal("SIMBLAS_BW_FACTOR='%s' is not a list of size:factor pairs (SMPI's smpi/bw-factor, for example "
             "65472:0.940694;0:0.812084); unset it for SimGrid 3.32's default", b);
  tcp_gamma = sb_smpi_tcp_gamma();
}

void simblas_rank_started(void)
{
  sb_init();
  if (!sb_smpi_active())
    return;
  int w = sb_smpi_mpi_rank();
  if (w < 0)
    return;
  world_hosts = sb_grow_table(world_hosts, &nworld_hosts, (size_t)w, sizeof *world_hosts, "the ranks' hosts");
  world_hosts[w] = sb_smpi_host_self();
  simblas_resume(); /* the program's code runs from MPI_Init on */
}

double simblas_message_time(int world_rank, double bytes)
{
  sb_init();
  if (!sb_smpi_active() || world_rank < 0 || (size_t)world_rank >= nworld_hosts || !world_hosts[world_rank])
    return 0;
  pthread_once(&factors_once, factors_init);
  sb_rank *r = sb_rank_self();
  if (!r->routes && !(r->routes = calloc(SB_ROUTE_SLOTS, sizeof *r->routes)))
    sb_fatal("out of memory for the routes of rank %ld", r->id);
  sb_route *e = &r->routes[((uint32_t)world_rank * 2654435761u) >> (32 - SB_ROUTE_BITS)];
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
  double t = lat * sb_factors_at(&lat_factors, bytes);
  if (bytes > 0 && bw > 0)
    t += bytes / (bw * sb_factors_at(&bw_factors, bytes));
  return t;
}
