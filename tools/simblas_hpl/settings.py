"""SimBLAS's settings table, as the build writes it (settings.json, from
lib/settings.def): the one list of SIMBLAS_* variables.

simblas-hpl reads its own variables through value() and given() -- typed
by their row, checked against it (a bad value is refused in one line
naming the variable and what it accepts, as libsimblas refuses its own),
an unset one its row's default -- and takes the defaults it shares with
libsimblas from default() and values(): no SIMBLAS_* variable is read, and
no default of the table is written again, anywhere else.

simblas-hpl sets libsimblas's variables for a run (launch.run_env, and
refine's rank script); each one it sets is checked here against its row -- the name must be a row that
libsimblas reads, the value one the row accepts -- so that the Python side
and the C side cannot drift apart: a variable renamed or retyped in the
table fails a run's preparation (and test/py) instead of being ignored by
libsimblas at run time.
"""

import difflib
import json
import os
import re

from .errors import CliError
from .installed import installed

_FORMAT = 1   # of the tables the build writes (lib/mksettings, lib/mkops)
_cache = {}   # path: the table's JSON
_rows = {}    # path: settings.json's rows by name, and its rules


def _env(name):
    """NAME's text in the environment, None when unset or empty (an empty
    variable is an unset one, as libsimblas reads it)."""
    return os.environ.get(name) or None


def table_path(name="settings.json"):
    """NAME, one of the tables the build writes from lib/*.def (settings.json,
    ops.json), in SimBLAS's data directory: SIMBLAS_DATADIR's, the build
    tree's beside SIMBLAS_LIBDIR (a build tree's .libs: the libsimblas the
    run uses), or the installed one; None if none.  (These two rows are
    TEXT: read here unchecked, since finding the table is what reading the
    others needs.)"""
    libdir = _env("SIMBLAS_LIBDIR")
    cands = [_env("SIMBLAS_DATADIR"), os.path.dirname(os.path.abspath(libdir)) if libdir else None,
             installed("DATADIR")]
    for d in cands:
        if d and os.path.isfile(os.path.join(d, name)):
            return os.path.join(d, name)
    return None


# the tables the build writes from lib/*.def, and what each is called
TABLES = {"settings.json": "settings table", "ops.json": "op table"}


def missing(name):
    """The refusal when the table NAME (one of TABLES) cannot be found."""
    return CliError(f"cannot find SimBLAS's {TABLES[name]} ({name}): install SimBLAS (make install), or set "
                    "SIMBLAS_DATADIR to the directory holding it (a build tree)")


def read_table(name, path=None):
    """The JSON document of the table NAME (PATH, else table_path(NAME)),
    read once; None when there is none.  CliError when it cannot be read or
    is of another format than this simblas-hpl reads."""
    path = path or table_path(name)
    if not path:
        return None
    if path not in _cache:
        try:
            with open(path) as f:
                doc = json.load(f)
        except (OSError, ValueError) as e:
            raise CliError(f"cannot read SimBLAS's table {path}: {e}; reinstall SimBLAS (make install)")
        if doc.get("format") != _FORMAT:
            raise CliError(f"{path} is table format {doc.get('format')}, this simblas-hpl reads "
                           f"{_FORMAT}: install SimBLAS and simblas-hpl from the same build")
        _cache[path] = doc
    return _cache[path]


def _table(path=None):
    """({name: row}, [needs rule]) of settings.json (PATH, else table_path());
    None when there is none."""
    path = path or table_path()
    doc = read_table("settings.json", path)
    if doc is None:
        return None
    if path not in _rows:
        _rows[path] = ({row["name"]: row for row in doc["settings"]}, doc.get("needs", []))
    return _rows[path]


def load(path=None):
    """{name: row} of the table (settings.json), or None when there is none."""
    t = _table(path)
    return t[0] if t else None


def _number(text):
    """A variable's text as libsimblas's rules compare it (strtod: 0 for none)."""
    try:
        return float(text)
    except (TypeError, ValueError):
        return 0.0


