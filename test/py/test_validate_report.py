"""validate's report written out (validate_report.py): the table (errors,
summary lines, the drift and its adjusted columns, HPL's phases), the CSV
(a row per configuration and simulation, one per reference speed) and the
figure (gnuplot's data and script; the SVG and PNG put in place only when
gnuplot made them)."""

import json
import os
from unittest import mock

from support import Sandbox
from simblas_hpl import validate_configs, validate_real, validate_report, validate_score, validate_sim
from validate_fixtures import write_model


def fake_report(errors, real=(100.0, 98.0, 102.0)):
    configs = [validate_configs.make_config(8000, 1, 2), validate_configs.make_config(8000, 2, 1, swap=0)]
    real_runs = {c.label: {"gflops": list(real), "hpl_time_s": [1.0] * 3, "other_load": [0.01, 0.0, 0.02]}
                 for c in configs}
    sims = [validate_sim.Simulation("full", "model", "/m/full.model")]
    res = {"full": {c.label: {"gflops": 100.0 * (1 + e / 100), "hpl_time_s": 1.0, "wall_s": 2.0}
                    for c, e in zip(configs, errors)}}
    machine = {"cpu": "Test CPU", "simd": ["avx2"], "cores": 2}
    return validate_score.build_report(configs, real_runs, sims, res, machine, 3, None, "2026-11-25T00:00:00+00:00", 60)


