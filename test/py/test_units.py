"""SimGrid's units as simblas-hpl reads them (--bw, --lat) and writes them."""

import unittest

import support  # noqa: F401  (the package on sys.path)
from simblas_hpl import units
from simblas_hpl.errors import CliError


class Units(unittest.TestCase):
    def test_bandwidth(self):
        for text, value, written in (("10Gbps", 1.25e9, "10Gbps"), ("1.25GBps", 1.25e9, "1.25GBps"),
                                     ("100MBps", 1e8, "100MBps"), ("1Gibps", 2**30 / 8, "1Gibps"),
                                     ("56Gbps", 7e9, "56Gbps"), ("2e3kBps", 2e6, "2e3kBps"), (" 8bps ", 1, "8bps")):
            with self.subTest(text=text):
                v, w = units.parse_bandwidth(text)
                self.assertAlmostEqual(v, value, delta=1e-12 * value)
                self.assertEqual(w, written)

    def test_prefixes_beyond_tera(self):
        # SimGrid 3.32 (xbt_parse_get_bandwidth) takes the prefixes up to Y
        # and Yi, on bps and Bps; --bw 1PBps was refused as "not a bandwidth"
        for text, value in (("1PBps", 1e15), ("0.001EBps", 1e15), ("1e-6ZBps", 1e15), ("1e-9YBps", 1e15),
                            ("8Pbps", 1e15), ("1e-3Ebps", 1.25e14), ("0.5PiBps", 2**49), ("1e-4EiBps", 2**60 / 1e4),
                            ("1e-7ZiBps", 2**70 / 1e7), ("1e-9Yibps", 2**80 / 8e9), ("1Pibps", 2**50 / 8)):
            with self.subTest(text=text):
                v, w = units.parse_bandwidth(text)
                self.assertAlmostEqual(v, value, delta=1e-12 * value)
                self.assertEqual(w, text)
        # a SimGrid unit, but more than a link carries: the range says so
        with self.assertRaisesRegex(CliError, "out of range; a link's bandwidth is between 8bps and 8000Tbps"):
            units.parse_bandwidth("1EBps")
        # what SimGrid refuses ("unknown unit"): upper-case kilo, prefixes
        # SimGrid does not have, lower-case binary, long names, no b/B
        for text in ("1Pbs", "1RBps", "1QBps", "1pBps", "1PIBps", "1piBps", "1petaBps", "1P", "1Pi", "1YiB", "1XBps"):
            with self.subTest(text=text), self.assertRaisesRegex(CliError, "not a bandwidth"):
                units.parse_bandwidth(text)
        self.assertEqual(sorted(u for u in units.BW_UNITS if u.startswith("Y")), ["YBps", "Ybps", "YiBps", "Yibps"])
        self.assertEqual(len(units.BW_UNITS), 2 * (1 + 8 + 8))

    def test_speed(self):
        for text, value in (("1Gf", 1e9), ("2Pf", 2e15), ("1Yf", 1e24), ("3gigaflops", 3e9), ("1yottaflops", 1e24),
                            ("5flops", 5.0), ("1zetaflops", 1e21)):
            with self.subTest(text=text):
                self.assertAlmostEqual(units.parse_speed(text), value, delta=1e-12 * value)
        for text in ("1GF", "1Gflops", "1zettaflops", "1gigaf", "1Kf", "1Rf", "1Gif"):
            with self.subTest(text=text), self.assertRaisesRegex(CliError, "not a host speed"):
                units.parse_speed(text)

    def test_latency(self):
        for text, value in (("24us", 24e-6), ("1.5ms", 1.5e-3), ("0.00001s", 1e-5), ("100ns", 1e-7), ("0us", 0.0)):
            with self.subTest(text=text):
                v, w = units.parse_latency(text)
                self.assertAlmostEqual(v, value, delta=1e-15)
                self.assertEqual(w, text)

    def test_refused(self):
        for text, what in (("10Gbs", "not a bandwidth"), ("fast", "not a bandwidth"), ("-1Gbps", "not a bandwidth"),
                           ("0Gbps", "must be positive"), ("", "not a bandwidth")):
            with self.subTest(text=text), self.assertRaisesRegex(CliError, what):
                units.parse_bandwidth(text)
        for text in ("fast", "24 parsecs", "1e3"):
            with self.subTest(text=text), self.assertRaisesRegex(CliError, "not a latency"):
                units.parse_latency(text + ("x" if text == "1e3" else ""))

    def test_upper_case_kilo_is_refused(self):
        # --bw 1250000KBps was accepted and written to platform.xml, where
        # SimGrid stopped the run: "Parse error at platform.xml:5: unknown unit: KBps"
        for text, hint in (("1250000KBps", "give 1250000kBps, or KiBps for 1024"), ("10Kbps", "give 10kbps")):
            with self.subTest(text=text), self.assertRaisesRegex(CliError, f"SimGrid's kilo is a lower-case k .*{hint}"):
                units.parse_bandwidth(text)
        self.assertEqual(units.parse_bandwidth("10KiBps"), (10240, "10KiBps"))

    def test_a_unit_is_needed(self):
        # issue 21: --bw 10 was 10 B/s and --lat 24 24 s, silently
        with self.assertRaisesRegex(CliError, "'10': a bandwidth needs its unit, as in SimGrid: bps, kbps, Mbps, Gbps"):
            units.parse_bandwidth("10")
        with self.assertRaisesRegex(CliError, r"'24': a latency needs its unit, as in SimGrid: s, ms, us, ns, ps"):
            units.parse_latency("24")

    def test_ranges(self):
        for text in ("1e400Gbps", "1e16Bps", "0.5Bps", "7bps"):
            with self.subTest(text=text), self.assertRaisesRegex(CliError, "out of range; a link's bandwidth is "
                                                                           "between 8bps and 8000Tbps"):
                units.parse_bandwidth(text)
        for text in ("1e400s", "2s", "1m"):
            with self.subTest(text=text), self.assertRaisesRegex(CliError, "out of range; a link's latency is "
                                                                           "between 0s and 1s"):
                units.parse_latency(text)
        self.assertEqual(units.parse_bandwidth("8000Tbps")[0], 1e15)
        self.assertEqual(units.parse_bandwidth("8bps")[0], 1.0)
        self.assertEqual(units.parse_latency("1s")[0], 1.0)

    def test_formats(self):
        self.assertEqual(units.fmt_speed(6.123456789e10), "6.123456789e+10f")
        self.assertEqual(units.fmt_speed(1e10 * 4.85), "4.85e+10f")
        self.assertEqual([units.fmt_duration(s) for s in (5, 119.4, 120, 7199, 7200, 5400 * 3)],
                         ["5 s", "119 s", "2 min", "120 min", "2.0 h", "4.5 h"])


if __name__ == "__main__":
    unittest.main()