def unmet_need(name, value, others, path=None):
    """The rule of lib/settings.def (SB_NEEDS) that NAME=VALUE (set) breaks
    when the other variables are OTHERS ({name: text}; one not given takes
    its default), as (why, the needs as libsimblas says them: "A=a and
    B>b", the variable that differs), or None: none broken, or no table
    (libsimblas checks it then).  A need "V": "TEXT" is met by V's text
    TEXT, "V": ">X" by V's number above X (a number, or a variable's)."""
    t = _table(path)
    if t is None:
        return None
    rows, rules = t

    def text(var):
        return str(value) if var == name else others.get(var, rows.get(var, {}).get("default"))
    for rule in rules:
        if rule["name"] != name or (rule["above"] is not None and float(value) <= rule["above"]):
            continue
        for var, want in rule["needs"].items():
            if want.startswith(">"):
                than = want[1:]
                met = _number(text(var)) > _number(text(than) if than in rows else than)
            else:
                met = text(var) == want
            if not met:
                return (rule["why"], rule["said"], var)
    return None


UINT_LIMIT = 2 ** 64   # lib/settings.c's UINT values are uint64_t (SIMBLAS_SEED)


def c_unsigned(value):
    """What lib/settings.c's UINT reads when it reads all of value: decimal
    (a leading 0 too, not octal) or 0x hexadecimal; None otherwise."""
    if re.fullmatch(r"0[xX][0-9a-fA-F]+", value):
        return int(value, 16)
    if re.fullmatch(r"\d+", value):
        return int(value)
    return None


_REAL = re.compile(r"[-+]?((\d+\.?\d*|\.\d+)([eE][-+]?\d+)?|inf|infinity)", re.I)
_BYTES = re.compile(r"((?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)([kKmMgG]?)")
_SCALE = {"": 1, "k": 1 << 10, "m": 1 << 20, "g": 1 << 30}


def parse(row, text):
    """TEXT (a variable's non-empty text) as the row's type reads it, with the
    checks of lib/settings.c: TEXT, ENUM and FACTORS a str, FLAG a bool,
    COUNT, UINT and BYTES (in bytes) an int, REAL a float; None when the row
    refuses it."""
    t = row["type"]
    if t == "TEXT":
        return text
    if t == "ENUM":
        return text if text in row.get("values", []) else None
    if t == "FLAG":
        return {"0": False, "1": True}.get(text)
    if t == "UINT":
        v = c_unsigned(text)
        return v if v is not None and v < UINT_LIMIT else None
    if t == "BYTES":
        m = _BYTES.fullmatch(text)
        v = float(m.group(1)) * _SCALE[m.group(2).lower()] if m else 0
        return int(v) if 0 < v < 2 ** 62 else None
    if t == "FACTORS":
        return text if re.fullmatch(r"(\d+:[0-9.eE+-]+)(;\d+:[0-9.eE+-]+)*", text) else None
    if t == "COUNT" and re.fullmatch(r"[-+]?\d+", text):
        v = int(text)
    elif t == "REAL" and _REAL.fullmatch(text):
        v = float(text)
    else:
        return None
    lo, hi = row.get("min"), row.get("max")
    return v if (lo is None or v >= lo) and (hi is None or v <= hi) else None


def value_ok(row, value):
    """Whether VALUE is one the row accepts (the checks of lib/settings.c)."""
    return parse(row, value) is not None


def row(name):
    """NAME's row of the table; CliError when there is no table, or no such
    row (simblas-hpl asks for a variable lib/settings.def does not have)."""
    rows = load()
    if rows is None:
        raise missing("settings.json")
    if name not in rows:
        raise CliError(f"{name} is no row of SimBLAS's settings table (lib/settings.def): simblas-hpl and SimBLAS "
                       "come from different versions; install both from one build", 1)
    return rows[name]


def default(name):
    """NAME's default, typed as its row says (None: none)."""
    r = row(name)
    d = r.get("default")
    if not d:
        return None
    v = parse(r, d)
    if v is None:
        raise CliError(f"lib/settings.def's default of {name}, {d!r}, is not {r.get('accepts') or 'its type'}", 1)
    return v


