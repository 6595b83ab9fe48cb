"""A spread run's directory (run --engine, --keep DIR) is resumed only by
the same run: spread.prepare refuses another one before any pass runs,
naming what differs -- an option, or the content of what the options
name (the model file), or where the ranks run (--placement random's
draw) -- so that the passes of two runs never mix.  Directories made
before a key of the identity existed stay resumable."""

import json
import os
from unittest import mock

from support import Sandbox
from simblas_hpl import spread
from simblas_hpl.errors import CliError
from simblas_hpl.plan import RunOptions, make_plan


class Identity(Sandbox):
    def plan(self, **kw):
        with mock.patch.dict(os.environ, self.env, clear=True):
            return make_plan(RunOptions(n=8000, nb=128, p=4, q=4, iterations=9, samples=2, hpl_code="free",
                                        xhpl=self.xhpl, **kw))

    def prepare(self, plan):
        with mock.patch.dict(os.environ, self.env, clear=True):
            return spread.prepare(plan, self.path("keep"))

    def refused(self, plan, what):
        with self.assertRaisesRegex(CliError, f"holds the passes of another run \\([^)]*{what} "):
            self.prepare(plan)

    def test_the_same_run_resumes(self):
        dirs = self.prepare(self.plan())
        self.assertEqual(len(dirs), 2)
        self.assertEqual(self.prepare(self.plan(seed=1)), dirs)  # no --seed is seed 1: the same draws

    def test_another_placement_refused(self):
        self.prepare(self.plan())
        self.refused(self.plan(placement="random"), "hosts_sha256")

    def test_another_model_content_refused(self):
        model = self.path("m.model")
        with open(self.env["SIMBLAS_MODEL"]) as f:
            text = f.read()
        with open(model, "w") as f:
            f.write(text)
        self.prepare(self.plan(model=model))
        with open(model, "w") as f:  # the same path, recalibrated
            f.write(text.replace("end\n", "# recalibrated\nend\n", 1))
        self.refused(self.plan(model=model), "model_sha256")

    def test_another_simulator_refused(self):
        """Passes simulated by another HPL binary (simblas-hpl build --force
        since) or another libsimblas (SimBLAS upgraded) do not mix: the
        identity held HPL's path only, so a rebuilt binary's passes were
        combined with the old one's."""
        self.prepare(self.plan())
        with open(self.xhpl, "ab") as f:
            f.write(b"rebuilt")
        with self.assertRaisesRegex(CliError, r"its HPL binary \(rebuilt since: simblas-hpl build\) "
                                              r"\(xhpl_sha256 [0-9a-f]{12} -> [0-9a-f]{12}\)"):
            self.prepare(self.plan())

    def test_a_directory_made_before_the_added_keys(self):
        plan = self.plan()
        self.prepare(plan)
        path = self.path("keep", spread.SPREAD_JSON)
        with open(path) as f:
            old = json.load(f)
        for k in spread.ADDED:
            del old[k]
        old["seed"] = None  # as written before the default seed was one value
        with open(path, "w") as f:
            json.dump(old, f)
        self.prepare(plan)  # resumes,
        with open(path) as f:
            self.assertTrue(set(spread.ADDED) <= set(json.load(f)))  # and checks them from now on
        self.refused(self.plan(placement="random"), "hosts_sha256")
        self.refused(self.plan(seed=2), "seed")
