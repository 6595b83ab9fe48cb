"""simblas-hpl tune (tune.py, verbs/tune.py) through the real engine, with a
fake simulator whose Gflops are a known function of HPL.dat's NB, grid,
BCAST and DEPTH (one best point): the exhaustive grid evaluates every point
once and finds it; TPE resumes where it stopped and shares the points
already simulated; bad input is refused in one line before anything runs."""

import itertools
import json
import os
import signal
import subprocess
import sys
import tempfile
import threading
import unittest
from unittest import mock

from support import fake_build
from test_engine import EngineCase
from simblas_hpl import hpldat, tune as tn
from simblas_hpl.errors import CliError
from simblas_hpl.plan import RunOptions

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


class JournalLock(unittest.TestCase):
    def test_a_dead_holder_does_not_block_the_next_tune(self):
        """The journal's lock excludes while held, and goes with a holder
        that is killed while it holds it (Optuna's symlink lock stayed, and
        a resumed tune waited for it forever)."""
        with tempfile.TemporaryDirectory() as d:
            journal = os.path.join(d, tn.JOURNAL)
            child = subprocess.Popen([sys.executable, "-c", "import sys, time; from simblas_hpl import tune; "
                                      f"tune.JournalFlock({journal!r}).acquire(); print('held', flush=True); "
                                      "time.sleep(60)"],
                                     stdout=subprocess.PIPE, text=True,
                                     env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)})
            try:
                self.assertEqual(child.stdout.readline().strip(), "held")
                mine = tn.JournalFlock(journal)
                waiter = threading.Thread(target=mine.acquire, daemon=True)
                waiter.start()
                waiter.join(0.5)
                self.assertTrue(waiter.is_alive(), "acquired while another process held the lock")
                child.send_signal(signal.SIGKILL)
                waiter.join(30)
                self.assertFalse(waiter.is_alive(), "still waiting after the holder was killed")
                mine.release()
                again = tn.JournalFlock(journal)
                self.assertTrue(again.acquire())
                again.release()
            finally:
                child.kill()
                child.wait()
                child.stdout.close()


