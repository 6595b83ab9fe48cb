"""HPL's options (--hpl-opt) and HPL.dat."""

import argparse
import unittest

import support  # noqa: F401  (the package on sys.path)
from simblas_hpl import hpldat
from simblas_hpl.errors import CliError
from simblas_hpl.plan import RunOptions
from simblas_hpl.verbs import run as run_verb


class Options(unittest.TestCase):
    def test_names_numbers_defaults(self):
        o = hpldat.parse_hpl_opts(["bcast=blongm", "depth=0", "SWAP=bin-exch", "threshold=32", "pfact=crout",
                                   "pmap=column", "swap-threshold=128", "u=no-transposed", "equil = no"])
        self.assertEqual(o, {"bcast": 5, "depth": 0, "swap": 0, "threshold": 32.0, "pfact": 1, "pmap": 1,
                             "swap_threshold": 128, "u": 1, "equil": 0})
        self.assertEqual(hpldat.parse_hpl_opts(None), {})
        self.assertEqual(hpldat.settings(None), hpldat.DEFAULTS)
        self.assertIsNot(hpldat.settings({}), hpldat.DEFAULTS)
        self.assertEqual(hpldat.settings(o), {**hpldat.DEFAULTS, **o})

    def test_parsed_once_by_the_arguments(self):
        """--hpl-opt's texts become RunOptions.hpl, checked and typed, where
        the command line is read; a bad one is refused there."""
        parser = argparse.ArgumentParser()
        run_verb.add_arguments(parser)
        ns = parser.parse_args(["--n", "8000", "--hpl-opt", "bcast=blongm", "--hpl-opt", "Swap-Threshold=32",
                                "--hpl-opt", "threshold=20", "--hpl-opt", "depth=2", "--hpl-opt", "depth=0"])
        o = RunOptions.from_namespace(ns)
        self.assertEqual(o.hpl, {"bcast": 5, "swap_threshold": 32, "threshold": 20.0, "depth": 0})
        self.assertEqual([type(v) for v in o.hpl.values()], [int, int, float, int])
        self.assertEqual(RunOptions.from_namespace(parser.parse_args(["--n", "8000"])).hpl, {})
        with self.assertRaisesRegex(CliError, r"--hpl-opt pfact=7: out of range \(0..2\)"):
            RunOptions.from_namespace(parser.parse_args(["--hpl-opt", "pfact=7"]))

    def test_records(self):
        """point.json and tune.json write the settings as KEY=VALUE texts;
        a record of before (the texts as given) compares by value."""
        self.assertEqual(RunOptions(n=1000, hpl={"depth": 0, "bcast": 5}).record(skip=("nb",)),
                         {"n": 1000, "mode": "model", "hpl_opt": ["depth=0", "bcast=5"]})
        self.assertNotIn("hpl_opt", RunOptions(n=1000).record())
        self.assertEqual(hpldat.comparable({"n": 1, "hpl_opt": ["BCAST=blongm", "depth=0"]}),
                         hpldat.comparable({"n": 1, "hpl_opt": ["depth=0", "bcast=5"]}))
        self.assertNotEqual(hpldat.comparable({"hpl_opt": ["bcast=4"]}), hpldat.comparable({"hpl_opt": ["bcast=5"]}))
        self.assertEqual(hpldat.comparable({"n": 1}), {"n": 1, "hpl_opt": {}})

    def test_typed_values(self):
        """A number or a name, as a study or a tune gives it, is checked and
        converted as its text is."""
        self.assertEqual(hpldat.setting("Swap-Threshold", 128), ("swap_threshold", 128))
        self.assertEqual(hpldat.setting("bcast", "LnM"), ("bcast", 5))
        self.assertEqual(hpldat.setting("threshold", 20), ("threshold", 20.0))
        for key, val, msg in (("pfact", 7, "--hpl-opt pfact=7: out of range \\(0..2\\)$"),
                              ("align", 1.5, "--hpl-opt align=1.5: expected an integer$"),
                              ("equil", True, "--hpl-opt equil=True: expected an integer or one of no, yes$"),
                              ("threshold", [1], "--hpl-opt threshold=\\[1\\]: not a number$"),
                              ("nosuch", 1, "--hpl-opt nosuch: unknown HPL option")):
            with self.subTest(key=key, val=val), self.assertRaisesRegex(CliError, msg):
                hpldat.setting(key, val)

    def test_refused(self):
        for item, msg in (("depth", "expected KEY=VALUE"), ("nosuch=1", "unknown HPL option"),
                          ("pfact=7", r"out of range \(0..2\)"), ("nbmin=0", r"out of range \(1\.\.2147483647\)$"),
                          # HPL's atoi made 3000000000 a negative DEPTH: 'Value of DEPTH less than 0', once run
                          ("depth=3000000000", r"out of range \(0\.\.2147483647\), and HPL reads it as a C int$"),
                          ("swap_threshold=2147483648", r"out of range \(0\.\.2147483647\), and HPL reads it"),
                          ("bcast=ring", "expected an integer or one of 1rg"), ("threshold=x", "not a number"),
                          ("align=1.5", "expected an integer$")):
            with self.subTest(item=item), self.assertRaisesRegex(CliError, msg):
                hpldat.parse_hpl_opts([item])


class Dat(unittest.TestCase):
    def test_typed_settings_give_the_same_file(self):
        """A typed mapping reaches HPL.dat as the --hpl-opt texts did."""
        texts = ["bcast=blongm", "depth=0", "swap=bin-exch", "threshold=32", "pfact=crout", "pmap=column",
                 "align=4", "u=no-transposed"]
        typed = {"bcast": 5, "depth": 0, "swap": 0, "threshold": 32.0, "pfact": 1, "pmap": 1, "align": 4, "u": 1}
        self.assertEqual(hpldat.parse_hpl_opts(texts), typed)
        self.assertEqual(hpldat.hpl_dat(20000, 256, 4, 4, hpldat.settings(typed)),
                         hpldat.hpl_dat(20000, 256, 4, 4, hpldat.settings(hpldat.parse_hpl_opts(texts))))
        self.assertIn("5            BCASTs", hpldat.hpl_dat(20000, 256, 4, 4, hpldat.settings(typed)))

    def test_upstream_format(self):
        o = dict(hpldat.DEFAULTS, threshold=20, ndiv=3)
        lines = hpldat.hpl_dat(40000, 128, 8, 8, o).split("\n")
        self.assertEqual(len(lines), 32)  # 31 lines and the final newline
        self.assertEqual(lines[-1], "")
        self.assertEqual(lines[:2], ["HPLinpack benchmark input file",
                                     "Innovative Computing Laboratory, University of Tennessee"])
        self.assertEqual(lines[5], "40000        Ns")
        self.assertEqual(lines[12], "20.0         threshold")
        self.assertEqual(lines[18], "3            NDIVs")
        self.assertEqual(lines[30], "8            memory alignment in double (> 0)")
        # every value in a 12-wide column, then upstream's description
        self.assertTrue(all(len(ln) > 13 and ln[12] == " " for ln in lines[2:31]))


if __name__ == "__main__":
    unittest.main()
