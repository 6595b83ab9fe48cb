/*
 * fold.c -- memory folding: large allocations whose contents do not matter
 * (HPL's matrix in a simulation) cost one small physical block, and the
 * virtual address space and memory mappings of one rank's allocation,
 * whatever the number of ranks.  See doc/folding.md.
 *
 *  - One "fold block" (SIMBLAS_FOLD_BLOCK, default 64 MiB) of a memfd (or
 *    of a file in the hugetlbfs directory SIMBLAS_HUGEPAGE_DIR) is mapped
 *    again and again over a reserved range: N bytes cost N / block
 *    mappings and one block of memory.
 *  - Ranges are shared between ranks: a rank asking for a size that an
 *    existing range covers gets that range (reference counted).  Ranks
 *    ask for nearly equal sizes (their local matrices differ by a block
 *    row or column), so a run needs about one rank's worth of address
 *    space and mappings, not the sum over ranks (N^2 * 8 bytes).
 *  - Under smpirun, SMPI copies no message payload that lies in a matrix
 *    range (its copy callback is wrapped, matrix_holds): the bytes are
 *    garbage that no receiver may read.
 *  - Message buffers (simblas_fold_malloc_buffer): shared ranges too, but
 *    under smpirun made by SMPI's shared malloc, so that SMPI knows them
 *    and copies no message payload into or out of them.
 *  - Partial folding (simblas_fold_malloc_partial): each call gets its own
 *    range whose private byte ranges are ordinary private memory.  Under
 *    smpirun it is SMPI's partial shared malloc, so that SMPI does not copy
 *    message payloads lying in the folded parts.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/statfs.h>
#include <unistd.h>

#include "simblas.h"
#include "sb_rt.h"
#include "settings.h"
#include "smpi_adaptor.h"

#ifndef MFD_CLOEXEC
#define MFD_CLOEXEC 1U
#endif
#define HUGETLBFS_MAGIC 0x958458f6

typedef struct region {
  char *base;
  size_t reserved;  /* bytes of address space */
  size_t mappings;  /* mmaps made for it */
  int refs;
  int partial;      /* a simblas_fold_malloc_partial block */
  int buffer;       /* a simblas_fold_malloc_buffer range */
  int smpi;         /* allocated by SMPI: free with smpi_shared_free */
  struct region *next;
} region;

static struct {
  pthread_mutex_t lock;
  int fd;
  size_t block;
  size_t align;     /* the page (or huge page) size the block is a multiple of */
  int huge;
  region *regions;
  size_t reserved, mappings;
  size_t uncopied, uncopied_bytes;  /* payloads SMPI did not copy */
} fold = {PTHREAD_MUTEX_INITIALIZER, -1, 0, 0, 0, NULL, 0, 0, 0, 0};

/* SMPI's copy callback asks: does [p, p + n) lie in one matrix range
 * (simblas_fold_malloc, whose bytes are folded garbage)?  Then the
 * message carries no data, and SMPI copies nothing. */
/* does region r hold [c, c + n)? (under fold.lock) */
static int holds(const region *r, const char *c, size_t n)
{
  return c >= r->base && n <= r->reserved && (size_t)(c - r->base) <= r->reserved - n;
}

static int matrix_holds(const void *p, size_t n)
{
  const char *c = p;
  int in = 0;
  pthread_mutex_lock(&fold.lock);
  for (region *r = fold.regions; r && !in; r = r->next)
    in = !r->buffer && !r->partial && !r->smpi && holds(r, c, n);
  if (in) {
    fold.uncopied++;
    fold.uncopied_bytes += n;
  }
  pthread_mutex_unlock(&fold.lock);
  return in;
}

static size_t round_up(size_t v, size_t a) { return (v + a - 1) / a * a; }

/* more than any address space: a negative size converted to size_t, most
 * likely.  Rounded up to the block and an eighth more it wrapped around,
 * and simblas_fold_malloc returned a range that some smaller size had
 * made (the fold block is below 2^62: settings.def's BYTES) */
#define FOLD_MAX ((size_t)1 << 62)
static void check_size(const char *fn, size_t size)
{
  if (size > FOLD_MAX)
    sb_fatal("%s(%zu): more bytes than any address space holds (a negative size converted to size_t?); check the size "
             "the program computes",
             fn, size);
}

static long read_long(const char *path)
{
  FILE *f = fopen(path, "r");
  long v = -1;
  if (f) {
    if (fscanf(f, "%ld", &v) != 1)
      v = -1;
    fclose(f);
  }
  return v;
}

