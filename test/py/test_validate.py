"""simblas-hpl validate (issue 23): its configurations, its refusals, its
report (table, JSON, CSV, figure data) and --max-error, with the real
runs and the simulations replaced by stand-ins; and the platform that
describes this machine (one rank on a 2-core host)."""

import json
import os
import re
import time
from unittest import mock

from support import Sandbox
from simblas_hpl import validation
from simblas_hpl.errors import CliError


class Configs(Sandbox):
    def test_parse_config(self):
        c = validation.parse_config("12000:2x1:swap=0,depth=0")
        self.assertEqual((c.n, c.p, c.q, c.nb, c.opts), (12000, 2, 1, 128, (("depth", 0), ("swap", 0))))
        self.assertEqual(c.label, "N=12000 2x1 depth=0 swap=0")
        self.assertEqual(validation.parse_config("8000:1x2:NB=256,bcast=blong").label, "N=8000 NB=256 1x2 bcast=4")
        for bad, msg in (("12000", "expected N:PxQ"), ("12000:2x1:swap", "not KEY=VALUE"),
                         ("12000:2x1:swap=7", "out of range"), ("100:1x1:nb=128", "N >= NB"),
                         ("12000:2x1:nosuch=1", "unknown HPL option")):
            with self.subTest(bad=bad), self.assertRaisesRegex(CliError, msg):
                validation.parse_config(bad)

    def test_default_set(self):
        two = validation.default_set(2)
        labels = [c.label for c in two]
        self.assertEqual(labels, ["N=8000 1x1", "N=8000 1x2", "N=12000 1x2", "N=16000 1x2", "N=12000 2x1",
                                  "N=12000 2x1 swap=0", "N=12000 2x1 swap=1", "N=12000 1x2 bcast=4",
                                  "N=12000 1x2 depth=0"])
        # every core, no more; the three swaps, two broadcasts, depth 0 and 1
        self.assertEqual(max(c.ranks for c in two), 2)
        self.assertEqual({dict(c.opts).get("swap", 2) for c in two if c.p > 1}, {0, 1, 2})
        self.assertEqual({dict(c.opts).get("bcast", 1) for c in two if c.q > 1}, {1, 4})
        self.assertEqual({dict(c.opts).get("depth", 1) for c in two if c.q > 1}, {0, 1})
        self.assertLess(validation.estimate_seconds(two, 3), 600)
        four = validation.default_set(4)
        self.assertEqual(max(c.ranks for c in four), 4)
        self.assertEqual([c.label for c in validation.default_set(1)], ["N=8000 1x1"])

    def test_check_set(self):
        # make check's run is Cx1 (real 1x2 runs parted from passthrough on the EPYC VM)
        self.assertEqual([c.label for c in validation.check_set(2)], ["N=12000 2x1"])
        self.assertEqual([c.label for c in validation.check_set(1)], ["N=12000 1x1"])

    def test_sigterm_interrupts(self):
        import signal
        from simblas_hpl.verbs import validate
        saved = {s: signal.getsignal(s) for s in (signal.SIGTERM, signal.SIGHUP)}
        try:
            validate.interrupt_on_term()
            with self.assertRaises(KeyboardInterrupt):
                os.kill(os.getpid(), signal.SIGTERM)
                time.sleep(1)  # the handler runs before this returns
        finally:
            for s, h in saved.items():
                signal.signal(s, h)


def fake_report(errors, real=(100.0, 98.0, 102.0)):
    configs = [validation.make_config(8000, 1, 2), validation.make_config(8000, 2, 1, swap=0)]
    real_runs = {c.label: {"gflops": list(real), "hpl_time_s": [1.0] * 3, "other_load": [0.01, 0.0, 0.02]}
                 for c in configs}
    sims = [validation.Simulation("full", "model", "/m/full.model")]
    res = {"full": {c.label: {"gflops": 100.0 * (1 + e / 100), "hpl_time_s": 1.0, "wall_s": 2.0}
                    for c, e in zip(configs, errors)}}
    machine = {"cpu": "Test CPU", "simd": ["avx2"], "cores": 2}
    return validation.build_report(configs, real_runs, sims, res, machine, 3, None, "2026-11-25T00:00:00+00:00", 60)


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
        self.assertTrue(rows[2].endswith(",full,model,96.0,-4.0"), rows[2])

    def test_ranking(self):
        configs = [validation.make_config(12000, 2, 1), validation.make_config(12000, 2, 1, swap=0)]
        real = {configs[0].label: {"gflops": [125.0]}, configs[1].label: {"gflops": [113.0]}}
        sims = [validation.Simulation("m", "model", "x")]
        for sim, bad in (((124.0, 115.0), 0), ((124.0, 129.0), 1)):
            res = {"m": {c.label: {"gflops": g, "hpl_time_s": 1, "wall_s": 1} for c, g in zip(configs, sim)}}
            r = validation.build_report(configs, real, sims, res, {"cpu": "x", "simd": [], "cores": 2}, 1, None,
                                        "d", 1)
            with self.subTest(sim=sim):
                self.assertEqual(len(r["simulations"]["m"]["misranked"]), bad)
        # within 3% of each other in real runs: not a ranking to keep
        real[configs[1].label] = {"gflops": [123.0]}
        r = validation.build_report(configs, real, sims, res, {"cpu": "x", "simd": [], "cores": 2}, 1, None, "d", 1)
        self.assertEqual(r["simulations"]["m"]["misranked"], [])

    def test_plot_data(self):
        r = fake_report([1.0, 2.0])
        prefix = self.path("fig")
        with mock.patch("shutil.which", return_value=None):
            validation.plot(r, prefix)
        dat = self.read(prefix + ".dat").splitlines()
        self.assertEqual(dat[1], '"N=8000 1x2" 100.0 98.0 102.0 101.0')
        self.assertIn("with xerrorbars", self.read(prefix + ".gp"))


class Verb(Sandbox):
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
        return calls, mock.patch("simblas_hpl.realrun.run_real", real), \
            mock.patch("simblas_hpl.validation.simulate", sim), \
            mock.patch("simblas_hpl.realrun.mpirun_path", return_value="/bin/true"), \
            mock.patch("simblas_hpl.realrun.machine_cores", return_value=2)

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
        with real, mpirun, cores, mock.patch("simblas_hpl.validation.simulate", sim):
            status, out, err = self.cli("validate", "--config", "4000:1x1", "--runs", 1, "--no-model",
                                        "--passthrough", "--model", model, unset=("SIMBLAS_MODEL",))
            self.assertEqual(status, 0, err)
            self.assertEqual(seen, [("passthrough", os.path.abspath(model))])
            status, out, err = self.cli("validate", "--config", "4000:1x1", "--runs", 1, "--no-model",
                                        "--passthrough", unset=("SIMBLAS_MODEL",))
            self.assertEqual(status, 2)
            self.assertIn("no model file", err)

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
