/*
 * check.c -- argument checks, quick returns and canonical shapes of every
 * family (see sb_check.h).  INFO numbers follow reference BLAS 3.11; the
 * CBLAS enum checks and their quirks follow netlib CBLAS 3.11 (e.g. a bad
 * TransB of a row-major gemm is reported as parameter 2, a bad Uplo of a
 * row-major syrk as parameter 3).
 */
#include <ctype.h>
#include <string.h>

#include "sb_check.h"
#include "simblas.h"

/* netlib's prototype (lib/xerbla.c) */
void cblas_xerbla(int p, const char *rout, const char *form, ...);

/* CBLAS enum values (cblas.h) */
enum { ROW = 101, COL = 102 };
enum { NOTR = 111, TR = 112, CTR = 113 };
enum { UPPER = 121, LOWER = 122 };
enum { NONUNIT = 131, UNIT = 132 };
enum { LEFT = 141, RIGHT = 142 };

static inline int up(const char *ch) { return toupper((unsigned char)*ch); }
static inline int is(const char *ch, int want) { return up(ch) == want; }
static inline int imax1(int a) { return a > 1 ? a : 1; }
static inline int imaxlo(int a, int lo) { return a > lo ? a : lo; }

static void fortran_error(const sb_call *c, int info)
{
  /* netlib routines pass a 6-character blank-padded name: 'DGER  ' */
  char name[16];
  const char *src = sb_ops[c->op].name;
  size_t len = strlen(src);
  if (len > sizeof name - 1)
    len = sizeof name - 1;
  for (size_t i = 0; i < len; i++)
    name[i] = (char)toupper((unsigned char)src[i]);
  while (len < 6)
    name[len++] = ' ';
  name[len] = '\0';
  /* through the PLT: a program's own XERBLA interposes */
  xerbla_(name, &info, len);
}

static int err(const sb_call *c, int info)
{
  fortran_error(c, info);
  return SB_ERR;
}

static void shape(sb_call *c, int64_t m, int64_t n, int64_t k)
{
  c->m = m;
  c->n = n;
  c->k = k;
}

int sb_chk_scalar(sb_call *c)
{
  shape(c, 0, 1, 0);
  return SB_GO;
}

int sb_chk_l1(sb_call *c, int n, int inc, int quick)
{
  shape(c, 0, n > 0 ? n : 0, 0);
  return (n <= 0 || inc <= 0 || quick) ? SB_QUICK : SB_GO;
}

static int trans_ok(const char *t) { return is(t, 'N') || is(t, 'T') || is(t, 'C'); }
static int uplo_ok(const char *u) { return is(u, 'U') || is(u, 'L'); }
static int diag_ok(const char *d) { return is(d, 'U') || is(d, 'N'); }

/* ===== Level 2 ============================================================ */
int sb_chk_gemv(sb_call *c, const char *trans, const int *m, const int *n,
                const int *lda, const int *incx, const int *incy, int q)
{
  int info = 0;
  if (!trans_ok(trans)) info = 1;
  else if (*m < 0) info = 2;
  else if (*n < 0) info = 3;
  else if (*lda < imax1(*m)) info = 6;
  else if (*incx == 0) info = 8;
  else if (*incy == 0) info = 11;
  if (info) return err(c, info);
  shape(c, *m, *n, 0);
  return (*m == 0 || *n == 0 || q) ? SB_QUICK : SB_GO;
}

int sb_chk_gbmv(sb_call *c, const char *trans, const int *m, const int *n,
                const int *kl, const int *ku, const int *lda, const int *incx,
                const int *incy, int q)
{
  int info = 0;
  if (!trans_ok(trans)) info = 1;
  else if (*m < 0) info = 2;
  else if (*n < 0) info = 3;
  else if (*kl < 0) info = 4;
  else if (*ku < 0) info = 5;
  else if (*lda < *kl + *ku + 1) info = 8;
  else if (*incx == 0) info = 10;
  else if (*incy == 0) info = 13;
  if (info) return err(c, info);
  shape(c, *m, *n, (int64_t)*kl + *ku + 1);
  return (*m == 0 || *n == 0 || q) ? SB_QUICK : SB_GO;
}

