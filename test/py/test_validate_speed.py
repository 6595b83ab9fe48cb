"""The machine's reference speed against the models' (validate_speed.py):
a model's reference speed and shape, the calibrator that measures this
machine's (found, or refused with what to do; a stand-in here), what it
measured and each model's drift."""

from unittest import mock

from support import Sandbox
from simblas_hpl import validate_sim, validate_speed
from simblas_hpl.errors import CliError
from validate_fixtures import fake_calibrator, write_model


class Speeds(Sandbox):
    def test_model_reference(self):
        shape = "dgemm m=3280 n=3280 k=256 in HPL's layout"
        self.assertEqual(validate_speed.model_reference(write_model(self.path("a.model"), 39.7e9)), (39.7e9, shape))
        old = write_model(self.path("old.model"), 42e9, said="the dgemm model's rate at m = n = k = 4096")
        self.assertEqual(validate_speed.model_reference(old), (42e9, None))
        self.assertEqual(validate_speed.model_reference(write_model(self.path("n.model"), 1e9, said=None)), (1e9, None))
        # refined: the speed measured around refine's traced runs, which the refit's lines take on
        refined = self.path("r.model")
        with open(refined, "w") as f:
            f.write(self.read(self.path("a.model")).replace(
                "meta mode full\n", f"meta mode full\nmeta refined_reference_speed 49.5570 {shape}, median of 2 "
                "around the traced runs, 2026-11-29T00:26:00+00:00\n"))
        self.assertEqual(validate_speed.model_reference(refined), (49.557e9, shape))
        # a line that does not parse leaves the calibration's
        with open(refined, "w") as f:
            f.write(self.read(self.path("a.model")).replace(
                "meta mode full\n", "meta refined_reference_speed 0 dgemm m=1 n=1 k=1 packed, x\n"))
        self.assertEqual(validate_speed.model_reference(refined), (39.7e9, shape))
        # one measurement per shape, the models' or the calibrator's own
        sims = [validate_sim.Simulation(n, "model", self.path(n + ".model")) for n in ("a", "old")]
        self.assertEqual(validate_speed.speed_shapes(sims), {shape: self.path("a.model")})
        self.assertEqual(validate_speed.speed_shapes(sims[1:]), {None: None})

    def test_probe(self):
        log = self.path("log")
        model = write_model(self.path("a.model"), 39.7e9)
        probe = validate_speed.SpeedProbe(fake_calibrator(self.path("cal"), 38.5e9, log=log),
                                      {"dgemm m=3280 n=3280 k=256 in HPL's layout": model, None: None})
        said = []
        probe.measure("before round 1", said.append)
        self.assertEqual(self.read(log).splitlines(), [f"--reference-speed {model}", "--reference-speed"])
        m = probe.measured
        self.assertEqual([(x["when"], x["shape"], x["gflops"], x["wall_s"]) for x in m],
                         [("before round 1", "dgemm m=3280 n=3280 k=256 in HPL's layout", 38.5, 4.5),
                          ("before round 1", "dgemm m=1964 n=1964 k=256 in HPL's layout", 38.5, 4.5)])
        self.assertRegex(m[0]["time"], r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d")
        self.assertIn("reference speed before round 1: 38.5 Gflop/s", said[0])
        # a calibrator that fails: said, recorded as not measured, the validation goes on
        bad = validate_speed.SpeedProbe(fake_calibrator(self.path("bad"), 1, fail=True), {None: None})
        said.clear()
        bad.measure("after the last round", said.append)
        self.assertEqual(bad.measured[0]["gflops"], None)
        self.assertIn("could not be measured", said[0])
        self.assertIn("cannot load the BLAS", said[0])

    def test_calibrator_path(self):
        cal = fake_calibrator(self.path("cal"), 38.5e9)
        with mock.patch.dict("os.environ", dict(self.env, SIMBLAS_CALIBRATE=cal), clear=True):
            self.assertEqual(validate_speed.calibrator_path(), cal)
        # none anywhere: refused, with what to do (validate's --no-reference-speed; refine's own words)
        env = {k: v for k, v in self.env.items() if k != "SIMBLAS_CALIBRATE"}
        with mock.patch.dict("os.environ", env, clear=True), mock.patch("shutil.which", return_value=None), \
                mock.patch("simblas_hpl.locations.installed", return_value=None):
            with self.assertRaisesRegex(CliError, r"^`simblas-calibrate` not found: it measures this machine's "
                                                  r".*calibrator/simblas-calibrate\), or add --no-reference-speed$"):
                validate_speed.calibrator_path()
            with self.assertRaisesRegex(CliError, r"not found: it refits\b.*simblas-calibrate\)$"):
                validate_speed.calibrator_path(why="it refits", instead="")

    def test_summary_and_drift(self):
        shape = "dgemm m=3280 n=3280 k=256 in HPL's layout"
        measured = [{"shape": shape, "gflops": g} for g in (38.0, 38.8, 37.2)] + \
            [{"shape": shape, "gflops": None}, {"shape": None, "gflops": 40.0}]
        summary = validate_speed.speed_summary(measured)
        self.assertEqual(summary, {shape: {"median": 38.0, "min": 37.2, "max": 38.8, "spread_pct": 4.21, "n": 3}})
        self.assertEqual(validate_speed.speed_summary([]), {})
        sim = validate_sim.Simulation("full", "model", write_model(self.path("a.model"), 40e9))
        self.assertEqual(validate_speed.model_drift(sim, summary),
                         {"model_gflops": 40.0, "shape": shape, "measured_gflops": 38.0, "ratio": 0.95})
        self.assertIn("no reference speed measured at its shape", validate_speed.model_drift(sim, {})["why"])
        old = validate_sim.Simulation("old", "model", write_model(self.path("o.model"), 42e9, said="the 4096 rate"))
        self.assertIn("was not measured", validate_speed.model_drift(old, summary)["why"])
        # passthrough, or a model gone since it was simulated: no drift
        self.assertIsNone(validate_speed.model_drift(validate_sim.Simulation("p", "passthrough", sim.model), summary))
        self.assertIsNone(validate_speed.model_drift(validate_sim.Simulation("g", "model", self.path("gone")), summary))
