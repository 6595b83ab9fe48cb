"""The estimator behind --iterations and --samples (extrapolation.py,
doc/scale.md), on synthetic iteration logs.  Moved from section 2 of
test/hpl-run.sh, then from test_results.py."""

import contextlib
import io
import math
import os
import shutil
import tempfile
import types
import unittest

import support  # noqa: F401  (the package on sys.path)
from simblas_hpl import extrapolation, spread


class Extrapolation(unittest.TestCase):
    """The estimator behind --iterations (doc/scale.md), on iteration logs
    made up from a known cost curve t_i = r + b x_i^2 (b: rank 0's BLAS
    time): at depth 0 the passes' cold first iterations are dropped and the
    sum model integrates the curve exactly; at depth 1 the priming iteration
    is dropped and a pass's mean stands for its stratum (exact on a flat
    curve); the first K iterations alone use the sum model at any depth."""
    n, nb, total, outside = 128 * 40, 128, 40, 0.5

    def x(self, i):
        return (self.n - i * self.nb) / self.n

    def marks(self, start, k, clocks, r, b, first_factor):
        """A pass's marks: k iterations from start, at t_i = r + b x_i^2
        (the first first_factor times that), from the clocks (simulated,
        wall, BLAS) it starts at."""
        sim, wall, blas = clocks
        out = [(start, sim, wall, blas)]
        for j, i in enumerate(range(start, start + k)):
            f = first_factor if j == 0 else 1.0
            sim += f * (r + b * self.x(i) ** 2)
            wall += 2.0
            blas += f * b * self.x(i) ** 2
            out.append((i + 1, sim, wall, blas))
        return out

    def case(self, depth, passes, r, b, first_factor):
        cost = lambda i: r + b * self.x(i) ** 2  # noqa: E731
        segs, sim, wall, blas = [], 0.0, 100.0, 0.0
        for start, k in passes:
            marks = self.marks(start, k, (sim, wall, blas), r, b, first_factor)
            sim, wall, blas = marks[-1][1:]
            segs.append({"start": start, "total": self.total, "marks": marks})
        ex = extrapolation.extrapolate(segs, (sim, wall, blas), self.n, self.nb, depth, sim + self.outside,
                                 wall - 100.0 + 3.0)
        want = self.outside + sum(cost(i) for i in range(self.total))
        self.assertAlmostEqual(ex["extrapolated_hpl_time_s"] / want, 1, delta=1e-9)
        self.assertAlmostEqual(ex["extrapolated_wall_s"], 3.0 + 2.0 * self.total, delta=1e-6)
        return ex

    def test_exact_on_synthetic_logs(self):
        strata = [(2, 6), (12, 6), (22, 6), (32, 6)]
        ex = self.case(0, strata, 0.01, 0.05, 1.3)   # cold starts, curved cost
        self.assertEqual([s["stands_for"] for s in ex["strata"]], [[0, 10], [10, 20], [20, 30], [30, 40]])
        self.assertEqual(ex["iterations_done"], 24)
        self.case(1, strata, 0.01, 0.0, 3.0)          # priming iteration, flat cost
        self.case(1, [(0, 5)], 0.01, 0.05, 1.0)       # the first K alone
        self.case(0, [(0, 5)], 0.01, 0.05, 1.0)

    def split(self, depth, passes, r, b, first_factor, offsets):
        """The same passes run one per process (SIMBLAS_SAMPLE_ONLY), each
        from a set-up that ends at its own simulated and wall clocks, then
        combined."""
        runs = []
        for k, ((start, n_it), (sim0, wall0)) in enumerate(zip(passes, offsets)):
            marks = self.marks(start, n_it, (sim0, wall0, 0.0), r, b, first_factor)
            sim, wall, blas = marks[-1][1:]
            # HPL's time: from its start (sim0 - 0.2 before the first mark) to the end mark, and 0.3 after
            runs.append({"segs": [{"pass": k, "start": start, "total": self.total, "marks": marks}],
                         "end": (sim, wall, blas), "hpl_time_s": sim - sim0 + self.outside, "wall_s": wall - wall0 + 3.0})
        return runs

    def test_passes_run_apart_give_the_same_estimate(self):
        strata = [(2, 6), (12, 6), (22, 6), (32, 6)]
        for depth, r, b, ff in ((0, 0.01, 0.05, 1.3), (1, 0.01, 0.0, 3.0), (1, 0.02, 0.05, 2.0)):
            one = self.case(0, strata, r, b, ff) if depth == 0 and b else None
            runs = self.split(depth, strata, r, b, ff, [(5.0 * k + 1, 40.0 * k) for k in range(4)])
            ex = extrapolation.extrapolate_runs(list(reversed(runs)), self.n, self.nb, depth)  # any order
            segs, sim, wall = [], 0.0, 100.0
            for run in runs:  # the same passes, one after the other in one run
                d = sim - run["segs"][0]["marks"][0][1]
                dw = wall - run["segs"][0]["marks"][0][2]
                segs.append({**run["segs"][0], "marks": [(i, s + d, w + dw, bl) for i, s, w, bl in run["segs"][0]["marks"]]})
                sim, wall = segs[-1]["marks"][-1][1], segs[-1]["marks"][-1][2]
            single = extrapolation.extrapolate(segs, (sim, wall, 0.0), self.n, self.nb, depth, sim + self.outside,
                                         wall - 100.0 + 3.0)
            self.assertAlmostEqual(ex["extrapolated_hpl_time_s"] / single["extrapolated_hpl_time_s"], 1, delta=1e-12)
            self.assertAlmostEqual(ex["extrapolated_wall_s"], single["extrapolated_wall_s"], delta=1e-6)
            self.assertEqual(ex["strata"], single["strata"])
            if one:
                self.assertAlmostEqual(ex["extrapolated_hpl_time_s"] / one["extrapolated_hpl_time_s"], 1, delta=1e-12)
        # a pass missing, or its end mark: no estimate
        self.assertIsNone(extrapolation.extrapolate_runs(runs[:1] + [{**runs[1], "end": None}], self.n, self.nb, 1))

    def test_energy_of_passes_run_apart_counts_one_set_up(self):
        """--energy with --engine: the passes' energy at their mean power over
        the extrapolated time and one run's set-up (each pass's own set-up
        and the other passes' HPL time were counted as set-up: +36% on
        N=4000 2x4 --iterations 5 --samples 3, 1,639.6 J against the
        single process's 1,205.1 J)."""
        runs = self.split(1, [(2, 6), (12, 6), (22, 6), (32, 6)], 0.01, 0.0, 3.0, [(1.0, 0.0)] * 4)
        plan = types.SimpleNamespace(n=self.n, nb=self.nb, p=1, q=1, depth=1, iterations=6, skips_solve=False)
        summaries = []
        for r in runs:  # 1 s of set-up outside HPL's time, 100 W throughout
            sim = r["hpl_time_s"] + 1.0
            summaries.append({"pass": r, "partial_gflops": 1.0, "partial_hpl_time_s": r["hpl_time_s"], "wall_s": 1.0,
                              "simulated_time_s": sim, "energy_j": 100 * sim, "energy_used_hosts_j": 100 * sim,
                              "energy_idle_hosts_j": 0.0, "energy_per_host_j": {"h": 100 * sim}})
        out = spread.combine(plan, summaries)
        self.assertAlmostEqual(out["energy_j"], 100 * (out["extrapolated_hpl_time_s"] + 1.0), delta=1e-2)

    def test_covering_passes_are_a_full_run(self):
        """K x S covering the loop (a full run in S jobs): every iteration
        as measured; pass 0's first ones are the run's own start, the
        others' priming iterations are taken from the pass before, which
        ran past its stratum (K = the stratum + 1), else from the pass's mean."""
        cost = lambda i: 0.01 + 0.05 * self.x(i) ** 2  # noqa: E731
        runs = self.split(1, [(0, 11), (10, 11), (20, 11), (30, 10)], 0.01, 0.05, 3.0, [(1.0, 0.0)] * 4)
        ex = extrapolation.extrapolate_runs(runs, self.n, self.nb, 1)
        want = self.outside + 3.0 * cost(0) + sum(cost(i) for i in range(1, self.total))
        self.assertAlmostEqual(ex["extrapolated_hpl_time_s"] / want, 1, delta=1e-12)
        self.assertEqual((ex["covering"], ex["iterations_estimated"]), (True, 0))
        self.assertEqual([s["counted"] for s in ex["strata"]], [10, 10, 10, 10])
        # K = the stratum: the priming iterations 10, 20, 30 from their pass's mean
        runs = self.split(1, [(0, 10), (10, 10), (20, 10), (30, 10)], 0.01, 0.05, 3.0, [(1.0, 0.0)] * 4)
        ex = extrapolation.extrapolate_runs(runs, self.n, self.nb, 1)
        want = self.outside + 3.0 * cost(0) + sum(cost(i) for i in range(1, self.total) if i % 10)
        for lo in (10, 20, 30):
            want += sum(cost(i) for i in range(lo + 1, lo + 10)) / 9
        self.assertAlmostEqual(ex["extrapolated_hpl_time_s"] / want, 1, delta=1e-12)
        self.assertEqual(ex["iterations_estimated"], 3)

    def test_uncertainty(self):
        """On a cost curve the estimator assumes, no sampling error; the
        straight-line reading of a curved cost differs (interpolation > 0).
        With noise (+-e on alternate iterations) the sampling part is
        positive and the estimate is within three of it of the truth."""
        strata = [(2, 6), (12, 6), (22, 6), (32, 6)]
        u = self.case(0, strata, 0.01, 0.05, 1.3)["extrapolation_uncertainty"]
        self.assertLess(u["sampling_s"], 1e-9)
        self.assertGreater(u["interpolation_s"], 0)
        self.assertAlmostEqual(u["s"], math.hypot(u["sampling_s"], u["interpolation_s"]), delta=2e-3)
        # the first K alone: no estimate of the error (it said 0 with one counted iteration: +33.6% against
        # the full run at N=4000 2x4 --iterations 2, "s": 0.0, "relative": 0.0)
        u = self.case(0, [(0, 5)], 0.01, 0.05, 1.0)["extrapolation_uncertainty"]
        self.assertEqual((u["s"], u["relative"], u["interpolation_s"]), (None, None, None))
        self.assertIsNotNone(u["sampling_s"])
        u = self.case(1, [(0, 2)], 0.01, 0.05, 1.0)["extrapolation_uncertainty"]
        self.assertEqual((u["s"], u["relative"], u["sampling_s"]), (None, None, None))
        ex, want = self.noisy(strata)
        u = ex["extrapolation_uncertainty"]
        self.assertGreater(u["sampling_s"], 0)
        self.assertLessEqual(abs(ex["extrapolated_hpl_time_s"] - want), 3 * u["s"])

    def noisy(self, strata, e=0.004):
        """The extrapolation of passes (start, iterations) on a cost curve
        with +-e on alternate iterations, and the true loop time."""
        cost = lambda i: 0.01 + 0.05 * self.x(i) ** 2 + (e if i % 2 else -e)  # noqa: E731
        segs, sim, wall, blas = [], 0.0, 100.0, 0.0
        for start, k in strata:
            marks = [(start, sim, wall, blas)]
            for i in range(start, start + k):
                sim += cost(i)
                wall += 2.0
                blas += 0.05 * self.x(i) ** 2
                marks.append((i + 1, sim, wall, blas))
            segs.append({"start": start, "total": self.total, "marks": marks})
        return (extrapolation.extrapolate(segs, (sim, wall, blas), self.n, self.nb, 0, sim, wall - 100.0),
                sum(cost(i) for i in range(self.total)))

    def test_uncertainty_of_one_point_strata(self):
        """Passes of one counted iteration each (K = 2: one priming, one
        counted) have no spread of their own: the sampling part comes from
        the strata's successive differences, not 0 (it said 0.0% for the
        41,000-rank S = 32 run), and the estimate is within three of it of
        the truth; with two points a stratum keeps its own spread."""
        ex, want = self.noisy([(4, 2), (14, 2), (24, 2), (34, 2)])
        self.assertEqual([s["counted"] for s in ex["strata"]], [1, 1, 1, 1])
        u = ex["extrapolation_uncertainty"]
        self.assertEqual(u["sampling_method"], "successive differences of the strata's means")
        self.assertGreater(u["sampling_s"], 0.01)
        self.assertLessEqual(abs(ex["extrapolated_hpl_time_s"] - want), 3 * u["s"])
        mixed = self.noisy([(4, 2), (14, 3), (24, 2), (34, 3)])[0]["extrapolation_uncertainty"]
        self.assertEqual(mixed["sampling_method"],
                         "within strata, and successive differences for the strata of one point")
        self.assertEqual(self.noisy([(2, 6), (12, 6)])[0]["extrapolation_uncertainty"]["sampling_method"],
                         "within strata")

    def test_uncertainty_is_that_of_the_estimated_iterations(self):
        """The iterations measured are what the simulation gave: only those
        estimated carry an error.  Passes covering the loop with every
        iteration measured are a full run, exactly, uncertainty 0 (it said
        +-4.2% for exactly the noisy loop's time); with the three priming
        iterations estimated, the error of three iterations, and the truth
        within three of it; a stratum nearly all measured gets the finite
        population correction (a fifth of the variance it had)."""
        e = 0.004
        ex, want = self.noisy([(0, 11), (10, 11), (20, 11), (30, 10)], e)
        self.assertEqual((ex.get("covering"), ex["iterations_estimated"]), (True, 0))
        self.assertAlmostEqual(ex["extrapolated_hpl_time_s"] / want, 1, delta=1e-12)
        u = ex["extrapolation_uncertainty"]
        self.assertEqual((u["s"], u["sampling_s"], u["interpolation_s"]), (0, 0, 0))
        ex, want = self.noisy([(0, 10), (10, 10), (20, 10), (30, 10)], e)
        u = ex["extrapolation_uncertainty"]
        self.assertEqual(ex["iterations_estimated"], 3)
        self.assertGreater(u["s"], 0)
        self.assertLess(u["sampling_s"], 2 * e * math.sqrt(3))
        self.assertLessEqual(abs(ex["extrapolated_hpl_time_s"] - want), 3 * u["s"])
        # 8 of a stratum's 10 measured (depth 0: each pass's cold first dropped), against 8 of 20:
        # (10 - 8)(10 - 8 + 8)/8 = 2.5 iterations' variance against 10^2/8 = 12.5 before
        near, want = self.noisy([(1, 9), (11, 9), (21, 9), (31, 9)], e)
        far = self.noisy([(1, 9), (21, 9)], e)[0]
        self.assertLess(near["extrapolation_uncertainty"]["sampling_s"],
                        far["extrapolation_uncertainty"]["sampling_s"] / 2)
        self.assertLessEqual(abs(near["extrapolated_hpl_time_s"] - want), 3 * near["extrapolation_uncertainty"]["s"])

    def test_the_printed_line_says_what_the_estimate_stands_on(self):
        """stdout's line: covering passes are a full run (it said "extrapolated
        from 43 of 40 panel iterations"), and the uncertainty is printed, or
        why there is none."""
        from simblas_hpl.verbs.run import extrapolated_line
        line = extrapolated_line(self.noisy([(0, 11), (10, 11), (20, 11), (30, 10)])[0])
        self.assertTrue(line.startswith("a full run in 4 passes: 40 of 40 panel iterations measured (43 simulated"), line)
        self.assertIn("(exact: every iteration measured)", line)
        line = extrapolated_line(self.noisy([(0, 10), (10, 10), (20, 10), (30, 10)])[0])
        self.assertIn("37 of 40 panel iterations measured, 3 estimated from their pass's mean", line)
        self.assertRegex(line, r"HPL time [0-9.]+ s \+- [0-9.e-]+ s \([0-9.]+%\)")
        line = extrapolated_line(self.noisy([(2, 6), (12, 6)])[0])
        self.assertRegex(line, r"^extrapolated from 12 of 40 panel iterations \(2 sample\(s\)\): HPL time [0-9.]+ s \+- ")
        self.assertIn("(uncertainty not estimated: one pass)", extrapolated_line(self.case(0, [(0, 5)], 0.01, 0.05, 1.0)))
        # strata that agree with every reading of them (a flat cost at depth 1) are not a full run: +- 0, not "exact"
        flat = self.case(1, [(2, 6), (12, 6), (22, 6), (32, 6)], 0.01, 0.0, 3.0)
        self.assertEqual(flat["extrapolation_uncertainty"]["s"], 0)
        self.assertIn("HPL time 0.90 s +- 0 s (0%)", extrapolated_line(flat))
        # HPL's own line is that of the part simulated: said so (it stood first, alone, like a result:
        # "WR11C2R4 4000 128 1 2 0.04 1.003e+03" for an estimate of 68.23 Gflops)
        from simblas_hpl.verbs.run import show
        hpl = "WR11C2R4        5120   128     1     1               0.04              1.003e+03"
        for summary, first in (({"result_line": hpl}, hpl),
                               ({**self.noisy([(2, 6), (12, 6)])[0], "result_line": hpl},
                                "HPL's own line for the iterations simulated (partial; the estimate follows): " + hpl)):
            out = io.StringIO()
            with contextlib.redirect_stdout(out):
                show(summary)
            self.assertEqual(out.getvalue().splitlines()[0], first)

    def test_no_log_no_estimate(self):
        self.assertIsNone(extrapolation.extrapolate([], None, self.n, self.nb, 0, 1.0, 1.0))

    def test_read_iter_log(self):
        d = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, d)
        p = os.path.join(d, "iterations.log")
        with open(p, "w") as f:
            f.write("seg 0 10 40\niter 10 1.5 100.25 0.5\niter 11 2.5 101 0.75\nend 0 9 120 4.5\n")
        segs, end = extrapolation.read_iter_log(p)
        self.assertEqual(segs, [{"pass": 0, "start": 10, "total": 40,
                                 "marks": [(10, 1.5, 100.25, 0.5), (11, 2.5, 101.0, 0.75)]}])
        self.assertEqual(end, (9.0, 120.0, 4.5))


if __name__ == "__main__":
    unittest.main()
