/*
 * test_node.c -- node files alone (no SimGrid, no libsimblas): the split of
 * a model's terms by the resource that bounds them, a node's own kernel
 * lines, the accelerators' offload rules and how a call is shared with
 * the host, and the refusals (each names the line and, for an offload
 * without a rate, the routine).
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "node.h"
#include "parse_text.h"

#define assert_close(a, b, tol) assert_close_((a), (b), (tol), #a, __FILE__, __LINE__)
static void assert_close_(double a, double b, double tol, const char *what, const char *file, int line)
{
  if (!(fabs(a - b) <= tol * fabs(b)))
    fail_msg("%s:%d: %s = %.17g, expected %.17g", file, line, what, a, b);
}

static sb_model *model(void)
{
  static const char text[] = "simblas-model 1\n"
                             "reference-speed 4e10\n"
                             "dgemm mnk=5e-11 mn=2e-9 mk=1e-9 nk=1e-9 1=3e-6\n"
                             "dtrsm mnk=6e-11 1=4e-6\n"
                             "daxpy n=1e-9 1=5e-7\n"
                             "hpl_dlaswp01T mn=2e-9 1=1e-6\n"
                             "end\n";
  FILE *f = fmemopen((void *)text, sizeof text - 1, "r");
  char err[256];
  sb_model *m = sb_model_parse(f, "test.model", err, sizeof err);
  fclose(f);
  assert_non_null(m);
  return m;
}

static void *node_parser(FILE *f, char *err, size_t errlen) { return sb_node_parse(f, "test.node", err, errlen); }
static sb_node *node(const char *text, char *err, size_t errlen) { return parse_text(node_parser, text, err, errlen); }
static void expect_error(const char *text, const char *needle) { expect_refused(node_parser, "a node", text, needle); }

static sb_call call(const char *name, int64_t m, int64_t n, int64_t k, int variant)
{
  sb_call c = {.op = sb_op_lookup(name), .m = m, .n = n, .k = k, .variant = variant};
  assert_true(c.op >= 0);
  return c;
}

static double on_node(const sb_node *nd, const sb_model *m, sb_call c)
{
  return sb_node_time(nd, m, sb_model_coefs_v(m, 0, c.op, c.variant), &c).t;
}

/* each term divided by the scale of its resource; a node of scales 1 is
 * the model itself, to the bit */
static void test_split(void **state)
{
  (void)state;
  char err[256];
  sb_model *m = model();
  sb_node *one = node("simblas-node 1\nflops 1\nbandwidth 1\nend\n", err, sizeof err);
  assert_non_null(one);
  sb_node *nd = node("# a node twice as fast, half the bandwidth, calls cost 2x less\n"
                     "simblas-node 1\nname test node\nflops 2\nbandwidth 0.5\noverhead 2\nend\n",
                     err, sizeof err);
  assert_non_null(nd);
  assert_string_equal(sb_node_name(nd), "test node");
  sb_call g = call("dgemm", 1000, 300, 128, 0), a = call("daxpy", 0, 5000, 0, 0),
          s = call("hpl_dlaswp01T", 128, 4000, 0, 0);
  for (int i = 0; i < 3; i++) {
    sb_call c = i == 0 ? g : i == 1 ? a : s;
    assert_true(on_node(one, m, c) == sb_model_mean(m, sb_model_coefs(m, 0, c.op), &c));
  }
  /* dgemm: the flop term follows the flops, and by default mn, mk, nk
   * (C read and written, A and B packed) the bandwidth */
  double mnk = 1000.0 * 300 * 128, mn = 1000.0 * 300, mk = 1000.0 * 128, nk = 300.0 * 128;
  assert_close(on_node(nd, m, g), 5e-11 * mnk / 2 + (2e-9 * mn + 1e-9 * mk + 1e-9 * nk) / 0.5 + 3e-6 / 2, 1e-12);
  /* level 1 and HPL's swaps follow the bandwidth */
  assert_close(on_node(nd, m, a), 1e-9 * 5000 / 0.5 + 5e-7 / 2, 1e-12);
  assert_close(on_node(nd, m, s), 2e-9 * 128 * 4000 / 0.5 + 1e-6 / 2, 1e-12);
  assert_int_equal(sb_node_resource(nd, g.op, SB_TERM_MNK), SB_RES_FLOPS);
  assert_int_equal(sb_node_resource(nd, a.op, SB_TERM_N), SB_RES_BANDWIDTH);
  assert_int_equal(sb_node_resource(nd, a.op, SB_TERM_1), SB_RES_OVERHEAD);
  /* a routine the model lacks: its flop count, at the flop scale for level 3 */
  sb_call z = call("dsyrk", 400, 400, 200, 0);
  assert_close(on_node(nd, m, z), 400.0 * 400 * 200 / 4e10 / 2, 1e-12);
  sb_node_free(one);
  sb_node_free(nd);

  /* level3: a file may assign the terms otherwise */
  nd = node("simblas-node 1\nflops 2\nbandwidth 0.5\nlevel3 mn=flops nk=flops\nend\n", err, sizeof err);
  assert_non_null(nd);
  assert_close(on_node(nd, m, g), (5e-11 * mnk + 2e-9 * mn + 1e-9 * nk) / 2 + 1e-9 * mk / 0.5 + 3e-6, 1e-12);
  sb_node_free(nd);
  sb_model_free(m);
}

