"""validate's real runs (validate_real.py), with a stand-in for realrun's
mpirun: interleaved rounds and the reference speed between them, the
summary (median, spread, phases), an earlier report's real runs (--real:
read, or refused with what to do), the probe of their MPI."""

import json
import os
from unittest import mock

from support import Sandbox
from simblas_hpl import validate_configs, validate_real
from simblas_hpl.errors import CliError


class Runs(Sandbox):
    def test_rounds(self):
        """Round r runs every configuration once, then round r + 1; the
        reference speed before each round and after the last; the load of
        other processes per run."""
        configs = [validate_configs.make_config(4000, 1, 1), validate_configs.make_config(4000, 2, 1, swap=0)]
        calls, said = [], []

        def run_real(xhpl, n, nb, p, q, opts, workdir, timeout=None, mpirun=None):
            calls.append((p, q, opts["swap"], mpirun))
            return {"gflops": 100.0 + len(calls), "hpl_time_s": 1.0, "wall_s": 2.0,
                    "phases_s": {"update": 0.5} if p == 2 else None}
        speed = mock.Mock()
        watch = mock.Mock()
        watch.return_value.stop.side_effect = [0.01, None, 0.012345, 0.0]
        with mock.patch("simblas_hpl.realrun.run_real", run_real), \
                mock.patch("simblas_hpl.realrun.mpirun_path", return_value="/bin/true"), \
                mock.patch("simblas_hpl.validate_real.LoadWatch", watch):
            out = validate_real.real_runs(configs, 2, "/x/xhpl-mpi", self.root, log=said.append, speed=speed)
        self.assertEqual(calls, [(1, 1, 2, "/bin/true"), (2, 1, 0, "/bin/true")] * 2)
        self.assertEqual([c.args for c in speed.measure.call_args_list],
                         [("before round 1", said.append), ("before round 2", said.append),
                          ("after the last round", said.append)])
        self.assertEqual(out["N=4000 1x1"]["gflops"], [101.0, 103.0])
        self.assertEqual(out["N=4000 2x1 swap=0"]["other_load"], [None, 0.0])
        self.assertEqual(out["N=4000 1x1"]["other_load"], [0.01, 0.0123])
        self.assertEqual(out["N=4000 2x1 swap=0"]["phases_s"], [{"update": 0.5}] * 2)
        self.assertEqual(said[0], "real 1/4: N=4000 1x1: 101 Gflops (1 s, other processes 1.0% of the cores)")
        self.assertEqual(said[1], "real 2/4: N=4000 2x1 swap=0: 102 Gflops (1 s)")

    def test_summary(self):
        s = validate_real.summarize_real({"gflops": [98.0, 102.0, 100.0], "other_load": [0.01, None, 0.02],
                                          "phases_s": [{"update": 3.0, "laswp": 1.0}, {"update": 2.0},
                                                       {"update": 4.0, "laswp": 2.0}]})
        self.assertEqual((s["median"], s["min"], s["max"], s["spread_pct"], s["other_load_max"]),
                         (100.0, 98.0, 102.0, 4.0, 0.02))
        # the phases every run printed
        self.assertEqual(s["phases_s"], {"update": {"median": 3.0, "min": 2.0, "max": 4.0, "runs": [3.0, 2.0, 4.0]}})
        # a run without them: none
        s = validate_real.summarize_real({"gflops": [50.0], "phases_s": [None]})
        self.assertEqual((s["spread_pct"], s["other_load_max"], "phases_s" in s), (0.0, None, False))

    def test_estimate(self):
        c = validate_configs.make_config(8000, 1, 2)
        one = c.flops() / (60e9 * 2) + 3 + 8000 * 8000 * 8 / 2e9
        self.assertAlmostEqual(validate_real.estimate_seconds([c], 3), 3 * one)
        self.assertAlmostEqual(validate_real.estimate_seconds([c], 3, speed_shapes=2), 3 * one + 8 * 2 * 4)


