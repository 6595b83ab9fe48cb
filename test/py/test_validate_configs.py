"""validate's configurations (validate_configs.py): --config read and
refused, the options checked as --hpl-opt's, and the sets of a machine of
C cores (validate's default set, make check's)."""

from support import Sandbox
from simblas_hpl import validate_configs, validate_real
from simblas_hpl.errors import CliError


class Configs(Sandbox):
    def test_parse_config(self):
        c = validate_configs.parse_config("12000:2x1:swap=0,depth=0")
        self.assertEqual((c.n, c.p, c.q, c.nb, c.opts), (12000, 2, 1, 128, (("depth", 0), ("swap", 0))))
        self.assertEqual(c.label, "N=12000 2x1 depth=0 swap=0")
        self.assertEqual(validate_configs.parse_config("8000:1x2:NB=256,bcast=blong").label,
                         "N=8000 NB=256 1x2 bcast=4")
        for bad, msg in (("12000", "expected N:PxQ"), ("12000:2x1:swap", "not KEY=VALUE"),
                         ("100:1x1:nb=128", "N >= NB"),
                         # --config's messages, where they named --hpl-opt (not given) or --n (make_plan's)
                         ("12000:2x1:swap=7", r"^--config '12000:2x1:swap=7': swap=7: out of range \(0\.\.2\)$"),
                         ("12000:2x1:nosuch=1", r"^--config '12000:2x1:nosuch=1': nosuch is not a key of it; they are "
                                                r"NB, pmap, threshold, "),
                         ("3000000000:1x1", r"^--config '3000000000:1x1': N, P and Q are at most 2147483647, and HPL "
                                            r"reads them as C ints$"),
                         # a key twice: the last one won without a word
                         ("12000:2x1:swap=0,swap=1", r"^--config '12000:2x1:swap=0,swap=1': swap is given twice: "
                                                     r"give it once$"),
                         ("12000:2x1:NB=128,nb=256", "NB is given twice")):
            with self.subTest(bad=bad), self.assertRaisesRegex(CliError, msg):
                validate_configs.parse_config(bad)

    def test_default_set(self):
        two = validate_configs.default_set(2)
        labels = [c.label for c in two]
        self.assertEqual(labels, ["N=8000 1x1", "N=8000 1x2", "N=12000 1x2", "N=16000 1x2", "N=12000 2x1",
                                  "N=12000 2x1 swap=0", "N=12000 2x1 swap=1", "N=12000 1x2 bcast=4",
                                  "N=12000 1x2 depth=0"])
        # every core, no more; the three swaps, two broadcasts, depth 0 and 1
        self.assertEqual(max(c.ranks for c in two), 2)
        self.assertEqual({dict(c.opts).get("swap", 2) for c in two if c.p > 1}, {0, 1, 2})
        self.assertEqual({dict(c.opts).get("bcast", 1) for c in two if c.q > 1}, {1, 4})
        self.assertEqual({dict(c.opts).get("depth", 1) for c in two if c.q > 1}, {0, 1})
        self.assertLess(validate_real.estimate_seconds(two, 3), 600)
        four = validate_configs.default_set(4)
        self.assertEqual(max(c.ranks for c in four), 4)
        self.assertEqual([c.label for c in validate_configs.default_set(1)], ["N=8000 1x1"])

    def test_check_set(self):
        # make check's run is Cx1 (real 1x2 runs parted from passthrough on the EPYC VM)
        self.assertEqual([c.label for c in validate_configs.check_set(2)], ["N=12000 2x1"])
        self.assertEqual([c.label for c in validate_configs.check_set(1)], ["N=12000 1x1"])

    def test_make_config(self):
        c = validate_configs.make_config(8000, 2, 1, nb=256, swap=0, depth=0)
        self.assertEqual((c.label, c.hpl, c.ranks), ("N=8000 NB=256 2x1 depth=0 swap=0", {"depth": 0, "swap": 0}, 2))
        self.assertEqual(c.flops(), (2.0 / 3.0 * 8000 + 1.5) * 8000 * 8000)
        # the options are checked as --hpl-opt's
        for opts, msg in (({"swap": 7}, "--hpl-opt swap=7: out of range"), ({"nosuch": 1}, "unknown HPL option")):
            with self.subTest(opts=opts), self.assertRaisesRegex(CliError, msg):
                validate_configs.make_config(8000, 1, 2, **opts)