static long count_maps(void)
{
  FILE *f = fopen("/proc/self/maps", "r");
  long n = 0;
  int c;
  if (!f)
    return -1;
  while ((c = getc(f)) != EOF)
    n += c == '\n';
  fclose(f);
  return n;
}

static void fold_init(void)
{
  if (fold.fd >= 0)
    return;
  sb_settings_load();
  const char *b = sb_cfg.given.fold_block;
  long page = sysconf(_SC_PAGESIZE);
  fold.block = sb_cfg.fold_block;
  const char *hdir = sb_cfg.hugepage_dir;
  size_t align = (size_t)page;
  if (hdir) {
    struct statfs st;
    if (statfs(hdir, &st) != 0 || (unsigned long)st.f_type != HUGETLBFS_MAGIC)
      sb_fatal("SIMBLAS_HUGEPAGE_DIR=%s is not a hugetlbfs mount; mount one with: mkdir -p %s && mount -t hugetlbfs "
                 "none %s (or unset SIMBLAS_HUGEPAGE_DIR)",
                 hdir, hdir, hdir);
    align = (size_t)st.f_bsize; /* the huge page size */
    char path[4096];
    snprintf(path, sizeof path, "%s/simblas-fold-XXXXXX", hdir);
    fold.fd = mkstemp(path);
    if (fold.fd < 0)
      sb_fatal("cannot create a file in %s: %s; check its permissions", hdir, strerror(errno));
    unlink(path);
    fold.huge = 1;
  } else {
    /* a memfd: memory-backed, so writes to folded pages never go through
     * a disk file's writeback (SimGrid's /tmp file does, on ext4) */
    fold.fd = memfd_create("simblas-fold", MFD_CLOEXEC);
    if (fold.fd < 0)
      sb_fatal("memfd_create failed: %s%s", strerror(errno),
               errno == EMFILE ? "; raise the open files limit with: ulimit -n 65536" : "");
  }
  fold.align = align;
  /* the page size is the machine's (or the mount's), which the settings
   * table cannot bound: checked here */
  if (fold.block < align || fold.block % align) {
    size_t fit = round_up(fold.block, align);
    sb_fatal("SIMBLAS_FOLD_BLOCK=%s must be a positive multiple of %zu bytes%s: set SIMBLAS_FOLD_BLOCK=%zu%s",
             b ? b : "(default)", align, fold.huge ? " (the huge page size)" : "", fit ? fit : align,
             b && !fold.huge ? " (or unset it)" : "");
  }
  if (ftruncate(fold.fd, (off_t)fold.block) != 0)
    sb_fatal("cannot size the fold block (%zu bytes): %s", fold.block, strerror(errno));
  if (fold.huge) {
    /* touch it now: a hugetlbfs without free huge pages fails here, with
     * a message, rather than with SIGBUS later */
    void *p = mmap(NULL, fold.block, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, fold.fd, 0);
    if (p == MAP_FAILED)
      sb_fatal("no free huge pages for the %zu-MiB fold block in %s (%s); reserve some with: sysctl -w "
                 "vm.nr_hugepages=%zu",
                 fold.block >> 20, hdir, strerror(errno), fold.block / align + 8);
    munmap(p, fold.block);
  }
}

/* The smallest fold block (a power of two MiB, a multiple of the page or
 * huge page) with which what is folded now, and BYTES more, fits in MAX
 * mappings beside the USED - fold.mappings that are not folding's: a
 * region costs its bytes / block mappings and at most one more; 0 when
 * no block does.  fold.lock held. */
static size_t fitting_block(long max, long used, size_t bytes)
{
  double total = (double)bytes;
  long regions = 1, room = max - 64 - (used - (long)fold.mappings);
  for (region *r = fold.regions; r; r = r->next)
    if (!r->smpi) { /* SMPI's ranges are mapped with its own block */
      total += (double)r->reserved;
      regions++;
    }
  room -= regions;
  if (room <= 0)
    return 0;
  size_t b = (size_t)1 << 20;
  while (b < fold.align || b <= fold.block || (double)b * (double)room < total)
    b <<= 1;
  return b;
}

