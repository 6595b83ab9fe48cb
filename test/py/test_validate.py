"""simblas-hpl validate (issue 23): its configurations, its refusals, its
report (table, JSON, CSV, figure data) and --max-error, with the real
runs and the simulations replaced by stand-ins; and the platform that
describes this machine (one rank on a 2-core host)."""

import json
import os
import re
import shutil
from unittest import mock

from support import Sandbox
from simblas_hpl import validate_configs, validate_real, validate_score, validate_sim, validation
from validate_fixtures import fake_calibrator, write_model


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
        text = validation.table(r)
        self.assertRegex(text, r"N=8000 2x1 swap=0 +100 \(98-102\) +96 +-4\.0%")
        self.assertIn("full: worst 4.0%, mean -1.0%, 1 of 2 within 3%", text)
        self.assertIn("machine: Test CPU (avx2), 2 core(s)", text)
        rows = validation.csv_text(r).splitlines()
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
        text = validation.table(r)
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
        self.assertNotIn("HPL's phases", validation.table(r))

    def test_plot_data(self):
        r = fake_report([1.0, 2.0])
        prefix = self.path("fig")
        with mock.patch("shutil.which", return_value=None):
            validation.plot(r, prefix)
        dat = self.read(prefix + ".dat").splitlines()
        self.assertEqual(dat[1], '"N=8000 1x2" 100.0 98.0 102.0 101.0')
        self.assertIn("with xerrorbars", self.read(prefix + ".gp"))


class VerbBase(Sandbox):
    """A sandbox with a fake HPL build (xhpl-mpi included) and fakes() of the runs."""

    def setUp(self):
        super().setUp()
        d = os.path.join(self.env["XDG_DATA_HOME"], "simblas", "hpl", "b1")
        os.makedirs(d)
        names = {"model": "xhpl-model", "passthrough": "xhpl-real", "mpi": "xhpl-mpi"}
        for m, name in names.items():
            with open(os.path.join(d, name), "wb") as f:
                f.write(b"fake xhpl, linked with libsimblas_pmpi.so")
        with open(os.path.join(d, "manifest.json"), "w") as f:
            json.dump({"build_id": "b1", "source": "/src", "built": "2026", "binaries": names}, f)
        with open(os.path.join(self.env["XDG_DATA_HOME"], "simblas", "hpl", "default"), "w") as f:
            f.write("b1\n")

    def fakes(self, sim_gflops):
        calls = []

        def real(xhpl, n, nb, p, q, opts, workdir, timeout=None, mpirun=None):
            calls.append(("real", n, p, q, opts["swap"]))
            self.assertTrue(xhpl.endswith("xhpl-mpi"))
            return {"gflops": 100.0, "hpl_time_s": 1.0, "wall_s": 2.0}

        def sim(plan, workdir, quiet=False):
            calls.append(("sim", plan.n, plan.p, plan.q, plan.platform.hosts, plan.platform.cores_per_node))
            return mock.Mock(summary={"gflops": sim_gflops, "hpl_time_s": 1.0, "wall_s": 0.5})
        # the reference speed between rounds: a stand-in calibrator (tested in test_validate_speed)
        self.env["SIMBLAS_CALIBRATE"] = fake_calibrator(self.path("cal"), 38.0e9, log=self.path("cal.log"))
        return calls, mock.patch("simblas_hpl.realrun.run_real", real), \
            mock.patch("simblas_hpl.validate_sim.simulate", sim), \
            mock.patch("simblas_hpl.realrun.mpirun_path", return_value="/bin/true"), \
            mock.patch("simblas_hpl.realrun.machine_cores", return_value=2)


