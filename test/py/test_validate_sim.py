"""validate's simulations (validate_sim.py), with a stand-in simulator:
each configuration planned as `run` plans it, on one host of the cores
given, the model-mode probe and the network passed on, the figures and
phases kept; a model that is not there refused as run refuses it."""

import os
from unittest import mock

from support import Sandbox, fake_build
from simblas_hpl import validate_configs, validate_sim
from simblas_hpl.errors import CliError


class Simulate(Sandbox):
    def setUp(self):
        super().setUp()
        fake_build(os.path.join(self.env["XDG_DATA_HOME"], "simblas", "hpl"), "b1", "/src", "2026", default=True)

    def simulate(self, sim, configs, summary):
        seen, said = [], []

        def simulate(plan, workdir, quiet=False):
            seen.append((plan.n, plan.nb, plan.p, plan.q, plan.platform.hosts, plan.platform.cores_per_node, plan.mode,
                         plan.model, plan.probe, plan.hpl["swap"], quiet, os.path.dirname(workdir)))
            return mock.Mock(summary=summary)
        with mock.patch.dict(os.environ, self.env, clear=True), \
                mock.patch("simblas_hpl.validate_sim.simulate", simulate):
            out = validate_sim.simulate_configs(configs, sim, 2, self.root, log=said.append)
        return out, seen, said

    def test_simulate_configs(self):
        model = self.env["SIMBLAS_MODEL"]
        configs = [validate_configs.make_config(4000, 1, 1), validate_configs.make_config(4000, 2, 1, nb=64, swap=0)]
        summary = {"gflops": 104.0, "hpl_time_s": 1.5, "wall_s": 0.25, "network": None, "phases_s": {"update": 1.0}}
        sim = validate_sim.Simulation("m", "model", model, "none", "lagged")
        out, seen, said = self.simulate(sim, configs, summary)
        self.assertEqual(seen, [(4000, 128, 1, 1, 1, 2, "model", model, "lagged", 2, True, self.root),
                                (4000, 64, 2, 1, 1, 2, "model", model, "lagged", 0, True, self.root)])
        self.assertEqual(out["N=4000 NB=64 2x1 swap=0"], {"gflops": 104.0, "hpl_time_s": 1.5, "wall_s": 0.25,
                                                          "network": None, "phases_s": {"update": 1.0}})
        self.assertEqual(said[0], "m: N=4000 1x1: 104 Gflops (simulated in 0.2 s)")
        # passthrough is given no probe, whatever the column says (run's own: immediate); the network file the
        # run read is kept; no phases, none kept
        summary = {"gflops": 99.5, "hpl_time_s": 1.5, "wall_s": 3.0, "network": {"file": "/abs/here.network"}}
        out, seen, said = self.simulate(validate_sim.Simulation("passthrough", "passthrough", model, "none", "lagged"),
                                        configs[:1], summary)
        self.assertEqual(seen[0][6:9], ("passthrough", model, "immediate"))
        self.assertEqual(out, {"N=4000 1x1": {"gflops": 99.5, "hpl_time_s": 1.5, "wall_s": 3.0,
                                              "network": "/abs/here.network"}})
        # the work directories are removed
        self.assertFalse([d for d in os.listdir(self.root) if d.startswith("sim-")])

    def test_refused(self):
        sim = validate_sim.Simulation("gone", "model", self.path("gone.model"))
        with self.assertRaisesRegex(CliError, "does not exist"):
            self.simulate(sim, [validate_configs.make_config(4000, 1, 1)], {})
