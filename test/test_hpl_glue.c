/*
 * test_hpl_glue.c -- what hpl_simblas.h declares for HPL's patches and
 * lib/app/hpl.c implements: SimBLAS's pivots (a hash of the column,
 * uniform over the remaining rows), the thinned column's result, the
 * check after the combine (which stops the run, naming the column), and
 * the settings of the opt-in patches.  The merged rolls (lib/app/roll.c)
 * send messages: test/hpl-run.sh runs them through HPL.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "hpl_simblas.h"

static void pivot_in_remaining_rows(void **state)
{
  (void)state;
  for (int g = 0; g < 5000; g += 7) {
    int p = simblas_hpl_pivot(g, 5000);
    assert_true(p >= g && p < 5000);
    assert_int_equal(p, simblas_hpl_pivot(g, 5000)); /* every rank computes the same */
  }
  assert_int_equal(simblas_hpl_pivot(4999, 5000), 4999); /* the last column: itself */
  assert_int_equal(simblas_hpl_pivot(10, 10), 10);       /* none left: G */
}

/* columns 0..M-1 of an N-row matrix pick rows spread evenly over the
 * remaining ones, as a random matrix's pivots are: offset / (N - g) in ten
 * deciles, each within 25% of its share */
static void pivot_uniform(void **state)
{
  (void)state;
  const int n = 1000000, m = 20000;
  int dec[10] = {0};
  for (int g = 0; g < m; g++) {
    int p = simblas_hpl_pivot(g, n);
    dec[(int)(10.0 * (p - g) / (n - g))]++;
  }
  for (int i = 0; i < 10; i++)
    assert_true(dec[i] > m / 10 * 3 / 4 && dec[i] < m / 10 * 5 / 4);
}

/* the owner of global row G among P process rows, blocks of NB rows */
static int owner(int g, int nb, int p) { return (g / nb) % p; }

static void thinned_sets_the_owners_offer(void **state)
{
  (void)state;
  const int n = 100000, nb = 128, p = 7;
  for (int g = 0; g < 3000; g += 37) {
    int piv = simblas_hpl_pivot(g, n);
    for (int row = 0; row < p; row++) {
      double w[4] = {1.0, 5.0, row == owner(piv, nb, p) ? piv : -1, row};
      simblas_hpl_pivot_thinned(g, n, nb, row, p, w);
      assert_true(w[0] == 2.0);
      assert_int_equal((int)w[2], piv);
      assert_int_equal((int)w[3], owner(piv, nb, p));
      assert_true(w[1] == 5.0); /* the owner's local row: its own */
      simblas_hpl_pivot_check(g, n, nb, p, w); /* passes */
    }
  }
}

/* run F in a child; its exit status and the first line it wrote on stderr */
static int child(void (*f)(void), char *line, size_t size)
{
  int fd[2];
  assert_int_equal(pipe(fd), 0);
  pid_t pid = fork();
  assert_true(pid >= 0);
  if (pid == 0) {
    dup2(fd[1], 2);
    f();
    _exit(0);
  }
  close(fd[1]);
  FILE *in = fdopen(fd[0], "r");
  if (!fgets(line, (int)size, in))
    line[0] = '\0';
  fclose(in);
  int st;
  waitpid(pid, &st, 0);
  return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static void check_wrong_row(void)
{
  int piv = simblas_hpl_pivot(42, 10000);
  double w[4] = {2.0, 0.0, piv + 1, owner(piv + 1, 64, 4)};
  simblas_hpl_pivot_check(42, 10000, 64, 4, w);
}

static void thinned_not_offered(void)
{
  int piv = simblas_hpl_pivot(42, 10000);
  double w[4] = {1.0, 0.0, piv + 1, owner(piv, 64, 4)};
  simblas_hpl_pivot_thinned(42, 10000, 64, owner(piv, 64, 4), 4, w);
}

static void wrong_pivot_stops_the_run(void **state)
{
  (void)state;
  char line[512];
  assert_int_equal(child(check_wrong_row, line, sizeof line), 2);
  assert_non_null(strstr(line, "column 42's pivot search ended on row"));
  assert_int_equal(child(thinned_not_offered, line, sizeof line), 2);
  assert_non_null(strstr(line, "was not offered by its owner"));
}

/* main() set SIMBLAS_BLOCKING_WAITS=1 and SIMBLAS_ROLL_MERGE=0 */
static void opt_in_settings(void **state)
{
  (void)state;
  assert_int_equal(simblas_blocking_waits(), 1);
  assert_int_equal(simblas_roll_merge(), 1 << 20); /* 0: a whole roll */
}

int main(void)
{
  setenv("SIMBLAS_BLOCKING_WAITS", "1", 1);
  setenv("SIMBLAS_ROLL_MERGE", "0", 1);
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(pivot_in_remaining_rows),
      cmocka_unit_test(pivot_uniform),
      cmocka_unit_test(thinned_sets_the_owners_offer),
      cmocka_unit_test(wrong_pivot_stops_the_run),
      cmocka_unit_test(opt_in_settings),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
