/*
 * names.c -- not compiled: the build runs it through the preprocessor to
 * list every Fortran entry of blas.def, one "F name" or "S name" per
 * line, from which sb_upper.h (the upper-case aliases) is made.
 */
#include "sb_prec.h"
#define SB_LIST(pfx, T_, R_, K_, fam, stem, ifc) SB_LIST_##ifc(pfx##stem)
#define SB_LIST_F(n) sbname_F n
#define SB_LIST_FC(n) sbname_F n
#define SB_LIST_FCS(n) sbname_F n sbname_F n##sub
#define SB_OP(...) SB_EXPAND_OP(SB_LIST, __VA_ARGS__)
#include "blas.def"
