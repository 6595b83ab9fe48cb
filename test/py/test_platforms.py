"""The simulated machine: fat-tree specs, the generated platform XML (read
back as XML), platform files and hostfiles, --energy."""

import os
import re
import shutil
import tempfile
import unittest
import xml.etree.ElementTree as ET

from support import DATA, Sandbox
from simblas_hpl import platforms, units
from simblas_hpl.errors import CliError

BW, LAT = units.parse_bandwidth("10Gbps"), units.parse_latency("24us")


class FatTree(unittest.TestCase):
    def test_default(self):
        # leaves of the largest divisor <= 16 of the hosts, as many top switches
        self.assertEqual(platforms.default_fattree(16), (2, [16, 1], [1, 16], [1, 1]))
        self.assertEqual(platforms.default_fattree(512), (2, [16, 32], [1, 16], [1, 1]))
        self.assertEqual(platforms.default_fattree(6006), (2, [14, 429], [1, 14], [1, 1]))
        self.assertEqual(platforms.default_fattree(7), (2, [7, 1], [1, 7], [1, 1]))
        self.assertEqual(platforms.fattree_string(*platforms.default_fattree(64)), "2;16,4;1,16;1,1")

    def test_spec(self):
        self.assertEqual(platforms.parse_fattree("3;40,25,41;1,40,25;1,1,1"),
                         (3, [40, 25, 41], [1, 40, 25], [1, 1, 1]))
        for bad in ("2;4", "2;4,1;1,0;1,1", "x;1;1;1", "2;4,4;1,2;1", "0;;;"):
            with self.subTest(spec=bad), self.assertRaisesRegex(CliError, "fattree:LEVELS"):
                platforms.parse_fattree(bad)

    def test_resolve_generated(self):
        p = platforms.resolve("fattree:2;4,4;1,2;1,1", 12, BW, LAT, cores_per_node=2)
        self.assertEqual((p.kind, p.spec, p.hosts, p.topo, p.cores_per_node), ("generated", "fattree:2;4,4;1,2;1,1",
                                                                               16, "2;4,4;1,2;1,1", 2))
        # a machine larger than the run: the ranks fill the first hosts
        self.assertEqual(p.hostlist, [f"node-{i}" for i in range(6) for _ in range(2)])
        p = platforms.resolve(None, 16, BW, LAT)
        self.assertEqual((p.spec, p.bw, p.lat, p.bw_Bps, p.lat_s), ("fattree:2;16,1;1,16;1,1", "10Gbps", "24us",
                                                                    1.25e9, 24e-6))
        with self.assertRaisesRegex(CliError, "--hostfile goes with --platform FILE.xml"):
            platforms.resolve(None, 16, BW, LAT, hostfile="h")
        with self.assertRaisesRegex(CliError, "--energy platform needs --platform FILE.xml"):
            platforms.resolve(None, 16, BW, LAT, energy="platform")


class Placement(unittest.TestCase):
    """--placement: which hosts of a generated platform take the ranks."""

    def test_sequential_is_the_default(self):
        self.assertEqual(platforms.place(6, 8, 2), ["node-0", "node-0", "node-1", "node-1", "node-2", "node-2"])
        p = platforms.resolve("fattree:2;4,4;1,2;1,1", 12, BW, LAT, cores_per_node=2)
        self.assertEqual((p.placement, p.hostlist), ("sequential", platforms.place(12, 16, 2)))
        self.assertEqual(platforms.resolve("fattree:2;4,4;1,2;1,1", 12, BW, LAT, cores_per_node=2,
                                           placement="sequential").hostlist, p.hostlist)

    def test_random_one_core(self):
        # the seed's random mapping: every host once, in an order the seed draws
        hosts = platforms.place(512, 512, 1, "random", 1)
        self.assertEqual(sorted(hosts), sorted(f"node-{i}" for i in range(512)))
        self.assertNotEqual(hosts, platforms.place(512, 512, 1))
        self.assertEqual(hosts, platforms.place(512, 512, 1, "random", 1))  # reproducible
        with self.assertRaises(ValueError):  # the seed is make_plan's to give (settings.seed)
            platforms.place(512, 512, 1, "random", None)
        self.assertNotEqual(hosts, platforms.place(512, 512, 1, "random", 2))

    def test_random_larger_machine_and_cores(self):
        # 10 ranks of 4 cores a host on 16 hosts: 3 hosts drawn among the 16,
        # each taking its ranks in a row, the last one partly used
        seen = set()
        for seed in range(20):
            hosts = platforms.place(10, 16, 4, "random", seed)
            blocks = [hosts[i:i + 4] for i in range(0, 10, 4)]
            self.assertEqual([len(set(b)) for b in blocks], [1, 1, 1])
            self.assertEqual(len({b[0] for b in blocks}), 3)
            seen.update(b[0] for b in blocks)
        self.assertTrue(any(int(h.split("-")[1]) >= 3 for h in seen), seen)  # not only the first hosts
        self.assertEqual(len(seen), 16)

    def test_resolve(self):
        p = platforms.resolve("torus:4,4", 16, BW, LAT, placement="random", seed=7)
        self.assertEqual((p.placement, p.hostlist), ("random", platforms.place(16, 16, 1, "random", 7)))
        with self.assertRaisesRegex(CliError, r"--placement 'scatter': expected one of sequential, random"):
            platforms.resolve(None, 16, BW, LAT, placement="scatter")
        self.assertIsNone(platforms.resolve(os.path.join(DATA, "two.xml"), 3, BW, LAT).placement)  # a file's own
        with self.assertRaisesRegex(CliError, "--placement random places the ranks on a generated platform .*"
                                              "--hostfile"):
            platforms.resolve(os.path.join(DATA, "two.xml"), 3, BW, LAT, placement="random")


