/*
 * probe.h -- Open MPI's lagged probe emulated (SIMBLAS_PROBE=lagged,
 * lib/app/probe.c): a message that arrived after a rank's previous MPI
 * call is seen one MPI_Iprobe later.
 *
 * libsimblas_pmpi's wrappers call the module's entry points, declared in
 * simblas.h (simblas_probe_lagged, simblas_sent, simblas_progressed,
 * simblas_probed).  The generic path does not name it: a poll's return
 * reaches it through inject.h's hook (sb_inject_on_polled).
 */
#ifndef SB_APP_PROBE_H
#define SB_APP_PROBE_H

/* SIMBLAS_PROBE's values, in settings.def's order */
enum { SB_PROBE_IMMEDIATE, SB_PROBE_LAGGED };

#endif
