"""The HPL builds on disk: one directory per build under data_root(), named
by its ID (--build-id; by default its source's ID), with its binaries and a
manifest.json.  The file `default` names the build a run uses when it names
none (SIMBLAS_HPL_BUILD overrides it); a new build becomes the default only
when there is none, or when asked (build --make-default), so that later
runs do not change builds underneath a study."""

import dataclasses
import json
import os
import re
from typing import List, Optional

from . import settings
from .errors import CliError
from .files import read_text, write_atomic
from .locations import data_root, patch_dir

# model: BLAS predicted, under smpirun; passthrough: BLAS computed, under
# smpirun; mpi: plain HPL with the real MPI (Open MPI's mpicc) and OpenBLAS,
# run by mpirun: the ground truth `simblas-hpl validate` compares with
BINARIES = {"model": "xhpl-model", "passthrough": "xhpl-real", "mpi": "xhpl-mpi"}
ID_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9._+-]{0,99}")


@dataclasses.dataclass(frozen=True)
class Build:
    """One build: its ID, directory and manifest (what it was built from)."""
    id: str
    dir: str
    manifest: dict = dataclasses.field(compare=False)

    def field(self, key, kind):
        """The manifest's key when it is a kind (dict, list), else an empty
        one: a manifest written by hand or by an older simblas-hpl may hold
        null or another type there."""
        v = self.manifest.get(key)
        return v if isinstance(v, kind) else kind()

    def binary(self, mode):
        """The path of its binary for mode, or None when it has none."""
        name = self.field("binaries", dict).get(mode)
        name = name if isinstance(name, str) else None
        p = os.path.join(self.dir, name) if name else None
        return p if p and os.path.isfile(p) else None

    def describe(self):
        m = self.manifest
        modes = ", ".join(BINARIES[k] for k in BINARIES if self.binary(k)) or "no binary"
        return f"{self.id} (from {m.get('source', '?')}, built {m.get('built', '?')}; {modes})"

    def patches_missing(self):
        """The patches of the installed series (series, and series.hpcc for an
        hpcc source) that this build was not patched with: a build older
        than the SimBLAS installed ([] when it has them all, or when either
        list cannot be read)."""
        had = self.manifest.get("patches")
        try:
            pdir = patch_dir()
        except CliError:
            return []
        names = [n for s in (("series", "series.hpcc") if self.manifest.get("source_kind") == "debian-hpcc"
                             else ("series",)) for n in read_series(os.path.join(pdir, s))]
        if not isinstance(had, list) or not names:
            return []
        return [n for n in names if n not in had]

    def ref(self, chosen_by):
        """What a run says of the build it used (BuildRef)."""
        return BuildRef(id=self.id, source=self.manifest.get("source"), built=self.manifest.get("built"),
                        chosen_by=chosen_by)


@dataclasses.dataclass(frozen=True)
class BuildRef:
    """The HPL build a run uses: its id, source, build date, and how it was
    chosen ("default", "--build-id", "SIMBLAS_HPL_BUILD", "validate")."""
    id: str
    source: Optional[str]
    built: Optional[str]
    chosen_by: str

    def to_json(self):
        """What a run's JSON says of it (the fields in this order)."""
        return dataclasses.asdict(self)


def read_series(path):
    """The patch names a series file lists, in order ('#' comments and blank
    lines skipped; [] when it cannot be read)."""
    names = []
    for line in read_text(path).splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            names.append(line.split()[0])
    return names


def valid_id(build_id):
    return bool(ID_RE.fullmatch(build_id)) and build_id != "default"


def check_id(build_id, what=None):
    """build_id, or CliError naming where it came from (what; default
    --build-id): a path such as ../x would name a directory outside the
    builds'."""
    if not valid_id(build_id):
        raise CliError(f"{what or '--build-id ' + repr(build_id)}: an ID is up to 100 letters, digits and . _ + -, "
                       "starting with a letter or digit (and not 'default')")
    return build_id


def load(build_id):
    """The build of that ID, or None (no manifest, or one that is not a
    JSON object, or an ID that is no build's: ../x)."""
    if not valid_id(build_id):
        return None
    d = os.path.join(data_root(), build_id)
    try:
        with open(os.path.join(d, "manifest.json")) as f:
            man = json.load(f)
    except (OSError, ValueError):
        return None
    return Build(build_id, d, man) if isinstance(man, dict) else None


def all_builds() -> List[Build]:
    root = data_root()
    try:
        names = sorted(os.listdir(root))
    except OSError:
        return []
    return [b for b in map(load, names) if b]


def file_default():
    """The ID the `default` file names ('' when none)."""
    return read_text(os.path.join(data_root(), "default")).strip()


def default_id():
    """(ID, who chose it): SIMBLAS_HPL_BUILD, else the `default` file; (None, None)."""
    env = settings.value("SIMBLAS_HPL_BUILD")
    if env:
        return env, "SIMBLAS_HPL_BUILD"
    sid = file_default()
    return (sid, "default") if sid else (None, None)


def set_default_build(build_id):
    root = data_root()
    os.makedirs(root, exist_ok=True)
    write_atomic(os.path.join(root, "default"), build_id + "\n")


def known(builds=None):
    """The builds, listed for an error message."""
    builds = all_builds() if builds is None else builds
    did = file_default()
    return "; ".join(b.describe() + (" [the default]" if b.id == did else "") for b in builds)


def choose(build_id=None) -> (Optional[Build], Optional[str]):
    """(the build a run uses, who chose it): --build-id, SIMBLAS_HPL_BUILD,
    the default.  (None, None) when there is no build at all; CliError when
    the one named does not exist, listing those that do."""
    bid, by = (build_id, "--build-id") if build_id else default_id()
    what = {"--build-id": f"--build-id {bid}", "SIMBLAS_HPL_BUILD": f"SIMBLAS_HPL_BUILD={bid}"}.get(
        by, f"the default build, {bid},")
    if bid:
        check_id(bid, what.rstrip(","))
    builds = all_builds()
    if not builds:
        return None, None
    if not bid:
        raise CliError(f"no default HPL build in {data_root()}: give --build-id ID (the builds: {known(builds)}), "
                       "or make one the default with: simblas-hpl build --build-id ID --make-default")
    b = load(bid)
    if not b:
        raise CliError(f"{what}: no such HPL build in {data_root()}; the builds: {known(builds)}")
    return b, by
