/*
 * mksettings.c -- lib/settings.def, the table of SIMBLAS_* variables,
 * written out at build time:
 *   mksettings --json       settings.json, installed in $(pkgdatadir): the
 *                           list the Python side reads (format 1)
 *   mksettings --markdown   doc/settings.md (`make settings-doc` rewrites
 *                           it; test/settings.sh fails when they differ)
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "settings.h"

static const char *const users[] = {"libsimblas", "simblas-hpl", "tests"};

/* ---- JSON ------------------------------------------------------------------- */
static void json_string(const char *s)
{
  putchar('"');
  for (; *s; s++) {
    if (*s == '"' || *s == '\\')
      printf("\\%c", *s);
    else if ((unsigned char)*s < 0x20)
      printf("\\u%04x", *s);
    else
      putchar(*s);
  }
  putchar('"');
}

static void json_number(double x)
{
  if (isinf(x))
    fputs("null", stdout); /* no bound */
  else
    printf("%.17g", x);
}

static void json(void)
{
  printf("{\n  \"format\": 1,\n  \"settings\": [\n");
  for (int i = 0; i < sb_setting_count; i++) {
    const sb_setting_row *r = &sb_setting_rows[i];
    printf("    {\"name\": ");
    json_string(r->name);
    printf(", \"type\": ");
    json_string(r->type);
    printf(", \"default\": ");
    json_string(r->dflt);
    if (!strcmp(r->type, "COUNT") || !strcmp(r->type, "REAL")) {
      printf(", \"min\": ");
      json_number(r->lo);
      printf(", \"max\": ");
      json_number(r->hi);
    }
    if (*r->values) {
      printf(", \"values\": [");
      const char *p = r->values;
      for (int first = 1; *p; first = 0) {
        size_t n = strcspn(p, "|");
        printf("%s\"%.*s\"", first ? "" : ", ", (int)n, p);
        p += n + (p[n] == '|');
      }
      putchar(']');
    }
    printf(", \"read_by\": [");
    for (int u = 0, first = 1; u < 3; u++)
      if (r->users & (1 << u)) {
        printf("%s\"%s\"", first ? "" : ", ", users[u]);
        first = 0;
      }
    printf("], \"option\": ");
    json_string(r->option);
    printf(", \"accepts\": ");
    json_string(r->accepts);
    printf(", \"help\": ");
    json_string(r->help);
    printf("}%s\n", i + 1 < sb_setting_count ? "," : "");
  }
  printf("  ],\n  \"needs\": [\n");
  for (int i = 0; i < sb_setting_need_count; i++) {
    const sb_setting_need *n = &sb_setting_needs[i];
    printf("    {\"name\": ");
    json_string(n->name);
    printf(", \"above\": ");
    json_number(n->above);
    printf(", \"needs\": {");
    const char *p = n->needs, *item;
    size_t len, eq;
    /* VAR=VALUE is "VAR": "VALUE", VAR>X "VAR": ">X" (settings.def's rows all have the '=' or '>') */
    for (int k = 0; (len = sb_need_next(&p, &item, &eq)); k++) {
      int gt = item[eq] == '>';
      printf("%s\"%.*s\": \"%.*s\"", k ? ", " : "", (int)eq, item, (int)(len - eq - !gt), item + eq + !gt);
    }
    char said[512];
    printf("}, \"said\": ");
    json_string(sb_needs_said(n->needs, said, sizeof said));
    printf(", \"why\": ");
    json_string(n->why);
    printf("}%s\n", i + 1 < sb_setting_need_count ? "," : "");
  }
  printf("  ]\n}\n");
}

/* ---- Markdown ----------------------------------------------------------------- */
/* a default as the documentation states it: the build's own paths are
 * not the same on every machine */
