"""Studies: many runs described by one TOML file (doc/user-guide.md,
section 12), each run a point (points.py) in the study's directory, run by
the engine (engine.py).

    [study]                       # all optional
    name = "node speed and links"
    replicates = 3                # seeds 1..3 (or seeds = [4, 7])
    outputs = ["gflops", "hpl_time_s", "wall_s"]

    [base]                        # any `simblas-hpl run` option, - or _
    n = 50000
    p = 16
    q = 32
    hpl-code = "free"
    hpl.bcast = 5                 # an HPL.dat setting (or hpl-opt = ["bcast=5"])

    [factors]                     # full factorial: every combination ...
    speedup = [0.1, 1, 10]
    bw = ["1Gbps", "10Gbps"]

    [[points]]                    # ... and/or listed points (each crossed with
    speedup = 10                  # every combination of the factors; a point's
                                  # value replaces the base's)
    [[points]]
    bw = "100Gbps"

load() reads and checks a study file (file:line for what is wrong) into a
Study, its design of points; plan_points() plans every point by
plan.make_plan, as `run` would, before anything is written.  The rest is
other modules': the study's directory study_dir.py (prepare, open_dir,
status), results.csv and means.csv study_collect.py (with study_stats.py's
means and 95% intervals), the figures study_plot.py; they read the
directory only: study.json and the points' files.
"""

import contextlib
import dataclasses
import hashlib
import io
import itertools
import json
import math
import os
import re
import sys
import tomllib
import typing
from typing import Any, Dict, List, Optional

from . import hpldat, settings
from .errors import CliError
from .launch import check_workdir
from .plan import RunOptions, make_plan

SECTIONS = ("study", "base", "factors", "points")
STUDY_KEYS = ("name", "replicates", "seeds", "outputs", "dir")
MAX_POINTS = 100_000   # a study's points (combinations x points x replicates): beyond, surely a slip
NOT_OPTIONS = ("dry_run", "xhpl", "progress", "seed")   # what a study sets itself, or not at all
DEFAULT_OUTPUTS = ("gflops", "hpl_time_s", "energy_j", "wall_s")
OUTPUTS = ("gflops", "hpl_time_s", "simulated_time_s", "wall_s", "energy_j", "avg_power_w", "peak_rss_mb",
           "peak_vm_gib", "peak_mappings", "max_rss_mb", "energy_used_hosts_j", "energy_idle_hosts_j",
           "extrapolated_wall_s", "partial_gflops", "partial_hpl_time_s", "per_iteration_s", "per_iteration_wall_s")


# ---- reading the file --------------------------------------------------------------
def option_fields():
    """{name: type} of the run options a study may set (RunOptions' fields)."""
    hints = typing.get_type_hints(RunOptions)
    fields = {f.name: hints[f.name] for f in dataclasses.fields(RunOptions) if f.name not in NOT_OPTIONS}
    # HPL.dat: hpl.KEY = VALUE, or hpl-opt = ["KEY=VALUE", ...] as on the command line
    return {("hpl_opt" if k == "hpl" else k): (List[str] if k == "hpl" else t) for k, t in fields.items()}


def valid_names():
    return sorted(n.replace("_", "-") for n in option_fields()) + [f"hpl.{k}" for k in hpldat.DEFAULTS]


class Source:
    """The study file's text, to point at lines: table [name] (the
    index-th [[name]] for arrays) and a key in it."""

    def __init__(self, path, text):
        self.path, self.lines = path, text.splitlines()

    def line(self, table=None, key=None, index=None):
        """The line of key in table (None: the top level), else the table's
        header, else 1."""
        cur, count, header = None, {}, None
        sub_table, sub_key = (f"{table}.{key.split('.', 1)[0]}", key.split(".", 1)[1]) if key and "." in key \
            else (None, None)
        for i, raw in enumerate(self.lines, 1):
            s = raw.split("#", 1)[0].strip()
            m = re.fullmatch(r"\[\[\s*([\w.-]+)\s*\]\]|\[\s*([\w.\"-]+)\s*\]", s)
            if m:
                cur = m.group(1) or m.group(2).replace('"', "")
                count[cur] = count.get(cur, -1) + 1
                if header is None and cur == table and (index is None or count[cur] == index):
                    header = i
                continue
            if key is None:
                continue
            here = cur == table and (index is None or count.get(cur) == index)
            for k in ([key] if here else [sub_key] if sub_table and cur == sub_table else []):
                pat = re.escape(k).replace("_", "[-_]").replace("\\-", "[-_]")
                if re.match(rf'\s*"?{pat}"?\s*[=.]', raw):
                    return i
        return header or 1

    def error(self, msg, table=None, key=None, index=None):
        return CliError(f"{self.path}:{self.line(table, key, index)}: {msg}")


