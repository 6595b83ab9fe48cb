"""The variables simblas-hpl sets for libsimblas against the settings table
(settings.json, which the build writes from lib/settings.def): every one a
row libsimblas reads, every value one it accepts, for every dry-run case;
and the check refuses a name or a value the table does not have.  The
variables simblas-hpl reads itself, through settings.value/given: typed by
their row, its default when unset, a bad value refused in one line naming
it; SIMBLAS_FREECLOCK and SIMBLAS_CODE_CLOCK as the table says."""

import os
import shlex
import shutil
import tempfile
import unittest
from unittest import mock

import dryrun_fixtures  # noqa: F401  (sys.path set by support)
from support import SRC, Sandbox
from simblas_hpl import memory, settings
from simblas_hpl.errors import CliError

FIXTURES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "dryrun")


def build_table():
    """The build tree's settings.json (make check runs after the build)."""
    return os.path.join(dryrun_fixtures.build_tree(), "settings.json")


def run_env(case):
    """The SIMBLAS_* variables of a case's run.sh (`cd DIR && env K=V ... smpirun ...`)."""
    with open(os.path.join(FIXTURES, case, "run.sh")) as f:
        line = f.read().splitlines()[-1]
    words = shlex.split(line)
    env = {}
    for w in words[words.index("env") + 1:]:
        if "=" not in w:
            break
        k, v = w.split("=", 1)
        env[k] = v
    return {k: v for k, v in env.items() if k.startswith("SIMBLAS_")}


