/*
 * calls.c -- one real call per op of blas.def, at a canonical shape.
 * The signatures come from lib/families.h; only the choice of arguments
 * (which side, which triangle, unit strides, tight leading dimensions) is
 * written here, once per family.
 *
 *   level 3: no transposes; trmm/trsm Left-Lower-Unit (HPL's L1 update),
 *            or for the Right variant Right-Upper-NonUnit
 *   level 2: NoTrans, Upper or Lower as noted, unit strides
 */
#include "calls.h"
#include "families.h"
#include "sb_splitmix.h"

#define L(x) ((x) > 1 ? (int)(x) : 1)

#define CAL_DEF(pfx, T_, R_, K_, fam, stem, ifc)                               \
  static void cal_##pfx##stem(void *sym, int64_t m64, int64_t n64, int64_t k64, int variant,               \
                              cal_bufs *bf)                                                          \
  {                                                                            \
    typedef SB_FR_##fam(T_, R_) (*fn_t)(SB_FP_##fam(T_, R_));                  \
    fn_t f = (fn_t)sym;                                                        \
    int m = (int)m64, n = (int)n64, k = (int)k64, one = 1;                     \
    T_ *A = bf->a, *B = bf->b, *C = bf->c, *x = bf->x, *y = bf->y;             \
    T_ al = (T_)0.999, be = (T_)1.0;                                           \
    R_ ral = (R_)0.999, rbe = (R_)1.0;                                         \
    (void)m; (void)n; (void)k; (void)one; (void)A; (void)B; (void)C; (void)x;  \
    (void)y; (void)al; (void)be; (void)ral; (void)rbe; (void)variant;          \
    CAL_##fam(T_, R_)                                                          \
  }

#define CAL_rotg(T_, R_) { T_ a = x[0], b = y[0], s; R_ c; f(&a, &b, &c, &s); }
#define CAL_rotmg(T_, R_) { T_ d1 = 1, d2 = 1, x1 = x[0], p[5]; f(&d1, &d2, &x1, y, p); }
#define CAL_rot(T_, R_) { R_ c = (R_)0.6, s = (R_)0.8; f(&n, x, &one, y, &one, &c, &s); }
#define CAL_rotm(T_, R_) { T_ p[5] = {-1, (T_)0.9, (T_)0.1, (T_)-0.1, (T_)0.9}; f(&n, x, &one, y, &one, p); }
#define CAL_swap(T_, R_) f(&n, x, &one, y, &one);
#define CAL_copy CAL_swap
#define CAL_scal(T_, R_) f(&n, &al, x, &one);
#define CAL_rscal(T_, R_) f(&n, &ral, x, &one);
#define CAL_axpy(T_, R_) { T_ small = (T_)1e-3; f(&n, &small, x, &one, y, &one); }
#define CAL_axpby(T_, R_) f(&n, &al, x, &one, &be, y, &one);
#define CAL_dot(T_, R_) { volatile R_ r = f(&n, x, &one, y, &one); (void)r; }
#define CAL_dotu(T_, R_) { volatile T_ r = f(&n, x, &one, y, &one); (void)r; }
#define CAL_dotc CAL_dotu
#define CAL_sdsdot(T_, R_) { volatile R_ r = f(&n, &al, x, &one, y, &one); (void)r; }
#define CAL_nrm2(T_, R_) { volatile R_ r = f(&n, x, &one); (void)r; }
#define CAL_asum CAL_nrm2
#define CAL_rvalue CAL_nrm2
#define CAL_iamax(T_, R_) { volatile int r = f(&n, x, &one); (void)r; }
#define CAL_cabs1(T_, R_) { volatile R_ r = f(x); (void)r; }

