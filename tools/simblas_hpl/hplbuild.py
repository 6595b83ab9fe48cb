"""Building HPL against SimBLAS: the source (Debian's hpcc, a tarball, a
tree), the patch series, make, the check run of each new binary, and its
manifest (builds.py keeps the builds)."""

import contextlib
import datetime
import fcntl
import glob
import hashlib
import json
import os
import re
import shutil
import signal
import subprocess
import tarfile
import tempfile
import threading

from . import VERSION
from . import builds, hpldat, realrun, settings, signals
from .builds import BINARIES, read_series
from .errors import CliError, Terminated, note
from .files import read_text, sha256_file, tail_lines, write_atomic
from .launch import end_group, simulate, stop_group
from .installed import installed
from .locations import data_root, default_model, made_root, patch_dir, simblas_incdir, simblas_libdir, tool
from .plan import RunOptions, make_plan

SERIES = "series"
SERIES_HPCC = "series.hpcc"
MAKE_TEMPLATE = "Make.simblas.in"
ARCHS = {"model": "simblas_model", "passthrough": "simblas_real", "mpi": "simblas_mpi"}
MODES = {"both": ["model", "passthrough"], "all": ["model", "passthrough", "mpi"]}
STOPS = signals.STOPS  # held off while the group is stopped and the build put in place
PATCHES_REMEDY = "reinstall SimBLAS, or point SIMBLAS_PATCHDIR at the source tree's hpl-patches/"


def check_patch_dir(pdir, hpcc):
    """The series files, every patch they name and the Make template, or one error."""
    need = [SERIES] + ([SERIES_HPCC] if hpcc else [])
    missing = [n for n in need + [MAKE_TEMPLATE] if not os.path.isfile(os.path.join(pdir, n))]
    if missing:
        raise CliError(f"the HPL patch series is missing: {', '.join(missing)} not found in {pdir} "
                       f"({PATCHES_REMEDY})")
    patches = []
    for s in need:
        for name in read_series(os.path.join(pdir, s)):
            p = os.path.join(pdir, name)
            if not os.path.isfile(p):
                raise CliError(f"the HPL patch series is incomplete: {s} names {name}, which is not in {pdir}; "
                               + PATCHES_REMEDY)
            patches.append((s, name, p))
    if not patches:
        raise CliError(f"the HPL patch series in {pdir} is empty ({SERIES} names no patch); " + PATCHES_REMEDY)
    return patches


def safe_members(tf, prefix=None):
    for m in tf.getmembers():
        name = m.name
        if name.startswith("/") or ".." in name.split("/"):
            raise CliError(f"refusing to extract {tf.name}: member {name!r} escapes the directory", 1)
        if m.islnk() or m.issym():
            if m.linkname.startswith("/") or ".." in m.linkname.split("/"):
                continue
        if m.isdev():
            continue
        if prefix is None or name == prefix.rstrip("/") or name.startswith(prefix):
            yield m


def extract(tarball, dest, prefix=None):
    try:
        with tarfile.open(tarball) as tf:
            members = list(safe_members(tf, prefix))
            if hasattr(tarfile, "data_filter"):
                tf.extractall(dest, members=members, filter="data")
            else:
                tf.extractall(dest, members=members)
    except (tarfile.TarError, OSError) as e:
        raise CliError(f"cannot unpack {tarball}: {e}", 1)


def top_dir(tarball):
    """(the one directory the tarball unpacks to, the names of its members)."""
    try:
        with tarfile.open(tarball) as tf:
            names = [m.name.strip("/") for m in tf.getmembers() if m.name.strip("/")]
            tops = {n.split("/", 1)[0] for n in names}
    except (tarfile.TarError, OSError) as e:
        why = str(e).splitlines()[0].rstrip(":") if str(e) else type(e).__name__
        raise CliError(f"{tarball} is not a readable tar archive ({why}: not gzip, bzip2, xz or plain tar); "
                       "give HPL's source tarball, e.g. netlib's hpl-2.3.tar.gz")
    if len(tops) != 1:
        raise CliError(f"{tarball} does not unpack to one directory (found {', '.join(sorted(tops)[:5])}); "
                       "give HPL's source tarball, whose files are in hpl-X.Y/, e.g. netlib's hpl-2.3.tar.gz")
    return tops.pop(), names


