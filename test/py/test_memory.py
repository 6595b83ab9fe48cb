"""The simulator's memory as simblas-hpl foresees it: HPL's local matrix
sizes, the address space one rank's folded matrix takes, the largest N."""

import unittest

import support  # noqa: F401  (the package on sys.path)
from simblas_hpl import memory


class AddressSpace(unittest.TestCase):
    def test_numroc(self):
        # every row held once, process 0 holding the most (as HPL_numroc)
        for n, nb, procs in ((1000, 64, 2), (40000, 128, 8), (3875000, 1024, 77), (100, 128, 3), (129, 128, 1)):
            parts = [memory.numroc(n, nb, k, procs) for k in range(procs)]
            self.assertEqual(sum(parts), n)
            self.assertEqual(max(parts), parts[0])
        self.assertEqual([memory.numroc(1000, 64, k, 2) for k in range(2)], [512, 488])

    def test_reservation(self):
        # the 41,000-rank configuration: 198 GB of address space (doc/folding.md)
        self.assertAlmostEqual(memory.matrix_reservation(30000000, 384, 200, 205) / 1e9, 198.2, delta=0.1)
        # ld: a multiple of align that is no power of 2 (mp = 4096 -> ld 4104)
        self.assertEqual(memory.matrix_reservation(8192, 128, 2, 2), (8 * (8 + 4105 * 4097)) * 9 // 8)

    def test_largest_n(self):
        top = memory.largest_n(128, 2, 2)
        self.assertLessEqual(memory.matrix_reservation(top, 128, 2, 2), memory.ADDRESS_SPACE)
        self.assertGreater(memory.matrix_reservation(top + 1, 128, 2, 2), memory.ADDRESS_SPACE)
        self.assertEqual(top, 7908728)
        memory.check_address_space(top, 128, 2, 2, 8)  # fits: no error


if __name__ == "__main__":
    unittest.main()