def _kind(t):
    """int, float, str, bool or list for a RunOptions annotation."""
    if t in (int, float, str, bool):
        return t
    args = [a for a in typing.get_args(t) if a is not type(None)]
    if typing.get_origin(t) is typing.Union and len(args) == 1:
        return _kind(args[0])
    return list


def check_value(src, name, v, table, index=None):
    """A level or base value of option name, as RunOptions takes it."""
    fields = option_fields()
    if name.startswith("hpl."):
        if isinstance(v, bool) or not isinstance(v, (int, float, str)):
            raise src.error(f"{name} = {v!r}: an HPL.dat setting is a number or a name (e.g. {name} = 1)",
                            table, name, index)
        return v
    kind = _kind(fields[name])
    ok = ((kind is int and isinstance(v, int) and not isinstance(v, bool)) or
          (kind is float and isinstance(v, (int, float)) and not isinstance(v, bool)) or
          (kind is str and isinstance(v, str)) or (kind is bool and isinstance(v, bool)) or
          (kind is list and isinstance(v, list) and all(isinstance(x, str) for x in v)))
    if not ok:
        what = {int: "a whole number", float: "a number", str: "a text in quotes", bool: "true or false",
                list: 'a list of texts, e.g. ["bcast=5", "depth=0"]'}[kind]
        raise src.error(f"{name.replace('_', '-')} = {v!r}: expected {what}", table, name, index)
    return float(v) if kind is float else v


def option_name(src, key, table, index=None):
    """A study key -> RunOptions field (or hpl.KEY); an unknown one lists the valid."""
    if key.startswith("hpl."):
        k = key[4:].lower().replace("-", "_")
        if k not in hpldat.DEFAULTS:
            raise src.error(f"unknown HPL setting '{key}'; the HPL settings are "
                            f"{', '.join('hpl.' + k for k in hpldat.DEFAULTS)}", table, key, index)
        return "hpl." + k
    name = key.replace("-", "_")
    if name not in option_fields():
        hint = ("; replicates (seeds) are set in [study]" if name == "seed" else
                "; a study runs every point, on its engine" if name in NOT_OPTIONS else "")
        raise src.error(f"unknown factor or option '{key}'{hint}; the valid ones are "
                        f"{', '.join(valid_names())}", table, key, index)
    return name


def hpl_keys(src, name, values, table, index=None):
    """The HPL.dat keys that option name sets with values (hpl.KEY: KEY;
    hpl-opt: the keys of its KEY=VALUE items), whichever the spelling."""
    if name.startswith("hpl."):
        return [name[4:]]
    if name != "hpl_opt":
        return []
    keys = []
    for v in values:
        try:
            keys += [k for k in hpldat.parse_hpl_opts(v) if k not in keys]
        except CliError as e:
            raise src.error(f"hpl-opt = {v!r}: {str(e).removeprefix('simblas-hpl: ')}", table, "hpl-opt", index)
    return keys


def level_key(name, v):
    """What a level of option name sets, for comparing levels whatever
    their spelling: an HPL setting's value ("1rM", "1rm" and 1 are one
    BCAST), an hpl-opt's settings; other levels as they are written."""
    try:
        if name.startswith("hpl."):
            return json.dumps(hpldat.setting(name[4:], v))
        if name == "hpl_opt":
            return json.dumps(hpldat.parse_hpl_opts([v] if isinstance(v, str) else v), sort_keys=True)
    except (CliError, TypeError, AttributeError, ValueError):
        pass
    return json.dumps(v)


