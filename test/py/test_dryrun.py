"""simblas-hpl run --dry-run: the files a run is given (HPL.dat, platform.xml,
hostfile, run.sh) and smpirun's command.  The cases of dryrun/cases.txt
against the bytes main's script wrote (34d12cc; since, one change:
allocOnly's platform.xml comment, which held '--' and so was not
well-formed XML); then the checks moved from section 2 of
test/hpl-run.sh, option by option."""

import hashlib
import os
import re
import sys
import unittest
import xml.etree.ElementTree as ET

import dryrun_fixtures
from support import DATA, SRC, Sandbox

FIXTURES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "dryrun")


class SameFiles(unittest.TestCase):
    def test_cases_as_main_wrote_them(self):
        made = dryrun_fixtures.all_cases([sys.executable, os.path.join(SRC, "tools", "simblas-hpl.in")])
        self.assertEqual(len(made), len(dryrun_fixtures.cases()))
        for name, files in made.items():
            for fname in dryrun_fixtures.FILES:
                stored, text = dryrun_fixtures.stored(fname, files[fname])
                with self.subTest(case=name, file=fname):
                    with open(os.path.join(FIXTURES, name, stored)) as f:
                        self.assertEqual(text, f.read())
            with self.subTest(case=name, file="hpccinf.txt"):
                self.assertEqual(files["hpccinf.txt"], files["HPL.dat"])  # HPCC's HPL reads that name
            with self.subTest(case=name, file="platform.xml"):
                ET.fromstring(files["platform.xml"].split("\n", 2)[2])  # well-formed XML


def dat(d, line):
    """The value on HPL.dat's line (1-based)."""
    with open(os.path.join(d, "HPL.dat")) as f:
        return f.read().splitlines()[line - 1].split()[0]


def speed(xml):
    return float(re.search(r'speed="([^"f]+)f"', xml).group(1))


