"""HPL's options (--hpl-opt) and HPL.dat."""

import unittest

import support  # noqa: F401  (the package on sys.path)
from simblas_hpl import hpldat
from simblas_hpl.errors import CliError


class Options(unittest.TestCase):
    def test_names_numbers_defaults(self):
        o = hpldat.parse_hpl_opts(["bcast=blongm", "depth=0", "SWAP=bin-exch", "threshold=32", "pfact=crout",
                                   "pmap=column", "swap-threshold=128", "u=no-transposed", "equil = no"])
        self.assertEqual({k: o[k] for k in ("bcast", "depth", "swap", "threshold", "pfact", "pmap", "swap_threshold",
                                            "u", "equil")},
                         {"bcast": 5, "depth": 0, "swap": 0, "threshold": 32.0, "pfact": 1, "pmap": 1,
                          "swap_threshold": 128, "u": 1, "equil": 0})
        self.assertEqual(hpldat.parse_hpl_opts(None), hpldat.DEFAULTS)
        self.assertIsNot(hpldat.parse_hpl_opts([]), hpldat.DEFAULTS)

    def test_refused(self):
        for item, msg in (("depth", "expected KEY=VALUE"), ("nosuch=1", "unknown HPL option"),
                          ("pfact=7", r"out of range \(0..2\)"), ("nbmin=0", r"out of range \(1..\)"),
                          ("bcast=ring", "expected an integer or one of 1rg"), ("threshold=x", "not a number"),
                          ("align=1.5", "expected an integer$")):
            with self.subTest(item=item), self.assertRaisesRegex(CliError, msg):
                hpldat.parse_hpl_opts([item])


class Dat(unittest.TestCase):
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