class Report(Sandbox):
    def test_report(self):
        r = fake_report([2.0, -4.0])
        row = r["configs"][0]
        self.assertEqual((row["real"]["median"], row["real"]["min"], row["real"]["max"], row["real"]["spread_pct"]),
                         (100.0, 98.0, 102.0, 4.0))
        self.assertEqual([x["sim"]["full"]["error_pct"] for x in r["configs"]], [2.0, -4.0])
        self.assertEqual(r["simulations"]["full"]["max_abs_error_pct"], 4.0)
        self.assertEqual(r["simulations"]["full"]["within_3pct"], 1)
        self.assertEqual(r["other_load_max"], 0.02)
        text = validate_report.table(r)
        self.assertRegex(text, r"N=8000 2x1 swap=0 +100 \(98-102\) +96 +-4\.0%")
        self.assertIn("full: worst 4.0%, mean -1.0%, 1 of 2 within 3%", text)
        self.assertIn("machine: Test CPU (avx2), 2 core(s)", text)
        # the x86 family and model where the report has them
        r["machine"].update(family=25, model=1)
        self.assertIn("machine: Test CPU (family 25 model 1; avx2), 2 core(s)", validate_report.table(r))
        rows = validate_report.csv_text(r).splitlines()
        self.assertEqual(rows[0].split(",")[:4], ["date", "cpu", "label", "n"])
        self.assertEqual(len(rows), 3)
        self.assertEqual(rows[2].split(",")[13:17], ["full", "model", "96.0", "-4.0"])

    def test_phases(self):
        """With a build that prints HPL's phases (build --detailed-timing), the
        report has the real runs' median per phase and each simulation's, and
        the table a line per phase with the difference; a real run without
        them leaves the phases out."""
        c = validate_configs.make_config(12000, 2, 1)
        ph = [{"rfact": 1.46, "pfact": 1.34, "mxswp": 1.29, "update": 13.31, "laswp": 1.09, "uptrsv": 0.04},
              {"rfact": 0.85, "pfact": 0.72, "mxswp": 0.68, "update": 13.74, "laswp": 0.98, "uptrsv": 0.06},
              {"rfact": 0.9, "pfact": 0.8, "mxswp": 0.7, "update": 13.5, "laswp": 1.0, "uptrsv": 0.05}]
        real = {c.label: {"gflops": [80.8, 81.7, 81.0], "phases_s": ph}}
        sims = [validate_sim.Simulation("m", "model", "x")]
        res = {"m": {c.label: {"gflops": 77.85, "hpl_time_s": 14.8, "wall_s": 1,
                               "phases_s": {"rfact": 0.6, "pfact": 0.3, "mxswp": 0.21, "update": 14.29, "laswp": 1.22,
                                            "uptrsv": 0.01}}}}
        r = validate_score.build_report([c], real, sims, res, {"cpu": "x", "simd": [], "cores": 2}, 3, None, "d", 1)
        got = r["configs"][0]["real"]["phases_s"]
        self.assertEqual((got["rfact"]["median"], got["rfact"]["min"], got["rfact"]["max"]), (0.9, 0.85, 1.46))
        self.assertEqual(got["update"]["median"], 13.5)
        text = validate_report.table(r)
        self.assertRegex(text, r"N=12000 2x1 +update +13\.5 \(13\.3-13\.7\) +14\.3 +\+0\.79s")
        self.assertRegex(text, r"N=12000 2x1 +\+ mxswp +0\.7 \(0\.68-1\.29\) +0\.21 +-0\.49s")
        # --real: an earlier report's real runs come back with their phases
        path = self.path("v.json")
        with open(path, "w") as f:
            json.dump(r, f)
        again, _ = validate_real.load_real(path, [c])
        self.assertEqual(again[c.label]["phases_s"], ph)
        real[c.label]["phases_s"][1] = None  # a run without them
        r = validate_score.build_report([c], real, sims, res, {"cpu": "x", "simd": [], "cores": 2}, 3, None, "d", 1)
        self.assertNotIn("phases_s", r["configs"][0]["real"])
        self.assertNotIn("HPL's phases", validate_report.table(r))

    def test_plot_data(self):
        r = fake_report([1.0, 2.0])
        prefix = self.path("fig")
        with mock.patch("shutil.which", return_value=None):
            validate_report.plot(r, prefix)
        dat = self.read(prefix + ".dat").splitlines()
        self.assertEqual(dat[1], '"N=8000 1x2" 100.0 98.0 102.0 101.0')
        self.assertIn("with xerrorbars", self.read(prefix + ".gp"))

    def test_plot_figures(self):
        """The SVG and the PNG are put in place when gnuplot made them (each
        written as NAME.new, then renamed); a gnuplot that fails is said and
        leaves none."""
        r = fake_report([1.0, 2.0])
        prefix = self.path("fig")
        gnuplot = self.path("gnuplot")
        with open(gnuplot, "w") as f:
            f.write("#!/bin/sh\nout=$(sed -n \"s/^set output '\\(.*\\)'$/\\1/p\")\necho figure > \"$out\"\n")
        os.chmod(gnuplot, 0o755)
        with mock.patch("shutil.which", return_value=gnuplot):
            made = validate_report.plot(r, prefix)
        self.assertEqual(made, [prefix + ".svg", prefix + ".png"])
        self.assertFalse([f for f in os.listdir(self.root) if f.endswith(".new")])
        self.assertEqual(self.read(prefix + ".png"), "figure\n")
        said = []
        with open(gnuplot, "w") as f:
            f.write("#!/bin/sh\necho 'line 1: unknown terminal'\nexit 1\n")
        with mock.patch("shutil.which", return_value=gnuplot), \
                mock.patch("simblas_hpl.validate_report.note", said.append):
            self.assertEqual(validate_report.plot(r, self.path("bad")), [])
        self.assertEqual(said, [f"gnuplot could not make {self.path('bad')}.{x}: ['line 1: unknown terminal']"
                                for x in ("svg", "png")])
        self.assertFalse(os.path.exists(self.path("bad.svg")))

    def test_no_simulation(self):
        """Real runs alone (--no-model without --passthrough): the table has
        the real columns, the CSV a row per configuration."""
        c = validate_configs.make_config(8000, 1, 2)
        machine = {"cpu": "x", "simd": [], "cores": 2}
        r = validate_score.build_report([c], {c.label: {"gflops": [50.0]}}, [], {}, machine, 1, None, "d", 1)
        self.assertEqual(validate_report.table(r).splitlines()[1].split(), ["N=8000", "1x2", "50", "(50-50)"])
        rows = validate_report.csv_text(r).splitlines()
        self.assertEqual(len(rows), 2)
        self.assertEqual(rows[1].split(",")[13:17], ["", "", "", ""])