class DryRun(Sandbox):
    REF = 6.123456789e10  # data/measured.model's reference-speed

    def run_ok(self, *args, **kw):
        status, out, err, d = self.dry(*args, **kw)
        self.assertEqual(status, 0, err)
        return out, err, d

    def test_default_run(self):
        status, out, err, d = self.cli("run", "--n", 8000, "--p", 4, "--q", 4, "--dry-run", "--keep", self.path("d")) \
            + (self.path("d"),)
        self.assertEqual(status, 0, err)
        self.assertIn("simblas-hpl build", err)  # xhpl is not built: said, and the command names it anyway
        with open(os.path.join(d, "HPL.dat")) as f:
            lines = f.read().splitlines()
        self.assertEqual(len(lines), 31)
        self.assertEqual([dat(d, i) for i in (6, 8, 11, 12)], ["8000", "128", "4", "4"])  # N, NB (default), P, Q
        self.assertEqual([dat(d, i) for i in (5, 7, 10)], ["1", "1", "1"])  # one problem, one NB, one grid
        self.assertEqual(dat(d, 4), "6")  # device out: stdout
        # defaults: PMAP 0, threshold 16.0, PFACT 2, NBMIN 4, NDIV 2, RFACT 1
        self.assertEqual([dat(d, i) for i in (9, 13, 15, 17, 19, 21)], ["0", "16.0", "2", "4", "2", "1"])
        # BCAST 1, DEPTH 1, SWAP 2/64, L1 0, U 0, EQUIL 1, ALIGN 8
        self.assertEqual([dat(d, i) for i in (23, 25, 26, 27, 28, 29, 30, 31)],
                         ["1", "1", "2", "64", "0", "0", "1", "8"])
        self.assertIn("PFACTs (0=left, 1=Crout, 2=Right)", lines[14])  # upstream's descriptions
        self.assertIn("memory alignment in double (> 0)", lines[30])
        self.assertEqual(self.read(d, "hpccinf.txt"), self.read(d, "HPL.dat"))
        for want in ("-np 16", "-platform platform.xml", "-hostfile hostfile", "--cfg=smpi/privatization:no",
                     "LD_PRELOAD=", "--cfg=contexts/guard-size:0", "--cfg=smpi/shared-malloc-blocksize:2097152",
                     "--cfg=smpi/iprobe:0", "--cfg=smpi/test:0", "SIMBLAS_POLL_COST=1e-07", "SIMBLAS_POLL_USAGE=1",
                     "SIMBLAS_POLL_GROWTH=1", "--cfg=smpi/display-timing:yes", "--log=root.thres:warning",
                     "SIMBLAS_MODE=smpi", "OPENBLAS_NUM_THREADS=1", f"TMPDIR={d}/tmp",
                     f"SIMBLAS_MODEL={self.env['SIMBLAS_MODEL']}", "SIMBLAS_BLOCKING_WAITS=1",
                     # HPL's own code is timed by default, by SimBLAS within its merged
                     # injections, not by SMPI, whose CPU clock is then unused
                     "SIMBLAS_CODE_CLOCK=1", "--cfg=smpi/simulate-computation:no", "libsimblas_freeclock.so",
                     # one rank per core, no energy: owed waits join injections
                     "SIMBLAS_IDLE_MERGE=1"):
            self.assertIn(want, out)
        self.assertNotIn("plugin:host_energy", out)
        self.assertNotIn("SIMBLAS_ROLL_MERGE", out)  # HPL's own rolls by default
        self.assertIn("-np 16", self.read(d, "run.sh"))
        self.assertEqual(self.read(d, "hostfile").split(), [f"node-{i}" for i in range(16)])
        xml = self.read(d, "platform.xml")
        self.assertIn('platform version="4.1"', xml)
        self.assertIn('topology="FAT_TREE" topo_parameters="2;16,1;1,16;1,1"', xml)
        self.assertAlmostEqual(speed(xml), self.REF, delta=1e-9 * self.REF)
        for want in ('bw="10Gbps"', 'lat="24us"', 'core="1"'):
            self.assertIn(want, xml)

    def test_nominal_model_warned(self):
        # the nominal model (made-up rates) is named as such; a measured one is not
        nominal = os.path.join(os.environ.get("SB_BUILDDIR", ""), "models", "default.model")
        if not os.path.isfile(nominal):
            nominal = os.path.join(DATA, "nominal.model")
        with open(nominal) as f:
            self.assertRegex(f.read(), "(?m)^meta source nominal")
        err = self.run_ok("--n", 8000, "--p", 4, "--q", 4, "--model", nominal)[1]
        self.assertRegex(err, "is the nominal model.*make calibrate")
        err = self.run_ok("--n", 8000, "--p", 4, "--q", 4)[1]
        self.assertNotIn("nominal", err)

    def test_hpl_code(self):
        out = self.run_ok("--n", 1000, "--nb", 64, "--p", 2, "--q", 2, "--hpl-code", "free")[0]
        self.assertIn("--cfg=smpi/simulate-computation:no", out)
        self.assertIn("libsimblas_freeclock.so", out)  # SMPI's unused CPU clock without system calls
        # SMPI times HPL's code where SimBLAS does not: SIMBLAS_CODE_CLOCK=0, and --no-merge
        for how, extra, env in (("SIMBLAS_CODE_CLOCK=0", (), {"SIMBLAS_CODE_CLOCK": "0"}),
                                ("--no-merge", ("--no-merge",), None)):
            out = self.run_ok("--n", 8000, "--nb", 128, "--p", 4, "--q", 4, *extra, env=env)[0]
            with self.subTest(how=how):
                for no in ("libsimblas_freeclock.so", "simulate-computation", "SIMBLAS_CODE_CLOCK"):
                    self.assertNotIn(no, out)

    def test_passthrough(self):
        out = self.run_ok("--n", 1000, "--nb", 64, "--p", 2, "--q", 2, "--mode", "passthrough")[0]
        self.assertNotIn("simulate-computation", out)  # SMPI times the computation
        self.assertIn("SIMBLAS_MODE=passthrough", out)
        hs = float(re.search(r"--cfg=smpi/host-speed:([^ f]*)f", out).group(1))
        self.assertAlmostEqual(hs, self.REF, delta=1e-9 * self.REF)

    def test_what_if_and_energy(self):
        out, _, d = self.run_ok("--n", 20000, "--nb", 256, "--p", 4, "--q", 4, "--cores-per-node", 4,
                                "--speedup", 2, "--bw", "100Gbps", "--lat", "1.5us", "--energy", "100:120:200",
                                "--hpl-opt", "bcast=blongm", "--hpl-opt", "depth=0", "--hpl-opt", "swap=bin-exch",
                                "--hpl-opt", "threshold=32", "--hpl-opt", "pfact=crout", "--hpl-opt", "pmap=column")
        self.assertNotIn("SIMBLAS_BLOCKING_WAITS", out)  # --energy: HPL's spin-waits poll (polling power)
        self.assertNotIn("SIMBLAS_IDLE_MERGE", out)  # owed waits stay idle
        # BCAST 5, DEPTH 0, SWAP 0, threshold 32.0, PFACT 1, PMAP 1
        self.assertEqual([dat(d, i) for i in (23, 25, 26, 13, 15, 9)], ["5", "0", "0", "32.0", "1", "1"])
        self.assertEqual(self.read(d, "hostfile").split(), [f"node-{i}" for i in range(4) for _ in range(4)])
        xml = self.read(d, "platform.xml")
        self.assertAlmostEqual(speed(xml), 2 * self.REF, delta=2e-9 * self.REF)
        for want in ('core="4"', 'bw="100Gbps"', 'lat="1.5us"', "loopback_bw=", 'value="100:120:200"', "wattage_off"):
            self.assertIn(want, xml)
        # polls charged per rank by libsimblas_pmpi, at the polling load;
        # spin-waits poll, with the faster back-off
        for want in ("--cfg=plugin:host_energy", "--cfg=smpi/iprobe-cpu-usage:0.8", "--log=host_energy.thres:info",
                     "SIMBLAS_POLL_USAGE=0.8", "SIMBLAS_POLL_GROWTH=16", "SIMBLAS_POLL_MAX=1e-05"):
            self.assertIn(want, out)

    def test_iterations(self):
        # HPL's solve runs (and is measured) unless it would send more than
        # 2e6 messages, ceil(N/NB) steps of about 2P: it runs at 6,006 ranks
        # (583,000 messages), it is skipped at 41,000 (31 million)
        out, err, _ = self.run_ok("--n", 3875000, "--nb", 1024, "--p", 77, "--q", 78, "--iterations", 3,
                                  "--samples", 4)
        self.assertNotIn("SIMBLAS_SKIP_SOLVE", out)
        self.assertNotIn("without --samples", err)  # sampled passes are not warned of
        out = self.run_ok("--n", 30000000, "--nb", 384, "--p", 200, "--q", 205, "--iterations", 3,
                          "--platform", "fattree:3;40,25,41;1,40,25;1,1,1")[0]
        self.assertIn("SIMBLAS_SKIP_SOLVE=1", out)
        err = self.run_ok("--n", 8000, "--p", 4, "--q", 4, "--iterations", 5)[1]
        self.assertIn("without --samples extrapolates from the run's first", err)  # the first K alone are

    def test_opt_ins_reach_hpl(self):
        out = self.run_ok("--n", 8000, "--nb", 128, "--p", 4, "--q", 4, "--pivot-every", 32)[0]
        self.assertIn("SIMBLAS_PIVOT_EVERY=32", out)  # patch 13
        self.assertNotIn("SIMBLAS_PROBE", out)  # SMPI's own probe by default
        out = self.run_ok("--n", 8000, "--nb", 128, "--p", 4, "--q", 4, "--probe", "lagged")[0]
        self.assertIn("SIMBLAS_PROBE=lagged", out)  # libsimblas_pmpi's MPI_Iprobe, as Open MPI's
        out = self.run_ok("--n", 8000, "--nb", 128, "--p", 4, "--q", 4, "--roll-merge", 0)[0]
        self.assertIn("SIMBLAS_ROLL_MERGE=0", out)  # patch 14
        out = self.run_ok("--n", 8000, "--nb", 128, "--p", 4, "--q", 4, "--energy", "100:120:200")[0]
        self.assertNotIn("SIMBLAS_IDLE_MERGE", out)  # --energy: owed waits stay idle

    def test_platforms(self):
        d = self.run_ok("--n", 100000, "--nb", 256, "--p", 16, "--q", 32)[2]
        self.assertIn('topo_parameters="2;16,32;1,16;1,1"', self.read(d, "platform.xml"))  # 512 ranks' default
        d = self.run_ok("--n", 8000, "--nb", 128, "--p", 4, "--q", 4, "--platform", "fattree:2;4,4;1,2;1,1",
                        keep=self.path("ft"))[2]
        self.assertIn('topo_parameters="2;4,4;1,2;1,1"', self.read(d, "platform.xml"))  # a spec, verbatim
        d = self.run_ok("--n", 8000, "--nb", 128, "--p", 1, "--q", 3, "--platform", f"{DATA}/two.xml",
                        keep=self.path("x"))[2]
        self.assertEqual(self.read(d, "hostfile").split(), ["a", "a", "b"])  # its hosts and cores
        self.assertEqual(self.read(d, "platform.xml"), self.read(DATA, "two.xml"))
        # --placement random: the hostfile holds the hosts the seed draws, the platform is the same
        seq = self.read(self.run_ok("--n", 8000, "--nb", 128, "--p", 4, "--q", 4, keep=self.path("s"))[2], "hostfile")
        hosts = []
        for seed in ("1", "2"):
            d = self.run_ok("--n", 8000, "--nb", 128, "--p", 4, "--q", 4, "--placement", "random", "--seed", seed,
                            keep=self.path("r" + seed))[2]
            hosts.append(self.read(d, "hostfile").split())
            self.assertEqual(self.read(d, "platform.xml"), self.read(self.path("s"), "platform.xml"))
        self.assertEqual(sorted(hosts[0]), sorted(seq.split()))
        self.assertNotEqual(hosts[0], seq.split())
        self.assertNotEqual(hosts[0], hosts[1])
        # no --seed: SIMBLAS_SEED's default in lib/settings.def, 1, which libsimblas takes too
        d = self.run_ok("--n", 8000, "--nb", 128, "--p", 4, "--q", 4, "--placement", "random", keep=self.path("r"))[2]
        self.assertEqual(self.read(d, "hostfile").split(), hosts[0])
        status, _, err, _ = self.dry("--n", 8000, "--nb", 128, "--p", 1, "--q", 3, "--platform", f"{DATA}/two.xml",
                                     "--placement", "random")
        self.assertEqual(status, 2)
        self.assertIn("with --platform FILE.xml, say where each rank runs with --hostfile", err)


class Fixtures(unittest.TestCase):
    def test_large_files_are_digests(self):
        for name, _ in dryrun_fixtures.cases():
            for fname in os.listdir(os.path.join(FIXTURES, name)):
                if fname.endswith(".sha256"):
                    with open(os.path.join(FIXTURES, name, fname)) as f:
                        self.assertRegex(f.read(), "^[0-9a-f]{64}\n$")
        self.assertEqual(dryrun_fixtures.stored("x", "y" * (dryrun_fixtures.BIG + 1)),
                         ("x.sha256", hashlib.sha256(b"y" * (dryrun_fixtures.BIG + 1)).hexdigest() + "\n"))


if __name__ == "__main__":
    unittest.main()
