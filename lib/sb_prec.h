/*
 * sb_prec.h -- precision sets for lib/blas.def, in the manner of BLIS's
 * INSERT_GENTFUNC_BLAS: a set expands a callback once per precision.
 *
 *   F(pfx, T, R, K, ...)
 *     pfx  the name prefix (s, d, c, z, sc, dz, cs, zd, is, ...)
 *     T    the element type of the vectors and matrices
 *     R    the matching real type (for dsdot: the return type, double)
 *     K    R for a real element type, C for complex (selects how CBLAS
 *          passes scalars and arrays: by value / typed pointer, or void *)
 *     ...  passed through (family, stem, interfaces)
 */
#ifndef SB_PREC_H
#define SB_PREC_H

#include <complex.h>

typedef float _Complex sb_cf;  /* Fortran COMPLEX, C99 float _Complex   */
typedef double _Complex sb_cd; /* Fortran COMPLEX*16                    */

#define SB_PS_S(F, ...) F(s, float, float, R, __VA_ARGS__)
#define SB_PS_D(F, ...) F(d, double, double, R, __VA_ARGS__)
#define SB_PS_C(F, ...) F(c, sb_cf, float, C, __VA_ARGS__)
#define SB_PS_Z(F, ...) F(z, sb_cd, double, C, __VA_ARGS__)

#define SB_PS_SD(F, ...) SB_PS_S(F, __VA_ARGS__) SB_PS_D(F, __VA_ARGS__)
#define SB_PS_CZ(F, ...) SB_PS_C(F, __VA_ARGS__) SB_PS_Z(F, __VA_ARGS__)
#define SB_PS_SDCZ(F, ...) SB_PS_SD(F, __VA_ARGS__) SB_PS_CZ(F, __VA_ARGS__)

/* complex vectors with a real scalar: csscal zdscal, csrot zdrot */
#define SB_PS_CSZD(F, ...)                                                     \
  F(cs, sb_cf, float, C, __VA_ARGS__) F(zd, sb_cd, double, C, __VA_ARGS__)
#define SB_PS_SD_CSZD(F, ...) SB_PS_SD(F, __VA_ARGS__) SB_PS_CSZD(F, __VA_ARGS__)

/* real results of complex vectors: scnrm2 dznrm2, scasum dzasum, ... */
#define SB_PS_SD_SCDZ(F, ...)                                                  \
  SB_PS_SD(F, __VA_ARGS__)                                                     \
  F(sc, sb_cf, float, C, __VA_ARGS__) F(dz, sb_cd, double, C, __VA_ARGS__)

/* scabs1 dcabs1: one complex scalar in, its real 1-norm out */
#define SB_PS_SD_CABS(F, ...)                                                  \
  F(s, sb_cf, float, C, __VA_ARGS__) F(d, sb_cd, double, C, __VA_ARGS__)

/* index functions: isamax idamax icamax izamax; a prefix's leading i is the
 * routine's, not a precision (lib/ops.c: sb_ops[].prec_at) */
#define SB_PS_I_SDCZ(F, ...)                                                   \
  F(is, float, float, R, __VA_ARGS__) F(id, double, double, R, __VA_ARGS__)    \
  F(ic, sb_cf, float, C, __VA_ARGS__) F(iz, sb_cd, double, C, __VA_ARGS__)

/* sdot ddot, and dsdot: float vectors, double accumulation and result */
#define SB_PS_SD_DS(F, ...)                                                    \
  SB_PS_SD(F, __VA_ARGS__) F(ds, float, double, R, __VA_ARGS__)
#define SB_PS_SDS(F, ...) F(sds, float, float, R, __VA_ARGS__)

/* Expand every row of blas.def into one call of F per precision, F(pfx,
 * T, R, K, family, stem, interfaces); SB_EXPAND_OP_COLUMNS passes the
 * row's optional focus, hermitian, figure and ld0 columns too, as four more
 * arguments (empty without them).  The empty arguments appended keep the
 * variadic part non-empty, as C11 wants, whether the row has the columns or not. */
#define SB_EXPAND_OP(F, ...) SB_EXPAND_OP_(F, __VA_ARGS__, , )
#define SB_EXPAND_OP_(F, fam, stem, precs, ifaces, focus, ...) SB_PS_##precs(F, fam, stem, ifaces)
#define SB_EXPAND_OP_COLUMNS(F, ...) SB_EXPAND_OP_COLUMNS_(F, __VA_ARGS__, , , , , )
#define SB_EXPAND_OP_COLUMNS_(F, fam, stem, precs, ifaces, focus, herm, figure, ld0, ...) \
  SB_PS_##precs(F, fam, stem, ifaces, focus, herm, figure, ld0)

#endif
