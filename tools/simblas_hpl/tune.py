"""Tuning HPL for a machine: a search over HPL's parameters for the best
Gflops, each point one simulated run on the study engine (engine.py),
driven by Optuna (Debian's python3-optuna: TPE, CMA-ES, random, and an
exhaustive grid of the same space).

A tune directory holds

    tune.json        the machine, N and the search space: a resumed tune
                     must be the same tune
    optuna.journal   Optuna's journal (JournalFileStorage): one Optuna
                     study per sampler and seed, shared by every tune
                     command on the directory (several may run at once)
    points/          one engine point per distinct parameter set, shared by
                     the samplers: a point is simulated once
    engine/          the Slurm jobs' scripts and logs
    SAMPLER-SEED.csv, SAMPLER-SEED-HPL.dat, plots/   what a tune wrote

The space: NB, the process grid P x Q (every grid of the rank count whose
sides differ by at most --max-aspect), the mapping (row- or
column-major), BCAST, DEPTH, PFACT, RFACT, NBMIN, NDIV, SWAP and, for the
mixed swap only, its threshold.  An ordered parameter (NB, the grid by P,
DEPTH, NBMIN, NDIV, the threshold) is an Optuna integer, the index of its
level, so that the samplers see which levels neighbour which; the named
ones are categorical.  A new search evaluates first what `run` takes when
told nothing (usual_point).
"""

import contextlib
import dataclasses
import fcntl
import hashlib
import io
import itertools
import json
import math
import os
import re
import socket
import sys
import types
import warnings
from typing import Dict, Optional

from . import engine, hpldat, points, study_plot
from .differences import changes
from . import study as st
from .errors import CliError, note
from .files import write_atomic
from .plan import DEFAULT_NB, check_keep, content, content_then, make_dir, make_plan

TUNE_JSON, JOURNAL, POINTS, SPOOL, PLOTS = "tune.json", "optuna.journal", "points", "engine", "plots"
SAMPLERS = ("tpe", "cmaes", "random", "grid")
MAX_ASPECT = 4
FORMAT = 2  # tune.json's: 2, ordered levels are Optuna integers (their index)
PATIENCE = 50  # proposals in a row of points already evaluated: the search has converged

# the parameters, in the table's order: (name, HPL.dat key, default levels)
CATEGORICAL_NAMES = {
    "pmap": ["row", "col"],
    "bcast": ["1rg", "1rM", "2rg", "2rM", "Lng", "LnM"],
    "pfact": ["left", "crout", "right"],
    "rfact": ["left", "crout", "right"],
    "swap": ["bin-exch", "long", "mix"],
}
DEFAULT_SPACE = {
    "nb": "64:512:32",
    "grid": None,          # the rank count's grids within --max-aspect
    "pmap": "row,col",
    "bcast": "1rg,1rM,2rg,2rM,Lng,LnM",
    "depth": "0:2",
    "pfact": "left,crout,right",
    "rfact": "left,crout,right",
    "nbmin": "1,2,4,8",
    "ndiv": "2:4",
    "swap": "bin-exch,long,mix",
    "swap_threshold": "32,64,128,256",
}
PARAMS = tuple(DEFAULT_SPACE)
HPL_KEYS = ("pmap", "bcast", "depth", "pfact", "rfact", "nbmin", "ndiv", "swap", "swap_threshold")
MINIMUM = {"nb": 1, "depth": 0, "nbmin": 1, "ndiv": 2, "swap_threshold": 0}
MAX_LEVELS = 100_000  # a parameter's levels: beyond, surely a slip


