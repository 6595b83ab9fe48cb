"""simblas-hpl refine (issue 23): its refusals before any run (one line,
status 2, the model untouched), the default runs, the model put in place
atomically with the one it replaces kept as FILE.calibrated, and the
refusal to install a model refined on a busy machine; with the real runs
and the calibrator replaced by stand-ins (test/hpl-refine.sh runs the
real ones)."""

import glob
import json
import math
import os
import re
import shutil
from unittest import mock

from support import Sandbox
from simblas_hpl import locations, model, realrun, settings
from simblas_hpl import refine as rf
from simblas_hpl.errors import CliError
from simblas_hpl.verbs import refine

PATCHES = ["01-simblas-hooks.patch", refine.KERNEL_PATCH]
BASE = ("simblas-model 1\nmeta mode quick\nreference-speed 4e10\nset node\ndgemm mnk=1.6e-11 1=2e-07\n"
        "hpl_dlaswp00N mn=8.3e-9\nend\n")


def fake_calibrator(path, log):
    """--reference-speed [MODEL]: 42 Gflop/s at one shape; --summary MODEL:
    refuses a model with a line CORRUPT; --from-trace --base B -o O TRACES:
    O is B with a marked dlaswp line, and it says a line per routine as the
    calibrator does; its arguments logged."""
    with open(path, "w") as f:
        f.write(f"""#!/bin/sh
echo "$@" >> {log}
if [ "$1" = --reference-speed ]; then
  echo '{{"reference_speed": 4.2e10, "said": "measured: dgemm m=3652 n=3652 k=256 in HPL'"'"'s layout, median of 3", '\
'"cores": 2, "reps": 3, "stolen_share": 0.001, "wall_s": 2}}'
  exit 0
fi
if [ "$1" = --summary ]; then
  grep -q CORRUPT "$2" && {{ echo "simblas-calibrate: --summary $2:3: unknown term 'xx' for dgemm" >&2; exit 2; }}
  exit 0
fi
base=$3 out=$5
shift 5
if [ "$1" = --time-scale ] && [ "${{2%%.*}}" -ge 4 ]; then
  echo "simblas-calibrate: --time-scale $2: outside the calibrator's bounds (this stand-in: 4 or more)" >&2; exit 2
fi
sed 's/^hpl_dlaswp00N .*/hpl_dlaswp00N mn=1.5e-8/' "$base" > "$out"
echo "simblas-calibrate: 10 calls of 2 shapes in $# trace file(s); refining $base" >&2
echo "  hpl_dlaswp00N       40 calls,     1 shapes: too few shapes to fit; the base model's line scaled by 1.807" >&2
echo "simblas-calibrate: wrote $out: 1 routine(s) refitted or scaled on the traced calls, the rest as in $base" >&2
""")
    os.chmod(path, 0o755)
    return path


class RefineBase(Sandbox):
    def setUp(self):
        super().setUp()
        self.build_dir = os.path.join(self.env["XDG_DATA_HOME"], "simblas", "hpl", "b1")
        os.makedirs(self.build_dir)
        self.write_build(PATCHES)
        with open(os.path.join(self.env["XDG_DATA_HOME"], "simblas", "hpl", "default"), "w") as f:
            f.write("b1\n")
        self.model = self.path("here.model")
        with open(self.model, "w") as f:
            f.write(BASE)
        self.log = self.path("cal.log")
        self.env["SIMBLAS_CALIBRATE"] = fake_calibrator(self.path("cal"), self.log)
        self.runs = []

    def write_build(self, patches, modes=("model", "passthrough", "mpi"), libdir=None):
        names = {"model": "xhpl-model", "passthrough": "xhpl-real", "mpi": "xhpl-mpi"}
        names = {m: names[m] for m in modes}
        for name in names.values():
            with open(os.path.join(self.build_dir, name), "wb") as f:
                f.write(b"fake xhpl")
        with open(os.path.join(self.build_dir, "manifest.json"), "w") as f:
            json.dump({"build_id": "b1", "source": "/src", "built": "2026", "binaries": names, "patches": patches,
                       "simblas_libdir": libdir}, f)

    def fake_run(self, xhpl, n, nb, p, q, opts, workdir, timeout=None, mpirun=None, wrapper=None):
        """A real run: each rank's trace, as libsimblas writes it in trace mode."""
        script = open(wrapper).read()
        self.runs.append((n, p, q, script))
        self.assertIn("SIMBLAS_MODE=trace", script)
        self.assertIn(f"SIMBLAS_TRACE={workdir}/trace.$r.csv", script)
        # a trailing update's dgemm: 10% slower than the model with every core busy, as the model alone;
        # the row swaps twice as slow as the model busy, as the model alone
        big = "0.02" if p * q == 1 else "0.022"
        swap = "1e-4" if p * q == 1 else "2e-4"
        for r in range(p * q):
            with open(os.path.join(workdir, f"trace.{r}.csv"), "w") as f:
                f.write("routine,m,n,k,predicted_s,measured_s,rank,cblas,ld\n"
                        f"dgemm,128,128,128,1e-4,1.1e-4,{r},0,0\nhpl_dlaswp00N,128,128,0,1e-4,{swap},{r},0,4000\n"
                        f"dgemm,2000,2000,128,0.02,{big},{r},0,4000\n")
        return {"gflops": 50.0, "hpl_time_s": 1.0, "wall_s": 1.5}

    def refine(self, *args, share=0.01, cores=2, env=None, unset=()):
        watch = mock.Mock()
        watch.return_value.stop.return_value = share
        with mock.patch("simblas_hpl.realrun.run_real", self.fake_run), \
                mock.patch("simblas_hpl.realrun.mpirun_path", return_value="/bin/true"), \
                mock.patch("simblas_hpl.realrun.machine_cores", return_value=cores), \
                mock.patch("simblas_hpl.validate_machine.LoadWatch", watch):
            return self.cli("refine", *args, env=env, unset=unset)


