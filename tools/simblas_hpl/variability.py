"""Node variability: a speed factor per host, by which libsimblas divides
every modelled kernel of that host's ranks (SIMBLAS_HOST_FACTORS, read in
the call path, lib/call.c).  The factors are

  drawn        --node-spread PCT (each host's factor from a normal law of
               mean 1 and standard deviation PCT %) and/or --slow-nodes
               FRAC:SPEED (round(FRAC x hosts) hosts, chosen at random, also
               run at SPEED times their speed), reproducibly by --seed;
  fitted       --node-speeds model: the spread of the calibrator's per-core
               coefficient sets (the model's `set coreN` sections: each
               core's dgemm time at the reference size against the node
               set's), as a normal law the hosts are drawn from;
  read         --node-speeds FILE: one factor per host ("HOST FACTOR", or a
               bare factor per line in the order of the hosts).

Temporal variability is SIMBLAS_NOISE (--noise): each call drawn from the
model's noise; spatial variability is this, fixed for a run.
"""

import dataclasses
import math
import os
import random
import statistics
from typing import Dict, List, Optional

from .errors import CliError
from .files import read_text

FACTOR_MIN = 0.05           # a host 20 times slower is a broken one: a draw below is clipped, a factor given
                            # below refused (1e-300 made every kernel infinite: "Simulated time: inf")
REFERENCE_SIZE = 4096       # the calibrator's reference-speed is dgemm's rate at m = n = k = 4096
TERMS = ("1", "m", "n", "mn", "k", "mk", "nk", "mnk")


@dataclasses.dataclass
class NodeSpeeds:
    """The hosts' speed factors and where they come from (the JSON's
    node_speed)."""
    source: str                       # draw | model | file
    factors: Dict[str, float]         # host -> factor, in host order
    seed: Optional[int] = None
    spread_pct: Optional[float] = None
    slow_fraction: Optional[float] = None
    slow_speed: Optional[float] = None
    slow_hosts: List[str] = dataclasses.field(default_factory=list)
    file: Optional[str] = None
    model: Optional[str] = None
    core_factors: Optional[List[float]] = None

    def summary(self):
        f = list(self.factors.values())
        out = {k: v for k, v in dataclasses.asdict(self).items() if v is not None and k != "factors"}
        out.update(hosts=len(f), min=round(min(f), 6), max=round(max(f), 6), mean=round(statistics.fmean(f), 6),
                   factors=self.factors)
        return out

    def file_text(self):
        return factors_file_text(self.factors)


def factors_file_text(factors, memory=None):
    """SIMBLAS_HOST_FACTORS's file of {host: factor}; memory: {host: the
    memory kernels' factor}, the lines' third column where it differs."""
    memory = memory or {}
    return "# host speed factor [memory kernels' factor] (simblas-hpl: SIMBLAS_HOST_FACTORS)\n" + "".join(
        f"{h} {v:.9g}" + (f" {memory[h]:.9g}" if h in memory and memory[h] != v else "") + "\n"
        for h, v in factors.items())


def parse_slow(text):
    """--slow-nodes FRAC:SPEED -> (fraction, speed)."""
    try:
        frac, speed = (float(x) for x in text.split(":"))
    except (ValueError, AttributeError):
        frac = speed = None
    if frac is None or not (0 <= frac <= 1) or not (0 < speed and math.isfinite(speed)):
        raise CliError(f"--slow-nodes {text!r}: expected FRACTION:SPEED, the fraction of hosts that are slow (0 to 1) "
                       f"and their speed factor (>= {FACTOR_MIN:g}), e.g. 0.01:0.8 for 1% of the hosts at 80% of "
                       "the speed")
    if speed < FACTOR_MIN:
        raise CliError(f"--slow-nodes {text!r}: a speed of {speed:g} is below {FACTOR_MIN:g}, a host "
                       f"{1 / FACTOR_MIN:g} times slower than the model (a broken one, where drawn factors stop); "
                       f"give a SPEED >= {FACTOR_MIN:g}")
    return frac, speed