int sb_chk_symv(sb_call *c, const char *uplo, const int *n, const int *k,
                const int *lda, const int *incx, const int *incy, int q)
{
  /* symv: 1 2 5 7 10; sbmv: 1 2 3 6 8 11; spmv: 1 2 6 9 */
  int info = 0, o = k ? 1 : 0; /* sbmv has one more argument before alpha */
  if (!uplo_ok(uplo)) info = 1;
  else if (*n < 0) info = 2;
  else if (k && *k < 0) info = 3;
  else if (lda && *lda < (k ? *k + 1 : imax1(*n))) info = 5 + o;
  else if (*incx == 0) info = lda ? 7 + o : 6;
  else if (*incy == 0) info = lda ? 10 + o : 9;
  if (info) return err(c, info);
  shape(c, *n, *n, k ? (int64_t)*k + 1 : 0);
  return (*n == 0 || q) ? SB_QUICK : SB_GO;
}

int sb_chk_trmv(sb_call *c, const char *uplo, const char *trans,
                const char *diag, const int *n, const int *k, const int *lda,
                const int *incx)
{
  /* trmv: 1 2 3 4 6 8; tbmv: 1 2 3 4 5 7 9; tpmv: 1 2 3 4 7 */
  int info = 0;
  if (!uplo_ok(uplo)) info = 1;
  else if (!trans_ok(trans)) info = 2;
  else if (!diag_ok(diag)) info = 3;
  else if (*n < 0) info = 4;
  else if (k && *k < 0) info = 5;
  else if (lda && *lda < (k ? *k + 1 : imax1(*n))) info = k ? 7 : 6;
  else if (*incx == 0) info = !lda ? 7 : (k ? 9 : 8);
  if (info) return err(c, info);
  shape(c, *n, *n, k ? (int64_t)*k + 1 : 0);
  return *n == 0 ? SB_QUICK : SB_GO;
}

int sb_chk_ger(sb_call *c, const int *m, const int *n, const int *incx,
               const int *incy, const int *lda, int q)
{
  int info = 0;
  if (*m < 0) info = 1;
  else if (*n < 0) info = 2;
  else if (*incx == 0) info = 5;
  else if (*incy == 0) info = 7;
  else if (*lda < imax1(*m)) info = 9;
  if (info) return err(c, info);
  shape(c, *m, *n, 0);
  return (*m == 0 || *n == 0 || q) ? SB_QUICK : SB_GO;
}

int sb_chk_syr(sb_call *c, const char *uplo, const int *n, const int *incx,
               const int *incy, const int *lda, int q)
{
  /* syr: 1 2 5 7; spr: 1 2 5; syr2: 1 2 5 7 9; spr2: 1 2 5 7 */
  int info = 0;
  if (!uplo_ok(uplo)) info = 1;
  else if (*n < 0) info = 2;
  else if (*incx == 0) info = 5;
  else if (incy && *incy == 0) info = 7;
  else if (lda && *lda < imax1(*n)) info = incy ? 9 : 7;
  if (info) return err(c, info);
  shape(c, *n, *n, 0);
  return (*n == 0 || q) ? SB_QUICK : SB_GO;
}

/* ===== Level 3 ============================================================ */
int sb_chk_gemm(sb_call *c, const char *ta, const char *tb, const int *m,
                const int *n, const int *k, const int *lda, const int *ldb,
                const int *ldc, int alpha0, int beta1)
{
  int nota = is(ta, 'N'), notb = is(tb, 'N');
  int nrowa = nota ? *m : *k, nrowb = notb ? *k : *n, info = 0;
  /* blas.def's ld0 column: OpenBLAS's gemm3m accepts a leading dimension
   * of 0 for empty matrices */
  int lo = sb_ops[c->op].ld0 ? 0 : 1;
  if (!nota && !is(ta, 'C') && !is(ta, 'T')) info = 1;
  else if (!notb && !is(tb, 'C') && !is(tb, 'T')) info = 2;
  else if (*m < 0) info = 3;
  else if (*n < 0) info = 4;
  else if (*k < 0) info = 5;
  else if (*lda < imaxlo(nrowa, lo)) info = 8;
  else if (*ldb < imaxlo(nrowb, lo)) info = 10;
  else if (*ldc < imaxlo(*m, lo)) info = 13;
  if (info) return err(c, info);
  shape(c, *m, *n, *k);
  /* C's leading dimension, which the time depends on (a model's @ld line:
   * HPL's update, C in the local matrix, ran 5-6% faster at 10,000 local
   * rows than at 50,000, Zen 5 VM, 2026-11-29) */
  c->ld = *ldc;
  return (*m == 0 || *n == 0 || ((alpha0 || *k == 0) && beta1)) ? SB_QUICK : SB_GO;
}

