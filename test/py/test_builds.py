"""The HPL builds (issue 21): `build --build-id`, `info` listing every build
with its source and date, a run saying which build it used (stderr, JSON),
an unknown ID listing the known ones, and a new build becoming the default
only when there is none or when asked."""

import dataclasses
import json
import os
import pickle
import re
import shutil
import signal
import tarfile
import unittest
from unittest import mock

from support import Sandbox, fake_build
from simblas_hpl import builds, hplbuild, procs, realrun
from simblas_hpl.errors import CliError

def snapshot(d):
    """{name: bytes} of the files directly in d (a build's binaries and manifest)."""
    out = {}
    for n in sorted(os.listdir(d)):
        p = os.path.join(d, n)
        if os.path.isfile(p) and n != ".lock":
            with open(p, "rb") as f:
                out[n] = f.read()
    return out


RESULT = "WR11C2R4        8000   128     2     2               1.91              1.786e+02"


class Builds(Sandbox):
    def setUp(self):
        super().setUp()
        self.data = os.path.join(self.env["XDG_DATA_HOME"], "simblas", "hpl")

    def make_build(self, bid, source, built, modes=("model", "passthrough")):
        return fake_build(self.data, bid, source, built, modes)

    def empty_tree(self):
        """An 'HPL tree' of nothing but Make.top and src/: no patch applies."""
        tree = self.path("hpl")
        os.makedirs(os.path.join(tree, "src"))
        open(os.path.join(tree, "Make.top"), "w").close()
        return tree

    def set_default(self, bid):
        with open(os.path.join(self.data, "default"), "w") as f:
            f.write(bid + "\n")

    def two(self):
        self.make_build("hpcc-1.5.0", "/src/hpcc_1.5.0.orig.tar.gz", "2026-11-25T10:00:00+00:00")
        self.make_build("upstream", "/src/hpl-2.3.tar.gz", "2026-11-25T11:00:00+00:00", modes=("model",))
        self.set_default("hpcc-1.5.0")

    def test_info_lists_every_build(self):
        self.two()
        status, out, err = self.cli("info")
        self.assertEqual(status, 0, err)
        man = json.loads(out)
        self.assertEqual((man["build_id"], man["chosen_by"]), ("hpcc-1.5.0", "default"))
        self.assertEqual([(b["id"], b["source"], b["built"], b["default"]) for b in man["builds"]],
                         [("hpcc-1.5.0", "/src/hpcc_1.5.0.orig.tar.gz", "2026-11-25T10:00:00+00:00", True),
                          ("upstream", "/src/hpl-2.3.tar.gz", "2026-11-25T11:00:00+00:00", False)])
        self.assertRegex(err, r"\* hpcc-1.5.0 \(from /src/hpcc_1.5.0.orig.tar.gz, built 2026-11-25T10:00:00\+00:00; "
                              r"xhpl-model, xhpl-real\)")
        self.assertRegex(err, r"\n\S+   upstream \(from /src/hpl-2.3.tar.gz, built 2026-11-25T11:00:00\+00:00; "
                              r"xhpl-model\)")
        status, out, err = self.cli("info", "--build-id", "upstream")
        self.assertEqual((status, json.loads(out)["build_id"], json.loads(out)["chosen_by"]),
                         (0, "upstream", "--build-id"))

    def test_a_manifest_with_null_tables(self):
        """A manifest whose binaries or patches are null (written by hand, or
        damaged) was a traceback in info, run and validate ('NoneType' object
        has no attribute 'get'); it is a build with no binary, whose lines
        say so."""
        self.two()
        mpath = os.path.join(self.data, "hpcc-1.5.0", "manifest.json")
        with open(mpath) as f:
            man = json.load(f)
        man["binaries"], man["patches"] = None, None
        with open(mpath, "w") as f:
            json.dump(man, f)
        status, out, err = self.cli("info")
        self.assertEqual(status, 0, err)
        self.assertIn("* hpcc-1.5.0 (from /src/hpcc_1.5.0.orig.tar.gz, built 2026-11-25T10:00:00+00:00; no binary)",
                      err)
        status, out, err = self.cli("run", "--n", 1000, "--p", 1, "--q", 2, "--dry-run")
        self.assertEqual(status, 0, err)  # a dry run names the binary anyway, and warns
        self.assertIn("warning: no xhpl-model in the HPL build hpcc-1.5.0", err)
        with mock.patch.dict(os.environ, self.env, clear=True):
            with self.assertRaisesRegex(CliError, "no xhpl-mpi"):
                realrun.mpi_binary(patch="05-deterministic-pivot.patch")

    def test_info_says_which_build_runs_use(self):
        """SIMBLAS_HPL_BUILD overrides the default: info's list said 'the
        default, which runs without --build-id use' of the other build; a
        manifest that is JSON but no object was a traceback."""
        self.two()
        status, out, err = self.cli("info", env={"SIMBLAS_HPL_BUILD": "upstream"})
        self.assertEqual((status, json.loads(out)["build_id"]), (0, "upstream"), err)
        self.assertIn("* the default; SIMBLAS_HPL_BUILD=upstream overrides it: runs without --build-id use upstream)",
                      err)
        self.assertNotIn("* the default, which runs without --build-id use", err)
        status, out, err = self.cli("info")
        self.assertIn("* the default, which runs without --build-id use", err)
        os.makedirs(os.path.join(self.data, "broken"))
        with open(os.path.join(self.data, "broken", "manifest.json"), "w") as f:
            f.write("[1, 2]")
        status, out, err = self.cli("info")
        self.assertEqual(status, 0, err)
        self.assertEqual([b["id"] for b in json.loads(out)["builds"]], ["hpcc-1.5.0", "upstream"])

    def test_an_unknown_build_lists_the_known(self):
        self.two()
        for args, env, said in ((("--build-id", "nosuch"), None, "--build-id nosuch"),
                                ((), {"SIMBLAS_HPL_BUILD": "nosuch"}, "SIMBLAS_HPL_BUILD=nosuch")):
            status, out, err = self.cli("run", "--n", 8000, "--p", 2, "--q", 2, *args, env=env)
            with self.subTest(said=said):
                self.assertEqual((status, err.count("\n")), (2, 1), err)
                self.assertRegex(err, f"{re.escape(said)}: no such HPL build in .*; the builds: hpcc-1.5.0 \\(from "
                                      r"/src/hpcc_1.5.0.orig.tar.gz, built .*\) \[the default\]; upstream \(from "
                                      r"/src/hpl-2.3.tar.gz")
                self.assertNotIn("run `simblas-hpl build", err)
        self.set_default("gone")  # the default build was removed
        status, out, err = self.cli("info")
        self.assertEqual(status, 2)
        self.assertIn("the default build, gone,: no such HPL build", err)
        # a build without the mode's binary says how to build it
        status, out, err = self.cli("run", "--n", 1000, "--p", 2, "--q", 2, "--mode", "passthrough",
                                    "--build-id", "upstream")
        self.assertEqual(status, 2)
        self.assertIn("no xhpl-real in the HPL build upstream", err)
        self.assertIn("run `simblas-hpl build --build-id upstream --mode passthrough` with the source it was built "
                      "from (/src/hpl-2.3.tar.gz)", err)

    def test_a_run_says_which_build(self):
        self.two()
        with open(self.env["SMPIRUN"], "w") as f:
            f.write(f"#!/bin/sh\necho '{RESULT}'\n")
        for args, env, by in (((), None, "default"), (("--build-id", "upstream"), None, "--build-id"),
                              ((), {"SIMBLAS_HPL_BUILD": "upstream"}, "SIMBLAS_HPL_BUILD")):
            j = self.path("r.json")
            status, out, err = self.cli("run", "--n", 8000, "--p", 2, "--q", 2, "--json", j, *args, env=env)
            with self.subTest(by=by):
                self.assertEqual(status, 0, err)
                bid = "hpcc-1.5.0" if by == "default" else "upstream"
                with open(j) as f:
                    got = json.load(f)
                self.assertEqual(got["build"]["id"], bid)
                self.assertEqual(got["build"]["chosen_by"], by)
                self.assertEqual(got["xhpl"], os.path.join(self.data, bid, "xhpl-model"))
                self.assertRegex(err, f"model mode, HPL build {bid} \\(.*built 2026-11-25T1[01]:00:00\\+00:00\\); "
                                      "files in")

    def test_the_default_changes_only_when_asked(self):
        data = self.data
        self.make_build("first", "/src/a", "t1")
        self.make_build("second", "/src/b", "t2")
        with mock.patch.dict(os.environ, self.env, clear=True):
            hplbuild.settle_default("first", False)  # no default yet: the first build becomes it
            with open(os.path.join(data, "default")) as f:
                self.assertEqual(f.read(), "first\n")
            with mock.patch.object(hplbuild, "note") as said:
                hplbuild.settle_default("second", False)  # another build: the default stays, and is said
            with open(os.path.join(data, "default")) as f:
                self.assertEqual(f.read(), "first\n")
            self.assertRegex(said.call_args[0][0], "the default HPL build stays first: runs without --build-id use "
                                                   "it; run this one with --build-id second, or .*--make-default")
            with mock.patch.object(hplbuild, "note") as said:
                hplbuild.settle_default("second", True)  # asked
            with open(os.path.join(data, "default")) as f:
                self.assertEqual(f.read(), "second\n")
            self.assertIn("the default HPL build is now second (was first)", said.call_args[0][0])

    def test_build_takes_an_id(self):
        status, out, err = self.cli("build", "--build-id", "../x")
        self.assertEqual((status, err.count("\n")), (2, 1), err)
        self.assertIn("--build-id '../x': an ID is up to 100 letters", err)
        # info and run read the manifest of the ID they are given: never one outside the builds' directory
        self.make_build("other", "/src/hpl-2.3.tar.gz", "t0")
        outside = os.path.join(os.path.dirname(self.data), "x")
        os.makedirs(outside)
        with open(os.path.join(outside, "manifest.json"), "w") as f:
            json.dump({"binaries": {}}, f)
        for args, env, said in ((("info", "--build-id", "../x"), None, "--build-id ../x: an ID"),
                                (("run", "--n", 8000, "--p", 2, "--q", 2, "--build-id", "../x"), None,
                                 "--build-id ../x: an ID"),
                                (("info",), {"SIMBLAS_HPL_BUILD": "../x"}, "SIMBLAS_HPL_BUILD=../x: an ID")):
            with self.subTest(args=args, env=env):
                status, out, err = self.cli(*args, env=env)
                self.assertEqual((status, err.count("\n")), (2, 1), err)
                self.assertIn(said, err)
        # an HPL tree the patches do not apply to: refused in one line naming the patch and the likely
        # cause, the build of that ID left as it was
        d = self.make_build("mine", "/src/hpl-2.3.tar.gz", "t0")
        before = snapshot(d)
        tree = self.empty_tree()
        status, out, err = self.cli("build", "--hpl-dir", tree, "--build-id", "mine", "--mode", "model")
        self.assertEqual(status, 2, err)
        last = err.splitlines()[-1]
        self.assertRegex(last, r"^simblas-hpl: patch 01-simblas-header.patch \(from series\) does not apply to .*hpl "
                               r"with `patch -p1 --fuzz=0` \(can't find file to patch.*\): the source is not HPL 2.x")
        self.assertNotIn("patch -p1", "\n".join(err.splitlines()[:-1]))  # patch's output is not dumped
        self.assertEqual(snapshot(d), before)
        # under a new ID the same refusal leaves no build behind (it left one holding only its lock,
        # which `info` listed)
        status, out, err = self.cli("build", "--hpl-dir", tree, "--build-id", "fresh", "--mode", "model")
        self.assertEqual(status, 2, err)
        self.assertIn("does not apply", err)
        self.assertFalse(os.path.lexists(os.path.join(self.data, "fresh")), os.listdir(self.data))
        self.assertTrue(os.path.isdir(d))

    def test_the_real_mpi_build_needs_mpicc(self):
        with mock.patch("simblas_hpl.hplbuild.mpicc_or_none", return_value=None):
            status, out, err = self.cli("build", "--mode", "mpi")
            self.assertEqual((status, err.count("\n")), (2, 1), err)
            self.assertIn("xhpl-mpi is built with Open MPI's mpicc, which is not installed: install openmpi-bin", err)
            # the default builds what it can, and says what it leaves out
            tree = self.empty_tree()
            status, out, err = self.cli("build", "--hpl-dir", tree)
            self.assertIn("no mpicc (Open MPI): building without xhpl-mpi", err)
        self.assertEqual(hplbuild.MODES["all"], ["model", "passthrough", "mpi"])

    def test_a_build_older_than_the_patch_series_is_said(self):
        """A run of a build patched with fewer patches than the installed
        series names those it lacks and how to rebuild; a current build is
        not said to be old."""
        series = [ln.split("#", 1)[0].strip() for ln in open(os.path.join(self.env["SIMBLAS_PATCHDIR"], "series"))]
        series = [ln.split()[0] for ln in series if ln]
        hpcc = [ln.strip() for ln in open(os.path.join(self.env["SIMBLAS_PATCHDIR"], "series.hpcc")) if ln.strip()]
        d = self.make_build("hpcc-1.5.0", "/src/hpcc_1.5.0.orig.tar.gz", "2026-11-25T10:00:00+00:00")
        self.set_default("hpcc-1.5.0")
        mpath = os.path.join(d, "manifest.json")
        man = json.load(open(mpath))
        for patches, said in ((series[:-1] + hpcc, series[-1]), (series + hpcc, None)):
            man.update(source_kind="debian-hpcc", patches=patches)
            with open(mpath, "w") as f:
                json.dump(man, f)
            status, out, err = self.cli("run", "--n", 1000, "--p", 1, "--q", 1, "--dry-run", "--keep", self.path("d"))
            with self.subTest(lacks=said):
                self.assertEqual(status, 0, err)
                if said:
                    self.assertIn(f"warning: the HPL build hpcc-1.5.0 predates the installed HPL patch series: it lacks "
                                  f"{said}, and simulates without them; rebuild it with: simblas-hpl build --build-id "
                                  "hpcc-1.5.0\n", err)
                else:
                    self.assertNotIn("predates", err)


