/*
 * sb_cblas_types.h -- the CBLAS enums, as netlib's cblas.h defines them,
 * for builds that do not include a system cblas.h first.  Both netlib's
 * and OpenBLAS's headers guard with CBLAS_H and define these typedefs.
 */
#ifndef SB_CBLAS_TYPES_H
#define SB_CBLAS_TYPES_H
#ifndef CBLAS_H
typedef enum CBLAS_LAYOUT { CblasRowMajor = 101, CblasColMajor = 102 } CBLAS_LAYOUT;
typedef enum CBLAS_TRANSPOSE { CblasNoTrans = 111, CblasTrans = 112, CblasConjTrans = 113 } CBLAS_TRANSPOSE;
typedef enum CBLAS_UPLO { CblasUpper = 121, CblasLower = 122 } CBLAS_UPLO;
typedef enum CBLAS_DIAG { CblasNonUnit = 131, CblasUnit = 132 } CBLAS_DIAG;
typedef enum CBLAS_SIDE { CblasLeft = 141, CblasRight = 142 } CBLAS_SIDE;
#endif
#endif
