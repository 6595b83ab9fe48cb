/*
 * parse_text.h -- for the unit tests of SimBLAS's file parsers (the model,
 * test_model.c; node files, test_node.c): a parser run on a text as if it
 * were a file, and the check that it refuses a text with the message
 * expected.  Include it after <cmocka.h>.
 */
#ifndef SB_TEST_PARSE_TEXT_H
#define SB_TEST_PARSE_TEXT_H

#include <stdio.h>
#include <string.h>

/* a parser: what it makes of F, or NULL with its message in ERR */
typedef void *(*text_parser)(FILE *f, char *err, size_t errlen);

/* PARSE run on TEXT */
static inline void *parse_text(text_parser parse, const char *text, char *err, size_t errlen)
{
  FILE *f = fmemopen((void *)text, strlen(text), "r");
  assert_non_null(f);
  void *made = parse(f, err, errlen);
  fclose(f);
  return made;
}

/* PARSE refuses TEXT with a message containing NEEDLE (WHAT names what it
 * makes, for the failure's message) */
static inline void expect_refused(text_parser parse, const char *what, const char *text, const char *needle)
{
  char err[512] = "";
  void *made = parse_text(parse, text, err, sizeof err);
  if (made || !strstr(err, needle))
    fail_msg("expected an error containing \"%s\", got %s%s\"%s\"", needle, made ? what : "", made ? " and " : "", err);
}

#endif