int sb_chk_gemmt(sb_call *c, const char *uplo, const char *ta, const char *tb,
                 const int *n, const int *k, const int *lda, const int *ldb,
                 const int *ldc, int alpha0, int beta1)
{
  /* netlib 3.12 ?gemmtr numbering, which OpenBLAS's ?gemmt shares */
  int nota = is(ta, 'N'), notb = is(tb, 'N');
  int nrowa = nota ? *n : *k, nrowb = notb ? *k : *n, info = 0;
  if (!uplo_ok(uplo)) info = 1;
  else if (!nota && !is(ta, 'C') && !is(ta, 'T')) info = 2;
  else if (!notb && !is(tb, 'C') && !is(tb, 'T')) info = 3;
  else if (*n < 0) info = 4;
  else if (*k < 0) info = 5;
  else if (*lda < imax1(nrowa)) info = 8;
  else if (*ldb < imax1(nrowb)) info = 10;
  else if (*ldc < imax1(*n)) info = 13;
  if (info) return err(c, info);
  shape(c, *n, *n, *k);
  return (*n == 0 || ((alpha0 || *k == 0) && beta1)) ? SB_QUICK : SB_GO;
}

int sb_chk_symm(sb_call *c, const char *side, const char *uplo, const int *m,
                const int *n, const int *lda, const int *ldb, const int *ldc,
                int q)
{
  int left = is(side, 'L'), nrowa = left ? *m : *n, info = 0;
  if (!left && !is(side, 'R')) info = 1;
  else if (!uplo_ok(uplo)) info = 2;
  else if (*m < 0) info = 3;
  else if (*n < 0) info = 4;
  else if (*lda < imax1(nrowa)) info = 7;
  else if (*ldb < imax1(*m)) info = 9;
  else if (*ldc < imax1(*m)) info = 12;
  if (info) return err(c, info);
  shape(c, *m, *n, nrowa); /* k: order of the symmetric matrix */
  c->variant = !left;
  return (*m == 0 || *n == 0 || q) ? SB_QUICK : SB_GO;
}

int sb_chk_syrk(sb_call *c, const char *uplo, const char *trans, const int *n,
                const int *k, const int *lda, const int *ldb, const int *ldc,
                int alpha0, int beta1)
{
  /* which transposes a routine accepts: real sy*: N T C; complex sy*: N T;
   * he*: N C */
  const sb_opinfo *op = &sb_ops[c->op];
  int herm = op->herm, tr_ok;
  if (herm) tr_ok = is(trans, 'N') || is(trans, 'C');
  else if (op->cplx) tr_ok = is(trans, 'N') || is(trans, 'T');
  else tr_ok = trans_ok(trans);
  int nrowa = is(trans, 'N') ? *n : *k, info = 0;
  if (!uplo_ok(uplo)) info = 1;
  else if (!tr_ok) info = 2;
  else if (*n < 0) info = 3;
  else if (*k < 0) info = 4;
  else if (*lda < imax1(nrowa)) info = 7;
  else if (ldb && *ldb < imax1(nrowa)) info = 9;
  else if (*ldc < imax1(*n)) info = ldb ? 12 : 10;
  if (info) return err(c, info);
  shape(c, *n, *n, *k);
  return (*n == 0 || ((alpha0 || *k == 0) && beta1)) ? SB_QUICK : SB_GO;
}

int sb_chk_trmm(sb_call *c, const char *side, const char *uplo,
                const char *transa, const char *diag, const int *m,
                const int *n, const int *lda, const int *ldb)
{
  int left = is(side, 'L'), nrowa = left ? *m : *n, info = 0;
  if (!left && !is(side, 'R')) info = 1;
  else if (!uplo_ok(uplo)) info = 2;
  else if (!trans_ok(transa)) info = 3;
  else if (!diag_ok(diag)) info = 4;
  else if (*m < 0) info = 5;
  else if (*n < 0) info = 6;
  else if (*lda < imax1(nrowa)) info = 9;
  else if (*ldb < imax1(*m)) info = 11;
  if (info) return err(c, info);
  shape(c, *m, *n, nrowa); /* k: order of the triangular matrix */
  c->variant = !left;
  return (*m == 0 || *n == 0) ? SB_QUICK : SB_GO;
}

