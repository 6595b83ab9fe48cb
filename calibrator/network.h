/*
 * network.h -- simblas-calibrate --network: the real MPI's ping-pong and
 * collectives (simblas-pingpong under Open MPI's mpirun), SMPI's network
 * factors and links fitted on them (netfit.h), the network file written
 * atomically (doc/model-format.md, "Network files").
 */
#ifndef SB_CAL_NETWORK_H
#define SB_CAL_NETWORK_H

/* measure the intra-node link (two ranks of this host) and, with a
 * hostfile, the interconnect (two hosts of it); write OUT.  Returns the
 * exit status; bad input exits 2 (cal_die) before anything runs. */
int cal_network(const char *out, const char *hostfile);

#endif
