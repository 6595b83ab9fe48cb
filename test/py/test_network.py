"""simblas-calibrate --network's file in a run (issue 23, item 5): what
`run --network FILE` (or the installed default.network) gives smpirun
(smpi/lat-factor, smpi/bw-factor, the loopback of a host's cores, the
interconnect's links) and libsimblas (SIMBLAS_LAT_FACTOR,
SIMBLAS_BW_FACTOR), what the JSON says, and the refusal of a malformed
file: one line naming file:line and the remedy, status 2."""

import os
import re
import unittest
from unittest import mock

from support import Sandbox
from simblas_hpl import launch, network, validate_configs, validate_report, validate_score, validate_sim
from simblas_hpl.plan import RunOptions, make_plan

INTRA_LAT = "65536:9.5;4096:2.25;0:1"
INTRA_BW = "65536:1;4096:0.5;0:0.1875"
INTER_LAT = "65536:3.5;0:1"
INTER_BW = "65536:1;0:0.75"
RESULT = "WR11C2R4        8000   128     1     2               1.91              1.786e+02"


def network_text(inter=True):
    text = ("simblas-network 1\n# written by a test\nmeta date 2026-11-26T03:00:00Z\n"
            "intra link 4e-07 8e+09  # latency s, bandwidth B/s\n"
            f"intra lat-factor {INTRA_LAT}\nintra bw-factor {INTRA_BW}\n"
            "intra fit segments=3 median_rel_err=0.01 max_rel_err=0.04 sizes=93\n"
            "intra segment 0 4e-07 1.5e+09\nintra pingpong 1 4.1e-07 0.02\n"
            "intra collective bcast 8 1.1e-06\n")
    if inter:
        text += (f"inter link 2.5e-05 1.25e+09\ninter lat-factor {INTER_LAT}\ninter bw-factor {INTER_BW}\n"
                 "inter pingpong 1 2.6e-05 0.05\n")
    return text