class Refusals(RefineBase):
    """Bad input: one line, status 2, no run, the model as it was."""

    def refused(self, args, pattern, env=None, cores=2, unset=()):
        with mock.patch("simblas_hpl.realrun.run_real", self.fake_run), \
                mock.patch("simblas_hpl.realrun.machine_cores", return_value=cores):
            status, out, err = self.cli("refine", *args, env=env, unset=unset)
        self.assertEqual(status, 2, err)
        self.assertEqual(len(err.strip().splitlines()), 1, err)
        self.assertRegex(err, pattern)
        self.assertEqual(self.runs, [])
        self.assertEqual(self.read(self.model), BASE)
        self.assertFalse(os.path.exists(self.model + ".calibrated"))

    def test_model(self):
        self.refused(["--model", self.path("none.model")], r"none\.model does not exist")
        with open(self.path("nominal.model"), "w") as f:
            f.write("simblas-model 1\nmeta source nominal\nreference-speed 1e10\nend\n")
        self.refused(["--model", self.path("nominal.model")], r"the nominal model .*run `make calibrate`")
        with open(self.path("hand.model"), "w") as f:
            f.write("simblas-model 1\nreference-speed 1e10\nend\n")
        self.refused(["--model", self.path("hand.model")], r"not written by simblas-calibrate \(it has no 'meta mode'")
        with open(self.path("text.model"), "w") as f:
            f.write("hello\n")
        self.refused(["--model", self.path("text.model")], r"not a SimBLAS model file")
        with open(self.path("corrupt.model"), "w") as f:
            f.write(BASE.replace("end\n", "CORRUPT\nend\n"))
        self.refused(["--model", self.path("corrupt.model"), "-o", self.model],
                     r"corrupt\.model cannot be read as a model: .*:3: unknown term 'xx' for dgemm")
        with open(self.path("corrupt.model.calibrated"), "w") as f:
            f.write(BASE)
        self.refused(["--model", self.path("corrupt.model")],
                     r"calibrate again \(make calibrate\), or restore the model a refine kept: cp .*corrupt\.model\."
                     r"calibrated .*corrupt\.model$")
        self.refused([], r"no model to refine: give --model FILE", unset=("SIMBLAS_MODEL", "SIMBLAS_DATADIR"))

    def test_configs(self):
        self.refused(["--model", self.model, "--config", "12000"], r"expected N:PxQ")
        self.refused(["--model", self.model, "--config", "4000:2x2"],
                     r"N=4000 2x2: 4 ranks, and this machine has 2 core\(s\)")
        self.refused(["--model", self.model, "--config", "4000:1x2", "--config", "4000:1x2"], r"given twice")
        self.refused(["--model", self.model, "--n", "4000", "--config", "4000:1x2"], r"give one or the other")
        with mock.patch("simblas_hpl.memory.meminfo_available", return_value=4 << 30):
            self.refused(["--model", self.model, "--n", "100000"],
                         r"N=100000 1x2: a real run of N=100000 needs about 93\.1 GiB.*give N <= 1\d{4}")
            self.refused(["--model", self.model, "--config", "50000:2x1"], r"give N <= ")

    def test_tools(self):
        self.write_build(PATCHES, modes=("model", "passthrough"))
        self.refused(["--model", self.model], r"no xhpl-mpi .* run `simblas-hpl build --build-id b1 --mode mpi`")
        self.write_build(PATCHES[:1])
        self.refused(["--model", self.model],
                     r"xhpl-mpi was built before hpl-patches/17-traced-memory-kernels\.patch \(its memory kernels "
                     r"are not traced\): run `simblas-hpl build --build-id b1 --force`")
        self.write_build(PATCHES)
        os.makedirs(self.path("bin"))
        self.refused(["--model", self.model], r"`mpirun` not found", env={"PATH": self.path("bin")},
                     unset=("SIMBLAS_MPIRUN",))
        with mock.patch("simblas_hpl.locations.installed", return_value=None):  # an in-tree build's configured.py
            self.refused(["--model", self.model], r"`simblas-calibrate` not found: it refits the model",
                         env={"PATH": self.path("bin")}, unset=("SIMBLAS_CALIBRATE",))
        self.refused(["--model", self.model, "-o", self.path("no", "dir", "x.model")], r"does not exist")
        with open(self.path("afile"), "w") as f:
            f.write("x")
        self.refused(["--model", self.model, "--keep", self.path("afile")], r"--keep .*afile is not a directory")
        self.refused(["--model", self.model, "--keep", self.path("afile", "sub")],
                     r"--keep .*afile/sub cannot be made: .*afile is not a directory")
        self.refused(["--model", self.model, "-o", self.path()], r"-o .* is a directory: give a file name "
                                                                  r"\(e\.g\. .*/refined\.model\)")
        self.refused(["--model", self.model, "--timeout", "-1"], r"^simblas-hpl: --timeout -1: must be a number")
        # the first did nothing (no speed measured: nothing to scale, none recorded), without a word
        self.refused(["--model", self.model, "--at-trace-speed", "--no-reference-speed"],
                     r"^simblas-hpl: --at-trace-speed keeps the traced times unscaled and records the reference speed "
                     r"measured around the runs, which --no-reference-speed does not measure: the times are unscaled "
                     r"already; drop one of them$")
        # the tools and the settings the ranks inherit: named, not blamed on the model nor met inside mpirun
        self.refused(["--model", self.model], r"^simblas-hpl: SIMBLAS_CALIBRATE=/nonexist: no such file; set it to "
                                              r"simblas-calibrate", env={"SIMBLAS_CALIBRATE": "/nonexist"})
        self.refused(["--model", self.model], r"^simblas-hpl: /bin/false --summary .* failed \(exit status 1\) and "
                                              r"said nothing: is it simblas-calibrate\?",
                     env={"SIMBLAS_CALIBRATE": "/bin/false"})
        self.refused(["--model", self.model], r"^simblas-hpl: libsimblas would stop the run \(checked before it\): "
                                              r"SIMBLAS_MODE=trace needs a real BLAS, but '/nonexist\.so' does not load",
                     env={"SIMBLAS_BACKEND": "/nonexist.so"})
        self.refused(["--model", self.model], r"^simblas-hpl: SIMBLAS_BACKEND_THREADS=0 is set in the environment",
                     env={"SIMBLAS_BACKEND_THREADS": "0"})