/* what to do when address space cannot be reserved: the limit to raise */
static const char *space_remedy(void)
{
  struct rlimit as;
  if (getrlimit(RLIMIT_AS, &as) == 0 && as.rlim_cur != RLIM_INFINITY)
    return "'ulimit -v' limits it: raise the limit with: ulimit -v unlimited";
  if (read_long("/proc/sys/vm/overcommit_memory") == 2)
    return "vm.overcommit_memory is 2 (strict): set it with: sysctl -w vm.overcommit_memory=1";
  return "check 'ulimit -v' and vm.overcommit_memory";
}

/* why an mmap of `need` more mappings failed: name the limit to raise */
static _Noreturn void map_failed(int err, size_t bytes, size_t need)
{
  long max = read_long("/proc/sys/vm/max_map_count"), used = count_maps();
  if (max > 0 && used >= 0 && (size_t)used + need + 64 > (size_t)max) {
    size_t fit = fitting_block(max, used, bytes);
    char bigger[128] = "";
    if (fit)
      snprintf(bigger, sizeof bigger, ", or fold with bigger blocks: SIMBLAS_FOLD_BLOCK=%zuM (the smallest that fits)",
               fit >> 20);
    sb_fatal("folding %.1f GiB needs %zu more memory mappings (%ld in use) but vm.max_map_count is %ld; raise it "
             "with: sysctl -w vm.max_map_count=%zu%s",
             (double)bytes / (1 << 30), need, used, max, (size_t)used + need + 65536, bigger);
  }
  sb_fatal("cannot reserve %.1f GiB of virtual address space for folded memory (%s; %.1f GiB already reserved); %s",
           (double)bytes / (1 << 30), strerror(err), (double)fold.reserved / (1 << 30), space_remedy());
}

/* map the fold block over [p, p + len), block after block; on failure
 * give the mappings back first (the report itself needs some) */
static size_t map_folded(char *p, size_t len, size_t total)
{
  size_t n = 0;
  for (size_t off = 0; off < len; off += fold.block, n++) {
    size_t l = len - off < fold.block ? len - off : fold.block;
    if (mmap(p + off, l, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fold.fd, 0) == MAP_FAILED) {
      int e = errno;
      munmap(p, len);
      errno = e;
      map_failed(e, total, (len + fold.block - 1) / fold.block);
    }
  }
  return n;
}

static char *reserve(size_t bytes)
{
  void *p = mmap(NULL, bytes, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED)
    map_failed(errno, bytes, 1);
  return p;
}

/* a shared range of at least `need` bytes of the given kind, or a new one */
/* unmap a range taken off the list (fold.lock held) */
static void release(region *r)
{
  if (r->smpi)
    sb_smpi_shared_free(r->base);
  else
    munmap(r->base, r->reserved);
  if (!r->smpi || r->buffer) {
    fold.reserved -= r->reserved;
    fold.mappings -= r->mappings;
  }
  free(r);
}

static void *shared_range(size_t size, int buffer)
{
  check_size(buffer ? "simblas_fold_malloc_buffer" : "simblas_fold_malloc", size);
  if (size == 0)
    size = 1;
  pthread_mutex_lock(&fold.lock);
  fold_init();
  size_t need = round_up(size, fold.block);
  region *r;
  for (r = fold.regions; r; r = r->next)
    if (!r->partial && r->buffer == buffer && r->reserved >= need)
      break;
  if (!r && buffer) {
    /* idle buffer ranges too small for this one will not serve again:
     * the work arrays HPL reallocates shrink with the trailing matrix */
    for (region **pp = &fold.regions; *pp;) {
      region *q = *pp;
      if (q->buffer && !q->partial && q->refs == 0 && q->reserved < need) {
        *pp = q->next;
        release(q);
      } else
        pp = &q->next;
    }
  }
  if (!r) {
    /* an eighth more than asked: the next ranks' slightly larger local
     * matrices fit in the same range */
    size_t bytes = round_up(need + need / 8, fold.block);
    if (!(r = calloc(1, sizeof *r)))
      sb_fatal("out of memory");
    r->buffer = buffer;
    if (buffer && sb_smpi_active()) {
      /* all of it shared: SMPI maps its own block over it (a size that is a
       * multiple of smpi/shared-malloc-blocksize leaves no private tail) */
      size_t whole[2] = {0, bytes};
      if (!(r->base = sb_smpi_shared_malloc_partial(bytes, whole, 1)))
        sb_fatal("SMPI's shared malloc of %.1f GiB failed; %s", (double)bytes / (1 << 30), space_remedy());
      r->smpi = 1;
    } else {
      r->base = reserve(bytes);
      r->mappings = map_folded(r->base, bytes, bytes);
    }
    r->reserved = bytes;
    r->next = fold.regions;
    fold.regions = r;
    fold.reserved += bytes;
    fold.mappings += r->mappings;
  }
  r->refs++;
  pthread_mutex_unlock(&fold.lock);
  return r->base;
}