class Verb(VerbBase):
    def test_runs_interleaved_and_max_error(self):
        calls, *patches = self.fakes(104.0)
        with patches[0], patches[1], patches[2], patches[3]:
            js = self.path("v.json")
            status, out, err = self.cli("validate", "--config", "4000:1x1", "--config", "4000:2x1:swap=0",
                                        "--runs", 3, "--json", js, "--csv", self.path("v.csv"),
                                        "--max-error", 5)
            self.assertEqual(status, 0, err)
            # rounds: every configuration once, then again
            self.assertEqual([c[2:4] for c in calls if c[0] == "real"], [(1, 1), (2, 1)] * 3)
            # one host of this machine's 2 cores, the 1x1 run included
            self.assertEqual({c[4:] for c in calls if c[0] == "sim"}, {(1, 2)})
            rep = json.load(open(js))
            self.assertEqual([r["sim"]["measured"]["error_pct"] for r in rep["configs"]], [4.0, 4.0])
            self.assertIn("N=4000 2x1 swap=0", out)
            status, out, err = self.cli("validate", "--config", "4000:1x1", "--runs", 1, "--max-error", 3)
            self.assertEqual(status, 1)
            self.assertIn("beyond --max-error 3%: the worst, measured on N=4000 1x1, is +4.0%", err)
            # the real runs of an earlier report, simulated again
            calls.clear()
            status, out, err = self.cli("validate", "--config", "4000:2x1:swap=0", "--real", js)
            self.assertEqual(status, 0, err)
            self.assertEqual([c[0] for c in calls], ["sim"])

    def test_passthrough_takes_the_models_speed(self):
        """--passthrough simulates with the first --model's reference speed
        (the hosts' speed), so --no-model --passthrough --model FILE needs no
        SIMBLAS_MODEL; with neither it says what to give."""
        calls, real, _, mpirun, cores = self.fakes(100.0)
        seen = []

        def sim(plan, workdir, quiet=False):
            seen.append((plan.mode, plan.model))
            return mock.Mock(summary={"gflops": 100.0, "hpl_time_s": 1.0, "wall_s": 0.5})
        model = self.env["SIMBLAS_MODEL"]
        with real, mpirun, cores, mock.patch("simblas_hpl.validate_sim.simulate", sim):
            status, out, err = self.cli("validate", "--config", "4000:1x1", "--runs", 1, "--no-model",
                                        "--passthrough", "--model", model, unset=("SIMBLAS_MODEL",))
            self.assertEqual(status, 0, err)
            self.assertEqual(seen, [("passthrough", os.path.abspath(model))])
            status, out, err = self.cli("validate", "--config", "4000:1x1", "--runs", 1, "--no-model",
                                        "--passthrough", unset=("SIMBLAS_MODEL",))
            self.assertEqual(status, 2)
            self.assertIn("no model file", err)

    def test_probe_follows_the_real_mpi(self):
        """The model-mode simulations probe as the real runs' MPI does:
        lagged for Open MPI, immediate for an MPICH (mpirun --version);
        --probe says otherwise; passthrough has none."""
        calls, real, _, mpirun, cores = self.fakes(100.0)
        seen = []

        def sim(plan, workdir, quiet=False):
            seen.append((plan.mode, plan.probe))
            return mock.Mock(summary={"gflops": 100.0, "hpl_time_s": 1.0, "wall_s": 0.5})
        fake = self.path("mpirun")
        for said, args, want in (("mpirun (Open MPI) 4.1.4", (), "lagged"),
                                 ("HYDRA build details:\n    Version: 4.0.2", (), "immediate"),
                                 ("mpirun (Open MPI) 4.1.4", ("--probe", "immediate"), "immediate")):
            with open(fake, "w") as f:
                f.write(f"#!/bin/sh\nprintf '{said}\\n'\n")
            os.chmod(fake, 0o755)
            self.env["SIMBLAS_MPIRUN"] = fake
            seen.clear()
            js = self.path("p.json")
            with real, mpirun, cores, mock.patch("simblas_hpl.validate_sim.simulate", sim):
                status, out, err = self.cli("validate", "--config", "4000:1x2", "--runs", 1, "--passthrough",
                                            "--no-reference-speed", "--json", js, *args)
            with self.subTest(said=said, args=args):
                self.assertEqual(status, 0, err)
                self.assertEqual(seen, [("model", want), ("passthrough", "immediate")])
                sims = json.load(open(js))["simulations"]
                self.assertEqual([s["probe"] for s in sims.values()], [want, None])
                self.assertIn(f"probe {want}", out)
                if not args:
                    self.assertIn(f"with --probe {want}: the real runs' MPI is {said.splitlines()[0]}", err)
        # no mpirun at all (a --real report simulated elsewhere): SMPI's own probe
        self.assertEqual(validate_real.real_probe(None), ("immediate", "?"))

    def test_refused(self):
        calls, *patches = self.fakes(100.0)
        with patches[0], patches[1], patches[2], patches[3]:
            for args, msg in ((("--config", "4000:2x2"), "4 ranks, and this machine has 2 cores"),
                              (("--runs", 0), "--runs 0: must be >= 1"),
                              (("--max-error", 0), "--max-error 0: must be a percentage > 0"),
                              (("--config", "4000:1x1", "--model", self.path("none.model")), "does not exist"),
                              (("--config", "4000:1x1", "--real", self.path("none.json")), "--real .* cannot read"),
                              (("--config", "4000:1x1", "--json", self.path("no/dir/v.json")), "does not exist")):
                status, out, err = self.cli("validate", *args)
                with self.subTest(args=args):
                    self.assertEqual((status, err.count("\n")), (2, 1), err)
                    self.assertRegex(err, msg)
            self.assertEqual(calls, [])
            # a build without xhpl-mpi says how to make it
            os.unlink(os.path.join(self.env["XDG_DATA_HOME"], "simblas", "hpl", "b1", "xhpl-mpi"))
            status, out, err = self.cli("validate", "--config", "4000:1x1")
            self.assertEqual(status, 2)
            self.assertIn("run `simblas-hpl build --build-id b1 --mode mpi`", err)


