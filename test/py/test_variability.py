"""Node variability (variability.py): per-host speed factors drawn from
--node-spread and --slow-nodes, fitted to a model's per-core sets
(--node-speeds model) or read from a file (--node-speeds FILE), written to
the run directory for libsimblas (SIMBLAS_HOST_FACTORS) and reported in the
JSON; --noise and --seed; --host-speed.  Bad input is one line, status 2."""

import json
import os
import statistics
import unittest

from support import DATA, Sandbox
from simblas_hpl import variability
from simblas_hpl.errors import CliError

RUN = ("--n", "20000", "--nb", "128")
TWO_CORES = """simblas-model 1
reference-speed 1e10
set node
dgemm      mnk=2e-10 1=2e-07 | mnk=1e-12
set core0
dgemm      mnk=1.9e-10 1=2e-07
set core1
dgemm      mnk=2.1e-10 1=2e-07
dgemm[mnk>=1e9] mnk=2.2e-10
end
"""


class Factors(Sandbox):
    def dry_factors(self, *args, keep=None):
        status, out, err, d = self.dry(*RUN, *args, keep=keep)
        self.assertEqual(status, 0, err)
        f = os.path.join(d, "host-factors.txt")
        rows = [ln.split() for ln in self.read(f).splitlines() if not ln.startswith("#")]
        self.memory = {r[0]: float(r[2]) for r in rows if len(r) == 3}  # the memory kernels' column
        return {r[0]: float(r[1]) for r in rows}, self.read(d, "run.sh")

    def test_drawn_spread_and_slow_nodes_reproducible_by_seed(self):
        f1, sh = self.dry_factors("--p", 32, "--q", 32, "--node-spread", 3, "--slow-nodes", "0.01:0.8", "--seed", 7)
        self.assertEqual(len(f1), 1024)
        self.assertEqual(list(f1)[:2], ["node-0", "node-1"])
        self.assertIn(f"SIMBLAS_HOST_FACTORS={self.path('dry', 'host-factors.txt')}", sh)
        self.assertIn("SIMBLAS_SEED=7", sh)
        self.assertNotIn("SIMBLAS_NOISE", sh)
        hosts = [f"node-{i}" for i in range(1024)]
        drawn, slow = variability.draw(hosts, 3, (0.01, 0.8), 7)
        self.assertEqual(f1, {h: float(f"{v:.9g}") for h, v in drawn.items()})
        plain, none = variability.draw(hosts, 3, None, 7)  # the same normal draws, no host slowed
        self.assertEqual((len(slow), none), (10, []))  # round(0.01 x 1024) hosts at 80%
        self.assertEqual({h for h in hosts if abs(drawn[h] - plain[h]) > 1e-12}, set(slow))
        self.assertTrue(all(abs(drawn[h] - 0.8 * plain[h]) < 1e-12 for h in slow))
        self.assertAlmostEqual(statistics.fmean(plain.values()), 1.0, delta=0.003)
        self.assertAlmostEqual(statistics.stdev(plain.values()), 0.03, delta=0.003)
        f2, _ = self.dry_factors("--p", 32, "--q", 32, "--node-spread", 3, "--slow-nodes", "0.01:0.8", "--seed", 7,
                                 keep=self.path("again"))
        self.assertEqual(f1, f2)
        f3, _ = self.dry_factors("--p", 32, "--q", 32, "--node-spread", 3, "--slow-nodes", "0.01:0.8", "--seed", 8,
                                 keep=self.path("other"))
        self.assertNotEqual(f1, f3)

    def test_slow_nodes_alone_and_cores_per_node(self):
        f, _ = self.dry_factors("--p", 16, "--q", 16, "--cores-per-node", 4, "--slow-nodes", "0.25:0.5")
        self.assertEqual(len(f), 64)  # one factor per host, not per rank
        self.assertEqual(sorted(f.values()), [0.5] * 16 + [1.0] * 48)

    def test_fitted_to_the_models_core_sets(self):
        m = self.path("two.model")
        with open(m, "w") as fh:
            fh.write(TWO_CORES)
        factors, cv = variability.fit_model(m)
        t = 2e-10 * 4096 ** 3 + 2e-7  # node; core1's piece applies at 4096^3
        want = [t / (1.9e-10 * 4096 ** 3 + 2e-7), t / (2.2e-10 * 4096 ** 3)]
        self.assertEqual([round(x, 9) for x in factors], [round(x, 9) for x in want])
        self.assertAlmostEqual(cv, statistics.stdev(want) / statistics.fmean(want))
        f, _ = self.dry_factors("--p", 16, "--q", 16, "--node-speeds", "model", "--model", m)
        self.assertAlmostEqual(statistics.stdev(f.values()), cv, delta=0.25 * cv)
        self.refused_line("has no per-core coefficient sets", "--p", 2, "--q", 2, "--node-speeds", "model",
                          "--model", f"{DATA}/measured.model")

    def test_read_from_a_file(self):
        named, bare = self.path("named"), self.path("bare")
        with open(named, "w") as fh:
            fh.write("# host factor\nnode-1 0.5\nnode-0 1.25\nnode-3 1\nnode-2 0.75  # slow\n")
        with open(bare, "w") as fh:
            fh.write("1.25\n0.5\n\n0.75\n1\n")
        f, _ = self.dry_factors("--p", 2, "--q", 2, "--node-speeds", named)
        self.assertEqual(f, {"node-0": 1.25, "node-1": 0.5, "node-2": 0.75, "node-3": 1.0})
        f, _ = self.dry_factors("--p", 2, "--q", 2, "--node-speeds", bare, keep=self.path("b"))
        self.assertEqual(f, {"node-0": 1.25, "node-1": 0.5, "node-2": 0.75, "node-3": 1.0})
        self.refused_line(r"4 factor\(s\) for the run's 2 host\(s\)", "--p", 2, "--q", 2, "--cores-per-node", 2,
                          "--node-speeds", bare)
        with open(named, "a") as fh:
            fh.write("node-9 1\n")
        self.refused_line("host\\(s\\) the run does not use: node-9", "--p", 2, "--q", 2, "--node-speeds", named)
        with open(named, "w") as fh:
            fh.write("node-0 1\nnode-1 fast\n")
        self.refused_line(f"{named}:2: expected 'HOST FACTOR' or 'FACTOR'", "--p", 2, "--q", 2, "--node-speeds", named)
        with open(named, "w") as fh:
            fh.write("node-0 1\nnode-1 1\n")
        self.refused_line(r"no factor for 2 host\(s\) of the run: node-2, node-3", "--p", 2, "--q", 2,
                          "--node-speeds", named)
        self.refused_line("no such file", "--p", 2, "--q", 2, "--node-speeds", self.path("none"))
        # a factor below the drawn ones' floor: each kernel 1e300 times longer, "Simulated time: inf"
        with open(named, "w") as fh:
            fh.write("node-0 1\nnode-1 1\n# slow\nnode-2 1e-300\nnode-3 1\n")
        self.refused_line(f"^simblas-hpl: {named}:4: factor 1e-300 is below 0.05, .*; give a factor >= 0.05$",
                          "--p", 2, "--q", 2, "--node-speeds", named)
        with open(bare, "w") as fh:
            fh.write("1\n0.049\n")
        self.refused_line(f"{bare}:2: factor 0.049 is below 0.05", "--p", 2, "--q", 1, "--node-speeds", bare)
        with open(bare, "w") as fh:
            fh.write("1\n0.05\n")
        f, _ = self.dry_factors("--p", 2, "--q", 1, "--node-speeds", bare, keep=self.path("floor"))
        self.assertEqual(f, {"node-0": 1.0, "node-1": 0.05})

    def refused_line(self, pattern, *args):
        keep = self.path("refused")
        status, out, err = self.cli("run", *RUN, *args, "--dry-run", "--keep", keep, "--xhpl", self.xhpl)
        with self.subTest(args=args):
            self.assertEqual((status, err.count("\n")), (2, 1), err)
            self.assertRegex(err, pattern)
            self.assertFalse(os.path.exists(keep))

    def test_refusals(self):
        self.refused_line("passthrough computes them for real: use --mode model", "--p", 2, "--q", 2, "--mode",
                          "passthrough", "--node-spread", 3)
        self.refused_line("--node-spread 120: a standard deviation in %", "--p", 2, "--q", 2, "--node-spread", 120)
        self.refused_line("--slow-nodes '0.01': expected FRACTION:SPEED", "--p", 2, "--q", 2, "--slow-nodes", "0.01")
        self.refused_line("--slow-nodes '2:0.8': expected FRACTION:SPEED", "--p", 2, "--q", 2, "--slow-nodes", "2:0.8")
        self.refused_line("--slow-nodes '0.5:1e-300': a speed of 1e-300 is below 0.05, .*; give a SPEED >= 0.05$",
                          "--p", 2, "--q", 2, "--slow-nodes", "0.5:1e-300")
        self.refused_line("--slow-nodes '0.5:0.01': a speed of 0.01 is below 0.05", "--p", 2, "--q", 2,
                          "--node-spread", 3, "--slow-nodes", "0.5:0.01")
        self.refused_line("gives every host's factor: drop --node-spread", "--p", 2, "--q", 2, "--node-spread", 3,
                          "--node-speeds", f"{DATA}/two.hosts")
        self.refused_line("fits the spread to the model's per-core sets: drop --node-spread", "--p", 2, "--q", 2,
                          "--node-spread", 3, "--node-speeds", "model")
        self.refused_line("--seed -1: must be a whole number from 0 to 18446744073709551615", "--p", 2, "--q", 2, "--seed", -1)
        self.refused_line("--noise draws the modelled kernels' times", "--p", 2, "--q", 2, "--noise", "--mode",
                          "passthrough")

    def test_occupancy(self):
        """A host given fewer ranks than cores runs faster by the model's
        meta solo_speed (simblas-hpl refine's), linearly in its idle
        cores; times the node speeds; none without the line, with --node,
        or in passthrough."""
        m = self.path("solo.model")
        with open(m, "w") as fh:
            fh.write(TWO_CORES.replace("reference-speed", "meta solo_speed 1.06 N=10000 1x1\nreference-speed", 1))
        f, sh = self.dry_factors("--p", 1, "--q", 1, "--cores-per-node", 2, "--model", m, keep=self.path("one"))
        self.assertEqual(f, {"node-0": 1.06})
        self.assertIn("SIMBLAS_HOST_FACTORS=", sh)
        # 5 ranks on 4-core hosts: node-1 has 1 rank of 4 (the whole factor); on 3 of 4, a third of it
        f, _ = self.dry_factors("--p", 1, "--q", 5, "--cores-per-node", 4, "--model", m, keep=self.path("five"))
        self.assertEqual(f, {"node-1": 1.06})
        f, _ = self.dry_factors("--p", 1, "--q", 3, "--cores-per-node", 4, "--model", m, keep=self.path("three"))
        self.assertAlmostEqual(f["node-0"], 1.02, places=9)
        speeds = self.path("speeds")
        with open(speeds, "w") as fh:
            fh.write("node-0 0.9\n")
        f, _ = self.dry_factors("--p", 1, "--q", 1, "--cores-per-node", 2, "--model", m, "--node-speeds", speeds,
                                keep=self.path("both"))
        self.assertAlmostEqual(f["node-0"], 0.9 * 1.06, places=9)
        self.assertEqual(self.memory, {})  # no meta solo_speed_memory: the memory kernels take the same factor
        # meta solo_speed_memory: the memory kernels' own factor, in the third column, times the node speed
        mm = self.path("solomem.model")
        with open(mm, "w") as fh:
            fh.write(TWO_CORES.replace("reference-speed", "meta solo_speed 1.06 N=10000 1x1\n"
                                       "meta solo_speed_memory 2.5 N=10000 1x1\nreference-speed", 1))
        f, _ = self.dry_factors("--p", 1, "--q", 1, "--cores-per-node", 2, "--model", mm, "--node-speeds", speeds,
                                keep=self.path("mem"))
        self.assertAlmostEqual(f["node-0"], 0.9 * 1.06, places=9)
        self.assertAlmostEqual(self.memory["node-0"], 0.9 * 2.5, places=9)
        f, _ = self.dry_factors("--p", 1, "--q", 3, "--cores-per-node", 4, "--model", mm, keep=self.path("mem3"))
        self.assertAlmostEqual(self.memory["node-0"], 1.5, places=9)  # 1 of 4 cores idle: a third of 2.5's gain
        status, out, err, d = self.dry(*RUN, "--p", 2, "--q", 2, "--cores-per-node", 2, "--model", m,
                                       keep=self.path("full"))
        self.assertNotIn("SIMBLAS_HOST_FACTORS", self.read(d, "run.sh"))  # every core busy: the calibration's
        for name, text in (("none", TWO_CORES), ("wild", TWO_CORES.replace("reference-speed",
                                                                          "meta solo_speed 3\nreference-speed", 1))):
            other = self.path(name + ".model")
            with open(other, "w") as fh:
                fh.write(text)
            status, out, err, d = self.dry(*RUN, "--p", 1, "--q", 1, "--cores-per-node", 2, "--model", other,
                                           keep=self.path("d-" + name))
            self.assertNotIn("SIMBLAS_HOST_FACTORS", self.read(d, "run.sh"), name)

    def test_noise_seed_and_no_variability(self):
        m = self.path("two.model")
        with open(m, "w") as fh:
            fh.write(TWO_CORES)
        status, out, err, d = self.dry(*RUN, "--p", 2, "--q", 2, "--noise", "--seed", 3, "--model", m)
        sh = self.read(d, "run.sh")
        self.assertIn("SIMBLAS_NOISE=1", sh)
        self.assertIn("SIMBLAS_SEED=3", sh)
        self.assertNotIn("SIMBLAS_HOST_FACTORS", sh)
        self.assertFalse(os.path.exists(os.path.join(d, "host-factors.txt")))
        self.assertNotIn("warning", err)
        status, out, err, d = self.dry(*RUN, "--p", 2, "--q", 2, "--noise", "--model", f"{DATA}/measured.model",
                                       keep=self.path("quiet"))
        self.assertIn("has no noise terms for dgemm", err)
        status, out, err, d = self.dry(*RUN, "--p", 2, "--q", 2, keep=self.path("plain"))
        sh = self.read(d, "run.sh")
        self.assertFalse(any(v in sh for v in ("SIMBLAS_NOISE", "SIMBLAS_SEED", "SIMBLAS_HOST_FACTORS")))

    def test_host_speed(self):
        status, out, err, d = self.dry(*RUN, "--p", 2, "--q", 2, "--host-speed", "1Gf", "--model",
                                       f"{DATA}/measured.model")
        self.assertEqual(status, 0, err)
        ref = None  # the model's reference speed
        for ln in self.read(f"{DATA}/measured.model").splitlines():
            if ln.startswith("reference-speed"):
                ref = float(ln.split()[1])
        self.assertIn('speed="1000000000f"', self.read(d, "platform.xml"))
        self.assertIn(f"smpi/host-speed:{ref:.10g}f", self.read(d, "run.sh"))
        self.refused_line("--host-speed and --speedup both set the hosts' speed", "--p", 2, "--q", 2,
                          "--host-speed", "1Gf", "--speedup", 2)
        self.refused_line("--host-speed '1GHz': not a host speed", "--p", 2, "--q", 2, "--host-speed", "1GHz")
        self.refused_line("--host-speed 1f: .* out of range", "--p", 2, "--q", 2, "--host-speed", "1f")
        self.refused_line("set speeds", "--p", 1, "--q", 3, "--platform", f"{DATA}/two.xml", "--host-speed", "1Gf")