/* the allocators' time (mapping the blocks) is not the program's code
 * (SIMBLAS_CODE_CLOCK) */
static void *not_code(void *(*f)(size_t, int), size_t size, int buffer)
{
  void *c = sb_code_pause();
  void *p = f(size, buffer);
  sb_code_resume(c);
  return p;
}

void *simblas_fold_malloc(size_t size)
{
  if (sb_smpi_active())
    sb_smpi_skip_copies(matrix_holds);
  return not_code(shared_range, size, 0);
}

void *simblas_fold_malloc_buffer(size_t size) { return not_code(shared_range, size, 1); }

static void *fold_partial(size_t size, const size_t *priv, int npriv);

void *simblas_fold_malloc_partial(size_t size, const size_t *priv, int npriv)
{
  void *c = sb_code_pause();
  void *p = fold_partial(size, priv, npriv);
  sb_code_resume(c);
  return p;
}

/* [start, stop) pairs by their start */
static int cmp_range(const void *a, const void *b)
{
  size_t x = *(const size_t *)a, y = *(const size_t *)b;
  return (x > y) - (x < y);
}

static void *fold_partial(size_t size, const size_t *priv, int npriv)
{
  check_size("simblas_fold_malloc_partial", size);
  if (npriv < 0)
    sb_fatal("simblas_fold_malloc_partial(%zu, %p, %d): a negative number of private ranges; give how many "
             "[start, stop) pairs the array holds (0 for none)",
             size, (const void *)priv, npriv);
  if (npriv > 0 && !priv)
    sb_fatal("simblas_fold_malloc_partial(%zu, NULL, %d): no array of private ranges; give one of %d [start, stop) "
             "pairs, or 0 ranges",
             size, npriv, npriv);
  if (size == 0)
    size = 1;
  /* size_t indices: priv[2 * i] with an int i overflowed from 2^30 ranges on */
  size_t n = (size_t)npriv;
  for (size_t i = 0; i < n; i++)
    if (priv[2 * i] > priv[2 * i + 1] || priv[2 * i + 1] > size)
      sb_fatal("simblas_fold_malloc_partial: private range %zu [%zu, %zu) is not inside the %zu bytes allocated", i,
                 priv[2 * i], priv[2 * i + 1], size);
  if (sb_smpi_active()) {
    /* SMPI's partial shared malloc takes the shared ranges: the gaps
     * between the private ranges in order of their starts (given out of
     * order, a private range before an earlier one fell in a gap, shared) */
    size_t *shared = malloc(sizeof *shared * 2 * (n + 1)), at = 0, ns = 0;
    size_t *sorted = malloc(sizeof *sorted * 2 * (n ? n : 1));
    if (!shared || !sorted)
      sb_fatal("out of memory for the %zu shared ranges of simblas_fold_malloc_partial", n + 1);
    memcpy(sorted, priv, sizeof *sorted * 2 * n);
    qsort(sorted, n, 2 * sizeof *sorted, cmp_range);
    for (size_t i = 0; i <= n; i++) {
      size_t stop = i < n ? sorted[2 * i] : size;
      if (stop > at) {
        shared[2 * ns] = at;
        shared[2 * ns + 1] = stop;
        ns++;
      }
      if (i < n && sorted[2 * i + 1] > at)
        at = sorted[2 * i + 1];
    }
    free(sorted);
    if (ns > INT_MAX) /* SMPI counts them in an int */
      sb_fatal("simblas_fold_malloc_partial: %d private ranges leave %zu shared ones, more than SMPI's partial shared "
               "malloc takes (%d); merge adjacent private ranges",
               npriv, ns, INT_MAX);
    void *p = sb_smpi_shared_malloc_partial(size, shared, (int)ns);
    free(shared);
    region *r = calloc(1, sizeof *r);
    if (!p || !r)
      sb_fatal("SMPI's partial shared malloc of %zu bytes failed; %s", size, space_remedy());
    pthread_mutex_lock(&fold.lock);
    *r = (region){.base = p, .reserved = size, .refs = 1, .partial = 1, .smpi = 1, .next = fold.regions};
    fold.regions = r;
    pthread_mutex_unlock(&fold.lock);
    return p;
  }
  pthread_mutex_lock(&fold.lock);
  fold_init();
  long page = sysconf(_SC_PAGESIZE);
  size_t bytes = round_up(size, (size_t)page);
  region *r = calloc(1, sizeof *r);
  if (!r)
    sb_fatal("out of memory");
  r->base = reserve(bytes);
  r->reserved = bytes;
  r->partial = 1;
  r->refs = 1;
  r->mappings = map_folded(r->base, bytes, bytes);
  /* private pages: anonymous memory over every page a private range touches */
  for (size_t i = 0; i < n; i++) {
    size_t lo = priv[2 * i] / (size_t)page * (size_t)page, hi = round_up(priv[2 * i + 1], (size_t)page);
    if (hi > lo) {
      if (mmap(r->base + lo, hi - lo, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) ==
          MAP_FAILED)
        map_failed(errno, bytes, 1);
      r->mappings++;
    }
  }
  r->next = fold.regions;
  fold.regions = r;
  fold.reserved += bytes;
  fold.mappings += r->mappings;
  pthread_mutex_unlock(&fold.lock);
  return r->base;
}