def dsc_sha256(dsc, fname):
    """The Checksums-Sha256 entry of fname in a Debian .dsc, or None."""
    in_sec = False
    for line in read_text(dsc).splitlines():
        if line.startswith("Checksums-Sha256:"):
            in_sec = True
            continue
        if in_sec:
            if not line.startswith(" "):
                break
            parts = line.split()
            if len(parts) == 3 and parts[2] == fname:
                return parts[0]
    return None


def debian_hpcc_source():
    """Debian's hpcc orig tarball (HPL 2.0 in hpl/), downloaded once into the cache."""
    cache = os.path.join(made_root("XDG_CACHE_HOME"), "src")
    try:
        os.makedirs(cache, exist_ok=True)
    except OSError as e:
        raise CliError(f"cannot make the directory {cache} ({e.strerror or e}): set XDG_CACHE_HOME to a directory "
                       "you can write")

    def origs():
        return sorted(glob.glob(os.path.join(cache, "hpcc_*.orig.tar.gz")))

    if not origs():
        note(f"downloading Debian's hpcc source into {cache} (apt-get source --download-only hpcc)")
        try:
            r = subprocess.run(["apt-get", "source", "--download-only", "hpcc"], cwd=cache,
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=600)
            out = r.stdout
        except (OSError, subprocess.TimeoutExpired) as e:
            out = str(e)
        # the Debian packaging tarball may be missing (404): only the orig tarball matters
        if not origs():
            raise CliError("could not get Debian's hpcc source with `apt-get source --download-only hpcc` "
                           "(is there a deb-src line in /etc/apt/sources.list, and did `apt-get update` run?); "
                           "or build from upstream HPL with --hpl-tarball hpl-2.3.tar.gz.\n" + tail_lines(out, 8), 1)
    orig = origs()[-1]
    base = os.path.basename(orig)
    version = base[len("hpcc_"):-len(".orig.tar.gz")]
    digest = sha256_file(orig)
    for dsc in glob.glob(os.path.join(cache, f"hpcc_{version}-*.dsc")):
        want = dsc_sha256(dsc, base)
        if want and want != digest:
            os.unlink(orig)
            raise CliError(f"{base} does not match the checksum in {os.path.basename(dsc)}: "
                           "removed it; run `simblas-hpl build` again to download it afresh", 1)
    return orig, version, digest


def tree_digest(path):
    h = hashlib.sha256()
    for root, dirs, files in os.walk(path):
        rel = os.path.relpath(root, path)
        if rel == ".":
            dirs[:] = [d for d in dirs if d not in ("bin", "lib")]
        dirs.sort()
        for f in sorted(files):
            p = os.path.join(root, f)
            if os.path.islink(p) or not os.path.isfile(p):
                continue
            h.update(os.path.relpath(p, path).encode() + b"\0")
            sha256_file(p, h)
    return h.hexdigest()