def flat_table(d):
    """{'hpl': {'bcast': [..]}} -> {'hpl.bcast': [..]} (TOML's dotted keys)."""
    out = {}
    for k, v in d.items():
        if k == "hpl" and isinstance(v, dict):
            out.update({f"hpl.{kk}": vv for kk, vv in v.items()})
        else:
            out[k] = v
    return out


@dataclasses.dataclass
class Point:
    id: str
    factors: Dict[str, Any]     # the factors' values at this point (None: the base's)
    seed: Optional[int]
    options: RunOptions
    values: Dict[str, Any] = None  # the same, None replaced by what the run uses (settle(), from its plan)
    listed: Optional[int] = None   # the [[points]] table it comes from (0-based), None for the factors alone


@dataclasses.dataclass
class Study:
    path: str
    text: str
    name: str
    dir: str
    base: Dict[str, Any]
    factors: Dict[str, List[Any]]   # name -> levels, in the file's order
    design: str                     # factorial | points
    seeds: List[Optional[int]]
    outputs: List[str]
    points: List[Point]


def parse(path, text=None):
    """The study file -> (Source, its tables, its text); file:line for a
    malformed file."""
    if text is None:
        try:
            with open(path, "rb") as f:
                raw = f.read()
        except OSError as e:
            raise CliError(f"{path}: cannot read the study file ({e.strerror})")
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError:
            raise CliError(f"{path}:1: not UTF-8 text: a study file is TOML")
    src = Source(path, text)
    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        msg = str(e)
        m = re.search(r"\(at line (\d+), column \d+\)|\(at end of document\)", msg)
        line = int(m.group(1)) if m and m.group(1) else len(src.lines) if m else 1
        what = msg[:m.start()].strip() if m else msg
        raise CliError(f"{path}:{line}: {what} (not valid TOML)")
    return src, doc, text