static void fold_free(void *ptr);

void simblas_fold_free(void *ptr)
{
  void *c = sb_code_pause();
  fold_free(ptr);
  sb_code_resume(c);
}

static void fold_free(void *ptr)
{
  if (!ptr)
    return;
  pthread_mutex_lock(&fold.lock);
  region **pp = &fold.regions, *r;
  while ((r = *pp) && r->base != (char *)ptr)
    pp = &r->next;
  if (!r) {
    pthread_mutex_unlock(&fold.lock);
    sb_fatal("simblas_fold_free(%p): not a pointer returned by simblas_fold_malloc", ptr);
  }
  /* A buffer range stays mapped, idle, when its last user frees it, for
   * the next buffer that fits: HPL allocates and frees its swap work array
   * in every iteration (patch 10), and mapping its SMPI blocks again each
   * time (mmap with MAP_POPULATE, then munmap: 400 MB per iteration at
   * Stampede's N) took 41% of that simulation's wall time.  Matrix and
   * partial ranges go at once. */
  if (--r->refs == 0 && !(r->buffer && !r->partial)) {
    *pp = r->next;
    release(r);
  }
  pthread_mutex_unlock(&fold.lock);
}

/* Does [p, p + n) lie in one folded range (any kind)? */
static int folded(const char *p, size_t n)
{
  int in = 0;
  pthread_mutex_lock(&fold.lock);
  for (region *r = fold.regions; r && !in; r = r->next)
    in = holds(r, p, n);
  pthread_mutex_unlock(&fold.lock);
  return in;
}

/* Map the pages of count ranges of bytes bytes, stride bytes apart, now.
 * MADV_POPULATE_WRITE (Linux 5.14) makes the page-table entries in one
 * system call per range; where it is refused, one write per page does it
 * (the contents are garbage anyway). */
#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif
static void touch_ranges(char *p, size_t bytes, size_t count, size_t stride)
{
  size_t page = (size_t)sysconf(_SC_PAGESIZE);
  static int no_populate;
  for (size_t i = 0; i < count; i++, p += stride) {
    uintptr_t a = (uintptr_t)p / page * page, e = ((uintptr_t)p + bytes + page - 1) / page * page;
    if (!no_populate && madvise((void *)a, e - a, MADV_POPULATE_WRITE) == 0)
      continue;
    no_populate = 1;
    for (volatile char *c = (volatile char *)a; (uintptr_t)c < e; c += page)
      *c = *c;
  }
}

void simblas_fold_touch(void *ptr, size_t bytes, size_t count, size_t stride)
{
  size_t span;
  if (!ptr || !bytes || !count || __builtin_mul_overflow(count - 1, stride, &span) ||
      __builtin_add_overflow(span, bytes, &span) || !folded(ptr, span))
    return; /* not folded memory: the program's own, left alone */
  void *c = sb_code_pause();
  touch_ranges(ptr, bytes, count, stride);
  sb_code_resume(c);
}

simblas_fold_stats simblas_get_fold_stats(void)
{
  pthread_mutex_lock(&fold.lock);
  simblas_fold_stats s = {fold.reserved, fold.mappings, fold.block, 0, fold.uncopied, fold.uncopied_bytes};
  for (region *r = fold.regions; r; r = r->next)
    s.regions++;
  pthread_mutex_unlock(&fold.lock);
  return s;
}
