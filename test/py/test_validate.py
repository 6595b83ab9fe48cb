"""simblas-hpl validate (issue 23), the verb (verbs/validate.py): its
refusals, its rounds of real runs, --max-error, --real, --passthrough,
the probe of the real runs' MPI and the reference speed between rounds,
with the real runs and the simulations replaced by stand-ins; and the
platform that describes this machine (one rank on a 2-core host).  The
modules it calls have their own tests: test_validate_configs, _real,
_machine, _speed, _sim, _score and _report."""

import json
import os
import re
import shutil
from unittest import mock

from support import Sandbox
from simblas_hpl import validate_real, validate_report
from validate_fixtures import fake_calibrator, write_model


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

    def test_a_report_that_cannot_be_written_is_kept(self):
        """--json, --csv or --plot that cannot be written at the end (its
        directory removed since the check, a disk full) was a traceback, and
        the report of the real runs was lost; it is kept aside, named in one
        line, status 1, and --real takes it again."""
        calls, *patches = self.fakes(104.0)
        out_dir = self.path("out")
        os.mkdir(out_dir)
        table = validate_report.table

        def removed_then_table(report):  # after the real runs and the simulations
            shutil.rmtree(out_dir)
            return table(report)
        with patches[0], patches[1], patches[2], patches[3]:
            with mock.patch("simblas_hpl.validate_report.table", removed_then_table):
                status, out, err = self.cli("validate", "--config", "4000:1x1", "--runs", 2, "--no-reference-speed",
                                            "--json", os.path.join(out_dir, "v.json"), "--csv", self.path("v.csv"),
                                            "--plot", os.path.join(out_dir, "v"))
            self.assertEqual(status, 1, err)
            self.assertNotIn("Traceback", err)
            m = re.fullmatch(r"simblas-hpl: could not write --json \S+/out/v\.json \(No such file or directory\) or "
                             r"--plot \S+/out/v \(No such file or directory\): the report, its table printed above, is "
                             r"kept in (\S+\.json) \(--real FILE takes its real runs again\)", err.splitlines()[-1])
            self.assertTrue(m, err)
            kept = m.group(1)
            self.addCleanup(os.unlink, kept)
            self.assertIn("N=4000 1x1", out)
            with open(kept) as f:
                self.assertEqual(json.load(f)["configs"][0]["real"]["gflops"], [100.0, 100.0])
            self.assertEqual(len(self.read(self.path("v.csv")).splitlines()), 2)  # what could be written, was
            calls.clear()
            status, out, err = self.cli("validate", "--config", "4000:1x1", "--real", kept)
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
            # a real run larger than the memory: refused now, not found by its mpirun after the other real runs
            with mock.patch("simblas_hpl.memory.meminfo_available", return_value=1 << 30):
                for args, msg in ((("--config", "4000:1x1", "--config", "20000:2x1", "--no-reference-speed"),
                                   r"^simblas-hpl: N=20000 2x1: a real run of N=20000 needs about 3\.7 GiB, and this "
                                   r"machine has 1\.0 GiB available: give N <= 9268$"),
                                  (("--set", "check", "--no-reference-speed"),
                                   r"^simblas-hpl: N=12000 2x1: .* 1\.0 GiB available: --set check is too large here: "
                                   r"give --config N:PxQ runs, N <= 9268$")):
                    status, out, err = self.cli("validate", *args)
                    with self.subTest(args=args):
                        self.assertEqual((status, err.count("\n")), (2, 1), err)
                        self.assertRegex(err.rstrip("\n"), msg)
                    self.assertEqual(calls, [])
                # --real runs nothing here: not refused
                js = self.path("v.json")
                with open(js, "w") as f:
                    json.dump({"runs": 1, "configs": [{"label": "N=20000 2x1", "real": {"gflops": [100.0]}}]}, f)
                status, out, err = self.cli("validate", "--config", "20000:2x1", "--real", js)
                self.assertEqual(status, 0, err)
                self.assertEqual([c[0] for c in calls], ["sim"])
            # a build without xhpl-mpi says how to make it
            os.unlink(os.path.join(self.env["XDG_DATA_HOME"], "simblas", "hpl", "b1", "xhpl-mpi"))
            status, out, err = self.cli("validate", "--config", "4000:1x1")
            self.assertEqual(status, 2)
            self.assertIn("run `simblas-hpl build --build-id b1 --mode mpi`", err)


