"""procs.py: a session started for a point keeps the CPU share its engine
runs at (the autogroup's nice, kernel.sched_autogroup_enabled)."""

import os
import subprocess
import unittest

from simblas_hpl import procs


def autogroup_of_child(nice, idle, keep):
    """/proc/PID/autogroup of a child started in a session of its own at nice
    NICE (and SCHED_IDLE if idle), once its parent has called
    keep_priority(PID), or not."""
    def pre():  # the child's own priority, as nice or chrt would set it
        os.nice(nice - os.nice(0))
        if idle:
            os.sched_setscheduler(0, os.SCHED_IDLE, os.sched_param(0))
    p = subprocess.Popen(["sleep", "30"], start_new_session=True, preexec_fn=pre)
    try:
        if keep:
            procs.keep_priority(p.pid)
        with open(f"/proc/{p.pid}/autogroup") as f:
            return f.read().strip()
    finally:
        p.kill()
        p.wait()


@unittest.skipUnless(os.path.exists("/proc/self/autogroup"), "this kernel has no autogroups")
class KeepPriority(unittest.TestCase):
    def test_a_nice_session_keeps_its_nice(self):
        self.assertRegex(autogroup_of_child(19, False, True), r" nice 19$")
        self.assertRegex(autogroup_of_child(7, False, True), r" nice 7$")
        self.assertRegex(autogroup_of_child(19, False, False), r" nice 0$")  # what Linux does without it

    def test_sched_idle_is_nice_19(self):
        self.assertRegex(autogroup_of_child(0, True, True), r" nice 19$")

    def test_nice_0_is_left_alone(self):
        self.assertRegex(autogroup_of_child(0, False, True), r" nice 0$")

    def test_a_process_gone_is_no_error(self):
        p = subprocess.Popen(["true"])
        p.wait()
        procs.keep_priority(p.pid)


if __name__ == "__main__":
    unittest.main()
