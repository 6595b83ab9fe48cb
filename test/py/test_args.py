"""Bad input to simblas-hpl: each is refused with ONE line on stderr and
status 2, before anything is written or run (the sandbox's smpirun records
any call; the --keep directory must not appear).  Moved from section 1 of
test/hpl-run.sh."""

import os
import re
import resource
import shutil
import unittest
from unittest import mock

from support import DATA, Sandbox
from simblas_hpl import plan

RUN4 = ("run", "--n", "8000", "--nb", "128")


class Refused(Sandbox):
    def refused(self, pattern, *args, env=None, unset=()):
        keep = self.path("k")
        status, out, err = self.cli(*args, "--keep", keep, env=env, unset=unset)
        lines = err.rstrip("\n").split("\n")
        with self.subTest(args=args):
            self.assertEqual(status, 2, err)
            self.assertEqual(len(lines), 1, err)
            self.assertRegex(err, pattern)
            self.assertFalse(os.path.exists(self.called), "smpirun was called")
            self.assertFalse(os.path.exists(keep), "the run directory was made")
        return err

    def test_grid_and_platform(self):
        self.refused(r"P\*Q = 12 ranks.*8 host.*too few", *RUN4, "--p", 3, "--q", 4, "--platform", "fattree:2;4,2;1,4;1,1")
        self.refused(r"P\*Q = 4 ranks.*provides 3: they must be equal; give --p and --q with P\*Q = 3, or a "
                     "platform of 4 cores$", *RUN4, "--p", 2, "--q", 2, "--platform", f"{DATA}/two.xml")
        self.refused("N >= NB", "run", "--n", 100, "--nb", 128, "--p", 2, "--q", 2)
        self.refused("must be > 0", "run", "--n", 100, "--nb", 0, "--p", 2, "--q", 2)
        # found by bench/fuzz-inputs: a grid of 2**63 ranks filled the memory planning its hosts
        self.refused(r"--p 9223372036854775808: more than 2147483647, and HPL reads it as a C int", *RUN4,
                     "--p", "9223372036854775808", "--q", 16)
        self.refused(r"--p 4096 --q 4096: 16,777,216 ranks, more than 4,194,304, the most a run plans for", *RUN4,
                     "--p", 4096, "--q", 4096)
        self.refused(r"--platform torus:4096,4096,4: 67,108,864 hosts, more than 4,194,304: SimGrid makes every host",
                     *RUN4, "--p", 2, "--q", 2, "--platform", "torus:4096,4096,4")
        self.refused("fattree:LEVELS", *RUN4, "--p", 2, "--q", 2, "--platform", "fattree:2;4")
        self.refused("fattree:LEVELS", *RUN4, "--p", 2, "--q", 2, "--platform", "fattree:2;4,1;1,0;1,1")
        self.refused("expected fattree", *RUN4, "--p", 2, "--q", 2, "--platform", "ring:4,4")
        self.refused(r"P\*Q = 20 ranks.*torus:4,4 has 16 host.*sizes that fit: torus:5,4", *RUN4, "--p", 4, "--q", 5,
                     "--platform", "torus:4,4")
        self.refused(r"12 groups but 4 routers per chassis", *RUN4, "--p", 2, "--q", 2,
                     "--platform", "dragonfly:12,1;2,1;4,1;1")
        self.refused("no such file", *RUN4, "--p", 2, "--q", 2, "--platform", self.path("none.xml"))
        self.refused("set speeds", *RUN4, "--p", 1, "--q", 3, "--platform", f"{DATA}/two.xml", "--speedup", 2)

    def test_run_directory(self):
        keep, afile = self.path("a dir"), self.path("afile")
        open(afile, "w").close()
        for where, msg in ((keep, "contains white space, which smpirun cannot handle; use --keep DIR without spaces"),
                           (afile, f"--keep {afile} is not a directory")):
            status, _, err = self.cli(*RUN4, "--p", 2, "--q", 2, "--xhpl", self.xhpl, "--keep", where)
            with self.subTest(keep=where):
                self.assertEqual((status, err.count("\n")), (2, 1), err)
                self.assertIn(msg, err)
                self.assertFalse(os.path.exists(self.called), "smpirun was called")
        self.assertFalse(os.path.exists(keep))  # refused before it was made
        self.assertTrue(os.path.isfile(afile))

    def test_hugepages(self):
        self.refused("is not a hugetlbfs mount; mount one with: mount -t hugetlbfs",
                     *RUN4, "--p", 2, "--q", 2, "--hugepages", self.root)
        self.refused("passthrough runs allocate the real matrix",
                     *RUN4, "--p", 2, "--q", 2, "--mode", "passthrough", "--hugepages", self.root)

    def test_opt_ins(self):
        self.refused("pivot-every 0: must be >= 1", *RUN4, "--p", 2, "--q", 2, "--pivot-every", 0)
        self.refused("progress -1: must be a number of seconds >= 0", *RUN4, "--p", 2, "--q", 2, "--progress", -1)
        self.refused("roll-merge -1: must be >= 0", *RUN4, "--p", 2, "--q", 2, "--roll-merge", -1)
        self.refused("roll-merge merges the messages of a modelled run",
                     *RUN4, "--p", 2, "--q", 2, "--roll-merge", 0, "--mode", "passthrough")
        self.refused("--probe lagged is libsimblas_pmpi's MPI_Iprobe wrapper, which model mode preloads",
                     *RUN4, "--p", 2, "--q", 2, "--probe", "lagged", "--mode", "passthrough")
        self.refused("invalid choice: 'late'", *RUN4, "--p", 2, "--q", 2, "--probe", "late")

    def test_setting_needs(self):
        # the rule is lib/settings.def's SB_NEEDS row, read from settings.json
        self.refused("--pivot-every 8 thins the pivot search of a simulated run",
                     *RUN4, "--p", 2, "--q", 2, "--pivot-every", 8, "--mode", "passthrough")
        self.refused(r"which needs SIMBLAS_MODE=smpi and SIMBLAS_MERGE=1 \(SIMBLAS_MERGE is",
                     *RUN4, "--p", 2, "--q", 2, "--pivot-every", 8, "--no-merge")
        self.assertEqual(self.cli(*RUN4, "--p", 2, "--q", 2, "--pivot-every", 8, "--dry-run",
                                  "--keep", self.path("w"), "--xhpl", self.xhpl)[0], 0)

    def test_address_space(self):
        # issue 21: N=10^9 on 2x2 failed after the start, saying "check 'ulimit -v'"
        self.refused(r"--n 1000000000 on 2x2: one rank's matrix needs 2,046,363 TiB of address space, more than the "
                     r"128 TiB \(47-bit\) address space of a process: the largest N that fits on 2x2 with NB=128 is "
                     r"7,908,728$", "run", "--n", 10**9, "--p", 2, "--q", 2)
        status, _, err, _ = self.dry("--n", 7908728, "--p", 2, "--q", 2)
        self.assertEqual(status, 0, err)
        # under `ulimit -v`, the run would fail at its first allocation
        with mock.patch("resource.getrlimit", return_value=(4 << 30, resource.RLIM_INFINITY)):
            self.refused(r"--n 100000 on 2x2: one rank's matrix needs 21.0 GiB of address space, and 'ulimit -v' "
                         r"allows 4.0 GiB; raise the limit with: ulimit -v unlimited$",
                         "run", "--n", 100000, "--p", 2, "--q", 2)

    def test_model_and_build(self):
        self.refused("/nonexistent.model does not exist", *RUN4, "--p", 2, "--q", 2, "--model", "/nonexistent.model")
        # a directory is said to be one (issue 21), and its default.model suggested
        self.refused(f"model file {DATA} is a directory: give the model file itself .--model FILE",
                     *RUN4, "--p", 2, "--q", 2, "--model", DATA)
        os.mkdir(self.path("share"))
        shutil.copy(os.path.join(DATA, "measured.model"), self.path("share", "default.model"))
        self.refused(f"is a directory: give the model file itself, e.g. --model {self.path('share', 'default.model')}$",
                     *RUN4, "--p", 2, "--q", 2, "--model", self.path("share"))
        # a file that cannot be read says why (not "not a SimBLAS model file")
        self.refused("cannot read the model file /proc/self/mem: Input/output error; make it readable, or give "
                     "another with --model FILE$", *RUN4, "--p", 2, "--q", 2, "--model", "/proc/self/mem")

    def test_bad_model_file(self):
        # a model that is refused says what to do: calibrate one, or give another (--model)
        bad = {"text.model": ("hello\n", r"is not a SimBLAS model file \(first line is not 'simblas-model V'\): "
                              r"give a model with --model FILE, or write one with `make calibrate` "
                              r"\(simblas-calibrate -o FILE\)$"),
               "nospeed.model": ("simblas-model 1\ndgemm 1e-9 0 0 0\n",
                                 r"nospeed.model: no valid 'reference-speed' line \(a positive flop rate, "
                                 r"doc/model-format.md\): recalibrate with `make calibrate` \(simblas-calibrate -o "
                                 r"FILE\), or give another with --model FILE$"),
               "badspeed.model": ("simblas-model 1\nreference-speed -3\n", "no valid 'reference-speed' line .*"
                                  "recalibrate with `make calibrate`")}
        for name, (text, msg) in bad.items():
            with open(self.path(name), "w") as f:
                f.write(text)
            self.refused(msg, *RUN4, "--p", 2, "--q", 2, "--model", self.path(name))
        self.refused("--xhpl .*none: no such file; give an xhpl that exists, or drop --xhpl to run the HPL build's",
                     *RUN4, "--p", 2, "--q", 2, "--xhpl", self.path("none"))
        self.refused("run `simblas-hpl build` first", *RUN4, "--p", 2, "--q", 2)
        self.refused("simblas-hpl build --mode passthrough", *RUN4, "--p", 2, "--q", 2, "--n", 1000,
                     "--mode", "passthrough")

    def test_values(self):
        self.refused("unknown HPL option", *RUN4, "--p", 2, "--q", 2, "--hpl-opt", "nosuch=1")
        self.refused("out of range", *RUN4, "--p", 2, "--q", 2, "--hpl-opt", "pfact=7")
        self.refused("not a bandwidth", *RUN4, "--p", 2, "--q", 2, "--bw", "10Gbs")
        self.refused("not a latency", *RUN4, "--p", 2, "--q", 2, "--lat", "fast")
        self.refused("IDLE:EPSILON:ALLCORES", *RUN4, "--p", 2, "--q", 2, "--energy", "100:200")
        self.refused(re.escape("ALLCORES (100 W) is below IDLE (200 W)"), *RUN4, "--p", 2, "--q", 2,
                     "--energy", "200:150:100")
        self.refused(re.escape("ALLCORES (150 W) is below EPSILON (200 W)"), *RUN4, "--p", 2, "--q", 2,
                     "--energy", "100:200:150")
        self.refused("positive", *RUN4, "--p", 2, "--q", 2, "--speedup", 0)
        # issue 21: no unit, or values SimGrid aborts on after the run started
        self.refused("'10': a bandwidth needs its unit, as in SimGrid: bps, kbps, Mbps, Gbps",
                     *RUN4, "--p", 2, "--q", 2, "--bw", "10")
        self.refused("'24': a latency needs its unit, as in SimGrid: s, ms, us",
                     *RUN4, "--p", 2, "--q", 2, "--lat", "24")
        self.refused("--speedup 1e[+]300: out of range; a host is from 1e-06 to 1e[+]06 times the model's reference",
                     *RUN4, "--p", 2, "--q", 2, "--speedup", "1e300")
        self.refused("out of range; a link's bandwidth is between 8bps and 8000Tbps",
                     *RUN4, "--p", 2, "--q", 2, "--bw=1e400Gbps")
        self.refused("out of range; a link's latency is between 0s and 1s", *RUN4, "--p", 2, "--q", 2, "--lat=1e400s")
        for t in ("0", "-1", "nan", "inf"):
            self.refused(f"--timeout {t}: must be a number of seconds > 0", *RUN4, "--p", 2, "--q", 2, "--timeout", t)
        self.refused("--iprobe 0: must be a number of seconds > 0", *RUN4, "--p", 2, "--q", 2, "--iprobe", "0")
        # more than SIMBLAS_POLL_COST's bound: refused as simblas-hpl's option, not as 'different versions'
        self.refused(r"--iprobe 2: out of range; a failed poll costs at most 1 s", *RUN4, "--p", 2, "--q", 2,
                     "--iprobe", "2")
        # what only model mode changes is refused in passthrough, not ignored
        self.refused("--hpl-code free leaves HPL's code between the modelled calls uncharged; passthrough computes",
                     *RUN4, "--p", 2, "--q", 2, "--mode", "passthrough", "--hpl-code", "free")
        self.refused("--waits block is HPL patch 12 through libsimblas in model mode; passthrough runs plain HPL",
                     *RUN4, "--p", 2, "--q", 2, "--mode", "passthrough", "--waits", "block")
        self.refused(r"--seed 18446744073709551616: must be a whole number from 0 to 18446744073709551615 "
                     r"\(SIMBLAS_SEED is 64 bits\)", *RUN4, "--p", 2, "--q", 2, "--seed", "18446744073709551616")

    def one_line(self, pattern, *args, env=None):
        status, _, err = self.cli(*RUN4, "--p", 2, "--q", 2, "--xhpl", self.xhpl, *args, env=env)
        self.assertEqual((status, len(err.rstrip("\n").split("\n"))), (2, 1), err)
        self.assertRegex(err, pattern)
        self.assertFalse(os.path.exists(self.called), "smpirun was called")

    def test_model_libsimblas_refuses(self):
        """A model that libsimblas's parser refuses is one line, status 2,
        before anything runs (it stopped inside the simulation, status 1)."""
        with open(self.env["SIMBLAS_MODEL"]) as f:
            good = f.read()
        for bad, said in ((good.replace("mnk=1.6e-11", "mnk=abc"), r":7: coefficient 'abc' of dgemm.mnk is not a number"),
                          (good.replace("end\n", ""), r": truncated model file: no 'end' line"),
                          (good.replace("dgemm ", "dgemmx"), r":7: .*dgemmx")):
            with self.subTest(said=said):
                path = self.path("bad.model")
                with open(path, "w") as f:
                    f.write(bad)
                self.one_line(r"^simblas-hpl: libsimblas would stop the run \(checked before it\): .*bad\.model" + said,
                              "--model", path)
        status, _, err = self.cli(*RUN4, "--p", 2, "--q", 2, "--xhpl", self.xhpl, "--dry-run", "--keep",
                                  self.path("ok"))  # the fixture's model loads
        self.assertEqual(status, 0, err)

    def test_no_pivot_defer(self):
        """--no-pivot-defer: SIMBLAS_PIVOT_DEFER=0 as an option (the shell's
        variable is refused), with thinned exchanges only."""
        self.one_line("without --pivot-every N \\(N > 1\\) no exchange is thinned", "--no-pivot-defer")
        status, out, err = self.cli(*RUN4, "--p", 2, "--q", 2, "--xhpl", self.xhpl, "--dry-run", "--keep",
                                    self.path("d"), "--pivot-every", 16, "--no-pivot-defer")
        self.assertEqual(status, 0, err)
        self.assertIn(" SIMBLAS_PIVOT_DEFER=0 ", out)
        self.one_line("SIMBLAS_PIVOT_DEFER=0 is set in the environment: .*give --no-pivot-defer \\(0\\) instead",
                      "--pivot-every", 16, env={"SIMBLAS_PIVOT_DEFER": "0"})

    def test_keep_and_outputs(self):
        """--keep DIR that cannot be made, or that holds files a run would
        replace; --json and --csv on one file; --dry-run with a result file."""
        afile = self.path("afile")
        open(afile, "w").close()
        self.one_line(f"^simblas-hpl: --keep {afile}/sub cannot be made: {afile} is not a directory",
                      "--keep", f"{afile}/sub")
        self.one_line(f"--keep {afile}/sub/deeper cannot be made: {afile} is not a directory",
                      "--iterations", 9, "--samples", 4, "--engine", "local", "--keep", f"{afile}/sub/deeper")
        self.one_line("contains a comma, at which SimGrid splits its options", "--keep", self.path("a,b"))
        mine = self.path("mine")
        os.mkdir(mine)
        for name in ("platform.xml", "run.sh"):
            with open(os.path.join(mine, name), "w") as f:
                f.write("the user's own\n")
        self.one_line(f"--keep {mine} holds platform.xml, run.sh, which the run writes and no run wrote", "--keep", mine)
        with open(os.path.join(mine, "platform.xml")) as f:
            self.assertEqual(f.read(), "the user's own\n")
        # a run's directory is a run's to rewrite: a dry run in it, then another
        run_dir = self.path("rd")
        for _ in range(2):
            status, _, err = self.cli(*RUN4, "--p", 2, "--q", 2, "--xhpl", self.xhpl, "--dry-run", "--keep", run_dir)
            self.assertEqual(status, 0, err)
        # another program's table: the row appended under its header was ',' (a
        # result lost, status 0); a table of some of the run's columns is kept
        theirs = self.path("other.csv")
        with open(theirs, "w") as f:
            f.write("name,score\nalice,3\n")
        self.one_line(f"--csv {theirs}: its header \\(name,score\\) has none of the run's columns", "--csv", theirs)
        with open(theirs) as f:
            self.assertEqual(f.read(), "name,score\nalice,3\n")
        same = self.path("same.out")
        self.one_line(f"--json and --csv both name {same}", "--json", same, "--csv", same)
        self.one_line("--dry-run simulates nothing, so there is no result for --json", "--dry-run", "--json",
                      self.path("x.json"))

    def test_spread(self):
        """run --engine: the passes of one sampled run as jobs of their own."""
        run = (*RUN4, "--p", 2, "--q", 2)
        self.refused("give --iterations K --samples S", *run, "--engine", "local")
        self.refused("give --iterations K --samples S", *run, "--iterations", 9, "--engine", "local")
        self.refused("-j and --slurm-opt go with --engine local[|]slurm", *run, "-j", 2)
        self.refused("-j 0: must be >= 1", *run, "--iterations", 9, "--samples", 4, "--engine", "local", "-j", 0)
        self.refused("-j 2: goes with --engine local", *run, "--iterations", 9, "--samples", 4, "--engine", "slurm",
                     "-j", 2)
        self.refused("--slurm-opt goes with --engine slurm", *run, "--iterations", 9, "--samples", 4,
                     "--engine", "local", "--slurm-opt=-p big")
        afile = self.path("afile")
        open(afile, "w").close()
        status, _, err = self.cli(*run, "--iterations", 9, "--samples", 4, "--engine", "local", "--xhpl", self.xhpl,
                                  "--keep", afile)
        self.assertEqual((status, err), (2, f"simblas-hpl: --keep {afile} is not a directory: give a directory for "
                                            "the passes (made if need be)\n"))
        self.refused("--dry-run shows one simulation's command: drop --engine", *run, "--iterations", 9,
                     "--samples", 4, "--engine", "local", "--dry-run")
        # a node with an accelerator: every pass failed after its run (KeyError: 'extrapolated_hpl_time_s')
        node = self.path("acc.toml")
        with open(node, "w") as f:
            f.write('schema = "simblas-node/0.1"\n[cpu]\ncores = 1\nspeed_relative = 1\nbandwidth_relative = 1\n'
                    '[[accelerator]]\ncount = 1\ndgemm = { model = "linear", term = "MNK", alpha = 1e-12 }\n'
                    'link = { bandwidth_gbs = 10, latency_us = 5 }\n'
                    '[accelerator.offload]\npolicy = "always"\nhost_share = 0\n')
        self.refused("--engine local with --node's accelerators: their busy time and energy are not combined over "
                     "the passes; drop --engine", *run, "--iterations", 9, "--samples", 4, "--engine", "local",
                     "--node", node, "--xhpl", self.xhpl)
        # 63 panel iterations: 4 passes of 16 cover them (a full run in 4 jobs); 17 overlap
        self.refused(re.escape("--iterations 18 x --samples 4 exceeds the run's 63 panel iterations (N/NB)") +
                     ".*17 x 4 covers the loop", *run, "--iterations", 18, "--samples", 4, "--engine", "local",
                     "--xhpl", self.xhpl)

    def test_passes_beyond_the_loop(self):
        """More passes than panel iterations left strata without one: the
        run was simulated, then failed saying to rebuild HPL (status 1);
        one pass of the whole loop was every iteration simulated, and its
        extrapolation reported 3-6% below them."""
        run = ("run", "--n", 1000, "--nb", 128, "--p", 2, "--q", 2, "--xhpl", self.xhpl)
        self.refused(re.escape("--samples 16 exceeds the run's 8 panel iterations (N/NB): give --samples 8 or "
                               "fewer"), *run, "--iterations", 2, "--samples", 16)
        self.refused(re.escape("--samples 9 exceeds the run's 8 panel iterations"), *run, "--iterations", 2,
                     "--samples", 9, "--engine", "local")
        # 16 iterations, 16 passes at depth 1: the last holds its priming iteration only (status 1, after the
        # run, "rebuild HPL"; with --engine its job failed saying another BLAS shadowed libsimblas)
        self.refused(re.escape("--samples 16 on 16 panel iterations: the last pass would hold only its look-ahead's "
                               "priming iteration(s) (depth 1) and count none; give --samples 15 or fewer"),
                     "run", "--n", 2000, "--nb", 128, "--p", 2, "--q", 2, "--xhpl", self.xhpl, "--iterations", 2,
                     "--samples", 16)
        # depth 0, one iteration a pass: the one entered at once, 14.242 Gflops in one process, 14.5717 in jobs
        self.refused(re.escape("--iterations 1 --samples 4 at look-ahead depth 0: a pass from the middle of the "
                               "loop would count only its first iteration"), "run", "--n", 3000, "--nb", 128, "--p",
                     4, "--q", 1, "--xhpl", self.xhpl, "--iterations", 1, "--samples", 4)
        for samples in ((), ("--samples", 1)):
            self.refused(re.escape("--iterations 8 is the whole run's 8 panel iterations (N/NB): run it in full "
                                   "(drop --iterations)"), *run, "--iterations", 8, *samples)
        self.assertFalse(os.path.exists(self.called), "smpirun was called")

    def test_short_passes(self):
        """Sampled passes shorter than doc/scale.md's rule (K = 2 lcm(P,Q) + 1)
        are warned about, naming the rule's K and its cost; passes that
        follow it, or a rule only a full run would meet, are not."""
        run = ("--n", 150000, "--nb", 256, "--p", 32, "--q", 32, "--cores-per-node", 16)
        status, _, err, _ = self.dry(*run, "--iterations", 9, "--samples", 4, keep=self.path("k9"))
        self.assertEqual(status, 0, err)
        self.assertIn("simblas-hpl: warning: --iterations 9 on 32x32: passes shorter than 2 lcm(P,Q) + 1 = 65 "
                      "iterations see part of the panel owners' cycle", err)
        self.assertIn("give --iterations 65 (260 of the 586 iterations) or run in full", err)
        status, _, err, _ = self.dry(*run, "--iterations", 65, "--samples", 4, keep=self.path("k65"))
        self.assertEqual(status, 0, err)
        self.assertNotIn("passes shorter", err)
        # 8 x 12: the rule is 49 iterations, 4 passes of it more than the 157 of N=40,000: only a full run meets it
        status, _, err, _ = self.dry("--n", 40000, "--nb", 256, "--p", 8, "--q", 12, "--iterations", 9,
                                     "--samples", 4, keep=self.path("far"))
        self.assertEqual(status, 0, err)
        self.assertNotIn("passes shorter", err)
        self.assertIn("2 lcm(P,Q) + 1 = 49 ", plan.short_passes(9, 3, 8, 12, 157, 1))
        self.assertIsNone(plan.short_passes(9, 4, 4, 4, 63, 1))

    def test_malloc(self):
        self.refused("no-such-libjemalloc.so.2 not found; install it with apt-get install libjemalloc2",
                     *RUN4, "--p", 2, "--q", 2, "--malloc", "jemalloc",
                     env={"SIMBLAS_JEMALLOC": self.path("no-such-libjemalloc.so.2")})
        # a sanitizer runtime preloaded (the sanitizer build) and jemalloc's would clash
        self.refused("LD_PRELOAD already loads libasan", *RUN4, "--p", 2, "--q", 2, "--malloc", "jemalloc",
                     env={"LD_PRELOAD": "/usr/lib/x86_64-linux-gnu/libasan.so.8"})
        self.refused("passthrough runs keep the system's malloc",
                     *RUN4, "--p", 2, "--q", 2, "--mode", "passthrough", "--malloc", "jemalloc")

    def test_build(self):
        def one_line(status, out, err):
            self.assertEqual((status, err.count("\n")), (2, 1), err)
            return err
        os.mkdir(self.path("nopatches"))
        err = one_line(*self.cli("build", "--hpl-tarball", "/dev/null", env={"SIMBLAS_PATCHDIR": self.path("nopatches")}))
        self.assertIn("patch series is missing", err)
        err = one_line(*self.cli("build", "--hpl-tarball", "/etc/passwd"))
        self.assertRegex(err, "not a readable tar archive.*hpl-2.3.tar.gz")