class Table(unittest.TestCase):
    def setUp(self):
        self.table = build_table()  # its path: rows and rules of the build tree's table

    def test_every_case_sets_rows_with_accepted_values(self):
        cases = [d for d in sorted(os.listdir(FIXTURES)) if os.path.isfile(os.path.join(FIXTURES, d, "run.sh"))]
        self.assertGreater(len(cases), 10)
        seen = set()
        for case in cases:
            env = run_env(case)
            seen |= set(env)
            with self.subTest(case=case):
                settings.check_env(env, self.table)
        # the cases do exercise the variables a run sets
        for name in ("SIMBLAS_MODE", "SIMBLAS_MERGE", "SIMBLAS_PIVOT_EVERY", "SIMBLAS_ITERATIONS",
                     "SIMBLAS_POLL_COST", "SIMBLAS_CODE_CLOCK", "SIMBLAS_ROLL_MERGE"):
            self.assertIn(name, seen)

    def test_unknown_name_refused(self):
        with self.assertRaisesRegex(CliError, "SIMBLAS_PIVOT_EVRY, which libsimblas does not read"):
            settings.check_env({"SIMBLAS_PIVOT_EVRY": "8"}, self.table)

    def test_tool_only_row_refused(self):
        # a row simblas-hpl itself reads, not libsimblas: setting it for libsimblas is a mistake
        with self.assertRaisesRegex(CliError, "SIMBLAS_HPL_BUILD, which libsimblas does not read"):
            settings.check_env({"SIMBLAS_HPL_BUILD": "x"}, self.table)

    def test_inherited_library_rows_refused(self):
        # smpirun passes the caller's environment on: a row only libsimblas
        # reads would change the run behind its settings; the rows
        # simblas-hpl reads too (it records what they give), empty ones and
        # other variables pass
        rows = settings.load(self.table)
        lib_only = [n for n, r in rows.items() if r.get("read_by") == ["libsimblas"]]
        self.assertIn("SIMBLAS_ITERATIONS", lib_only)
        for name in lib_only:
            with self.subTest(name=name), self.assertRaisesRegex(CliError, f"^{name}=x is set in the environment"):
                settings.check_inherited({"PATH": "/bin", name: "x"}, self.table)
        shared = {n: "x" for n, r in rows.items() if "simblas-hpl" in r.get("read_by", []) or
                  "libsimblas" not in r.get("read_by", [])}
        self.assertIn("SIMBLAS_MODEL", shared)
        settings.check_inherited({**shared, **{n: "" for n in lib_only}, "OTHER": "1"}, self.table)
        with self.assertRaisesRegex(CliError, r"^SIMBLAS_PIVOT_EVRY is set .*did you mean SIMBLAS_PIVOT_EVERY\?"):
            settings.check_inherited({"SIMBLAS_PIVOT_EVRY": "8"}, self.table)

    def test_values_checked_by_type(self):
        for name, bad in (("SIMBLAS_PIVOT_EVERY", "0"), ("SIMBLAS_MERGE", "yes"), ("SIMBLAS_MODE", "smpy"),
                          ("SIMBLAS_POLL_USAGE", "1.5"), ("SIMBLAS_SEED", "abc"), ("SIMBLAS_FOLD_BLOCK", "64Q"),
                          # 64 bits
                          ("SIMBLAS_SEED", "18446744073709551616"), ("SIMBLAS_SEED", "0o7"), ("SIMBLAS_SEED", "0x")):
            with self.subTest(name=name):
                with self.assertRaisesRegex(CliError, f"{name}='{bad}', which libsimblas refuses"):
                    settings.check_env({name: bad}, self.table)
        settings.check_env({"SIMBLAS_FOLD_BLOCK": "256M", "SIMBLAS_SEED": "0x2a", "SIMBLAS_POLL_COST": "1e-07",
                            "SIMBLAS_LAT_FACTOR": "65472:11.6436;0:2.01467"}, self.table)
        for seed in ("0", "010", "09", "18446744073709551615", "0xffffffffffffffff"):
            settings.check_env({"SIMBLAS_SEED": seed}, self.table)

    def test_needs_checked(self):
        # lib/settings.def's SB_NEEDS rows, as libsimblas checks them (test/settings.sh)
        ok = {"SIMBLAS_MODE": "smpi", "SIMBLAS_MERGE": "1", "SIMBLAS_ITERATIONS": "3"}
        for env in ({}, {"SIMBLAS_SAMPLES": "4"}, {"SIMBLAS_SAMPLES": "4", "SIMBLAS_SAMPLE_ONLY": "3"},
                    {"SIMBLAS_SAMPLE_ONLY": "0"}, {"SIMBLAS_PIVOT_EVERY": "8"}):
            settings.check_env(dict(ok, **env), self.table)
        for env, msg in (({"SIMBLAS_SAMPLES": "4", "SIMBLAS_ITERATIONS": None}, "simblas-hpl sets SIMBLAS_SAMPLES=4 "
                          "and not SIMBLAS_ITERATIONS, but SIMBLAS_SAMPLES samples the run in passes of "
                          "SIMBLAS_ITERATIONS iterations, which needs SIMBLAS_ITERATIONS>0: "),
                         ({"SIMBLAS_SAMPLES": "1", "SIMBLAS_ITERATIONS": "0"}, "and SIMBLAS_ITERATIONS=0, but "),
                         ({"SIMBLAS_SAMPLES": "4", "SIMBLAS_SAMPLE_ONLY": "4"}, "SIMBLAS_SAMPLE_ONLY=4 and "
                          "SIMBLAS_SAMPLES=4, but SIMBLAS_SAMPLE_ONLY runs one pass .*which needs "
                          "SIMBLAS_ITERATIONS>0 and SIMBLAS_SAMPLES>SIMBLAS_SAMPLE_ONLY"),
                         ({"SIMBLAS_SAMPLE_ONLY": "1"}, "SIMBLAS_SAMPLE_ONLY=1 and not SIMBLAS_SAMPLES"),
                         ({"SIMBLAS_PIVOT_EVERY": "8", "SIMBLAS_MERGE": "0"}, "and SIMBLAS_MERGE=0, but "
                          "SIMBLAS_PIVOT_EVERY thins")):
            e = {k: v for k, v in dict(ok, **env).items() if v is not None}
            with self.subTest(env=env), self.assertRaisesRegex(CliError, msg) as cm:
                settings.check_env(e, self.table)
            self.assertEqual(cm.exception.status, 1)

    def test_c_unsigned(self):
        # decimal, a leading 0 too (the help says "decimal or 0x hexadecimal"; 010 was octal 8, 09 refused)
        self.assertEqual([settings.c_unsigned(v) for v in ("0", "42", "0x2A", "010", "09", "", "-1", " 1", "1e3", "0x")],
                         [0, 42, 42, 10, 9, None, None, None, None, None])


