"""HPL's options (--hpl-opt) and its input file, HPL.dat."""

from .errors import CliError

DEFAULTS = {
    "pmap": 0, "threshold": 16.0, "pfact": 2, "nbmin": 4, "ndiv": 2, "rfact": 1, "bcast": 1,
    "depth": 1, "swap": 2, "swap_threshold": 64, "l1": 0, "u": 0, "equil": 1, "align": 8,
}
_FACT = {"left": 0, "crout": 1, "right": 2}
NAMES = {
    "pmap": {"row": 0, "row-major": 0, "col": 1, "column": 1, "column-major": 1},
    "pfact": _FACT, "rfact": _FACT,
    "bcast": {"1rg": 0, "1ring": 0, "1rm": 1, "1ringm": 1, "2rg": 2, "2ring": 2, "2rm": 3, "2ringm": 3,
              "lng": 4, "long": 4, "blong": 4, "lnm": 5, "longm": 5, "blongm": 5},
    "swap": {"bin-exch": 0, "binary-exchange": 0, "binexch": 0, "long": 1, "spread-roll": 1, "mix": 2},
    "l1": {"transposed": 0, "no-transposed": 1, "notransposed": 1},
    "u": {"transposed": 0, "no-transposed": 1, "notransposed": 1},
    "equil": {"no": 0, "yes": 1},
}
HPL_INT_MAX = 2 ** 31 - 1   # HPL reads its integers as C ints (atoi: 3000000000 became a negative DEPTH)
RANGES = {  # key: (min, max) for integers
    "pmap": (0, 1), "pfact": (0, 2), "nbmin": (1, HPL_INT_MAX), "ndiv": (2, HPL_INT_MAX), "rfact": (0, 2),
    "bcast": (0, 5), "depth": (0, HPL_INT_MAX), "swap": (0, 2), "swap_threshold": (0, HPL_INT_MAX),
    "l1": (0, 1), "u": (0, 1), "equil": (0, 1), "align": (1, HPL_INT_MAX),
}


def setting(key, val):
    """One HPL.dat setting, checked: (its name as DEFAULTS has it, its value
    as HPL.dat takes it).  VAL is a text (--hpl-opt's, a name such as
    "blongm" or a number) or a number; every path that sets HPL.dat checks
    here, with --hpl-opt's messages."""
    key = key.strip().lower().replace("-", "_")
    if isinstance(val, str):
        val = val.strip()
    if key not in DEFAULTS:
        raise CliError(f"--hpl-opt {key}: unknown HPL option; the options are {', '.join(DEFAULTS)}")
    if key == "threshold":
        try:
            if isinstance(val, bool):
                raise ValueError(val)
            return key, float(val)
        except (ValueError, TypeError):
            raise CliError(f"--hpl-opt threshold={val}: not a number")
    names = NAMES.get(key, {})
    if isinstance(val, str) and val.lower() in names:
        return key, names[val.lower()]
    try:
        if isinstance(val, bool) or not isinstance(val, (int, str)):
            raise ValueError(val)
        v = int(val)
    except ValueError:
        extra = f" or one of {', '.join(names)}" if names else ""
        raise CliError(f"--hpl-opt {key}={val}: expected an integer{extra}")
    lo, hi = RANGES[key]
    if not lo <= v <= hi:
        raise CliError(f"--hpl-opt {key}={v}: out of range ({lo}..{hi})"
                       + (", and HPL reads it as a C int" if v > HPL_INT_MAX else ""))
    return key, v


def parse_hpl_opts(items):
    """--hpl-opt KEY=VALUE items -> the settings they give, checked and
    converted ({name: value}, the last of a name winning)."""
    given = {}
    for item in items or []:
        if "=" not in item:
            raise CliError(f"--hpl-opt {item!r}: expected KEY=VALUE")
        key, val = setting(*item.split("=", 1))
        given[key] = val
    return given


def comparable(record):
    """A record's options (point.json's, tune.json's machine) with its
    hpl_opt texts as the settings they give: records compare by value, not
    by spelling ("bcast=blongm" as before this version, "bcast=5" since)."""
    out = dict(record or {})
    try:
        out["hpl_opt"] = parse_hpl_opts(out.get("hpl_opt"))
    except (CliError, TypeError, AttributeError, ValueError):
        pass  # not texts of settings: compared as they are
    return out


def settings(given=None):
    """Every HPL.dat setting: DEFAULTS, with the settings GIVEN ({name:
    value}, each checked by setting())."""
    opts = dict(DEFAULTS)
    for key, val in (given or {}).items():
        key, val = setting(key, val)
        opts[key] = val
    return opts


def hpl_dat(n, nb, p, q, o):
    """HPL.dat for one problem, one NB, one grid: the 31-line upstream format."""
    def line(val, desc):
        return f"{str(val):<12} {desc}"
    rows = [
        "HPLinpack benchmark input file",
        "Innovative Computing Laboratory, University of Tennessee",
        line("HPL.out", "output file name (if any)"),
        line(6, "device out (6=stdout,7=stderr,file)"),
        line(1, "# of problems sizes (N)"),
        line(n, "Ns"),
        line(1, "# of NBs"),
        line(nb, "NBs"),
        line(o["pmap"], "PMAP process mapping (0=Row-,1=Column-major)"),
        line(1, "# of process grids (P x Q)"),
        line(p, "Ps"),
        line(q, "Qs"),
        line(repr(float(o["threshold"])), "threshold"),
        line(1, "# of panel fact"),
        line(o["pfact"], "PFACTs (0=left, 1=Crout, 2=Right)"),
        line(1, "# of recursive stopping criterium"),
        line(o["nbmin"], "NBMINs (>= 1)"),
        line(1, "# of panels in recursion"),
        line(o["ndiv"], "NDIVs"),
        line(1, "# of recursive panel fact."),
        line(o["rfact"], "RFACTs (0=left, 1=Crout, 2=Right)"),
        line(1, "# of broadcast"),
        line(o["bcast"], "BCASTs (0=1rg,1=1rM,2=2rg,3=2rM,4=Lng,5=LnM)"),
        line(1, "# of lookahead depth"),
        line(o["depth"], "DEPTHs (>=0)"),
        line(o["swap"], "SWAP (0=bin-exch,1=long,2=mix)"),
        line(o["swap_threshold"], "swapping threshold"),
        line(o["l1"], "L1 in (0=transposed,1=no-transposed) form"),
        line(o["u"], "U  in (0=transposed,1=no-transposed) form"),
        line(o["equil"], "Equilibration (0=no,1=yes)"),
        line(o["align"], "memory alignment in double (> 0)"),
    ]
    return "\n".join(rows) + "\n"