class Reported(Sandbox):
    def test_in_the_json(self):
        with open(self.env["SMPIRUN"], "w") as f:
            f.write("#!/bin/sh\necho 'WR11C2R4 20000 128 2 2 10.00 5.336e+02'\n"
                    "echo 'Simulated time: 10.5 seconds.' >&2\n")
        j = self.path("r.json")
        status, out, err = self.cli("run", *RUN, "--p", 2, "--q", 2, "--xhpl", self.xhpl, "--slow-nodes", "0.25:0.8",
                                    "--seed", 5, "--json", j)
        self.assertEqual(status, 0, err)
        r = json.loads(self.read(j))
        ns = r["node_speed"]
        self.assertEqual((r["seed"], r["noise"], ns["source"], ns["seed"], ns["hosts"], ns["min"], ns["max"]),
                         (5, False, "draw", 5, 4, 0.8, 1.0))
        self.assertEqual((ns["slow_fraction"], ns["slow_speed"], len(ns["slow_hosts"])), (0.25, 0.8, 1))
        self.assertEqual(ns["factors"][ns["slow_hosts"][0]], 0.8)
        status, out, err = self.cli("run", *RUN, "--p", 2, "--q", 2, "--xhpl", self.xhpl, "--json", j)
        r = json.loads(self.read(j))
        self.assertEqual((r["seed"], r["noise"], r["node_speed"]), (1, False, None))


class Summary(unittest.TestCase):
    def test_summary_and_file(self):
        ns = variability.NodeSpeeds(source="draw", factors={"a": 1.0, "b": 0.5}, seed=1, spread_pct=0,
                                    slow_fraction=0.5, slow_speed=0.5, slow_hosts=["b"])
        s = ns.summary()
        self.assertEqual((s["hosts"], s["min"], s["max"], s["mean"], s["slow_hosts"]), (2, 0.5, 1.0, 0.75, ["b"]))
        self.assertEqual(s["factors"], {"a": 1.0, "b": 0.5})
        json.dumps(s)
        self.assertEqual(ns.file_text().splitlines()[1:], ["a 1", "b 0.5"])

    def test_parse_slow(self):
        self.assertEqual(variability.parse_slow("0.01:0.8"), (0.01, 0.8))
        self.assertEqual(variability.parse_slow("1:0.05"), (1.0, 0.05))
        for bad in ("0.01", "x:1", "0.1:0", "-0.1:0.5", "0.1:inf", "0.5:1e-300", "0.5:0.0499"):
            with self.assertRaises(CliError):
                variability.parse_slow(bad)


if __name__ == "__main__":
    unittest.main()