def load(path, dir_opt=None, text=None):
    """Read and check a study file: a Study whose every point is planned."""
    src, doc, text = parse(path, text)
    for k in doc:
        if k not in SECTIONS:
            raise src.error(f"unknown section [{k}]; a study has [study], [base], [factors] and [[points]]",
                            *((k, None) if isinstance(doc[k], dict) else (None, k)))
    head = study_table(src, doc)
    for k in head:
        if k not in STUDY_KEYS:
            raise src.error(f"unknown key '{k}' in [study]; its keys are {', '.join(STUDY_KEYS)}", "study", k)
    name = head.get("name", os.path.splitext(os.path.basename(path))[0])
    if not isinstance(name, str):
        raise src.error("name: expected a text in quotes", "study", "name")
    # replicates
    if "replicates" in head and "seeds" in head:
        raise src.error("give replicates = R (seeds 1..R) or seeds = [...], not both", "study", "seeds")
    if "seeds" in head:
        seeds = head["seeds"]
        if not (isinstance(seeds, list) and seeds and all(isinstance(s, int) and not isinstance(s, bool)
                                                          and 0 <= s < settings.UINT_LIMIT for s in seeds)) \
                or len(set(seeds)) != len(seeds):
            raise src.error(f"seeds: expected a list of distinct whole numbers from 0 to {settings.UINT_LIMIT - 1}, "
                            "e.g. [1, 2, 3]", "study", "seeds")
    else:
        r = head.get("replicates", 1)
        if not isinstance(r, int) or isinstance(r, bool) or not 1 <= r <= MAX_POINTS:
            raise src.error(f"replicates = {r!r}: expected a whole number from 1 to {MAX_POINTS:,} (a study's "
                            "most points)", "study", "replicates")
        seeds = list(range(1, r + 1)) if r > 1 else [None]
    # base
    base_raw = doc.get("base", {})
    if not isinstance(base_raw, dict):
        raise src.error("[base] must be a table of run options", "base")
    base, base_hpl = {}, {}   # base_hpl: HPL.dat key -> how [base] sets it (hpl.KEY or hpl-opt)
    for k, v in flat_table(base_raw).items():
        n = option_name(src, k, "base")
        base[n] = check_value(src, n, v, "base")
        for key in hpl_keys(src, n, [base[n]], "base"):
            if key in base_hpl:
                raise src.error(f"{k} sets HPL's {key}, which {base_hpl[key]} sets too: keep it in one place",
                                "base", k)
            base_hpl[key] = k
    # factors and points: every combination of the factors' levels, for
    # each listed point (the points alone, the factors alone, or both)
    factors, rows, factor_hpl = {}, [{}], {}
    if "factors" in doc:
        if not isinstance(doc["factors"], dict):
            raise src.error("[factors] must be a table: FACTOR = [level, level, ...]", "factors")
        for k, levels in flat_table(doc["factors"]).items():
            n = option_name(src, k, "factors")
            if not isinstance(levels, list) or not levels:
                raise src.error(f"{k} = {levels!r}: a factor has a list of levels, e.g. {k} = [1, 2]",
                                "factors", k)
            if n in base:
                raise src.error(f"{k} is both in [base] and a factor: keep it in one place", "factors", k)
            vals = [check_value(src, n, v, "factors") for v in levels]
            for key in hpl_keys(src, n, vals, "factors"):
                if key in base_hpl:  # run_options would apply [base]'s over the factor's levels
                    raise src.error(f"{k} sets HPL's {key}, which [base] sets too ({base_hpl[key]}): every level "
                                    "would run [base]'s value; keep it in one place", "factors", k)
                if key in factor_hpl:
                    raise src.error(f"{k} sets HPL's {key}, which factor {factor_hpl[key]} sets too: keep it in "
                                    "one place", "factors", k)
                factor_hpl[key] = k
            if len({level_key(n, v) for v in vals}) != len(vals):
                raise src.error(f"{k}: a level is given twice (some perhaps spelled otherwise, as \"1rM\" and 1 "
                                "for one BCAST); give each once", "factors", k)
            factors[n] = vals
        too_many(src, math.prod(len(v) for v in factors.values()) * len(seeds), "factors")
        rows = [dict(zip(factors, combo)) for combo in itertools.product(*factors.values())]
    listed, row_index = [], None
    if "points" in doc:
        pts = doc["points"]
        if not isinstance(pts, list) or not all(isinstance(p, dict) for p in pts):
            raise src.error("points: expected [[points]] tables, each a point's options", "points")
        if not pts:  # points = []: a study of no point, run and 'done'
            raise src.error("points = []: no point is listed; give [[points]] tables, or drop points for [base] and "
                            "[factors] alone", None, "points")
        crossed = dict(factors)
        for i, p in enumerate(pts):
            row, point_hpl = {}, {}
            for k, v in flat_table(p).items():
                n = option_name(src, k, "points", i)
                if n in crossed:
                    raise src.error(f"{k} is both a factor and in a point: keep it in one place", "points", k, i)
                row[n] = check_value(src, n, v, "points", i)
                for key in hpl_keys(src, n, [row[n]], "points", i):
                    where = (f"[base] sets too ({base_hpl[key]})" if key in base_hpl else
                             f"factor {factor_hpl[key]} sets too" if key in factor_hpl else
                             f"this point sets too ({point_hpl[key]})" if key in point_hpl else None)
                    if where:
                        raise src.error(f"{k} sets HPL's {key}, which {where}: one would silently override the "
                                        "other; keep it in one place", "points", k, i)
                    point_hpl[key] = k
                factors.setdefault(n, [])
                # one level, one spelling: "1rM" in a point and 1 in another are one BCAST, one
                # value on a plot's axis and in means.csv
                row[n] = next((lv for lv in factors[n] if level_key(n, lv) == level_key(n, row[n])), row[n])
                if row[n] not in factors[n]:
                    factors[n].append(row[n])
            listed.append(row)
        listed = [{n: row.get(n) for n in factors if n not in crossed} for row in listed]
        too_many(src, len(listed) * len(rows) * len(seeds), "points")
        row_index = [i for i in range(len(listed)) for _ in rows]
        rows = [{**pt, **combo} for pt in listed for combo in rows]
    design = "factorial" if not listed else "points" if "factors" not in doc else "points x factorial"
    # outputs
    outputs = head.get("outputs")
    if outputs is None:
        outputs = [o for o in DEFAULT_OUTPUTS if o != "energy_j" or "energy" in base or "energy" in factors]
    elif not (isinstance(outputs, list) and outputs and all(isinstance(o, str) for o in outputs)):
        raise src.error('outputs: expected a list of JSON fields, e.g. ["gflops", "hpl_time_s"]', "study", "outputs")
    twice = sorted({o for o in outputs if outputs.count(o) > 1})
    if twice:
        raise src.error(f"outputs: {', '.join(twice)} given twice; give each output once", "study", "outputs")
    for o in outputs:
        if o not in OUTPUTS:
            raise src.error(f"unknown output '{o}'; the outputs are {', '.join(OUTPUTS)}", "study", "outputs")
    # the directory
    d = dir_of(src, head, dir_opt)
    check_workdir(d, "--dir", "study")  # no white space, no comma: smpirun and SimGrid split there
    # the points; a listed point's factors that it does not set take what
    # its run uses (settle(), from its plan: the base's value, or what run
    # takes -- the network file's link, HPL.dat's default...), so that the
    # baseline of a one-at-a-time study is at its place on every axis
    points = []
    for row, index in zip(rows, row_index or [None] * len(rows)):
        for seed in seeds:
            try:
                options = run_options(base, row, seed)
            except CliError as e:  # an HPL.dat setting: said as make_plan's checks are (plan_points)
                raise point_error(os.path.abspath(path), Point(id=None, factors=row, seed=seed, options=None), e)
            points.append(Point(id=point_id(row, seed), factors=row, seed=seed, options=options, listed=index))
    return Study(path=os.path.abspath(path), text=text, name=name, dir=d,
                 base=base, factors=factors, design=design, seeds=seeds, outputs=outputs, points=points)