def optuna_module():
    """Optuna, or one line naming the package and the interpreter."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            import optuna
    except ImportError:
        raise CliError(f"simblas-hpl tune searches with Optuna, which {sys.executable} cannot import: install "
                       "Debian's python3-optuna (apt-get install python3-optuna) for that interpreter "
                       "(configure chose it: PYTHON=...)")
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    warnings.filterwarnings("ignore", category=optuna.exceptions.ExperimentalWarning)
    return optuna


# ---- the space ------------------------------------------------------------------------
@dataclasses.dataclass
class Levels:
    """A parameter's levels, as Optuna searches them: an ordered
    parameter (NB, the grid by P, DEPTH, NBMIN, NDIV, the swap threshold)
    is an integer, the index of its level, so that TPE and CMA-ES see which
    levels are neighbours; a named one (PMAP, BCAST, PFACT, RFACT, SWAP) is
    categorical."""
    name: str
    values: list
    step: Optional[int] = None   # integers lo..hi by step (how --search gave them)
    ordered: bool = False

    def distribution(self, optuna):
        if self.ordered:
            return optuna.distributions.IntDistribution(0, len(self.values) - 1)
        return optuna.distributions.CategoricalDistribution(self.values)

    def encode(self, value):
        """A level as Optuna holds it."""
        return self.values.index(value) if self.ordered else value

    def decode(self, x):
        return self.values[x] if self.ordered else x

    def suggest(self, trial):
        if self.ordered:
            return self.values[trial.suggest_int(self.name, 0, len(self.values) - 1)]
        return trial.suggest_categorical(self.name, self.values)

    def text(self):
        if self.step is not None:
            return f"{self.values[0]}:{self.values[-1]}:{self.step}"
        return ",".join(str(v) for v in self.values)


def grids(ranks, max_aspect):
    """Every P x Q = ranks with max(P, Q) / min(P, Q) <= max_aspect, as 'PxQ'."""
    return [f"{p}x{ranks // p}" for p in range(1, ranks + 1)
            if ranks % p == 0 and max(p, ranks // p) <= max_aspect * min(p, ranks // p)]


def grid_p(g):
    """P of 'PxQ': the grids' order (squarer towards the middle)."""
    return int(g.split("x")[0])


def grid_skew(g):
    """How far 'PxQ' is from square: |P - Q|."""
    p, q = (int(v) for v in g.split("x"))
    return abs(p - q)


def parse_levels(name, text, ranks):
    """--search NAME=LEVELS -> Levels; CliError naming what is wrong."""
    opt = f"--search {name}={text}"
    text = text.strip()
    if name == "grid":
        vals = []
        for g in text.split(","):
            m = re.fullmatch(r"\s*(\d+)\s*x\s*(\d+)\s*", g)
            if not m:
                raise CliError(f"{opt}: a grid is PxQ (e.g. 8x8,4x16)")
            p, q = int(m.group(1)), int(m.group(2))
            if p * q != ranks:
                raise CliError(f"{opt}: {p}x{q} is {p * q} ranks, not the machine's {ranks} (--nodes x "
                               f"--cores-per-node); give grids of {ranks} ranks, e.g. {min(grids(ranks, math.inf), key=grid_skew)}")
            vals.append(f"{p}x{q}")
        return Levels(name, sorted(dict.fromkeys(vals), key=grid_p), ordered=True)
    if name in CATEGORICAL_NAMES:
        names = CATEGORICAL_NAMES[name]
        vals = []
        for v in text.split(","):
            v = v.strip()
            try:  # a name HPL's options take, or its code
                code = hpldat.setting(name, v)[1]
            except CliError:
                raise CliError(f"{opt}: '{v}' is not a {name}; its levels are {', '.join(names)} (or 0..{len(names) - 1})")
            vals.append(names[code])
        return Levels(name, list(dict.fromkeys(vals)))
    lo = MINIMUM[name]
    m = re.fullmatch(r"(\d+):(\d+)(?::(\d+))?", text)
    if m:
        a, b, step = int(m.group(1)), int(m.group(2)), int(m.group(3) or 1)
        if a > b or step < 1 or a < lo:
            raise CliError(f"{opt}: a range LO:HI[:STEP] needs {lo} <= LO <= HI and STEP >= 1")
        if (b - a) // step + 1 > MAX_LEVELS:  # a list of them all first: memory and time, then a MemoryError
            raise CliError(f"{opt}: {(b - a) // step + 1:,} levels, more than {MAX_LEVELS:,}, which is surely not "
                           "what was meant: a larger STEP or a narrower range")
        vals = list(range(a, b + 1, step))
    else:
        try:
            vals = sorted({int(v) for v in text.split(",")})
        except ValueError:
            raise CliError(f"{opt}: expected whole numbers (a,b,c) or a range LO:HI[:STEP]")
        if vals[0] < lo:
            raise CliError(f"{opt}: {name} must be >= {lo}")
    top = vals[-1]
    if top > hpldat.HPL_INT_MAX:  # every point at that level would fail when run (HPL's atoi)
        raise CliError(f"{opt}: {top} is more than {hpldat.HPL_INT_MAX}, and HPL reads {name} as a C int")
    return Levels(name, vals, step if m and b > a else None, ordered=True)