class CheckedOnce(Sandbox):
    """A check two verbs share is one function that both call: --engine, -j
    and --slurm-opt are spread.check_engine_args's, for run and tune."""

    def test_engine_args(self):
        from simblas_hpl import spread
        from simblas_hpl.errors import CliError
        spread.check_engine_args("slurm", 4, None, jobs_with=("local", "slurm"))  # tune: -j points per batch
        for args, msg in (((None, 2, None), "-j and --slurm-opt go with --engine local|slurm"),
                          (("local", 0, None), "-j 0: must be >= 1"),
                          (("slurm", 4, None), "-j 4: goes with --engine local"),
                          (("local", None, ["-p big"]), "--slurm-opt goes with --engine slurm")):
            with self.subTest(args=args), self.assertRaises(CliError) as cm:
                spread.check_engine_args(*args)
            self.assertEqual((str(cm.exception), cm.exception.status), (msg, 2))

    def test_both_verbs_call_it(self):
        from simblas_hpl.errors import CliError
        for verb in ((*RUN4, "--p", 2, "--q", 2, "--iterations", 9, "--samples", 4, "--engine", "local",
                      "-j", 2),
                     ("tune", "--nodes", 4, "--n", 4000, "--dir", self.path("t"), "-j", 2)):
            with self.subTest(verb=verb[0]), \
                    mock.patch("simblas_hpl.spread.check_engine_args", side_effect=CliError("checked")) as check:
                status, _, err = self.cli(*verb)
                self.assertEqual((status, err), (2, "simblas-hpl: checked\n"))
                self.assertEqual(check.call_args.args[:3], ("local", 2, None))


if __name__ == "__main__":
    unittest.main()
