/*
 * test_fold.c -- memory folding outside a simulation: aliasing, the
 * physical memory it costs (Pss), address-space sharing between
 * allocations of similar sizes, reference counts, partial folding.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cmocka.h>

#include "simblas.h"

/* the Pss of the mappings inside [lo, hi), in kB: the folded range's own
 * cost (the whole process's Pss would count a sanitizer's shadow pages,
 * which reading the shadow of 1 GiB maps on some kernels) */
static long pss_range_kb(const char *lo, const char *hi)
{
  FILE *f = fopen("/proc/self/smaps", "r");
  char line[512];
  long total = -1, v;
  int inside = 0;
  unsigned long a, b;
  while (f && fgets(line, sizeof line, f)) {
    if (sscanf(line, "%lx-%lx ", &a, &b) == 2) /* a mapping's header line */
      inside = a >= (uintptr_t)lo && b <= (uintptr_t)hi;
    else if (inside && sscanf(line, "Pss: %ld kB", &v) == 1)
      total = (total < 0 ? 0 : total) + v;
  }
  if (f)
    fclose(f);
  return total;
}

static void test_fold_aliases_and_costs_one_block(void **state)
{
  (void)state;
  size_t block = simblas_get_fold_stats().block_bytes, gib = (size_t)1 << 30;
  char *p = simblas_fold_malloc(gib);
  assert_non_null(p);
  block = simblas_get_fold_stats().block_bytes;
  assert_true(block >= 4096 && gib % block == 0);
  /* every block is the same memory */
  p[5] = 42;
  assert_int_equal(p[block + 5], 42);
  assert_int_equal(p[gib - block + 5], 42);
  /* touching every page of 1 GiB costs about one block */
  for (size_t i = 0; i < gib; i += 4096)
    p[i] = (char)i;
  long pss = pss_range_kb(p, p + gib);
  simblas_fold_stats s = simblas_get_fold_stats();
  simblas_fold_free(p); /* before any failure, so that the next tests start clean */
  if (pss < 0 || pss * 1024L > (long)(2 * block))
    fail_msg("touching 1 GiB of folded memory costs %ld kB of Pss (block %zu kB)", pss, block >> 10);
  if (pss * 1024L < (long)(block / 2))
    fail_msg("touching 1 GiB of folded memory costs %ld kB of Pss, less than half a block (%zu kB): "
             "/proc/self/smaps not read right", pss, block >> 10);
  assert_true(s.mappings >= gib / block && s.mappings <= 2 * (gib / block));
}

static long minor_faults(void)
{
  struct rusage u;
  getrusage(RUSAGE_SELF, &u);
  return u.ru_minflt;
}

/* writes one byte per page of a column-major block; the minor faults it took */
static long write_block(char *p, size_t rows, size_t cols, size_t ld)
{
  long f0 = minor_faults();
  for (size_t j = 0; j < cols; j++)
    for (size_t i = 0; i < rows; i += 4096)
      p[j * ld + i] = 1;
  return minor_faults() - f0;
}

/* simblas_fold_touch maps a block's pages beforehand: writing it then
 * faults no more, where an untouched block of the same shape faults once
 * per page; outside folded memory it does nothing */
static void test_touch_maps_a_block_beforehand(void **state)
{
  (void)state;
  size_t rows = (size_t)64 << 12, cols = 32, ld = (size_t)1 << 20; /* 64 pages per column, 1 MiB apart */
  char *p = simblas_fold_malloc((size_t)1 << 30);
  assert_non_null(p);
  long untouched = write_block(p + ((size_t)512 << 20), rows, cols, ld);
  simblas_fold_touch(p, rows, cols, ld);
  long touched = write_block(p, rows, cols, ld);
  if (untouched < (long)(cols * rows / 4096) / 2 || touched > untouched / 10)
    fail_msg("writing a %zu-page block faulted %ld times after simblas_fold_touch, %ld times without it",
             cols * rows / 4096, touched, untouched);
  /* not folded memory, an overflowing span: left alone */
  char own[64] = {0};
  simblas_fold_touch(own, sizeof own, 1, 0);
  simblas_fold_touch(p, 4096, SIZE_MAX / 2, SIZE_MAX / 2);
  simblas_fold_touch(p + ((size_t)1 << 30) - 4096, 4096, 2, 4096); /* runs past the range */
  assert_int_equal(own[0], 0);
  simblas_fold_free(p);
}

static void test_similar_sizes_share_address_space(void **state)
{
  (void)state;
  size_t base = (size_t)3 << 30;
  simblas_fold_stats s0 = simblas_get_fold_stats();
  /* ranks' local matrices differ by a few rows and columns */
  char *a = simblas_fold_malloc(base), *b = simblas_fold_malloc(base + (base >> 6)), *c = simblas_fold_malloc(base - 4096);
  assert_ptr_equal(a, b);
  assert_ptr_equal(a, c);
  simblas_fold_stats s1 = simblas_get_fold_stats();
  assert_int_equal(s1.regions, s0.regions + 1);
  assert_true(s1.reserved_bytes - s0.reserved_bytes < base + base / 4);
  /* a much larger request needs a range of its own */
  char *d = simblas_fold_malloc(base * 2);
  assert_ptr_not_equal(a, d);
  simblas_fold_free(d);
  /* reference counted: the range lives until its last user frees it */
  simblas_fold_free(a);
  simblas_fold_free(b);
  a[0] = 1; /* still mapped for c */
  simblas_fold_free(c);
  assert_int_equal(simblas_get_fold_stats().regions, s0.regions);
  assert_int_equal(simblas_get_fold_stats().reserved_bytes, s0.reserved_bytes);
}