class Plan(RefineBase):
    def args(self, n=None, config=None):
        return mock.Mock(n=n, config=config)

    def test_default_runs(self):
        with mock.patch("simblas_hpl.memory.meminfo_available", return_value=20 << 30):
            self.assertEqual([c.label for c in refine.plan_configs(self.args(), 2)], ["N=10000 1x2", "N=10000 2x1"])
            self.assertEqual([c.label for c in refine.plan_configs(self.args(), 1)], ["N=10000 1x1"])
            self.assertEqual([c.label for c in refine.plan_configs(self.args(n=3000), 4)],
                             ["N=3000 1x4", "N=3000 4x1"])
        # a small machine: the default N shrinks to what its memory holds; an N given is refused instead
        with mock.patch("simblas_hpl.memory.meminfo_available", return_value=512 << 20):
            got = refine.plan_configs(self.args(), 2)
            self.assertEqual([c.n for c in got], [6000, 6000])
            self.assertLessEqual(8 * realrun.REAL_RUN_OVERHEAD * 6000 ** 2, 0.8 * (512 << 20))
            with self.assertRaisesRegex(CliError, "give N <= 6"):
                refine.plan_configs(self.args(n=10000), 2)

    def test_run_dir_name(self):
        from simblas_hpl import validate_configs
        self.assertEqual(rf.run_dir_name(validate_configs.parse_config("10000:1x2")), "N10000-1x2")
        self.assertEqual(rf.run_dir_name(validate_configs.parse_config("8000:2x1:swap=0,NB=256")),
                         "N8000-NB256-2x1-swap0")


