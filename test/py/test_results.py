"""The results of a run: HPL's output parsed, the JSON and CSV writers, a
node's energy (the extrapolation of a sampled run: test_extrapolation.py)."""

import csv
import json
import os
import shutil
import tempfile
import unittest

import support  # noqa: F401  (the package on sys.path)
from simblas_hpl import results

OUT = """\
================================================================================
T/V                N    NB     P     Q               Time                 Gflops
--------------------------------------------------------------------------------
WR11C2R4        8000   128     4     4               1.91              1.786e+02
HPL_pdgesv() start time Tue Nov 25 10:00:00 2026
--------------------------------------------------------------------------------
||Ax-b||_oo/(eps*(||A||_oo*||x||_oo+||b||_oo)*N)=   3.95024519e-03 ...... PASSED
================================================================================
"""
ERR = """\
[0.000000] [smpi_utils/INFO] Simulated time: 2.05436 seconds.
[2.054360] [host_energy/INFO] Energy consumption of host node-0: 300.5 Joules
[2.054360] [host_energy/INFO] Energy consumption of host node-1: 290.25 Joules
[2.054360] [host_energy/INFO] Total energy consumption: 590.75 Joules (used hosts: 590.75 Joules; unused/idle hosts: 0)
"""


class ParseOutput(unittest.TestCase):
    def test_result_residual_time_energy(self):
        d = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, d)
        r = results.parse_output(OUT, ERR, d)
        self.assertEqual((r["tv"], r["hpl_n"], r["hpl_nb"], r["hpl_p"], r["hpl_q"]), ("WR11C2R4", 8000, 128, 4, 4))
        self.assertEqual((r["hpl_time_s"], r["gflops"]), (1.91, 178.6))
        self.assertTrue(r["result_line"].startswith("WR11C2R4") and r["result_line"].endswith("1.786e+02"))
        self.assertEqual((r["residual"], r["residual_passed"]), (3.95024519e-03, True))
        self.assertEqual(r["simulated_time_s"], 2.05436)
        self.assertEqual((r["energy_j"], r["energy_used_hosts_j"], r["energy_idle_hosts_j"]), (590.75, 590.75, 0.0))
        self.assertEqual(r["energy_per_host_j"], {"node-0": 300.5, "node-1": 290.25})

    def test_the_time_in_full(self):
        """hpl-patches/20-precise-time.patch's line gives the time a sampled
        run's set-up and solve are taken from (HPL's two printed figures
        bound it to about 3e-4 here); without it, or when it is not this
        result's, the two figures are intersected as before."""
        d = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, d)
        before = results.parse_output(OUT, ERR, d)["hpl_time_precise_s"]
        self.assertAlmostEqual(before, 1.91, delta=0.005)
        full = OUT.replace("PASSED\n", "PASSED\nSimBLAS: HPL time 1.9123456789012345 s\n")
        self.assertEqual(results.parse_output(full, ERR, d)["hpl_time_precise_s"], 1.9123456789012345)
        for other in ("2.5", "nan", "-1", "x"):
            r = results.parse_output(OUT + f"SimBLAS: HPL time {other} s\n", ERR, d)
            self.assertEqual(r["hpl_time_precise_s"], before, other)

    def test_hpcc_output_file_and_skips(self):
        d = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, d)
        with open(os.path.join(d, "hpccoutf.txt"), "w") as f:  # HPCC's HPL writes its result there
            f.write(OUT.replace("PASSED", "FAILED") + "1 tests skipped because of illegal input values\n")
        r = results.parse_output("", "", d)
        self.assertEqual((r["gflops"], r["residual_passed"], r["skipped"]), (178.6, False, 1))
        self.assertNotIn("simulated_time_s", r)


class Phases(unittest.TestCase):
    def test_detailed_timing(self):
        """HPL built with -DHPL_DETAILED_TIMING prints the slowest rank's time
        per phase after the result line (as a real run printed it); parsed
        into phases_s, absent otherwise."""
        out = OUT.replace("HPL_pdgesv() start time", """\
Max aggregated wall time rfact . . . :               1.46
+ Max aggregated wall time pfact . . :               1.34
+ Max aggregated wall time mxswp . . :               1.29
Max aggregated wall time update  . . :              13.31
+ Max aggregated wall time laswp . . :               1.09
Max aggregated wall time up tr sv  . :               0.04
HPL_pdgesv() start time""")
        d = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, d)
        r = results.parse_output(out, "", d)
        self.assertEqual(r["phases_s"], {"rfact": 1.46, "pfact": 1.34, "mxswp": 1.29, "update": 13.31, "laswp": 1.09,
                                         "uptrsv": 0.04})
        self.assertEqual(r["gflops"], 178.6)
        self.assertNotIn("phases_s", results.parse_output(OUT, "", d))