class NetworkFile(Sandbox):
    def write(self, text, name="net.network"):
        path = self.path(name)
        with open(path, "w") as f:
            f.write(text)
        return path

    def run_sh(self, *args, env=None):
        status, out, err, keep = self.dry("--n", 8000, "--p", 1, "--q", 2, *args, env=env)
        self.assertEqual(status, 0, err)
        with open(os.path.join(keep, "run.sh")) as f:
            line = f.read().splitlines()[-1]
        with open(os.path.join(keep, "platform.xml")) as f:
            xml = f.read()
        return line, xml

    # ---- reading ----------------------------------------------------------
    def test_read(self):
        net = network.read(self.write(network_text()))
        self.assertEqual((net.intra.latency, net.intra.bandwidth, net.intra.lat_factor, net.intra.bw_factor),
                         (4e-7, 8e9, INTRA_LAT, INTRA_BW))
        self.assertEqual((net.inter.latency, net.inter.bandwidth), (2.5e-5, 1.25e9))
        self.assertEqual(net.date, "2026-11-26T03:00:00Z")
        self.assertIsNone(network.read(self.write(network_text(inter=False), "i.network")).inter)

    def refused(self, text, where, what):
        path = self.write(text)
        status, out, err = self.cli("run", "--n", 8000, "--p", 1, "--q", 2, "--cores-per-node", 2, "--dry-run",
                                    "--xhpl", self.xhpl, "--network", path)
        self.assertEqual(status, 2, err)
        lines = err.strip().splitlines()
        self.assertEqual(len(lines), 1, err)
        self.assertIn(f"{path}{where}: ", lines[0])
        self.assertIn(what, lines[0])
        self.assertIn("simblas-calibrate --network", lines[0])  # the remedy
        self.assertFalse(os.path.exists(self.called))

    def test_malformed_files_refused_with_file_line_and_remedy(self):
        good = network_text().splitlines()
        self.refused("simblas-model 1\n", ":1", "not a SimBLAS network file")
        self.refused("simblas-network 7\n", ":1", "version 7")
        self.refused("\n".join(good[:4] + ["intra lat-factor 65536:eleven;0:1"] + good[5:]) + "\n", ":5",
                     "is not a list of size:factor pairs")
        self.refused("\n".join(good[:4] + ["intra bw-factor 0:0"] + good[6:]) + "\n", ":5",
                     "is not a list of size:factor pairs")
        self.refused("\n".join(good[:3] + ["intra link 4e-07 fast"] + good[4:]) + "\n", ":4",
                     "intra link needs LATENCY BANDWIDTH")
        self.refused("\n".join(good[:3] + ["intra link 4e-07 0"] + good[4:]) + "\n", ":4", "out of range")
        self.refused("\n".join(good + ["outer link 1e-6 1e9"]) + "\n", f":{len(good) + 1}", "unknown section 'outer'")
        self.refused("\n".join(good[:3] + ["intra lnk 4e-07 8e9"] + good[4:]) + "\n", ":4", "unknown intra line")
        self.refused("simblas-network 1\n" + "\n".join(g for g in good if g.startswith("inter")) + "\n", "",
                     "no intra section")
        self.refused("\n".join(g for g in good if not g.startswith("intra bw-factor")) + "\n", "",
                     "no bw-factor line")

    def test_whole_sizes_in_any_form_reach_libsimblas_as_digits(self):
        # 1e3 is a whole size: SMPI and libsimblas get 1000 (libsimblas's
        # SIMBLAS_LAT_FACTOR takes digits only)
        good = network_text().splitlines()
        path = self.write("\n".join(good[:4] + ["intra lat-factor 1e3:2.0;0:1.5"] + good[5:]) + "\n")
        self.assertEqual(network.read(path).intra.lat_factor, "1000:2.0;0:1.5")
        line, xml = self.run_sh("--cores-per-node", 2, "--network", path)
        self.assertIn("SIMBLAS_LAT_FACTOR='1000:2.0;0:1.5'", line)
        self.assertIn("'--cfg=smpi/lat-factor:1000:2.0;0:1.5'", line)

    def test_sizes_and_factors_libsimblas_would_refuse_are_refused_at_read(self):
        good = network_text().splitlines()
        for bad in ("1.5e0:2;0:1", "1000.5:2;0:1", "1_000:2;0:1", "1000:1_5;0:1", "1000:2;0:nan", "1e300:2;0:1"):
            self.refused("\n".join(good[:4] + [f"intra lat-factor {bad}"] + good[5:]) + "\n", ":5",
                         "sizes whole numbers of bytes")

    def test_a_missing_file_is_refused(self):
        status, out, err = self.cli("run", "--n", 8000, "--p", 1, "--q", 2, "--dry-run", "--xhpl", self.xhpl,
                                    "--network", self.path("nowhere.network"))
        self.assertEqual(status, 2)
        self.assertIn("nowhere.network: no such file", err)

    # ---- what the run is given -------------------------------------------
    def test_intra_link_and_factors_reach_smpi_and_libsimblas(self):
        line, xml = self.run_sh("--cores-per-node", 2, "--network", self.write(network_text()))
        self.assertIn(f"'--cfg=smpi/lat-factor:{INTRA_LAT}'", line)
        self.assertIn(f"'--cfg=smpi/bw-factor:{INTRA_BW}'", line)
        self.assertIn(f"SIMBLAS_LAT_FACTOR='{INTRA_LAT}'", line)
        self.assertIn(f"SIMBLAS_BW_FACTOR='{INTRA_BW}'", line)
        # two ranks on one host: SMPI routes them through the host's loopback
        self.assertIn('loopback_bw="8e+09Bps"', xml)
        self.assertIn('loopback_lat="4e-07s"', xml)
        # one host: the factors are the intra link's, though the fat tree
        # takes the interconnect's links (which no message crosses)
        self.assertIn('bw="1.25e+09Bps" lat="2.5e-05s"', xml)

    def test_without_a_file_simgrid_defaults_and_the_assumed_loopback(self):
        for args in ((), ("--network", "none")):
            line, xml = self.run_sh("--cores-per-node", 2, *args)
            self.assertNotIn("lat-factor", line)
            self.assertNotIn("SIMBLAS_BW_FACTOR", line)
            self.assertIn('loopback_bw="40Gbps" loopback_lat="1us"', xml)

    def test_the_installed_default_and_none(self):
        data = self.path("share")
        os.makedirs(data)
        self.write(network_text(), os.path.join("share", "default.network"))
        line, xml = self.run_sh("--cores-per-node", 2, env={"SIMBLAS_DATADIR": data})
        self.assertIn(f"smpi/lat-factor:{INTRA_LAT}", line)
        line, xml = self.run_sh("--cores-per-node", 2, "--network", "none", env={"SIMBLAS_DATADIR": data})
        self.assertNotIn("lat-factor", line)

    def test_inter_section_on_several_hosts(self):
        path = self.write(network_text())
        # 2 ranks, one core a host: two hosts, the interconnect's factors and links
        line, xml = self.run_sh("--network", path)
        self.assertIn(f"smpi/lat-factor:{INTER_LAT}", line)
        self.assertIn(f"SIMBLAS_BW_FACTOR='{INTER_BW}'", line)
        self.assertIn('bw="1.25e+09Bps" lat="2.5e-05s"', xml)
        # an explicit --bw wins; the latency still comes from the file
        line, xml = self.run_sh("--network", path, "--bw", "1Gbps")
        self.assertIn('bw="1Gbps" lat="2.5e-05s"', xml)
        # without an inter section: the defaults' links, the intra factors
        line, xml = self.run_sh("--network", self.write(network_text(inter=False), "i.network"))
        self.assertIn('bw="10Gbps" lat="24us"', xml)
        self.assertIn(f"smpi/lat-factor:{INTRA_LAT}", line)

    def test_the_hosts_the_run_spans_choose_the_factors(self):
        # 2 ranks of 2 cores on node-0 of an 8-host fat tree: every message
        # stays in the host, yet the 8 hosts of the machine gave the inter
        # factors (smpi/lat-factor:65536:3.5;0:1) and the JSON said "inter"
        path = self.write(network_text())
        line, xml = self.run_sh("--cores-per-node", 2, "--platform", "fattree:2;4,2;1,4;1,1", "--network", path)
        self.assertIn(f"smpi/lat-factor:{INTRA_LAT}", line)
        self.assertIn(f"SIMBLAS_BW_FACTOR='{INTRA_BW}'", line)
        with mock.patch.dict(os.environ, self.env, clear=True):
            plan = make_plan(RunOptions(n=8000, p=1, q=2, cores_per_node=2, platform="fattree:2;4,2;1,4;1,1",
                                        xhpl=self.xhpl, network=path))
        self.assertEqual(network.summary(plan.network, plan.platform)["factors"], "intra")
        # spread over two of them, the interconnect's
        line, xml = self.run_sh("--platform", "fattree:2;4,2;1,4;1,1", "--network", path)
        self.assertIn(f"smpi/lat-factor:{INTER_LAT}", line)

    def test_alloc_only_solves_no_network(self):
        with mock.patch.dict(os.environ, self.env, clear=True):
            plan = make_plan(RunOptions(n=8000, p=1, q=2, cores_per_node=2, alloc_only=True, xhpl=self.xhpl,
                                        network=self.write(network_text())))
        self.assertFalse([c for c in launch.smpirun_command(plan) if "factor" in c])

    def test_json_says_which_network(self):
        with open(self.env["SMPIRUN"], "w") as f:
            f.write(f"#!/bin/sh\necho '{RESULT}'\n")
        path = self.write(network_text())
        work = self.path("w")
        os.mkdir(work)
        with mock.patch.dict(os.environ, self.env, clear=True):
            plan = make_plan(RunOptions(n=8000, p=1, q=2, cores_per_node=2, xhpl=self.xhpl,
                                        mode="passthrough", network=path))
            net = launch.simulate(plan, work, quiet=True).summary["network"]
            plan = make_plan(RunOptions(n=8000, p=1, q=2, cores_per_node=2, xhpl=self.xhpl,
                                        mode="passthrough", network="none"))
            none = launch.simulate(plan, work, quiet=True).summary["network"]
        self.assertEqual((net["file"], net["factors"], net["lat_factor"], net["date"]),
                         (os.path.abspath(path), "intra", INTRA_LAT, "2026-11-26T03:00:00Z"))
        self.assertEqual(net["loopback"], {"bw": "8e+09Bps", "lat": "4e-07s", "source": "network file"})
        self.assertEqual(net["inter"]["bandwidth_Bps"], 1.25e9)
        self.assertEqual((none["file"], none["factors"], none["loopback"]["source"]),
                         (None, "SimGrid 3.32's defaults", "assumed"))

    def test_validate_reports_the_network_of_its_simulations(self):
        c = validate_configs.make_config(8000, 1, 2)
        real = {c.label: {"gflops": [100.0, 99.0, 101.0]}}
        sims = [validate_sim.Simulation("q", "model", "/m/q.model", "here.network"),
                validate_sim.Simulation("passthrough", "passthrough", "/m/q.model", "none")]
        res = {"q": {c.label: {"gflops": 102.0, "hpl_time_s": 1, "wall_s": 1, "network": "/abs/here.network"}},
               "passthrough": {c.label: {"gflops": 98.0, "hpl_time_s": 1, "wall_s": 1, "network": None}}}
        r = validate_score.build_report([c], real, sims, res, {"cpu": "x", "simd": [], "cores": 2}, 3, None, "d", 1)
        self.assertEqual(r["simulations"]["q"]["network"], "/abs/here.network")
        self.assertIsNone(r["simulations"]["passthrough"]["network"])
        text = validate_report.table(r)
        self.assertIn("q: worst 2.0%, mean +2.0%, 1 of 1 within 3%; network /abs/here.network", text)
        self.assertIn("passthrough: worst 2.0%, mean -2.0%, 1 of 1 within 3%; network SimGrid defaults", text)

    def test_factor_lists_as_libsimblas_takes_them(self):
        self.assertEqual(network.parse_factors("65536:9.5;0:1"), [(65536, 9.5), (0, 1)])
        self.assertEqual(network.parse_factors("6.5536e4:9.5;0:1"), [(65536, 9.5), (0, 1)])
        self.assertEqual(network.factors_text("6.5536e4:9.5;+0:1e-1"), "65536:9.5;0:1e-1")
        for bad in ("", "0", "0:1;", "x:1", "0:-1", "1.5:2", "1_0:1", "0:inf", ";".join(f"{i}:1" for i in range(33))):
            self.assertIsNone(network.parse_factors(bad), bad)


if __name__ == "__main__":
    unittest.main()