static void doc_default(const sb_setting_row *r)
{
  if (!strcmp(r->dflt, SB_DEFAULT_MODEL))
    fputs("`$(pkgdatadir)/default.model`", stdout);
  else if (!strcmp(r->dflt, SB_DEFAULT_BACKEND))
    fputs("the OpenBLAS configure found", stdout);
  else if (!strcmp(r->dflt, SB_DEFAULT_LAT_FACTOR) || !strcmp(r->dflt, SB_DEFAULT_BW_FACTOR))
    fputs("SimGrid 3.32's", stdout);
  else if (*r->dflt)
    printf("`%s`", r->dflt);
}

/* text in a table cell */
static void cell(const char *s)
{
  for (; *s; s++)
    if (*s == '|')
      fputs("\\|", stdout);
    else
      putchar(*s);
}

static void markdown(void)
{
  puts("# Settings: the `SIMBLAS_*` environment variables\n");
  puts("<!-- generated from lib/settings.def by lib/mksettings --markdown (`make settings-doc`);");
  puts("     test/settings.sh fails when this page and the table differ: edit the table -->\n");
  puts("Every `SIMBLAS_*` variable is one row of `lib/settings.def`. libsimblas parses and");
  puts("checks its own once, at initialisation (`lib/settings.c`): a bad value stops the");
  puts("program before any work with one line naming the variable and what it accepts");
  puts("(exit status 2), and a `SIMBLAS_*` name that is no setting is warned about. An");
  puts("empty variable is an unset one. The same table, as JSON, is installed as");
  puts("`$(pkgdatadir)/settings.json` for the Python side. `simblas-hpl` sets most of");
  puts("libsimblas's variables itself from its options (last column but one;");
  puts("`doc/user-guide.md`, section 7).\n");
  const char *heads[] = {"libsimblas (and HPL's patches through it)", "simblas-hpl only", "the test suite only"};
  for (int u = 0; u < 3; u++) {
    printf("## Read by %s\n\n", heads[u]);
    puts("| variable | default | accepts | set by `simblas-hpl` | what it does |");
    puts("|---|---|---|---|---|");
    for (int i = 0; i < sb_setting_count; i++) {
      const sb_setting_row *r = &sb_setting_rows[i];
      int home = r->users & SB_LIB ? 0 : r->users & SB_TOOL ? 1 : 2; /* the section of its first reader */
      if (home != u)
        continue;
      printf("| `%s` | ", r->name);
      doc_default(r);
      fputs(" | ", stdout);
      cell(*r->accepts ? r->accepts : "text");
      fputs(" | ", stdout);
      if (*r->option)
        printf("`%s`", r->option);
      fputs(" | ", stdout);
      cell(r->help);
      if (r->users & ~(1 << u) & 7) { /* others read it too */
        fputs(" (also read by", stdout);
        for (int v = 0, first = 1; v < 3; v++)
          if (v != u && r->users & (1 << v)) {
            printf("%s %s", first ? "" : ",", users[v]);
            first = 0;
          }
        fputs(")", stdout);
      }
      puts(" |");
    }
    puts("");
  }
  puts("## What settings need of each other\n");
  puts("A setting set above the value given (any: set at all) needs the others as listed (`VAR=VALUE`: that");
  puts("text; `VAR>X`: a number above X, or above the variable X's); libsimblas stops");
  puts("otherwise, and `simblas-hpl` refuses the options that would set them so.\n");
  puts("| variable | above | needs | why |");
  puts("|---|---|---|---|");
  for (int i = 0; i < sb_setting_need_count; i++) {
    const sb_setting_need *n = &sb_setting_needs[i];
    if (n->above < 0) /* every value the row accepts (0 included) */
      printf("| `%s` | any | `%s` | ", n->name, n->needs);
    else
      printf("| `%s` | %g | `%s` | ", n->name, n->above, n->needs);
    cell(n->why);
    puts(" |");
  }
}

int main(int argc, char **argv)
{
  if (argc == 2 && !strcmp(argv[1], "--json"))
    json();
  else if (argc == 2 && !strcmp(argv[1], "--markdown"))
    markdown();
  else {
    fprintf(stderr, "usage: mksettings --json | --markdown\n");
    return 2;
  }
  return 0;
}
