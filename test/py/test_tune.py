"""simblas-hpl tune (tune.py, verbs/tune.py) through the real engine, with a
fake simulator whose Gflops are a known function of HPL.dat's NB, grid,
BCAST and DEPTH (one best point): the exhaustive grid evaluates every point
once and finds it; TPE resumes where it stopped and shares the points
already simulated; bad input is refused in one line before anything runs."""

import os
import sys
import unittest
from unittest import mock

from test_engine import EngineCase

try:
    import optuna  # noqa: F401  (Debian's python3-optuna, for configure's interpreter)
    HAVE_OPTUNA = True
except ImportError:
    HAVE_OPTUNA = False

# Gflops = 100 - |NB - 128| / 16 - 3 |P - Q| + BCAST / 2 + DEPTH: best at NB 128, 4x4, LnM (5), depth 1
FAKE = r"""#!/bin/sh
echo x >> {calls}
g=$(awk 'NR == 8 { nb = $1 } NR == 11 { p = $1 } NR == 12 { q = $1 } NR == 23 { b = $1 } NR == 25 { d = $1 }
  END { x = nb - 128; if (x < 0) x = -x; y = p - q; if (y < 0) y = -y; printf "%.4e", 100 - x / 16 - 3 * y + b / 2 + d }' HPL.dat)
printf 'WR11C2R4 %8d   128     2     2               1.00              %s\n' 4000 "$g"
echo 'Simulated time: 1.5 seconds.' >&2
"""
BEST = 100 + 2.5 + 1
SPACE = ("--search", "nb=64:192:64", "--search", "bcast=1rg,LnM", "--search", "depth=0,1",
         "--hpl-opt", "pfact=right", "--hpl-opt", "rfact=crout", "--hpl-opt", "nbmin=4", "--hpl-opt", "ndiv=2",
         "--hpl-opt", "swap=mix", "--hpl-opt", "swap_threshold=64", "--hpl-opt", "pmap=row")


@unittest.skipUnless(HAVE_OPTUNA, f"no optuna for {sys.executable} (python3-optuna)")
class Tune(EngineCase):
    def setUp(self):
        super().setUp()
        with open(self.env["SMPIRUN"], "w") as f:
            f.write(FAKE.replace("{calls}", self.calls))

    def tune(self, *args):
        return self.cli("tune", "--nodes", 16, "--n", 4000, "--mode", "passthrough", "--xhpl", self.xhpl,
                        "--dir", self.path("t"), "-j", 2, *SPACE, *args)

    def calls_made(self):
        try:
            with open(self.calls) as f:
                return len(f.readlines())
        except FileNotFoundError:
            return 0

    def test_grid_evaluates_every_point_once_and_finds_the_best(self):
        status, out, err = self.tune("--sampler", "grid")
        self.assertEqual(status, 0, err)
        # 3 NB x 3 grids (2x8, 4x4, 8x2 within aspect 4) x 2 BCAST x 2 DEPTH
        self.assertEqual(self.calls_made(), 36)
        self.assertIn("36 point(s) evaluated of 36", out)
        self.assertIn(f"best: {BEST:.6g} Gflops (predicted Rmax)", out)
        self.assertRegex(out, r"best: .* nb=128 grid=4x4 pmap=row bcast=LnM depth=1 ")
        with open(self.path("t", "grid-1-HPL.dat")) as f:
            dat = f.read().splitlines()
        self.assertEqual([dat[7].split()[0], dat[10].split()[0], dat[11].split()[0], dat[22].split()[0],
                          dat[24].split()[0]], ["128", "4", "4", "5", "1"])
        with open(self.path("t", "grid-1.csv")) as f:
            rows = f.read().splitlines()
        self.assertEqual(len(rows), 37)
        # again: nothing to do, nothing simulated again
        status, out, err = self.tune("--sampler", "grid")
        self.assertEqual((status, self.calls_made()), (0, 36), err)

    def test_tpe_resumes_and_shares_the_points(self):
        status, out, err = self.tune("--budget", 8)
        self.assertEqual(status, 0, err)
        self.assertEqual(self.calls_made(), 8)
        first = [ln.split() for ln in out.splitlines() if ln.strip()[:1].isdigit()][:8]
        status, out, err = self.tune("--budget", 12)
        self.assertEqual(status, 0, err)
        self.assertEqual(self.calls_made(), 12)  # 4 more, the 8 kept
        rows = [ln.split() for ln in out.splitlines() if ln.strip()[:1].isdigit()]
        self.assertEqual(rows[:8], first)  # the same points, in the same order, with the same Gflops
        self.assertIn("12 point(s) evaluated of 36", out)
        # another sampler on the directory: the points done are not simulated again
        status, out, err = self.tune("--sampler", "grid")
        self.assertEqual((status, self.calls_made()), (0, 36), err)
        self.assertIn(f"best: {BEST:.6g} Gflops", out)

    def test_plot(self):
        if not any(os.access(os.path.join(d, "gnuplot"), os.X_OK) for d in os.environ["PATH"].split(os.pathsep)):
            self.skipTest("no gnuplot")
        status, out, err = self.tune("--budget", 4, "--plot")
        self.assertEqual(status, 0, err)
        for ext in ("svg", "png"):
            self.assertTrue(os.path.getsize(self.path("t", "plots", f"tpe-1-convergence.{ext}")) > 0)