/* ===== OpenBLAS extensions ================================================ */
static int geadd(sb_call *c, const int *m, const int *n, const int *lda,
                 const int *ldc, int lda_pos)
{
  /* OpenBLAS 0.3.21 interface/geadd.c: the last failing test wins, so an
   * LDC error hides an LDA error; Fortran numbers LDA 6, CBLAS 5 */
  int info = 0;
  if (*lda < imax1(*m)) info = lda_pos;
  if (*ldc < imax1(*m)) info = 8;
  if (*n < 0) info = 2;
  if (*m < 0) info = 1;
  if (info) return err(c, info);
  shape(c, *m, *n, 0);
  return (*m == 0 || *n == 0) ? SB_QUICK : SB_GO;
}

int sb_chk_geadd(sb_call *c, const int *m, const int *n, const int *lda,
                 const int *ldc)
{
  return geadd(c, m, n, lda, ldc, 6);
}

int sb_chk_matcopy(sb_call *c, const char *order, const char *trans,
                   const int *rows, const int *cols, const int *lda,
                   const int *ldb, int inplace)
{
  /* OpenBLAS interface/{o,i}matcopy.c: order C|R, trans N|T|R|C */
  int o = up(order), t = up(trans), info = 0;
  int colmajor = o == 'C', notrans = t == 'N' || t == 'R';
  int ordok = o == 'C' || o == 'R', trok = t == 'N' || t == 'T' || t == 'R' || t == 'C';
  int r = *rows, cl = *cols;
  int need_b = colmajor ? (notrans ? r : cl) : (notrans ? cl : r);
  int need_a = colmajor ? r : cl;
  int ldbpos = inplace ? 8 : 9;
  if (ordok && trok && *ldb < imax1(need_b)) info = ldbpos;
  if (ordok && *lda < imax1(need_a)) info = 7;
  if (cl <= 0) info = 4;
  if (r <= 0) info = 3;
  if (!trok) info = 2;
  if (!ordok) info = 1;
  if (info) return err(c, info);
  shape(c, colmajor ? r : cl, colmajor ? cl : r, 0);
  return SB_GO;
}

/* ===== CBLAS ============================================================== */
/* netlib's cblas sets these around the Fortran call (lib/xerbla.c) */
static void cblas_begin(sb_call *c, int rowmajor)
{
  c->iface = 1;
  RowMajorStrg = rowmajor;
  CBLAS_CallFromC = 1;
}

static int cblas_end(int rc)
{
  CBLAS_CallFromC = 0;
  RowMajorStrg = 0;
  return rc;
}

static int cerr(const sb_call *c, int pos, const char *what, int value)
{
  char rout[32], fmt[64];
  strcpy(rout, "cblas_");
  strncat(rout, sb_ops[c->op].name, sizeof rout - 7);
  strcpy(fmt, "Illegal ");
  strncat(fmt, what, 40);
  strcat(fmt, " setting, %d\n");
  cblas_xerbla(pos, rout, fmt, value);
  return cblas_end(SB_ERR);
}

/* enum -> Fortran character; 0 when invalid */
static char tr_char(int t, int rowmajor)
{
  if (!rowmajor)
    return t == NOTR ? 'N' : t == TR ? 'T' : t == CTR ? 'C' : 0;
  return t == NOTR ? 'T' : (t == TR || t == CTR) ? 'N' : 0;
}
static char uplo_char(int u, int rowmajor)
{
  if (u == UPPER) return rowmajor ? 'L' : 'U';
  if (u == LOWER) return rowmajor ? 'U' : 'L';
  return 0;
}
static char diag_char(int d) { return d == UNIT ? 'U' : d == NONUNIT ? 'N' : 0; }
static char side_char(int s, int rowmajor)
{
  if (s == LEFT) return rowmajor ? 'R' : 'L';
  if (s == RIGHT) return rowmajor ? 'L' : 'R';
  return 0;
}

#define LAYOUT_CHECK(c, layout)                                                \
  int rm = (layout) == ROW;                                                    \
  cblas_begin(c, 0);                                                           \
  if ((layout) != ROW && (layout) != COL)                                      \
    return cerr(c, 1, "layout", layout);                                       \
  RowMajorStrg = rm

