"""bench/sampled-strata --pause and --resume: every process whose command
line names one of the run's pass directories is stopped and continued,
and nothing else; a directory with no passes is refused.  --save and
--restore: the passes done and, once every pass is done, the combined
result, whose extrapolation --report-only prints from a restored copy."""

import json
import os
import subprocess
import tempfile
import time
import unittest

from support import SRC

SCRIPT = os.path.join(SRC, "bench", "sampled-strata")


def state(pid):
    """The process's state letter (/proc/PID/stat's third field)."""
    with open(f"/proc/{pid}/stat") as f:
        return f.read().rsplit(")", 1)[1].split()[0]


def wait_state(pid, want, timeout=5.0):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if state(pid) == want:
            return True
        time.sleep(0.02)
    return False


class PauseResume(unittest.TestCase):
    def setUp(self):
        self.root = tempfile.TemporaryDirectory()
        self.keep = os.path.join(self.root.name, "keep")
        self.procs = []

    def tearDown(self):
        for p in self.procs:
            p.kill()
            p.wait()
        self.root.cleanup()

    def sleeper(self, path):
        """A process whose command line names path (as a pass's simulator names its tmpdir)."""
        p = subprocess.Popen(["sh", "-c", 'sleep 60; : "$0"', path])
        self.procs.append(p)
        return p

    def script(self, *args):
        return subprocess.run(["sh", SCRIPT, "--keep", self.keep, *args], capture_output=True, text=True)

    def test_pause_and_resume_the_passes_only(self):
        os.makedirs(os.path.join(self.keep, "run", "passes", "pass-3"))
        mine = self.sleeper(os.path.join(self.keep, "run", "passes", "pass-3", "run", "tmp"))
        other = self.sleeper(os.path.join(self.root.name, "elsewhere", "run", "passes", "pass-3"))
        time.sleep(0.1)
        r = self.script("--pause")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn(f"SIGSTOP sent to 1 process(es) of {self.keep}'s passes: {mine.pid}", r.stdout)
        self.assertTrue(wait_state(mine.pid, "T"))
        self.assertEqual(state(other.pid), "S")
        r = self.script("--resume")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("SIGCONT sent to 1 process(es)", r.stdout)
        self.assertTrue(wait_state(mine.pid, "S"))

    def test_nothing_running_or_no_passes(self):
        os.makedirs(os.path.join(self.keep, "run", "passes"))
        r = self.script("--pause")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("no process of", r.stdout)
        r = subprocess.run(["sh", SCRIPT, "--keep", os.path.join(self.root.name, "none"), "--resume"],
                           capture_output=True, text=True)
        self.assertEqual(r.returncode, 2)
        self.assertIn("no passes there: give the run's --keep DIR", r.stderr)


class SaveRestore(unittest.TestCase):
    """A finished run of 2 passes, made by hand as the engine leaves it."""

    def setUp(self):
        self.root = tempfile.TemporaryDirectory()
        self.keep = os.path.join(self.root.name, "keep")
        for i in range(2):
            d = os.path.join(self.keep, "run", "passes", f"pass-{i:02d}")
            os.makedirs(d)
            for name, doc in (("point.json", {"pass": i}), ("result.json", {"cpu_s": 10.0 + i, "wall_s": 20.0,
                                                                              "peak_rss_mb": 5.0})):
                with open(os.path.join(d, name), "w") as f:
                    json.dump(doc, f)
        with open(os.path.join(self.keep, "model"), "w") as f:
            f.write("simblas-model 1\nreference-speed 5e+10\n")
        with open(os.path.join(self.keep, "run", "spread.json"), "w") as f:
            f.write("{}\n")
        self.combined = {"extrapolated_hpl_time_s": 1234.5, "extrapolated_gflops": 678.0,
                         "extrapolation_uncertainty": {"s": 12.5, "relative": 0.0101}, "engine": {"jobs": 2}}
        with open(os.path.join(self.keep, "result.json"), "w") as f:
            json.dump(self.combined, f)

    def tearDown(self):
        self.root.cleanup()

    def script(self, keep, *args):
        return subprocess.run(["sh", SCRIPT, "--samples", "2", "--keep", keep, "--report-only", *args],
                              capture_output=True, text=True)

    def test_the_combined_result_is_saved_and_restored(self):
        save = os.path.join(self.root.name, "saved")
        r = self.script(self.keep, "--save", save)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("2 pass(es) done saved", r.stdout)
        with open(os.path.join(save, "result.json")) as f:
            self.assertEqual(json.load(f), self.combined)
        other = os.path.join(self.root.name, "elsewhere")
        r = self.script(other, "--restore", save)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("2 pass(es) restored", r.stdout)
        self.assertIn("passes done: 2 of 2", r.stdout)
        self.assertIn("CPU time: 21 s in all", r.stdout)
        self.assertIn("extrapolated HPL time 1234 s, 678 Gflops; standard error 12.5 s (1.0%)", r.stdout)

    def test_no_combined_result_before_every_pass_is_done(self):
        os.remove(os.path.join(self.keep, "result.json"))
        save = os.path.join(self.root.name, "saved")
        r = self.script(self.keep, "--save", save)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertFalse(os.path.exists(os.path.join(save, "result.json")))
        r = self.script(os.path.join(self.root.name, "elsewhere"), "--restore", save)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertNotIn("extrapolated", r.stdout)


if __name__ == "__main__":
    unittest.main()
