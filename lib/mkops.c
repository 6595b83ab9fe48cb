/*
 * mkops.c -- the op table (sb_ops: lib/blas.def, lib/kernels.def and the
 * family table of sb_call.h) written out at build time:
 *   mkops --json   ops.json, installed in $(pkgdatadir) beside settings.json:
 *                  the columns the Python side reads (format 1), one object
 *                  an op, in the enum's order:
 *                    name    the model-file key (dgemm, idamax, hpl_dlaswp00N)
 *                    family  its family (gemm; memk for HPL's memory kernels)
 *                    level   the family's level: "1", "2", "3", or "M" (a
 *                            memory kernel)
 *                    focus   blas.def's focus column as ops.c reads it (set on
 *                            the row's double-precision real routine only):
 *                            "HPL", "LAPACK", or null
 * The names are C identifiers (stringized tokens): nothing to escape.
 */
#include <stdio.h>
#include <string.h>

#include "sb_call.h"

static const char *const levels[] = {[SB_LEVEL_1] = "1", [SB_LEVEL_2] = "2", [SB_LEVEL_3] = "3", [SB_LEVEL_M] = "M"};
static const char *const focuses[] = {[SB_FOCUS_NONE] = NULL, [SB_FOCUS_LAPACK] = "LAPACK", [SB_FOCUS_HPL] = "HPL"};

static void json(void)
{
  printf("{\n  \"format\": 1,\n  \"ops\": [\n");
  for (int i = 0; i < SB_OP_COUNT; i++) {
    const sb_opinfo *o = &sb_ops[i];
    printf("    {\"name\": \"%s\", \"family\": \"%s\", \"level\": \"%s\", \"focus\": ", o->name,
           sb_family_name(o->fam), levels[o->level]);
    if (focuses[o->focus])
      printf("\"%s\"", focuses[o->focus]);
    else
      fputs("null", stdout);
    printf("}%s\n", i + 1 < SB_OP_COUNT ? "," : "");
  }
  printf("  ]\n}\n");
}

int main(int argc, char **argv)
{
  if (argc == 2 && !strcmp(argv[1], "--json"))
    json();
  else {
    fprintf(stderr, "usage: mkops --json\n");
    return 2;
  }
  return 0;
}