/* a host line replaces the model's line, unscaled (the node's own
 * measurement), pieces included */
static void test_host_lines(void **state)
{
  (void)state;
  char err[256];
  sb_model *m = model();
  sb_node *nd = node("simblas-node 1\nflops 10\nbandwidth 3\n"
                     "host dgemm mnk=1.029e-11 1=2.737e-2\n"
                     "host dgemm[mnk>=1e9] mnk=1e-11 1=3e-2\n"
                     "end\n",
                     err, sizeof err);
  assert_non_null(nd);
  assert_close(on_node(nd, m, call("dgemm", 100, 100, 100, 0)), 1.029e-11 * 1e6 + 2.737e-2, 1e-12);
  assert_close(on_node(nd, m, call("dgemm", 1000, 1000, 1000, 0)), 1e-11 * 1e9 + 3e-2, 1e-12);
  /* dtrsm has no host line: the model, scaled */
  assert_close(on_node(nd, m, call("dtrsm", 100, 50, 100, 0)), 6e-11 * 5e5 / 10 + 4e-6, 1e-12);
  sb_node_free(nd);
  sb_model_free(m);
}

/* MKL's automatic offload as measured on Stampede (share included: the
 * fits are the whole call): above the bounds the accel line, below the
 * host; busy time counted on the devices */
static void test_offload_included(void **state)
{
  (void)state;
  char err[256];
  sb_model *m = model();
  sb_node *nd = node("simblas-node 1\nflops 16\nbandwidth 4\n"
                     "host dgemm mnk=1.029e-11 1=2.737e-2\n"
                     "accelerators 1\n"
                     "accel dgemm mnk=1.981e-12 1=0.6316\n"
                     "accel dtrsm mnk=1.954e-12 1=0.5222\n"
                     "offload dgemm m>1280 n>1280 k>256\n"
                     "offload dtrsm m>512 n>512\n"
                     "share included\nend\n",
                     err, sizeof err);
  assert_non_null(nd);
  sb_call big = call("dgemm", 50000, 50000, 1024, 0), thin = call("dgemm", 50000, 50000, 256, 0);
  sb_node_cost c = sb_node_time(nd, m, sb_model_coefs(m, 0, big.op), &big);
  assert_true(c.offloaded);
  assert_close(c.t, 1.981e-12 * 50000.0 * 50000 * 1024 + 0.6316, 1e-12);
  assert_close(c.busy, c.t, 1e-12);
  sb_node_account(nd, &c);
  c = sb_node_time(nd, m, sb_model_coefs(m, 0, thin.op), &thin); /* k = 256 is not above 256 */
  assert_false(c.offloaded);
  assert_close(c.t, 1.029e-11 * 50000.0 * 50000 * 256 + 2.737e-2, 1e-12);
  sb_node_account(nd, &c);
  sb_call t = call("dtrsm", 1024, 50000, 1024, 0);
  assert_close(on_node(nd, m, t), 1.954e-12 * 1024.0 * 50000 * 1024 + 0.5222, 1e-12);
  double off, calls, busy;
  sb_node_totals(nd, &off, &calls, &busy);
  assert_close(off, 1, 0);
  assert_close(calls, 2, 0);
  assert_close(busy, 1.981e-12 * 50000.0 * 50000 * 1024 + 0.6316, 1e-12);
  char line[512];
  FILE *f = fmemopen(line, sizeof line, "w");
  sb_node_report(nd, f);
  fclose(f);
  assert_non_null(strstr(line, "simblas: node test.node: 1 of 2 modelled calls offloaded, accelerators busy"));
  sb_node_free(nd);
  sb_model_free(m);
}