def hosts_of(platform):
    """The hosts that run ranks, in rank order (each once)."""
    return list(dict.fromkeys(platform.hostlist))


def draw(hosts, spread_pct, slow, seed):
    """{host: factor}: normal(1, spread_pct %) clipped at FACTOR_MIN, then
    round(fraction x hosts) hosts at slow speed times that; the slow hosts."""
    rng = random.Random(seed)
    sd = (spread_pct or 0) / 100.0
    factors = {h: max(FACTOR_MIN, rng.gauss(1.0, sd)) if sd > 0 else 1.0 for h in hosts}
    slow_hosts = []
    if slow:
        frac, speed = slow
        k = round(frac * len(hosts))
        slow_hosts = [hosts[i] for i in sorted(rng.sample(range(len(hosts)), k))]
        for h in slow_hosts:
            factors[h] *= speed
    return factors, slow_hosts


def model_sets(path):
    """{set name: {routine key: [(piece term, bound) or None, {term: coef}]}}
    of a model file (doc/model-format.md): the mean coefficients only."""
    sets, cur = {}, "node"
    for line in read_text(path).splitlines():
        f = line.split("#", 1)[0].split()
        if not f:
            continue
        if f[0] == "set" and len(f) >= 2:
            cur = f[1]
            continue
        if f[0] in ("simblas-model", "meta", "quality", "reference-speed", "end"):
            continue
        name, piece = f[0], None
        if "[" in name and name.endswith("]"):
            name, cond = name[:-1].split("[", 1)
            term, _, bound = cond.partition(">=")
            try:
                piece = (term, float(bound))
            except ValueError:
                continue
        coefs = {}
        for kv in f[1:]:
            if kv == "|":
                break
            k, _, v = kv.partition("=")
            try:
                coefs[k] = float(v)
            except ValueError:
                pass
        sets.setdefault(cur, {}).setdefault(name, []).append((piece, coefs))
    return sets


def predict(lines, m, n, k):
    """A routine's mean time at (m, n, k) from its lines (plain and pieces)."""
    vals = {"1": 1, "m": m, "n": n, "mn": m * n, "k": k, "mk": m * k, "nk": n * k, "mnk": m * n * k}
    best, best_bound = None, -1.0
    for piece, coefs in lines:
        if piece is None and best is None:
            best = coefs
        elif piece is not None and vals.get(piece[0], 0) >= piece[1] > best_bound:
            best, best_bound = coefs, piece[1]
    return max(0.0, sum(c * vals.get(t, 0) for t, c in (best or {}).items()))


def fit_model(path):
    """(the per-core factors, their coefficient of variation): each `set
    coreN`'s dgemm time at the reference size against the `node` set's."""
    sets = model_sets(path)
    node = sets.get("node", {}).get("dgemm")
    cores = sorted((s for s in sets if s.startswith("core") and s[4:].isdigit()), key=lambda s: int(s[4:]))
    if not node or not cores:
        raise CliError(f"--node-speeds model: {path} has no per-core coefficient sets (`set coreN` with a dgemm "
                       "line): calibrate on a machine with several cores (simblas-calibrate writes one set per core), "
                       "or give --node-spread PCT")
    r = REFERENCE_SIZE
    t_node = predict(node, r, r, r)
    factors = []
    for c in cores:
        lines = sets[c].get("dgemm") or node
        t = predict(lines, r, r, r)
        if not (t > 0 and t_node > 0):
            raise CliError(f"--node-speeds model: {path}: set {c} predicts no time for dgemm at {r}^3")
        factors.append(t_node / t)
    mean = statistics.fmean(factors)
    cv = statistics.stdev(factors) / mean if len(factors) > 1 else 0.0
    return factors, cv