class Earlier(Sandbox):
    """--real FILE: the real runs of an earlier validate's JSON."""

    def report(self, **extra):
        real = {"gflops": [80.0, 81.0], "hpl_time_s": [2.0, 1.9], "other_load_max": 0.01, "median": 80.5,
                "phases_s": {"update": {"median": 1.5, "runs": [1.0, 2.0]},
                             "laswp": {"median": 0.5, "runs": [0.4, 0.6]}}}
        path = self.path("v.json")
        with open(path, "w") as f:
            json.dump(dict({"runs": 2, "configs": [{"label": "N=8000 1x2", "real": real}]}, **extra), f)
        return path

    def test_load_real(self):
        c = validate_configs.make_config(8000, 1, 2)
        speeds = [{"time": "t", "when": "before round 1", "gflops": 38.0}]
        real, old = validate_real.load_real(self.report(reference_speed={"measured": speeds}), [c])
        self.assertEqual(real, {c.label: {"gflops": [80.0, 81.0], "hpl_time_s": [2.0, 1.9], "other_load": [0.01],
                                          "phases_s": [{"update": 1.0, "laswp": 0.4}, {"update": 2.0, "laswp": 0.6}]}})
        self.assertEqual((old["runs"], validate_real.real_speeds(old)), (2, speeds))
        # not measured with them: None
        self.assertIsNone(validate_real.real_speeds(validate_real.load_real(self.report(), [c])[1]))
        self.assertIsNone(validate_real.real_speeds({"reference_speed": None}))

    def test_refused(self):
        bad = self.path("bad.json")
        with open(bad, "w") as f:
            f.write("{not json")
        for path, configs, msg in ((self.path("none.json"), [], r"^--real .*none\.json: cannot read it as a validate "),
                                   (bad, [], r"^--real .*bad\.json: cannot read it as a validate JSON"),
                                   (self.report(), [validate_configs.make_config(8000, 2, 1)],
                                    r"has no real runs of N=8000 2x1: validate those configurations again without "
                                    r"--real, or choose the ones it has with --config$")):
            with self.subTest(path=os.path.basename(path)), self.assertRaisesRegex(CliError, msg):
                validate_real.load_real(path, configs)