/* a call split between host and devices: each gets whole columns, they
 * run at once, the devices' part pays the link */
static void test_offload_split(void **state)
{
  (void)state;
  char err[256];
  sb_model *m = model();
  const char *base = "simblas-node 1\nflops 1\nbandwidth 1\nhost dgemm mnk=1e-11\n"
                     "accel dgemm mnk=2e-12\noffload dgemm\nlink bandwidth=8e9 latency=1e-5\n";
  char text[512];
  snprintf(text, sizeof text, "%saccelerators 2\nshare 0.2\nend\n", base);
  sb_node *nd = node(text, err, sizeof err);
  assert_non_null(nd);
  sb_call g = call("dgemm", 1000, 1000, 500, 0);
  sb_node_cost c = sb_node_time(nd, m, sb_model_coefs(m, 0, g.op), &g);
  /* each device 400 columns, the host 200 */
  double dev = 2e-12 * 1000.0 * 400 * 500, link = 1e-5 + 8.0 * (1000.0 * 500 + 500.0 * 400 + 2 * 1000.0 * 400) / 8e9;
  double host = 1e-11 * 1000.0 * 200 * 500;
  assert_close(c.t, fmax(dev + link, host), 1e-12);
  assert_close(c.busy, 2 * dev, 1e-12);
  sb_node_free(nd);

  /* balanced: in proportion to the rates, so the two sides end together
   * (up to whole columns) */
  snprintf(text, sizeof text, "%saccelerators 1\nshare balanced\nend\n", base);
  assert_non_null(nd = node(text, err, sizeof err));
  sb_call big = call("dgemm", 20000, 20000, 1000, 0);
  c = sb_node_time(nd, m, sb_model_coefs(m, 0, big.op), &big);
  double th = 1e-11 * 20000.0 * 20000 * 1000, td_full = 2e-12 * 20000.0 * 20000 * 1000 +
                                                        1e-5 + 8.0 * (20000.0 * 1000 * 2 + 2 * 20000.0 * 20000) / 8e9;
  double alone = 1 / (1 / th + 1 / td_full);
  assert_true(c.t < 0.8 * fmin(th, td_full));
  assert_close(c.t, alone, 0.02);
  sb_node_free(nd);

  /* balanced with a device far slower than the host: its fair part is a
   * hundredth of a column, rounded down to none, not up to one column that
   * alone takes 1 s (the call ran 100 times longer than on the host alone) */
  assert_non_null(nd = node("simblas-node 1\nflops 1\nbandwidth 1\nhost dgemm mnk=1e-11\naccel dgemm mnk=1e-6\n"
                            "offload dgemm\nlink bandwidth=1e12 latency=1e-9\naccelerators 1\nshare balanced\nend\n",
                            err, sizeof err));
  sb_call sq = call("dgemm", 1000, 1000, 1000, 0);
  c = sb_node_time(nd, m, sb_model_coefs(m, 0, sq.op), &sq);
  assert_close(c.t, 1e-11 * 1e9, 1e-12);
  assert_close(c.busy + 1, 1, 0);
  sb_node_free(nd);

  /* share 1: all on the host, whatever the rule */
  snprintf(text, sizeof text, "%saccelerators 1\nshare 1\nend\n", base);
  assert_non_null(nd = node(text, err, sizeof err));
  c = sb_node_time(nd, m, sb_model_coefs(m, 0, g.op), &g);
  assert_close(c.t, 1e-11 * 1000.0 * 1000 * 500, 1e-12);
  assert_close(c.busy + 1, 1, 0);
  sb_node_free(nd);

  /* data on the device (rocHPL): no transfers; a level-2 routine runs whole on one device */
  assert_non_null(nd = node("simblas-node 1\nflops 1\nbandwidth 1\naccelerators 1\naccel dgemm mnk=2e-12\n"
                            "accel dgemv mn=1e-11 1=5e-6\noffload dgemm\noffload dgemv\nshare 0\nlink none\nend\n",
                            err, sizeof err));
  c = sb_node_time(nd, m, sb_model_coefs(m, 0, g.op), &g);
  assert_close(c.t, 2e-12 * 1000.0 * 1000 * 500, 1e-12);
  sb_call v = call("dgemv", 3000, 200, 0, 0);
  assert_close(on_node(nd, m, v), 1e-11 * 3000.0 * 200 + 5e-6, 1e-12);
  sb_node_free(nd);
  sb_model_free(m);
}

