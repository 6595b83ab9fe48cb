"""The HPL builds on disk: one directory per build under data_root(), each
with its binaries and a manifest.json; the file `default` names the build
a run uses when it names none."""

import json
import os

from .files import read_text, write_atomic
from .locations import data_root

BINARIES = {"model": "xhpl-model", "passthrough": "xhpl-real"}


def set_default_build(sid):
    root = data_root()
    os.makedirs(root, exist_ok=True)
    write_atomic(os.path.join(root, "default"), sid + "\n")


def load_build(build_id=None):
    """(directory, manifest) of the chosen build, or None."""
    root = data_root()
    sid = build_id or os.environ.get("SIMBLAS_HPL_BUILD") or read_text(os.path.join(root, "default")).strip()
    if not sid:
        return None
    d = os.path.join(root, sid)
    try:
        with open(os.path.join(d, "manifest.json")) as f:
            return d, json.load(f)
    except (OSError, ValueError):
        return None


def find_xhpl(mode, build_id=None):
    """(path, build dir) of the built binary for mode; path None when not built."""
    b = load_build(build_id)
    if not b:
        return None, None
    d, man = b
    name = man.get("binaries", {}).get(mode)
    if not name or not os.path.isfile(os.path.join(d, name)):
        return None, d
    return os.path.join(d, name), d
