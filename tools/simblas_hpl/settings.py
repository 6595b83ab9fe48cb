"""SimBLAS's settings table, as the build writes it (settings.json, from
lib/settings.def): the one list of SIMBLAS_* variables.

simblas-hpl sets libsimblas's variables for a run (launch.run_env); each
one it sets is checked here against its row -- the name must be a row that
libsimblas reads, the value one the row accepts -- so that the Python side
and the C side cannot drift apart: a variable renamed or retyped in the
table fails a run's preparation (and test/py) instead of being ignored by
libsimblas at run time.
"""

import json
import os
import re

from .errors import CliError
from .locations import installed

_FORMAT = 1
_cache = {}


def table_path():
    """settings.json: SIMBLAS_DATADIR's, the build tree's beside
    SIMBLAS_LIBDIR (a build tree's .libs: the libsimblas the run uses), or
    the installed one; None if none."""
    libdir = os.environ.get("SIMBLAS_LIBDIR")
    cands = [os.environ.get("SIMBLAS_DATADIR"), os.path.dirname(os.path.abspath(libdir)) if libdir else None,
             installed("DATADIR")]
    for d in cands:
        if d and os.path.isfile(os.path.join(d, "settings.json")):
            return os.path.join(d, "settings.json")
    return None


def load(path=None):
    """{name: row} of the table, or None when there is no table (a source
    tree without a build)."""
    path = path or table_path()
    if not path:
        return None
    if path not in _cache:
        try:
            with open(path) as f:
                doc = json.load(f)
        except (OSError, ValueError) as e:
            raise CliError(f"cannot read SimBLAS's settings table {path}: {e}; reinstall SimBLAS (make install)")
        if doc.get("format") != _FORMAT:
            raise CliError(f"{path} is settings table format {doc.get('format')}, this simblas-hpl reads "
                           f"{_FORMAT}: install SimBLAS and simblas-hpl from the same build")
        _cache[path] = ({row["name"]: row for row in doc["settings"]}, doc.get("needs", []))
    return _cache[path][0]


def unmet_need(name, value, others, path=None):
    """The rule of lib/settings.def (SB_NEEDS) that NAME=VALUE breaks when
    the other variables are OTHERS ({name: text}; one not given takes its
    default), as (why, the needs as libsimblas says them: "A=a and B=b", the variable that differs), or
    None: none broken, or no table (libsimblas checks it then)."""
    rows = load(path)
    if rows is None:
        return None
    for rule in _cache[path or table_path()][1]:
        if rule["name"] != name or float(value) <= rule["above"]:
            continue
        for var, want in rule["needs"].items():
            have = others.get(var, rows.get(var, {}).get("default"))
            if have != want:
                return (rule["why"], rule["said"], var)
    return None


UINT_LIMIT = 2 ** 64   # lib/settings.c's UINT values are uint64_t (SIMBLAS_SEED)
_NUM = re.compile(r"[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$")


def c_unsigned(value):
    """What strtoull(value, &end, 0) reads when it reads all of value (as
    lib/settings.c's UINT does): decimal, 0x hexadecimal or 0 octal; None
    otherwise."""
    if re.fullmatch(r"0[xX][0-9a-fA-F]+", value):
        return int(value, 16)
    if re.fullmatch(r"0[0-7]*", value):
        return int(value, 8)
    if re.fullmatch(r"[1-9]\d*", value):
        return int(value)
    return None


def value_ok(row, value):
    """Whether VALUE is one the row accepts (the checks of lib/settings.c)."""
    t = row["type"]
    if t == "TEXT":
        return True
    if t == "ENUM":
        return value in row.get("values", [])
    if t == "FLAG":
        return value in ("0", "1")
    if t in ("COUNT", "UINT"):
        if t == "UINT":
            v = c_unsigned(value)
            return v is not None and v < UINT_LIMIT
        if not re.fullmatch(r"[-+]?\d+", value):
            return False
        v = int(value)
    elif t == "REAL":
        if not _NUM.match(value):
            return False
        v = float(value)
    elif t == "BYTES":
        return re.fullmatch(r"(\d+\.?\d*|\.\d+)[kKmMgG]?", value) is not None
    elif t == "FACTORS":
        return re.fullmatch(r"(\d+:[0-9.eE+-]+)(;\d+:[0-9.eE+-]+)*", value) is not None
    else:
        return False
    lo, hi = row.get("min"), row.get("max")
    return (lo is None or v >= lo) and (hi is None or v <= hi)


def check_env(env, table=None):
    """Every SIMBLAS_* variable of ENV is a row libsimblas reads and its value
    one the row accepts; CliError (status 1: simblas-hpl's own fault) if not."""
    table = table if table is not None else load()
    if table is None:
        return
    for name, value in env.items():
        if not name.startswith("SIMBLAS_"):
            continue
        row = table.get(name)
        if row is None or "libsimblas" not in row.get("read_by", []):
            raise CliError(f"simblas-hpl sets {name}, which libsimblas does not read (not a libsimblas row of "
                           "lib/settings.def): simblas-hpl and libsimblas come from different versions; "
                           "install both from one build", 1)
        if not value_ok(row, value):
            raise CliError(f"simblas-hpl sets {name}={value!r}, which libsimblas refuses ({row.get('accepts')}): "
                           "simblas-hpl and libsimblas come from different versions; install both from one build", 1)