/* what crosses the link and when (Intel's hybrid offload HPL of 2013,
 * doc/hindcast.md): c=out leaves a gemm's C in host memory (A and B go in,
 * the device's product comes out, the host adds it into C: 24 bytes an
 * element at `merge`), overlap=yes pipelines the transfers with the
 * device's compute.  The figures below are worked by hand. */
static void test_offload_link(void **state)
{
  (void)state;
  char err[256];
  sb_model *m = model();
  const char *base = "simblas-node 1\nflops 1\nbandwidth 1\nhost dgemm mnk=1e-8\naccel dgemm mnk=2e-9\n"
                     "accel dtrsm mnk=2e-9\noffload dgemm\noffload dtrsm\naccelerators 1\n";
  char text[512];
  sb_call g = call("dgemm", 1000, 1000, 500, 0);
  /* all on the device: compute 2e-9 * 1000 * 1000 * 500 = 1 s; A and B
   * (500,000 elements each) in, the product (1,000,000) out: 16 MB at
   * 10 MB/s = 1.6 s; the host adds the product into C: 24 MB at 24 GB/s = 1 ms */
  const struct {
    const char *link;
    double t;
  } cases[] = {
      {"bandwidth=1e7 latency=1e-5 c=out merge=2.4e10 overlap=yes", 1e-5 + 1.6}, /* the longer of 1 s and 1.6 s */
      {"bandwidth=1e7 latency=1e-5 c=out merge=2.4e10 overlap=no", 1e-5 + 1.6 + 1.0},
      {"bandwidth=1e7 latency=1e-5 c=out merge=2.4e10", 1e-5 + 1.6 + 1.0}, /* overlap=no is the default */
      {"bandwidth=1e7 latency=1e-5 c=inout overlap=yes", 1e-5 + 2.4},      /* C in and out: 24 MB */
      {"bandwidth=1e9 latency=1e-5 c=out merge=2.4e10 overlap=yes", 1e-5 + 1.0}, /* 16 ms of transfers, hidden */
      {"bandwidth=1e9 latency=1e-5 c=out merge=1e6 overlap=yes", 24.0}, /* the host's merge, 24 MB at 1 MB/s */
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    snprintf(text, sizeof text, "%sshare 0\nlink %s\nend\n", base, cases[i].link);
    sb_node *nd = node(text, err, sizeof err);
    assert_non_null(nd);
    sb_node_cost c = sb_node_time(nd, m, sb_model_coefs(m, 0, g.op), &g);
    assert_close(c.t, cases[i].t, 1e-12);
    assert_close(c.busy, 1.0, 1e-12); /* the device's compute, not the link */
    sb_node_free(nd);
  }

  /* a trsm's B is read and written: c=out changes nothing for it.  dtrsm
   * Left 1000 x 2000 (triangle 1000 x 1000): compute 2e-9 * 1000^2 *
   * 2000 = 4 s; the triangle in, B in and out: 5,000,000 elements, 40 MB at
   * 1 GB/s = 40 ms, hidden */
  snprintf(text, sizeof text, "%sshare 0\nlink bandwidth=1e9 latency=1e-5 c=out merge=1e6 overlap=yes\nend\n", base);
  sb_node *nd = node(text, err, sizeof err);
  assert_non_null(nd);
  assert_close(on_node(nd, m, call("dtrsm", 1000, 2000, 1000, 0)), 1e-5 + 4.0, 1e-12);
  sb_node_free(nd);

  /* balanced, with the merge: the host's columns plus the merge of the
   * devices' end with the devices'.  dgemm 1000 x 10000 x 100: the host
   * alone 1e-8 * 1e9 = 10 s, the device alone 2 s (its transfers, 80.8 MB
   * at 1 TB/s, hidden), the merge of all of C 240 MB at 240 MB/s = 1 s:
   * s = (2 - 1) / (10 + 2 - 1) (latency aside) = 0.0909, the device 9,091
   * columns (1.8182 s), the host 909 (0.909 s) and the merge of 9,091
   * (0.9091 s) */
  snprintf(text, sizeof text, "%sshare balanced\nlink bandwidth=1e12 latency=1e-5 c=out merge=2.4e8 overlap=yes\nend\n",
           base);
  assert_non_null(nd = node(text, err, sizeof err));
  sb_call wide = call("dgemm", 1000, 10000, 100, 0);
  sb_node_cost c = sb_node_time(nd, m, sb_model_coefs(m, 0, wide.op), &wide);
  assert_close(c.t, 1e-5 + 2e-9 * 1000.0 * 9091 * 100, 1e-12);
  assert_close(c.busy, 2e-9 * 1000.0 * 9091 * 100, 1e-12);
  sb_node_free(nd);
  /* the same without the merge (c=inout, C's transfers hidden too): in
   * proportion to the rates, s = 2 / 12, the device 8,334 columns */
  snprintf(text, sizeof text, "%sshare balanced\nlink bandwidth=1e12 latency=1e-5 c=inout overlap=yes\nend\n", base);
  assert_non_null(nd = node(text, err, sizeof err));
  c = sb_node_time(nd, m, sb_model_coefs(m, 0, wide.op), &wide);
  assert_close(c.t, 1e-5 + 2e-9 * 1000.0 * 8334 * 100, 1e-12);
  sb_node_free(nd);
  /* a merge slower than the host's own compute: all on the host */
  snprintf(text, sizeof text, "%sshare balanced\nlink bandwidth=1e12 latency=1e-5 c=out merge=1e7 overlap=yes\nend\n",
           base);
  assert_non_null(nd = node(text, err, sizeof err));
  c = sb_node_time(nd, m, sb_model_coefs(m, 0, wide.op), &wide);
  assert_close(c.t, 10.0, 1e-12);
  assert_close(c.busy + 1, 1, 0);
  sb_node_free(nd);
  sb_model_free(m);
}

