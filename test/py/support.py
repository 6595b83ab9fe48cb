"""What the tests of tools/simblas_hpl share: the package on sys.path, the
build tree's tables (SB_BUILDDIR: settings.json, ops.json), and
simblas-hpl run in-process in a sandbox (dryrun_fixtures.sandbox: a fake
libsimblas, xhpl, jemalloc and smpirun under one temporary root; this
smpirun only records that it was called)."""

import contextlib
import io
import json
import os
import shutil
import sys
import tempfile
import unittest
from unittest import mock

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.environ.get("SB_SRCDIR") or os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(SRC, "tools"))
sys.path.insert(0, HERE)

import dryrun_fixtures  # noqa: E402
from simblas_hpl import cli  # noqa: E402

# where a test calls the package itself (outside a sandbox), the build tree's
# tables, as a user's SIMBLAS_DATADIR naming a build tree gives them
os.environ["SIMBLAS_DATADIR"] = dryrun_fixtures.build_tree()

DATA = dryrun_fixtures.DATA


def fake_build(data, bid, source, built, modes=("model", "passthrough"), default=False):
    """A build of fake binaries in data (XDG_DATA_HOME/simblas/hpl), as
    `simblas-hpl build` lays it out (and made the default); its directory."""
    d = os.path.join(data, bid)
    os.makedirs(d)
    names = {"model": "xhpl-model", "passthrough": "xhpl-real"}
    for m in modes:
        with open(os.path.join(d, names[m]), "wb") as f:
            f.write(b"fake xhpl, linked with libsimblas_pmpi.so")
    with open(os.path.join(d, "manifest.json"), "w") as f:
        json.dump({"build_id": bid, "source": source, "built": built, "binaries": {m: names[m] for m in modes}}, f)
    if default:
        with open(os.path.join(data, "default"), "w") as f:
            f.write(bid + "\n")
    return d


class Sandbox(unittest.TestCase):
    """A test case with self.root (the sandbox), self.env (its environment)
    and self.cli(*args) -> (status, stdout, stderr)."""

    def setUp(self):
        self.root = tempfile.mkdtemp(prefix="sbpy")
        self.addCleanup(shutil.rmtree, self.root, True)
        self.env = dryrun_fixtures.sandbox(self.root)
        self.called = os.path.join(self.root, "smpirun-was-called")
        with open(self.env["SMPIRUN"], "w") as f:
            f.write(f"#!/bin/sh\ntouch {self.called}\nexit 0\n")
        self.xhpl = os.path.join(self.root, "xhpl")

    def path(self, *parts):
        return os.path.join(self.root, *parts)

    def cli(self, *args, env=None, unset=()):
        """simblas-hpl ARGS in this process, in the sandbox's environment
        (updated with env, without the variables in unset)."""
        e = dict(self.env)
        e.update(env or {})
        for k in unset:
            e.pop(k, None)
        out, err = io.StringIO(), io.StringIO()
        with mock.patch.dict(os.environ, e, clear=True), \
                contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                status = cli.main([str(a) for a in args])
            except SystemExit as x:  # argparse's --help and --version
                status = x.code
        return status, out.getvalue(), err.getvalue()

    def dry(self, *args, keep=None, **kw):
        """A dry run with the sandbox's xhpl: (status, stdout, stderr, run directory)."""
        keep = keep or self.path("dry")
        r = self.cli("run", *args, "--dry-run", "--keep", keep, "--xhpl", self.xhpl, **kw)
        return r + (keep,)

    def read(self, *parts):
        with open(os.path.join(*parts)) as f:
            return f.read()