def table_env():
    """An environment without SIMBLAS_* variables in which settings finds the
    build tree's table (SIMBLAS_DATADIR)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("SIMBLAS_")}
    env["SIMBLAS_DATADIR"] = os.path.dirname(build_table())
    return env


class Accessor(unittest.TestCase):
    """settings.value/given/default: the one way simblas-hpl reads a SIMBLAS_* variable."""

    def setUp(self):
        patcher = mock.patch.dict(os.environ, table_env(), clear=True)
        patcher.start()
        self.addCleanup(patcher.stop)

    def test_declared_default_when_unset_or_empty(self):
        rows = settings.load()
        self.assertGreater(len(rows), 40)
        for name, row in rows.items():
            if not row.get("default"):
                continue
            with self.subTest(name=name):
                want = settings.parse(row, row["default"])
                self.assertIsNotNone(want, "the table's default is not a value of its own row")
                self.assertEqual(settings.value(name), want)
                self.assertIsNone(settings.given(name))
                with mock.patch.dict(os.environ, {name: ""}):
                    self.assertEqual(settings.value(name), want)  # empty is unset
        # the defaults the Python side used to write again
        self.assertEqual(settings.value("SIMBLAS_FOLD_BLOCK"), 64 << 20)
        self.assertEqual(memory.fold_block(2 << 20), 64 << 20)
        self.assertEqual(settings.default("SIMBLAS_PROBE"), "immediate")
        self.assertEqual(settings.values("SIMBLAS_PROBE"), ("immediate", "lagged"))
        self.assertIs(settings.value("SIMBLAS_FREECLOCK"), True)
        self.assertIs(settings.value("SIMBLAS_CODE_CLOCK"), False)  # libsimblas's: simblas-hpl sets it
        self.assertIsNone(settings.value("SIMBLAS_HPL_BUILD"))  # a TEXT row without a default

    def test_typed_by_the_row(self):
        for name, text, want in (("SIMBLAS_FREECLOCK", "0", False), ("SIMBLAS_CODE_CLOCK", "1", True),
                                 ("SIMBLAS_FOLD_BLOCK", "128M", 128 << 20), ("SIMBLAS_SEED", "0x10", 16), ("SIMBLAS_SEED", "010", 10),
                                 ("SIMBLAS_POLL_MAX", "inf", float("inf")), ("SIMBLAS_PIVOT_EVERY", "8", 8),
                                 ("SIMBLAS_PROBE", "lagged", "lagged"), ("SIMBLAS_MPIRUN", "/x/mpirun", "/x/mpirun")):
            with self.subTest(name=name), mock.patch.dict(os.environ, {name: text}):
                self.assertEqual(settings.value(name), want)
                self.assertEqual(type(settings.value(name)), type(want))

    def test_bad_value_refused_naming_it(self):
        for name, bad, accepts in (("SIMBLAS_FREECLOCK", "yes", "0 or 1"), ("SIMBLAS_CODE_CLOCK", "on", "0 or 1"),
                                   ("SIMBLAS_FREECLOCK", "2", "0 or 1"),
                                   ("SIMBLAS_PROBE", "late", "one of immediate, lagged"),
                                   ("SIMBLAS_FOLD_BLOCK", "0M", "a size in bytes")):
            with self.subTest(name=name, value=bad), mock.patch.dict(os.environ, {name: bad}):
                for read in (settings.value, settings.given):
                    with self.assertRaises(CliError) as cm:
                        read(name)
                    msg = str(cm.exception)
                    self.assertRegex(msg, f"^{name}='{bad}' is not {accepts}")
                    self.assertNotIn("\n", msg)
                    self.assertEqual(cm.exception.status, 2)

    def test_no_such_row(self):
        with self.assertRaisesRegex(CliError, "SIMBLAS_NO_SUCH is no row of SimBLAS's settings table"):
            settings.value("SIMBLAS_NO_SUCH")

    def test_no_table_refused_saying_where_it_is(self):
        # no settings.json found (no SIMBLAS_DATADIR, nothing installed, no build tree beside SIMBLAS_LIBDIR):
        # every reading refused in one line saying what is missing and the remedy; lib/settings.def is not
        # read instead
        with mock.patch.dict(os.environ, {"SIMBLAS_DATADIR": ""}), \
                mock.patch("simblas_hpl.locations.installed", return_value=None):
            self.assertIsNone(settings.load())
            for read in (settings.value, settings.default, settings.values):
                with self.assertRaises(CliError) as cm:
                    read("SIMBLAS_PROBE")
                self.assertEqual(str(cm.exception), "cannot find SimBLAS's settings table (settings.json): install "
                                 "SimBLAS (make install), or set SIMBLAS_DATADIR to the directory holding it (a "
                                 "build tree)")

    def test_other_format_refused(self):
        d = tempfile.mkdtemp(prefix="sbtable")
        self.addCleanup(shutil.rmtree, d, True)
        with open(os.path.join(d, "settings.json"), "w") as f:
            f.write('{"format": 2, "settings": []}')
        with mock.patch.dict(os.environ, {"SIMBLAS_DATADIR": d}), \
                self.assertRaisesRegex(CliError, r"settings\.json is table format 2, this simblas-hpl reads 1: "
                                                 "install SimBLAS and simblas-hpl from the same build"):
            settings.value("SIMBLAS_PROBE")


class ToolSide(Sandbox):
    """SIMBLAS_FREECLOCK and SIMBLAS_CODE_CLOCK in simblas-hpl's environment, as
    lib/settings.def says: FREECLOCK a flag, 1 when unset; CODE_CLOCK a flag
    that simblas-hpl sets where it applies, 0 keeping SMPI's timing."""

    ARGS = ("--n", 2000, "--nb", 128, "--p", 2, "--q", 2)

    def run_sh(self, *extra, env=None):
        status, out, err, d = self.dry(*self.ARGS, *extra, env=env)
        self.assertEqual(status, 0, err)
        with open(os.path.join(d, "run.sh")) as f:
            return f.read()

    def refused(self, pattern, *extra, env=None):
        status, out, err, d = self.dry(*self.ARGS, *extra, env=env)
        self.assertEqual(status, 2, err)
        self.assertEqual(len(err.rstrip("\n").split("\n")), 1, err)
        self.assertRegex(err, pattern)
        self.assertFalse(os.path.exists(self.called), "smpirun was called")

    def test_freeclock(self):
        for env, preloaded in ((None, True), ({"SIMBLAS_FREECLOCK": "1"}, True), ({"SIMBLAS_FREECLOCK": ""}, True),
                               ({"SIMBLAS_FREECLOCK": "0"}, False)):
            with self.subTest(env=env):
                self.assertEqual("libsimblas_freeclock.so" in self.run_sh(env=env), preloaded)
        self.refused(r"^simblas-hpl: SIMBLAS_FREECLOCK='yes' is not 0 or 1", env={"SIMBLAS_FREECLOCK": "yes"})

    def test_code_clock(self):
        for env, timed in ((None, True), ({"SIMBLAS_CODE_CLOCK": "1"}, True), ({"SIMBLAS_CODE_CLOCK": "0"}, False)):
            with self.subTest(env=env):
                line = self.run_sh(env=env)
                self.assertEqual("SIMBLAS_CODE_CLOCK=1" in line, timed)
                self.assertEqual("simulate-computation:no" in line, timed)
        self.refused(r"^simblas-hpl: SIMBLAS_CODE_CLOCK='yes' is not 0 or 1", env={"SIMBLAS_CODE_CLOCK": "yes"})
        # 1 where simblas-hpl would not set it reached libsimblas all the same
        for extra in (("--no-merge",), ("--hpl-code", "free"), ("--mode", "passthrough")):
            with self.subTest(extra=extra):
                self.refused(r"SIMBLAS_CODE_CLOCK=1 in the environment .*unset it", *extra,
                             env={"SIMBLAS_CODE_CLOCK": "1"})

    def test_inherited_library_settings_refused(self):
        # SIMBLAS_ITERATIONS=3 from the shell made a run simulate 6
        # iterations of N=8000 and call it whole (1,385 Gflops on 4 ranks)
        self.refused(r"^simblas-hpl: SIMBLAS_ITERATIONS=3 is set in the environment: .*give --iterations, "
                     r"--alloc-only \(0\) instead, and unset SIMBLAS_ITERATIONS$", env={"SIMBLAS_ITERATIONS": "3"})
        self.refused(r"simblas-hpl sets it where a run needs it and leaves it at its default otherwise .*unset SIMBLAS_IDLE_MERGE$",
                     "--mode", "passthrough", env={"SIMBLAS_IDLE_MERGE": "1"})
        self.refused(r"^simblas-hpl: SIMBLAS_SEEDS is set in the environment, and SimBLAS has no such setting "
                     r"\(did you mean SIMBLAS_SEED\?\)", env={"SIMBLAS_SEEDS": "2"})
        self.assertIn("SIMBLAS_SEED=4", self.run_sh("--seed", "4", env={"SIMBLAS_SEED": ""}))


if __name__ == "__main__":
    unittest.main()