class VerbOptions(VerbBase):
    def test_refused_together(self):
        """An option that another one would make do nothing, or out of range,
        is refused in one line before anything runs (before: --set with
        --config, --runs or --no-reference-speed with --real, --probe with
        --no-model, --model or --network with --no-model alone were dropped
        without a word; --cores-per-node 0 became this machine's cores, and
        --timeout went unchecked for the real runs alone)."""
        calls, *patches = self.fakes(100.0)
        model = self.env["SIMBLAS_MODEL"]
        js = self.path("v.json")
        with open(js, "w") as f:
            json.dump({"runs": 1, "configs": [{"label": "N=4000 1x1", "real": {"gflops": [100.0]}}]}, f)
        with patches[0], patches[1], patches[2], patches[3]:
            for args, msg in (
                    (("--set", "check", "--config", "4000:1x1"),
                     r"^--set check and --config both choose the configurations: give one of them$"),
                    (("--set", "default", "--config", "4000:1x1"), r"^--set default and --config both choose"),
                    (("--cores-per-node", 0), r"^--cores-per-node 0: must be >= 1 \(leave it out for this machine's "
                                              r"2\)$"),
                    (("--cores-per-node", -1, "--no-model"), r"^--cores-per-node -1: must be >= 1"),
                    (("--config", "4000:1x1", "--no-model", "--model", model),
                     r"^--model: --no-model without --passthrough simulates nothing: drop --model, or add "
                     r"--passthrough \(it takes the hosts' speed from the first --model\)$"),
                    (("--config", "4000:1x1", "--no-model", "--network", "none"),
                     r"^--network: --no-model without --passthrough simulates nothing: drop --network, or add "
                     r"--passthrough$"),
                    (("--config", "4000:1x1", "--no-model", "--passthrough", "--probe", "lagged"),
                     r"^--probe lagged is the model-mode simulations', and --no-model runs none: drop --probe or "
                     r"--no-model$"),
                    (("--config", "4000:1x1", "--real", js, "--runs", 3),
                     r"^--runs 3 counts the real runs made now, and --real takes an earlier report's instead: drop "
                     r"--runs or --real$"),
                    (("--config", "4000:1x1", "--real", js, "--no-reference-speed"),
                     r"^--no-reference-speed: with --real no reference speed is measured \(the report's are used\): "
                     r"drop --no-reference-speed$"),
                    (("--config", "4000:1x1", "--no-model", "--timeout", 0),
                     r"^--timeout 0: must be a number of seconds > 0$"),
                    (("--config", "4000:1x1", "--real", js, "--json", js),
                     r"^--json .*v\.json is also a --real report: writing it would replace the real runs it holds; "
                     r"give another file$"),
                    (("--config", "4000:1x1", "--csv", self.path("v.dat"), "--plot", self.path("v")),
                     r"^--csv .*v\.dat is also one of --plot .*v's files \(\.svg, \.png, \.gp, \.dat\): the figure's "
                     r"would replace it; give another --csv file or --plot PREFIX$"),
                    (("--config", "4000:1x1", "--json", self.path("v.gp"), "--plot", self.path("v")),
                     r"^--json .*v\.gp is also one of --plot"),
                    (("--config", "4000:1x1", "--json", self.path("o"), "--csv", self.path("o")),
                     r"^--json and --csv both name .*o: the CSV would follow the JSON in one file; give two files$"),
                    # the same model twice was simulated twice, and reported as two (m and m-2)
                    (("--config", "4000:1x1", "--model", model, "--model", model),
                     rf"^--model {model}: the same model is given twice, and it would be simulated twice; give each "
                     r"model once$"),
                    (("--config", "4000:1x1", "--model", model, "--model", self.path("..", os.path.basename(self.root),
                                                                                     os.path.relpath(model, self.root))),
                     rf"^--model {model} and --model \S+: the same model is given twice"),
                    # --cores-per-node above the machine's, for the set's runs: was blamed on the set's configuration
                    # ('N=16000 1x8: 8 ranks, and this machine has 2 cores')
                    (("--cores-per-node", 8),
                     r"^--cores-per-node 8: --set default's real runs then include runs of 8 ranks \(1x8, 8x1\), and "
                     r"this machine has 2 cores \(real runs bind one rank to each core\): give --cores-per-node 2 or less, "
                     r"--config runs of at most 2 ranks, or --real an earlier report's runs$"),
                    (("--cores-per-node", 4, "--set", "check"),
                     r"^--cores-per-node 4: --set check's real runs then include runs of 4 ranks \(4x1\), and this")):
                status, out, err = self.cli("validate", *args)
                with self.subTest(args=args):
                    self.assertEqual((status, err.count("\n")), (2, 1), err)
                    self.assertRegex(err.rstrip("\n"), msg.replace("^", "^simblas-hpl: ", 1))
            self.assertEqual(calls, [])
            # each alone: --set check is make check's one Cx1 run; --no-model alone the real runs
            status, out, err = self.cli("validate", "--set", "check", "--runs", 1, "--no-reference-speed")
            self.assertEqual(status, 0, err)
            self.assertEqual([c[:4] for c in calls], [("real", 12000, 2, 1), ("sim", 12000, 2, 1)])
            calls.clear()
            status, out, err = self.cli("validate", "--config", "4000:1x1", "--runs", 1, "--no-model",
                                        "--no-reference-speed")
            self.assertEqual(status, 0, err)
            self.assertEqual([c[0] for c in calls], ["real"])