@dataclasses.dataclass
class Space:
    levels: Dict[str, Levels]    # the searched parameters (two levels or more)
    fixed: Dict[str, object]     # the others: one level, or fixed by --hpl-opt

    def size(self):
        """Distinct points (the swap threshold counts for the mixed swap only)."""
        other = math.prod(len(lv.values) for n, lv in self.levels.items() if n not in ("swap", "swap_threshold"))
        swaps = self.levels["swap"].values if "swap" in self.levels else [self.fixed.get("swap")]
        thr = len(self.levels["swap_threshold"].values) if "swap_threshold" in self.levels else 1
        return other * sum(thr if s == "mix" else 1 for s in swaps)

    def grid_points(self):
        """Every point of the space, in a fixed order (the grid sampler's)."""
        names = [n for n in PARAMS if n in self.levels and n != "swap_threshold"]
        for combo in itertools.product(*(self.levels[n].values for n in names)):
            params = dict(zip(names, combo))
            if self.value(params, "swap") == "mix" and "swap_threshold" in self.levels:
                for t in self.levels["swap_threshold"].values:
                    yield {**params, "swap_threshold": t}
            else:
                yield params

    def value(self, params, name):
        return params[name] if name in params else self.fixed.get(name)

    def suggest(self, trial):
        """The trial's point (define-by-run: the threshold only for the mixed swap)."""
        params = {}
        for n in PARAMS:
            lv = self.levels.get(n)
            if lv is None or (n == "swap_threshold" and self.value(params, "swap") != "mix"):
                continue
            params[n] = lv.suggest(trial)
        return params

    def encode(self, params):
        """A point's searched values as Optuna holds them (for enqueue_trial)."""
        return {n: self.levels[n].encode(v) for n, v in params.items()}

    def decode(self, raw):
        """A trial's params (Optuna's) as the point's values."""
        return {n: self.levels[n].decode(x) for n, x in raw.items()}

    def full(self, params):
        """Every parameter's value at a point (fixed ones included; the
        threshold None unless the swap is mixed)."""
        out = {n: self.value(params, n) for n in PARAMS}
        if out["swap"] != "mix":
            out["swap_threshold"] = None
        return out

    def to_json(self):
        return {"search": {n: lv.text() for n, lv in self.levels.items()}, "fixed": self.fixed}


def make_space(searches, fixes, ranks, max_aspect):
    """The space from the defaults, --search NAME=LEVELS and the HPL.dat
    settings --hpl-opt fixes ({name: value}, checked); CliError before
    anything runs."""
    if max_aspect < 1:
        raise CliError(f"--max-aspect {max_aspect:g}: must be >= 1 (1: square grids only)")
    given = {}
    for item in searches or []:
        if "=" not in item:
            raise CliError(f"--search {item!r}: expected NAME=LEVELS, e.g. nb=64:256:64 or bcast=1rM,LnM")
        k, v = item.split("=", 1)
        k = k.strip().lower().replace("-", "_")
        if k == "threshold":
            k = "swap_threshold"
        if k not in DEFAULT_SPACE:
            raise CliError(f"--search {k}: not a tuned parameter; they are {', '.join(PARAMS)}")
        if k in given:  # the last one would win without a word
            raise CliError(f"--search {k} is given twice ({k}={given[k].strip()} and {k}={v.strip()}): give all its "
                           "levels in one --search")
        given[k] = v
    fixed_opts = dict(fixes or {})
    levels, fixed = {}, {}
    for n in PARAMS:
        if n in fixed_opts and n in HPL_KEYS:
            if n in given:
                raise CliError(f"--search {n} and --hpl-opt {n}: give one (--hpl-opt fixes it, --search searches it)")
            code = fixed_opts[n]
            fixed[n] = CATEGORICAL_NAMES[n][code] if n in CATEGORICAL_NAMES else code
            continue
        if n == "grid" and n not in given:
            g = grids(ranks, max_aspect)
            if not g:
                near = min((f"{p}x{ranks // p}" for p in range(1, ranks + 1) if ranks % p == 0),
                           key=lambda s: max(int(s.split("x")[0]), int(s.split("x")[1])))
                a, b = (int(x) for x in near.split("x"))
                raise CliError(f"no process grid of {ranks} ranks has sides within --max-aspect {max_aspect:g} of each "
                               f"other (the squarest is {near}, aspect {max(a, b) / min(a, b):g}); give --max-aspect "
                               f"{math.ceil(max(a, b) / min(a, b))}, --search grid={near}, or a rank count with "
                               "more divisors")
            lv = Levels("grid", g, ordered=True)
        else:
            lv = parse_levels(n, given.get(n, DEFAULT_SPACE[n]), ranks)
        if len(lv.values) == 1:
            fixed[n] = lv.values[0]
        else:
            levels[n] = lv
    swaps = levels["swap"].values if "swap" in levels else [fixed.get("swap")]
    if "swap_threshold" in given and "swap_threshold" in levels and "mix" not in swaps:  # levels never searched
        raise CliError(f"--search swap_threshold={given['swap_threshold']}: the threshold is the mixed swap's only, "
                       f"and swap is {','.join(str(v) for v in swaps)}: add mix to --search swap, or drop the "
                       "threshold's --search")
    return Space(levels, fixed)


