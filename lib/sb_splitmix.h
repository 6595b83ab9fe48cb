/*
 * sb_splitmix.h -- splitmix64, the one pseudo-random stream of SimBLAS:
 * per-rank streams in libsimblas, the calibrator's design and hold-out.
 */
#ifndef SB_SPLITMIX_H
#define SB_SPLITMIX_H

#include <stdint.h>

static inline uint64_t sb_splitmix64(uint64_t *s)
{
  uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

#endif