#define CAL_gemv(T_, R_) f("N", &m, &n, &al, A, &m, x, &one, &be, y, &one);
#define CAL_gbmv(T_, R_) { int kl = (k - 1) / 2, ku = k - 1 - kl; f("N", &m, &n, &kl, &ku, &al, A, &k, x, &one, &be, y, &one); }
#define CAL_symv(T_, R_) f("U", &n, &al, A, &n, x, &one, &be, y, &one);
#define CAL_sbmv(T_, R_) { int kk = k - 1; f("U", &n, &kk, &al, A, &k, x, &one, &be, y, &one); }
#define CAL_spmv(T_, R_) f("U", &n, &al, A, x, &one, &be, y, &one);
#define CAL_trmv(T_, R_) f("L", "N", "U", &n, A, &n, x, &one);
#define CAL_tbmv(T_, R_) { int kk = k - 1; f("L", "N", "U", &n, &kk, A, &k, x, &one); }
#define CAL_tpmv(T_, R_) f("L", "N", "U", &n, A, x, &one);
#define CAL_ger(T_, R_) f(&m, &n, &al, x, &one, y, &one, A, &m);
#define CAL_syr(T_, R_) f("U", &n, &ral, x, &one, A, &n);
#define CAL_spr(T_, R_) f("U", &n, &ral, x, &one, A);
#define CAL_syr2(T_, R_) f("U", &n, &al, x, &one, y, &one, A, &n);
#define CAL_spr2(T_, R_) f("U", &n, &al, x, &one, y, &one, A);

#define CAL_gemm(T_, R_) f("N", "N", &m, &n, &k, &al, A, &m, B, &k, &be, C, &m);
#define CAL_gemmt(T_, R_) f("U", "N", "N", &n, &k, &al, A, &n, B, &k, &be, C, &n);
#define CAL_symm(T_, R_)                                                       \
  if (!variant) f("L", "U", &m, &n, &al, A, &m, B, &m, &be, C, &m);           \
  else f("R", "U", &m, &n, &al, A, &n, B, &m, &be, C, &m);
#define CAL_syrk(T_, R_) f("U", "N", &n, &k, &al, A, &n, &be, C, &n);
#define CAL_herk(T_, R_) f("U", "N", &n, &k, &ral, A, &n, &rbe, C, &n);
#define CAL_syr2k(T_, R_) f("U", "N", &n, &k, &al, A, &n, B, &n, &be, C, &n);
#define CAL_her2k(T_, R_) f("U", "N", &n, &k, &al, A, &n, B, &n, &rbe, C, &n);
#define CAL_trmm(T_, R_)                                                       \
  if (!variant) f("L", "L", "N", "U", &m, &n, &al, A, &m, B, &m);             \
  else f("R", "U", "N", "N", &m, &n, &al, A, &n, B, &m);

#define CAL_geadd(T_, R_) { int ld = L(m); f(&m, &n, &al, A, &ld, &be, C, &ld); }
#define CAL_omatcopy(T_, R_) f("C", "N", &m, &n, &al, A, &m, B, &m);
#define CAL_imatcopy(T_, R_) f("C", "N", &m, &n, &al, A, &m, &m);

#define SB_OP(...) SB_EXPAND_OP(CAL_DEF, __VA_ARGS__)
#include "blas.def"
#undef SB_OP

/* ---- kernels.def: HPL's memory movement, written here in plain C ------- *
 * As HPL's own loops (hpl/src/pauxil/HPL_dlaswp*.c, HPL_dlacpy,
 * HPL_dlatcpy) move data: the row movers take DEPTH = 32 columns at a time
 * and, for each of the M rows, move those 32 elements along the row.  In
 * the local matrix A (leading dimension lld: every element on a cache line
 * of its own, and a page of its own once lld > 512) the rows are scattered
 * among the local rows, as pivot rows are; in U and W, HPL's contiguous
 * buffers, a row is contiguous (W, U transposed: the T forms) or strided by
 * M (U: the N forms).  The first version walked contiguous columns of
 * small buffers, and predicted HPL_dlaswp00N 20-35 times faster per byte
 * than HPL's row interchanges run (bench/hpl-conditions). */
#define DEPTH 32
static inline size_t perm(size_t i, size_t m) { return (i * 7919u) % m; }
static uint64_t next(cal_bufs *bf) { return sb_splitmix64(&bf->rng); }

