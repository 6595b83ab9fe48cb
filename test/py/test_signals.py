"""signals.started_held: a SIGTERM that comes while a child process starts
(after the fork, before Popen returns it) is noted, not raised there --
raised there, it would leave the child running, unknown to the caller --
and redeliver() sends it again once the caller holds the process and can
stop it.  Used by the simulation's launch and by build's make."""

import os
import signal
import subprocess
import unittest
from unittest import mock

import support  # noqa: F401  (sys.path)
from simblas_hpl import signals
from simblas_hpl.errors import Terminated

REAL_POPEN = subprocess.Popen


def popen_then_sigterm(*args, **kw):
    proc = REAL_POPEN(*args, **kw)
    os.kill(os.getpid(), signal.SIGTERM)  # while Popen has not returned
    return proc


class Held(unittest.TestCase):
    def test_a_signal_while_the_child_starts(self):
        previous = signals.raise_on_term()
        self.addCleanup(signals.restore, previous)
        with mock.patch("subprocess.Popen", popen_then_sigterm):
            proc = signals.started_held(["sleep", "30"], start_new_session=True)
        try:
            self.assertEqual(proc.held_signals, [signal.SIGTERM])
            self.assertIsNone(proc.poll())  # the caller has it, running
            with self.assertRaises(Terminated) as cm:
                signals.redeliver(proc.held_signals)
            self.assertEqual(cm.exception.signum, signal.SIGTERM)
        finally:
            proc.kill()
            proc.wait()
        # the handlers of before are back: a SIGTERM now raises as raise_on_term set it
        with self.assertRaises(Terminated):
            os.kill(os.getpid(), signal.SIGTERM)

    def test_nothing_held(self):
        proc = signals.started_held(["true"])
        proc.wait()
        self.assertEqual(proc.held_signals, [])
        signals.redeliver(proc.held_signals)  # nothing sent


if __name__ == "__main__":
    unittest.main()
