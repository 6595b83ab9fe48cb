"""The machine validate and refine measure on (validate_machine.py): what
/proc/cpuinfo says of it, the load other processes put on its cores
between start() and stop() (from /proc/stat), the load average."""

import unittest
from unittest import mock

import support  # noqa: F401  (the package on sys.path)
from simblas_hpl import validate_machine

CPUINFO = ("processor\t: 0\ncpu family\t: 25\nmodel\t\t: 1\nmodel name\t: Test CPU @ 2.0GHz \n"
           "flags\t\t: fpu sse4_2 avx avx2 fma hypervisor\n\n")


def proc(files):
    """read_text answering the /proc files given, "" for the others."""
    return mock.patch("simblas_hpl.validate_machine.read_text", side_effect=lambda p: files.get(p, ""))


class Machine(unittest.TestCase):
    def test_machine_info(self):
        with proc({"/proc/cpuinfo": CPUINFO}), mock.patch("simblas_hpl.realrun.machine_cores", return_value=2):
            m = validate_machine.machine_info()
        self.assertEqual((m["cpu"], m["family"], m["model"], m["simd"], m["cores"], m["hypervisor"]),
                         ("Test CPU @ 2.0GHz", 25, 1, ["sse4_2", "avx", "avx2", "fma"], 2, True))
        with proc({}), mock.patch("simblas_hpl.realrun.machine_cores", return_value=1):
            self.assertEqual((validate_machine.machine_info()["family"], validate_machine.machine_info()["model"]),
                             (None, None))
            self.assertEqual((validate_machine.machine_info()["simd"], validate_machine.machine_info()["hypervisor"]),
                             ([], False))

    def test_cpu_busy_and_load(self):
        # user nice system idle iowait irq softirq steal: idle and iowait are not busy
        with proc({"/proc/stat": "cpu  100 0 50 800 50 0 0 10\ncpu0 1 2 3\n"}):
            self.assertEqual(validate_machine.cpu_busy(), (160, 1010))
        with proc({"/proc/stat": "intr 1 2\n"}):
            self.assertIsNone(validate_machine.cpu_busy())
        with proc({"/proc/loadavg": "0.52 0.40 0.30 1/200 4242\n"}):
            self.assertEqual(validate_machine.loadavg(), 0.52)
        with proc({}):
            self.assertIsNone(validate_machine.loadavg())

    def test_load_watch(self):
        """Other processes' share of the cores: the busy jiffies over the
        wall time, less what this process's children used."""
        with mock.patch("simblas_hpl.realrun.machine_cores", return_value=2), \
                mock.patch("os.sysconf", return_value=100):
            watch = validate_machine.LoadWatch()
        with mock.patch.object(validate_machine, "cpu_busy", side_effect=[(1000, 5000), (1300, 5400)]), \
                mock.patch.object(validate_machine, "children_cpu", side_effect=[10.0, 12.5]), \
                mock.patch("time.monotonic", side_effect=[50.0, 52.0]):
            watch.start()
            self.assertAlmostEqual(watch.stop(), (3.0 - 2.5) / (2.0 * 2))
        # no /proc/stat: no figure
        with mock.patch.object(validate_machine, "cpu_busy", return_value=None):
            watch.start()
            self.assertIsNone(watch.stop())

    def test_now_iso(self):
        self.assertRegex(validate_machine.now_iso(), r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+00:00$")