class Drift(Sandbox):
    """Each model's drift against the machine's reference speed measured
    with the real runs (issue 23: the VM drifts by +-4% in tens of
    minutes), in the report, the table and the CSV."""

    def report(self, models, speeds, adjusted=False):
        configs = [validate_configs.make_config(8000, 1, 2)]
        real = {configs[0].label: {"gflops": [95.0, 96.0, 97.0]}}
        sims = [validate_sim.Simulation(n, "model", write_model(self.path(n + ".model"), *a)) for n, a in models]
        res = {s.name: {configs[0].label: {"gflops": 100.0, "hpl_time_s": 1.0, "wall_s": 1.0}} for s in sims}
        return validate_score.build_report(configs, real, sims, res, {"cpu": "Test CPU", "simd": [], "cores": 2}, 3,
                                       None, "2026-11-26T09:00:00+00:00", 1, speeds=speeds, adjusted=adjusted)

    def speeds(self, *g):
        return [{"time": f"2026-11-26T09:0{i}:00+00:00", "when": f"before round {i + 1}",
                 "shape": "dgemm m=3280 n=3280 k=256 in HPL's layout", "gflops": x, "stolen_share": 0.0,
                 "wall_s": 4.0} for i, x in enumerate(g)]

    def test_drift_and_adjusted(self):
        r = self.report([("full", (40e9,)), ("old", (42e9, "the dgemm model's rate at m = n = k = 4096"))],
                        self.speeds(38.0, 38.8, 37.2), adjusted=True)
        full, old = r["simulations"]["full"]["reference_speed"], r["simulations"]["old"]["reference_speed"]
        self.assertEqual((full["model_gflops"], full["measured_gflops"], full["ratio"]), (40.0, 38.0, 0.95))
        self.assertEqual((old["ratio"], old["model_gflops"]), (None, 42.0))
        self.assertIn("not measured", old["why"])
        self.assertEqual(r["reference_speed"]["summary"]["dgemm m=3280 n=3280 k=256 in HPL's layout"],
                         {"median": 38.0, "min": 37.2, "max": 38.8, "spread_pct": 4.21, "n": 3})
        sim = r["configs"][0]["sim"]
        self.assertEqual((sim["full"]["speed_adjusted_gflops"], sim["full"]["speed_adjusted_error_pct"]), (95.0, -1.04))
        self.assertNotIn("speed_adjusted_gflops", sim["old"])
        text = validate_report.table(r)
        head = text.splitlines()[0]
        self.assertIn("full adj.*", head)
        self.assertNotIn("old adj.", head)
        self.assertRegex(text.splitlines()[1], r"100 +\+4\.2% +100 +\+4\.2% +95 +-1\.0%$")
        self.assertIn("machine speed 0.950 of the calibration's (-5.0%: reference speed 38 measured, 40 in the model)",
                      text)
        self.assertIn("old: worst 4.2%", text)
        self.assertIn("no drift figure: the model's reference speed was not measured", text)
        self.assertIn("not a prediction", text)
        self.assertIn("09:00 38, 09:01 38.8, 09:02 37.2", text)
        rows = list(__import__("csv").DictReader(validate_report.csv_text(r).splitlines()))
        self.assertEqual([(x["simulation"], x["speed_ratio"], x["speed_adjusted_gflops"]) for x in rows[:2]],
                         [("full", "0.95", "95.0"), ("old", "", "")])
        self.assertEqual(rows[1]["model_reference_gflops"], "42.0")
        meas = rows[2:]
        self.assertEqual([(x["label"], x["date"], x["measured_reference_gflops"]) for x in meas],
                         [("reference speed", f"2026-11-26T09:0{i}:00+00:00", g)
                          for i, g in enumerate(("38.0", "38.8", "37.2"))])
        self.assertEqual(meas[0]["hpl_opt"], "before round 1: dgemm m=3280 n=3280 k=256 in HPL's layout")
        # the JSON keeps all of it
        back = json.loads(json.dumps(r))
        self.assertEqual(len(back["reference_speed"]["measured"]), 3)

    def test_not_measured(self):
        # without --speed-adjusted: the ratio, no column; without measurements: said
        r = self.report([("full", (40e9,))], self.speeds(42.0))
        self.assertNotIn("adj.", validate_report.table(r))
        self.assertEqual(r["simulations"]["full"]["reference_speed"]["ratio"], 1.05)
        r = self.report([("full", (40e9,))], None)
        self.assertIsNone(r["reference_speed"])
        self.assertIn("reference speed not measured with these real runs", validate_report.table(r))
        self.assertEqual(validate_report.csv_text(r).count("reference speed"), 0)