/* A place in the local matrix for an M x N block moved by rows: the first
 * column (the calls sweep the matrix) and M rows drawn among all its lld
 * rows, as HPL's kernels move rows among the span that they give as
 * their leading dimension (hpl-patches/19: a pivot row is anywhere in the
 * trailing rows).  With FIRST, HPL_dlaswp00N's: rows 0 ... M-1, each
 * against a row below it (*FIRST 0).  The first row was drawn at random
 * until 2026-11-28, which spread HPL_dlaswp00N's rows over half the rows
 * on average and predicted HPL's calls 57% short on a Zen 5 VM. */
static double *rows_of(cal_bufs *bf, size_t M, size_t N, size_t *first)
{
  size_t lld = (size_t)bf->lld, cols = (size_t)bf->lcols;
  size_t c0 = N < cols ? next(bf) % (cols - N + 1) : 0;
  for (size_t i = 0; i < M && i < lld; i++)
    bf->rows[i] = (int)(first ? i + next(bf) % (lld - i) : next(bf) % lld);
  if (first)
    *first = 0;
  return bf->local + c0 * lld;
}

enum { MV_AX, MV_XA, MV_SWAP };
/* rows ra[i] of A (stride lld) against rows of X: element (i, j) of X at
 * X[xr(i) * xs + j * xj] */
static void move_rows(int how, size_t M, size_t N, double *A, size_t lld, const int *ra, double *X, size_t xs,
                      size_t xj, int xperm)
{
  for (size_t j0 = 0; j0 < N; j0 += DEPTH) {
    size_t w = N - j0 < DEPTH ? N - j0 : DEPTH;
    for (size_t i = 0; i < M; i++) {
      double *a = A + (size_t)ra[i] + j0 * lld, *x = X + (xperm ? perm(i, M) : i) * xs + j0 * xj;
      switch (how) {
      case MV_AX: for (size_t c = 0; c < w; c++) x[c * xj] = a[c * lld]; break;
      case MV_XA: for (size_t c = 0; c < w; c++) a[c * lld] = x[c * xj]; break;
      default:
        for (size_t c = 0; c < w; c++) {
          double t = a[c * lld];
          a[c * lld] = x[c * xj];
          x[c * xj] = t;
        }
      }
    }
  }
}

#define MEM_ARGS void *sym, int64_t m64, int64_t n64, int64_t k64, int v, cal_bufs *bf
#define MEM_SETUP                                                              \
  (void)sym, (void)v, (void)k64;                                               \
  size_t M = (size_t)m64, N = (size_t)n64, lld = (size_t)bf->lld;              \
  double *U = bf->b, *W = bf->c;                                               \
  (void)lld, (void)U, (void)W;

/* HPL_dlaswp00N: rows i of A against rows IPIV[i] below them */
static void cal_mem_SWAPAA(MEM_ARGS)
{
  MEM_SETUP
  size_t r0;
  double *A = rows_of(bf, M, N, &r0);
  for (size_t j0 = 0; j0 < N; j0 += DEPTH) {
    size_t w = N - j0 < DEPTH ? N - j0 : DEPTH;
    for (size_t i = 0; i < M; i++) {
      double *a0 = A + r0 + i + j0 * lld, *a1 = A + (size_t)bf->rows[i] + j0 * lld;
      if (a0 == a1)
        continue;
      for (size_t c = 0; c < w; c++) {
        double t = a0[c * lld];
        a0[c * lld] = a1[c * lld];
        a1[c * lld] = t;
      }
    }
  }
}
/* HPL_dlaswp01N/T, 02N: rows of A into U (N: strided by M; T: contiguous) or W */
static void cal_mem_ATOUN(MEM_ARGS) { MEM_SETUP move_rows(MV_AX, M, N, rows_of(bf, M, N, NULL), lld, bf->rows, U, 1, M, 1); }
static void cal_mem_ATOUT(MEM_ARGS) { MEM_SETUP move_rows(MV_AX, M, N, rows_of(bf, M, N, NULL), lld, bf->rows, U, N, 1, 1); }
static void cal_mem_ATOW(MEM_ARGS) { MEM_SETUP move_rows(MV_AX, M, N, rows_of(bf, M, N, NULL), lld, bf->rows, W, N, 1, 0); }
/* HPL_dlaswp05N/T: rows of U into A */
static void cal_mem_UTOAN(MEM_ARGS) { MEM_SETUP move_rows(MV_XA, M, N, rows_of(bf, M, N, NULL), lld, bf->rows, U, 1, M, 1); }
static void cal_mem_UTOAT(MEM_ARGS) { MEM_SETUP move_rows(MV_XA, M, N, rows_of(bf, M, N, NULL), lld, bf->rows, U, N, 1, 1); }
/* HPL_dlaswp06N/T: rows of A against rows of U */
static void cal_mem_SWAPAUN(MEM_ARGS) { MEM_SETUP move_rows(MV_SWAP, M, N, rows_of(bf, M, N, NULL), lld, bf->rows, U, 1, M, 0); }
static void cal_mem_SWAPAUT(MEM_ARGS) { MEM_SETUP move_rows(MV_SWAP, M, N, rows_of(bf, M, N, NULL), lld, bf->rows, U, N, 1, 0); }