class Install(RefineBase):
    """The model in place: atomically, the file replaced kept as .calibrated."""

    def write(self, name, text):
        with open(self.path(name), "w") as f:
            f.write(text)
        return self.path(name)

    def installed_datadir(self, name):
        """A data directory as make install fills it: the settings table there."""
        dd = self.path(name)
        os.makedirs(dd)
        shutil.copy(settings.table_path(), dd)
        return dd

    def test_replace_keeps_original(self):
        out = self.write("m.model", "calibrated\n")
        os.chmod(out, 0o640)
        said = rf.install(self.write("r1", "refined 1\n"), out)
        self.assertEqual((self.read(out), self.read(out + ".calibrated")), ("refined 1\n", "calibrated\n"))
        self.assertIn(f"kept as {out}.calibrated", said)
        self.assertEqual(os.stat(out).st_mode & 0o777, 0o640)
        # a second refine: the calibration stays in .calibrated, the first refinement is replaced
        said = rf.install(self.write("r2", "refined 2\n"), out)
        self.assertEqual((self.read(out), self.read(out + ".calibrated")), ("refined 2\n", "calibrated\n"))
        self.assertIn("kept by an earlier refine, left as it is", said)
        self.assertEqual(sorted(os.listdir(self.root)).count("m.model.new"), 0)

    def test_new_file(self):
        out = self.path("new.model")
        said = rf.install(self.write("r1", "refined\n"), out)
        self.assertEqual(self.read(out), "refined\n")
        self.assertFalse(os.path.exists(out + ".calibrated"))
        self.assertEqual(said, f"{out} written")

    def test_installed_default_kept_for_make_install(self):
        # the installed default.model: refined.model beside it too (make install's hook prefers it to
        # calibrated.model); any other file, or a default.model elsewhere: nothing more
        dd = self.installed_datadir("share")
        out = os.path.join(dd, "default.model")
        with open(out, "w") as f:
            f.write("calibrated\n")
        with mock.patch.dict(os.environ, {"SIMBLAS_DATADIR": dd}):
            said = rf.install(self.write("r1", "refined 1\n"), out)
            self.assertEqual(self.read(os.path.join(dd, "refined.model")), "refined 1\n")
            self.assertIn(f"also as {dd}/refined.model, which make install puts back", said)
            other = os.path.join(dd, "mine.model")
            rf.install(self.write("r2", "refined 2\n"), other)
            elsewhere = self.path("default.model")
            rf.install(self.write("r3", "refined 3\n"), elsewhere)
        self.assertEqual(self.read(os.path.join(dd, "refined.model")), "refined 1\n")
        self.assertEqual(sorted(os.listdir(dd)), ["default.model", "default.model.calibrated", "mine.model",
                                                  "refined.model", "settings.json"])
        with mock.patch.dict(os.environ, {"SIMBLAS_DATADIR": self.installed_datadir("elsewhere")}):
            self.assertIsNone(locations.installed_copy(out))

    def test_installed_copy_that_cannot_be_written(self):
        """out in place, its copy for make install not: said, with the
        remedy (was a traceback after out was replaced)."""
        dd = self.installed_datadir("share")
        out = os.path.join(dd, "default.model")
        with open(out, "w") as f:
            f.write("calibrated\n")
        copy = rf.copy_atomic

        def full(src, path):
            if path.endswith("refined.model"):
                raise OSError(28, "No space left on device")
            copy(src, path)
        with mock.patch.dict(os.environ, {"SIMBLAS_DATADIR": dd}), mock.patch("simblas_hpl.refine.copy_atomic", full):
            said = rf.install(self.write("r1", "refined 1\n"), out)
        self.assertEqual(self.read(out), "refined 1\n")
        self.assertTrue(said.endswith(f"; not also as {dd}/refined.model (No space left on device), which make "
                                      f"install would have put back as the default: cp {out} {dd}/refined.model"), said)

    def test_failure_leaves_out(self):
        out = self.write("m.model", "calibrated\n")
        with self.assertRaises(OSError):
            rf.install(self.path("missing-refined"), out)
        self.assertEqual(self.read(out), "calibrated\n")
        self.assertFalse(os.path.exists(out + ".new"))


class Traces(Sandbox):
    """HPL's traces read (refine.py), on small made-up ones: the large
    dgemm calls' measured over predicted time, the memory kernels' times
    summed per kernel, their rows alone; rows cut short passed over."""

    HEAD = "routine,m,n,k,predicted_s,measured_s,rank,cblas,ld\n"

    def trace(self, name, body):
        p = self.path(*name.split("/"))
        os.makedirs(os.path.dirname(p), exist_ok=True)
        with open(p, "w") as f:
            f.write(self.HEAD + body)
        return p

    def traces(self):
        t0 = self.trace("N4000-1x2/trace.0.csv",
                        "dgemm,2000,2000,128,0.02,0.022,0,0,4000\n"    # m n k >= SOLO_MIN_MNK: counted
                        "dgemm,1000,1000,4,0.01,0.01,0,0,4000\n"       # exactly SOLO_MIN_MNK: counted
                        "dgemm,128,128,128,1,9,0,0,4000\n"             # a small one: not
                        "dtrsm,2000,2000,128,1,9,0,0,4000\n"           # not a dgemm
                        "hpl_dlaswp00N,128,128,0,1e-4,2e-4,0,0,4000\n"
                        "hpl_dlatcpy,64,64,0,1e-5,3e-5,0,0,4000\n"
                        "dgemm,2000,2000\n"                             # cut short: passed over
                        "hpl_dlaswp00N,128,128,0,1e-4\n")
        t1 = self.trace("N4000-1x2/trace.1.csv",
                        "dgemm,4000,4000,256,0.08,0.088,1,0,4000\nhpl_dlaswp00N,128,128,0,1e-4,3e-4,1,0,4000\n")
        return [t0, t1]

    def test_dgemm_ratio(self):
        self.assertEqual(rf.SOLO_MIN_MNK, 1000 * 1000 * 4)
        self.assertAlmostEqual(rf.dgemm_ratio(self.traces()), (0.022 + 0.01 + 0.088) / (0.02 + 0.01 + 0.08))
        small = self.trace("small.csv", "dgemm,128,128,128,1,2,0,0,0\nhpl_dlatcpy,64,64,0,1,2,0,0,0\n")
        self.assertIsNone(rf.dgemm_ratio([small]))
        self.assertIsNone(rf.dgemm_ratio([]))

    def test_kernel_ratios(self):
        got = rf.kernel_ratios(self.traces())
        self.assertEqual(sorted(got), ["hpl_dlaswp00N", "hpl_dlatcpy"])
        for k, (m, p) in {"hpl_dlaswp00N": (5e-4, 2e-4), "hpl_dlatcpy": (3e-5, 1e-5)}.items():
            self.assertAlmostEqual(got[k][0], m)
            self.assertAlmostEqual(got[k][1], p)
        self.assertEqual(rf.kernel_ratios([self.trace("none.csv", "dgemm,1,1,1,1,1,0,0,0\n")]), {})

    def test_kernel_rows(self):
        out = rf.kernel_rows(self.traces(), self.path("kernels"))
        self.assertEqual(out, [self.path("kernels", f"N4000-1x2.trace.{r}.csv") for r in (0, 1)])
        self.assertEqual(self.read(out[0]), self.HEAD + "hpl_dlaswp00N,128,128,0,1e-4,2e-4,0,0,4000\n"
                         "hpl_dlatcpy,64,64,0,1e-5,3e-5,0,0,4000\nhpl_dlaswp00N,128,128,0,1e-4\n")
        self.assertEqual(self.read(out[1]), self.HEAD + "hpl_dlaswp00N,128,128,0,1e-4,3e-4,1,0,4000\n")


