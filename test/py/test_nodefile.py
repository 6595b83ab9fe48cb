"""Node files (tools/simblas_hpl/nodefile.py): the shipped ones read and
refused or composed as doc/hindcast.md fixes them, each refusal naming the
key (or, for an accelerator, the routine), and `run --node` writing the
node file libsimblas reads (SIMBLAS_NODE).  When the build tree is there
(SB_BUILDDIR), the composed text is read by libsimblas itself and its
predictions checked against the composition's arithmetic."""

import contextlib
import io
import os
import re
import shutil
import subprocess
import textwrap
import unittest
from unittest import mock

from support import SRC, Sandbox
from simblas_hpl import nodefile
from simblas_hpl.errors import CliError

NODES = os.path.join(SRC, "examples", "nodes")
REFERENCE = """\
schema = "simblas-node/0.1"
name = "the calibration node"
[cpu]
cores = { value = 2, kind = "measured", source = "probe" }
peak_gflops_per_core = { value = 50.0, kind = "measured", source = "probe" }
stream_gbs = { value = 28.0, kind = "measured", source = "probe" }
"""
MODEL = """\
simblas-model 1
reference-speed 4e10
dgemm mnk=5e-11 mn=2e-9 mk=1e-9 nk=1e-9 1=3e-6
dtrsm mnk=6e-11 1=4e-6
daxpy n=1e-9 1=5e-7
end
"""

# a node whose accelerator runs every dgemm ("always", host_share 0), for
# what crosses its link (accelerator.link.c, .overlap: FLOW)
LINKED = """\
schema = "simblas-node/0.1"
[cpu]
cores = 16
speed_relative = 1
{bw}
[[accelerator]]
count = {count}
dgemm = {{ model = "linear", term = "MNK", alpha = 1e-13 }}
{extra}
link = {{ bandwidth_gbs = 10, latency_us = 5, {flow} }}
[accelerator.offload]
policy = "always"
host_share = 0
{offload}
"""


def linked(flow, bw="stream_gbs = 40", count=2, extra="", offload=""):
    return LINKED.format(flow=flow, bw=bw, count=count, extra=extra, offload=offload)


# a node with one accelerator, with a rate for each of ROUTINES
ACCELERATED = """\
schema = "simblas-node/0.1"
[cpu]
cores = 16
speed_relative = 1
bandwidth_relative = 1
[[accelerator]]
count = 1
link = {{ bandwidth_gbs = 10, latency_us = 5 }}
{rates}
"""


def accelerated(routines):
    return ACCELERATED.format(rates="\n".join(f'{x} = {{ model = "linear", term = "MNK", alpha = 1e-13 }}'
                                               for x in routines))


def resident(routines):
    """The accelerator holds the matrix (matrix_resident: it must run every
    routine HPL calls) and runs all of them."""
    return accelerated(routines) + 'matrix_resident = true\n[accelerator.offload]\npolicy = "always"\nhost_share = 0\n'