class DragonflyTorus(unittest.TestCase):
    """SimGrid 3.32's two other cluster topologies, sized and checked like
    the fat tree, with the sizes that would fit when a spec is too small."""

    def test_dragonfly(self):
        self.assertEqual(platforms.parse_dragonfly("10,106;6,3;16,1;4"), ((10, 106), (6, 3), (16, 1), 4))
        p = platforms.resolve("dragonfly:10,106;6,3;16,1;4", 3232, BW, LAT)
        self.assertEqual((p.kind, p.hosts, p.topology, p.topo), ("generated", 3840, "DRAGONFLY", "10,106;6,3;16,1;4"))
        self.assertEqual(p.hostlist[-1], "node-3231")  # the ranks fill the first hosts
        for bad in ("10,106;6,3;16,1", "10;6,3;16,1;4", "10,0;6,3;16,1;4", "a,1;1,1;1,1;1", "1,1;1,1;1,1;0"):
            with self.subTest(spec=bad), self.assertRaisesRegex(CliError, "dragonfly:GROUPS,BLUE"):
                platforms.parse_dragonfly(bad)
        # 3.32 does not check it: blue links hang on router j of chassis 0
        with self.assertRaisesRegex(CliError, "17 groups but 16 routers per chassis.*dragonfly:17,1;6,3;17,1;4"):
            platforms.resolve("dragonfly:17,1;6,3;16,1;4", 16, BW, LAT)
        # too small: each way of growing it, and the count of hosts
        with self.assertRaisesRegex(CliError, r"P\*Q = 4000 ranks, but --platform dragonfly:10,106;6,3;16,1;4 has "
                                              r"3840 host\(s\) x 1 core\(s\) = 3840 slots: too few; sizes that fit: "
                                              r"dragonfly:11,106;6,3;16,1;4 \(more groups\), "
                                              r"dragonfly:10,106;7,3;16,1;4 \(more chassis per group\), "
                                              r"dragonfly:10,106;6,3;16,1;5 \(more nodes per router\)"):
            platforms.resolve("dragonfly:10,106;6,3;16,1;4", 4000, BW, LAT)
        # more groups would exceed the routers: not proposed
        with self.assertRaises(CliError) as e:
            platforms.resolve("dragonfly:2,1;1,1;2,1;1", 5, BW, LAT)
        self.assertNotIn("more groups", str(e.exception))
        self.assertIn("dragonfly:2,1;2,1;2,1;1 (more chassis per group)", str(e.exception))
        # cores per node count
        self.assertEqual(platforms.resolve("dragonfly:2,1;1,1;2,1;1", 8, BW, LAT, cores_per_node=2).hosts, 4)

    def test_torus(self):
        self.assertEqual(platforms.parse_torus("4,4,2"), [4, 4, 2])
        p = platforms.resolve("torus:4,4,2", 30, BW, LAT)
        self.assertEqual((p.hosts, p.topology, p.topo), (32, "TORUS", "4,4,2"))
        for bad in ("", "4,,4", "4,0", "x"):
            with self.subTest(spec=bad), self.assertRaisesRegex(CliError, "torus:D1,D2"):
                platforms.parse_torus(bad)
        with self.assertRaisesRegex(CliError, r"P\*Q = 100 ranks.*32 slots: too few; sizes that fit: torus:13,4,2 "
                                              r"\(a longer first dimension\), torus:5,5,5 \(as many dimensions, "
                                              r"equal\)"):
            platforms.resolve("torus:4,4,2", 100, BW, LAT)

    def test_numbers_are_digits_as_simgrid_reads_them(self):
        # torus:4_4 was 44 hosts here (Python's int) and a ring of 4 in
        # SimGrid (std::stoi stops at '_'), which ran with the JSON saying 44
        # hosts; dragonfly:1,1;1_0,1;2,1;1 was 20 hosts here and 2 there:
        # "Host not found: 'node-2'", aborted after launch
        for spec in ("torus:4_4", "torus:4.5,2", "torus:1e1", "torus:+4,4", "dragonfly:1,1;1_0,1;2,1;1",
                     "dragonfly:1,1;1,1;2,1;0x2", "fattree:2;4,1_0;1,4;1,1"):
            with self.subTest(spec=spec), self.assertRaisesRegex(CliError, "expected (torus|dragonfly|fattree):"):
                platforms.resolve(spec, 4, BW, LAT)
        # spaces around a number are harmless: SimGrid gets the numbers as read here
        self.assertEqual(platforms.resolve("torus: 4, 4", 4, BW, LAT).topo, "4,4")
        self.assertEqual(platforms.resolve("dragonfly:1, 1;1,1; 2,1;2 ", 4, BW, LAT).topo, "1,1;1,1;2,1;2")

    def test_a_network_out_of_proportion_is_refused(self):
        # fattree:2;4,1;1,3000000;1,1 (4 hosts under 3e6 top switches) was
        # accepted; SimGrid built it for 70 s, took 2.9 GB and died of bad_alloc
        for spec, counts in (("fattree:2;4,1;1,3000000;1,1", "up-link or parallel-link counts"),
                             ("fattree:2;4,1;1,2;1,2000000", "up-link or parallel-link counts"),
                             ("dragonfly:2,100000000;1,1;2,1;1", r"link counts \(BLUE, BLACK, GREEN\)")):
            with self.subTest(spec=spec), self.assertRaisesRegex(CliError, rf"--platform {re.escape(spec)}: "
                                                                             rf"[0-9,]+ switches and [0-9,]+ links "
                                                                             rf"for [0-9,]+ hosts, more than 1,048,576 "
                                                                             rf".*: smaller {counts}$"):
                platforms.resolve(spec, 4, BW, LAT)
        # the machines of the documentation pass
        for spec in ("fattree:3;40,25,41;1,40,25;1,1,1", "fattree:2;16,32;1,16;1,1", "dragonfly:10,106;6,3;16,1;4"):
            platforms.resolve(spec, 4, BW, LAT)
        self.assertEqual(platforms.fattree_elements([40, 25, 41], [1, 40, 25], [1, 1, 1]), (3665, 123000))

    def test_fattree_suggests(self):
        with self.assertRaisesRegex(CliError, r"sizes that fit: fattree:2;4,3;1,4;1,1"):
            platforms.resolve("fattree:2;4,2;1,4;1,1", 12, BW, LAT)

    def test_xml(self):
        for spec, kind in (("dragonfly:2,1;1,1;2,1;2", "DRAGONFLY"), ("torus:2,3", "TORUS")):
            p = platforms.resolve(spec, 6, BW, LAT)
            text = platforms.platform_xml(p.hosts, 1, "1f", "10Gbps", "1us", p.topo, None, p.topology)
            c = ET.fromstring(text.split("\n", 2)[2]).find("cluster")
            self.assertEqual((c.get("topology"), c.get("topo_parameters"), c.get("radical")),
                             (kind, spec.split(":")[1], f"0-{p.hosts - 1}"))