class RankScript(Sandbox):
    """The script each rank of a traced run goes through: its variables
    checked against the settings table, the file written atomically."""

    def test_written(self):
        d = self.path("run dir")
        os.mkdir(d)
        path = os.path.join(d, "rank.sh")
        rf.write_rank_script(path, "/lib/libsimblas.so", "/m/my model", d)
        self.assertEqual(self.read(path), (
            "#!/bin/sh\n"
            "# one rank of simblas-hpl refine's real run: HPL with libsimblas preloaded in trace mode\n"
            "r=${OMPI_COMM_WORLD_RANK:-${PMIX_RANK:-${PMI_RANK:-$$}}}\n"
            f"SIMBLAS_MODE=trace SIMBLAS_MODEL='/m/my model' SIMBLAS_TRACE='{d}'/trace.$r.csv\n"
            "LD_PRELOAD=/lib/libsimblas.so${LD_PRELOAD:+ $LD_PRELOAD}\n"
            "export SIMBLAS_MODE SIMBLAS_MODEL SIMBLAS_TRACE LD_PRELOAD\n"
            'exec "$@"\n'))
        self.assertEqual(os.stat(path).st_mode & 0o777, 0o755)
        self.assertEqual(os.listdir(d), ["rank.sh"])

    def test_checked_against_the_table(self):
        # a libsimblas without trace mode (another version): refused before anything is written
        table = json.loads(json.dumps(settings.load()))
        table["SIMBLAS_MODE"]["values"].remove("trace")
        os.mkdir(self.path("w"))
        with mock.patch("simblas_hpl.settings.load", return_value=table), self.assertRaises(CliError) as e:
            rf.write_rank_script(self.path("w", "rank.sh"), "/lib/libsimblas.so", "/m.model", self.path("w"))
        self.assertEqual(e.exception.status, 1)
        self.assertIn("simblas-hpl sets SIMBLAS_MODE='trace', which libsimblas refuses", str(e.exception))
        self.assertEqual(os.listdir(self.path("w")), [])


class MemorySolo(Sandbox):
    def trace(self, name, rows):
        p = self.path(name)
        with open(p, "w") as f:
            f.write("routine,m,n,k,predicted_s,measured_s,rank,cblas,ld\n" + "".join(
                f"{r},128,128,0,{pr},{me},0,0,4000\n" for r, pr, me in rows))
        return p

    def test_memory_solo(self):
        """Each kernel called alone and busy compares with itself (its own
        model error cancels), weighted by its time alone; dgemm rows and
        kernels of one side only do not count; None without a common one."""
        busy = [self.trace("b0", [("hpl_dlaswp00N", 1.0, 3.0), ("hpl_dlaswp01T", 1.0, 0.5), ("dgemm", 1, 9)]),
                self.trace("b1", [("hpl_dlaswp00N", 1.0, 3.0), ("hpl_dlatcpy", 1.0, 1.0)])]
        solo = [self.trace("s0", [("hpl_dlaswp00N", 1.0, 1.0), ("hpl_dlatcpy", 1.0, 0.25), ("dgemm", 1, 1)])]
        # dlaswp00N: busy 3, alone 1 (weight 1); dlatcpy: busy 1, alone 0.25 (weight 0.25)
        want = math.exp((1.0 * math.log(3.0) + 0.25 * math.log(4.0)) / 1.25)
        self.assertAlmostEqual(rf.memory_solo(busy, solo), want, places=9)
        self.assertIsNone(rf.memory_solo([busy[0]], [self.trace("s1", [("hpl_dlaswp06T", 1.0, 1.0)])]))


class ReferenceSpeed(Sandbox):
    """The machine's speed around the traced runs, recorded in the refined
    model (validate's drift ratio compares with it, not the calibration's)."""

    SHAPE = "dgemm m=3652 n=3652 k=256 in HPL's layout"

    @classmethod
    def probe(cls, *gflops):
        m = [{"time": "2026-11-29T00:2%d:00+00:00" % i, "when": "x", "shape": cls.SHAPE, "gflops": g}
             for i, g in enumerate(gflops)]
        return mock.Mock(measured=m)

    def test_record(self):
        path = self.path("r.model")
        with open(path, "w") as f:
            f.write(BASE)
        said = rf.record_reference_speed(path, self.probe(49.0, None, 50.2))
        self.assertIn("49.6 Gflop/s", said)
        text = self.read(path)
        self.assertEqual(text.splitlines()[1], f"meta refined_reference_speed 49.6000 {self.SHAPE}, median of 2 "
                                               "around the traced runs, 2026-11-29T00:20:00+00:00")
        # a second refine replaces it; one that measured nothing removes it (it would be stale)
        rf.record_reference_speed(path, self.probe(45.0))
        self.assertEqual(self.read(path).count("refined_reference_speed"), 1)
        self.assertIn("refined_reference_speed 45.0000", self.read(path))
        self.assertIsNone(rf.record_reference_speed(path, None))
        self.assertEqual(self.read(path), BASE)

    def test_probe_only_for_a_measured_model(self):
        args = mock.Mock(no_reference_speed=False)
        path = self.path("m.model")
        with open(path, "w") as f:
            f.write(BASE)
        self.assertIsNone(refine.reference_probe(path, "/bin/false", args))   # extrapolated: no shape
        with open(path, "w") as f:
            f.write(BASE.replace("meta mode quick\n", f'meta mode quick\nmeta reference_speed "measured: '
                                                      f'{self.SHAPE}, median of 8"\n'))
        p = refine.reference_probe(path, "/bin/false", args)
        self.assertEqual(p.shapes, {self.SHAPE: path})
        args.no_reference_speed = True
        self.assertIsNone(refine.reference_probe(path, "/bin/false", args))