class Compose(Sandbox):
    def setUp(self):
        super().setUp()
        self.model = self.path("cal.model")
        with open(self.model, "w") as f:
            f.write(MODEL)
        with open(self.model + ".node.toml", "w") as f:
            f.write(REFERENCE)

    def node(self, text, name="n.toml"):
        p = self.path(name)
        with open(p, "w") as f:
            f.write(textwrap.dedent(text))
        return p

    def compose(self, path, **kw):
        return nodefile.compose(path, self.model, **kw)

    def refused(self, pattern, path, **kw):
        with self.assertRaisesRegex(CliError, pattern):
            self.compose(path, **kw)

    def test_theta(self):
        err = io.StringIO()
        with contextlib.redirect_stderr(err):
            c = self.compose(os.path.join(NODES, "theta-knl7230.toml"))
        s = c.summary
        # scaled by peaks, dgemm keeps this machine's share of its peak: 4e10 flop/s of 50 Gflop/s, said
        self.assertAlmostEqual(s["dgemm_fraction_of_peak"], 0.8)
        self.assertIn("theta-knl7230.toml: the CPU's dgemm composed at 80% of its peak, the share this machine's "
                      "BLAS reaches of its own (40 of 50 Gflop/s per core, cal.model and its probe); if the target's "
                      "BLAS reaches another share, give its measured rate as cpu.dgemm", err.getvalue())
        # 64 cores at 41.6 against the reference's 50 per core; STREAM 88.4 against 28 / 2 cores
        self.assertAlmostEqual(s["flops"], 64 * 41.6 / 50.0)
        self.assertAlmostEqual(s["bandwidth"], 88.4 / (28.0 / 2))
        self.assertAlmostEqual(s["overhead"], 41.6 / 50.0)
        self.assertEqual(s["proxy"], ["cpu.stream_gbs"])
        self.assertIn(f"flops {64 * 41.6 / 50.0!r}", c.text.splitlines())
        self.assertEqual(c.text.splitlines()[-1], "end")
        self.assertIsNone(s["accelerators"])
        # a node with its own measured dgemm: nothing transferred, nothing said
        err = io.StringIO()
        with contextlib.redirect_stderr(err):
            own = self.compose(os.path.join(NODES, "dahu-g5k-dgemm.toml")).summary
        self.assertTrue(any(ln.startswith("dgemm ") for ln in own["host_lines"]))
        self.assertIsNone(own["dgemm_fraction_of_peak"])
        self.assertNotIn("composed at", err.getvalue())
        # two ranks per node: each half the node
        self.assertAlmostEqual(self.compose(os.path.join(NODES, "theta-knl7230.toml"), ranks_per_node=2)
                               .summary["flops"], 32 * 41.6 / 50.0)

    def test_stampede_needs_its_missing_figures(self):
        # the base file: the offload split and the link were not found
        self.refused(r"accelerator\.0\.offload\.host_share is missing \(MKL splits an offloaded call.*this run "
                     r"needs it", os.path.join(NODES, "stampede-2013.toml"))
        # the state of the art's node: the 2017 fits, transfers and host part included
        v = self.node(f"""\
            base = "{os.path.join(NODES, 'stampede-2013.toml')}"
            variant = "S-AO"
            [[accelerator]]
            [accelerator.offload]
            rates_include_host = true
            """)
        c = self.compose(v)
        lines = c.text.splitlines()
        self.assertIn("host dgemm mnk=1.029e-11 1=0.02737", lines)
        self.assertIn("host dtrsm mnk=9.882e-12 1=0.04329", lines)
        self.assertIn("accel dgemm mnk=1.981e-12 1=0.6316", lines)
        self.assertIn("accel dtrsm mnk=1.954e-12 1=0.5222", lines)
        self.assertIn("offload dgemm m>1280 n>1280 k>256", lines)
        self.assertIn("offload dtrsm m>512 n>512", lines)
        self.assertIn("share included", lines)
        self.assertFalse(any(ln.startswith("link") for ln in lines))
        self.assertEqual(c.summary["variant"], "S-AO")
        self.assertEqual(c.summary["proxy"], ["cpu.stream_gbs"])
        # the power was not found: --energy node says which figure
        self.refused(r"power\.idle_w is missing \(not found\)", v, energy="node")

    def test_shipped_files(self):
        """Every shipped node file composes, or is refused for the figure its
        inputs section says was not found; only variant files (with a base)
        hold assumed figures."""
        expected = {"stampede-2013.toml": r"accelerator\.0\.offload\.host_share is missing",
                    "dahu-g5k.toml": r"cpu\.mem_bw_gbs is missing",
                    "frontier-mi250x.toml": r"cpu\.peak_gflops_per_core is missing"}
        names = sorted(n for n in os.listdir(NODES) if n.endswith(".toml"))
        self.assertGreaterEqual(len(names), 7)
        for name in names:
            with self.subTest(name=name):
                path = os.path.join(NODES, name)
                if name in expected:
                    self.refused(expected[name], path)
                    continue
                c = self.compose(path)
                self.assertTrue(c.text.endswith("end\n"))
                with open(path, "rb") as f:
                    if "base" not in nodefile.tomllib.load(f):
                        self.assertEqual(c.summary["assumed"], [])
        hw = self.compose(os.path.join(NODES, "stampede-2013-hw.toml"))
        lines = hw.text.splitlines()
        self.assertFalse(any(ln.startswith("host ") for ln in lines))  # cpu fits omitted
        self.assertIn("share balanced", lines)
        self.assertIn("link bandwidth=8000000000.0 latency=1e-05", lines)
        self.assertIn("accel dgemm mnk=2.0704e-12", lines)  # the variant's rate whole: no base intercept
        self.assertEqual(hw.summary["assumed"], ["accelerator.0.dtrsm", "accelerator.0.link.latency_us",
                                                 "accelerator.0.offload.host_share"])
        # S-HY: S-HW with the hybrid offload's data movement; the merge at the node's STREAM proxy, 64.5 GB/s
        hy = self.compose(os.path.join(NODES, "stampede-2013-hy.toml"))
        self.assertEqual([ln for ln in hy.text.splitlines() if ln != "link bandwidth=8000000000.0 latency=1e-05 "
                          "c=out merge=64500000000.0 overlap=yes"], [ln for ln in lines if not ln.startswith("link")])
        self.assertEqual(hy.summary["variant"], "S-HY")
        self.assertEqual(hy.summary["accelerators"]["link"], {"c": "out", "overlap": True, "merge_gbs": 64.5})
        self.assertEqual(hy.summary["assumed"], hw.summary["assumed"])
        dg = self.compose(os.path.join(NODES, "dahu-g5k-dgemm.toml"), ranks_per_node=32)
        self.assertIn("host dgemm mnk=6.74e-11", dg.text.splitlines())  # per core, one core a rank
        self.assertAlmostEqual(dg.summary["flops"], 60.8 / 50.0)

    def test_refusals_name_the_key(self):
        self.refused(r"--node .*: cpu\.mem_bw_gbs is missing \(not looked up\), and this run needs it",
                     os.path.join(NODES, "dahu-g5k.toml"))
        both = self.node("""\
            schema = "simblas-node/0.1"
            [cpu]
            cores = 8
            speed_relative = { value = 1.2, kind = "assumed" }
            peak_gflops_per_core = { value = 30, kind = "nominal" }
            stream_gbs = 40
            """)
        self.refused(r"cpu\.speed_relative and cpu\.peak_gflops_per_core are both given", both)
        none = self.node('schema = "simblas-node/0.1"\n[cpu]\ncores = 8\nstream_gbs = 40\n')
        self.refused(r"cpu\.peak_gflops_per_core is not given, and this run needs it", none)
        self.refused(r"schema is 'x'", self.node('schema = "x"\n'))
        self.refused(r"not a TOML file", self.node("[cpu\n"))
        self.refused(r"at most one rank per core", self.node(
            'schema = "simblas-node/0.1"\n[cpu]\ncores = 2\nspeed_relative = 1\nbandwidth_relative = 1\n'),
            ranks_per_node=4)
        bad_kind = self.node('schema = "simblas-node/0.1"\n[cpu]\ncores = {value = 2, kind = "guess"}\n')
        self.refused(r"cpu\.cores has kind 'guess'", bad_kind)
        # absolute figures need the calibrated node's
        os.unlink(self.model + ".node.toml")
        self.refused(r"cal\.model\.node\.toml does not exist: run `simblas-probe -o",
                     os.path.join(NODES, "theta-knl7230.toml"))

    def test_resident_accelerator_runs_what_the_op_table_marks_hpl(self):
        # the routines HPL calls are lib/blas.def's rows marked HPL (the build's ops.json), level 3 first: an
        # accelerator that holds the matrix and lacks a rate for any one of them is refused, naming it
        hpl = nodefile.hpl_routines()
        self.assertEqual(hpl[:2], ["dgemm", "dtrsm"])
        self.assertIn("idamax", hpl)  # (an index function: i, then the precision)
        for gone in hpl:
            with self.subTest(routine=gone):
                self.refused(rf"the accelerator has no rate for {gone} \(accelerator\.0\.{gone}\), and the "
                             "matrix lives on it", self.node(resident([x for x in hpl if x != gone]), f"{gone}.toml"))
        c = self.compose(self.node(resident(hpl)))
        self.assertEqual([ln.split()[1] for ln in c.text.splitlines() if ln.startswith("offload ")], hpl)

    def test_op_table_missing_refused_saying_where_it_is(self):
        # no ops.json (SIMBLAS_DATADIR names a directory with the settings table only, nothing installed): a node
        # file that needs the routines HPL calls is refused in one line saying what is missing and the remedy;
        # one without an accelerator does not need it
        dd = self.path("share")
        os.makedirs(dd)
        shutil.copy(os.path.join(os.environ["SIMBLAS_DATADIR"], "settings.json"), dd)
        with mock.patch.dict(os.environ, {"SIMBLAS_DATADIR": dd}), \
                mock.patch("simblas_hpl.locations.installed", return_value=None):
            self.refused(r"^cannot find SimBLAS's op table \(ops\.json\): install SimBLAS \(make install\), or "
                         r"set SIMBLAS_DATADIR to the directory holding it \(a build tree\)$",
                         self.node(resident(["dgemm"])))
            err = io.StringIO()
            with contextlib.redirect_stderr(err):
                self.compose(os.path.join(NODES, "theta-knl7230.toml"))

    def test_accelerator_without_a_rate_says_which_routine(self):
        base = accelerated(["dgemm"])
        others = ", ".join(x for x in nodefile.hpl_routines() if x != "dgemm")
        self.refused(rf"no rate for {others} \(accelerator\.0\.dtrsm\), and the matrix lives on it",
                     self.node(resident(["dgemm"])))
        listed = self.node(base + "[accelerator.offload]\npolicy = \"always\"\nroutines = [\"dgemm\", \"dtrsm\"]\n"
                           "host_share = 0.25\n")
        self.refused(r"no rate for dtrsm \(accelerator\.0\.dtrsm\), and it offloads them", listed)
        # the Right side's rate alone (MN2): libsimblas timed the Left-side calls at 1 flop/s, now refuses it
        right = self.node(base + 'dtrsm = { model = "linear", term = "MN2", alpha = 1e-13 }\n'
                          '[accelerator.offload]\npolicy = "always"\nhost_share = 0.25\n', "right.toml")
        self.refused(r"accelerator\.0\.dtrsm is the Right side's rate only \(term MN2\), and the accelerator runs "
                     r"dtrsm's Left-side calls too", right)
        ok = self.node(base + "[accelerator.offload]\npolicy = \"always\"\nhost_share = 0.25\n")
        c = self.compose(ok)
        self.assertIn("accel dgemm mnk=1e-13", c.text)
        self.assertIn("offload dgemm", c.text.splitlines())
        self.assertIn("share 0.25", c.text.splitlines())
        self.assertIn("link bandwidth=10000000000.0 latency=5e-06", c.text.splitlines())
        two = self.node(base.replace("count = 1", "count = 3") + "[accelerator.offload]\npolicy = \"always\"\n"
                        "host_share = 0.25\n", "two.toml")
        self.refused(r"count is 3 for 2 rank\(s\) per node", two, ranks_per_node=2)
        self.refused(r"accelerator\.0\.offload\.dgemm_min is not given, and policy \"threshold\" needs",
                     self.node(base + "[accelerator.offload]\nhost_share = 0.5\n", "t.toml"))

    def test_routines_are_the_op_tables(self):
        # a name libsimblas does not model stopped it at the generated simblas.node once the simulation had
        # started; the node file is refused at composition, naming the key
        base = accelerated(["dgemm"])
        offload = "[accelerator.offload]\npolicy = \"always\"\nhost_share = 0.25\n"
        self.refused(r"^--node .*: accelerator\.0\.offload\.routines names 'dfoo', which is no BLAS routine: give a "
                     r"routine libsimblas models, by its model name \(dgemm, dtrsm, idamax, \.\.\.: the op table",
                     self.node(base + offload + 'routines = ["dgemm", "dfoo"]\n', "foo.toml"))
        self.refused(r"accelerator\.0\.offload\.routines names dgemm more than once",
                     self.node(base + offload + 'routines = ["dgemm", "dgemm"]\n', "twice.toml"))
        self.refused(r"accelerator\.0\.offload\.routines names 'dtrsm\.right', which is no BLAS routine",
                     self.node(base + offload + 'routines = ["dtrsm.right"]\n', "right.toml"))
        self.refused(r"accelerator\.0\.dgem is a rate model, and 'dgem' is no BLAS routine",
                     self.node(base.replace("dgemm =", "dgem =") + offload, "typo.toml"))
        self.refused(r"accelerator\.0\.offload\.dgem_min bounds 'dgem', which is no BLAS routine",
                     self.node(base + "[accelerator.offload]\nhost_share = 0.25\ndgem_min = { m = 1000 }\n",
                               "min.toml"))
        # the shipped files name routines of the table
        for name in sorted(os.listdir(NODES)):
            doc = nodefile.NodeDoc(os.path.join(NODES, name))
            for a in range(len(doc.raw("accelerator") or [])):
                nodefile.check_routines(doc, f"accelerator.{a}")

    def test_link_flow(self):
        """What crosses the link and when (accelerator.link.c, .overlap):
        the options of the `link` line, each refusal naming the key."""
        def node(flow, name, **kw):
            return self.node(linked(flow, **kw), name)

        # two ranks per node: each has one device and half the node's 40 GB/s for its merge
        c = self.compose(node('c = { value = "out", kind = "derived" }, overlap = true', "f.toml"), ranks_per_node=2)
        self.assertIn("link bandwidth=10000000000.0 latency=5e-06 c=out merge=20000000000.0 overlap=yes",
                      c.text.splitlines())
        self.assertEqual(c.summary["accelerators"]["link"], {"c": "out", "overlap": True, "merge_gbs": 20.0})
        # the defaults: C in and out, one after the other
        c = self.compose(node('c = "inout", overlap = false', name="d.toml"))
        self.assertIn("link bandwidth=10000000000.0 latency=5e-06", c.text.splitlines())
        # a relative bandwidth: the merge from the calibrated node's STREAM per core (28 GB/s / 2) times 1.5 x 8 cores
        c = self.compose(node('c = "out"', bw="bandwidth_relative = 1.5", name="r.toml"), ranks_per_node=2)
        self.assertIn(f"link bandwidth=10000000000.0 latency=5e-06 c=out merge={1.5 * 8 * 14.0 * 1e9!r}",
                      c.text.splitlines())
        self.refused(r"accelerator\.0\.link\.c is 'both': \"inout\" .* or \"out\"", node('c = "both"', name="b.toml"))
        self.refused(r"accelerator\.0\.link\.overlap is 'yes': true \(the transfers are pipelined",
                     node('overlap = "yes"', name="o.toml"))
        self.refused(r"accelerator\.0\.link\.c is given, but accelerator\.0\.matrix_resident = true says the matrix "
                     r"lives on the device", node('c = "out"', extra="matrix_resident = true\ndtrsm = { model = "
                                                  '"linear", term = "M2N", alpha = 1e-13 }', offload='routines = '
                                                  '["dgemm", "dtrsm"]', name="m.toml"))
        self.refused(r"accelerator\.0\.link\.overlap is given, but accelerator\.0\.offload\.rates_include_host",
                     node("overlap = true", offload="rates_include_host = true", name="i.toml"))

    def test_fits_per_node_and_curves(self):
        p = self.node("""\
            schema = "simblas-node/0.1"
            [cpu]
            cores = 16
            speed_relative = 0.5
            bandwidth_relative = 0.5
            dgemm = { model = "linear", term = "MNK", alpha = 1e-11, beta = 0.02, per = "node" }
            dtrsm = { points = [[4096, 100.0], [512, 20.0]], per = "core" }
            """)
        lines = self.compose(p, ranks_per_node=2).text.splitlines()
        self.assertIn("host dgemm mnk=2e-11 1=0.02", lines)  # half the node per rank: twice the time
        # a rate curve: a piece per point (trsm: m^2 n flops), 8 cores per rank
        self.assertIn(f"host dtrsm mnk={1 / 20e9 / 8!r}", lines)
        self.assertIn(f"host dtrsm[mnk>={4096.0 ** 3!r}] mnk={1 / 100e9 / 8!r}", lines)
        no_per = self.node('schema = "simblas-node/0.1"\n[cpu]\ncores = 1\nspeed_relative = 1\n'
                           'bandwidth_relative = 1\ndgemm = { model = "linear", term = "MNK", alpha = 1e-11 }\n',
                           "np.toml")
        self.refused(r"cpu\.dgemm\.per is None: say what the fit measured", no_per)
        # a term that is a table or an array names no term (it was a TypeError: unhashable type)
        for term in ('{ value = "MNK" }', '["MNK"]'):
            bad = self.node('schema = "simblas-node/0.1"\n[cpu]\ncores = 1\nspeed_relative = 1\n'
                            f'bandwidth_relative = 1\ndgemm = {{ term = {term}, alpha = 1e-11, per = "node" }}\n',
                            "bt.toml")
            self.refused(r"cpu\.dgemm\.term is .*; the terms are ", bad)

    def test_run_writes_the_node_file(self):
        keep = self.path("run")
        st, out, err = self.cli("run", "--n", 4000, "--nb", 128, "--p", 2, "--q", 2, "--node",
                                os.path.join(NODES, "theta-knl7230.toml"), "--model", self.model, "--dry-run",
                                "--keep", keep, "--xhpl", self.xhpl)
        self.assertEqual(st, 0, err)
        node = self.read(keep, "simblas.node")
        self.assertTrue(node.startswith("simblas-node 1\n"))
        self.assertIn(f"SIMBLAS_NODE={os.path.join(keep, 'simblas.node')}", self.read(keep, "run.sh"))
        st, out, err = self.cli("run", "--n", 4000, "--nb", 128, "--p", 2, "--q", 2, "--node",
                                os.path.join(NODES, "theta-knl7230.toml"), "--model", self.model, "--speedup", 2,
                                "--dry-run", "--xhpl", self.xhpl)
        self.assertEqual(st, 2)
        self.assertIn("--node sets the ranks' speed from the node file, and --speedup would scale it a second time; "
                      "drop --speedup", err)
        st, out, err = self.cli("run", "--n", 4000, "--nb", 128, "--p", 2, "--q", 2, "--energy", "node",
                                "--dry-run", "--xhpl", self.xhpl)
        self.assertEqual(st, 2)
        self.assertIn("--energy node takes the node's power from its node file: give --node FILE", err)

    def node_run(self, *args, keep=None):
        keep = keep or self.path("k")
        st, out, err = self.cli("run", "--n", 4000, "--nb", 128, "--model", self.model, *args, "--dry-run",
                                "--keep", keep, "--xhpl", self.xhpl)
        if st == 2:
            self.assertEqual(err.count("\n"), 1, err)
            self.assertFalse(os.path.exists(keep), err)
            self.assertFalse(os.path.exists(self.called))
        return st, err, keep

    def test_host_speed_is_refused_as_speedup_is(self):
        # --host-speed sets the hosts' speed as --speedup does: the node file's rate times it
        st, err, _ = self.node_run("--p", 2, "--q", 2, "--node", os.path.join(NODES, "theta-knl7230.toml"),
                                   "--host-speed", "100Gf")
        self.assertEqual(st, 2, err)
        self.assertIn("--node sets the ranks' speed from the node file, and --host-speed would scale it a second "
                      "time; drop --host-speed", err)

    def test_platform_file_hosts_give_the_ranks_per_node(self):
        # a node of 4 cores at the calibrated core's speed: each of 4 ranks a host gets one core's speed
        # (flops 1), not the whole node's (4: 402.8 Gflops on 8 ranks, above the node's peak)
        four = self.node('schema = "simblas-node/0.1"\nname = "four"\n[cpu]\ncores = 4\nspeed_relative = 1\n'
                         'bandwidth_relative = 1\n')
        xml = self.path("p.xml")
        with open(xml, "w") as f:
            f.write('<?xml version="1.0"?>\n<platform version="4.1">\n  <zone id="z" routing="Full">\n'
                    '    <host id="h0" speed="1Gf" core="4"/>\n    <host id="h1" speed="1Gf" core="4"/>\n'
                    '  </zone>\n</platform>\n')
        st, err, keep = self.node_run("--p", 2, "--q", 4, "--platform", xml, "--node", four)
        self.assertEqual(st, 0, err)
        lines = self.read(keep, "simblas.node").splitlines()
        self.assertIn("flops 1.0", lines)
        self.assertIn("bandwidth 1.0", lines)
        # a hostfile that loads the hosts unevenly: one rank's share of a node is not the same on each
        hosts = self.path("hosts")
        with open(hosts, "w") as f:
            f.write("h0:4\nh1:2\n")
        st, err, _ = self.node_run("--p", 2, "--q", 3, "--platform", xml, "--hostfile", hosts, "--node", four,
                                   keep=self.path("k2"))
        self.assertEqual(st, 2, err)
        self.assertIn(f"--node with --platform {xml}: its hosts run different numbers of ranks (h0: 4, h1: 2)", err)
        # two ranks a host of a 4-core node: each gets two cores
        with open(hosts, "w") as f:
            f.write("h0:2\nh1:2\n")
        st, err, keep = self.node_run("--p", 2, "--q", 2, "--platform", xml, "--hostfile", hosts, "--node", four,
                                      keep=self.path("k3"))
        self.assertEqual(st, 0, err)
        self.assertIn("flops 2.0", self.read(keep, "simblas.node").splitlines())
        # more ranks a host than the node has cores
        two = self.node('schema = "simblas-node/0.1"\n[cpu]\ncores = 2\nspeed_relative = 1\nbandwidth_relative = 1\n',
                        "two.toml")
        st, err, _ = self.node_run("--p", 2, "--q", 4, "--platform", xml, "--node", two, keep=self.path("k4"))
        self.assertEqual(st, 2, err)
        self.assertIn("4 ranks per node (the hosts of p.xml) but the node has 2 cores", err)
        # --energy node: the file's hosts have wattage of their own
        st, err, _ = self.node_run("--p", 2, "--q", 4, "--platform", xml, "--node", four, "--energy", "node",
                                   keep=self.path("k5"))
        self.assertEqual(st, 2, err)
        self.assertIn(f"--energy node gives the generated platform's hosts the node file's power; --platform {xml} "
                      "has hosts of its own", err)

    def test_libsimblas_reads_the_composition(self):
        """The composed text through libsimblas (SIMBLAS_NODE, null mode):
        each prediction is the model's, term by term over the scales."""
        build = os.environ.get("SB_BUILDDIR")
        prog = os.path.join(build or "", "test", "predict_prog")
        if not build or not os.path.exists(prog):
            self.skipTest("no build tree with test/predict_prog (make check builds it)")
        v = self.node(f"""\
            base = "{os.path.join(NODES, 'stampede-2013.toml')}"
            [[accelerator]]
            [accelerator.offload]
            rates_include_host = true
            """)
        c = self.compose(v)
        path = self.path("simblas.node")
        with open(path, "w") as f:
            f.write(c.text)
        shapes = "dgemm 50000 50000 1024\ndgemm 1000 1000 128\ndaxpy 0 100000 0\ndtrsm 1024 50000 1024\n"
        env = dict(os.environ, SIMBLAS_MODE="null", SIMBLAS_MODEL=self.model, SIMBLAS_NODE=path)
        r = subprocess.run([prog], input=shapes, env=env, capture_output=True, text=True)
        self.assertEqual(r.returncode, 0, r.stderr)
        got = [float(x) for x in r.stdout.split()]
        b = c.summary["bandwidth"]
        self.assertAlmostEqual(got[0] / (1.981e-12 * 50000.0 * 50000 * 1024 + 0.6316), 1, places=12)  # offloaded
        self.assertAlmostEqual(got[1] / (1.029e-11 * 1e6 * 128 + 2.737e-2), 1, places=12)  # host fit, below bounds
        self.assertAlmostEqual(got[2] / (1e-9 * 1e5 / b + 5e-7 / c.summary["overhead"]), 1, places=12)
        self.assertAlmostEqual(got[3] / (1.954e-12 * 1024.0 * 50000 * 1024 + 0.5222), 1, places=12)
        # predictions are not calls: nothing counted
        self.assertRegex(r.stderr, r"simblas: node Stampede.*: 0 of 0 modelled calls offloaded, accelerators busy 0 s")
        # the hybrid offload's data movement, worked by hand: dgemm 50000 x 50000 x 1024 all on the one device,
        # 0.256 s of compute; A and B in, the product out: 8 (2 x 51.2e6 + 2.5e9) = 20.82 GB at 10 GB/s, 2.082 s,
        # which hides the compute (overlap); the host's merge of the product, 24 x 2.5e9 = 60 GB at 40 GB/s, 1.5 s
        h = self.node(linked('c = "out", overlap = true', count=1), "hy.toml")
        with open(path, "w") as f:
            f.write(self.compose(h).text)
        r = subprocess.run([prog], input="dgemm 50000 50000 1024\n", env=env, capture_output=True, text=True)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertAlmostEqual(float(r.stdout) / (5e-6 + 8 * (2 * 50000.0 * 1024 + 50000.0 * 50000) / 10e9), 1,
                               places=12)
        # a bad node file stops the program at once, naming it
        with open(path, "w") as f:
            f.write("simblas-node 1\nflops 2\nend\n")
        r = subprocess.run([prog], input=shapes, env=env, capture_output=True, text=True)
        self.assertEqual(r.returncode, 2)
        self.assertRegex(r.stderr, re.escape(path) + r": no 'bandwidth' line")


if __name__ == "__main__":
    unittest.main()
