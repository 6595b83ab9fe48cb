"""Each simulation scored against the real runs (validate_score.py): the
errors against the real medians, the ranking of the configurations the
real runs tell apart (and those they do not), the report's fields."""

from support import Sandbox
from simblas_hpl import validate_configs, validate_report, validate_score, validate_sim


class Score(Sandbox):
    def test_ranking(self):
        configs = [validate_configs.make_config(12000, 2, 1), validate_configs.make_config(12000, 2, 1, swap=0)]
        sims = [validate_sim.Simulation("m", "model", "x")]
        machine = {"cpu": "x", "simd": [], "cores": 2}

        def report(real_a, real_b, sim):
            real = {configs[0].label: {"gflops": real_a}, configs[1].label: {"gflops": real_b}}
            res = {"m": {c.label: {"gflops": g, "hpl_time_s": 1, "wall_s": 1} for c, g in zip(configs, sim)}}
            return validate_score.build_report(configs, real, sims, res, machine, len(real_a), None, "d", 1)

        apart = ([125.0, 124.0, 126.0], [113.0, 114.0, 112.0])   # every run of one above every run of the other
        for sim, bad in (((124.0, 115.0), 0), ((124.0, 129.0), 1)):
            r = report(*apart, sim)["simulations"]["m"]
            with self.subTest(sim=sim):
                self.assertEqual(len(r["misranked"]), bad)
                self.assertEqual(r["ranking"], {"separated": 1, "kept": 1 - bad, "unseparated": 0})
        self.assertIn("swap=0 in every real run (125 vs 113, medians), not in m (124 vs 129)",
                      report(*apart, (124.0, 129.0))["simulations"]["m"]["misranked"][0])
        text = validate_report.table(report(*apart, (124.0, 129.0)))
        self.assertIn("ranking: 0 of 1 pair(s) that the real runs separate kept, ranked otherwise: ", text)
        # medians 3.3% apart, but the runs overlap (round 3 of 2026-11-29: bcast=4 against the default): noise
        r = report([108.4, 108.5, 115.2], [106.9, 112.6, 112.1], (109.8, 108.8))
        self.assertEqual((r["simulations"]["m"]["misranked"], r["simulations"]["m"]["ranking"]),
                         ([], {"separated": 0, "kept": 0, "unseparated": 1}))
        self.assertIn("1 pair(s) more than 3% apart whose real runs overlap", validate_report.table(r))
        # one run each: separation is a coin toss, nothing is judged
        r = report([125.0], [113.0], (124.0, 129.0))
        self.assertEqual((r["simulations"]["m"]["misranked"], r["simulations"]["m"]["ranking"]["unseparated"]), ([], 1))
        # within 3% of each other in real runs: not a ranking to keep
        r = report([125.0, 124.0, 126.0], [123.0, 122.5, 123.5], (124.0, 129.0))
        self.assertEqual(r["simulations"]["m"]["ranking"], {"separated": 0, "kept": 0, "unseparated": 0})
        self.assertNotIn("ranking:", validate_report.table(r))

    def test_separated(self):
        """Every run of one above every run of the other, and that unlikely
        by chance: 1/C(na+nb, na) at most RANK_ALPHA (5%)."""
        self.assertEqual(validate_score.error_pct(104.0, 100.0), 4.0)
        self.assertEqual(validate_score.error_pct(97.123, 100.0), -2.88)
        self.assertTrue(validate_score.separated([3, 4, 5], [1, 2, 2.5]))     # 1/20
        self.assertFalse(validate_score.separated([3, 4, 5], [1, 2, 3.5]))    # overlap
        self.assertFalse(validate_score.separated([3, 4], [1, 2]))            # 1/6: too likely
        self.assertFalse(validate_score.separated([3, 4, 5, 6], [1, 2]))      # 1/15
        self.assertTrue(validate_score.separated([3, 4, 5, 6, 7], [1, 2]))    # 1/21
        # the ranking looks at the configurations of the same N, NB and grid only
        rows = [{"label": f"{n} {v}", "n": n, "nb": 128, "p": 2, "q": 1, "real": {"median": g[1], "gflops": g},
                 "sim": {"m": {"gflops": s}}}
                for n, v, g, s in ((8000, "a", [124.0, 125.0, 126.0], 100.0),
                                   (12000, "b", [112.0, 113.0, 114.0], 110.0),
                                   (12000, "c", [99.0, 100.0, 101.0], 111.0))]
        r = validate_score.ranking(rows, "m")
        self.assertEqual((r["separated"], r["kept"], r["unseparated"]), (1, 0, 0))
        self.assertEqual(r["misranked"], ["12000 b > 12000 c in every real run (113 vs 100, medians), not in m "
                                          "(110 vs 111)"])
        self.assertEqual(validate_score.ranking(rows, "other"), {"separated": 0, "kept": 0, "misranked": [],
                                                                  "unseparated": 0})

    def test_build_report(self):
        c = validate_configs.make_config(8000, 1, 2, swap=0)
        real = {c.label: {"gflops": [99.0, 100.0, 101.0], "other_load": [0.01, None, 0.03]}}
        sims = [validate_sim.Simulation("m", "model", "/m/m.model", "none", "lagged"),
                validate_sim.Simulation("pt", "passthrough", "/m/m.model", "none", "lagged"),
                validate_sim.Simulation("absent", "model", "/m/a.model")]
        res = {"m": {c.label: {"gflops": 103.0, "hpl_time_s": 1, "wall_s": 1, "network": None}},
               "pt": {c.label: {"gflops": 98.5, "hpl_time_s": 1, "wall_s": 1, "network": None}}, "absent": {}}
        r = validate_score.build_report([c], real, sims, res, {"cpu": "x"}, 3, {"build_id": "b1"}, "d", 12.34)
        self.assertEqual({k: r[k] for k in ("format", "date", "runs", "build", "other_load_max", "wall_s",
                                            "speed_adjusted", "reference_speed")},
                         {"format": 1, "date": "d", "runs": 3, "build": {"build_id": "b1"}, "other_load_max": 0.03,
                          "wall_s": 12.3, "speed_adjusted": False, "reference_speed": None})
        row = r["configs"][0]
        self.assertEqual((row["label"], row["hpl_opt"], row["sim"]["m"]["error_pct"], row["sim"]["pt"]["error_pct"]),
                         ("N=8000 1x2 swap=0", {"swap": 0}, 3.0, -1.5))
        # a simulation without figures has no summary; passthrough has no probe
        self.assertEqual(list(r["simulations"]), ["m", "pt"])
        self.assertEqual((r["simulations"]["m"]["probe"], r["simulations"]["pt"]["probe"]), ("lagged", None))
        self.assertEqual(r["simulations"]["m"]["within_3pct"], 1)