class TraceSpeed(RefineBase):
    """The traced times scaled to the base model's reference speed, so that
    the refit stays at the speed of the lines it does not touch."""

    MEASURED = BASE.replace("meta mode quick\n", "meta mode quick\nmeta reference_speed \"measured: dgemm m=3652 "
                                                  "n=3652 k=256 in HPL's layout, median of 8\"\n")

    def test_scale(self):
        probe = ReferenceSpeed.probe(41.0, 43.0, None)
        with open(self.model, "w") as f:
            f.write(self.MEASURED)
        args = mock.Mock(at_trace_speed=False)
        self.assertAlmostEqual(refine.time_scale(self.model, probe, args), 42.0 / 40.0)
        args.at_trace_speed = True
        self.assertIsNone(refine.time_scale(self.model, probe, args))
        args.at_trace_speed = False
        self.assertIsNone(refine.time_scale(self.model, None, args))
        with open(self.model, "w") as f:   # extrapolated: no shape to compare at
            f.write(BASE)
        self.assertIsNone(refine.time_scale(self.model, probe, args))
        with open(self.model, "w") as f:   # another machine's model: the calibrator judges the factor
            f.write(self.MEASURED.replace("reference-speed 4e10", "reference-speed 1e10"))
        self.assertAlmostEqual(refine.time_scale(self.model, probe, args), 4.2)

    def test_refine(self):
        with open(self.model, "w") as f:
            f.write(self.MEASURED)
        status, out, err = self.refine("--model", self.model, "--no-solo")
        self.assertEqual(status, 0, err)
        calls = self.read(self.log).splitlines()
        refit = [c for c in calls if c.startswith("--from-trace")]
        self.assertEqual(len(refit), 1)
        self.assertIn(" --time-scale 1.050000 ", refit[0])
        text = self.read(self.model)
        self.assertIn("\nmeta trace_speed 42.0000 dgemm m=3652 n=3652 k=256 in HPL's layout, median of 2 around the "
                      "traced runs, ", text)
        self.assertIn(": the traced times multiplied by 1.0500\n", text)
        self.assertNotIn("refined_reference_speed", text)
        self.assertIn("+5.0% against the base model's: the traced times were multiplied by 1.0500", out)
        # as before 2026-11-29: the times as measured, the refit at the traced runs' speed
        with open(self.model, "w") as f:
            f.write(self.MEASURED)
        os.unlink(self.model + ".calibrated")
        status, out, err = self.refine("--model", self.model, "--no-solo", "--at-trace-speed")
        self.assertEqual(status, 0, err)
        self.assertNotIn("--time-scale", self.read(self.log).splitlines()[-1])
        self.assertIn("\nmeta refined_reference_speed 42.0000 ", self.read(self.model))
        self.assertNotIn("trace_speed 42", self.read(self.model).replace("refined_reference_speed", ""))


    def test_refused_scale_keeps_the_traces(self):
        with open(self.model, "w") as f:   # calibrated on a machine 4.2 times slower than this one
            f.write(self.MEASURED.replace("reference-speed 4e10", "reference-speed 1e10"))
        before = self.read(self.model)
        status, out, err = self.refine("--model", self.model, "--no-solo")
        self.assertEqual(status, 1, err)
        self.assertIn(" --time-scale 4.200000 ", self.read(self.log).splitlines()[-1])
        self.assertIn("--time-scale 4.200000: outside the calibrator's bounds", err)
        kept = re.search(r"the traces are kept in (\S+)", err)
        self.assertTrue(kept, err)
        self.assertTrue(glob.glob(os.path.join(kept.group(1), "**", "*trace*"), recursive=True), kept.group(1))
        self.assertEqual(self.read(self.model), before)


