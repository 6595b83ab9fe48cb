"""The files `simblas-hpl run --dry-run` writes, in a sandbox of fixed paths.

A case of dryrun/cases.txt runs with a fake libsimblas directory and
simblas.h, a fake xhpl (--xhpl), a fake jemalloc, fake smpirun and smpicc,
and data/measured.model, all under one temporary root that the stored files
name @ROOT@, with the tables of the build tree SB_BUILDDIR (settings.json,
ops.json) beside the fake libsimblas; nothing of the machine running it
(LD_PRELOAD, SIMBLAS_*, a terminal) gets in.

    SB_BUILDDIR=BUILD python3 test/py/dryrun_fixtures.py OUTDIR CLI...

writes OUTDIR/<case>/{HPL.dat,platform.xml,hostfile,run.sh}
from the command CLI (e.g. `python3 tools/simblas-hpl.in`): that is how
test/py/dryrun/ was made, with main's tools/simblas-hpl.in at 34d12cc.
A file over 32 KiB (the hostfiles of thousands of ranks) is stored as
FILE.sha256, its digest.  test_dryrun.py makes them again with this tree's
simblas-hpl and compares.
"""

import hashlib
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "data")
CASES = os.path.join(HERE, "dryrun", "cases.txt")
FILES = ("HPL.dat", "platform.xml", "hostfile", "run.sh")
# what the environment may say to simblas-hpl, all of it cleared
CLEARED = ("LD_PRELOAD", "SIMBLAS_CODE_CLOCK", "SIMBLAS_FREECLOCK", "SIMBLAS_JEMALLOC", "SIMBLAS_HPL_BUILD",
           "SIMBLAS_MODEL", "SIMBLAS_LIBDIR", "SIMBLAS_INCDIR", "SIMBLAS_DATADIR", "SIMBLAS_PATCHDIR",
           "SMPIRUN", "SMPICC", "SIMBLAS_BACKEND")


def cases():
    """[(name, [options])] of cases.txt, @DATA@ replaced."""
    out = []
    with open(CASES) as f:
        for line in f:
            if line.strip() and not line.startswith("#"):
                name, *args = line.split()
                out.append((name, [a.replace("@DATA@", DATA) for a in args]))
    return out


# the tables the build writes (lib/mksettings, lib/mkops), the only way the
# Python side reads lib/settings.def and lib/blas.def
TABLES = ("settings.json", "ops.json")


def build_tree():
    """SB_BUILDDIR, the build tree whose tables simblas-hpl reads here; exits
    with one line saying what is missing when it lacks them."""
    b = os.environ.get("SB_BUILDDIR")
    lacking = [t for t in TABLES if not (b and os.path.isfile(os.path.join(b, t)))]
    if lacking:
        sys.exit(f"test/py: no {' or '.join(lacking)} in SB_BUILDDIR ({b or 'unset'}): build SimBLAS (make) and "
                 "set SB_BUILDDIR to its build tree (make check does)")
    return os.path.abspath(b)


def sandbox(root):
    """The fake installation under root; returns the environment to run in."""
    lib = os.path.join(root, "lib")
    os.makedirs(lib)
    for name in ("libsimblas_pmpi.so", "libsimblas_freeclock.so"):
        open(os.path.join(lib, name), "w").close()
    # the build's own: simblas-hpl has it load the model before a run (model.check_loads)
    shutil.copy(os.path.join(build_tree(), ".libs", "libsimblas.so"), os.path.join(lib, "libsimblas.so"))
    with open(os.path.join(root, "xhpl"), "wb") as f:
        f.write(b"\0fake xhpl, linked with libsimblas_pmpi.so\0")
    open(os.path.join(root, "libjemalloc.so.2"), "w").close()
    for prog in ("smpirun", "smpicc"):
        with open(os.path.join(root, prog), "w") as f:
            f.write("#!/bin/sh\nexit 0\n")
        os.chmod(os.path.join(root, prog), 0o755)
    os.makedirs(os.path.join(root, "include"))
    open(os.path.join(root, "include", "simblas.h"), "w").close()
    shutil.copy(os.path.join(DATA, "measured.model"), os.path.join(root, "measured.model"))
    for t in TABLES:  # beside the fake libsimblas, where simblas-hpl looks for them (settings.table_path)
        shutil.copy(os.path.join(build_tree(), t), os.path.join(root, t))
    env = {k: v for k, v in os.environ.items() if k not in CLEARED}
    env.update(SIMBLAS_LIBDIR=lib, SIMBLAS_INCDIR=os.path.join(root, "include"),
               SIMBLAS_PATCHDIR=os.path.join(os.path.dirname(os.path.dirname(HERE)), "hpl-patches"),
               SIMBLAS_MODEL=os.path.join(root, "measured.model"),
               SIMBLAS_JEMALLOC=os.path.join(root, "libjemalloc.so.2"), SMPIRUN=os.path.join(root, "smpirun"),
               SMPICC=os.path.join(root, "smpicc"),
               XDG_DATA_HOME=os.path.join(root, "data"), XDG_CACHE_HOME=os.path.join(root, "cache"))
    return env


def dry_run(cli, root, env, name, args):
    """Run one case; {file name: contents with root as @ROOT@}."""
    work = os.path.join(root, "work", name)
    r = subprocess.run(list(cli) + ["run"] + args + ["--keep", work, "--dry-run", "--xhpl", os.path.join(root, "xhpl")],
                       env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if r.returncode != 0:
        raise RuntimeError(f"{name}: {' '.join(cli)} exited {r.returncode}: {r.stderr.strip()}")
    files = {}
    for fname in FILES + ("hpccinf.txt",):  # (HPCC's HPL reads that name)
        with open(os.path.join(work, fname)) as f:
            files[fname] = f.read().replace(root, "@ROOT@")
    return files


def all_cases(cli):
    """{case: {file: contents}} for every case, in a fresh sandbox."""
    root = tempfile.mkdtemp(prefix="sbdry")
    try:
        env = sandbox(root)
        return {name: dry_run(cli, root, env, name, args) for name, args in cases()}
    finally:
        shutil.rmtree(root, ignore_errors=True)


BIG = 32 << 10


def stored(fname, text):
    """(name, contents) as kept in the fixtures: a digest for a large file."""
    if len(text) > BIG:
        return fname + ".sha256", hashlib.sha256(text.encode()).hexdigest() + "\n"
    return fname, text


def main(argv):
    if len(argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    out = argv[1]
    for name, files in all_cases(argv[2:]).items():
        os.makedirs(os.path.join(out, name), exist_ok=True)
        for fname in FILES:
            fname, text = stored(fname, files[fname])
            with open(os.path.join(out, name, fname), "w") as f:
                f.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
