"""Running a plan, with a fake smpirun in the sandbox: a finished result is
never lost (issue 21, item 3: outputs checked before the run, printed
before they are written, kept when a write fails), and a failure once the
simulator has started stops it and cleans up (item 4).  Plans and errors
pickle, for process pools."""

import json
import os
import pickle
import re
import resource
import tempfile
import time
import unittest
from unittest import mock

from support import Sandbox
from simblas_hpl import launch, monitor
from simblas_hpl.errors import CliError
from simblas_hpl.plan import RunOptions, make_plan

RESULT = "WR11C2R4        8000   128     2     2               1.91              1.786e+02"
RUN = ("run", "--n", 8000, "--nb", 128, "--p", 2, "--q", 2)


class Launch(Sandbox):
    def setUp(self):
        super().setUp()
        self.tmp = self.path("tmp")  # where the run directories go without --keep
        os.mkdir(self.tmp)
        p = mock.patch.object(tempfile, "tempdir", self.tmp)
        p.start()
        self.addCleanup(p.stop)

    def smpirun(self, body):
        with open(self.env["SMPIRUN"], "w") as f:
            f.write(f"#!/bin/sh\ntouch {self.called}\n{body}\n")

    def finishes(self, before=""):
        """A simulation that prints HPL's result line and its simulated time."""
        self.smpirun(f"{before}\necho '{RESULT}'\necho 'Simulated time: 2.05436 seconds.' >&2")

    def run_cli(self, *args, **kw):
        return self.cli(*RUN, "--xhpl", self.xhpl, *args, **kw)

    def test_outputs_checked_before_the_run(self):
        self.finishes()
        os.mkdir(self.path("adir"))
        for opt, path, msg in (("--json", "/proc/x.json", "cannot create a file in /proc"),
                               ("--json", self.path("missing", "r.json"), "its directory .*missing does not exist; "
                                                                          "create it \\(mkdir -p"),
                               ("--csv", self.path("adir"), "is a directory: give a file name")):
            with self.subTest(opt=opt, path=path):
                status, out, err = self.run_cli(opt, path, "--keep", self.path("k"))
                self.assertEqual((status, err.count("\n")), (2, 1), err)
                self.assertRegex(err, f"{opt} {re.escape(path)}.*{msg}")
                self.assertFalse(os.path.exists(self.called), "smpirun was called")
                self.assertFalse(os.path.exists(self.path("k")))

    def test_a_result_that_cannot_be_written_is_kept(self):
        out_dir = self.path("out")
        os.mkdir(out_dir)
        self.finishes(before=f"rm -rf {out_dir}")  # gone by the end of the run
        status, out, err = self.run_cli("--json", os.path.join(out_dir, "r.json"))
        self.assertEqual(status, 1, err)
        lines = out.splitlines()
        self.assertEqual(lines[0], RESULT)  # printed all the same
        printed = json.loads("\n".join(lines[1:]))
        m = re.search(r"could not write --json \S+r\.json \(No such file or directory\): the result, printed above, "
                      r"is kept in (\S+/summary\.json)$", err.strip())
        self.assertTrue(m, err)
        with open(m.group(1)) as f:
            self.assertEqual(json.load(f), printed)
        self.assertEqual(os.path.dirname(m.group(1)), os.path.join(self.tmp, os.listdir(self.tmp)[0]))
        self.assertEqual(printed["gflops"], 178.6)

    def test_written_then_cleaned(self):
        self.finishes()
        j, c = self.path("r.json"), self.path("runs.csv")
        status, out, err = self.run_cli("--json", j, "--csv", c)
        self.assertEqual(status, 0, err)
        self.assertEqual(out.splitlines()[0], RESULT)
        with open(j) as f:
            self.assertEqual(json.load(f), json.loads(out.split("\n", 1)[1]))
        with open(c) as f:
            self.assertEqual(len(f.read().splitlines()), 2)
        self.assertEqual(os.listdir(self.tmp), [])  # the temporary run directory is gone

    def test_a_thread_that_cannot_start_stops_the_run_before_it_starts(self):
        self.finishes()
        with mock.patch.object(monitor.PssSampler, "start", side_effect=RuntimeError("can't start new thread")):
            status, out, err = self.run_cli()
        self.assertEqual((status, err.count("\n")), (2, 1), err)
        self.assertRegex(err, r"cannot start a thread to watch the simulation \(can't start new thread\).*"
                              r"sysctl -w vm.max_map_count=")
        self.assertFalse(os.path.exists(self.called), "smpirun was called")
        self.assertEqual(os.listdir(self.tmp), [])

    def test_a_failure_after_the_start_stops_the_simulator(self):
        pidfile = self.path("pid")
        self.smpirun(f"echo $$ > {pidfile}.tmp && mv {pidfile}.tmp {pidfile}\nexec sleep 60")

        def fails(pid):  # once the simulator runs
            for _ in range(500):
                if os.path.exists(pidfile):
                    break
                time.sleep(0.01)
            raise RuntimeError("the sampler broke")
        t0 = time.monotonic()
        with mock.patch.object(monitor.PssSampler, "attach", side_effect=fails):
            status, out, err = self.run_cli()
        self.assertLess(time.monotonic() - t0, 30)
        self.assertEqual(status, 1, err)
        self.assertIn("failed after the simulator started (RuntimeError: the sampler broke): the simulation was "
                      "stopped", err)
        with open(pidfile) as f:
            pid = int(f.read())
        self.assertFalse(os.path.exists(f"/proc/{pid}"), "the simulator is still running")
        self.assertEqual(os.listdir(self.tmp), [])  # and its directory is gone