class Writers(unittest.TestCase):
    def setUp(self):
        self.d = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, self.d)

    def test_json(self):
        p = os.path.join(self.d, "r.json")
        results.write_json(p, {"n": 8000, "gflops": 178.6, "hpl": {"depth": 1}})
        with open(p) as f:
            text = f.read()
        self.assertEqual(json.loads(text), {"n": 8000, "gflops": 178.6, "hpl": {"depth": 1}})
        self.assertTrue(text.endswith("}\n"))
        self.assertEqual(os.listdir(self.d), ["r.json"])  # written through r.json.new, renamed

    def test_csv_header_once_and_columns_kept(self):
        p = os.path.join(self.d, "runs.csv")
        results.append_csv(p, {"n": 8000, "gflops": 178.6, "iterations_done": None, "extra": 1})
        results.append_csv(p, {"n": 9000, "gflops": 190.0})
        with open(p, newline="") as f:
            rows = list(csv.reader(f))
        self.assertEqual(rows[0], results.CSV_FIELDS)
        self.assertEqual(len(rows), 3)
        row = dict(zip(rows[0], rows[1]))
        self.assertEqual((row["n"], row["gflops"], row["iterations_done"]), ("8000", "178.6", ""))
        self.assertRegex(row["date"], r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d$")
        # an existing file keeps its own columns
        q = os.path.join(self.d, "mine.csv")
        with open(q, "w") as f:
            f.write("gflops,n\n")
        results.append_csv(q, {"n": 8000, "gflops": 178.6, "p": 4})
        with open(q) as f:
            self.assertEqual(f.read().splitlines(), ["gflops,n", "178.6,8000"])


if __name__ == "__main__":
    unittest.main()


class NodeEnergy(unittest.TestCase):
    """--node with accelerators: their energy from libsimblas's count of
    busy device-seconds (SimGrid's energy plugin knows hosts only)."""

    def plan(self, iterations=None):
        from types import SimpleNamespace
        from simblas_hpl import nodefile
        comp = nodefile.Composition(text="", summary={"accelerators": {"per_rank": 2}}, energy=[100, 120, 200],
                                    accel_watts=[20.0, 200.0], accelerators_per_node=2)
        return SimpleNamespace(node=comp, ranks=4, iterations=iterations, energy=[100, 120, 200])

    def test_idle_all_run_busy_while_offloaded(self):
        res = results.parse_output("", "simblas: node X: 30 of 1000 modelled calls offloaded, accelerators busy "
                                   "50 s (device-seconds, all ranks)\n", tempfile.gettempdir())
        self.assertEqual(res["offload"], {"calls_offloaded": 30, "calls": 1000, "busy_s": 50.0})
        summary = {"hpl_time_s": 90.0, "simulated_time_s": 100.0, "energy_j": 5000.0}
        results.node_summary(self.plan(), res, summary, "/nonexistent")
        # 8 devices idle at 20 W for the 100 s simulated, 180 W more for 50 device-seconds
        self.assertAlmostEqual(summary["energy_accelerators_j"], 8 * 20 * 100 + 180 * 50)
        self.assertEqual(summary["energy_hosts_j"], 5000.0)
        self.assertAlmostEqual(summary["energy_j"], 5000 + 8 * 20 * 100 + 180 * 50)
        self.assertAlmostEqual(summary["offload"]["busy_fraction"], 50 / (8 * 90.0), places=4)

    def test_sampled_busy_time_scaled_and_missing_account_refused(self):
        res = {"offload": {"calls_offloaded": 3, "calls": 10, "busy_s": 5.0}}
        summary = {"hpl_time_s": 1000.0, "partial_hpl_time_s": 10.0, "extrapolated_hpl_time_s": 1000.0,
                   "simulated_time_s": 12.0, "energy_j": 3000.0}
        results.node_summary(self.plan(iterations=3), res, summary, "/nonexistent")
        self.assertEqual((summary["offload"]["partial_busy_s"], summary["offload"]["busy_s"]), (5.0, 500.0))
        # idle over the extrapolated HPL time plus the set-up outside the loop (12 - 10 s)
        self.assertAlmostEqual(summary["energy_accelerators_j"], 8 * 20 * 1002 + 180 * 500)
        with self.assertRaisesRegex(results.CliError, "printed no account of the accelerators"):
            results.node_summary(self.plan(), {}, {"hpl_time_s": 1.0}, "/nonexistent")
