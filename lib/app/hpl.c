/*
 * hpl.c -- what HPL's patches ask of SimBLAS beyond simblas_app.h
 * (hpl_simblas.h): its pivots, their checks, and the settings of its
 * opt-in patches.  Pure C; the merged rolls, which send messages, are
 * roll.c.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include "hpl_simblas.h"
#include "sb_rt.h"
#include "settings.h"

int simblas_hpl_pivot(int g, int n)
{
  unsigned long long z = (unsigned long long)g + 0x9E3779B97F4A7C15ULL;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  z ^= z >> 31;
  return g + (int)(z % (unsigned long long)(n > g ? n - g : 1));
}

/* the process row holding global row G (HPL_indxg2p(G, NB, NB, 0, NPROW)) */
static int owner(int g, int nb, int nprow) { return (g / nb) % nprow; }

void simblas_hpl_pivot_check(int g, int n, int nb, int nprow, const double *work)
{
  int gpiv = simblas_hpl_pivot(g, n);
  if ((int)work[2] != gpiv || (int)work[3] != owner(gpiv, nb, nprow))
    sb_fatal("HPL_pdmxswp: column %d's pivot search ended on row %d of process row %d, not on SimBLAS's row %d of "
             "process row %d: the ranks' row swaps would differ (a patch lets matrix data decide a pivot?); rebuild "
             "HPL with the installed patches: simblas-hpl build --force",
             g, (int)work[2], (int)work[3], gpiv, owner(gpiv, nb, nprow));
}

void simblas_hpl_pivot_thinned(int g, int n, int nb, int myrow, int nprow, double *work)
{
  int gpiv = simblas_hpl_pivot(g, n), own = owner(gpiv, nb, nprow);
  if (own == myrow && (int)work[2] != gpiv)
    sb_fatal("HPL_pdmxswp: SimBLAS pivot row %d of column %d was not offered by its owner (process row %d), "
             "which offered row %d (its xhpl lacks patch 05's pivot?); rebuild HPL with the installed patches: "
             "simblas-hpl build --force",
             gpiv, g, own, (int)work[2]);
  work[0] = 2.0;
  work[2] = (double)gpiv;
  work[3] = (double)own;
}

int simblas_blocking_waits(void)
{
  sb_settings_load();
  return sb_cfg.blocking_waits;
}

int simblas_roll_merge(void)
{
  sb_settings_load();
  return (int)sb_cfg.roll_merge;
}