class Malformed(Sandbox):
    """--real FILE that is JSON but not a validate report, or one edited by
    hand: refused when it is loaded, in one line naming the file, the entry
    and the key, with what to give (before, a traceback: some only after the
    simulations, from the median of no runs or of strings)."""

    GOOD = {"label": "N=8000 1x2", "real": {"gflops": [80.0, 81.0]}}

    def refused(self, report, configs=None):
        path = self.path("r.json")
        with open(path, "w") as f:
            json.dump(report, f)
        with self.assertRaises(CliError) as e:
            validate_real.load_real(path, configs or [validate_configs.make_config(8000, 1, 2)])
        msg = str(e.exception)
        self.assertEqual(e.exception.status, 2)
        self.assertNotIn("\n", msg)
        self.assertTrue(msg.startswith(f"--real {path}: "), msg)
        self.assertIn(": give a report that `simblas-hpl validate --json` wrote", msg)
        return msg[len(f"--real {path}: "):]

    def test_refused(self):
        g = dict(self.GOOD)
        for report, want in (
                ([1, 2], "the top level is [1, 2], not an object with configs"),
                ({"runs": 3}, "no configs (a list of configurations)"),
                ({"configs": {"N=8000 1x2": {}}}, 'configs is {"N=8000 1x2": {}}, not a list'),
                ({"configs": [g, 7]}, "configs[1]: the entry is 7, not an object with label and real"),
                ({"configs": [{"real": {"gflops": [1.0]}}]}, "configs[0]: no label"),
                ({"configs": [g, g]}, "configs[1] (N=8000 1x2): the label is configs[0]'s too"),
                ({"configs": [{"label": "N=8000 1x2", "real": [80.0]}]}, "configs[0] (N=8000 1x2): real is [80.0]"),
                ({"configs": [{"label": "N=8000 1x2", "real": {}}]}, "configs[0] (N=8000 1x2): no real.gflops (a list "
                                                                      "of one or more Gflops > 0, one per real run)"),
                ({"configs": [{"label": "N=8000 1x2", "real": {"gflops": []}}]}, "real.gflops is [], not a list"),
                ({"configs": [{"label": "N=8000 1x2", "real": {"gflops": ["x"]}}]}, 'real.gflops is ["x"], not'),
                ({"configs": [{"label": "N=8000 1x2", "real": {"gflops": [0]}}]}, "real.gflops is [0], not"),
                ({"configs": [{"label": "N=8000 1x2", "real": {"gflops": [True]}}]}, "real.gflops is [true], not"),
                ({"configs": [{"label": "N=8000 1x2", "real": {"gflops": [1.0], "hpl_time_s": 3}}]},
                 "real.hpl_time_s is 3, not a list of seconds"),
                ({"configs": [{"label": "N=8000 1x2", "real": {"gflops": [1.0], "other_load_max": "low"}}]},
                 'real.other_load_max is "low"'),
                ({"configs": [{"label": "N=8000 1x2", "real": {"gflops": [1.0], "phases_s": {"update": [1]}}}]},
                 "real.phases_s.update is [1], not an object with runs"),
                # an entry the run does not choose is checked too: the whole report is a validate's or not
                ({"configs": [g, {"label": "N=8000 2x1", "real": {"gflops": None}}]},
                 "configs[1] (N=8000 2x1): real.gflops is null"),
                ({"configs": [g], "machine": {"cpu": "x", "simd": "avx2"}}, 'machine.simd is "avx2", not a list'),
                ({"configs": [g], "machine": [1]}, "machine is [1], not an object"),
                ({"configs": [g], "build": {"source": 1}}, "build is {\"source\": 1}"),
                ({"configs": [g], "reference_speed": {"measured": [{"gflops": 40.0}]}},
                 'reference_speed.measured[0] is {"gflops": 40.0}, not an object with time and when')):
            with self.subTest(report=report):
                self.assertIn(want, self.refused(report))
        # a long value is named by its kind
        self.assertIn("real.gflops is a list of 30 items", self.refused(
            {"configs": [{"label": "N=8000 1x2", "real": {"gflops": [1.0] * 29 + ["x"]}}]}))

    def test_pooled(self):
        """Every report of the pool is checked, the second too."""
        a, b = self.path("a.json"), self.path("b.json")
        with open(a, "w") as f:
            json.dump({"configs": [self.GOOD]}, f)
        with open(b, "w") as f:
            json.dump({"configs": [{"label": "N=8000 1x2", "real": {"gflops": []}}]}, f)
        with self.assertRaisesRegex(CliError, r"^--real .*b\.json: configs\[0\] \(N=8000 1x2\): real\.gflops is \[\]"):
            validate_real.load_pooled([a, b], [validate_configs.make_config(8000, 1, 2)])


