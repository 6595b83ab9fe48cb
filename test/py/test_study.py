"""simblas-hpl study (study.py, verbs/study.py) with the fake simulator of
test_engine: the design (full factorial, listed points, replicates), bad
study files (file:line and what is wrong, the valid factors, a level `run`
refuses refusing the whole study before anything is written), the run,
resumed, status, collect (results.csv, means.csv, 95% intervals from
scipy's t quantiles) and plot."""

import csv
import fcntl
import glob
import json
import os
import socket
import subprocess
import shutil
import unittest
from unittest import mock

from support import SRC, fake_build
from test_engine import FAKE, EngineCase
from test_network import network_text
from test_variability import TWO_CORES
from simblas_hpl import points, study, study_plot, study_stats

GOOD = """# a study
[study]
name = "grid"
replicates = 3
outputs = ["gflops", "hpl_time_s"]

[base]
nb = 128
hpl-code = "free"
hpl.bcast = 5

[factors]
n = [1000, 2000]
p = [1, 2]
q = [2]
"""
# the fake simulator's Gflops: N / 1000 + SIMBLAS_SEED / 100
SEEDED = FAKE.replace('"$(awk -v n=$n \'BEGIN { printf "%.3e", n / 1000 }\')"',
                      '"$(awk -v n=$n -v s=${SIMBLAS_SEED:-0} \'BEGIN { printf "%.4e", n / 1000 + s / 100 }\')"')


def have_scipy():
    try:
        import scipy.stats  # noqa: F401
        return True
    except ImportError:
        return False


