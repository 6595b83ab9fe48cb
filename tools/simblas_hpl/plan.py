"""One simulated HPL run: what is asked (RunOptions) and what will be run
(RunPlan, every option checked and every decision taken, here and nowhere
else).  A RunPlan holds no open resource and pickles: a study can make
thousands and hand each to launch.simulate in another process or job."""

import collections
import dataclasses
import math
import os
import sys
from typing import Dict, List, Mapping, Optional, Union

from . import memory, model, network, nodefile, platforms, units, variability
from . import builds, hpldat, launch, settings
from .errors import CliError, note
from .files import file_sha256, sha256_of
from .locations import data_root, default_model, simblas_libdir, tool

DEFAULT_NB = 128
DEFAULT_HPL_CODE = "timed"    # --hpl-code: HPL's own code costs its measured CPU time
SOLVE_MESSAGES_MAX = 2e6     # --iterations: skip HPL's solve beyond that many messages
SPEEDUP_RANGE = (1e-6, 1e6)  # --speedup: beyond, host speeds overflow in SimGrid (1e300: "The Impossible Did Happen")
IPROBE_COST_S = 1e-7         # --iprobe: the simulated cost of one failed MPI_Iprobe/MPI_Test (smpi/iprobe, SIMBLAS_POLL_COST)


@dataclasses.dataclass(frozen=True)
class RunOptions:
    """The options of one run, as `simblas-hpl run` takes them (None: the
    default).  Field names are the command line's (--cores-per-node is
    cores_per_node)."""
    n: Optional[int] = None
    nb: int = DEFAULT_NB
    p: Optional[int] = None
    q: Optional[int] = None
    platform: Optional[str] = None
    hostfile: Optional[str] = None
    placement: Optional[str] = None     # sequential | random (platforms.PLACEMENTS); None: sequential
    cores_per_node: Optional[int] = None
    speedup: Optional[float] = None
    host_speed: Optional[str] = None
    bw: Optional[str] = None
    lat: Optional[str] = None
    energy: Optional[str] = None
    iprobe: Optional[float] = None
    waits: Optional[str] = None
    probe: Optional[str] = None     # immediate | lagged (SIMBLAS_PROBE)
    pivot_every: Optional[int] = None
    no_pivot_defer: bool = False
    roll_merge: Optional[int] = None
    no_merge: bool = False
    hpl_code: Optional[str] = None
    hugepages: Optional[str] = None
    malloc: Optional[str] = None
    mode: str = "model"
    # the HPL.dat settings given ({name: value}, as hpldat.setting checks them; --hpl-opt, a study, a tune)
    hpl: Mapping[str, Union[int, float]] = dataclasses.field(default_factory=dict)
    iterations: Optional[int] = None
    samples: Optional[int] = None
    alloc_only: bool = False
    model: Optional[str] = None
    timeout: Optional[float] = None
    progress: Optional[float] = None
    build_id: Optional[str] = None
    node: Optional[str] = None
    seed: Optional[int] = None
    noise: bool = False
    node_spread: Optional[float] = None
    slow_nodes: Optional[str] = None
    node_speeds: Optional[str] = None
    xhpl: Optional[str] = None
    network: Optional[str] = None   # a network file, 'none', or None: the installed one (network.resolve)
    dry_run: bool = False       # a missing xhpl is only a warning

    def record(self, skip=()):
        """The options given (neither None, False nor empty) as the records
        write them (point.json, tune.json): the HPL.dat settings as the
        KEY=VALUE items of --hpl-opt (hpl_opt)."""
        out = {}
        for f in dataclasses.fields(self):
            k, v = f.name, getattr(self, f.name)
            if k == "hpl":
                k, v = "hpl_opt", [f"{key}={val}" for key, val in v.items()]
            if k not in skip and v not in (None, False, (), []):
                out[k] = v
        return out

    @classmethod
    def from_namespace(cls, ns):
        """The fields of an argparse namespace that are RunOptions fields."""
        given = dict(vars(ns))
        if "hpl_opt" in given:  # --hpl-opt KEY=VALUE: parsed here, once
            given["hpl"] = hpldat.parse_hpl_opts(given["hpl_opt"])
        return cls(**{f.name: given[f.name] for f in dataclasses.fields(cls) if f.name in given})