def study_table(src, doc):
    """The file's [study] table ({} when it has none); one that is not a
    table is refused at its line (study = 5 was a traceback, study = "abc"
    its letters unknown keys)."""
    head = doc.get("study", {})
    if not isinstance(head, dict):
        raise src.error(f"[study] must be a table of {', '.join(STUDY_KEYS)} (e.g. [study] then replicates = 3 on "
                        "a line of its own)", *(("study", None) if isinstance(head, list) else (None, "study")))
    return head


def dir_of(src, head, dir_opt=None):
    """The directory of the study file src (its Source): --dir, else
    [study] dir (head's) relative to the file, else the file's name in the
    current directory; a dir that is not a path is refused, --dir or not
    (run, status, collect and plot read it here alike)."""
    if "dir" in head and not isinstance(head["dir"], str):
        raise src.error(f"dir = {head['dir']!r}: expected a path in quotes, e.g. dir = \"runs/grid\"", "study", "dir")
    if dir_opt:
        return os.path.abspath(dir_opt)
    if "dir" in head:
        return os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(src.path)), head["dir"]))
    return os.path.abspath(os.path.splitext(os.path.basename(src.path))[0])


def too_many(src, count, section):
    """A study error when count points (with the replicates) exceed MAX_POINTS."""
    if count > MAX_POINTS:
        raise src.error(f"{count:,} points with the replicates: more than {MAX_POINTS:,}, which is surely not what "
                        "was meant; fewer levels or replicates, or split the study into several files", section)


def run_options(base, row, seed):
    """A point's RunOptions: the base, with its factors' values instead, its seed."""
    given = {**base, **{k: v for k, v in row.items() if v is not None}}
    kw = {k: v for k, v in given.items() if not k.startswith("hpl.") and k != "hpl_opt"}
    hpl = hpldat.parse_hpl_opts(given.get("hpl_opt"))
    hpl.update(hpldat.setting(k[4:], v) for k, v in given.items() if k.startswith("hpl."))
    if hpl:
        kw["hpl"] = hpl
    kw["seed"] = seed
    kw["progress"] = 0
    return RunOptions(**kw)