class Study(EngineCase):
    def setUp(self):
        super().setUp()
        with open(self.env["SMPIRUN"], "w") as f:
            f.write(SEEDED.replace("{calls}", self.calls))
        fake_build(os.path.join(self.env["XDG_DATA_HOME"], "simblas", "hpl"), "hpcc-1.5.0", "/src/hpcc.tar.gz",
                   "2026-11-25T10:00:00+00:00", default=True)
        cwd = os.getcwd()
        os.chdir(self.root)
        self.addCleanup(os.chdir, cwd)

    def write(self, text, name="grid.toml"):
        with open(self.path(name), "w") as f:
            f.write(text)
        return self.path(name)

    def test_design(self):
        s = study.load(self.write(GOOD))
        self.assertEqual((s.name, s.design, s.seeds, s.dir), ("grid", "factorial", [1, 2, 3], self.path("grid")))
        self.assertEqual(len(s.points), 12)
        self.assertEqual(len({p.id for p in s.points}), 12)
        p = s.points[0]
        self.assertEqual((p.factors, p.seed), ({"n": 1000, "p": 1, "q": 2}, 1))
        self.assertRegex(p.id, r"^n-1000_p-1_q-2_seed-1_[0-9a-f]{6}$")
        o = p.options
        self.assertEqual((o.n, o.nb, o.p, o.q, o.hpl_code, dict(o.hpl), o.seed),
                         (1000, 128, 1, 2, "free", {"bcast": 5}, 1))
        self.assertIs(type(o.hpl["bcast"]), int)  # the study's value, not a KEY=VALUE text
        self.assertEqual([(p.factors["n"], p.factors["p"], p.seed) for p in s.points[:4]],
                         [(1000, 1, 1), (1000, 1, 2), (1000, 1, 3), (1000, 2, 1)])
        # listed points, one replicate, a platform spec made a directory name
        s = study.load(self.write('[base]\nn = 2000\np = 2\nq = 2\n[[points]]\nbw = "1Gbps"\n'
                                  '[[points]]\nplatform = "fattree:2;4,1;1,2;1,1"\nhpl.depth = 0\n', "pts.toml"))
        self.assertEqual(s.design, "points")
        self.assertEqual([p.values for p in s.points], [None, None])  # known once planned
        study.settle(s, study.plan_points(s))
        # a factor a point does not set: what its run uses (its plan's), never a guess
        self.assertEqual(s.factors, {"bw": ["10Gbps", "1Gbps"], "platform": ["fattree:2;4,1;1,4;1,1",
                                                                           "fattree:2;4,1;1,2;1,1"],
                                     "hpl.depth": [1, 0]})
        self.assertEqual([p.values for p in s.points],
                         [{"bw": "1Gbps", "platform": "fattree:2;4,1;1,4;1,1", "hpl.depth": 1},
                          {"bw": "10Gbps", "platform": "fattree:2;4,1;1,2;1,1", "hpl.depth": 0}])
        self.assertEqual([p.factors for p in s.points],
                         [{"bw": "1Gbps", "platform": None, "hpl.depth": None},
                          {"bw": None, "platform": "fattree:2;4,1;1,2;1,1", "hpl.depth": 0}])
        self.assertRegex(s.points[1].id, r"^platform-fattree-2-4-1-1-2-1-1_hpl.depth-0_[0-9a-f]{6}$")
        self.assertEqual((s.points[0].options.bw, s.points[1].options.bw), ("1Gbps", None))
        self.assertEqual(dict(s.points[1].options.hpl), {"depth": 0})
        self.assertEqual(s.outputs, ["gflops", "hpl_time_s", "wall_s"])
        # listed points crossed with factors: each point at each level
        s = study.load(self.write('[base]\np = 2\nq = 2\n[factors]\nn = [1000, 2000]\n[[points]]\n[[points]]\n'
                                  'speedup = 10\n[[points]]\nbw = "1Gbps"\n', "cross.toml"))
        study.settle(s, study.plan_points(s))
        self.assertEqual((s.design, s.factors), ("points x factorial", {"n": [1000, 2000], "speedup": [1.0, 10.0],
                                                                        "bw": ["10Gbps", "1Gbps"]}))
        self.assertEqual([(p.factors["n"], p.factors["speedup"], p.factors["bw"]) for p in s.points],
                         [(1000, None, None), (2000, None, None), (1000, 10.0, None), (2000, 10.0, None),
                          (1000, None, "1Gbps"), (2000, None, "1Gbps")])
        s = study.load(self.write('[study]\nseeds = [7]\ndir = "out/here"\n[base]\nn = 1000\n', "one.toml"))
        self.assertEqual(([p.seed for p in s.points], s.dir), ([7], self.path("out", "here")))

    def csv(self, *parts):
        with open(self.path(*parts), newline="") as f:
            return list(csv.DictReader(f))

    def refused(self, text, pattern):
        path = self.write(text, "bad.toml")
        status, out, err = self.cli("study", path)
        with self.subTest(text=text):
            self.assertEqual((status, err.count("\n")), (2, 1), err)
            self.assertRegex(err, pattern)
            self.assertFalse(os.path.exists(self.path("bad")), "the study directory was made")
            self.assertEqual(self.ran(), [])
        return err

    def test_bad_files(self):
        b = "bad.toml"
        self.refused("[base]\nn = 1000\np = [1,\n", rf"{b}:3: Invalid value \(not valid TOML\)")
        self.refused("[base]\nn = 1000\nn = 2000\n", rf"{b}:3: Cannot overwrite a value \(not valid TOML\)")
        err = self.refused("[base]\nn = 1000\n\n[factors]\np = [1]\nspeed = [1, 2]\n",
                           rf"{b}:6: unknown factor or option 'speed'; the valid ones are .*")
        valid = err.split("the valid ones are ")[1].strip().split(", ")
        for name in ("speedup", "host-speed", "node-spread", "slow-nodes", "noise", "hpl-opt", "hpl.bcast", "bw"):
            self.assertIn(name, valid)
        self.refused("[base]\nseed = 3\n", rf"{b}:2: unknown factor or option 'seed'; replicates \(seeds\) are set "
                                           r"in \[study\]")
        self.refused("[factors]\nhpl.bcst = [1, 5]\n", rf"{b}:2: unknown HPL setting 'hpl.bcst'; the HPL settings "
                                                       "are hpl.pmap, ")
        self.refused("[factors.hpl]\nnbmin = [2]\nbcst = [1, 5]\n", rf"{b}:3: unknown HPL setting 'hpl.bcst'")
        self.refused("[base]\np = 2\n[factors]\nn = [1000, \"big\"]\n", rf"{b}:4: n = 'big': expected a whole number")
        self.refused("[factors]\nbw = [10]\n", rf"{b}:2: bw = 10: expected a text in quotes")
        self.refused("[factors]\nn = 1000\n", rf"{b}:2: n = 1000: a factor has a list of levels")
        self.refused("[base]\nn = 1000\n[factors]\nn = [1000, 2000]\n", rf"{b}:4: n is both in \[base\] and a factor")
        # one HPL.dat key in two places, in whichever spelling: the base's silently won over the factor's levels
        self.refused('[base]\nn = 1000\nhpl.bcast = 5\n[factors]\nhpl-opt = [["bcast=0"], ["bcast=2"]]\n',
                     rf"{b}:5: hpl-opt sets HPL's bcast, which \[base\] sets too \(hpl.bcast\): every level would run "
                     r"\[base\]'s value; keep it in one place")
        self.refused('[base]\nhpl-opt = ["depth=0"]\n[factors]\nhpl.depth = [1, 2]\n',
                     rf"{b}:4: hpl.depth sets HPL's depth, which \[base\] sets too \(hpl-opt\)")
        self.refused('[base]\nhpl-opt = ["bcast=1"]\n[[points]]\nhpl.bcast = 2\n',
                     rf"{b}:4: hpl.bcast sets HPL's bcast, which \[base\] sets too \(hpl-opt\)")
        self.refused('[factors]\nhpl.bcast = [1, 2]\n[[points]]\nhpl-opt = ["bcast=0"]\n',
                     rf"{b}:4: hpl-opt sets HPL's bcast, which factor hpl.bcast sets too")
        self.refused('[base]\nhpl.bcast = 1\nhpl-opt = ["bcast=2"]\n',
                     rf"{b}:3: hpl-opt sets HPL's bcast, which hpl.bcast sets too")
        self.refused("[factors]\nn = [1000]\n[[points]]\np = 2\n[[points]]\nn = 2000\n",
                     rf"{b}:6: n is both a factor and in a point")
        self.refused("[study]\nreplicats = 3\n", rf"{b}:2: unknown key 'replicats' in \[study\]; its keys are name, ")
        self.refused("[study]\nreplicates = 0\n", rf"{b}:2: replicates = 0: expected a whole number from 1 to 100,000")
        # sizes found by bench/fuzz-inputs: refused at once, not a traceback or a list of 2**63 seeds
        self.refused("[study]\nreplicates = 9223372036854775808\n", rf"{b}:2: replicates = 9223372036854775808: ")
        self.refused("[study]\nseeds = [1, 18446744073709551616]\n",
                     rf"{b}:2: seeds: expected a list of distinct whole numbers from 0 to 18446744073709551615")
        levels = "[" + ", ".join(str(1000 * i) for i in range(1, 101)) + "]"
        self.refused(f"[study]\nreplicates = 11\n[factors]\nn = {levels}\nnb = {levels}\n",
                     rf"{b}:3: 110,000 points with the replicates: more than 100,000, which is surely not what was "
                     "meant; fewer levels or replicates, or split the study")
        self.refused("[factors]\nn = " + levels + "\n" + "[[points]]\np = 1\n" * 1001,
                     rf"{b}:3: 100,100 points with the replicates: more than 100,000")
        self.refused("[study]\noutputs = [\"gflop\"]\n", rf"{b}:2: unknown output 'gflop'; the outputs are gflops, ")
        self.refused("[study]\noutputs = [\"gflops\", \"wall_s\", \"gflops\"]\n",
                     rf"{b}:2: outputs: gflops given twice; give each output once")
        # [study] not a table: a traceback ('int' object is not iterable), or a text's letters unknown keys
        for text, line in (("study = 5\n[base]\nn = 1000\n", 1), ('# s\nstudy = "abc"\n', 2),
                           ('# s\n[[study]]\nname = "x"\n', 2)):
            self.refused(text, rf"^simblas-hpl: \S*{b}:{line}: \[study\] must be a table of name, replicates, seeds, "
                               r"outputs, dir \(e\.g\. \[study\] then replicates = 3 on a line of its own\)$")
        # no point at all: a study of none, 'run' with status 0
        self.refused("# s\npoints = []\n[base]\nn = 1000\n",
                     rf"^simblas-hpl: \S*{b}:2: points = \[\]: no point is listed; give \[\[points\]\] tables, or drop "
                     "points")
        self.refused("[sweep]\nn = 1\n", rf"{b}:1: unknown section \[sweep\]")
        self.refused("# top\nn = 1\n", rf"{b}:2: unknown section \[n\]")
        self.refused("[[points]]\nn = 1000\n[[points]]\nnn = 2000\n", rf"{b}:4: unknown factor or option 'nn'")

    def test_engine_options_refused(self):
        """--per-task on this machine and -j on Slurm did nothing, without a
        word; --per-task 0 was refused by the engine once the study's
        directory was written, and with --dry-run not at all."""
        path = self.write("[base]\nn = 1000\np = 1\nq = 2\n", "bad.toml")
        for args, msg in ((("--per-task", 4), r"--per-task 4: goes with --engine slurm \(points per array task\); -j N "
                                                "sets the points at once here"),
                          (("--per-task", 0, "--engine", "slurm", "--dry-run"), r"--per-task 0: must be >= 1"),
                          (("--per-task", -2, "--engine", "slurm"), r"--per-task -2: must be >= 1"),
                          (("-j", 2, "--engine", "slurm"), r"-j 2: goes with --engine local; on Slurm each array task "
                                                            "runs --per-task K points")):
            status, out, err = self.cli("study", path, *args)
            with self.subTest(args=args):
                self.assertEqual((status, err.count("\n")), (2, 1), err)
                self.assertRegex(err, rf"^simblas-hpl: {msg}$")
                self.assertFalse(os.path.exists(self.path("bad")), "the study directory was made")
        self.assertEqual(self.ran(), [])

    def test_examples(self):
        """Every study file of examples/studies/ is valid: read, and every
        point planned by run's checks, as `study` does before running."""
        files = sorted(glob.glob(os.path.join(SRC, "examples", "studies", "*.toml")))
        self.assertGreaterEqual(len(files), 8)
        model = self.path("cores.model")  # as a calibration writes it: per-core sets (--node-speeds model), noise terms
        with open(model, "w") as f:
            f.write(TWO_CORES)
        for f in files:
            with self.subTest(f=os.path.basename(f)), mock.patch.dict(os.environ, {"SIMBLAS_MODEL": model}):
                s = study.load(f, dir_opt=self.path("ex"))
                self.assertGreater(len(s.points), 0)
                self.assertEqual(len(study.plan_points(s)), len(s.points))

    def test_unset_factors_are_what_ran(self):
        """A factor a point does not set is what its run used (here the
        network file's link, 1.25e9 B/s), not a guess (10Gbps, 24us): a
        1.25 GB/s run and a 10 Gbps one were averaged as two replicates of
        bw=10Gbps, and collect wrote the guess over the JSON's bw."""
        with open(self.path("n.network"), "w") as f:
            f.write(network_text())
        path = self.write(f'[base]\nn = 1000\np = 1\nq = 2\nnetwork = "{self.path("n.network")}"\n'
                          '[[points]]\nlat = "1us"\n[[points]]\nlat = "1us"\nbw = "10Gbps"\n', "lab.toml")
        status, out, err = self.cli("study", path, "-j", 1)
        self.assertEqual(status, 0, err)
        rows = self.csv("lab", "results.csv")
        self.assertEqual([(r["lat"], r["bw"]) for r in rows], [("1us", "1.25e+09Bps"), ("1us", "10Gbps")])
        self.assertEqual([(m["bw"], m["replicates"]) for m in self.csv("lab", "means.csv")],
                         [("1.25e+09Bps", "1"), ("10Gbps", "1")])
        self.assertEqual(self.read(self.path("lab", "study.json")).count('"bw": "1.25e+09Bps"'), 1)
        # a level written otherwise than the JSON writes it: the JSON's value is kept beside it
        path = self.write('[base]\nn = 1000\np = 1\nq = 2\n[factors]\nhpl.bcast = ["1rM", "2rM"]\n', "sp.toml")
        self.assertEqual(self.cli("study", path, "-j", 1)[0], 0)
        self.assertEqual([(r["hpl.bcast"], r["run.hpl.bcast"]) for r in self.csv("sp", "results.csv")],
                         [("1rM", "1"), ("2rM", "3")])

    def test_same_run_twice(self):
        """Two points that are one run (the same [[points]] twice, two
        empty ones, a point at what the base gives) ran once and counted as
        two replicates with an interval of width 0."""
        self.refused('[base]\nn = 1000\np = 1\nq = 2\n[[points]]\nbw = "1Gbps"\n[[points]]\nbw = "1Gbps"\n',
                     r"bad.toml:7: \[\[points\]\] 2 \(bw=1Gbps\) is the same run as \[\[points\]\] 1 \(bw=1Gbps\): it would "
                     r"run once and count as two replicates; list each point once")
        self.refused('[study]\nreplicates = 2\n[base]\nn = 1000\np = 1\nq = 2\n[[points]]\n[[points]]\n',
                     r"bad.toml:8: \[\[points\]\] 2 \(the base run\) is the same run as \[\[points\]\] 1 \(the base run\)")
        self.refused('[base]\nn = 1000\np = 1\nq = 2\n[[points]]\n[[points]]\nbw = "10Gbps"\n',
                     r"\[\[points\]\] 2 \(bw=10Gbps\) is the same run as \[\[points\]\] 1 \(the base run\)")
        self.refused('[base]\nn = 1000\np = 1\nq = 2\n[factors]\nhpl.bcast = [1, "1rM"]\n',
                     r"bad.toml:6: hpl.bcast: a level is given twice \(some perhaps spelled otherwise")
        self.refused('[base]\nn = 1000\np = 1\nq = 2\n[factors]\nhpl-opt = [["bcast=1rM"], ["bcast=1"]]\n',
                     r"bad.toml:6: hpl-opt: a level is given twice")

    def test_one_level_one_spelling(self):
        """Listed points that give one HPL setting two spellings ("1rM",
        1) are at one level: one value on the axis and in means.csv (a plot
        showed 1rM and 1 as two levels)."""
        path = self.write('[base]\nn = 1000\np = 1\nq = 2\n[[points]]\nnb = 100\nhpl.bcast = "1rM"\n'
                          '[[points]]\nnb = 128\nhpl.bcast = 1\n[[points]]\nnb = 128\nhpl.bcast = "lnm"\n', "sp.toml")
        self.assertEqual(self.cli("study", path, "-j", 1)[0], 0)
        self.assertEqual([(m["nb"], m["hpl.bcast"]) for m in self.csv("sp", "means.csv")],
                         [("100", "1rM"), ("128", "1rM"), ("128", "lnm")])

    def test_a_level_run_refuses_refuses_the_whole_study(self):
        err = self.refused("[base]\nn = 1000\np = 2\nq = 2\n[factors]\nspeedup = [1, 1e9]\n",
                           r"bad.toml: point speedup=1000000000.0: --speedup 1e\+09: out of range; .*"
                           r"\(nothing was run\)")
        self.refused("[base]\nn = 1000\n[factors]\np = [2, 4]\nq = [2]\nnb = [128, 2000]\n",
                     r"point p=2 q=2 nb=2000: --n 1000 is smaller than --nb 2000")

    def test_run_status_collect_resume(self):
        path = self.write(GOOD.replace("n = [1000, 2000]", "n = [1000, 3000]"))  # N = 3000 fails
        status, out, err = self.cli("study", path, "-j", 2)
        self.assertEqual(status, 1, err)
        self.assertIn("6 point(s) failed (above); run the study again to retry them", err)
        self.assertEqual(self.ran(), [1000] * 6 + [3000] * 6)
        status, out, err = self.cli("study", "status", self.path("grid"))
        self.assertEqual(status, 1)
        self.assertIn("12 point(s): 6 done, 0 running, 0 queued, 6 failed, 0 to do", out)
        self.assertEqual(out.count("  failed   n-3000_"), 6)
        self.assertIn("smpirun exited with status 3", out)
        rows = self.csv("grid", "results.csv")
        self.assertEqual(len(rows), 6)
        r = rows[0]
        self.assertEqual((r["n"], r["p"], r["q"], r["seed"], r["gflops"], r["hpl.bcast"], r["hpl_code"]),
                         ("1000", "1", "2", "1", "1.01", "5", "free"))
        self.assertTrue(r["point"].startswith("n-1000_p-1_q-2_seed-1_"))
        self.assertEqual(r["gflops_n"], "3")
        self.assertAlmostEqual(float(r["gflops_mean"]), 1.02)
        if have_scipy():  # t(0.975, 2) = 4.302653: the 95% interval of 1.01, 1.02, 1.03
            self.assertAlmostEqual(float(r["gflops_ci95"]), 4.302652729911275 * 0.01 / 3 ** 0.5, places=9)
        means = self.csv("grid", "means.csv")
        self.assertEqual([(m["n"], m["p"], m["replicates"]) for m in means], [("1000", "1", "3"), ("1000", "2", "3")])
        # the study file fixed: only the failed points run again
        status, out, err = self.cli("study", path, "-j", 2, "--no-retry")
        self.assertEqual((status, self.ran()), (1, [1000] * 6 + [3000] * 6))
        status, out, err = self.cli("study", path, "-j", 2)
        self.assertEqual((status, self.ran()), (1, [1000] * 6 + [3000] * 12))  # retried, failed again
        # a changed base is refused while done points would mix with new ones
        self.write(GOOD.replace("n = [1000, 2000]", "n = [1000, 3000]").replace("nb = 128", "nb = 100"))
        status, out, err = self.cli("study", path)
        self.assertEqual((status, err.count("\n")), (2, 1), err)
        self.assertRegex(err, r"was run with other settings than .*grid.toml now gives \(nb 128 -> 100\).*give another "
                              r"--dir, or remove that point's directory")
        self.assertEqual(len(self.ran()), 18)
        # into another directory, with N = 2000: all run and all are collected, atomically
        self.write(GOOD)
        status, out, err = self.cli("study", path, "--dir", self.path("g2"), "-j", 2)
        self.assertEqual(status, 0, err)
        self.assertIn("results.csv: 12 of 12 point(s)", err)
        self.assertEqual(sorted(os.listdir(self.path("g2"))), ["means.csv", "points", "results.csv", "study.json",
                                                               "study.toml"])
        self.assertFalse([f for f in os.listdir(self.path("g2")) if f.endswith(".new")])
        self.assertEqual(len(self.csv("g2", "results.csv")), 12)
        status, out, err = self.cli("study", "status", path, "--dir", self.path("g2"))
        self.assertEqual(status, 0)
        self.assertIn("12 done, 0 running, 0 queued, 0 failed, 0 to do", out)

    def test_changed_inputs_and_busy_points(self):
        """A second study on the directory is refused when a point done,
        running or queued would mix with other settings: the model's
        content changed under the same path (was accepted, the done points
        kept), a base changed while a point runs (was accepted, even with
        --dry-run, and the queued points' plans rewritten); collect refuses
        a done point that study.json does not describe."""
        path = self.write(GOOD.replace("replicates = 3", "replicates = 1"))
        self.assertEqual(self.cli("study", path, "-j", 2)[0], 0)
        with open(self.env["SIMBLAS_MODEL"], "a") as f:
            f.write("# recalibrated\n")
        status, out, err = self.cli("study", path, "--dry-run")
        self.assertEqual((status, err.count("\n")), (2, 1), err)
        self.assertRegex(err, r"was run with other settings than .*grid.toml now gives \(the content of its model file "
                              r"\(model_sha256 [0-9a-f]{12} -> [0-9a-f]{12}\)\).*give another --dir")
        # a directory made before the content was recorded stays usable
        for d in glob.glob(self.path("grid", "points", "*")):
            info = points.info(d)
            del info["content"]
            points._write_json(os.path.join(d, "point.json"), info)
        self.assertEqual(self.cli("study", path, "--dry-run")[0], 0)
        # a point running (its lock held) with a changed base: refused, its plan kept
        path = self.write(GOOD.replace("replicates = 3", "replicates = 1"), "busy.toml")
        self.assertEqual(self.cli("study", path, "--dry-run")[0], 0)
        point = sorted(glob.glob(self.path("busy", "points", "*")))[0]
        plan = self.read(point, "point.json")
        fd = os.open(os.path.join(point, "lock"), os.O_RDWR | os.O_CREAT)
        fcntl.flock(fd, fcntl.LOCK_EX)
        try:
            self.write(GOOD.replace("replicates = 3", "replicates = 1").replace("nb = 128", "nb = 100"), "busy.toml")
            status, out, err = self.cli("study", path, "--dry-run")
        finally:
            os.close(fd)
        self.assertEqual((status, err.count("\n")), (2, 1), err)
        self.assertRegex(err, r"points/n-\d+_p-\d_q-2_\w+ is running with other settings than .*busy.toml now gives "
                              r"\(nb 128 -> 100\).* once it has ended")
        self.assertEqual(self.read(point, "point.json"), plan)
        # collect: a done point of another design (a study run before this check) is named, not mixed in
        self.write(GOOD.replace("replicates = 3", "replicates = 1"), "busy.toml")
        self.assertEqual(self.cli("study", path, "-j", 2)[0], 0)
        info = points.info(point)
        info["options"]["nb"] = 100
        points._write_json(os.path.join(point, "point.json"), info)
        status, out, err = self.cli("study", "collect", path)
        self.assertEqual((status, err.count("\n")), (2, 1), err)
        self.assertRegex(err, r"was run with other settings than .*busy/study.json gives \(nb 100 -> 128\): its "
                              r"result is not this study's; remove that point's directory")

    def test_collect_without_scipy(self):
        path = self.write(GOOD)
        self.assertEqual(self.cli("study", path, "-j", 2)[0], 0)
        with mock.patch.dict("sys.modules", {"scipy": None, "scipy.stats": None}):
            status, out, err = self.cli("study", "collect", path)
        self.assertEqual(status, 0, err)
        self.assertIn("the 95% intervals need scipy's t quantiles, and scipy is not installed: the means are written, "
                      "their intervals left empty (Debian: apt-get install python3-scipy)", err)
        r = self.csv("grid", "results.csv")[0]
        self.assertEqual((r["gflops_ci95"], r["gflops_mean"] != ""), ("", True))

    @unittest.skipUnless(shutil.which("gnuplot"), "gnuplot is not installed")
    def test_plot(self):
        path = self.write(GOOD)
        self.assertEqual(self.cli("study", path, "-j", 2)[0], 0)
        status, out, err = self.cli("study", "plot", path)
        self.assertEqual(status, 0, err)
        figs = sorted(os.path.basename(f) for f in out.split())
        # gflops and hpl_time_s, against n, p and q, and over (n, p); q has one level
        self.assertEqual(figs, sorted(f"{o}-{what}.svg" for o in ("gflops", "hpl_time_s")
                                      for what in ("vs-n", "vs-p", "vs-q", "n-p")))
        for f in figs:
            for ext in ("svg", "png"):
                self.assertGreater(os.path.getsize(self.path("grid", "plots", f[:-3] + ext)), 1000)
        self.assertIn("yerrorlines", self.read(self.path("grid", "plots", "gflops-vs-n.gp")))
        self.assertIn("with image", self.read(self.path("grid", "plots", "gflops-n-p.gp")))

    def test_axes(self):
        self.assertEqual(study_plot.axis("platform", ["fattree:2;16,32;1,16;1,1", "fattree:2;16,32;1,1;1,1"]),
                         ("platform (fattree:2;16,32;1,*;1,1)", ["16", "1"], [16.0, 1.0]))
        self.assertEqual(study_plot.axis("bw", ["1Gbps", "100Gbps"]), ("bw (*Gbps)", ["1", "100"], [1.0, 100.0]))
        self.assertEqual(study_plot.axis("bw", ["10Gbps", "10Mbps"]), ("bw", ["10Gbps", "10Mbps"], None))
        self.assertEqual(study_plot.axis("node_spread", [0, 3.5]), ("node-spread", ["0", "3.5"], [0.0, 3.5]))

    def test_unreadable_files(self):
        """A truncated result.json counted as done for status and the
        engine but was missing for collect, never named nor redone; a
        truncated study.json said 'missing', {"format": 1} was a KeyError."""
        path = self.write(GOOD.replace("replicates = 3", "replicates = 1"))
        self.assertEqual(self.cli("study", path, "-j", 2)[0], 0)
        self.assertEqual(len(self.ran()), 4)
        point = sorted(glob.glob(self.path("grid", "points", "*")))[0]
        with open(os.path.join(point, "result.json"), "r+") as f:
            f.truncate(40)
        status, out, err = self.cli("study", "status", path)
        self.assertEqual(status, 1, err)
        self.assertIn("4 point(s): 3 done, 0 running, 0 queued, 0 failed, 1 with an unreadable result, 0 to do", out)
        self.assertIn(f"  unreadable {os.path.basename(point)}: {point}/result.json is not a run's summary", out)
        status, out, err = self.cli("study", "collect", path)
        self.assertEqual(status, 0, err)
        self.assertIn(f"1 point(s) have a result.json that cannot be read (truncated or corrupt), left out: "
                      f"{os.path.basename(point)}; run the study again to redo them", err)
        self.assertEqual(len(self.csv("grid", "results.csv")), 3)
        status, out, err = self.cli("study", path, "-j", 2)
        self.assertEqual(status, 0, err)
        self.assertEqual(len(self.ran()), 5)  # that point, again
        self.assertTrue(os.path.exists(os.path.join(point, "result.json.unreadable")))
        self.assertEqual(len(self.csv("grid", "results.csv")), 4)
        for text, why in (('{"format": 1, "na', "not readable JSON: truncated or corrupt"), ('{"format": 1}', "no name"),
                          ('[1]', "not a JSON object")):
            with open(self.path("grid", "study.json"), "w") as f:
                f.write(text)
            for action in ("status", "collect", "plot"):
                status, out, err = self.cli("study", action, path)
                with self.subTest(text=text, action=action):
                    self.assertEqual((status, err.count("\n")), (2, 1), err)
                    self.assertIn(f"study.json: not a study's design ({why}): run `simblas-hpl study FILE.toml` "
                                  "again", err)

    def test_orphaned_point_is_not_success(self):
        """A point whose worker was killed (kill -9) with its simulator
        still running ended the study with 0 done, 1 orphaned, status 0."""
        path = self.write("[base]\nn = 1000\np = 1\nq = 2\n", "one.toml")
        self.assertEqual(self.cli("study", path, "--dry-run")[0], 0)
        point = glob.glob(self.path("one", "points", "*"))[0]
        dead = subprocess.Popen(["true"])
        dead.wait()
        with open(os.path.join(point, "running.json"), "w") as f:
            json.dump({"host": socket.gethostname(), "pid": dead.pid, "started": "now"}, f)
        fd = os.open(os.path.join(point, "lock"), os.O_RDWR | os.O_CREAT)
        fcntl.flock(fd, fcntl.LOCK_EX)  # the orphaned simulator's
        try:
            status, out, err = self.cli("study", path)
        finally:
            os.close(fd)
        self.assertEqual(status, 1, err)
        self.assertIn("1 point(s) lost their worker (killed: kill -9, the OOM killer) and have no result", err)
        self.assertEqual(self.ran(), [])

    def test_points_their_slurm_job_never_ran_are_not_success(self):
        """A --wait whose job was cancelled (scancel) or killed before it ran
        its points ended the study 0 done, N to do, status 0."""
        path = self.write("[base]\nn = 1000\np = 1\nq = 2\n[factors]\nnb = [64, 128]\n", "two.toml")
        bin_ = self.path("bin")
        os.makedirs(bin_)
        for name, body in (("sinfo", "echo local"), ("sbatch", "echo 77"), ("squeue", "exit 0")):  # the job gone
            with open(os.path.join(bin_, name), "w") as f:
                f.write(f"#!/bin/sh\n{body}\n")
            os.chmod(os.path.join(bin_, name), 0o755)
        status, out, err = self.cli("study", path, "--engine", "slurm", "--wait",
                                    env={"PATH": bin_ + os.pathsep + self.env["PATH"]})
        self.assertEqual(status, 1, err)
        self.assertIn("0 done, 0 running, 0 queued, 0 failed, 2 to do", err)
        self.assertIn("2 point(s) were not run (their Slurm job ended without them: cancelled, out of time, "
                      "or a node lost): run the study again to run them", err)
        self.assertEqual(self.ran(), [])

    def test_status_says_when_slurm_cannot_tell_a_queued_point(self):
        """Points queued in a job cancelled since were shown '4 queued' with
        no word that squeue had failed (a stopped controller, no squeue)."""
        path = self.write("[base]\nn = 1000\np = 1\nq = 2\n", "one.toml")
        self.assertEqual(self.cli("study", path, "--dry-run")[0], 0)
        point = glob.glob(self.path("one", "points", "*"))[0]
        with open(os.path.join(point, "queued.json"), "w") as f:
            json.dump({"job": "61", "task": 0}, f)
        bin_ = self.path("bin")
        os.makedirs(bin_)
        with open(os.path.join(bin_, "squeue"), "w") as f:
            f.write("#!/bin/sh\necho 'squeue: error: Unable to contact slurm controller' >&2\nexit 1\n")
        os.chmod(os.path.join(bin_, "squeue"), 0o755)
        status, out, err = self.cli("study", "status", path, env={"PATH": bin_ + os.pathsep + self.env["PATH"]})
        self.assertEqual(status, 0, err)
        self.assertIn("1 queued", out)
        self.assertIn("Slurm did not answer (squeue failed or is missing) about job 61: its 1 point(s) are shown "
                      "queued as submitted, which it may no longer hold", out)

    def test_dir_that_cannot_be(self):
        """--dir on a file's path or in /proc was a traceback; with a comma it
        was accepted and every point failed in SimGrid."""
        path = self.write("[base]\nn = 1000\np = 1\nq = 2\n", "one.toml")
        with open(self.path("file"), "w") as f:
            f.write("x")
        for d, pattern in ((self.path("file", "s"), r"--dir .*file/s cannot be made: .*file is not a directory"),
                           ("/proc/simblas-study", r"--dir /proc/simblas-study(/points: cannot make the directory| cannot be made)"),
                           (self.path("a,b"), r"the study directory .*a,b' contains a comma, at which SimGrid splits "
                                              r"its options; use --dir DIR without commas")):
            status, out, err = self.cli("study", path, "--dir", d, "--dry-run")
            with self.subTest(d=d):
                self.assertEqual((status, err.count("\n")), (2, 1), err)
                self.assertRegex(err, pattern)
        self.assertFalse(os.path.exists(self.path("a,b")))

    def test_no_study_there(self):
        status, out, err = self.cli("study", "status", self.root)
        self.assertEqual(status, 2)
        self.assertIn("no study there yet (study.json is missing): run `simblas-hpl study FILE.toml` first", err)
        status, out, err = self.cli("study", "status")
        self.assertEqual(status, 2)
        self.assertIn("study status: give the study file or directory", err)

    def test_a_directory_with_dir(self):
        """status|collect DIR --dir OTHER said 'no such study file or
        directory' of a directory that exists; --dir naming the same one is
        taken."""
        path = self.write("[base]\nn = 1000\np = 1\nq = 2\n", "one.toml")
        self.assertEqual(self.cli("study", path, "--dry-run")[0], 0)
        for action in ("status", "collect"):
            status, out, err = self.cli("study", action, self.path("one"), "--dir", self.path("other"))
            with self.subTest(action=action):
                self.assertEqual((status, err.count("\n")), (2, 1), err)
                self.assertRegex(err, r"^simblas-hpl: \S*/one is a study's directory, and --dir \S*/other names "
                                      r"another: --dir goes with a study file \(FILE.toml --dir DIR\); give the "
                                      r"directory alone, or the file with --dir$")
        status, out, err = self.cli("study", "status", self.path("one"), "--dir", self.path("one"))
        self.assertEqual(status, 0, err)
        self.assertIn("1 point(s): 0 done", out)
        status, out, err = self.cli("study", "status", "/dev/null")
        self.assertEqual((status, err.strip()), (2, "simblas-hpl: /dev/null: neither a study file nor a directory; "
                                                   "give FILE.toml or the study's directory"))

    def test_dir_not_a_path_is_refused_by_every_action(self):
        """[study] dir = 5 was refused by run (without --dir), and status and
        collect took the default directory without a word."""
        path = self.write("# s\n[study]\ndir = 5\n[base]\nn = 1000\np = 1\nq = 2\n", "five.toml")
        os.makedirs(self.path("five"))  # the default directory: was read as the study's
        for args in (("run", path, "--dry-run"), ("status", path), ("collect", path), ("plot", path),
                     ("run", path, "--dir", self.path("d"), "--dry-run"), ("status", path, "--dir", self.path("d"))):
            status, out, err = self.cli("study", *args)
            with self.subTest(args=args):
                self.assertEqual((status, err.count("\n")), (2, 1), err)
                self.assertRegex(err, r"^simblas-hpl: \S*five.toml:3: dir = 5: expected a path in quotes, e\.g\. "
                                      r'dir = "runs/grid"$')
        self.assertFalse(os.path.exists(self.path("d")))
        self.assertEqual(os.listdir(self.path("five")), [])
        # [study] that is not a table: status as run
        path = self.write("study = 5\n[base]\nn = 1000\n", "five.toml")
        for action in ("run", "status"):
            status, out, err = self.cli("study", action, path)
            self.assertEqual((status, err.count("\n")), (2, 1), err)
            self.assertIn("five.toml:1: [study] must be a table of name", err)