static void test_partial_keeps_private_ranges_private(void **state)
{
  (void)state;
  size_t size = (size_t)8 << 20;
  size_t priv[2] = {(size_t)3 << 20, ((size_t)3 << 20) + 100};
  char *x = simblas_fold_malloc_partial(size, priv, 1), *y = simblas_fold_malloc_partial(size, priv, 1);
  assert_ptr_not_equal(x, y);
  /* private: each its own */
  memset(x + priv[0], 1, 100);
  memset(y + priv[0], 2, 100);
  for (int i = 0; i < 100; i++) {
    assert_int_equal(x[priv[0] + i], 1);
    assert_int_equal(y[priv[0] + i], 2);
  }
  /* folded: shared with every other folded byte */
  x[10] = 77;
  assert_int_equal(y[10], 77);
  simblas_fold_free(x);
  simblas_fold_free(y);
}

/* more than 2^30 private ranges: priv[2 * i] with an int i overflowed
 * (i = 2^30: 2 * i wrapped to -2^31, read 16 GiB before the array).  The
 * array is 16 GiB of untouched zeros, [0, 0) ranges (transparent huge
 * pages: its reads map the huge zero page, a second or so), its last
 * range a real one, which stays private */
static void test_partial_past_2_30_ranges(void **state)
{
  (void)state;
  size_t n = ((size_t)1 << 30) + 1, size = (size_t)8 << 20, bytes = 2 * n * sizeof(size_t);
  size_t *priv = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (priv == MAP_FAILED)
    skip(); /* no 16 GiB of address space (ulimit -v) */
  madvise(priv, bytes, MADV_HUGEPAGE);
  priv[2 * n - 2] = (size_t)3 << 20;
  priv[2 * n - 1] = ((size_t)3 << 20) + 100;
  char *x = simblas_fold_malloc_partial(size, priv, (int)n);
  char *y = simblas_fold_malloc_partial(size, priv + 2 * n - 2, 1);
  memset(x + priv[2 * n - 2], 1, 100);
  memset(y + priv[2 * n - 2], 2, 100);
  assert_int_equal(x[priv[2 * n - 2] + 99], 1);
  x[10] = 77; /* folded: shared */
  assert_int_equal(y[10], 77);
  simblas_fold_free(x);
  simblas_fold_free(y);
  munmap(priv, bytes);
}

static void test_buffers_are_shared_ranges_of_their_own(void **state)
{
  (void)state;
  size_t size = (size_t)300 << 20;
  simblas_fold_stats s0 = simblas_get_fold_stats();
  /* every rank's panel buffer, whatever its exact size, is the same range */
  char *a = simblas_fold_malloc_buffer(size), *b = simblas_fold_malloc_buffer(size - 12345);
  assert_ptr_equal(a, b);
  /* ... but not a matrix range (outside smpirun both are memfd-folded) */
  char *m = simblas_fold_malloc(size);
  assert_ptr_not_equal(a, m);
  m[0] = 5;
  assert_int_equal(m[simblas_get_fold_stats().block_bytes], 5); /* folded */
  simblas_fold_stats s1 = simblas_get_fold_stats();
  assert_int_equal(s1.regions, s0.regions + 2);
  simblas_fold_free(a);
  b[1] = 2; /* still mapped for b */
  simblas_fold_free(b);
  simblas_fold_free(m);
  /* the matrix range is gone; the buffer range stays, idle, for the next
   * buffer that fits (HPL reallocates its work arrays every iteration) */
  simblas_fold_stats s2 = simblas_get_fold_stats();
  assert_int_equal(s2.regions, s0.regions + 1);
  char *c = simblas_fold_malloc_buffer(size / 2);
  assert_ptr_equal(c, a);
  assert_int_equal(simblas_get_fold_stats().regions, s0.regions + 1);
  c[3] = 1;
  simblas_fold_free(c);
  /* a larger one needs a new range, and the idle one, too small to serve
   * again, is given back */
  char *d = simblas_fold_malloc_buffer(size * 2);
  assert_int_equal(simblas_get_fold_stats().regions, s0.regions + 1);
  d[size * 2 - 1] = 1;
  simblas_fold_free(d);
  assert_int_equal(simblas_get_fold_stats().regions, s0.regions + 1);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_fold_aliases_and_costs_one_block),
      cmocka_unit_test(test_touch_maps_a_block_beforehand),
      cmocka_unit_test(test_similar_sizes_share_address_space),
      cmocka_unit_test(test_partial_keeps_private_ranges_private),
      cmocka_unit_test(test_partial_past_2_30_ranges),
      cmocka_unit_test(test_buffers_are_shared_ranges_of_their_own),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