def seed(given):
    """The seed of a run's random draws: GIVEN (--seed), else SIMBLAS_SEED's
    default in lib/settings.def -- what libsimblas takes when simblas-hpl
    does not set the variable, so the hosts' draws and the ranks' agree."""
    return default("SIMBLAS_SEED") if given is None else given


def values(name):
    """The values an ENUM row accepts, in the table's order."""
    return tuple(row(name).get("values", ()))


def given(name):
    """NAME from the environment, typed and checked by its row; None when
    it is unset or empty.  CliError (status 2) naming it, its value and
    what it accepts when the row refuses it."""
    r = row(name)
    text = _env(name)
    if text is None:
        return None
    v = parse(r, text)
    if v is None:
        raise CliError(f"{name}={text!r} is not {r.get('accepts') or 'a value of type ' + r['type']}")
    return v


def value(name):
    """NAME from the environment, typed and checked (given()); its row's
    default (default()) when unset or empty."""
    v = given(name)
    return default(name) if v is None else v


def check_inherited(env=None, path=None):
    """Refuse, before a run is planned, the SIMBLAS_* variables of the
    caller's environment (ENV, else os.environ) that the simulated program
    would read behind simblas-hpl's back: smpirun passes the environment
    on, so libsimblas would take SIMBLAS_ITERATIONS=3 from the shell and
    simulate 6 iterations of a run whose JSON says it is whole.  Those
    rows are libsimblas's alone (simblas-hpl reads the rows it shares,
    SIMBLAS_MODEL for one, and records what they give); a name of no row
    is a misspelling, which libsimblas would stop at once the simulator
    has started.  CliError (status 2) naming the first and the remedy."""
    env = os.environ if env is None else env
    table = load(path)
    if table is None:
        return
    for name in sorted(n for n in env if n.startswith("SIMBLAS_") and env[n]):
        row = table.get(name)
        if row is None:
            near = difflib.get_close_matches(name, list(table), 1)
            raise CliError(f"{name} is set in the environment, and SimBLAS has no such setting"
                           + (f" (did you mean {near[0]}?)" if near else "")
                           + f": libsimblas would stop at it once the simulation had started; unset {name} "
                             "(doc/settings.md lists the settings)")
        users = row.get("read_by", [])
        if "libsimblas" in users and "simblas-hpl" not in users:
            how = (f"give {row['option']} instead" if row.get("option") else
                   "simblas-hpl sets it where a run needs it and leaves it at its default otherwise "
                   "(doc/settings.md)")
            raise CliError(f"{name}={env[name]} is set in the environment: the simulated program would read it, "
                           f"but the run's settings and its JSON would not say so; {how}, and unset {name}")


def inherited_env(env=None, path=None, keep=("SIMBLAS_BACKEND",)):
    """ENV (else os.environ) without the variables libsimblas reads, but
    KEEP: what smpirun is to get of the caller's environment.  A run's own
    variables (launch.run_env) are all the settings libsimblas takes from
    it, so that a shared row simblas-hpl read and recorded (SIMBLAS_PROBE,
    SIMBLAS_CODE_CLOCK) reaches it only as the run says (check_inherited
    refuses the others, libsimblas's alone).  KEEP: the passthrough
    backend, which a run passes on as given."""
    env = os.environ if env is None else env
    table = load(path) or {}
    return {k: v for k, v in env.items()
            if k in keep or "libsimblas" not in table.get(k, {}).get("read_by", [])}


def check_env(env, path=None):
    """Every SIMBLAS_* variable of ENV is a row libsimblas reads, its value
    one the row accepts, and together they break no rule of what settings
    need of each other (SB_NEEDS), rows and rules from one table (PATH,
    else the one found); CliError (status 1: simblas-hpl's own fault) if
    not."""
    table = load(path)
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
    for name, value in env.items():
        broken = unmet_need(name, value, env, path) if name.startswith("SIMBLAS_") else None
        if broken:
            var = broken[2]
            raise CliError(f"simblas-hpl sets {name}={value} and " + (f"{var}={env[var]}" if var in env else
                                                                       f"not {var}") +
                           f", but {name} {broken[0]}, which needs {broken[1]}: simblas-hpl and libsimblas come "
                           "from different versions; install both from one build", 1)