class OneRankOnTwoCores(Sandbox):
    def test_platform(self):
        status, out, err, d = self.dry("--n", 4000, "--p", 1, "--q", 1, "--cores-per-node", 2)
        self.assertEqual(status, 0, err)
        xml = self.read(d, "platform.xml")
        self.assertIn('radical="0-0"', xml)
        self.assertIn('core="2"', xml)
        self.assertEqual(self.read(d, "hostfile"), "node-0\n")
        # a partly used last host
        status, out, err, d = self.dry("--n", 4000, "--p", 2, "--q", 3, "--cores-per-node", 4, keep=self.path("d2"))
        self.assertEqual(status, 0, err)
        self.assertIn('radical="0-1"', self.read(d, "platform.xml"))
        self.assertEqual(self.read(d, "hostfile").split(), ["node-0"] * 4 + ["node-1"] * 2)


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
        text = validation.table(r)
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
        rows = list(__import__("csv").DictReader(validation.csv_text(r).splitlines()))
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
        self.assertNotIn("adj.", validation.table(r))
        self.assertEqual(r["simulations"]["full"]["reference_speed"]["ratio"], 1.05)
        r = self.report([("full", (40e9,))], None)
        self.assertIsNone(r["reference_speed"])
        self.assertIn("reference speed not measured with these real runs", validation.table(r))
        self.assertEqual(validation.csv_text(r).count("reference speed"), 0)


class VerbSpeeds(VerbBase):
    def test_measured_between_rounds(self):
        calls, *patches = self.fakes(100.0)
        model = write_model(self.path("full.model"), 40e9)
        with patches[0], patches[1], patches[2], patches[3]:
            js, cs = self.path("v.json"), self.path("v.csv")
            status, out, err = self.cli("validate", "--config", "4000:1x1", "--config", "4000:2x1", "--runs", 2,
                                        "--model", model, "--speed-adjusted", "--json", js, "--csv", cs)
            self.assertEqual(status, 0, err)
            # before each of the 2 rounds and after the last, at the model's shape
            self.assertEqual(self.read(self.path("cal.log")).splitlines(), [f"--reference-speed {model}"] * 3)
            with open(js) as f:
                rep = json.load(f)
            self.assertEqual([m["when"] for m in rep["reference_speed"]["measured"]],
                             ["before round 1", "before round 2", "after the last round"])
            self.assertEqual(rep["simulations"]["full"]["reference_speed"]["ratio"], 0.95)
            self.assertEqual(rep["configs"][0]["sim"]["full"]["speed_adjusted_gflops"], 95.0)
            self.assertIn("machine speed 0.950 of the calibration's", out)
            self.assertEqual(self.read(cs).count("\nreference speed") + self.read(cs).count(",reference speed,"), 3)
            # --real: the speeds measured with those runs, none measured now
            os.unlink(self.path("cal.log"))
            status, out, err = self.cli("validate", "--config", "4000:2x1", "--real", js, "--model", model)
            self.assertEqual(status, 0, err)
            self.assertFalse(os.path.exists(self.path("cal.log")))
            self.assertIn("machine speed 0.950", out)

    def test_refused(self):
        calls, *patches = self.fakes(100.0)
        with patches[0], patches[1], patches[2], patches[3]:
            for args, msg in ((("--speed-adjusted", "--no-reference-speed"), "drop --no-reference-speed"),
                              (("--speed-adjusted", "--no-model", "--passthrough"), "drop --no-model")):
                status, out, err = self.cli("validate", "--config", "4000:1x1", *args)
                with self.subTest(args=args):
                    self.assertEqual((status, err.count("\n")), (2, 1), err)
                    self.assertIn(msg, err)
            which = shutil.which
            with mock.patch("simblas_hpl.validate_speed.shutil.which",
                            side_effect=lambda n: None if n == "simblas-calibrate" else which(n)), \
                    mock.patch("simblas_hpl.locations.installed", return_value=None):
                status, out, err = self.cli("validate", "--config", "4000:1x1", unset=("SIMBLAS_CALIBRATE",))
            self.assertEqual((status, err.count("\n")), (2, 1), err)
            self.assertIn("simblas-calibrate` not found", err)
            self.assertIn("--no-reference-speed", err)
            self.assertEqual(calls, [])
            # --no-reference-speed: no calibrator needed, no drift figures
            status, out, err = self.cli("validate", "--config", "4000:1x1", "--runs", 1, "--no-reference-speed",
                                        unset=("SIMBLAS_CALIBRATE",))
            self.assertEqual(status, 0, err)
            self.assertIn("reference speed not measured with these real runs", out)