@unittest.skipUnless(have_scipy(), "no scipy (python3-scipy): no intervals")
class Stats(unittest.TestCase):
    """The replicates' mean, standard deviation and 95% interval (study_stats)
    against values worked by hand from the t table: t(0.975) is 12.7062 for
    1 degree of freedom, 4.3027 for 2 and 2.2622 for 9."""

    def test_t_quantile(self):
        self.assertEqual((study_stats.t_quantile(0), study_stats.t_quantile(1)), (None, None))
        for n, t in ((2, 12.706204736), (3, 4.302652730), (10, 2.262157163), (31, 2.042272456)):
            self.assertAlmostEqual(study_stats.t_quantile(n), t, places=8, msg=f"n={n}")

    def test_mean_ci(self):
        # n=2: sd = 1/sqrt(2), half-width = 12.7062 * sd / sqrt(2) = 12.7062 / 2
        cases = (([1, 2], 1.5, 6.353102368, 0.707106781),
                 # n=3: sd = sqrt(7/3), half-width = 4.3027 * sd / sqrt(3)
                 ([1, 2, 4], 7 / 3, 3.794583034, 1.527525232),
                 # n=10: 0..9, sd = sqrt(82.5 / 9), half-width = 2.2622 * sd / sqrt(10)
                 (list(range(10)), 4.5, 2.165850590, 3.027650354))
        for vals, mean, half, sd in cases:
            m, ci, s, n = study_stats.mean_ci(vals)
            self.assertEqual(n, len(vals))
            self.assertAlmostEqual(m, mean, places=9)
            self.assertAlmostEqual(ci, half, places=8, msg=f"{vals}")
            self.assertAlmostEqual(s, sd, places=8)
        self.assertEqual(study_stats.mean_ci([3.0] * 4), (3.0, 0.0, 0.0, 4))

    def test_what_is_left_out(self):
        self.assertEqual(study_stats.mean_ci([]), (None, None, None, 0))
        self.assertEqual(study_stats.mean_ci([2.5]), (2.5, None, None, 1))  # one value: no spread
        # no value, not finite, true/false or text: not a replicate's value
        self.assertEqual(study_stats.mean_ci([None, float("nan"), float("inf"), True, "4", 2.0]), (2.0, None, None, 1))
        m, ci, s, n = study_stats.mean_ci([1, None, 2, False])
        self.assertEqual((m, n), (1.5, 2))
        self.assertAlmostEqual(ci, 6.353102368, places=8)

    def test_without_scipy(self):
        with mock.patch.dict("sys.modules", {"scipy": None, "scipy.stats": None}):
            self.assertFalse(study_stats.have_scipy())
            self.assertIsNone(study_stats.t_quantile(5))
            m, ci, s, n = study_stats.mean_ci([1, 2, 4])
        self.assertEqual((ci, n), (None, 3))
        self.assertAlmostEqual(s, 1.527525232, places=8)
        self.assertTrue(study_stats.have_scipy())


if __name__ == "__main__":
    unittest.main()