class Verb(RefineBase):
    def test_refine_in_place(self):
        status, out, err = self.refine("--model", self.model)
        self.assertEqual(status, 0, err)
        # one rank alone between the all-core runs (the machine's drift on both sides): not refitted on,
        # its dgemm against theirs
        self.assertEqual([r[:3] for r in self.runs], [(10000, 1, 2), (10000, 1, 1), (10000, 2, 1)])
        self.assertIn("hpl_dlaswp00N mn=1.5e-8", self.read(self.model))
        self.assertIn("\nmeta solo_speed 1.1000 N=10000 1x1 against 2 all-core run(s)\n", self.read(self.model))
        self.assertIn("one core alone ran HPL's dgemm 10.0% faster than with every core busy", out)
        # the memory kernels: alone at the model's time, busy at twice it
        self.assertIn("\nmeta solo_speed_memory 2.0000 N=10000 1x1 against 2 all-core run(s)\n", self.read(self.model))
        self.assertIn("one core alone ran its memory kernels (HPL's row swaps and copies) 100.0% faster than with "
                      "every core busy: meta solo_speed_memory 2.0000", out)
        self.assertEqual(self.read(self.model + ".calibrated"), BASE)
        self.assertIn("the base model's line scaled by 1.807", out)
        self.assertIn("other processes took 1.0% of the cores during the real runs", out)
        self.assertIn(f"{self.model} replaced; the model as it was is kept as {self.model}.calibrated", out)
        # the calibrator had the model checked, then the four traces, two per run
        calls = self.read(self.log).splitlines()
        self.assertEqual(calls[0], f"--summary {self.model}")
        traces = calls[1].split()[5:]
        self.assertEqual([re.sub(r".*/(N10000-\dx\d/trace\.\d\.csv)$", r"\1", t) for t in traces],
                         ["N10000-1x2/trace.0.csv", "N10000-1x2/trace.1.csv", "N10000-2x1/trace.0.csv",
                          "N10000-2x1/trace.1.csv"])
        self.assertFalse(os.path.exists(os.path.dirname(traces[0])), "the work directory is removed")

    def test_no_solo(self):
        # --no-solo: the all-core runs only, no meta solo_speed; a config of one rank is the solo run's
        # own kind, so none is added either
        status, out, err = self.refine("--model", self.model, "--no-solo")
        self.assertEqual(status, 0, err)
        self.assertEqual([r[:3] for r in self.runs], [(10000, 1, 2), (10000, 2, 1)])
        self.assertNotIn("solo_speed", self.read(self.model))
        self.runs.clear()
        status, out, err = self.refine("--model", self.model, "--config", "6000:1x1", "--config", "6000:1x2")
        self.assertEqual(status, 0, err)
        self.assertEqual([r[:3] for r in self.runs], [(6000, 1, 1), (6000, 1, 2)])
        self.assertNotIn("solo_speed", self.read(self.model))

    def test_calibrators_solo_kept(self):
        # the calibration measured both solo speeds side by side: no run of one rank alone, and the refined
        # model keeps the calibrator's lines (the fake calibrator's refit copies the base's meta lines)
        lines = ('meta solo_speed 1.0068 "simblas-calibrate: dgemm at m = n = 4096, k = 128 on core 0 alone"\n'
                 'meta solo_speed_memory 1.0330 "simblas-calibrate: HPL\'s row interchanges on core 0 alone"\n')
        with open(self.model, "w") as f:
            f.write(BASE.replace("meta mode quick\n", "meta mode quick\n" + lines))
        status, out, err = self.refine("--model", self.model)
        self.assertEqual(status, 0, err)
        self.assertEqual([r[:3] for r in self.runs], [(10000, 1, 2), (10000, 2, 1)])
        self.assertIn("no run of one rank alone", err)
        self.assertIn("solo_speed 1.0068", err)
        self.assertIn(lines, self.read(self.model))
        self.assertNotIn("one core alone ran HPL's dgemm", out)
        # one of them refine's own (a run alone): refine measures both again
        self.runs.clear()
        with open(self.model, "w") as f:
            f.write(BASE.replace("meta mode quick\n", "meta mode quick\n" + lines.replace(
                '"simblas-calibrate: HPL', 'N=10000 1x1 against 2 all-core run(s) "HPL')))
        status, out, err = self.refine("--model", self.model)
        self.assertEqual(status, 0, err)
        self.assertEqual([r[:3] for r in self.runs], [(10000, 1, 2), (10000, 1, 1), (10000, 2, 1)])

    def test_solo_calibrated(self):
        path = self.path("s.model")
        for text, want in ((BASE, False),
                           (BASE + 'meta solo_speed 1.01 "simblas-calibrate: x"\n', False),
                           ('meta solo_speed 1.01 "simblas-calibrate: x"\nmeta solo_speed_memory 1.2 '
                            '"simblas-calibrate: y"\n' + BASE, True),
                           ('meta solo_speed 1.01 N=10000 1x1 against 2\nmeta solo_speed_memory 1.2 '
                            '"simblas-calibrate: y"\n' + BASE, False)):
            with open(path, "w") as f:
                f.write(text)
            self.assertEqual(model.solo_calibrated(path), want, text)

    def test_solo_out_of_range_not_recorded(self):
        # one rank alone 2.2 times as fast (a run disturbed): said, not written
        real = self.fake_run

        def fast_alone(xhpl, n, nb, p, q, opts, workdir, **kw):
            res = real(xhpl, n, nb, p, q, opts, workdir, **kw)
            if p * q == 1:
                t = os.path.join(workdir, "trace.0.csv")
                with open(t) as f:
                    text = f.read().replace("0.02,0.02,", "0.02,0.01,")
                with open(t, "w") as f:
                    f.write(text)
            return res
        self.fake_run = fast_alone
        status, out, err = self.refine("--model", self.model)
        self.assertEqual(status, 0, err)
        self.assertIn("2.200 times as fast as with every core busy, outside 0.8-1.5: not recorded", out)
        self.assertNotIn("meta solo_speed ", self.read(self.model))

    def test_libsimblas_of_the_build(self):
        # no SIMBLAS_LIBDIR, not installed (the source tree, SIMBLAS_DATADIR naming the build tree's tables):
        # the libsimblas the HPL build was made against
        tables = {"SIMBLAS_DATADIR": self.root}
        with mock.patch("simblas_hpl.locations.installed", return_value=None):
            status, out, err = self.refine("--model", self.model, "--config", "2000:1x2", env=tables,
                                           unset=("SIMBLAS_LIBDIR",))
            self.assertEqual(status, 2)
            self.assertIn("cannot locate libsimblas", err)
            self.assertEqual(self.runs, [])
            self.write_build(PATCHES, libdir=self.env["SIMBLAS_LIBDIR"])
            status, out, err = self.refine("--model", self.model, "--config", "2000:1x2", env=tables,
                                           unset=("SIMBLAS_LIBDIR",))
        self.assertEqual(status, 0, err)
        self.assertIn(f"LD_PRELOAD={self.env['SIMBLAS_LIBDIR']}/libsimblas.so", self.runs[-1][3])

    def test_busy_machine(self):
        status, out, err = self.refine("--model", self.model, "--config", "4000:1x2", share=0.08)
        self.assertEqual(status, 1)
        self.assertEqual(self.read(self.model), BASE)
        self.assertFalse(os.path.exists(self.model + ".calibrated"))
        m = re.search(r"took 8\.0% of the cores .*left unchanged; the refined model is kept in (\S+); refine again on a quiet machine", err)
        self.assertTrue(m, err)
        self.addCleanup(os.unlink, m.group(1))
        self.assertIn("hpl_dlaswp00N mn=1.5e-8", self.read(m.group(1)))
        status, out, err = self.refine("--model", self.model, "--config", "4000:1x2", "--force", share=0.08)
        self.assertEqual(status, 0, err)
        self.assertIn("hpl_dlaswp00N mn=1.5e-8", self.read(self.model))

    def test_a_model_that_cannot_be_installed_is_kept(self):
        """-o's directory removed since the check (or a disk full): the
        refined model, made of minutes of real runs, was lost with the work
        directory after a traceback; it is kept aside, named in one line."""
        dest_dir = self.path("out")
        os.mkdir(dest_dir)
        dest = os.path.join(dest_dir, "r.model")
        from_trace = rf.from_trace

        def refit_then_gone(*a, **kw):
            said = from_trace(*a, **kw)
            shutil.rmtree(dest_dir)
            return said
        with mock.patch("simblas_hpl.refine.from_trace", refit_then_gone):
            status, out, err = self.refine("--model", self.model, "-o", dest, "--config", "4000:1x2")
        self.assertEqual(status, 1, err)
        self.assertNotIn("Traceback", err)
        m = re.fullmatch(r"simblas-hpl: could not install the refined model as \S+/out/r\.model \(No such file or "
                         r"directory\): \S+/out/r\.model is left as it was; the refined model is kept in (\S+): cp \1 "
                         r"\S+/out/r\.model once it can be written", err.splitlines()[-1])
        self.assertTrue(m, err)
        self.addCleanup(os.unlink, m.group(1))
        self.assertIn("hpl_dlaswp00N mn=1.5e-8", self.read(m.group(1)))
        self.assertEqual(self.read(self.model), BASE)
        # with --keep, it stays in the directory kept
        os.mkdir(dest_dir)
        with mock.patch("simblas_hpl.refine.from_trace", refit_then_gone):
            status, out, err = self.refine("--model", self.model, "-o", dest, "--config", "4000:1x2", "--keep",
                                           self.path("kept"))
        self.assertEqual(status, 1, err)
        self.assertIn(f"the refined model is kept in {self.path('kept', 'refined.model')}:", err)
        self.assertIn("hpl_dlaswp00N mn=1.5e-8", self.read(self.path("kept", "refined.model")))

    def test_out_keep_kernels_only(self):
        dest = self.path("refined.model")
        status, out, err = self.refine("--model", self.model, "-o", dest, "--config", "4000:1x2", "--keep",
                                       self.path("kept"), "--kernels-only")
        self.assertEqual(status, 0, err)
        self.assertEqual(self.read(self.model), BASE)
        self.assertIn("hpl_dlaswp00N mn=1.5e-8", self.read(dest))
        self.assertIn(f"{dest} written", out)
        traces = self.read(self.log).splitlines()[1].split()[5:]
        self.assertEqual([os.path.basename(t) for t in traces], ["N4000-1x2.trace.0.csv", "N4000-1x2.trace.1.csv"])
        for t in traces:  # the kernels' rows only
            self.assertEqual([ln.split(",")[0] for ln in self.read(t).splitlines()], ["routine", "hpl_dlaswp00N"])
        kept = os.listdir(self.path("kept", "N4000-1x2"))
        self.assertTrue({"rank.sh", "trace.0.csv", "trace.1.csv"} <= set(kept), kept)
        self.assertTrue(os.path.isfile(self.path("kept", "refined.model")))


class SoloSaid(RefineBase):
    def test_faster_and_slower(self):
        self.assertIn("4.5% faster than with every core busy: meta solo_speed 1.0450", refine.solo_said(1.045))
        self.assertIn("4.5% slower than with every core busy: meta solo_speed 0.9550", refine.solo_said(0.955))