class Refused(EngineCase):
    def refused(self, pattern, *args):
        status, out, err = self.cli("tune", "--mode", "passthrough", "--xhpl", self.xhpl, "--dir", self.path("t"),
                                    *args)
        lines = err.rstrip("\n").split("\n")
        with self.subTest(args=args):
            self.assertEqual(status, 2, err)
            self.assertEqual(len(lines), 1, err)
            self.assertRegex(err, pattern)
            self.assertFalse(os.path.exists(self.path("t")), "the tune directory was made")
            self.assertEqual(self.ran(), [])

    def test_bad_input(self):
        self.refused(r"--memory-fraction 1.5: out of range.*0 < F <= 1", "--nodes", 16, "--memory-fraction", 1.5,
                     "--node-memory", "64GiB")
        self.refused(r"--memory-fraction 0: out of range", "--nodes", 16, "--memory-fraction", 0,
                     "--node-memory", "64GiB")
        self.refused("needs --node-memory", "--nodes", 16, "--memory-fraction", 0.8)
        self.refused("not a memory size", "--nodes", 16, "--memory-fraction", 0.8, "--node-memory", "lots")
        self.refused("give the matrix order", "--nodes", 16)
        self.refused("give the matrix order", "--nodes", 16, "--n", 4000, "--memory-fraction", 0.8)
        self.refused("--nodes K: give the machine's node count", "--n", 4000)
        # 13 ranks: only 1x13 and 13x1
        self.refused(r"no process grid of 13 ranks .* --max-aspect 4 .*squarest is 1x13.*--max-aspect 13", "--nodes", 13,
                     "--n", 4000)
        self.refused("6x3 is 18 ranks, not the machine's 16", "--nodes", 16, "--n", 4000, "--search", "grid=6x3")
        self.refused("not a tuned parameter", "--nodes", 16, "--n", 4000, "--search", "colour=red")
        self.refused("'7rg' is not a bcast", "--nodes", 16, "--n", 4000, "--search", "bcast=1rg,7rg")
        self.refused("--search nb and --hpl-opt nb|give one", "--nodes", 16, "--n", 4000, "--search", "depth=0,1",
                     "--hpl-opt", "depth=1")
        self.refused("--budget 0: must be >= 1", "--nodes", 16, "--n", 4000, "--budget", 0)
        self.refused("below the largest NB", "--nodes", 1, "--memory-fraction", 0.001, "--node-memory", "1MiB")

    def test_optuna_missing(self):
        with mock.patch.dict(sys.modules, {"optuna": None}):
            self.refused(r"Optuna, which .* cannot import: install Debian's python3-optuna", "--nodes", 16,
                         "--n", 4000)