def resolve_source(hpl_tarball=None, hpl_dir=None):
    """(kind, source-id, description, fingerprint, unpack(dest) -> tree path)."""
    if hpl_tarball and hpl_dir:
        raise CliError("give --hpl-tarball or --hpl-dir, not both")
    if hpl_tarball:
        tb = os.path.abspath(hpl_tarball)
        if not os.path.isfile(tb):
            raise CliError(f"--hpl-tarball {hpl_tarball}: no such file")
        top, names = top_dir(tb)
        if f"{top}/Make.top" not in names or not any(n.startswith(f"{top}/src/") for n in names):
            raise CliError(f"--hpl-tarball {hpl_tarball} is not an HPL source tarball (no {top}/Make.top or "
                           f"{top}/src/): give HPL's, e.g. netlib's hpl-2.3.tar.gz")
        digest = sha256_file(tb)
        sid = re.sub(r"[^A-Za-z0-9._+-]", "_", top) + "-" + digest[:8]

        def unpack(dest):
            extract(tb, dest)
            return os.path.join(dest, top)
        return "tarball", sid, tb, digest, unpack
    if hpl_dir:
        d = os.path.abspath(hpl_dir)
        if not os.path.isfile(os.path.join(d, "Make.top")) or not os.path.isdir(os.path.join(d, "src")):
            raise CliError(f"--hpl-dir {hpl_dir} is not an HPL source tree (no Make.top or src/)")
        digest = tree_digest(d)
        sid = "dir-" + re.sub(r"[^A-Za-z0-9._+-]", "_", os.path.basename(d)) + "-" + \
            hashlib.sha256(d.encode()).hexdigest()[:8]

        def unpack(dest):
            tree = os.path.join(dest, os.path.basename(d))
            shutil.copytree(d, tree, symlinks=True,
                            ignore=lambda r, names: [n for n in names if r == d and n in ("bin", "lib")])
            return tree
        return "dir", sid, d, digest, unpack
    orig, version, digest = debian_hpcc_source()
    top, _ = top_dir(orig)

    def unpack(dest):
        extract(orig, dest, prefix=top + "/hpl/")
        tree = os.path.join(dest, top, "hpl")
        if not os.path.isdir(tree):
            raise CliError(f"{orig} has no {top}/hpl/ directory: not Debian's hpcc source; remove it and run "
                           "`simblas-hpl build` again to download it afresh (or build upstream HPL with "
                           "--hpl-tarball hpl-2.3.tar.gz)", 1)
        return tree
    return "debian-hpcc", f"hpcc-{version}", orig, digest, unpack