/* a composed time is bounded as the model's predictions are
 * (SB_MODEL_MAX_SECONDS): the link's and the merge's parts were not, so a
 * link of bandwidth=1e-300 (or merge=1e-300) gave a dgemm of 1000^3 an
 * infinite time, and a link of 8 GB/s a dgemm of (2^31-1)^3 1.0001e14 s
 * (found by test/fuzz/fuzz_node.c) */
static void test_offload_bounded(void **state)
{
  (void)state;
  char err[256];
  sb_model *m = model();
  const char *base = "simblas-node 1\nflops 1\nbandwidth 1\nhost dgemm mnk=1e-11\naccel dgemm mnk=2e-12\n"
                     "offload dgemm\naccelerators 2\n";
  const char *const tails[] = {"share 0\nlink bandwidth=1e-300 latency=1e-5\nend\n",
                               "share 0.5\nlink bandwidth=1e9 latency=1e-5 c=out merge=1e-300\nend\n",
                               "share balanced\nlink bandwidth=1e-300 latency=1e-5 c=out merge=1e-300\nend\n",
                               "share 0.2\nlink bandwidth=8e9 latency=1e-5\nend\n",
                               "share 0\nlink bandwidth=1e9 latency=1e308\nend\n"};
  const int64_t max = INT64_C(2147483647);
  const int64_t sizes[][3] = {{1000, 1000, 1000}, {max, max, max}, {1, max, 1}};
  char text[512];
  for (size_t i = 0; i < sizeof tails / sizeof *tails; i++) {
    snprintf(text, sizeof text, "%s%s", base, tails[i]);
    sb_node *nd = node(text, err, sizeof err);
    assert_non_null(nd);
    for (size_t j = 0; j < sizeof sizes / sizeof *sizes; j++) {
      sb_call g = call("dgemm", sizes[j][0], sizes[j][1], sizes[j][2], 0);
      sb_node_cost c = sb_node_time(nd, m, sb_model_coefs(m, 0, g.op), &g);
      if (!(isfinite(c.t) && c.t >= 0 && c.t <= SB_MODEL_MAX_SECONDS && isfinite(c.busy) && c.busy >= 0 &&
            c.busy <= 2 * c.t))
        fail_msg("tails[%zu]: dgemm (%lld, %lld, %lld): t = %.17g, busy = %.17g", i, (long long)g.m, (long long)g.n,
                 (long long)g.k, c.t, c.busy);
    }
    sb_node_free(nd);
  }
  sb_model_free(m);
}