/* HPL_dlaswp03N/T: the rows of W (received in the binary exchange) into
 * the rows of U its first row names */
static void wtou(size_t M, size_t N, const double *W, double *U, int tform)
{
  for (size_t j0 = 0; j0 < N; j0 += DEPTH) {
    size_t w = N - j0 < DEPTH ? N - j0 : DEPTH;
    for (size_t i = 0; i < M; i++) {
      const double *w0 = W + i * N + j0;
      if (tform) {
        double *u0 = U + perm(i, M) * N + j0;
        for (size_t c = 0; c < w; c++)
          u0[c] = w0[c];
      } else {
        double *u0 = U + perm(i, M) + j0 * M;
        for (size_t c = 0; c < w; c++)
          u0[c * M] = w0[c];
      }
    }
  }
}
static void cal_mem_WTOUN(MEM_ARGS) { MEM_SETUP wtou(M, N, W, U, 0); }
static void cal_mem_WTOUT(MEM_ARGS) { MEM_SETUP wtou(M, N, W, U, 1); }

/* HPL_dlaswp04N/T: M0 rows of A into U, replaced by rows of W; then M1 rows
 * of W into U */
static void mix(size_t M0, size_t N, size_t M1, cal_bufs *bf, int tform)
{
  double *A = rows_of(bf, M0, N, NULL), *U = bf->b, *W = bf->c;
  size_t lld = (size_t)bf->lld, M = M0 + M1;
  for (size_t j0 = 0; j0 < N; j0 += DEPTH) {
    size_t w = N - j0 < DEPTH ? N - j0 : DEPTH;
    for (size_t i = 0; i < M0; i++) {
      double *a = A + (size_t)bf->rows[i] + j0 * lld, *w0 = W + i * N + j0;
      double *u = tform ? U + perm(i, M) * N + j0 : U + perm(i, M) + j0 * M;
      size_t us = tform ? 1 : M;
      for (size_t c = 0; c < w; c++) {
        u[c * us] = a[c * lld];
        a[c * lld] = w0[c];
      }
    }
  }
  wtou(M1, N, W + M0 * N, U, tform);
}
static void cal_mem_MIXN(MEM_ARGS) { MEM_SETUP mix(M, N, (size_t)k64, bf, 0); }
static void cal_mem_MIXT(MEM_ARGS) { MEM_SETUP mix(M, N, (size_t)k64, bf, 1); }

/* HPL_dlaswp10N: column interchanges of A (M rows of N columns) */
static void cal_mem_COLS(MEM_ARGS)
{
  MEM_SETUP
  double *A = rows_of(bf, 0, N, NULL);
  for (size_t j = 0; j < N; j++) {
    double *x = A + j * lld, *y = A + perm(j, N) * lld;
    for (size_t i = 0; i < M; i++) {
      double t = x[i];
      x[i] = y[i];
      y[i] = t;
    }
  }
}

/* HPL_dlacpy: M x N of A (columns of lld) into a packed buffer */
static void cal_mem_COLCOPY(MEM_ARGS)
{
  MEM_SETUP
  const double *A = rows_of(bf, 0, N, NULL);
  for (size_t j = 0; j < N; j++)
    for (size_t i = 0; i < M; i++)
      W[i + j * M] = A[i + j * lld];
}