SMPI_OOM = ("[node-0:0:(1) 0.004933] ./src/smpi/internals/smpi_shared.cpp:183: [root/CRITICAL] Failed to allocate "
            "128MiB of memory. Run \"sysctl vm.overcommit_memory=1\" as root to allow big allocations.")


class Failed(Launch):
    """A simulation that fails: what is shown of it (in passthrough mode,
    which preloads nothing: the sandbox's empty libraries would add the
    loader's complaints to stderr)."""

    def run_cli(self, *args, **kw):
        return super().run_cli("--mode", "passthrough", *args, **kw)

    def fails_as_under_ulimit(self):
        # SMPI's own message, then 15 lines of backtrace (N=20000 8x8 under ulimit -v 900000)
        trace = "\n".join(f"  ->  {i}# frame {i}" for i in range(14))
        with open(self.path("err.txt"), "w") as f:
            f.write(f"{SMPI_OOM}\n\nBacktrace (displayed in actor 0):\n{trace}\n")
        self.smpirun(f"cat {self.path('err.txt')} >&2\nexit 134")

    def test_the_first_error_line_is_kept(self):
        self.fails_as_under_ulimit()
        with mock.patch("resource.getrlimit", return_value=(resource.RLIM_INFINITY, resource.RLIM_INFINITY)):
            status, out, err = self.run_cli("--keep", self.path("k"))
        self.assertEqual(status, 1, err)
        self.assertIn("smpirun exited with status 134.", err)
        self.assertIn(f"--- first error on stderr ---\n{SMPI_OOM}\n--- last lines of stderr ---\n", err)
        self.assertIn("  ->  13# frame 13", err)
        self.assertNotIn("ulimit", err)  # no limit: no word of it
        self.assertIn(f"(run files kept in {self.path('k')}", err)

    def test_the_address_space_limit_is_named(self):
        self.fails_as_under_ulimit()
        with mock.patch("resource.getrlimit", return_value=(900000 << 10, resource.RLIM_INFINITY)):
            status, out, err = self.run_cli()
        self.assertEqual(status, 1, err)
        self.assertIn("The address space is limited (ulimit -v 900000, in KiB)", err)
        self.assertIn("raise the limit with: ulimit -v unlimited", err)

    def test_an_error_in_the_tail_is_not_repeated(self):
        self.smpirun("echo 'simblas: the model file is broken' >&2\nexit 1")
        status, out, err = self.run_cli()
        self.assertEqual(status, 1, err)
        self.assertIn("--- last lines of stderr ---\nsimblas: the model file is broken\n", err)
        self.assertNotIn("first error", err)