def apply_patches(tree, patches, desc):
    for series, name, path in patches:
        r = subprocess.run(["patch", "-p1", "--fuzz=0", "--batch", "--forward",
                            "--no-backup-if-mismatch", "-i", path],
                           cwd=tree, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        if r.returncode != 0:
            said = [ln.strip() for ln in r.stdout.splitlines()
                    if re.search(r"FAILED|can't find file|No file to patch|Reversed|malformed|missing", ln)]
            raise CliError(f"patch {name} (from {series}) does not apply to {desc} with `patch -p1 --fuzz=0`"
                           + (f" ({said[0]})" if said else "")
                           + ": the source is not HPL 2.x as the series was made for, or is already patched; "
                           "give an unpatched HPL 2.x (default: Debian's hpcc; or --hpl-tarball hpl-2.3.tar.gz)")


def fill_template(template, values):
    text = template
    for k, v in values.items():
        text = text.replace("@" + k + "@", v)
    left = sorted(set(re.findall(r"@[A-Z0-9_]+@", text)))
    if left:
        raise CliError(f"{MAKE_TEMPLATE} has placeholders simblas-hpl does not know: {', '.join(left)}; "
                       "the patches and simblas-hpl come from different versions: install both from one build", 1)
    return text


def openblas_link():
    """The link flags of the real BLAS of xhpl-mpi: the OpenBLAS configure
    found (the one passthrough computes with and the calibrator measures),
    else the system's -lopenblas."""
    ob = installed("OPENBLAS_LIBDIR")
    if ob and os.path.isdir(ob):
        return f"-L{ob} -Wl,-rpath,{ob} -lopenblas"
    return "-lopenblas"


def make_arch(tree, mode, template, libdir, incdir, cc, logpath, detailed_timing=False):
    """Build mode's binary in tree with compiler cc (smpicc; mpicc for mpi);
    detailed_timing: -DHPL_DETAILED_TIMING (HPL prints each phase's time)."""
    arch = ARCHS[mode]
    if mode == "mpi":
        # plain HPL, computing, with the real MPI and OpenBLAS: the same
        # patched source, without -DSIMBLAS_HPL; HPL_NO_MPI_DATATYPE as the
        # simulated builds (and hpcc's HPL 2.0 calls MPI-1's MPI_Type_struct,
        # which Open MPI 4's mpi.h refuses at compile time)
        values = {"TOPDIR": tree, "ARCH": arch, "SIMBLAS_LIBDIR": "", "SIMBLAS_INCDIR": "",
                  "LALIB": openblas_link(), "HPL_DEFS_EXTRA": "-DHPL_NO_MPI_DATATYPE"}
    else:
        values = {
            "TOPDIR": tree, "ARCH": arch, "SIMBLAS_LIBDIR": libdir, "SIMBLAS_INCDIR": incdir,
            # libsimblas_pmpi first, kept although HPL's MPI references are weak:
            # its MPI wrappers flush merged injections (SIMBLAS_MERGE=1) and
            # charge polls per rank (SIMBLAS_POLL_COST), in both modes
            "LALIB": f"-L{libdir} -Wl,-rpath,{libdir} -Wl,--no-as-needed -lsimblas_pmpi -Wl,--as-needed -lsimblas",
            # HPL_NO_MPI_DATATYPE: HPL packs panels itself (HPL_dlacpy, modelled)
            # and sends contiguous, partially folded buffers that SMPI does not
            # copy; with MPI datatypes SMPI serialises L2 out of the matrix (a
            # quarter of the wall time at N=20000 on 64 ranks).  Both builds use
            # it, so that model and passthrough runs communicate alike.
            "HPL_DEFS_EXTRA": "-DSIMBLAS_HPL -DHPL_NO_MPI_DATATYPE" if mode == "model" else "-DHPL_NO_MPI_DATATYPE",
        }
    if detailed_timing:
        values["HPL_DEFS_EXTRA"] += " -DHPL_DETAILED_TIMING"
    with open(os.path.join(tree, f"Make.{arch}"), "w") as f:
        f.write(fill_template(template, values))
    # objects of this arch left by an earlier compile (of another
    # configuration) would be linked as they are: a clean arch every time
    for old in glob.glob(os.path.join(tree, "*", "*", arch)) + glob.glob(os.path.join(tree, "*", arch)):
        if os.path.isdir(old) and not os.path.islink(old):
            shutil.rmtree(old, ignore_errors=True)
    env = dict(os.environ)
    env["PATH"] = os.path.dirname(cc) + os.pathsep + env.get("PATH", "")
    env.pop("MAKEFLAGS", None)  # HPL's makefiles are not parallel-safe
    note(f"building {BINARIES[mode]} (make arch={arch}; log: {logpath})")
    # the template names smpicc; the real build's compiler replaces it (a
    # command-line variable reaches HPL's sub-makes through MAKEFLAGS)
    cmd = ["make", f"arch={arch}"] + ([f"CC={cc}", f"LINKER={cc}"] if mode == "mpi" else [])
    # in a session of its own, stopped with its compilers on ^C, SIGTERM
    # and SIGHUP (Terminated: build() turns them into exceptions), never
    # left running, orphaned, in a tree that is being removed
    with open(logpath, "w") as log:
        proc = signals.started_held(cmd, cwd=tree, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
                            env=env, start_new_session=True)
        try:
            signals.redeliver(proc.held_signals)
            returncode = proc.wait()
        except BaseException:
            mask = signal.pthread_sigmask(signal.SIG_BLOCK, STOPS)  # a second SIGTERM does not cut this short
            try:
                stop_group(proc)
            finally:
                signal.pthread_sigmask(signal.SIG_SETMASK, mask)
            raise
        end_group(proc)  # anything make left behind
    xhpl = os.path.join(tree, "bin", arch, "xhpl")
    if returncode != 0 or not os.path.isfile(xhpl):
        text = read_text(logpath)
        hint = ""
        m = re.search(r"undefined reference to `(simblas_\w+)'", text)
        if m:
            hint = (f"\nlibsimblas in {libdir} lacks {m.group(1)}: rebuild/reinstall SimBLAS "
                    "(this HPL patch series needs a newer libsimblas).")
        elif mode == "mpi" and re.search(r"cannot find -lopenblas|openblas", text, re.I):
            hint = "\nxhpl-mpi links OpenBLAS: install libopenblas-dev (scripts/install-deps.sh)."
        elif returncode == 0:
            hint = f"\nmake succeeded but made no bin/{arch}/xhpl: the patch series does not build an xhpl here."
        raise CliError(f"building {BINARIES[mode]} failed (make arch={arch}, log {logpath}):\n"
                       f"{tail_lines(text, 15)}{hint}", 1)
    return xhpl


def smoke_test(d, mode, binary, model):
    """A tiny run of the new binary: passthrough and mpi must pass HPL's
    residual check."""
    n, nb = (400, 32) if mode != "model" else (1000, 64)
    tmp = tempfile.mkdtemp(prefix="check-", dir=d)
    if mode == "mpi":  # a real run, on up to 2 cores
        p = min(2, realrun.machine_cores())
        try:
            res = realrun.run_real(binary, n, nb, p, 1, hpldat.settings(), tmp, timeout=300)
        except CliError as e:
            raise CliError(f"the new {BINARIES[mode]} does not work (mpirun, N={n} on {p}x1): {e}", 1)
        shutil.rmtree(tmp, ignore_errors=True)
        res.update(n=n, p=p, q=1)
        return res
    try:
        plan = make_plan(RunOptions(n=n, nb=nb, p=2, q=2, mode=mode, model=model, timeout=600, xhpl=binary))
        res = simulate(plan, tmp, quiet=True).summary
    except CliError as e:
        hint = ""
        ob = installed("OPENBLAS_LIBDIR")
        if mode == "passthrough" and ob and not settings.given("SIMBLAS_BACKEND"):
            hint = f"\n(passthrough computes with the BLAS in SIMBLAS_BACKEND; try SIMBLAS_BACKEND={ob}/libopenblas.so)"
        raise CliError(f"the new {BINARIES[mode]} does not work ({mode} mode, N={n} on 2x2): {e}\n"
                       f"(run files kept in {tmp}){hint}", 1)
    if mode == "passthrough" and res.get("residual_passed") is not True:
        raise CliError(f"the new {BINARIES[mode]} computed a wrong answer in passthrough mode "
                       f"(HPL residual check: {res.get('residual')}); files in {tmp}", 1)
    shutil.rmtree(tmp, ignore_errors=True)
    return res


def mpicc_or_none():
    """Open MPI's mpicc (SIMBLAS_MPICC, else PATH), or None."""
    c = settings.value("SIMBLAS_MPICC") or shutil.which("mpicc")
    return c if c and os.access(c, os.X_OK) else None


def build(mode=None, hpl_tarball=None, hpl_dir=None, force=False, no_check=False, build_id=None,
          make_default=False, detailed_timing=False):
    """`simblas-hpl build`: the binaries of mode (model, passthrough, mpi;
    both: model and passthrough; all: the three; None: the three, or the
    first two when there is no mpicc) from the source given (default:
    Debian's hpcc), patched, checked, in the build build_id (default: the
    source's ID; with detailed_timing, HPL's -DHPL_DETAILED_TIMING, the
    source's ID and "-timing")."""
    mpicc = mpicc_or_none()
    if mode is None:
        mode = "all" if mpicc else "both"
        if not mpicc:
            note("no mpicc (Open MPI): building without xhpl-mpi, the real-MPI HPL of `simblas-hpl validate`; "
                 "install openmpi-bin and libopenmpi-dev (scripts/install-deps.sh) for it")
    modes = MODES.get(mode, [mode])
    if "mpi" in modes and not mpicc:
        raise CliError("xhpl-mpi is built with Open MPI's mpicc, which is not installed: install openmpi-bin and "
                       "libopenmpi-dev (scripts/install-deps.sh), or set SIMBLAS_MPICC")
    if build_id:
        builds.check_id(build_id)
    libdir, incdir = simblas_libdir(), simblas_incdir()
    smpicc = tool("smpicc", "SMPICC", "SMPICC")
    for prog in ("make", "patch"):
        tool(prog)
    pdir = patch_dir()
    hpcc = not (hpl_tarball or hpl_dir)
    patches = check_patch_dir(pdir, hpcc)
    template = read_text(os.path.join(pdir, MAKE_TEMPLATE))
    kind, sid, desc, src_digest, unpack = resolve_source(hpl_tarball, hpl_dir)

    h = hashlib.sha256()
    for _, name, p in patches:
        h.update(name.encode() + b"\0")
        sha256_file(p, h)
    h.update(template.encode())
    patch_digest = h.hexdigest()
    fingerprint = hashlib.sha256("\0".join([
        src_digest, patch_digest, libdir, incdir,
        # the headers HPL compiles against (hpl_simblas.h includes the other two)
        *(sha256_file(os.path.join(incdir, h)) for h in ("simblas.h", "simblas_app.h", "hpl_simblas.h")
          if os.path.exists(os.path.join(incdir, h))),
        os.path.realpath(smpicc), os.path.realpath(mpicc) if mpicc else "", openblas_link(),
        "HPL_DETAILED_TIMING" if detailed_timing else ""]).encode()).hexdigest()

    bid = build_id or (sid + "-timing" if detailed_timing else sid)
    d = os.path.join(made_root("XDG_DATA_HOME"), bid)
    if kind == "dir":
        inside = [(a, b) for a, b in ((desc, d), (d, desc)) if within(a, b)]
        if inside:
            raise CliError(f"--hpl-dir {hpl_dir} is " + ("inside the build's own directory" if inside[0][0] == desc
                                                         else "a directory that holds the build's own,")
                           + f" {d}, which the build replaces: give an unpacked, unpatched HPL tree elsewhere "
                           "(copy it out first)")
    made = not os.path.lexists(d)
    try:
        os.makedirs(d, exist_ok=True)
        lock = open(os.path.join(d, ".lock"), "w")
    except OSError as e:
        raise CliError(f"cannot make the build's directory {d} ({e.strerror or e}): remove what is in its place, "
                       "or give another --build-id")
    with lock:  # closed, and so released, when done
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            raise CliError(f"another `simblas-hpl build` is building in {d}", 1)
        with dropped_if_left_empty(d, made):
            mpath = os.path.join(d, "manifest.json")
            old = {}
            if os.path.isfile(mpath):
                try:
                    with open(mpath) as f:
                        old = json.load(f)
                except (OSError, ValueError):
                    old = {}
            old = old if isinstance(old, dict) else {}
            same = old.get("fingerprint") == fingerprint

            def recorded(key):  # the old manifest's table, {} when it has none (or not a table)
                return dict(old[key]) if same and isinstance(old.get(key), dict) else {}
            binaries, digests, checks = recorded("binaries"), recorded("sha256"), recorded("checks")

            def up_to_date(m):
                p = os.path.join(d, binaries[m]) if m in binaries else None
                if not (p and os.path.isfile(p)):
                    return False
                if m not in digests:  # a manifest of before the digests: it may not describe this binary
                    note(f"{BINARIES[m]}: its manifest, from an earlier simblas-hpl, records no SHA-256 to check "
                         "it by: rebuilding it")
                    return False
                return digests[m] == sha256_file(p)
            todo = [m for m in modes if force or not up_to_date(m)]
            if not todo:
                note(f"{', '.join(BINARIES[m] for m in modes)} up to date in {d} (--force rebuilds)")
                settle_default(bid, make_default)
                return 0

            # everything is made aside, in staging/, and put in place only once
            # all is built and checked: a failure or an interrupt (^C, SIGTERM,
            # SIGHUP) at any point leaves the build in d as it was
            staging = os.path.join(d, "staging")
            previous = signals.raise_on_term() if threading.current_thread() is threading.main_thread() else {}
            try:
                try:
                    shutil.rmtree(staging, ignore_errors=True)
                    os.makedirs(os.path.join(staging, "src"))
                    tree = build_aside(staging, todo, unpack, desc, patches, pdir, template, libdir, incdir, smpicc, mpicc,
                                       detailed_timing, no_check, checks)
                    for m in todo:
                        binaries[m] = BINARIES[m]
                        digests[m] = sha256_file(os.path.join(staging, BINARIES[m]))
                    manifest = {
                        "format": 1, "simblas_hpl": VERSION, "build_id": bid, "source_id": sid, "source_kind": kind,
                        "source": desc, "source_sha256": src_digest, "patch_dir": pdir,
                        "patches": [n for _, n, _ in patches], "patches_sha256": patch_digest,
                        "simblas_libdir": libdir, "simblas_incdir": incdir,
                        "smpicc": smpicc, "fingerprint": fingerprint,
                        "tree": os.path.join(d, "src", os.path.relpath(tree, os.path.join(staging, "src"))),
                        "detailed_timing": bool(detailed_timing), "binaries": binaries, "sha256": digests,
                        "checks": checks,
                        "built": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
                    }
                except (KeyboardInterrupt, Terminated) as e:
                    shutil.rmtree(staging, ignore_errors=True)
                    code, why = ((128 + e.signum, signal.Signals(e.signum).name) if isinstance(e, Terminated)
                                 else (130, "^C"))
                    raise CliError(f"interrupted ({why}): the build was stopped, nothing changed in {d}", code)
                except CliError as e:
                    if e.status > 128:  # the check run, interrupted
                        shutil.rmtree(staging, ignore_errors=True)
                        raise CliError(f"interrupted ({signal.Signals(e.status - 128).name}): the build was stopped, "
                                       f"nothing changed in {d}", e.status)
                    if e.status != 1:  # refused: nothing in staging/ to look at
                        shutil.rmtree(staging, ignore_errors=True)
                    else:
                        e.args = (f"{e}\n(nothing changed in {d}; this build's files are in {staging})",)
                    raise
                try:
                    put_in_place(d, staging, todo, old, manifest, previous)
                except OSError as e:
                    raise CliError(f"cannot put the new build in place in {d}: {e}", 1)
                finally:
                    previous = {}
            finally:
                signals.restore(previous)
            for m in todo:
                print(os.path.join(d, BINARIES[m]))
            note(f"built {', '.join(BINARIES[m] for m in todo)} from {desc} in {d}")
            settle_default(bid, make_default)
            return 0


@contextlib.contextmanager
def dropped_if_left_empty(d, made):
    """The build directory d, which this build made (made) and whose lock it
    holds, removed again if the build leaves nothing in it but that lock: a
    source or patch refused, or an interrupt, under a new build id left an
    empty build that `simblas-hpl info` listed."""
    try:
        yield
    finally:
        try:
            if made and os.listdir(d) == [".lock"]:
                os.unlink(os.path.join(d, ".lock"))
                os.rmdir(d)
        except OSError:
            pass


def within(path, root):
    """Whether path is root or inside it (symbolic links resolved)."""
    path, root = os.path.realpath(path), os.path.realpath(root)
    return path == root or path.startswith(root.rstrip("/") + "/")


def build_aside(staging, todo, unpack, desc, patches, pdir, template, libdir, incdir, smpicc, mpicc,
                detailed_timing, no_check, checks):
    """Unpack, patch, make and check the binaries of todo in staging (its
    src/, its build-*.log, the binaries beside them); checks updated; the
    patched tree's path."""
    note(f"unpacking {desc}")
    tree = unpack(os.path.join(staging, "src"))
    note(f"applying {len(patches)} patch(es) from {pdir}")
    apply_patches(tree, patches, desc)
    model = default_model()
    for m in todo:
        xhpl = make_arch(tree, m, template, libdir, incdir, mpicc if m == "mpi" else smpicc,
                         os.path.join(staging, f"build-{ARCHS[m]}.log"), detailed_timing=detailed_timing)
        dest = os.path.join(staging, BINARIES[m])
        shutil.copy2(xhpl, dest)
        if no_check:
            checks[m] = "skipped"
        elif m == "mpi" or (model and os.path.isfile(model)):
            res = smoke_test(staging, m, dest, model)
            checks[m] = {"n": res["n"], "gflops": res["gflops"], "residual": res.get("residual"),
                         "wall_s": res["wall_s"]}
            grid = f"{res.get('p', 2)}x{res.get('q', 2)}"
            note(f"{BINARIES[m]} checked: N={res['n']} {grid} {m}: {res['gflops']:g} Gflops"
                 + (f", residual {res['residual']} PASSED" if m != "model" else ""))
        else:
            checks[m] = "skipped: no model file"
    return tree


def put_in_place(d, staging, todo, old, manifest, previous):
    """Move the new binaries, logs and source tree from staging into d, then
    write the manifest (atomically, last) and remove the binaries it no
    longer lists, with ^C, SIGTERM and SIGHUP held off meanwhile.  The old
    manifest first loses the binaries that are replaced: whatever stops
    this (a full disk, kill -9), the manifest never describes a binary it
    was not made with.  The handlers of before (previous) are restored
    before the signals are let through: one that came meanwhile then ends
    the process, the build complete."""
    mask = signal.pthread_sigmask(signal.SIG_BLOCK, STOPS)
    try:
        mpath = os.path.join(d, "manifest.json")
        if isinstance(old.get("binaries"), dict) and any(m in old["binaries"] for m in todo):
            interim = dict(old)
            for k in ("binaries", "sha256", "checks"):
                if isinstance(old.get(k), dict):
                    interim[k] = {m: v for m, v in old[k].items() if m not in todo}
            write_atomic(mpath, json.dumps(interim, indent=2) + "\n")
        for m in todo:
            os.replace(os.path.join(staging, BINARIES[m]), os.path.join(d, BINARIES[m]))
        for log in glob.glob(os.path.join(staging, "build-*.log")):
            os.replace(log, os.path.join(d, os.path.basename(log)))
        src = os.path.join(d, "src")
        if os.path.lexists(src):
            os.replace(src, os.path.join(staging, "src.old"))
        os.replace(os.path.join(staging, "src"), src)
        write_atomic(mpath, json.dumps(manifest, indent=2) + "\n")
        for m, b in BINARIES.items():
            if m not in manifest["binaries"] and os.path.lexists(os.path.join(d, b)):
                os.unlink(os.path.join(d, b))
        shutil.rmtree(staging, ignore_errors=True)
    finally:
        signals.restore(previous)
        signal.pthread_sigmask(signal.SIG_SETMASK, mask)


def settle_default(bid, make_default):
    """A build becomes the default when asked (--make-default) or when there
    is no (valid) default; otherwise the default stays, and is said."""
    current = builds.file_default()
    if make_default or not current or not builds.load(current):
        builds.set_default_build(bid)
        if current and current != bid:
            note(f"the default HPL build is now {bid} (was {current}): runs without --build-id use it")
    elif current != bid:
        note(f"the default HPL build stays {current}: runs without --build-id use it; run this one with "
             f"--build-id {bid}, or make it the default with the same options and --make-default")