class Xml(unittest.TestCase):
    def test_generated(self):
        text = platforms.platform_xml(4, 2, "2e+10f", "10Gbps", "24us", "2;4,1;1,4;1,1", [95, 120, 200])
        root = ET.fromstring(text.split("\n", 2)[2])  # past the XML declaration and DOCTYPE
        self.assertEqual((root.tag, root.get("version")), ("platform", "4.1"))
        c = root.find("cluster")
        self.assertEqual({k: c.get(k) for k in ("radical", "speed", "core", "bw", "lat", "topology", "topo_parameters",
                                                "loopback_bw", "loopback_lat")},
                         {"radical": "0-3", "speed": "2e+10f", "core": "2", "bw": "10Gbps", "lat": "24us",
                          "topology": "FAT_TREE", "topo_parameters": "2;4,1;1,4;1,1", "loopback_bw": "40Gbps",
                          "loopback_lat": "1us"})
        self.assertEqual({p.get("id"): p.get("value") for p in c.findall("prop")},
                         {"wattage_per_state": "95:120:200", "wattage_off": "0"})
        # the watts the JSON's wattage says, not 6 digits of them (100.123:120:2e+06)
        watts = ET.fromstring(platforms.platform_xml(4, 1, "1f", "1Bps", "1s", "2;4,1;1,4;1,1",
                                                     platforms.parse_energy("100.1234567:120:2000000.5"))
                              .split("\n", 2)[2]).find("cluster").find("prop")
        self.assertEqual(watts.get("value"), "100.1234567:120:2000000.5")
        one = ET.fromstring(platforms.platform_xml(4, 1, "1f", "1Bps", "1s", "2;4,1;1,4;1,1", None).split("\n", 2)[2])
        self.assertIsNone(one.find("cluster").get("loopback_bw"))  # one core: no intra-node link
        self.assertEqual(one.find("cluster").findall("prop"), [])

    def test_alloc_only(self):
        # well-formed: '--' is not allowed inside an XML comment (it held '--alloc-only')
        root = ET.fromstring(platforms.alloc_only_xml(3, 2, "1e+10f").split("\n", 2)[2])
        self.assertEqual([(h.get("id"), h.get("core")) for h in root.iter("host")],
                         [("node-0", "2"), ("node-1", "2"), ("node-2", "2")])
        self.assertEqual(root.find("zone").get("routing"), "None")

    def test_hosts_of_files(self):
        self.assertEqual(platforms.platform_hosts(os.path.join(DATA, "two.xml")), [("a", 2), ("b", 1)])
        d = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, d)
        p = os.path.join(d, "c.xml")
        with open(p, "w") as f:
            f.write('<platform version="4.1"><cluster id="c" prefix="n" suffix=".x" radical="0-2,5" core="4" '
                    'speed="1f" bw="1Bps" lat="1s"/></platform>')
        self.assertEqual(platforms.platform_hosts(p), [("n0.x", 4), ("n1.x", 4), ("n2.x", 4), ("n5.x", 4)])
        # core="0": its host took no rank here, the other ones took them, and
        # SimGrid aborted after launch (Host b must have at least one core, not 0)
        for core in ("0", "-2"):
            with open(p, "w") as f:
                f.write(f'<platform version="4.1"><host id="a" speed="1f" core="2"/><host id="b" speed="1f" '
                        f'core="{core}"/></platform>')
            with self.subTest(core=core), self.assertRaisesRegex(CliError, f"<host id='b'> has core=\"{core}\", "
                                                                            "and SimGrid aborts"):
                platforms.resolve(p, 2, BW, LAT)
        with open(p, "w") as f:
            f.write("<zone/>")
        with self.assertRaisesRegex(CliError, "not a SimGrid platform"):
            platforms.platform_hosts(p)
        h = os.path.join(d, "hosts")
        with open(h, "w") as f:
            f.write("# ranks\na:2\n\nb\n")
        self.assertEqual(platforms.read_hostfile(h), ["a", "a", "b"])
        p = platforms.resolve(os.path.join(DATA, "two.xml"), 3, BW, LAT, hostfile=h)
        self.assertEqual((p.kind, p.hosts, p.own_core, p.cores_per_node), ("file", 2, True, None))
        with open(h, "w") as f:
            f.write("b:3\n")
        self.assertFalse(platforms.resolve(os.path.join(DATA, "two.xml"), 3, BW, LAT, hostfile=h).own_core)


