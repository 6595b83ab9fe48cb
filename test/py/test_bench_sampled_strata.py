"""bench/sampled-strata --pause and --resume: every process whose command
line names one of the run's pass directories is stopped and continued,
and nothing else; a directory with no passes is refused."""

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


if __name__ == "__main__":
    unittest.main()
