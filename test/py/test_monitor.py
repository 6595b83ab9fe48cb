"""Watching a run: --progress lines from synthetic iteration logs (moved
from section 2 of test/hpl-run.sh)."""

import os
import re
import shutil
import tempfile
import unittest

import support  # noqa: F401  (the package on sys.path)
from simblas_hpl.monitor import Progress


class ProgressLines(unittest.TestCase):
    def setUp(self):
        self.d = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, self.d)
        self.log = os.path.join(self.d, "iterations.log")

    def test_time_to_go(self):
        """The time to go counts the current iteration's time so far, and an
        overdue one in the pace."""
        # 10 iterations; iterations 0-2 took 10 s each, iteration 4 (1-based) started at t=130
        with open(self.log, "w") as f:
            for i, t in enumerate([100, 110, 120, 130]):
                f.write("iter %d %g %g 0\n" % (i, 5.0 * i, t))
        p = Progress(self.log, 10, 60)
        p.t0 = 90.0
        p.poll()

        def to_go(now):
            m = re.search(r"about (\d+) (s|min) to go", p.line(now))
            return int(m.group(1)) * (60 if m.group(2) == "min" else 1) if m else None
        self.assertEqual(to_go(132), 68)        # the 6 after this one at 10 s, 8 s left of this one
        self.assertEqual(to_go(137), 63)        # 3 s left of this one
        self.assertEqual(to_go(140), 60)        # on the pace: the 6 after it
        self.assertEqual(to_go(146), 69)        # 16 s so far: the pace becomes (30 + 16) / 4 = 11.5 s
        self.assertEqual(to_go(380), 7 * 60)    # 250 s so far: (30 + 250) / 4 = 70 s each, 420 s
        self.assertIn("running for 4 min", p.line(380))
        self.assertIn("10 s of wall per iteration", p.line(380))
        self.assertIn("30.0% done", p.line(132))

    def test_samples(self):
        """With --samples, a pass's end mark and the next pass's start mark
        are one iteration (K=2 S=3)."""
        def write(mode, passes):  # K + 1 marks a pass, the last one its end
            with open(self.log, mode) as f:
                for s, first in passes:
                    f.write("seg %d %d 120\n" % (s, first))
                    for i in range(3):
                        f.write("iter %d %g %g 0\n" % (first + i, 10.0 * (2 * s + i), 100 + 10 * (2 * s + i)))
        write("w", [(0, 10), (1, 50)])
        p = Progress(self.log, 6, 60)
        p.t0 = 90.0
        p.poll()
        mid = p.line(141)   # passes 0 and 1 done: 4 of 6 iterations, the 5th next
        self.assertIn("panel iteration 5 of 6 (66.7% done)", mid)
        self.assertIn("10 s of wall per iteration", mid)
        write("a", [(2, 90)])
        p.poll()
        self.assertIn("panel iteration 7 of 6 (100.0% done)", p.line(161))

    def test_before_the_loop(self):
        p = Progress(self.log, 10, 60)  # no log yet
        p.t0 = 90.0
        p.poll()
        self.assertEqual(p.line(95), "5 s of wall, set-up (no panel iteration yet)")


if __name__ == "__main__":
    unittest.main()