class VerbRealChecked(VerbBase):
    def test_malformed_report_refused_first(self):
        """A --real report that is not a validate's is refused in one line
        (the file, the entry, the key), status 2, before any simulation: an
        empty real.gflops was a StatisticsError after the simulations."""
        calls, *patches = self.fakes(100.0)
        bad = self.path("r3.json")
        with patches[0], patches[1], patches[2], patches[3]:
            for report, msg in (({"configs": [{"label": "N=4000 1x1", "real": {"gflops": []}}]},
                                 r"configs\[0\] \(N=4000 1x1\): real\.gflops is \[\], not a list of one or more "
                                 r"Gflops > 0"),
                                ({"configs": [{"label": "N=4000 1x1", "real": {"gflops": ["x"]}}]},
                                 r"configs\[0\] \(N=4000 1x1\): real\.gflops is \[\"x\"\]"),
                                ({"configs": [{"label": "N=4000 1x1", "real": {}}]},
                                 r"configs\[0\] \(N=4000 1x1\): no real\.gflops"),
                                ({"configs": [{"real": {"gflops": [1.0]}}]}, r"configs\[0\]: no label"),
                                ([1, 2], r"the top level is \[1, 2\]")):
                with open(bad, "w") as f:
                    json.dump(report, f)
                status, out, err = self.cli("validate", "--config", "4000:1x1", "--real", bad, "--json",
                                            self.path("v.json"))
                with self.subTest(report=report):
                    self.assertEqual((status, err.count("\n")), (2, 1), err)
                    self.assertRegex(err, r"^simblas-hpl: --real .*r3\.json: " + msg + r".*: give a report that "
                                     r"`simblas-hpl validate --json` wrote$")
                    self.assertEqual((calls, out), ([], ""))
                    self.assertFalse(os.path.exists(self.path("v.json")))


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
            # --real twice: both reports' runs pooled, one median over them, each report named in the JSON
            js2 = self.path("v2.json")
            rep["configs"][1]["real"]["gflops"] = [90.0, 91.0]
            rep["reference_speed"]["measured"] = [{"when": "before round 1", "time": "2026-12-07T14:00:00",
                                                   "gflops": 44.0, "shape": m["shape"]}
                                                  for m in rep["reference_speed"]["measured"]]
            with open(js2, "w") as f:
                json.dump(rep, f)
            pj = self.path("pooled.json")
            status, out, err = self.cli("validate", "--config", "4000:2x1", "--real", js, "--real", js2, "--model",
                                        model, "--json", pj)
            self.assertEqual(status, 0, err)
            self.assertFalse(os.path.exists(self.path("cal.log")))
            with open(pj) as f:
                pooled = json.load(f)
            self.assertEqual(sorted(pooled["configs"][0]["real"]["gflops"]), [90.0, 91.0, 100.0, 100.0])
            self.assertEqual(pooled["configs"][0]["real"]["median"], 95.5)
            self.assertEqual((pooled["runs"], [r["runs"] for r in pooled["real_from"]]), (4, [2, 2]))
            self.assertEqual([os.path.basename(r["file"]) for r in pooled["real_from"]], ["v.json", "v2.json"])
            self.assertIn("4 real run(s) each (pooled from 2 reports)", out)
            # the anchor over both reports' speeds: 38, 38, 38 and 44, 44, 44 GFlop/s, median 41 against the model's 40
            self.assertIn("machine speed 1.025", out)

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