@dataclasses.dataclass
class RunPlan:
    """A run, checked: everything launch.simulate needs, nothing to look up."""
    n: int
    nb: int
    p: int
    q: int
    mode: str                               # model | passthrough
    hpl: Dict[str, Union[int, float]]       # every HPL.dat setting
    platform: platforms.Platform
    energy: Union[None, str, List[float]]   # None, 'platform' or [idle, epsilon, allcores] W
    speedup: float
    model: str                              # the model file (absolute)
    reference_speed: float                  # its reference-speed, flop/s
    model_nominal: bool
    xhpl: str
    build: Optional[builds.BuildRef]        # the HPL build (builds.Build.ref), None with --xhpl
    smpirun: str
    blocksize: int                          # smpi/shared-malloc-blocksize
    hpl_code: str                           # timed | free
    waits: str                              # block | poll
    probe: str                              # immediate | lagged: when MPI_Iprobe sees a message (SIMBLAS_PROBE)
    progress_every: float                   # s between progress lines (0: none)
    per_rank_polls: bool                    # xhpl links libsimblas_pmpi
    libdir: Optional[str] = None            # libsimblas's (model mode: preloaded)
    no_merge: bool = False
    iprobe: Optional[float] = None
    pivot_every: Optional[int] = None
    no_pivot_defer: bool = False
    roll_merge: Optional[int] = None
    iterations: Optional[int] = None
    samples: Optional[int] = None
    sample_only: Optional[int] = None       # run pass s of the samples only (SIMBLAS_SAMPLE_ONLY; --engine)
    alloc_only: bool = False
    malloc: Optional[str] = None            # model mode: jemalloc | system
    malloc_lib: Optional[str] = None
    hugepages: Optional[str] = None
    timeout: Optional[float] = None
    code_clock: bool = False                # SimBLAS times HPL's code (SIMBLAS_CODE_CLOCK=1)
    freeclock: Optional[str] = None         # libsimblas_freeclock.so to preload
    preload: str = ""                       # the environment's LD_PRELOAD, kept last
    node: Optional[nodefile.Composition] = None  # --node: the node file composed (SIMBLAS_NODE)
    seed: Optional[int] = None              # SIMBLAS_SEED (noise, modelled results), the node speeds' draw
    noise: bool = False                     # SIMBLAS_NOISE: each kernel drawn from the model's noise
    node_speeds: Optional[variability.NodeSpeeds] = None  # per-host speed factors (SIMBLAS_HOST_FACTORS)
    occupancy: Optional[dict] = None        # host -> factor: a host with idle cores runs faster (meta solo_speed)
    occupancy_memory: Optional[dict] = None # host -> factor of its memory kernels (meta solo_speed_memory)
    network: Optional["network.Network"] = None  # simblas-calibrate --network's file (None: SimGrid's defaults)

    @property
    def ranks(self):
        return self.p * self.q

    @property
    def poll_cost(self):
        """A failed MPI_Iprobe/MPI_Test's simulated cost (--iprobe)."""
        return self.iprobe or IPROBE_COST_S

    @property
    def host_speed(self):
        return self.reference_speed * self.speedup

    @property
    def panel_iterations(self):
        """HPL's panel iterations, ceil(N / NB)."""
        return -(-self.n // self.nb)

    @property
    def skips_solve(self):
        """--iterations: HPL's solve runs and its time is measured, unless it
        would send more than SOLVE_MESSAGES_MAX messages (ceil(N/NB) steps of
        about 2P each): at 41,000 ranks, 31 million messages, about 25 min of
        wall for a few seconds of a run of weeks."""
        return self.panel_iterations * 2 * self.p > SOLVE_MESSAGES_MAX

    @property
    def depth(self):
        """The look-ahead depth HPL runs with (none on one process column)."""
        return 0 if self.q == 1 else int(self.hpl.get("depth", 1))


def content(plan):
    """The content of the files a plan names, as SHA-256: the model, a
    platform file, the network file (given or the installed one), the
    composed node, and the programs that simulate: HPL's binary and the
    libsimblas it preloads.  A directory of runs (spread, study, tune)
    resumes only with the same content under the same names: passes or
    points simulated before `simblas-hpl build --force` or an upgrade of
    SimBLAS, and after it, would mix two simulators' results."""
    return {"model_sha256": file_sha256(plan.model),
            "platform_sha256": file_sha256(plan.platform.spec) if plan.platform.kind == "file" else None,
            "network_sha256": file_sha256(plan.network.path) if plan.network else None,
            "node_sha256": sha256_of(plan.node.text) if plan.node else None,
            "xhpl_sha256": file_sha256(plan.xhpl),
            "libsimblas_sha256": file_sha256(os.path.join(plan.libdir, "libsimblas.so")) if plan.libdir else None}


# content's keys added after directories of runs were made: a record made
# before one is compared without it (and records it when resumed)
CONTENT_ADDED = ("xhpl_sha256", "libsimblas_sha256")


def content_then(old, now):
    """A content record made before CONTENT_ADDED's keys, completed with
    them from now's (old as it is when it is no record)."""
    if not isinstance(old, dict) or not isinstance(now, dict):
        return old
    return {**{k: now[k] for k in CONTENT_ADDED if k not in old and k in now}, **old}


def make_plan(o):
    """RunOptions -> RunPlan; CliError (status 2) for anything wrong, before
    any file is written or anything runs.  Each step below checks or
    decides one thing, and their order is the order of the refusals: a run
    with two faults is refused for the earlier step's, and the dearest
    check, libsimblas loading the model, comes last."""
    check_required(o)
    settings.check_inherited()  # a SIMBLAS_* of the shell that the program would read unrecorded
    check_grid(o)
    opts = hpldat.settings(o.hpl)
    energy = platforms.parse_energy(o.energy) if o.energy and o.energy != "node" else None
    nodefile.check_options(o)
    check_speedup_and_seconds(o)
    net, bw, lat = platform_shape(o)
    check_model_only(o)
    hpl_code = o.hpl_code or DEFAULT_HPL_CODE
    probe = resolve_probe(o)
    malloc, malloc_lib = choose_malloc(o)
    progress_every = progress_interval(o)
    check_opt_ins(o, opts)
    seed = resolve_seed(o)
    platform = resolve_platform(o, bw, lat, energy, net, seed)
    model_path = o.model or default_model()
    node, energy = resolve_node(o, model_path, platform, energy)
    waits = o.waits or ("poll" if energy else "block")
    ref, speedup = host_speedup(o, model_path)
    check_noise(o, model_path)
    node_speeds, occupancy, occupancy_memory = host_factors(o, model_path, platform, node, seed)
    check_alloc_only(o, energy)
    check_sampling(o, opts)
    blocksize, hugepages = plan_memory(o, opts)
    xhpl, build = find_xhpl(o)
    per_rank_polls = pmpi_polls(o, xhpl)
    smpirun = tool("smpirun", "SMPIRUN", "SMPIRUN")
    code_clock = resolve_code_clock(o, hpl_code)
    libdir, freeclock = resolve_libsimblas(o, model_path, node, hpl_code, code_clock)
    return RunPlan(
        n=o.n, nb=o.nb, p=o.p, q=o.q, mode=o.mode, hpl=opts, platform=platform, energy=energy, speedup=speedup,
        model=os.path.abspath(model_path), reference_speed=ref, model_nominal=model.is_nominal(model_path),
        xhpl=xhpl, build=build, smpirun=smpirun, blocksize=blocksize, hpl_code=hpl_code, waits=waits, probe=probe,
        progress_every=progress_every, per_rank_polls=per_rank_polls, libdir=libdir, no_merge=o.no_merge,
        iprobe=o.iprobe, pivot_every=o.pivot_every, no_pivot_defer=o.no_pivot_defer, roll_merge=o.roll_merge,
        iterations=o.iterations, samples=o.samples, alloc_only=o.alloc_only, malloc=malloc, malloc_lib=malloc_lib,
        hugepages=hugepages, timeout=o.timeout, code_clock=code_clock, freeclock=freeclock,
        preload=os.environ.get("LD_PRELOAD", ""), seed=o.seed, noise=o.noise, node_speeds=node_speeds,
        occupancy=occupancy, occupancy_memory=occupancy_memory, node=node, network=net)


HPL_INT_MAX = hpldat.HPL_INT_MAX   # HPL's N, NB, P and Q are C ints
MAX_RANKS = platforms.MAX_HOSTS   # more is surely a slip (a P or Q with digits too many), which would
                                  # otherwise fill the memory planning the hosts


def check_required(o):
    """N, NB, P and Q: given (NB has a default, the others none)."""
    for k in ("n", "nb", "p", "q"):
        if getattr(o, k) is None:
            raise CliError(f"--{k} is required")


def check_grid(o):
    """N, NB and the P x Q grid: positive, N >= NB, each a C int, and no more
    ranks than a run plans for."""
    n, nb, p, q = o.n, o.nb, o.p, o.q
    if p <= 0 or q <= 0:
        raise CliError(f"--p {p} --q {q}: the process grid must be positive")
    if nb <= 0:
        raise CliError(f"--nb {nb}: must be > 0")
    if n < nb:
        raise CliError(f"--n {n} is smaller than --nb {nb}: HPL needs N >= NB > 0")
    for k, v in (("n", n), ("nb", nb), ("p", p), ("q", q)):
        if v > HPL_INT_MAX:
            raise CliError(f"--{k} {v}: more than {HPL_INT_MAX}, and HPL reads it as a C int")
    ranks = p * q
    if ranks > MAX_RANKS:
        raise CliError(f"--p {p} --q {q}: {ranks:,} ranks, more than {MAX_RANKS:,}, the most a run plans for "
                       f"(SimGrid takes about {platforms.HOST_BYTES / 1e3:.0f} kB a rank, 2.7 GB at 41,000 ranks: "
                       f"{MAX_RANKS * platforms.HOST_BYTES / 1e9:.0f} GB at the limit); a smaller grid")


def check_speedup_and_seconds(o):
    """--speedup: a positive number in SPEEDUP_RANGE; --timeout and --iprobe:
    seconds > 0, a failed poll (--iprobe) at most SIMBLAS_POLL_COST's most."""
    if o.speedup is not None and not (o.speedup > 0 and math.isfinite(o.speedup)):
        raise CliError(f"--speedup {o.speedup}: must be a positive number")
    if o.speedup is not None and not SPEEDUP_RANGE[0] <= o.speedup <= SPEEDUP_RANGE[1]:
        raise CliError(f"--speedup {o.speedup:g}: out of range; a host is from {SPEEDUP_RANGE[0]:g} to "
                       f"{SPEEDUP_RANGE[1]:g} times the model's reference speed")
    check_seconds("--timeout", o.timeout)
    check_seconds("--iprobe", o.iprobe)
    if o.iprobe is not None and o.iprobe > settings.row("SIMBLAS_POLL_COST")["max"]:
        # (libsimblas refuses more as SIMBLAS_POLL_COST; SMPI's smpi/iprobe alike)
        raise CliError(f"--iprobe {o.iprobe:g}: out of range; a failed poll costs at most "
                       f"{settings.row('SIMBLAS_POLL_COST')['max']:g} s (a real one well under a microsecond)")


def check_seconds(opt, v):
    """A duration option (--timeout, --iprobe): None, or seconds > 0."""
    if v is not None and not (v > 0 and math.isfinite(v)):
        raise CliError(f"{opt} {v:g}: must be a number of seconds > 0")


def platform_shape(o):
    """(the network file or None, bw, lat): the links of a generated platform,
    --bw and --lat, else the network file's measured interconnect, else
    platforms' defaults; --cores-per-node checked."""
    net = network.resolve(o.network)
    inter = net.inter if net else None  # the measured interconnect, where --bw / --lat do not say
    bw = units.parse_bandwidth(o.bw or (inter.bw_text if inter else platforms.DEFAULT_BW))
    lat = units.parse_latency(o.lat or (inter.lat_text if inter else platforms.DEFAULT_LAT))
    if o.cores_per_node is not None and o.cores_per_node < 1:
        raise CliError(f"--cores-per-node {o.cores_per_node}: must be >= 1")
    return net, bw, lat


def check_model_only(o):
    """--hpl-code free and --waits block, which only model mode changes:
    refused outside it, not ignored."""
    if o.mode != "model":
        if o.hpl_code == "free":
            raise CliError("--hpl-code free leaves HPL's code between the modelled calls uncharged; passthrough "
                           "computes every call and SMPI times all of it: drop --hpl-code, or use --mode model")
        if o.waits == "block":
            raise CliError("--waits block is HPL patch 12 through libsimblas in model mode; passthrough runs plain "
                           "HPL, whose waits poll: drop --waits, or use --mode model")


def resolve_probe(o):
    """When MPI_Iprobe sees a message: --probe, else SIMBLAS_PROBE; lagged in
    model mode only."""
    probe = o.probe or settings.value("SIMBLAS_PROBE")  # the environment's, as its row says, else the default
    if probe not in settings.values("SIMBLAS_PROBE"):
        raise CliError(f"--probe {probe}: not one of {', '.join(settings.values('SIMBLAS_PROBE'))}")
    if probe == "lagged" and o.mode != "model":
        raise CliError("--probe lagged is libsimblas_pmpi's MPI_Iprobe wrapper, which model mode preloads and "
                       "passthrough does not: use --mode model, or drop --probe")
    return probe


def choose_malloc(o):
    """(the malloc, its library to preload): model mode's --malloc
    (memory.resolve_malloc); passthrough keeps the system's, (None, None)."""
    malloc = malloc_lib = None
    if o.mode == "model":
        malloc, malloc_lib = memory.resolve_malloc(o.malloc or "auto")
    elif o.malloc == "jemalloc":
        raise CliError("--malloc jemalloc speeds up the simulator in model mode; passthrough runs keep "
                       "the system's malloc (drop --malloc)")
    return malloc, malloc_lib


def progress_interval(o):
    """The seconds between progress lines: --progress (0: none), else 60 on
    a terminal and none elsewhere."""
    if o.progress is not None and not (o.progress >= 0 and math.isfinite(o.progress)):
        raise CliError(f"--progress {o.progress:g}: must be a number of seconds >= 0 (0: no progress lines)")
    return o.progress if o.progress is not None else (60 if sys.stderr.isatty() else 0)


def check_opt_ins(o, opts):
    """The opt-ins that thin or merge a modelled run's messages:
    --pivot-every (as lib/settings.def's SB_NEEDS row says),
    --no-pivot-defer (with --pivot-every), --roll-merge."""
    if o.pivot_every is not None:
        if o.pivot_every < 1:
            raise CliError(f"--pivot-every {o.pivot_every}: must be >= 1 (1: every column exchanges)")
        broken = settings.unmet_need("SIMBLAS_PIVOT_EVERY", o.pivot_every, launch.mode_env(o.mode, o.no_merge))
        if broken:
            raise CliError(f"--pivot-every {o.pivot_every} {broken[0]}, which needs {broken[1]} ({broken[2]} is "
                           f"what --mode and --no-merge set): drop it, or use --mode model without --no-merge")
    if o.no_pivot_defer and not (o.pivot_every or 1) > 1:
        raise CliError("--no-pivot-defer meets the thinned pivot exchanges' barriers in the simulator, and without "
                       "--pivot-every N (N > 1) no exchange is thinned: give --pivot-every, or drop --no-pivot-defer")
    if o.roll_merge is not None:
        check_roll_merge(o.roll_merge, o.mode, opts, o.nb)


def check_roll_merge(g, mode, opts, nb):
    """--roll-merge G: refused out of range or outside model mode; a note when
    this run has no roll it merges."""
    if g < 0:
        raise CliError(f"--roll-merge {g}: must be >= 0 (1: HPL's rolls, one message per "
                       "step; G: two exchanges per 2G steps; 0: a whole roll in two)")
    if mode != "model":
        raise CliError("--roll-merge merges the messages of a modelled run's rolls (whose data is folded "
                       "garbage); drop it, or use --mode model")
    long_bcast = opts["bcast"] in (4, 5)
    # the row swap's roll is merged without look-ahead only (patch 14)
    long_swap = opts["depth"] == 0 and (opts["swap"] == 1 or (opts["swap"] == 2 and nb > opts["swap_threshold"]))
    if g != 1 and not (long_bcast or long_swap):
        print(f"simblas-hpl: note: --roll-merge {g} changes (almost) nothing here: it merges "
              f"the rolls of the 'long' broadcasts (bcast=4, 5; this run: {opts['bcast']}) and, without "
              f"look-ahead (depth=0; this run: {opts['depth']}), of the long row swap (swap=1, or 2 with NB "
              f"above swap_threshold; this run: swap={opts['swap']}, NB={nb}, threshold "
              f"{opts['swap_threshold']})", file=sys.stderr)


def resolve_seed(o):
    """The seed of every draw (the hosts', their speeds', the ranks';
    SIMBLAS_SEED): --seed, a 64-bit whole number, else SIMBLAS_SEED's
    default."""
    if o.seed is not None and not 0 <= o.seed < settings.UINT_LIMIT:
        raise CliError(f"--seed {o.seed}: must be a whole number from 0 to {settings.UINT_LIMIT - 1} (SIMBLAS_SEED is "
                       "64 bits)")
    return settings.seed(o.seed)


def resolve_platform(o, bw, lat, energy, net, seed):
    """The platform the P x Q ranks run on (platforms.resolve): --platform, a
    topology or a FILE.xml (which the options that shape a generated one
    may not change), else the default topology."""
    shaping = [name for name, v in (("--speedup", o.speedup), ("--host-speed", o.host_speed), ("--bw", o.bw),
                                    ("--lat", o.lat), ("--cores-per-node", o.cores_per_node)) if v is not None]
    return platforms.resolve(o.platform, o.p * o.q, bw, lat, hostfile=o.hostfile, cores_per_node=o.cores_per_node,
                             energy=energy, shaping=shaping,
                             loopback=(net.intra.bw_text, net.intra.lat_text) if net else None,
                             placement=o.placement, seed=seed)


def resolve_node(o, model_path, platform, energy):
    """(--node's node file composed for the ranks its hosts run, a platform
    file's or --cores-per-node, or None; the run's energy, the node file's
    power under --energy node)."""
    node = nodefile.resolve(o, model_path, platform)
    if o.energy == "node":
        energy = node.energy if node else None
    return node, energy


def host_speedup(o, model_path):
    """(the model's reference speed in flop/s, the hosts' speed as a multiple
    of it): --speedup, or --host-speed over the reference speed (one of the
    two, in SPEEDUP_RANGE), else 1."""
    ref = model.reference_speed(model_path)
    speedup = o.speedup if o.speedup is not None else 1.0
    if o.host_speed is not None:
        if o.speedup is not None:
            raise CliError("--host-speed and --speedup both set the hosts' speed: give one")
        speedup = units.parse_speed(o.host_speed) / ref
        if not SPEEDUP_RANGE[0] <= speedup <= SPEEDUP_RANGE[1]:
            raise CliError(f"--host-speed {o.host_speed}: {speedup:g} times the model's reference speed ({ref:g} "
                           f"flop/s), out of range; a host is from {SPEEDUP_RANGE[0]:g} to {SPEEDUP_RANGE[1]:g} "
                           "times it")
    return ref, speedup


def check_noise(o, model_path):
    """--noise: model mode; a warning when the model has no noise to draw."""
    if o.noise:
        if o.mode != "model":
            raise CliError("--noise draws the modelled kernels' times; passthrough computes them: use --mode model")
        if not model.has_noise(model_path):
            note(f"warning: --noise: {model_path} has no noise terms for dgemm (no '|' part): the run is the same "
                 "as without it; calibrate a model (simblas-calibrate writes them)")


def host_factors(o, model_path, platform, node, seed):
    """(the hosts' speed factors of node variability, variability.resolve;
    those of hosts with idle cores, of their computing and of their memory
    kernels, occupancy_factors, none with --node)."""
    node_speeds = variability.resolve(o.node_spread, o.slow_nodes, o.node_speeds, seed, platform,
                                      os.path.abspath(model_path), o.mode)
    occupancy = None if node else occupancy_factors(platform, model.solo_speed(model_path), o.mode)
    occupancy_memory = None if node else occupancy_factors(platform, model.solo_speed_memory(model_path), o.mode)
    return node_speeds, occupancy, occupancy_memory


def occupancy_factors(platform, solo, mode):
    """{host: factor} for the hosts of a generated platform that run fewer
    ranks than they have cores, model mode, with the model's solo speed s
    (model.solo_speed): k ranks of C cores run 1 + (s - 1)(C - k)/(C - 1)
    times faster than the model (calibrated with every core busy), s for
    one rank alone; None when no host has idle cores."""
    cores = platform.cores_per_node
    if mode != "model" or not solo or solo == 1 or platform.kind != "generated" or not cores or cores < 2:
        return None
    per_host = collections.Counter(platform.hostlist)
    out = {h: 1 + (solo - 1) * (cores - k) / (cores - 1) for h, k in per_host.items() if k < cores}
    return out or None


def check_alloc_only(o, energy):
    """--alloc-only (HPL's allocations, then stop; hosts without links):
    model mode, no --iterations/--samples, no platform file, no energy."""
    if o.alloc_only:
        if o.iterations is not None or o.samples is not None:
            raise CliError("--alloc-only runs no iteration: drop --iterations/--samples")
        if o.mode != "model":
            raise CliError("--alloc-only needs --mode model")
        if o.platform is not None and not platforms.generated_topology(o.platform):
            raise CliError("--alloc-only makes its own platform (hosts without links): drop --platform FILE.xml")
        if energy:
            raise CliError("--alloc-only simulates no time: drop --energy")


def check_sampling(o, opts):
    """--iterations K and --samples S (S passes of K panel iterations),
    bounded by the run's ceil(N/NB) panel iterations and the look-ahead
    depth whose iterations prime each pass."""
    total = -(-o.n // o.nb)
    depth = 0 if o.q == 1 else int(opts.get("depth", 1))
    if o.iterations is not None:
        check_iterations(o, total, depth)
    if o.samples is not None:
        check_samples(o, total, depth)


def check_iterations(o, total, depth):
    """--iterations K: model mode, more than the priming iterations, and
    short of the whole loop (S passes of K may cover it, not overlap
    beyond)."""
    iters, samples = o.iterations, o.samples
    if iters < 1:
        raise CliError(f"--iterations {iters}: must be >= 1")
    if o.mode != "model":
        raise CliError("--iterations needs --mode model (xhpl-real is plain HPL: it runs every iteration)")
    if iters <= depth:
        raise CliError(f"--iterations {iters}: a pass's first {depth} iteration(s) prime HPL's look-ahead "
                       f"(depth {depth}) and are not counted: give at least {depth + 1}")
    # S passes of K may cover the loop (K = ceil(N/NB / S), + the
    # look-ahead's priming iterations, which the pass before measures:
    # a full run in S passes, pass s from its stratum's start), not
    # overlap beyond
    cover = -(-total // samples) + max(depth, 1) if (samples or 1) > 1 else total
    if (samples or 1) <= 1 and iters == total:
        # one pass of the whole loop: every iteration simulated, and
        # an extrapolation of it would differ from what was (-3 to -6%)
        raise CliError(f"--iterations {iters} is the whole run's {total} panel iterations (N/NB): run it in "
                       "full (drop --iterations) or sample fewer")
    if iters > total or iters > cover:
        raise CliError(f"--iterations {iters}" + (f" x --samples {samples}" if samples else "") +
                       f" exceeds the run's {total} panel iterations (N/NB): run it in full "
                       "(drop --iterations) or sample fewer" +
                       (f"; {cover} x {samples} covers the loop (a full run in {samples} passes)"
                        if (samples or 1) > 1 else ""))


def check_samples(o, total, depth):
    """--samples S: with --iterations, every pass counting an iteration; a
    warning when the passes are shorter than the measured rule
    (short_passes)."""
    iters, samples = o.iterations, o.samples
    if iters is None:
        raise CliError("--samples S samples the run in S passes of --iterations K iterations: give --iterations")
    if samples < 1:
        raise CliError(f"--samples {samples}: must be >= 1")
    if samples > total:  # strata without an iteration: no estimate, after the whole simulation
        raise CliError(f"--samples {samples} exceeds the run's {total} panel iterations (N/NB): give "
                       f"--samples {total} or fewer")
    if samples > 1 and iters * samples >= total and total - (samples - 1) * total // samples <= depth:
        # covering passes: the last one, from its stratum's start, holds
        # its priming iterations only (no estimate, after the simulation)
        fit = max(s for s in range(1, samples) if total - (s - 1) * total // s > depth)
        raise CliError(f"--samples {samples} on {total} panel iterations: the last pass would hold only its "
                       f"look-ahead's priming iteration(s) (depth {depth}) and count none; give --samples {fit} "
                       "or fewer")
    if samples > 1 and depth == 0 and iters == 1:
        raise CliError(f"--iterations 1 --samples {samples} at look-ahead depth 0: a pass from the middle of the "
                       "loop would count only its first iteration, which every rank enters at once (-1% to +33% "
                       "at Stampede's scale, doc/scale.md; one process and --engine's jobs differ there): give "
                       "--iterations 2 or more")
    short = short_passes(iters, samples, o.p, o.q, total, depth)
    if short:
        note(f"warning: {short}")


def short_passes(iters, samples, p, q, total, depth):
    """What a sampled run (S passes of K iterations) risks when K is below
    the rule doc/scale.md measured ("Validation against full runs": K = 2
    lcm(P,Q) + 1, the panel owners' cycle twice over, plus the priming
    iteration) while the rule is within reach (S passes of it cost less
    than the whole loop); None when the passes follow it, or when only a
    full run would (the 41,000-rank and Stampede runs: one or two
    iterations a stratum, by design)."""
    want = 2 * math.lcm(p, q) + max(depth, 1)
    if iters >= want or want * samples >= total:
        return None
    return (f"--iterations {iters} on {p}x{q}: passes shorter than 2 lcm(P,Q) + {max(depth, 1)} = {want} "
            "iterations see part of the panel owners' cycle, and a stratum's estimate follows where its pass "
            "starts in it: at 32x32 such passes moved the estimate by up to 10% from seed to seed of a "
            "machine whose full runs moved by 1% (doc/scale.md, \"Validation against full runs\"); give "
            f"--iterations {want} ({want * samples} of the {total} iterations) or run in full")


def plan_memory(o, opts):
    """(SMPI's shared-malloc block size, the --hugepages mount or None): the
    matrix fits the address space (model mode, folded) or the memory
    available (passthrough, for real); huge pages in model mode only."""
    n, nb, p, q = o.n, o.nb, o.p, o.q
    if o.mode == "model":
        memory.check_address_space(n, nb, p, q, opts["align"])
    blocksize = memory.shared_malloc_blocksize(n, nb, p, q)
    hugepages = None
    if o.hugepages:
        if o.mode != "model":
            raise CliError("--hugepages puts a modelled run's folded memory on huge pages; passthrough runs "
                           "allocate the real matrix: drop it")
        memory.check_hugepages(o.hugepages, blocksize)
        hugepages = os.path.abspath(o.hugepages)
    if o.mode == "passthrough":
        need = 8 * n * (n + 1) * 1.1
        avail = memory.meminfo_available()
        if avail and need > 0.9 * avail:
            raise CliError(f"passthrough mode computes for real: N={n} needs {need / 2**30:.1f} GiB "
                           f"and {avail / 2**30:.1f} GiB are available; use --mode model or a smaller N")
    return blocksize, hugepages


def find_xhpl(o):
    """(the xhpl to run, what the JSON says of its build): --xhpl, or the
    binary of o.mode in the build chosen (builds.choose).  What is missing
    is an error, or a warning in a dry run (whose command names it anyway)."""
    if o.xhpl:
        xhpl = os.path.abspath(o.xhpl)
        if not os.path.isfile(xhpl):
            if not o.dry_run:
                raise CliError(f"--xhpl {xhpl}: no such file; give an xhpl that exists, or drop --xhpl to run the "
                               "HPL build's (simblas-hpl info lists them)")
            note(f"warning: {xhpl}: no such file (dry run: the command names it anyway)")
        return xhpl, None
    what, how = builds.BINARIES[o.mode], "" if o.mode == "model" else " --mode passthrough"
    try:
        build, by = builds.choose(o.build_id)
    except CliError as e:
        if not o.dry_run:
            raise
        note(f"warning: {e} (dry run: the command names {what} anyway)")
        return os.path.join(data_root(), o.build_id or "<build-id>", what), None
    xhpl = build.binary(o.mode) if build else None
    if xhpl:
        missing = build.patches_missing()
        if missing:
            hpcc = build.manifest.get("source_kind") == "debian-hpcc"
            note(f"warning: the HPL build {build.id} predates the installed HPL patch series: it lacks "
                 f"{', '.join(missing)}, and simulates without them; rebuild it with: simblas-hpl build "
                 f"--build-id {build.id}" + ("" if hpcc else f" and the source it was built from "
                                             f"({build.manifest.get('source', '?')})"))
        return xhpl, build.ref(by)
    msg = (f"no {what} in the HPL build {build.id} ({build.dir}): run `simblas-hpl build --build-id {build.id}"
           f"{how}` with the source it was built from ({build.manifest.get('source', '?')})" if build else
           f"no {what} built (looked in {data_root()}): run `simblas-hpl build{how}` first")
    if not o.dry_run:
        raise CliError(msg)
    note(f"warning: {msg} (dry run: the command names it anyway)")
    return os.path.join(build.dir if build else os.path.join(data_root(), "<source-id>"), what), \
        (build.ref(by) if build else None)


def has_pmpi_wrappers(xhpl):
    """True when xhpl links libsimblas_pmpi (builds before the per-rank poll
    cost linked it in model mode only)."""
    try:
        with open(xhpl, "rb") as f:
            return b"libsimblas_pmpi.so" in f.read()
    except OSError:
        return True  # dry run without a build: describe a current build


def pmpi_polls(o, xhpl):
    """Whether xhpl links libsimblas_pmpi (each rank's polls charged on its
    own); a warning when it predates it."""
    per_rank_polls = has_pmpi_wrappers(xhpl)
    if not per_rank_polls:
        note(f"warning: {xhpl} predates libsimblas_pmpi in {o.mode} builds: SMPI charges its polls with one count "
             "shared by all ranks (slower, and HPL's time grows with the ranks); rebuild it with "
             "`simblas-hpl build --force" + ("" if o.mode == "model" else " --mode passthrough") + "`")
    return per_rank_polls


def resolve_code_clock(o, hpl_code):
    """Whether SimBLAS times HPL's own code within its merged injections
    (SIMBLAS_CODE_CLOCK=1) instead of SMPI's computation timing (an
    activity of its own per MPI call, and a thread-CPU-clock system call
    at both ends); SIMBLAS_CODE_CLOCK=0 in the environment keeps SMPI's,
    and 1 there is refused where simblas-hpl would not set it (it would
    reach libsimblas all the same: charge HPL's code under --hpl-code
    free, or stop the run, lib/settings.def's SB_NEEDS)."""
    code_clock = o.mode == "model" and hpl_code == "timed" and not o.no_merge
    asked = settings.given("SIMBLAS_CODE_CLOCK")
    if asked and not code_clock:
        raise CliError("SIMBLAS_CODE_CLOCK=1 in the environment has SimBLAS time HPL's code, which needs --mode "
                       f"model, --hpl-code timed and merged injections (this run: --mode {o.mode}, --hpl-code "
                       f"{hpl_code}{', --no-merge' if o.no_merge else ''}): unset it")
    return code_clock and asked is not False


def resolve_libsimblas(o, model_path, node, hpl_code, code_clock):
    """(libsimblas's directory, the libsimblas_freeclock to preload or None),
    model mode only, once libsimblas itself has loaded the model and the
    composed node (the last check, and the dearest); (None, None) outside."""
    libdir = freeclock = None
    if o.mode == "model":
        libdir = simblas_libdir()
        model.check_loads(os.path.join(libdir, "libsimblas.so"), model_path, node.text if node else None,
                          o.node)  # libsimblas's own parser
        # SMPI's benchmark timer is never read when SMPI does not time the
        # computation, yet its thread CPU clock is a system call around every
        # MPI call (7-12% of the wall)
        fc = os.path.join(libdir, "libsimblas_freeclock.so")
        if ((hpl_code == "free" or code_clock) and os.path.exists(fc)
                and settings.value("SIMBLAS_FREECLOCK")):
            freeclock = fc
    return libdir, freeclock


def check_keep(keep, what, run=False, opt="--keep", kind="run"):
    """--keep DIR: a directory smpirun can run in, made if need be; WHAT
    says what it holds ("to run in", "for the passes").  RUN: one run's
    directory, which must not hold files of the names a run writes that no
    run wrote (the user's own platform.xml or run.sh would be replaced)."""
    launch.check_workdir(os.path.abspath(keep), opt, kind)
    if os.path.exists(keep) and not os.path.isdir(keep):
        raise CliError(f"{opt} {keep} is not a directory: give a directory {what} (made if need be)")
    if not os.path.exists(keep):
        up = os.path.dirname(os.path.abspath(keep))
        while not os.path.exists(up):
            up = os.path.dirname(up)
        if not os.path.isdir(up):
            raise CliError(f"{opt} {keep} cannot be made: {up} is not a directory; give a directory {what}")
        if not os.access(up, os.W_OK | os.X_OK):
            raise CliError(f"{opt} {keep} cannot be made: no permission to write in {up}; give a directory {what} "
                           "where you can write")
    elif run:
        theirs = launch.foreign_run_files(keep)
        if theirs:
            raise CliError(f"--keep {keep} holds {', '.join(theirs[:4])}, which the run writes and no run wrote "
                           "(its run.sh is not simblas-hpl's): they would be replaced; give a new or empty "
                           "directory, or move them")


def make_dir(path, opt="--keep"):
    """os.makedirs, its failure (a file system that refuses, /proc) one line."""
    try:
        os.makedirs(path, exist_ok=True)
    except OSError as e:
        raise CliError(f"{opt} {path}: cannot make the directory ({e.strerror}); give one where you can write")
