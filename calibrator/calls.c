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

#define L(x) ((x) > 1 ? (int)(x) : 1)

#define CAL_DEF(pfx, T_, R_, K_, fam, stem, ifc)                               \
  static void cal_##pfx##stem(void *sym, int64_t m64, int64_t n64, int64_t k64, int variant,               \
                              const cal_bufs *bf)                                                          \
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
 * m rows of n columns (m + k rows for HPL_dlaswp04*), rows picked through a
 * permutation as HPL's pivot vectors pick them, in double precision. */
static inline size_t perm(size_t i, size_t m) { return (i * 7919u) % m; }

static void cal_mem_COPY(void *sym, int64_t m64, int64_t n64, int64_t k64, int v, const cal_bufs *bf)
{
  (void)sym, (void)v;
  size_t m = (size_t)(m64 + k64), n = (size_t)n64;
  const double *A = bf->a;
  double *B = bf->b;
  for (size_t j = 0; j < n; j++)
    for (size_t i = 0; i < m; i++)
      B[i + j * m] = A[perm(i, m) + j * m];
}

static void cal_mem_TCOPY(void *sym, int64_t m64, int64_t n64, int64_t k64, int v, const cal_bufs *bf)
{
  (void)sym, (void)v;
  size_t m = (size_t)(m64 + k64), n = (size_t)n64;
  const double *A = bf->a;
  double *B = bf->b;
  for (size_t j = 0; j < n; j++)
    for (size_t i = 0; i < m; i++)
      B[j + i * n] = A[perm(i, m) + j * m];
}

static void cal_mem_SWAP(void *sym, int64_t m64, int64_t n64, int64_t k64, int v, const cal_bufs *bf)
{
  (void)sym, (void)v, (void)k64;
  size_t m = (size_t)m64, n = (size_t)n64;
  double *A = bf->a, *B = bf->b;
  for (size_t j = 0; j < n; j++)
    for (size_t i = 0; i < m; i++) {
      double t = A[i + j * m];
      A[i + j * m] = B[perm(i, m) + j * m];
      B[perm(i, m) + j * m] = t;
    }
}

static void cal_mem_COLS(void *sym, int64_t m64, int64_t n64, int64_t k64, int v, const cal_bufs *bf)
{
  (void)sym, (void)v, (void)k64;
  size_t m = (size_t)m64, n = (size_t)n64;
  double *A = bf->a;
  for (size_t j = 0; j < n; j++) {
    double *x = A + j * m, *y = A + perm(j, n) * m;
    for (size_t i = 0; i < m; i++) {
      double t = x[i];
      x[i] = y[i];
      y[i] = t;
    }
  }
}

#define CAL_ENTRY(pfx, T_, R_, K_, fam, stem, ifc) [SB_OP_##pfx##stem] = {cal_##pfx##stem, #pfx #stem "_"},
#define SB_KERNEL(name, kind, shape) [SB_OP_##name] = {cal_mem_##kind, NULL},
const cal_op cal_ops[SB_OP_COUNT] = {
#define SB_OP(...) SB_EXPAND_OP(CAL_ENTRY, __VA_ARGS__)
#include "blas.def"
#include "kernels.def"
#undef SB_OP
};