def usual_point(space):
    """What `simblas-hpl run` takes when told nothing, as a point of the
    space: HPL.dat's usual settings (hpldat.DEFAULTS: PMAP row, BCAST 1rM,
    DEPTH 1, PFACT right, RFACT crout, NBMIN 4, NDIV 2, SWAP mix at 64),
    run's NB and the squarest grid with P <= Q.  An ordered parameter takes
    its level nearest to that value (the lower of two), a named one that
    level if the space has it, else its first."""
    usual = {"nb": DEFAULT_NB}
    for n in HPL_KEYS:
        code = hpldat.DEFAULTS[n]
        usual[n] = CATEGORICAL_NAMES[n][code] if n in CATEGORICAL_NAMES else code
    params = {}
    for n in PARAMS:
        lv = space.levels.get(n)
        if lv is None or (n == "swap_threshold" and space.value(params, "swap") != "mix"):
            continue
        if n == "grid":
            pq = [(g, grid_p(g), int(g.split("x")[1])) for g in lv.values]
            params[n] = min(pq, key=lambda t: (max(t[1], t[2]) / min(t[1], t[2]), t[1] > t[2]))[0]
        elif lv.ordered:
            params[n] = min(lv.values, key=lambda v: (abs(v - usual[n]), v))
        else:
            params[n] = usual[n] if usual[n] in lv.values else lv.values[0]
    return params


# ---- points -----------------------------------------------------------------------------
def point_options(base, space, params, n_of):
    """A point's RunOptions: the machine's, with the point's N, NB, grid and HPL settings."""
    full = space.full(params)
    p, q = (int(x) for x in full["grid"].split("x"))
    hpl = dict(base.hpl)
    hpl.update(hpldat.setting(k, full[k]) for k in HPL_KEYS if full[k] is not None)
    return dataclasses.replace(base, n=n_of(full["nb"]), nb=full["nb"], p=p, q=q, hpl=hpl, progress=0)


def point_id(full):
    """A point's directory name: its values, and a digest of them."""
    canon = json.dumps(full, sort_keys=True)
    digest = hashlib.sha1(canon.encode()).hexdigest()[:8]
    short = {"swap_threshold": "thr"}
    parts = [f"{short.get(k, k)}-{st.slug(v)}" for k, v in full.items() if v is not None]
    return "_".join(parts)[:150] + "_" + digest


@dataclasses.dataclass
class Tune:
    dir: str
    base: object                # RunOptions: the machine (n, nb, p, q set per point)
    space: Space
    n: Optional[int]            # --n, or None with a memory fraction
    n_from_memory: Optional[dict]
    ranks: int

    def n_of(self, nb):
        if self.n is not None:
            return self.n
        return self.n_from_memory["n"] // nb * nb  # the largest multiple of NB that fits

    def options(self, params):
        return point_options(self.base, self.space, params, self.n_of)

    def point_dir(self, params):
        return os.path.join(self.dir, POINTS, point_id(self.space.full(params)))

    def identity(self):
        base = self.base.record(skip=("progress", "n", "nb", "p", "q"))
        return json.loads(json.dumps({"format": FORMAT, "ranks": self.ranks, "n": self.n, "memory": self.n_from_memory,
                                      "machine": base, **self.space.to_json()}, default=str))