@unittest.skipUnless(HAVE_OPTUNA, f"no optuna for {sys.executable} (python3-optuna)")
class Tune(EngineCase):
    def setUp(self):
        super().setUp()
        with open(self.env["SMPIRUN"], "w") as f:
            f.write(FAKE.replace("{calls}", self.calls))

    def tune(self, *args, space=SPACE):
        return self.cli("tune", "--nodes", 16, "--n", 4000, "--mode", "passthrough", "--xhpl", self.xhpl,
                        "--dir", self.path("t"), "-j", 2, *space, *args)

    def calls_made(self):
        try:
            with open(self.calls) as f:
                return len(f.readlines())
        except FileNotFoundError:
            return 0

    def test_grid_evaluates_every_point_once_and_finds_the_best(self):
        # --budget B: the grid's first B points; the same command with a larger one goes on
        for budget in (10, 25):
            status, out, err = self.tune("--sampler", "grid", "--budget", budget)
            self.assertEqual(status, 0, err)
            self.assertIn(f"{budget} point(s) evaluated of 36", out)
            self.assertEqual(self.calls_made(), budget)  # none simulated twice
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
            rows = [r.split(",") for r in f.read().splitlines()]
        self.assertEqual(len(rows), 37)
        # the grid's order, whatever the chunks: NB, then the grids by P, then BCAST, DEPTH
        self.assertEqual([r[2:4] + [r[5], r[6]] for r in rows[1:6]],
                         [["64", "2x8", "1rg", "0"], ["64", "2x8", "1rg", "1"], ["64", "2x8", "LnM", "0"],
                          ["64", "2x8", "LnM", "1"], ["64", "4x4", "1rg", "0"]])
        # again: nothing to do, nothing simulated again
        status, out, err = self.tune("--sampler", "grid")
        self.assertEqual((status, self.calls_made()), (0, 36), err)

    def test_grid_reads_its_order_as_it_goes(self):
        """--sampler grid listed its whole order before the first point: on
        the default space of 16 ranks (1,049,760 points) 30 s and 650 MB
        whatever --budget; it reads the order as it goes, the same points
        first, in the same order, and again from where a tune stopped."""
        made = []
        points = tn.Space.grid_points

        def counted(space):
            for p in points(space):
                made.append(p)
                if len(made) > 1000:
                    raise AssertionError("the grid's order listed beyond what --budget needs")
                yield p
        with mock.patch.object(tn.Space, "grid_points", counted):
            status, out, err = self.tune("--sampler", "grid", "--budget", 3, space=())
            self.assertEqual(status, 0, err)
            self.assertIn("1049760 point(s) in the space", err)
            self.assertLessEqual(len(made), 3 + 2)  # (3: read as asked; 2 more allowed)
            made.clear()
            status, out, err = self.tune("--sampler", "grid", "--budget", 5, space=())
            self.assertEqual(status, 0, err)
            self.assertEqual(self.calls_made(), 5)
            self.assertLessEqual(len(made), 5 + 2)
        rows = self.read(self.path("t", "grid-1.csv")).splitlines()[1:]
        space = tn.make_space(None, {}, 16, tn.MAX_ASPECT)
        first = [tn.point_id(space.full(p)) for p in itertools.islice(points(space), 5)]
        self.assertEqual([r.split(",")[-1] for r in rows], first)

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

    def test_first_point_is_runs_usual_one(self):
        status, out, err = self.tune("--budget", 3, "--sampler", "random")
        self.assertEqual(status, 0, err)
        with open(self.path("t", "random-1.csv")) as f:
            first = f.read().splitlines()[1].split(",")
        # NB 128, the squarest grid, BCAST 1rM is not searched: the space's first (1rg), DEPTH 1
        self.assertEqual(first[2:7], ["128", "4x4", "row", "1rg", "1"])
        status, out, err = self.tune("--budget", 3, "--sampler", "random", "--sampler-seed", 2, "--first", "sampler")
        self.assertEqual(status, 0, err)
        with open(self.path("t", "random-2.csv")) as f:
            first = f.read().splitlines()[1].split(",")
        self.assertNotEqual(first[2:7], ["128", "4x4", "row", "1rg", "1"])

    def test_tune_of_another_format_is_refused(self):
        status, out, err = self.tune("--budget", 2)
        self.assertEqual(status, 0, err)
        with open(self.path("t", "tune.json")) as f:
            ident = json.load(f)
        with open(self.path("t", "tune.json"), "w") as f:
            json.dump({**ident, "format": 1}, f)
        status, out, err = self.tune("--budget", 4)
        self.assertEqual(status, 2, err)
        self.assertRegex(err, r"holds a tune made by another simblas-hpl \(tune.json format 1, not 2.*give another --dir")
        self.assertEqual(self.calls_made(), 2)

    def test_a_resumed_tune_is_the_same_tune(self):
        """The model's content is part of a tune (SIMBLAS_MODEL's file
        recalibrated in place was silently the old tune); a differing option
        is named (was "machine differ"); --timeout changes no point's
        result and is not refused; a directory made before stays usable."""
        self.assertEqual(self.tune("--budget", 2)[0], 0)
        self.assertEqual(self.tune("--budget", 2, "--timeout", 600)[0], 0)
        status, out, err = self.tune("--budget", 2, "--speedup", 2)
        self.assertEqual((status, err.count("\n")), (2, 1), err)
        self.assertRegex(err, r"holds a tune of another machine or space \(--speedup None -> 2.0\): .*give another --dir")
        with open(self.env["SIMBLAS_MODEL"], "a") as f:
            f.write("# recalibrated\n")
        status, out, err = self.tune("--budget", 3)
        self.assertEqual((status, err.count("\n")), (2, 1), err)
        self.assertRegex(err, r"\(the content of its model file \(model_sha256 [0-9a-f]{12} -> [0-9a-f]{12}\)\): its points would mix with these; give another --dir")
        with open(self.path("t", "tune.json")) as f:
            ident = json.load(f)
        del ident["content"], ident["model_file"]
        with open(self.path("t", "tune.json"), "w") as f:
            json.dump(ident, f)
        self.assertEqual(self.tune("--budget", 3)[0], 0)
        with open(self.path("t", "tune.json")) as f:
            ident = json.load(f)
        self.assertIn("model_sha256", ident["content"])
        self.assertEqual(self.calls_made(), 3)
        # made before the simulators' hashes were recorded: resumes, and records them
        del ident["content"]["xhpl_sha256"], ident["content"]["libsimblas_sha256"]
        with open(self.path("t", "tune.json"), "w") as f:
            json.dump(ident, f)
        self.assertEqual(self.tune("--budget", 3)[0], 0)
        with open(self.path("t", "tune.json")) as f:
            self.assertIn("xhpl_sha256", json.load(f)["content"])
        # a study and a tune do not share a directory
        with open(self.path("s.toml"), "w") as f:
            f.write("[base]\nn = 1000\np = 1\nq = 2\n")
        fake_build(os.path.join(self.env["XDG_DATA_HOME"], "simblas", "hpl"), "hpcc-1.5.0", "/src/hpcc.tar.gz",
                   "2026-11-25T10:00:00+00:00", default=True)
        status, out, err = self.cli("study", self.path("s.toml"), "--dir", self.path("t"), "--dry-run")
        self.assertEqual(status, 2, err)
        self.assertIn("is a tune's directory (it holds tune.json): its points would mix with the study's", err)
        self.assertEqual(self.cli("study", self.path("s.toml"), "--dir", self.path("s"), "--dry-run")[0], 0)
        status, out, err = self.cli("tune", "--nodes", 16, "--n", 4000, "--mode", "passthrough", "--xhpl", self.xhpl,
                                    "--dir", self.path("s"), "--budget", 2)
        self.assertEqual(status, 2, err)
        self.assertIn("is a study's directory (it holds study.json)", err)

    def test_budget_beyond_the_space(self):
        """--budget 10 on a space of 2 points announced 10 evaluations."""
        space = [{"nb=64:192:64": "nb=128", "bcast=1rg,LnM": "bcast=LnM"}.get(a, a) for a in SPACE]
        status, out, err = self.tune("--search", "grid=4x4", "--budget", 10, space=space)
        self.assertEqual(status, 0, err)
        self.assertIn("2 evaluation(s) (--budget 10 capped at the space's 2)", err)
        self.assertEqual(self.calls_made(), 2)

    def test_a_table_that_cannot_be_written(self):
        """The tune's CSV or HPL.dat that cannot be written at the end (a disk
        full) was a traceback, before the table was printed; it is one line,
        status 1, after the table, and the same command writes it without
        simulating the points again."""
        write = tn.write_atomic

        def full(path, text):
            if path.endswith("-HPL.dat"):
                raise OSError(28, "No space left on device")
            write(path, text)
        for target, effect in (("write_csv", OSError(28, "No space left on device")), ("write_atomic", full)):
            with self.subTest(target=target), mock.patch.object(tn, target, side_effect=effect):
                status, out, err = self.tune("--budget", 2)
                self.assertEqual(status, 1, err)
                self.assertNotIn("Traceback", err)
                name = {"write_csv": r"\.csv", "write_atomic": r"-HPL\.dat"}[target]
                self.assertRegex(err.splitlines()[-1],
                                 rf"^simblas-hpl: could not write \S+/t/tpe-1{name} \(No space left on device\): the "
                                 r"points evaluated are kept in \S+/t \(its journal and points/\); run the same tune "
                                 r"again once it can be written: it writes the tables without simulating them again$")
                self.assertEqual(len([ln for ln in out.splitlines() if ln.strip()[:1].isdigit()]), 2)  # the table
        self.assertEqual(self.calls_made(), 2)
        status, out, err = self.tune("--budget", 2)
        self.assertEqual((status, self.calls_made()), (0, 2), err)
        self.assertEqual(len(self.read(self.path("t", "tpe-1.csv")).splitlines()), 3)
        self.assertTrue(os.path.isfile(self.path("t", "tpe-1-HPL.dat")))

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
        self.refused(r"6x3 is 18 ranks, not the machine's 16 \(--nodes x --cores-per-node\); give grids of 16 "
                     "ranks, e.g. 4x4$", "--nodes", 16, "--n", 4000, "--search", "grid=6x3")
        self.refused("not a tuned parameter", "--nodes", 16, "--n", 4000, "--search", "colour=red")
        self.refused("'7rg' is not a bcast", "--nodes", 16, "--n", 4000, "--search", "bcast=1rg,7rg")
        # the second --search of a name searched its levels alone, the first's dropped without a word
        self.refused(r"^simblas-hpl: --search nb is given twice \(nb=64 and nb=128:256:64\): give all its levels in "
                     "one --search$", "--nodes", 16, "--n", 4000, "--search", "nb=64", "--search", "nb=128:256:64")
        self.refused(r"--search swap_threshold is given twice \(swap_threshold=32 and swap_threshold=64\)", "--nodes",
                     16, "--n", 4000, "--search", "threshold=32", "--search", "swap_threshold=64")
        self.refused("--search nb and --hpl-opt nb|give one", "--nodes", 16, "--n", 4000, "--search", "depth=0,1",
                     "--hpl-opt", "depth=1")
        self.refused(r"--search swap_threshold=32,64: the threshold is the mixed swap's only, and swap is bin-exch: "
                     "add mix to --search swap", "--nodes", 16, "--n", 4000, "--search", "swap=bin-exch",
                     "--search", "swap_threshold=32,64")
        self.refused("--budget 0: must be >= 1", "--nodes", 16, "--n", 4000, "--budget", 0)
        # numpy's ValueError out of the sampler, a traceback once the tune directory was made
        for seed in (-1, 2 ** 32):
            self.refused(rf"^simblas-hpl: --sampler-seed {seed}: must be from 0 to 4294967295$", "--nodes", 16, "--n",
                         4000, "--sampler-seed", seed)
        # the engine's options, checked by the function run's --engine uses (spread.check_engine_args)
        self.refused("^simblas-hpl: -j 0: must be >= 1$", "--nodes", 16, "--n", 4000, "-j", 0)
        self.refused("--slurm-opt goes with --engine slurm$", "--nodes", 16, "--n", 4000, "--slurm-opt=-p big")
        # a --dir that cannot be made, or with a comma (SimGrid splits there: every point failed)
        with open(self.path("file"), "w") as f:
            f.write("x")
        status, out, err = self.cli("tune", "--mode", "passthrough", "--xhpl", self.xhpl, "--nodes", 16, "--n", 4000,
                                    "--dir", self.path("file", "t"))
        self.assertEqual((status, err.count("\n")), (2, 1), err)
        self.assertRegex(err, r"--dir .*file/t cannot be made: .*file is not a directory")
        status, out, err = self.cli("tune", "--mode", "passthrough", "--xhpl", self.xhpl, "--nodes", 16, "--n", 4000,
                                    "--dir", self.path("a,b"))
        self.assertEqual((status, err.count("\n")), (2, 1), err)
        self.assertRegex(err, r"the tune directory .*a,b' contains a comma.*use --dir DIR without commas")
        self.assertFalse(os.path.exists(self.path("a,b")))
        self.refused("below the largest NB", "--nodes", 1, "--memory-fraction", 0.001, "--node-memory", "1MiB")

    def test_optuna_missing(self):
        with mock.patch.dict(sys.modules, {"optuna": None}):
            self.refused(r"Optuna, which .* cannot import: install Debian's python3-optuna", "--nodes", 16,
                         "--n", 4000)