/* HPL_dlatcpy: M x N of A into a packed buffer, transposed */
static void cal_mem_TCOPY(MEM_ARGS)
{
  MEM_SETUP
  const double *A = rows_of(bf, 0, N, NULL);
  for (size_t j = 0; j < N; j++)
    for (size_t i = 0; i < M; i++)
      W[j + i * N] = A[i + j * lld];
}

/* ---- HPL's layout for its level-3 calls --------------------------------------- */
typedef void (*gemm_t)(const char *, const char *, const int *, const int *, const int *, const double *,
                       const double *, const int *, const double *, const int *, const double *, double *,
                       const int *);
typedef void (*trsm_t)(const char *, const char *, const char *, const char *, const int *, const int *,
                       const double *, const double *, const int *, double *, const int *);

int cal_hpl_layout(int op) { return sb_ops[op].focus == SB_FOCUS_HPL && sb_ops[op].level == SB_LEVEL_3; }

int cal_hpl_call(int op, void *sym, int64_t m64, int64_t n64, int64_t k64, int variant, int form, cal_bufs *bf)
{
  if (!cal_hpl_layout(op))
    return -1;
  int m = (int)m64, n = (int)n64, k = (int)k64, lld = (int)bf->lld;
  const double one = 1, mone = -1;
  double *L = bf->a, *U = bf->b;
  size_t cols = (size_t)bf->lcols;
  if (sb_ops[op].fam == SB_FAM_gemm) {
    /* C: the trailing m x n corner of the matrix, below a row panel of k
     * rows, where HPL's update finds it: each iteration's trailing matrix
     * inside the last one's, the same memory again (page-table entries in
     * the caches).  Placed anywhere in the matrix, as before 2026-11-29,
     * the update's size of call (m = n = 3701, k = 256) ran 3.7% slower
     * (median of 12 pairs, side by side, Zen 5 VM), and HPL's traced
     * update dgemm ran 5-12% faster than such calls predicted */
    size_t c0 = (size_t)n < cols ? cols - (size_t)n : 0;
    size_t r0 = (size_t)(m + k) < (size_t)lld ? (size_t)(lld - m - k) : 0;
    double *Ab = bf->local + c0 * (size_t)lld + r0;
    if (form == 0) /* 1xQ: the row panel B in the matrix, above C */
      ((gemm_t)sym)("N", "N", &m, &n, &k, &mone, L, &m, Ab, &lld, &one, Ab + k, &lld);
    else /* PxQ: U transposed (n x k) */
      ((gemm_t)sym)("N", "T", &m, &n, &k, &mone, L, &m, U, &n, &one, Ab + k, &lld);
    return 0;
  }
  if (sb_ops[op].fam == SB_FAM_trmm) { /* trsm's family */
    if (variant == 0) { /* 1xQ: the row panel (m = NB rows) in the matrix: the last m rows of the
                           trailing corner's columns (dgemm's C), memory the update uses again */
      size_t c0 = (size_t)n < cols ? cols - (size_t)n : 0;
      size_t r0 = (size_t)m < (size_t)lld ? (size_t)(lld - m) : 0;
      ((trsm_t)sym)("L", "U", "T", "U", &m, &n, &one, L, &m, bf->local + c0 * (size_t)lld + r0, &lld);
    } else { /* PxQ: U, m x n (n = NB), leading dimension m */
      ((trsm_t)sym)("R", "U", "N", "U", &m, &n, &one, L, &n, U, &m);
    }
    return 0;
  }
  return -1;
}

#define CAL_ENTRY(pfx, T_, R_, K_, fam, stem, ifc) [SB_OP_##pfx##stem] = {cal_##pfx##stem, #pfx #stem "_"},
#define SB_KERNEL(name, kind, shape, ld, figure) [SB_OP_##name] = {cal_mem_##kind, NULL},
const cal_op cal_ops[SB_OP_COUNT] = {
#define SB_OP(...) SB_EXPAND_OP(CAL_ENTRY, __VA_ARGS__)
#include "blas.def"
#include "kernels.def"
#undef SB_OP
};