def n_from_memory(fraction, node_memory, nodes):
    """N filling fraction of the nodes' memory with the matrix (8 N^2 bytes)."""
    if not (0 < fraction <= 1):
        raise CliError(f"--memory-fraction {fraction:g}: out of range; the matrix takes a fraction of each node's "
                       "memory, 0 < F <= 1 (0.8 is usual)")
    total = node_memory * nodes
    n = int(math.sqrt(fraction * total / 8))
    return {"fraction": fraction, "node_memory_bytes": node_memory, "nodes": nodes, "n": n}


SIZE_UNITS = {"": 1, "B": 1, "K": 2**10, "KB": 1e3, "KIB": 2**10, "M": 2**20, "MB": 1e6, "MIB": 2**20,
              "G": 2**30, "GB": 1e9, "GIB": 2**30, "T": 2**40, "TB": 1e12, "TIB": 2**40}


def parse_size(text, opt):
    m = re.fullmatch(r"\s*([0-9]*\.?[0-9]+)\s*([A-Za-z]*)\s*", text or "")
    if not m or m.group(2).upper() not in SIZE_UNITS or float(m.group(1)) <= 0:
        raise CliError(f"{opt} {text!r}: not a memory size (e.g. 192GiB, 96G, 512GB)")
    return int(float(m.group(1)) * SIZE_UNITS[m.group(2).upper()])


def levels_of(space, name):
    """A parameter's levels (one when it is fixed)."""
    return space.levels[name].values if name in space.levels else [space.fixed[name]]


def check_plans(tune):
    """Every NB x grid the space holds, planned as `run` plans it (the
    checks `run` makes), before anything runs; one line naming the point."""
    nbs, gs = levels_of(tune.space, "nb"), levels_of(tune.space, "grid")
    points = []
    for nb, g in itertools.product(nbs, gs):
        params = {"nb": nb, "grid": g}
        points.append(st.Point(id=point_id(params), factors=params, seed=None, options=tune.options(params)))
    plans = st.plan_points(types.SimpleNamespace(path="tune", points=points))
    return plans[0]


# ---- the storage and the search -----------------------------------------------------------
# what tune.json holds and does not compare: a changed --timeout changes no
# point's result (points simulated before keep theirs)
NOT_COMPARED = ("timeout",)
# identity's keys added after tune directories were made: a directory made
# before one is checked without it (and gets it)
ADDED = ("model_file", "content")


def comparable(ident):
    """tune.json's identity with the machine's HPL.dat settings as values
    (hpldat.comparable), without what is not compared."""
    m = ident.get("machine")
    if not isinstance(m, dict):
        return ident
    return {**ident, "machine": {k: v for k, v in hpldat.comparable(m).items() if k not in NOT_COMPARED}}


def difference(was, now):
    """What differs between two identities, as 'what old -> new' texts,
    the machine's by its option."""
    return changes(was, now, lambda path: f"--{path[1].replace('_', '-')}" if path[0] == "machine" else
                   f"--search {' '.join(path[1:])}" if path[0] == "search" else " ".join(path))


def open_dir(tune, plan):
    """Make (or check) the tune directory: a resumed tune is the same tune
    (its options, and the content of the model and network files one of
    its plans names)."""
    check_keep(tune.dir, "for the tune", opt="--dir", kind="tune")
    if os.path.exists(os.path.join(tune.dir, "study.json")):
        raise CliError(f"{tune.dir} is a study's directory (it holds study.json): its points would mix with the "
                       "tune's; give another --dir")
    make_dir(os.path.join(tune.dir, POINTS), "--dir")
    path = os.path.join(tune.dir, TUNE_JSON)
    ident = tune.identity()
    ident["model_file"] = plan.model
    ident["content"] = content(plan)
    old = points._read_json(path)
    if old is not None and not isinstance(old, dict):
        old = {}
    if old is not None and old.get("format") != FORMAT:
        raise CliError(f"{tune.dir} holds a tune made by another simblas-hpl (tune.json format {old.get('format')}, "
                       f"not {FORMAT}: its Optuna studies hold the levels otherwise): give another --dir")
    made_before = [k for k in ADDED if old is not None and k not in old]
    if old is not None:
        old.update({k: ident[k] for k in made_before})
        then = content_then(old.get("content"), ident["content"])
        if then != old.get("content"):
            old["content"] = then
            made_before.append("content")
    was, now = (comparable(old), comparable(ident)) if old is not None else (None, None)
    if old is not None and was != now:
        raise CliError(f"{tune.dir} holds a tune of another machine or space ({'; '.join(difference(was, now)[:3])}):"
                       " its points would mix with these; give another --dir")
    if old is None or made_before:
        write_atomic(path, json.dumps(ident, indent=2) + "\n")


