"""The variables simblas-hpl sets for libsimblas against the settings table
(settings.json, which the build writes from lib/settings.def): every one a
row libsimblas reads, every value one it accepts, for every dry-run case;
and the check refuses a name or a value the table does not have."""

import os
import shlex
import unittest

import dryrun_fixtures  # noqa: F401  (sys.path set by support)
from support import SRC  # noqa: F401
from simblas_hpl import settings
from simblas_hpl.errors import CliError

FIXTURES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "dryrun")


def build_table():
    """The build tree's settings.json (make check runs after the build), or None."""
    b = os.environ.get("SB_BUILDDIR")
    p = os.path.join(b, "settings.json") if b else None
    return settings.load(p) if p and os.path.isfile(p) else None


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
        self.table = build_table()
        if self.table is None:
            if os.environ.get("SIMBLAS_TEST_STRICT") == "1":
                self.fail("no settings.json in SB_BUILDDIR: build SimBLAS first")
            self.skipTest("no settings.json in SB_BUILDDIR (run through make check)")

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

    def test_values_checked_by_type(self):
        for name, bad in (("SIMBLAS_PIVOT_EVERY", "0"), ("SIMBLAS_MERGE", "yes"), ("SIMBLAS_MODE", "smpy"),
                          ("SIMBLAS_POLL_USAGE", "1.5"), ("SIMBLAS_SEED", "abc"), ("SIMBLAS_FOLD_BLOCK", "64Q"),
                          # strtoull's reading: 64 bits, and a leading 0 is octal
                          ("SIMBLAS_SEED", "18446744073709551616"), ("SIMBLAS_SEED", "09")):
            with self.subTest(name=name):
                with self.assertRaisesRegex(CliError, f"{name}='{bad}', which libsimblas refuses"):
                    settings.check_env({name: bad}, self.table)
        settings.check_env({"SIMBLAS_FOLD_BLOCK": "256M", "SIMBLAS_SEED": "0x2a", "SIMBLAS_POLL_COST": "1e-07",
                            "SIMBLAS_LAT_FACTOR": "65472:11.6436;0:2.01467"}, self.table)
        for seed in ("0", "010", "18446744073709551615", "0xffffffffffffffff"):
            settings.check_env({"SIMBLAS_SEED": seed}, self.table)

    def test_c_unsigned(self):
        self.assertEqual([settings.c_unsigned(v) for v in ("0", "42", "0x2A", "010", "09", "", "-1", " 1", "1e3")],
                         [0, 42, 42, 8, None, None, None, None, None])


if __name__ == "__main__":
    unittest.main()