class Environment(Launch):
    """What the simulator gets of the caller's environment: libsimblas's
    settings only as the run says them (the JSON's), the rest untouched."""

    def simulator_env(self, *args, env=None):
        dump = self.path("env.txt")
        self.finishes(f"env > {dump}")
        status, out, err = self.run_cli("--json", self.path("r.json"), *args, env=env)
        self.assertEqual(status, 0, err)
        with open(dump) as f:
            got = dict(line.split("=", 1) for line in f.read().splitlines() if "=" in line)
        with open(self.path("r.json")) as f:
            return got, json.load(f)

    def test_shared_rows_reach_libsimblas_as_recorded(self):
        # SIMBLAS_PROBE: simblas-hpl reads it (the default of --probe) and records it
        got, r = self.simulator_env(env={"SIMBLAS_PROBE": "lagged", "SB_OTHER": "kept"})
        self.assertEqual((got.get("SIMBLAS_PROBE"), r["probe"], got.get("SB_OTHER")), ("lagged", "lagged", "kept"))
        # --probe immediate wins, and the shell's lagged no longer reaches the program
        got, r = self.simulator_env("--probe", "immediate", env={"SIMBLAS_PROBE": "lagged"})
        self.assertEqual((got.get("SIMBLAS_PROBE"), r["probe"]), (None, "immediate"))
        # SIMBLAS_CODE_CLOCK=0: SMPI times HPL's code, and libsimblas is not told otherwise
        got, r = self.simulator_env(env={"SIMBLAS_CODE_CLOCK": "0"})
        self.assertEqual((got.get("SIMBLAS_CODE_CLOCK"), r["hpl_code_timer"]), (None, "smpi"))
        # the passthrough backend passes as given
        got, _ = self.simulator_env(env={"SIMBLAS_BACKEND": "libopenblas.so.0"})
        self.assertEqual(got.get("SIMBLAS_BACKEND"), "libopenblas.so.0")


    def test_poll_cost_recorded(self):
        # --iprobe changes the simulated time (58.98 against 59.60 Gflops at N=4000 2x2): the JSON says it
        for args, cost in (((), 1e-7), (("--iprobe", "1e-4"), 1e-4), (("--iprobe", "1e-4", "--mode", "passthrough"),
                                                                     1e-4)):
            with self.subTest(args=args):
                self.assertEqual(self.simulator_env(*args)[1]["iprobe_s"], cost)


class Reuse(Sandbox):
    """The launch as a study would call it: a plan made directly, a result."""

    def test_plan_and_simulate(self):
        with open(self.env["SMPIRUN"], "w") as f:
            f.write(f"#!/bin/sh\necho '{RESULT}'\n")
        with mock.patch.dict(os.environ, self.env, clear=True):
            plan = make_plan(RunOptions(n=8000, p=2, q=2, hpl_code="free", xhpl=self.xhpl))
        copy = pickle.loads(pickle.dumps(plan))
        self.assertEqual(copy, plan)
        work = self.path("w")
        os.mkdir(work)
        with mock.patch.dict(os.environ, self.env, clear=True):
            res = launch.simulate(copy, work, quiet=True)
        self.assertEqual((res.result_line, res.summary["gflops"], res.summary["hpl_code"], res.workdir),
                         (RESULT, 178.6, "free", work))
        self.assertTrue(os.path.isfile(os.path.join(work, "run.sh")))  # the directory is the caller's

    def test_errors_pickle(self):
        e = pickle.loads(pickle.dumps(CliError("it failed", 1, kept="/some/dir")))
        self.assertEqual((str(e), e.status, e.kept), ("it failed", 1, "/some/dir"))


if __name__ == "__main__":
    unittest.main()