class Ref(unittest.TestCase):
    def test_a_frozen_record_that_pickles(self):
        """RunPlan.build: a frozen BuildRef; the run's JSON has its fields in
        this order; it pickles (plan.pickle)."""
        r = builds.BuildRef(id="upstream", source="hpl-2.3.tar.gz", built="2026-11-25T10:00:00+00:00",
                            chosen_by="--build-id")
        self.assertEqual(json.dumps(r.to_json()), '{"id": "upstream", "source": "hpl-2.3.tar.gz", '
                                                  '"built": "2026-11-25T10:00:00+00:00", "chosen_by": "--build-id"}')
        self.assertEqual(pickle.loads(pickle.dumps(r)), r)
        with self.assertRaises(dataclasses.FrozenInstanceError):
            r.id = "other"


FAKE_MAKE = """#!/bin/sh
# make arch=ARCH in an HPL tree: bin/ARCH/xhpl, whose bytes hold the tree's VERSION;
# fails for the arches in FAKE_MAKE_FAIL; for those in FAKE_MAKE_TERM, starts a
# 'compiler' (its pid in FAKE_MAKE_PIDS) and sends SIGTERM to simblas-hpl
arch=${1#arch=}
echo "make: building $arch"
case " $FAKE_MAKE_FAIL " in *" $arch "*) echo "cc: error: it went wrong"; exit 2;; esac
case " $FAKE_MAKE_TERM " in *" $arch "*)
  sleep 300 & echo $! > "$FAKE_MAKE_PIDS"
  kill -TERM $PPID
  wait; exit 1;;
esac
mkdir -p bin/$arch && { echo "xhpl $arch"; cat VERSION; } > bin/$arch/xhpl
"""