int sb_cchk_gemv(sb_call *c, int layout, int ta, int m, int n, int lda,
                 int incx, int incy, int q)
{
  LAYOUT_CHECK(c, layout);
  char t = tr_char(ta, rm);
  if (!t) return cerr(c, 2, "TransA", ta);
  int M = rm ? n : m, N = rm ? m : n;
  return cblas_end(sb_chk_gemv(c, &t, &M, &N, &lda, &incx, &incy, q));
}

int sb_cchk_gbmv(sb_call *c, int layout, int ta, int m, int n, int kl, int ku,
                 int lda, int incx, int incy, int q)
{
  LAYOUT_CHECK(c, layout);
  char t = tr_char(ta, rm);
  if (!t) return cerr(c, 2, "TransA", ta);
  int M = rm ? n : m, N = rm ? m : n, KL = rm ? ku : kl, KU = rm ? kl : ku;
  return cblas_end(sb_chk_gbmv(c, &t, &M, &N, &KL, &KU, &lda, &incx, &incy, q));
}

int sb_cchk_symv(sb_call *c, int layout, int uplo, int n, int k, int lda,
                 int incx, int incy, int q)
{
  LAYOUT_CHECK(c, layout);
  char u = uplo_char(uplo, rm);
  if (!u) return cerr(c, 2, "Uplo", uplo);
  return cblas_end(sb_chk_symv(c, &u, &n, k != SB_NA ? &k : NULL,
                               lda != SB_NA ? &lda : NULL, &incx, &incy, q));
}

int sb_cchk_trmv(sb_call *c, int layout, int uplo, int ta, int diag, int n,
                 int k, int lda, int incx)
{
  LAYOUT_CHECK(c, layout);
  char u = uplo_char(uplo, rm), t = tr_char(ta, rm), d = diag_char(diag);
  if (!u) return cerr(c, 2, "Uplo", uplo);
  if (!t) return cerr(c, 3, "TransA", ta);
  if (!d) return cerr(c, 4, "Diag", diag);
  return cblas_end(sb_chk_trmv(c, &u, &t, &d, &n, k != SB_NA ? &k : NULL,
                               lda != SB_NA ? &lda : NULL, &incx));
}

int sb_cchk_ger(sb_call *c, int layout, int m, int n, int incx, int incy,
                int lda, int q)
{
  LAYOUT_CHECK(c, layout);
  /* row-major: A^T = y x^T, the vectors trade places */
  int M = rm ? n : m, N = rm ? m : n, ix = rm ? incy : incx, iy = rm ? incx : incy;
  return cblas_end(sb_chk_ger(c, &M, &N, &ix, &iy, &lda, q));
}

int sb_cchk_syr(sb_call *c, int layout, int uplo, int n, int incx, int incy,
                int lda, int q)
{
  LAYOUT_CHECK(c, layout);
  char u = uplo_char(uplo, rm);
  if (!u) return cerr(c, 2, "Uplo", uplo);
  /* row-major her2/hpr2 pass y before x (netlib); syr2 keeps the order */
  int swap = rm && incy != SB_NA && sb_ops[c->op].herm;
  int ix = swap ? incy : incx, iy = swap ? incx : incy;
  return cblas_end(sb_chk_syr(c, &u, &n, &ix, incy != SB_NA ? &iy : NULL,
                              lda != SB_NA ? &lda : NULL, q));
}

int sb_cchk_gemm(sb_call *c, int layout, int ta, int tb, int m, int n, int k,
                 int lda, int ldb, int ldc, int alpha0, int beta1)
{
  LAYOUT_CHECK(c, layout);
  char a = tr_char(ta, 0), b = tr_char(tb, 0);
  if (!a) return cerr(c, 2, "TransA", ta);
  if (!b) return cerr(c, rm ? 2 : 3, "TransB", tb); /* netlib reports 2 */
  if (!rm)
    return cblas_end(sb_chk_gemm(c, &a, &b, &m, &n, &k, &lda, &ldb, &ldc, alpha0, beta1));
  /* C^T = op(B)^T op(A)^T */
  return cblas_end(sb_chk_gemm(c, &b, &a, &n, &m, &k, &ldb, &lda, &ldc, alpha0, beta1));
}

