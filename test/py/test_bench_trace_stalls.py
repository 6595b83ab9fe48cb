"""bench/trace-stalls on traces written here: which calls it counts as
stalled, where in the run it places them, and its refusal of a directory
with no traces."""

import os
import subprocess
import sys
import tempfile
import unittest

from support import SRC

SCRIPT = os.path.join(SRC, "bench", "trace-stalls")
HEADER = "routine,m,n,k,predicted_s,measured_s,rank,cblas,ld\n"


def write_run(root, name, rank_rows, gflops=None):
    d = os.path.join(root, name)
    os.makedirs(d)
    for rank, rows in rank_rows.items():
        with open(os.path.join(d, f"trace.{rank}.csv"), "w") as f:
            f.write(HEADER)
            for r in rows:
                f.write(",".join(str(x) for x in r) + "\n")
    if gflops is not None:
        with open(os.path.join(d, "stdout.txt"), "w") as f:
            f.write(f"WR11C2R4       12000   128     1     2              14.44              {gflops}\n")


def dgemm(pred, meas):
    return ("dgemm", 1000, 128, 128, pred, meas, 0, 0, 12000)


class TraceStalls(unittest.TestCase):
    def run_script(self, *args):
        return subprocess.run([sys.executable, SCRIPT, *args], capture_output=True, text=True)

    def test_counts_the_stalled_calls_and_where(self):
        with tempfile.TemporaryDirectory() as root:
            keep = os.path.join(root, "keep")
            # rank 0: 20 calls; the second a 100x stall (0.5 s over its
            # prediction) in the first 10%, the 15th 20x but 0.5 ms over
            # (under --min-ms 1), the 16th 5x (under --factor 10)
            rows = [dgemm(0.01, 0.011)] * 20
            rows[1] = ("hpl_dlaswp00N", 128, 5000, 0, 0.005, 0.505, 0, 0, 11699)
            rows[14] = dgemm(2.5e-5, 5.25e-4)
            rows[15] = dgemm(0.01, 0.05)
            write_run(keep, "N12000-1x2", {0: rows, 1: [dgemm(0.01, 0.01)] * 5}, gflops="7.977e+01")
            r = self.run_script(keep)
            self.assertEqual(r.returncode, 0, r.stderr)
            lines = {ln.split()[2]: ln.split() for ln in r.stdout.splitlines() if ln.startswith("keep/")}
            rank0, rank1 = lines["0"], lines["1"]
            self.assertEqual(rank0[1], "79.77")
            self.assertEqual(rank0[4], "1")            # one stall
            self.assertEqual(rank0[5], "0.500")        # its excess
            self.assertEqual(rank0[6], "0.500")        # all of it in the first 10%
            self.assertIn("hpl_dlaswp00N 128x5000 ld 11699 0.505s (101x) at 5%", r.stdout)
            self.assertEqual(rank1[4:7], ["0", "0.000", "0.000"])
            # a lower bar counts the 20x call too, and a lower factor the 5x one
            for args in (("--min-ms", "0.1"), ("--factor", "4")):
                r = self.run_script(*args, keep)
                rank0 = [ln.split() for ln in r.stdout.splitlines() if ln.startswith("keep/")][0]
                self.assertEqual(rank0[4], "2", args)

    def test_refuses_a_directory_without_traces(self):
        with tempfile.TemporaryDirectory() as root:
            r = self.run_script(root)
            self.assertNotEqual(r.returncode, 0)
            self.assertIn("no DIR/<run>/trace.R.csv", r.stderr)
            self.assertIn("simblas-hpl refine --keep DIR", r.stderr)
            r = self.run_script("--factor", "1", root)
            self.assertNotEqual(r.returncode, 0)
            self.assertIn("--factor must be > 1", r.stderr)


if __name__ == "__main__":
    unittest.main()