class Raised(Exception):
    pass


class BuildAside(Sandbox):
    """A rebuild is made aside and put in place at the end: a failure, a
    refusal or an interrupt leaves the build of before as it was, binaries
    and manifest to the byte (with a fake make, the patches not applied)."""

    def setUp(self):
        super().setUp()
        self.data = os.path.join(self.env["XDG_DATA_HOME"], "simblas", "hpl")
        fake = self.path("fakebin")
        os.makedirs(fake)
        with open(os.path.join(fake, "make"), "w") as f:
            f.write(FAKE_MAKE)
        os.chmod(os.path.join(fake, "make"), 0o755)
        self.env["PATH"] = fake + os.pathsep + os.environ.get("PATH", "")
        self.tree = self.path("hpl")
        os.makedirs(os.path.join(self.tree, "src"))
        open(os.path.join(self.tree, "Make.top"), "w").close()
        self.version("one")
        no_patches = mock.patch.object(hplbuild, "apply_patches")
        no_patches.start()
        self.addCleanup(no_patches.stop)

    def version(self, v):
        with open(os.path.join(self.tree, "VERSION"), "w") as f:
            f.write(v + "\n")

    def build(self, *args, env=None):
        return self.cli("build", "--hpl-dir", self.tree, "--build-id", "b", "--no-check", *args, env=env)

    def first(self):
        """The build b of xhpl-model and xhpl-real from version one; its snapshot."""
        status, out, err = self.build("--mode", "both")
        self.assertEqual(status, 0, err)
        d = os.path.join(self.data, "b")
        self.assertEqual(self.read(d, "xhpl-model"), "xhpl simblas_model\none\n")
        self.version("two")  # the inputs change: a rebuild replaces both binaries
        return d, snapshot(d)

    def test_a_failed_make_changes_nothing(self):
        d, before = self.first()
        for fail in ("simblas_model", "simblas_real"):
            status, out, err = self.build("--mode", "both", env={"FAKE_MAKE_FAIL": fail})
            with self.subTest(fail=fail):
                self.assertEqual(status, 1, err)
                self.assertIn("cc: error: it went wrong", err)
                self.assertIn(f"nothing changed in {d}; this build's files are in {d}/staging", err)
                self.assertEqual(snapshot(d), before)
        # and the build then succeeds, replacing both, the staging directory gone
        status, out, err = self.build("--mode", "both")
        self.assertEqual(status, 0, err)
        self.assertEqual(self.read(d, "xhpl-real"), "xhpl simblas_real\ntwo\n")
        self.assertFalse(os.path.exists(os.path.join(d, "staging")))
        man = json.loads(self.read(d, "manifest.json"))
        self.assertEqual(man["binaries"], {"model": "xhpl-model", "passthrough": "xhpl-real"})
        self.assertEqual(man["tree"], os.path.join(d, "src", "hpl"))
        self.assertTrue(os.path.isfile(os.path.join(man["tree"], "VERSION")))

    def test_sigterm_stops_make_and_changes_nothing(self):
        """SIGTERM while xhpl-real compiles, xhpl-model already made: status
        143, make and its compiler stopped, the build of before whole."""
        d, before = self.first()
        pids = self.path("pids")

        def raise_(signum, frame):
            raise Raised  # (the code of before had no handler: SIGTERM would end the tests)
        prev = signal.signal(signal.SIGTERM, raise_)
        self.addCleanup(signal.signal, signal.SIGTERM, prev)
        status, out, err = self.build("--mode", "both",
                                      env={"FAKE_MAKE_TERM": "simblas_real", "FAKE_MAKE_PIDS": pids})
        with open(pids) as f:
            compiler = int(f.read())
        self.addCleanup(lambda: procs.started(compiler) and os.kill(compiler, signal.SIGKILL))
        self.assertEqual(status, 143, err)
        self.assertEqual(err.splitlines()[-1], f"simblas-hpl: interrupted (SIGTERM): the build was stopped, "
                                               f"nothing changed in {d}")
        self.assertIsNone(procs.started(compiler), "the compiler make started still runs")
        self.assertEqual(snapshot(d), before)
        self.assertFalse(os.path.exists(os.path.join(d, "staging")))
        self.assertIs(signal.getsignal(signal.SIGTERM), raise_)  # the handler of before, put back

    def test_a_binary_not_the_manifests_is_rebuilt(self):
        """A binary that is not the one the manifest describes (put in place
        and the manifest not written) is not up to date."""
        d, before = self.first()
        self.version("one")
        with open(os.path.join(d, "xhpl-model"), "w") as f:
            f.write("another xhpl\n")
        status, out, err = self.build("--mode", "model")
        self.assertEqual(status, 0, err)
        self.assertNotIn("up to date", err)
        self.assertEqual(self.read(d, "xhpl-model"), "xhpl simblas_model\none\n")
        status, out, err = self.build("--mode", "model")
        self.assertIn("xhpl-model up to date", err)

    def test_a_manifest_without_digests_is_not_taken_on_trust(self):
        """A manifest of before each binary's sha256 was recorded (2650b7f):
        its binary was said up to date unchecked, though such a build could
        hold a binary the manifest does not describe (^C mid-rebuild); now
        it is rebuilt, in one line saying why.  A sha256 that is no table
        (null) was a traceback (TypeError)."""
        for digests in ("absent", None, ["x"]):
            d, before = self.first()
            self.version("one")
            mpath = os.path.join(d, "manifest.json")
            man = json.loads(self.read(d, "manifest.json"))
            if digests == "absent":
                del man["sha256"]
            else:
                man["sha256"] = digests
            with open(mpath, "w") as f:
                json.dump(man, f)
            with open(os.path.join(d, "xhpl-model"), "w") as f:
                f.write("another xhpl\n")
            status, out, err = self.build("--mode", "model")
            with self.subTest(digests=digests):
                self.assertEqual(status, 0, err)
                self.assertNotIn("up to date", err)
                self.assertEqual(err.splitlines()[0], "simblas-hpl: xhpl-model: its manifest, from an earlier "
                                                      "simblas-hpl, records no SHA-256 to check it by: rebuilding it")
                self.assertEqual(self.read(d, "xhpl-model"), "xhpl simblas_model\none\n")
                man = json.loads(self.read(d, "manifest.json"))
                self.assertEqual(sorted(man["sha256"]), ["model"])
                self.assertEqual(man["binaries"], {"model": "xhpl-model", "passthrough": "xhpl-real"})
                status, out, err = self.build("--mode", "model")
                self.assertIn("xhpl-model up to date", err)
                # info shows such a build as it is, without a word of digests
                status, out, err = self.cli("info", "--build-id", "b")
                self.assertEqual(status, 0, err)
            shutil.rmtree(d)

    def test_a_tarball_that_is_not_hpl_is_refused(self):
        d = fake_build(self.data, "b2", "/src/hpl-2.3.tar.gz", "t0", default=True)
        before = snapshot(d)
        os.makedirs(self.path("other"))
        with open(self.path("other", "readme"), "w") as f:
            f.write("not HPL\n")
        tb = self.path("other.tar.gz")
        with tarfile.open(tb, "w:gz") as t:
            t.add(self.path("other"), arcname="other")
        status, out, err = self.cli("build", "--hpl-tarball", tb, "--build-id", "b2", "--mode", "model")
        self.assertEqual((status, err), (2, f"simblas-hpl: --hpl-tarball {tb} is not an HPL source tarball (no "
                                            "other/Make.top or other/src/): give HPL's, e.g. netlib's "
                                            "hpl-2.3.tar.gz\n"))
        self.assertEqual(snapshot(d), before)

    def test_an_hpl_dir_inside_the_build_is_refused(self):
        d = fake_build(self.data, "b3", "/src/hpcc_1.5.0.orig.tar.gz", "t0")
        inside = os.path.join(d, "src", "hpcc-1.5.0", "hpl")
        shutil.copytree(self.tree, inside)
        status, out, err = self.cli("build", "--hpl-dir", inside, "--build-id", "b3", "--mode", "model")
        self.assertEqual((status, err.count("\n")), (2, 1), err)
        self.assertIn(f"--hpl-dir {inside} is inside the build's own directory {d}, which the build replaces", err)
        self.assertTrue(os.path.isfile(os.path.join(inside, "Make.top")))

    def test_unusable_data_and_cache_directories(self):
        afile = self.path("afile")
        open(afile, "w").close()
        for var, value, args in (("XDG_DATA_HOME", afile, ("--hpl-dir", self.tree)),
                                 ("XDG_DATA_HOME", "/proc/self/nope", ("--hpl-dir", self.tree)),
                                 ("XDG_CACHE_HOME", afile, ())):  # the Debian source is cached
            status, out, err = self.cli("build", "--mode", "model", *args, env={var: value})
            with self.subTest(var=var, value=value):
                self.assertEqual((status, err.count("\n")), (2, 1), err)
                self.assertIn(f"simblas-hpl: {var}={value}: cannot make or write the directory "
                              f"{value}/simblas/hpl (", err)
                self.assertIn(f"set {var} to a directory you can write", err)