def slug(v):
    """A value as a directory name takes it: letters, digits, '.', '+', '-'
    (SimGrid splits its options at ',' and the shell at much else)."""
    return re.sub(r"[^A-Za-z0-9.+-]+", "-", str(v)).strip("-") or "x"


def point_id(row, seed):
    """A point's directory name: its factors' values, readable, and a digest
    of them (unique and stable while the study file keeps its factors)."""
    canon = json.dumps({"factors": row, "seed": seed}, sort_keys=True)
    digest = hashlib.sha1(canon.encode()).hexdigest()[:6]
    parts = [f"{slug(k.replace('_', '-'))}-{slug(v)}" for k, v in row.items() if v is not None]
    if seed is not None:
        parts.append(f"seed-{seed}")
    return f"{'_'.join(parts)[:100] or 'base'}_{digest}"


def plan_points(study):
    """Every point's RunPlan (make_plan: the checks `run` makes), or one
    CliError naming the point; warnings said once, not once per point."""
    plans, warned = [], set()
    for pt in study.points:
        buf = io.StringIO()
        try:
            with contextlib.redirect_stderr(buf):
                plans.append(make_plan(pt.options))
        except CliError as e:
            raise point_error(study.path, pt, e)
        finally:
            for ln in buf.getvalue().splitlines():
                if ln not in warned:
                    warned.add(ln)
                    print(ln, file=sys.stderr)
    return plans


def used_value(name, plan):
    """What the run of plan uses for option name, as a study level gives it
    (a text, a number), when the plan says it; None otherwise -- never a
    guess of what run would take."""
    if name.startswith("hpl."):
        return plan.hpl.get(name[4:])
    if name in ("bw", "lat"):  # as given, else the network file's link, else the platform's default
        return getattr(plan.platform, name)
    if name == "platform":
        return plan.platform.spec
    if name == "cores_per_node":
        return plan.platform.cores_per_node
    if name == "placement":
        return plan.platform.placement
    if name == "network":
        return plan.network.path if plan.network else "none"
    v = getattr(plan, name, None)
    return v if isinstance(v, (int, float, str, bool)) else None


def run_key(plan):
    """Two plans with the same key are the same run."""
    fields = dataclasses.asdict(dataclasses.replace(plan, progress_every=0))
    return json.dumps(fields, sort_keys=True, default=repr)


def settle(study, plans):
    """With the points' plans (plan_points): each point's values (a factor
    it does not set: what its run uses), and the factors' levels with them;
    two points that are the same run (a [[points]] listed twice, two empty
    ones, levels that name one value) are one CliError naming both: run
    once, they were counted as two replicates."""
    seen = {}
    for pt, plan in zip(study.points, plans):
        key = run_key(plan)
        if key in seen:
            first = seen[key]
            if pt.listed is not None and first.listed is not None and pt.listed != first.listed:
                line = Source(study.path, study.text).line("points", None, pt.listed)
                said = lambda x: describe(x) if x.factors and any(v is not None for v in x.factors.values()) \
                    else "the base run"  # noqa: E731
                raise CliError(f"{study.path}:{line}: [[points]] {pt.listed + 1} ({said(pt)}) is the same run "
                               f"as [[points]] {first.listed + 1} ({said(first)}): it would run once and count "
                               "as two replicates; list each point once (replicates are [study] replicates = R)")
            raise CliError(f"{study.path}: points {describe(first)} and {describe(pt)} are the same run: it would run "
                           "once and count as two replicates; give each point (each level) once")
        seen[key] = pt
        pt.values = {k: v if v is not None else used_value(k, plan) for k, v in pt.factors.items()}
        for k, v in pt.values.items():
            if v is not None and v not in study.factors[k]:
                study.factors[k].insert(0, v)


def point_error(path, pt, e):
    """CliError e of point pt, in study file path."""
    return CliError(f"{path}: point {describe(pt)}: {str(e).removeprefix('simblas-hpl: ')} (nothing was run)",
                    e.status)


def describe(pt):
    what = [f"{k.replace('_', '-')}={v}" for k, v in pt.factors.items() if v is not None]
    if pt.seed is not None:
        what.append(f"seed={pt.seed}")
    return " ".join(what) or "(the base run)"