class Energy(unittest.TestCase):
    def test_parse(self):
        self.assertEqual(platforms.parse_energy("95:120:200"), [95.0, 120.0, 200.0])
        self.assertEqual(platforms.parse_energy("120:100:200"), [120.0, 100.0, 200.0])  # EPSILON < IDLE allowed
        self.assertEqual(platforms.parse_energy("platform"), "platform")
        for bad in ("100:200", "a:b:c", "-1:2:3", "1:2:inf"):
            with self.subTest(text=bad), self.assertRaisesRegex(CliError, "IDLE:EPSILON:ALLCORES"):
                platforms.parse_energy(bad)


WATTS = '<prop id="wattage_per_state" value="100:120:200"/>'


class EnergyPlatform(Sandbox):
    """--energy platform with a platform file: every host that runs ranks
    carries wattage_per_state, or SimGrid counts its energy as 0 J."""

    def xml(self, a="", b="", cluster="", b_speed="1Gf"):
        path = self.path("p.xml")
        with open(path, "w") as f:
            f.write("<?xml version='1.0'?>\n<platform version=\"4.1\">\n  <zone id=\"z\" routing=\"Full\">\n"
                    f'    <host id="a" speed="1Gf" core="2">{a}</host>\n    <host id="b" speed="{b_speed}">{b}</host>\n'
                    f'    <cluster id="c" prefix="c-" suffix="" radical="0-1" speed="1Gf" bw="1GBps" lat="1us">{cluster}'
                    "</cluster>\n  </zone>\n</platform>\n")
        return path

    def energy_run(self, path, hostfile=None):
        keep = self.path("k")
        r = self.cli("run", "--n", 4000, "--p", 1, "--q", 3 if hostfile else 5, "--platform", path, "--energy", "platform",
                     *(("--hostfile", hostfile) if hostfile else ()), "--dry-run", "--keep", keep, "--xhpl", self.xhpl)
        if r[0] == 2:
            self.assertEqual(r[2].count("\n"), 1, r[2])
            self.assertFalse(os.path.exists(keep))
        return r

    def test_a_host_without_wattage_is_refused(self):
        path = self.xml(a=WATTS)
        status, out, err = self.energy_run(path)
        self.assertEqual(status, 2, err)
        self.assertIn(f"--energy platform: host b of {path} runs ranks and has no wattage_per_state property", err)
        self.assertIn('<prop id="wattage_per_state" value="IDLE:EPSILON:ALLCORES"/> (watts', err)
        # a cluster's hosts take its <prop>
        hosts = self.path("hosts")
        with open(hosts, "w") as f:
            f.write("a:2\nc-1\n")
        status, out, err = self.energy_run(self.xml(a=WATTS), hostfile=hosts)
        self.assertEqual(status, 2, err)
        self.assertIn("host c-1 of", err)
        # b runs no rank: it needs none (an idle host, energy_idle_hosts_j)
        status, out, err = self.energy_run(self.xml(a=WATTS, cluster=WATTS), hostfile=hosts)
        self.assertEqual(status, 0, err)

    def test_malformed_wattage_is_refused_and_pstates_taken(self):
        bad = '<prop id="wattage_per_state" value="100-200"/>'
        status, out, err = self.energy_run(self.xml(a=WATTS, b=bad, cluster=WATTS))
        self.assertEqual(status, 2, err)
        self.assertIn("host b of", err)
        self.assertIn("'100-200', which SimGrid's energy plugin does not read", err)
        # Python's float() reads 1_00 as 100; SimGrid's strtod stops at the _ and aborts after launch
        status, out, err = self.energy_run(self.xml(a=WATTS, b=bad.replace("100-200", "1_00:120:200"), cluster=WATTS))
        self.assertEqual(status, 2, err)
        self.assertIn("'1_00:120:200', which SimGrid's energy plugin does not read", err)
        two = '<prop id="wattage_per_state" value="100:200, 90:150"/>'   # two pstates, IDLE:ALLCORES each
        # two pstates of watts for one speed were taken, and SimGrid's plugin
        # aborted after launch: "Invalid XML file. Found 2 energetic profiles for 1 pstates"
        status, out, err = self.energy_run(self.xml(a=WATTS, b=two, cluster=WATTS))
        self.assertEqual(status, 2, err)
        self.assertIn("host b of", err)
        self.assertIn("has 2 pstate(s) in wattage_per_state '100:200, 90:150' and 1 speed(s)", err)
        status, out, err = self.energy_run(self.xml(a=WATTS, b=two, cluster=WATTS, b_speed="1Gf,500Mf"))
        self.assertEqual(status, 0, err)


if __name__ == "__main__":
    unittest.main()