def study_name(sampler, seed):
    return f"{sampler}-{seed}"


def startup_trials(budget):
    """Random points before the model guides the search: Optuna's 10 would
    leave a budget of 12 two guided points; a quarter of it, 3 to 10."""
    return min(10, max(3, budget // 4))


def make_sampler(optuna, name, seed, budget):
    if name == "tpe":
        # multivariate: the parameters interact; constant liar: a batch of
        # points asked at once spreads out instead of asking one point j times
        return optuna.samplers.TPESampler(seed=seed, multivariate=True, group=True, constant_liar=True,
                                          n_startup_trials=startup_trials(budget), warn_independent_sampling=False)
    if name == "cmaes":  # integer parameters by CMA-ES, the categorical ones drawn independently
        return optuna.samplers.CmaEsSampler(seed=seed, n_startup_trials=startup_trials(budget),
                                            warn_independent_sampling=False)
    return optuna.samplers.RandomSampler(seed=seed)  # random, and grid (enqueued points)


class JournalFlock:
    """The journal's lock for Optuna's JournalFileStorage (its lock_obj):
    an flock on JOURNAL.flock, which the kernel releases when its holder
    dies.  Optuna 3.1's own lock (a symbolic link JOURNAL.lock, no grace
    period) outlives a tune killed while it writes (SIGKILL, or SIGTERM to
    a stopped process), and every later tune on the directory then waits
    for it forever, saying nothing."""

    def __init__(self, journal):
        self.path = journal + ".flock"
        self.fd = None

    def acquire(self):
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
        except BaseException:
            os.close(fd)
            raise
        self.fd = fd
        return True

    def release(self):
        fd, self.fd = self.fd, None
        if fd is not None:
            os.close(fd)  # the lock goes with it


def load_study(optuna, tune, sampler, seed, budget):
    journal = os.path.join(tune.dir, JOURNAL)
    storage = optuna.storages.JournalStorage(optuna.storages.JournalFileStorage(journal, lock_obj=JournalFlock(journal)))
    return optuna.create_study(storage=storage, study_name=study_name(sampler, seed), direction="maximize",
                               sampler=make_sampler(optuna, sampler, seed, budget), load_if_exists=True)


OWNER = f"{socket.gethostname()}:{os.getpid()}"


def alive(owner):
    """Whether the tune command owner ('host:pid') may still run (another
    host's: it may)."""
    host, _, pid = (owner or "").rpartition(":")
    if host != socket.gethostname() or not pid.isdigit():
        return True
    try:
        os.kill(int(pid), 0)
        return True
    except ProcessLookupError:
        return False
    except PermissionError:
        return True


@dataclasses.dataclass
class Evaluation:
    trial: int
    params: dict        # the point's searched values
    full: dict          # every parameter's value
    n: int
    gflops: Optional[float]
    point: str
    state: str          # done | failed


def evaluations(optuna, study, tune):
    """What the search evaluated: one per distinct point (its first
    complete trial, else its first failed one), in the order of those
    trials."""
    first = {}  # point -> (complete?, trial)
    for t in study.get_trials(deepcopy=False, states=(optuna.trial.TrialState.COMPLETE,
                                                      optuna.trial.TrialState.FAIL)):
        pid = t.user_attrs.get("point")
        if pid is None:
            continue
        done = t.state == optuna.trial.TrialState.COMPLETE
        if pid not in first or (done and not first[pid][0]):
            first[pid] = (done, t)
    out = []
    for pid, (done, t) in sorted(first.items(), key=lambda kv: kv[1][1].number):
        params = tune.space.decode(t.params)
        full = tune.space.full(params)
        out.append(Evaluation(t.number, params, full, tune.n_of(full["nb"]), t.value if done else None,
                              pid, "done" if done else "failed"))
    return out


def adopt_stale(optuna, study, tune, say):
    """Trials a killed tune command left running: their points' results are
    told now, or the points asked again first."""
    for t in study.get_trials(deepcopy=False, states=(optuna.trial.TrialState.RUNNING,)):
        if alive(t.user_attrs.get("owner")):
            continue
        d = os.path.join(tune.dir, POINTS, t.user_attrs.get("point", ""))
        r = points.result(d) if t.user_attrs.get("point") else None
        if r and isinstance(r.get("gflops"), (int, float)):
            study.tell(t.number, r["gflops"])
        else:
            study.tell(t.number, state=optuna.trial.TrialState.FAIL)
            if t.params:
                study.enqueue_trial(t.params)
        say(f"trial {t.number}, left running by a stopped tune ({t.user_attrs.get('owner')}): "
            + ("its point was done" if r else "asked again"))


def optimise(tune, sampler, seed, budget, engine_name, jobs, slurm_opts, say=note, patience=PATIENCE, first="usual"):
    """Run the search until `budget` distinct points are evaluated (all of
    the space for the grid, or the first `budget` of its order), the space
    is exhausted or the search converged; a new search's first point is
    usual_point's unless `first` is "sampler".  Returns (the study's
    evaluations, why it stopped)."""
    optuna = optuna_module()
    size = tune.space.size()
    budget = min(budget or size, size)
    study = load_study(optuna, tune, sampler, seed, budget)
    adopt_stale(optuna, study, tune, say)
    if first == "usual" and sampler != "grid" and not study.get_trials(deepcopy=False):
        study.enqueue_trial(tune.space.encode(usual_point(tune.space)))
    # the grid's order, read as it goes: listed whole first, a space of a million points (16 ranks' default)
    # took 30 s and 650 MB before the first point, whatever the budget
    order = ((p, point_id(tune.space.full(p))) for p in tune.space.grid_points()) if sampler == "grid" else None
    streak = 0
    while True:
        evals = evaluations(optuna, study, tune)
        seen = {e.point for e in evals}
        counted = len(evals)
        if counted >= budget:
            return evals, ("the space is exhausted" if counted >= size else f"{budget} points evaluated")
        batch = {}  # point dir -> (params, [trial numbers])
        while len(batch) < jobs and counted + len(batch) < budget and streak < patience:
            if order is not None:  # the grid: the next point it has not evaluated
                nxt = next((p for p, pid in order if pid not in seen), None)
                if nxt is None:
                    break
                study.enqueue_trial(tune.space.encode(nxt))
            trial = study.ask()
            params = tune.space.suggest(trial)
            d = tune.point_dir(params)
            pid = os.path.basename(d)
            trial.set_user_attr("point", pid)
            trial.set_user_attr("owner", OWNER)
            if d in batch:  # asked twice in this batch
                batch[d][1].append(trial.number)
                streak += 1
                continue
            r = points.result(d)
            if r is not None or (points.state(d) == "failed" and pid in seen):
                # done before (by this search, or another sampler on this directory)
                value = r.get("gflops") if r else None
                if isinstance(value, (int, float)):
                    study.tell(trial, value)
                else:
                    study.tell(trial, state=optuna.trial.TrialState.FAIL)
                if pid in seen:
                    streak += 1
                else:
                    seen.add(pid)
                    counted += 1
                    streak = 0
                continue
            streak = 0
            batch[d] = (params, [trial.number])
        if not batch:
            evals = evaluations(optuna, study, tune)
            if len(evals) >= budget or len(evals) >= size or order is not None:
                return evals, ("the space is exhausted" if len(evals) >= size else f"{len(evals)} points evaluated")
            return evals, f"the search converged ({patience} proposals in a row were points evaluated already)"
        for d, (params, _) in batch.items():
            opts = tune.options(params)
            with contextlib.redirect_stderr(io.StringIO()):  # warnings were said once, by check_plans
                plan = make_plan(opts)
            points.write_point(d, plan, {"params": params, "full": tune.space.full(params), "n": opts.n})
        engine.run_points(list(batch), engine_name, jobs=jobs, slurm_opts=slurm_opts, wait=True,
                          spool=os.path.join(tune.dir, SPOOL), say=None,
                          follow=f"run the same tune again (--dir {tune.dir}) to use its points")
        for d, (params, trials) in batch.items():
            r = points.result(d)
            value = r.get("gflops") if r else None
            for num in trials:
                if isinstance(value, (int, float)):
                    study.tell(num, value)
                else:
                    study.tell(num, state=optuna.trial.TrialState.FAIL)
            fail = (points.failure(d) or {}).get("message", "not run").splitlines()[0]
            say(f"[{len(evaluations(optuna, study, tune))}/{budget}] " +
                " ".join(f"{k}={v}" for k, v in tune.space.full(params).items() if v is not None) +
                (f": {value:.6g} Gflops" if isinstance(value, (int, float)) else f": FAILED ({fail})"))


# ---- what a tune prints and draws --------------------------------------------------------------
COLUMNS = ("nb", "grid", "pmap", "bcast", "depth", "pfact", "rfact", "nbmin", "ndiv", "swap", "swap_threshold")


def table(evals):
    """The evaluated points, in order, with their Gflops and the best so far."""
    head = ["eval", "trial"] + [("thr" if c == "swap_threshold" else c) for c in COLUMNS] + ["N", "Gflops", "best"]
    rows, best = [], None
    for i, e in enumerate(evals, 1):
        if e.gflops is not None and (best is None or e.gflops > best):
            best = e.gflops
        rows.append([str(i), str(e.trial)] + ["-" if e.full[c] is None else str(e.full[c]) for c in COLUMNS]
                    + [str(e.n), f"{e.gflops:.6g}" if e.gflops is not None else "FAILED",
                       f"{best:.6g}" if best is not None else "-"])
    widths = [max(len(r[i]) for r in [head] + rows) for i in range(len(head))]
    return "\n".join("  ".join(c.rjust(w) for c, w in zip(r, widths)) for r in [head] + rows)


def best(evals):
    done = [e for e in evals if e.gflops is not None]
    return max(done, key=lambda e: e.gflops) if done else None


def hpl_dat_of(tune, e):
    opts = tune.options(e.params)
    return hpldat.hpl_dat(opts.n, opts.nb, opts.p, opts.q, hpldat.settings(opts.hpl))


def write_csv(path, evals):
    lines = [",".join(["eval", "trial"] + list(COLUMNS) + ["n", "gflops", "point"])]
    for i, e in enumerate(evals, 1):
        lines.append(",".join([str(i), str(e.trial)] + ["" if e.full[c] is None else str(e.full[c]) for c in COLUMNS]
                              + [str(e.n), "" if e.gflops is None else repr(e.gflops), e.point]))
    write_atomic(path, "\n".join(lines) + "\n")


def plot(tune, name, evals, gnuplot):
    """The convergence: each evaluation's Gflops and the best so far,
    against the evaluations (SVG and PNG, as study plot draws them)."""
    pdir = os.path.join(tune.dir, PLOTS)
    os.makedirs(pdir, exist_ok=True)
    base = f"{name}-convergence"
    lines, top = [], None
    for i, e in enumerate(evals, 1):
        if e.gflops is not None:
            top = e.gflops if top is None else max(top, e.gflops)
        lines.append(f"{i} {e.gflops if e.gflops is not None else 'NaN'} {top if top is not None else 'NaN'}")
    with open(os.path.join(pdir, base + ".dat"), "w") as f:
        f.write("# evaluation gflops best-so-far\n" + "\n".join(lines) + "\n")
    script = (f"set title {study_plot.gp_quote(f'simblas-hpl tune ({name}): {tune.ranks} ranks')}\n"
              "set xlabel 'evaluations (distinct points)'\nset ylabel 'Gflops'\nset grid\nset key bottom right\n"
              f"plot '{base}.dat' using 1:2 with points pt 7 ps 0.5 title 'evaluated point', "
              f"'{base}.dat' using 1:3 with steps lw 2 title 'best so far'\n")
    return study_plot.render(pdir, base, script, gnuplot)