class Pooled(Sandbox):
    """--real FILE repeated: several reports' real runs, one median over all."""

    def report(self, name, gflops, cpu="AMD EPYC", simd=("avx2", "fma"), speeds=(46.0,), phases=True, labels=None,
               source="/a/cache/hpcc_1.5.0.orig.tar.gz", family=None, model=None):
        n = len(gflops)
        real = {"gflops": gflops, "hpl_time_s": [1.0] * n, "other_load_max": 0.01,
                "phases_s": {"update": {"runs": [0.5] * n}} if phases else {}}
        path = self.path(name)
        with open(path, "w") as f:
            machine = {"cpu": cpu, "simd": list(simd), "cores": 2}
            if family is not None:
                machine.update(family=family, model=model)
            json.dump({"runs": n, "machine": machine,
                       "build": {"id": "hpcc-1.5.0", "source": source},
                       "reference_speed": {"measured": [{"time": "2026-12-07T14:00:00", "when": "before round 1",
                                                           "gflops": g} for g in speeds]} if speeds else None,
                       "configs": [{"label": lab, "real": real} for lab in (labels or ["N=8000 1x2"])]}, f)
        return path

    def test_pooled(self):
        c = validate_configs.make_config(8000, 1, 2)
        a = self.report("a.json", [80.0, 81.0, 70.0])
        b = self.report("b.json", [79.0, 82.0], speeds=(44.0, 45.0), source="/elsewhere/hpcc_1.5.0.orig.tar.gz")
        real, olds = validate_real.load_pooled([a, b], [c])
        self.assertEqual(real[c.label]["gflops"], [80.0, 81.0, 70.0, 79.0, 82.0])
        self.assertEqual(validate_real.summarize_real(real[c.label])["median"], 80.0)
        self.assertEqual(real[c.label]["other_load"], [0.01, 0.01])
        self.assertEqual(len(real[c.label]["phases_s"]), 5)
        self.assertEqual([o["runs"] for o in olds], [3, 2])
        self.assertEqual([m["gflops"] for m in validate_real.pooled_speeds(olds)], [46.0, 44.0, 45.0])
        # one report without phases: none for the pooled runs (summarize_phases needs every run's);
        # one without reference speeds: no pooled speeds either
        real, olds = validate_real.load_pooled([a, self.report("c.json", [79.0], phases=False, speeds=())], [c])
        self.assertEqual((real[c.label]["phases_s"], validate_real.pooled_speeds(olds)), ([], None))
        # the family and model compared where both reports give them (an older report has neither)
        z3 = self.report("z3.json", [78.0], family=25, model=1)
        self.assertEqual(len(validate_real.load_pooled([a, z3], [c])[0][c.label]["gflops"]), 4)
        # one file: as load_real
        self.assertEqual(validate_real.load_pooled([a], [c])[0], validate_real.load_real(a, [c])[0])

    def test_refused(self):
        c = validate_configs.make_config(8000, 1, 2)
        a = self.report("a.json", [80.0])
        for paths, msg in (([a, self.report("i.json", [90.0], cpu="Intel Xeon")],
                            r"^--real .*i\.json was measured on Intel Xeon \(avx2, fma\), 2 core\(s\), --real "
                            r".*a\.json on AMD EPYC \(avx2, fma\), 2 core\(s\): pool the real runs of one machine "
                            r"kind only$"),
                           ([a, self.report("s.json", [90.0], simd=("avx2", "avx512f", "fma"))], r"avx512f"),
                           ([self.report("z3.json", [80.0], family=25, model=1),
                             self.report("z5.json", [90.0], family=26, model=2)],
                            r"z5\.json was measured on AMD EPYC \(family 26 model 2; avx2, fma\), 2 core\(s\), "
                            r"--real .*z3\.json on AMD EPYC \(family 25 model 1; "),
                           ([a, os.path.join(self.root, ".", "a.json")], r"a\.json is given twice: its runs would "
                                                                          r"count twice; give each report once$"),
                           ([a, self.report("h.json", [90.0], source="/x/hpl-2.3.tar.gz")],
                            r"^--real .*h\.json ran HPL from hpl-2\.3\.tar\.gz, --real .*a\.json from "
                            r"hpcc_1\.5\.0\.orig\.tar\.gz: pool the real runs of one HPL source only$"),
                           ([a, self.report("o.json", [90.0], labels=["N=8000 2x1"])],
                            r"^--real .*o\.json has no real runs of N=8000 1x2")):
            with self.subTest(paths=[os.path.basename(p) for p in paths]), self.assertRaisesRegex(CliError, msg):
                validate_real.load_pooled(paths, [c])


class Probe(Sandbox):
    def test_real_probe(self):
        """Open MPI's lagged probe for an Open MPI mpirun, immediate for
        the others and without one."""
        fake = self.path("mpirun")
        for said, want in (("mpirun (Open MPI) 4.1.4", ("lagged", "mpirun (Open MPI) 4.1.4")),
                           ("HYDRA build details:\n    Version: 4.0.2", ("immediate", "HYDRA build details:"))):
            with open(fake, "w") as f:
                f.write(f"#!/bin/sh\nprintf '{said}\\n'\n")
            os.chmod(fake, 0o755)
            self.assertEqual(validate_real.real_probe(fake), want)
        self.assertEqual(validate_real.real_probe(None), ("immediate", "?"))
        self.assertEqual(validate_real.real_probe(self.path("gone")), ("immediate", "?"))