class Space(unittest.TestCase):
    """How the space is searched: ordered levels are Optuna integers (their
    index), named ones categorical; the point run takes when told nothing."""

    def space(self, *searches, ranks=64, fixes=()):
        return tn.make_space(list(searches), hpldat.parse_hpl_opts(fixes), ranks, tn.MAX_ASPECT)

    def test_levels_out_of_reach(self):
        """A range of more levels than any search means was listed whole
        first (depth=0:10000000000: a MemoryError, or the machine swapping);
        a level above HPL's C int was searched, and every point at it failed
        once run (HPL's atoi made it negative)."""
        for search, msg in (("depth=0:1000000", r"^--search depth=0:1000000: 1,000,001 levels, more than 100,000, "
                                                r"which is surely not what was meant: a larger STEP or a narrower "
                                                r"range$"),
                            ("nb=64:100000000:64", r"^--search nb=64:100000000:64: 1,562,500 levels, more "),
                            ("depth=0,3000000000", r"^--search depth=0,3000000000: 3000000000 is more than "
                                                   r"2147483647, and HPL reads depth as a C int$"),
                            ("swap_threshold=2147483647:2147483648", r"2147483648 is more than 2147483647")):
            with self.subTest(search=search), self.assertRaisesRegex(CliError, msg):
                self.space(search)
        self.assertEqual(len(self.space("nb=1:100000").levels["nb"].values), 100000)

    def test_ordered_levels_are_indexes(self):
        sp = self.space("nb=64,96,192", "grid=16x4,4x16,8x8", "bcast=LnM,1rM", "swap_threshold=256,32,64")
        lv = sp.levels
        self.assertEqual(lv["grid"].values, ["4x16", "8x8", "16x4"])  # by P
        self.assertEqual(lv["swap_threshold"].values, [32, 64, 256])
        for n in ("nb", "grid", "depth", "nbmin", "ndiv", "swap_threshold"):
            self.assertTrue(lv[n].ordered, n)
        for n in ("pmap", "bcast", "pfact", "rfact", "swap"):
            self.assertFalse(lv[n].ordered, n)
        self.assertEqual(sp.encode({"nb": 96, "grid": "16x4", "bcast": "1rM", "depth": 0, "swap_threshold": 256}),
                         {"nb": 1, "grid": 2, "bcast": "1rM", "depth": 0, "swap_threshold": 2})
        self.assertEqual(lv["nb"].text(), "64,96,192")
        self.assertEqual(lv["depth"].text(), "0:2:1")  # a range stays a range in tune.json
        with self.assertRaises(ValueError):
            sp.encode({"nb": 128})

    def test_every_point_round_trips(self):
        sp = self.space("nb=64,128,256", "bcast=1rM,LnM", "pfact=crout,right", "rfact=right", "nbmin=2,4",
                        "ndiv=2", "swap_threshold=32,128", "depth=0,1")
        points = list(sp.grid_points())
        self.assertEqual(len(points), sp.size())
        self.assertEqual(len({tn.point_id(sp.full(p)) for p in points}), sp.size())
        for p in points:
            self.assertEqual(sp.decode(sp.encode(p)), p)

    @unittest.skipUnless(HAVE_OPTUNA, "no optuna")
    def test_optuna_sees_integers_and_categories(self):
        sp = self.space("nb=64,96,192", "bcast=1rM,LnM", "swap_threshold=32,64")
        self.assertEqual(sp.levels["nb"].distribution(optuna), optuna.distributions.IntDistribution(0, 2))
        self.assertEqual(sp.levels["bcast"].distribution(optuna),
                         optuna.distributions.CategoricalDistribution(["1rM", "LnM"]))
        for p in sp.grid_points():  # what a trial holds is the point again
            self.assertEqual(sp.suggest(optuna.trial.FixedTrial(sp.encode(p))), p)

    def test_a_point_gives_its_run_typed_settings(self):
        """A tuned parameter reaches the run as a checked value (a name as
        its code), not as a KEY=VALUE text, and joins --hpl-opt's."""
        sp = self.space("nb=64", "grid=8x8", "bcast=LnM", "depth=0", "swap=bin-exch", "swap_threshold=64")
        base = RunOptions(cores_per_node=4, hpl={"threshold": 20.0, "align": 4})
        o = tn.point_options(base, sp, {}, lambda nb: 1000)
        self.assertEqual((o.n, o.nb, o.p, o.q), (1000, 64, 8, 8))
        self.assertEqual(o.hpl["bcast"], 5)
        self.assertEqual(o.hpl["depth"], 0)
        self.assertEqual(o.hpl["swap"], 0)
        self.assertEqual((o.hpl["threshold"], o.hpl["align"]), (20.0, 4))
        self.assertTrue(all(type(v) is int for k, v in o.hpl.items() if k != "threshold"), o.hpl)
        self.assertEqual(hpldat.settings(o.hpl)["bcast"], 5)

    def test_usual_point(self):
        usual = {"nb": 128, "grid": "8x8", "pmap": "row", "bcast": "1rM", "depth": 1, "pfact": "right",
                 "rfact": "crout", "nbmin": 4, "ndiv": 2, "swap": "mix", "swap_threshold": 64}
        self.assertEqual(tn.usual_point(self.space()), usual)
        # the nearest level (the lower of two), the squarest grid with P <= Q, a named level the space lacks:
        # its first; no threshold without the mixed swap; fixed parameters are not the search's
        sp = self.space("nb=64,192,256", "grid=8x2,2x8", "bcast=2rg,LnM", "depth=2:3", "swap=long,bin-exch",
                        ranks=16, fixes=["nbmin=8"])
        self.assertEqual(tn.usual_point(sp), {"nb": 64, "grid": "2x8", "pmap": "row", "bcast": "2rg", "depth": 2,
                                              "pfact": "right", "rfact": "crout", "ndiv": 2, "swap": "long"})
        self.assertEqual(tn.usual_point(self.space(ranks=32))["grid"], "4x8")
        self.assertIn(tn.usual_point(sp), list(sp.grid_points()))