static void test_refused(void **state)
{
  (void)state;
  expect_error("simblas-model 1\nend\n", "test.node:1: not a SimBLAS node file");
  expect_error("", "test.node: empty node file");
  expect_error("simblas-node 1\nflops 2\nend\n", "no 'bandwidth' line");
  expect_error("simblas-node 1\nflops 2\nbandwidth 1\n", "no 'end' line");
  expect_error("simblas-node 1\nflops -2\nbandwidth 1\nend\n", "test.node:2: 'flops' needs a positive number");
  expect_error("simblas-node 1\nflops 2\nflops 3\nbandwidth 1\nend\n", "test.node:3: second 'flops' line");
  expect_error("simblas-node 1\nflops 2\nbandwidth 1\nhost dgemm mnq=1\nend\n",
               "test.node:4: unknown term 'mnq' for dgemm");
  expect_error("simblas-node 1\nflops 2\nbandwidth 1\nhost set core0\nend\n", "test.node:4: 'host' needs a model line");
  expect_error("simblas-node 1\nflops 2\nbandwidth 1\nlevel3 mn=memory\nend\n", "bad level3 assignment 'mn=memory'");
  expect_error("simblas-node 1\nflops 2\nbandwidth 1\nwarp 9\nend\n", "test.node:4: unknown directive 'warp'");
  /* an offload without a rate names the routine */
  expect_error("simblas-node 1\nflops 2\nbandwidth 1\naccelerators 1\naccel dgemm mnk=1e-12\noffload dgemm\n"
               "offload dtrsm m>512\nshare included\nend\n",
               "test.node:7: offload dtrsm, but the accelerator has no rate for dtrsm");
  expect_error("simblas-node 1\nflops 2\nbandwidth 1\naccelerators 1\naccel dgemm mnk=1e-12\nshare included\nend\n",
               "test.node:5: 'accel dgemm' without an offload rule");
  expect_error("simblas-node 1\nflops 2\nbandwidth 1\naccel dgemm mnk=1e-12\noffload dgemm\nshare 0.5\n"
               "link bandwidth=1e9 latency=1e-6\nend\n",
               "no 'accelerators N' line");
  expect_error("simblas-node 1\nflops 2\nbandwidth 1\naccelerators 1.5\nend\n", "whole number of devices");
  expect_error("simblas-node 1\nflops 2\nbandwidth 1\naccelerators 1\naccel dgemm mnk=1e-12\noffload dgemm\n"
               "share 0.5\nend\n",
               "no 'link' line");
  expect_error("simblas-node 1\nflops 2\nbandwidth 1\naccelerators 1\naccel dgemm mnk=1e-12\noffload dgemm\n"
               "share included\nlink bandwidth=1e9 latency=1e-6\nend\n",
               "test.node:8: 'share included' says the accel lines already include the transfers");
  expect_error("simblas-node 1\nflops 2\nbandwidth 1\naccelerators 1\naccel dgemv mn=1e-12\noffload dgemv\n"
               "share 0.5\nlink none\nend\n",
               "offload dgemv: a gemv call is not split");
  /* the Right side's rate alone: a Left-side dtrsm was offloaded and timed by the accel lines' flop-count
   * fallback, at 1 flop/s (dtrsm 384 x 384: 147456 s; found by test/fuzz/fuzz_node.c) */
  expect_error("simblas-node 1\nflops 2\nbandwidth 1\naccelerators 1\naccel dtrsm.right mnk=3e-9\noffload dtrsm m>24\n"
               "share balanced\nlink bandwidth=1e12 latency=1e-5\nend\n",
               "test.node:6: offload dtrsm, but the accelerator has a rate for dtrsm.right only");
  expect_error("simblas-node 1\nflops 2\nbandwidth 1\nshare 1.5\nend\n", "'share' is the host's part");
  expect_error("simblas-node 1\nflops 2\nbandwidth 1\naccelerators 1\nend\n",
               "test.node:4: 'accelerators' without any offload rule");
  expect_error("simblas-node 1\nflops 2\nbandwidth 1\nlink bandwidth=8e9\nend\n", "needs both bandwidth");
  /* what crosses the link: each option once, with its value; c=out needs the host's merge bandwidth */
  expect_error("simblas-node 1\nflops 2\nbandwidth 1\nlink bandwidth=8e9 latency=1e-5 c=out\nend\n",
               "test.node:4: 'link' c=out: the host adds each device's product into C; give merge=BYTES_PER_S");
  expect_error("simblas-node 1\nflops 2\nbandwidth 1\nlink bandwidth=8e9 latency=1e-5 merge=6e10\nend\n",
               "'link' merge= is the host's cost of adding the devices' products into C, which only c=out has");
  expect_error("simblas-node 1\nflops 2\nbandwidth 1\nlink bandwidth=8e9 latency=1e-5 c=both\nend\n",
               "'link' c=both: write c=inout or c=out");
  expect_error("simblas-node 1\nflops 2\nbandwidth 1\nlink bandwidth=8e9 latency=1e-5 overlap=1\nend\n",
               "'link' overlap=1: write overlap=no or overlap=yes");
  expect_error("simblas-node 1\nflops 2\nbandwidth 1\nlink bandwidth=8e9 latency=1e-5 overlap=yes overlap=no\nend\n",
               "'link' gives overlap twice");
  expect_error("simblas-node 1\nflops 2\nbandwidth 1\nlink bandwidth=8e9 latency=1e-5 c=out merge=0\nend\n",
               "'link' merge=0: a bandwidth is a number of bytes/s > 0");
  expect_error("simblas-node 1\nflops 2\nbandwidth 1\nlink bandwidth=8e9 latency=1e-5 pipelined\nend\n",
               "not 'pipelined'");
  expect_error("simblas-node 1\nflops 2\nbandwidth 1\noffload dgemm m=12\nend\n", "bad offload bound 'm=12'");
  expect_error("simblas-node 1\nflops 2\nbandwidth 1\nend\nflops 3\n", "test.node:5: text after the 'end' line");
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_split),          cmocka_unit_test(test_host_lines), cmocka_unit_test(test_offload_included),
      cmocka_unit_test(test_offload_split), cmocka_unit_test(test_offload_link), cmocka_unit_test(test_offload_bounded),
      cmocka_unit_test(test_refused),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