def read_file(path, hosts):
    """--node-speeds FILE -> {host: factor} for every host."""
    if not os.path.isfile(path):
        raise CliError(f"--node-speeds {path}: no such file (give a file of 'HOST FACTOR' lines, or 'model')")
    named, bare = {}, []
    for i, line in enumerate(read_text(path).splitlines(), 1):
        f = line.split("#", 1)[0].split()
        if not f:
            continue
        try:
            v = float(f[-1])
        except ValueError:
            v = None
        if len(f) > 2 or v is None or not (v > 0 and math.isfinite(v)):
            raise CliError(f"{path}:{i}: expected 'HOST FACTOR' or 'FACTOR', a speed factor > 0 (1: the model's "
                           "speed, 0.8: 80% of it)")
        if v < FACTOR_MIN:
            raise CliError(f"{path}:{i}: factor {f[-1]} is below {FACTOR_MIN:g}, a host {1 / FACTOR_MIN:g} times "
                           f"slower than the model (a broken one, where drawn factors stop); give a factor >= "
                           f"{FACTOR_MIN:g}")
        if len(f) == 2:
            if f[0] in named:
                raise CliError(f"{path}:{i}: host {f[0]} has a factor already")
            named[f[0]] = v
        else:
            bare.append(v)
    if named and bare:
        raise CliError(f"--node-speeds {path}: mixes 'HOST FACTOR' lines and bare factors; use one form")
    if bare:
        if len(bare) != len(hosts):
            raise CliError(f"--node-speeds {path}: {len(bare)} factor(s) for the run's {len(hosts)} host(s); give one "
                           "per host, in host order (or 'HOST FACTOR' lines)")
        return dict(zip(hosts, bare))
    unknown = [h for h in named if h not in set(hosts)]
    missing = [h for h in hosts if h not in named]
    if unknown:
        raise CliError(f"--node-speeds {path}: host(s) the run does not use: {', '.join(unknown[:5])} (its hosts: "
                       f"{hosts[0]} ... {hosts[-1]})")
    if missing:
        raise CliError(f"--node-speeds {path}: no factor for {len(missing)} host(s) of the run: "
                       f"{', '.join(missing[:5])}{' ...' if len(missing) > 5 else ''}")
    return {h: named[h] for h in hosts}


def resolve(spread_pct, slow_nodes, node_speeds, seed, platform, model_path, mode):
    """The options -> a NodeSpeeds, or None without any of them; CliError
    for what does not go together."""
    if spread_pct is None and slow_nodes is None and node_speeds is None:
        return None
    if mode != "model":
        raise CliError("--node-spread, --slow-nodes and --node-speeds scale the modelled kernels; passthrough "
                       "computes them for real: use --mode model")
    if spread_pct is not None and not (0 <= spread_pct < 100 and math.isfinite(spread_pct)):
        raise CliError(f"--node-spread {spread_pct:g}: a standard deviation in % of the speed, from 0 to below 100 "
                       "(e.g. 3)")
    slow = parse_slow(slow_nodes) if slow_nodes is not None else None
    hosts = hosts_of(platform)
    if seed is None:
        raise ValueError("the hosts' draw needs its seed (settings.seed())")
    if node_speeds is not None and node_speeds != "model":
        if spread_pct is not None or slow is not None:
            raise CliError(f"--node-speeds {node_speeds} gives every host's factor: drop --node-spread and --slow-nodes")
        return NodeSpeeds(source="file", factors=read_file(node_speeds, hosts), file=os.path.abspath(node_speeds))
    if node_speeds == "model":
        if spread_pct is not None:
            raise CliError("--node-speeds model fits the spread to the model's per-core sets: drop --node-spread")
        core_factors, cv = fit_model(model_path)
        factors, slow_hosts = draw(hosts, 100 * cv, slow, seed)
        return NodeSpeeds(source="model", factors=factors, seed=seed, spread_pct=round(100 * cv, 4),
                          slow_fraction=slow[0] if slow else None, slow_speed=slow[1] if slow else None,
                          slow_hosts=slow_hosts, model=model_path, core_factors=[round(f, 6) for f in core_factors])
    factors, slow_hosts = draw(hosts, spread_pct, slow, seed)
    return NodeSpeeds(source="draw", factors=factors, seed=seed, spread_pct=spread_pct,
                      slow_fraction=slow[0] if slow else None, slow_speed=slow[1] if slow else None,
                      slow_hosts=slow_hosts)