int sb_cchk_gemmt(sb_call *c, int layout, int uplo, int ta, int tb, int n,
                  int k, int lda, int ldb, int ldc, int alpha0, int beta1)
{
  LAYOUT_CHECK(c, layout);
  char u = uplo_char(uplo, rm), a = tr_char(ta, 0), b = tr_char(tb, 0);
  if (!u) return cerr(c, 2, "Uplo", uplo);
  if (!a) return cerr(c, 3, "TransA", ta);
  if (!b) return cerr(c, 4, "TransB", tb);
  if (!rm)
    return cblas_end(sb_chk_gemmt(c, &u, &a, &b, &n, &k, &lda, &ldb, &ldc, alpha0, beta1));
  return cblas_end(sb_chk_gemmt(c, &u, &b, &a, &n, &k, &ldb, &lda, &ldc, alpha0, beta1));
}

int sb_cchk_symm(sb_call *c, int layout, int side, int uplo, int m, int n,
                 int lda, int ldb, int ldc, int q)
{
  LAYOUT_CHECK(c, layout);
  char s = side_char(side, rm), u = uplo_char(uplo, rm);
  if (!s) return cerr(c, 2, "Side", side);
  if (!u) return cerr(c, 3, "Uplo", uplo);
  int M = rm ? n : m, N = rm ? m : n;
  return cblas_end(sb_chk_symm(c, &s, &u, &M, &N, &lda, &ldb, &ldc, q));
}

int sb_cchk_syrk(sb_call *c, int layout, int uplo, int trans, int n, int k,
                 int lda, int ldb, int ldc, int alpha0, int beta1)
{
  LAYOUT_CHECK(c, layout);
  char u = uplo_char(uplo, rm), t;
  /* netlib: a row-major he* call turns NoTrans into 'C' */
  int herm = sb_ops[c->op].herm;
  /* netlib: row-major syrk, herk, syr2k report a bad Uplo as 3 */
  if (!u) return cerr(c, rm && !(herm && ldb != SB_NA) ? 3 : 2, "Uplo", uplo);
  t = tr_char(trans, rm);
  if (rm && herm && t == 'T') t = 'C';
  if (!t) return cerr(c, 3, "Trans", trans);
  return cblas_end(sb_chk_syrk(c, &u, &t, &n, &k, &lda, ldb != SB_NA ? &ldb : NULL,
                               &ldc, alpha0, beta1));
}

int sb_cchk_trmm(sb_call *c, int layout, int side, int uplo, int ta, int diag,
                 int m, int n, int lda, int ldb)
{
  LAYOUT_CHECK(c, layout);
  char s = side_char(side, rm), u = uplo_char(uplo, rm), t = tr_char(ta, 0),
       d = diag_char(diag);
  if (!s) return cerr(c, 2, "Side", side);
  if (!u) return cerr(c, 3, "Uplo", uplo);
  if (!t) return cerr(c, 4, "Trans", ta);
  if (!d) return cerr(c, 5, "Diag", diag);
  int M = rm ? n : m, N = rm ? m : n;
  return cblas_end(sb_chk_trmm(c, &s, &u, &t, &d, &M, &N, &lda, &ldb));
}

/* OpenBLAS's own cblas extensions report through the Fortran XERBLA with
 * Fortran numbering, and an invalid order as INFO 0 */
int sb_cchk_geadd(sb_call *c, int layout, int rows, int cols, int lda, int ldc)
{
  c->iface = 1;
  if (layout != ROW && layout != COL)
    return err(c, 0);
  int rm = layout == ROW, M = rm ? cols : rows, N = rm ? rows : cols;
  return geadd(c, &M, &N, &lda, &ldc, 5);
}

int sb_cchk_matcopy(sb_call *c, int order, int trans, int rows, int cols,
                    int lda, int ldb, int inplace)
{
  c->iface = 1;
  char o = order == COL ? 'C' : order == ROW ? 'R' : '?';
  /* 114 is OpenBLAS's CblasConjNoTrans */
  char t = trans == NOTR ? 'N' : trans == TR ? 'T' : trans == CTR ? 'C' : trans == 114 ? 'R' : '?';
  return sb_chk_matcopy(c, &o, &t, &rows, &cols, &lda, &ldb, inplace);
}
