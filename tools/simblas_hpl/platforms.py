"""The simulated machine: fat-tree, dragonfly and torus specs (SimGrid 3.32's
cluster topologies), platform XML, hostfiles, wattage."""

import collections
import dataclasses
import math
import os
import random
import re
import shutil
import xml.etree.ElementTree as ET
from typing import List, Optional

from . import units
from .errors import CliError
from .files import read_text

DEFAULT_BW = "10Gbps"
DEFAULT_LAT = "24us"
LOOPBACK_BW = "40Gbps"      # intra-node link when a host has several cores (seed 000, V-B)
LOOPBACK_LAT = "1us"
FATTREE_LEAF_MAX = 16       # leaf switch down-ports of the default fat tree
HOST_BYTES = 66e3           # SimGrid's memory for a host and its rank: 2.7 GB at 41,000 ranks (doc/scale.md)
MAX_HOSTS = 1 << 22         # 4,194,304 hosts: ~280 GB at HOST_BYTES; more is surely a slip
ELEMENT_BYTES = 480         # SimGrid's memory for a switch or a link (a fat tree's 3e6 switches and links: 2.9 GB)
SWITCHES_PER_HOST = 64      # a network of more switches and links than this per host (and beyond
MIN_ELEMENTS = 1 << 20      # these, ~0.5 GB) is surely a slip in an up-link or link count


@dataclasses.dataclass
class Platform:
    """Where the ranks run.  kind 'generated': a SimGrid cluster of `hosts`
    hosts of `cores_per_node` cores on the `topology` (FAT_TREE, DRAGONFLY,
    TORUS) of topo_parameters `topo`, with links of `bw`/`lat` (as written
    in the file; bw_Bps and lat_s in base units); 'file': the user's
    platform file at `spec`."""
    kind: str
    spec: str                   # the JSON's "platform": the fat-tree spec or the file's path
    hosts: int
    hostlist: List[str]         # one host per rank, in rank order (the hostfile)
    own_core: bool              # every rank has a core of its own
    cores_per_node: Optional[int] = None
    topo: Optional[str] = None
    bw: Optional[str] = None
    lat: Optional[str] = None
    bw_Bps: Optional[float] = None
    lat_s: Optional[float] = None
    topology: str = "FAT_TREE"
    placement: Optional[str] = None  # how a generated platform's hosts take the ranks (PLACEMENTS); None: a file
    loopback_bw: str = LOOPBACK_BW  # a generated host's link between its cores (several cores)
    loopback_lat: str = LOOPBACK_LAT

    @property
    def hosts_used(self):
        """The hosts that run ranks (a generated machine may be larger than the run)."""
        return len(set(self.hostlist))


def parse_energy(text):
    """--energy: 'platform', or [IDLE, EPSILON, ALLCORES] watts."""
    if text == "platform":
        return "platform"
    parts = text.split(":")
    try:
        vals = [float(x) for x in parts]
    except ValueError:
        vals = []
    if len(vals) != 3 or any(v < 0 or not math.isfinite(v) for v in vals):
        raise CliError(f"--energy {text!r}: expected IDLE:EPSILON:ALLCORES in watts, e.g. 100:120:200 "
                       "(or 'platform' to use the wattage properties of --platform FILE.xml)")
    if vals[2] < max(vals[0], vals[1]):  # SimGrid takes it: a busy host would draw less than an idle one
        low = "IDLE" if vals[0] > vals[1] else "EPSILON"
        raise CliError(f"--energy {text!r}: ALLCORES ({vals[2]:g} W) is below {low} ({max(vals[:2]):g} W); the "
                       "order is IDLE:EPSILON:ALLCORES, e.g. 100:120:200")
    return vals


def spec_int(text):
    """One number of a topology spec: digits only (spaces around them
    allowed).  Python's int() takes 1_0 as 10 and SimGrid's std::stoi reads
    the digits before anything else (1_0 as 1, 4.5 as 4): a ValueError, not
    one machine here and another in the simulator."""
    if not re.fullmatch(r"\s*[0-9]+\s*", text):
        raise ValueError(text)
    return int(text)


def parse_fattree(spec):
    """'h;d1,..;u1,..;p1,..' -> (levels, down, up, par); SimGrid's topo_parameters."""
    parts = spec.split(";")
    err = CliError(f"--platform fattree:{spec}: expected fattree:LEVELS;DOWN,...;UP,...;PARALLEL,... "
                   "with LEVELS numbers in each list, e.g. fattree:2;16,32;1,16;1,1 (quote the ';' in a shell)")
    if len(parts) != 4:
        raise err
    try:
        h = spec_int(parts[0])
        lists = [[spec_int(x) for x in p.split(",")] for p in parts[1:]]
    except ValueError:
        raise err
    if h < 1 or any(len(lst) != h or min(lst) < 1 for lst in lists):
        raise err
    return h, lists[0], lists[1], lists[2]


def fattree_elements(down, up, par):
    """(switches, links) SimGrid makes for a fat tree: level i+1 has
    up_1..up_i+1 x down_i+2..down_h switches, and every node of level i
    up_i+1 x par_i+1 links up."""
    nodes, switches, links = math.prod(down), 0, 0
    for i in range(len(down)):
        links += nodes * up[i] * par[i]
        nodes = math.prod(up[:i + 1]) * math.prod(down[i + 1:])
        switches += nodes
    return switches, links


def dragonfly_elements(levels, nodes):
    """(routers, links) SimGrid makes for a dragonfly: a link a host, green
    links between two routers of a chassis, black between same-slot routers
    of two chassis of a group, blue between two groups."""
    (g, lb), (c, lk), (r, lg) = levels
    return g * c * r, (g * c * r * nodes + g * c * r * (r - 1) // 2 * lg + g * r * c * (c - 1) // 2 * lk
                       + g * (g - 1) // 2 * lb)


def check_elements(spec, hosts, switches, links, counts):
    """A network out of proportion to its hosts (a slip in COUNTS, the
    spec's link or switch counts) refused: SimGrid builds it all before the
    run, and 3e6 switches for 4 hosts took 70 s and 2.9 GB to fail."""
    limit = max(MIN_ELEMENTS, SWITCHES_PER_HOST * hosts)
    if switches + links > limit:
        raise CliError(f"--platform {spec}: {switches:,} switches and {links:,} links for {hosts:,} hosts, more than "
                       f"{limit:,} (SimGrid makes each, about {ELEMENT_BYTES} bytes, used or not: "
                       f"{(switches + links) * ELEMENT_BYTES / 1e9:.1f} GB): smaller {counts}")


def default_fattree(hosts):
    """A 2-level fat tree for `hosts` nodes: leaves of the largest divisor <= 16 of
    `hosts` nodes, as many top switches as a leaf has nodes (full bisection)."""
    leaf = max(d for d in range(1, min(hosts, FATTREE_LEAF_MAX) + 1) if hosts % d == 0)
    return 2, [leaf, hosts // leaf], [1, leaf], [1, 1]


def parse_dragonfly(spec):
    """'G,Lb;C,Lk;R,Lg;N' -> ((G, Lb), (C, Lk), (R, Lg), N): SimGrid's
    DRAGONFLY topo_parameters (groups and the blue links between each pair
    of groups; chassis per group and the black links between same-slot
    routers of two chassis; routers per chassis and the green links between
    two routers of a chassis; nodes per router)."""
    err = CliError(f"--platform dragonfly:{spec}: expected dragonfly:GROUPS,BLUE;CHASSIS,BLACK;ROUTERS,GREEN;NODES "
                   "(SimGrid's topo_parameters: groups and links between two groups; chassis per group and links "
                   "between two chassis; routers per chassis and links between two routers; nodes per router), "
                   "e.g. dragonfly:10,106;6,3;16,1;4 (quote the ';' in a shell)")
    parts = spec.split(";")
    if len(parts) != 4:
        raise err
    try:
        levels = [tuple(spec_int(x) for x in p.split(",")) for p in parts[:3]]
        nodes = spec_int(parts[3])
    except ValueError:
        raise err
    if any(len(lv) != 2 or min(lv) < 1 for lv in levels) or nodes < 1:
        raise err
    (g, lb), (c, lk), (r, lg) = levels
    if g > r:
        raise CliError(f"--platform dragonfly:{spec}: {g} groups but {r} routers per chassis. SimGrid 3.32 hangs "
                       f"the blue links of group i to group j on router j of the group's first chassis, and routes "
                       f"through it, so it needs groups <= routers per chassis (it does not check, and the route "
                       f"reads past its tables): use at most {r} groups, or {g} routers per chassis "
                       f"(dragonfly:{g},{lb};{c},{lk};{g},{lg};{nodes})")
    return levels[0], levels[1], levels[2], nodes


def parse_torus(spec):
    """'d1,d2,...' -> [d1, d2, ...]: SimGrid's TORUS topo_parameters."""
    try:
        dims = [spec_int(x) for x in spec.split(",")]
    except ValueError:
        dims = []
    if not dims or min(dims) < 1:
        raise CliError(f"--platform torus:{spec}: expected torus:D1,D2,... (the size of each dimension, SimGrid's "
                       "topo_parameters; a host at each point), e.g. torus:16,16,16")
    return dims


def generated_topology(spec):
    """The kind of a generated platform's spec: FAT_TREE, DRAGONFLY, TORUS,
    or None for anything else (a file)."""
    for prefix, kind in (("fattree:", "FAT_TREE"), ("dragonfly:", "DRAGONFLY"), ("torus:", "TORUS")):
        if spec.startswith(prefix):
            return kind
    return None


def too_few(spec, ranks, hosts, cores, fits):
    """The refusal of a spec with too few hosts for the ranks, with the sizes
    that would fit (fits: the spec's own sizes made large enough)."""
    return CliError(f"P*Q = {ranks} ranks, but --platform {spec} has {hosts} host(s) x {cores} core(s) = "
                    f"{hosts * cores} slots: too few; sizes that fit: {fits}")


def fitting_dragonfly(spec, ranks, cores, levels, nodes):
    """A dragonfly spec too small for the ranks: refused with the specs
    that fit, growing one level at a time."""
    (g, lb), (c, lk), (r, lg) = levels
    need = -(-ranks // cores)
    fits = []
    groups = -(-need // (c * r * nodes))
    if groups <= r:
        fits.append(f"dragonfly:{groups},{lb};{c},{lk};{r},{lg};{nodes} (more groups)")
    fits.append(f"dragonfly:{g},{lb};{-(-need // (g * r * nodes))},{lk};{r},{lg};{nodes} (more chassis per group)")
    fits.append(f"dragonfly:{g},{lb};{c},{lk};{r},{lg};{-(-need // (g * c * r))} (more nodes per router)")
    return too_few(spec, ranks, g * c * r * nodes, cores,
                   ", ".join(fits) + " (hosts = groups x chassis x routers x nodes; SimGrid 3.32 needs groups <= "
                   "routers per chassis)")


def fitting_torus(spec, ranks, cores, dims):
    """A torus spec too small for the ranks: refused with the specs that fit."""
    need = -(-ranks // cores)
    rest = math.prod(dims[1:])
    side = max(1, round(need ** (1 / len(dims))))
    while side ** len(dims) < need:
        side += 1
    return too_few(spec, ranks, math.prod(dims), cores,
                   f"torus:{','.join(map(str, [-(-need // rest)] + dims[1:]))} (a longer first dimension), "
                   f"torus:{','.join([str(side)] * len(dims))} (as many dimensions, equal) (hosts = the product "
                   "of the dimensions)")


def fattree_string(h, down, up, par):
    return f"{h};{','.join(map(str, down))};{','.join(map(str, up))};{','.join(map(str, par))}"


def expand_radical(radical):
    out = []
    for part in radical.split(","):
        part = part.strip()
        if "-" in part:
            a, b = part.split("-", 1)
            out.extend(range(int(a), int(b) + 1))
        elif part:
            out.append(int(part))
    return out


def platform_hosts(path):
    """[(host id, cores)] in document order, from <host> and <cluster>/<cabinet>."""
    try:
        root = ET.parse(path).getroot()
    except (ET.ParseError, OSError) as e:
        raise CliError(f"--platform {path}: cannot read it as XML: {e}")
    if root.tag != "platform":
        raise CliError(f"--platform {path}: not a SimGrid platform (root element <{root.tag}>)")
    hosts = []
    for el in root.iter():
        try:
            cores = int(el.get("core", "1"))
            if el.tag == "host":
                hosts.append((el.get("id"), cores))
            elif el.tag in ("cluster", "cabinet"):
                for i in expand_radical(el.get("radical", "")):
                    hosts.append((f"{el.get('prefix', '')}{i}{el.get('suffix', '')}", cores))
        except ValueError:
            raise CliError(f"--platform {path}: cannot understand <{el.tag} id={el.get('id')!r}> "
                           "(core/radical); give --hostfile")
        if cores < 1 and el.tag in ("host", "cluster", "cabinet"):  # SimGrid: "must have at least one core"
            raise CliError(f"--platform {path}: <{el.tag} id={el.get('id')!r}> has core=\"{el.get('core')}\", and "
                           "SimGrid aborts on a host of fewer than 1 core: give it core=\"1\" or more")
    return hosts


def host_wattage(path):
    """{host id: (its wattage_per_state text, None without one; its count of
    pstates, the speeds of its speed attribute)} of a platform file's <host>
    and <cluster>/<cabinet> hosts (a cluster's <prop> is each of its hosts')."""
    root = ET.parse(path).getroot()   # platform_hosts read it
    out = {}
    for el in root.iter():
        props = {p.get("id"): p.get("value") for p in el.findall("prop")}
        found = (props.get("wattage_per_state"), len(el.get("speed", "").split(",")))
        if el.tag == "host":
            out[el.get("id")] = found
        elif el.tag in ("cluster", "cabinet"):
            for i in expand_radical(el.get("radical", "")):
                out[f"{el.get('prefix', '')}{i}{el.get('suffix', '')}"] = found
    return out


def check_wattage(path, hostlist):
    """--energy platform: every host of the file that runs a rank has a
    wattage_per_state that SimGrid's energy plugin reads (pstates separated
    by ',', each IDLE:ALLCORES or IDLE:EPSILON:ALLCORES watts); without it,
    the plugin counts the host's energy as 0 J.  CliError naming the first
    host that has none, or a malformed one."""
    watts = host_wattage(path)
    form = "<prop id=\"wattage_per_state\" value=\"IDLE:EPSILON:ALLCORES\"/> (watts, e.g. 100:120:200)"
    for h in dict.fromkeys(hostlist):
        if h not in watts:
            continue  # a host the file declares in a way this reader does not follow: SimGrid checks it
        text, pstates = watts[h]
        if text is None:
            raise CliError(f"--energy platform: host {h} of {path} runs ranks and has no wattage_per_state "
                           f"property, so SimGrid would count its energy as 0 J; give it (or its <cluster>) {form}, "
                           "or drop --energy")
        # a plain decimal number each, white space before it as strtod skips (Python's float() took 1_00,
        # which SimGrid's parser refuses after launch)
        states = [[float(x) if re.fullmatch(units.NUMBER, x.lstrip()) else math.nan for x in state.split(":")]
                  for state in text.split(",")]
        if any(len(v) not in (2, 3) or not all(w >= 0 and math.isfinite(w) for w in v) for v in states):
            raise CliError(f"--energy platform: host {h} of {path} has wattage_per_state {text!r}, which SimGrid's "
                           f"energy plugin does not read; give {form}, pstates separated by ','")
        if len(states) != pstates:  # SimGrid: "Invalid XML file. Found 2 energetic profiles for 1 pstates"
            raise CliError(f"--energy platform: host {h} of {path} has {len(states)} pstate(s) in wattage_per_state "
                           f"{text!r} and {pstates} speed(s), and SimGrid's energy plugin aborts unless they are as "
                           "many: give one IDLE:EPSILON:ALLCORES per speed, separated by ','")


def read_hostfile(path):
    """The hosts of a hostfile, one per rank (host, or host:N for N ranks)."""
    hosts = []
    for line in read_text(path).splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        m = re.fullmatch(r"(.*):(\d+)", line)
        hosts.extend([m.group(1)] * int(m.group(2)) if m else [line])
    return hosts


PLACEMENTS = ("sequential", "random")


def place(ranks, hosts, cores, placement="sequential", seed=None):
    """The host of each rank on a generated platform of `hosts` hosts of
    `cores` cores: 'sequential' fills node-0, node-1, ... in rank order;
    'random' draws the ceil(ranks / cores) hosts from all of them in a
    random order, as a scheduler that does not know the topology allocates
    nodes (seed 001, section 5.2), each host taking its `cores` ranks in a
    row (as mpirun's by-slot mapping); the draw is reproducible by seed
    (settings.seed(): make_plan gives it) and independent of the other
    draws of that seed (node speeds, noise)."""
    used = -(-ranks // cores)
    if placement == "sequential":
        order = range(used)
    elif placement == "random":
        if seed is None:
            raise ValueError("a random placement needs its seed (settings.seed())")
        rng = random.Random(f"placement:{seed}")
        order = rng.sample(range(hosts), used)
    else:
        raise ValueError(f"placement {placement!r}")
    return [f"node-{order[r // cores]}" for r in range(ranks)]


def resolve(spec, ranks, bw, lat, *, hostfile=None, cores_per_node=None, energy=None, shaping=(), loopback=None,
            placement=None, seed=None):
    """--platform SPEC (None: the default fat tree) -> a Platform; CliError
    when it does not fit.  bw, lat: (value, text) of the links (units.parse_*);
    shaping: the options given that shape a generated platform (--speedup,
    --bw, --lat, --cores-per-node), which a platform file refuses;
    loopback: (bw, lat) texts of the link between a host's cores (a
    network file's intra link; None: LOOPBACK_BW, LOOPBACK_LAT);
    placement: how a generated platform's hosts take the ranks (place();
    None: sequential), drawn by seed when random."""
    if placement is not None and placement not in PLACEMENTS:
        raise CliError(f"--placement {placement!r}: expected one of {', '.join(PLACEMENTS)}")
    kind = generated_topology(spec) if spec else "FAT_TREE"
    if kind:
        if energy == "platform":
            raise CliError("--energy platform needs --platform FILE.xml (whose hosts carry wattage_per_state)")
        cores = cores_per_node or 1
        if spec is None:
            # as many hosts as the ranks need; the last one may be partly
            # used, as one rank on a 2-core machine (simblas-hpl validate's
            # 1x1) or an odd grid on a real cluster's last node
            hosts = -(-ranks // cores)
            topo = fattree_string(*default_fattree(hosts))
        else:
            body = spec.split(":", 1)[1]
            if kind == "FAT_TREE":
                h, down, up, par = parse_fattree(body)
                hosts = math.prod(down)
                if hosts * cores < ranks:
                    need = -(-ranks // cores)
                    top = -(-need // math.prod(down[:-1]))
                    raise too_few(spec, ranks, hosts, cores,
                                  f"fattree:{fattree_string(h, down[:-1] + [top], up, par)} (the product of the "
                                  "down-link counts is the number of hosts)")
                topo = fattree_string(h, down, up, par)
                elements = fattree_elements(down, up, par), "up-link or parallel-link counts"
            elif kind == "DRAGONFLY":
                g, c, r, n = parse_dragonfly(body)
                hosts = g[0] * c[0] * r[0] * n
                if hosts * cores < ranks:
                    raise fitting_dragonfly(spec, ranks, cores, (g, c, r), n)
                topo = ";".join(",".join(map(str, lv)) for lv in (g, c, r)) + f";{n}"  # as read here
                elements = dragonfly_elements((g, c, r), n), "link counts (BLUE, BLACK, GREEN)"
            else:
                dims = parse_torus(body)
                hosts = math.prod(dims)
                if hosts * cores < ranks:
                    raise fitting_torus(spec, ranks, cores, dims)
                topo = ",".join(map(str, dims))
        if hosts > MAX_HOSTS:
            raise CliError(f"--platform {spec}: {hosts:,} hosts, more than {MAX_HOSTS:,}: SimGrid makes every host "
                           f"of the platform, used or not (about {HOST_BYTES / 1e3:.0f} kB each with its rank); a smaller machine")
        if spec is not None and kind != "TORUS":
            check_elements(spec, hosts, *elements[0], elements[1])
        if hostfile:
            raise CliError("--hostfile goes with --platform FILE.xml; the generated platform has its own")
        # a machine larger than the run (Stampede: 6,006 ranks on 6,400 nodes):
        # sequentially, the ranks fill the first hosts and the rest idle
        placement = placement or "sequential"
        return Platform(kind="generated", spec=spec or "fattree:" + topo, hosts=hosts, cores_per_node=cores,
                        own_core=True, topo=topo, bw=bw[1], lat=lat[1], bw_Bps=bw[0], lat_s=lat[0],
                        hostlist=place(ranks, hosts, cores, placement, seed), topology=kind, placement=placement,
                        **(dict(loopback_bw=loopback[0], loopback_lat=loopback[1]) if loopback else {}))
    path = os.path.abspath(spec)
    if not spec.endswith(".xml") and not os.path.isfile(path):
        raise CliError(f"--platform {spec!r}: expected fattree:LEVELS;DOWN...;UP...;PARALLEL..., "
                       "dragonfly:GROUPS,BLUE;CHASSIS,BLACK;ROUTERS,GREEN;NODES, torus:D1,D2,... "
                       "or a SimGrid platform FILE.xml")
    if not os.path.isfile(path):
        raise CliError(f"--platform {spec}: no such file")
    if placement is not None:
        raise CliError(f"--placement {placement} places the ranks on a generated platform (fattree:, dragonfly:, "
                       "torus:); with --platform FILE.xml, say where each rank runs with --hostfile")
    bad = list(shaping)
    if isinstance(energy, list):
        bad.append("--energy IDLE:EPS:ALLCORES")
    if bad:
        raise CliError(f"{', '.join(bad)}: these shape the generated platform; with --platform FILE.xml "
                       "set speeds, links, cores and wattage_per_state in the file "
                       "(--energy platform enables the energy plugin)")
    phosts = platform_hosts(path)
    if hostfile:
        if not os.path.isfile(hostfile):
            raise CliError(f"--hostfile {hostfile}: no such file")
        hostlist = read_hostfile(hostfile)
        known = {h for h, _ in phosts}
        unknown = sorted({h for h in hostlist if h not in known})
        if phosts and unknown:
            raise CliError(f"--hostfile {hostfile} names hosts that {spec} lacks: {', '.join(unknown[:5])}")
    else:
        hostlist = [h for h, c in phosts for _ in range(c)]
        if not hostlist:
            raise CliError(f"--platform {spec}: found no <host> or <cluster> in it; give --hostfile")
    if len(hostlist) != ranks:
        src = f"--hostfile {hostfile}" if hostfile else f"{spec} (hosts x their core count)"
        raise CliError(f"P*Q = {ranks} ranks, but {src} provides {len(hostlist)}: they must be equal; give --p and "
                       f"--q with P*Q = {len(hostlist)}, or " + (f"a hostfile of {ranks} lines (one per rank)" if hostfile
                                                                 else f"a platform of {ranks} cores"))
    if energy == "platform":
        check_wattage(path, hostlist)
    # every rank a core of its own: no host gets more ranks than cores
    cores_of = dict(phosts)
    per_host = collections.Counter(hostlist)
    # hosts: the machine's, those that run no rank too (as a generated platform counts them; the
    # energy counts them idle), not only those of the hostlist
    return Platform(kind="file", spec=path, hosts=len(phosts) or len(set(hostlist)), hostlist=hostlist,
                    own_core=all(n <= cores_of.get(h, 1) for h, n in per_host.items()))


TOPOLOGY_NAMES = {"FAT_TREE": "fat tree", "DRAGONFLY": "dragonfly", "TORUS": "torus"}


def platform_xml(hosts, cores, speed, bw, lat, topo, energy, topology="FAT_TREE", loopback=(LOOPBACK_BW, LOOPBACK_LAT)):
    """A generated platform: one SimGrid cluster on a fat tree, a dragonfly
    or a torus (every link of the bandwidth and latency given: SimGrid 3.32
    has one for all the levels of a cluster); with several cores a host,
    the loopback (bw, lat) that SMPI routes two of its ranks through."""
    attrs = ['id="cluster"', 'prefix="node-"', 'suffix=""', f'radical="0-{hosts - 1}"',
             f'speed="{speed}"', f'core="{cores}"', f'bw="{bw}"', f'lat="{lat}"']
    if cores > 1:
        attrs += [f'loopback_bw="{loopback[0]}"', f'loopback_lat="{loopback[1]}"']
    attrs += [f'topology="{topology}"', f'topo_parameters="{topo}"']
    props = ""
    if isinstance(energy, list):
        # each as given (shortest round trip): {:g} kept 6 digits, so 100.1234567 W ran as 100.123
        watts = ":".join(r[:-2] if r.endswith(".0") else r for r in map(repr, map(float, energy)))
        props = (f"\n    <prop id=\"wattage_per_state\" value=\"{watts}\"/>"
                 "\n    <prop id=\"wattage_off\" value=\"0\"/>\n  ")
    return ("<?xml version='1.0'?>\n"
            "<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n"
            f"<!-- generated by simblas-hpl: {TOPOLOGY_NAMES[topology]} {topo} of {hosts} host(s) x {cores} "
            "core(s) -->\n"
            "<platform version=\"4.1\">\n"
            f"  <cluster {' '.join(attrs)}>{props}</cluster>\n"
            "</platform>\n")


def alloc_only_xml(hosts, cores, speed):
    """--alloc-only's platform: hosts without links (a constant network model)."""
    lines = "\n".join(f'    <host id="node-{i}" speed="{speed}" core="{cores}"/>' for i in range(hosts))
    return ("<?xml version='1.0'?>\n<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n"
            "<platform version=\"4.1\">\n  <!-- simblas-hpl run, alloc-only: no links (constant network "
            "model) -->\n  <zone id=\"world\" routing=\"None\">\n" + lines + "\n  </zone>\n</platform>\n")


def write_files(platform, workdir, host_speed, energy, alloc_only):
    """platform.xml and hostfile in workdir."""
    with open(os.path.join(workdir, "hostfile"), "w") as f:
        f.write("\n".join(platform.hostlist) + "\n")
    dst = os.path.join(workdir, "platform.xml")
    if alloc_only:
        text = alloc_only_xml(platform.hosts, platform.cores_per_node, units.fmt_speed(host_speed))
    elif platform.kind == "generated":
        text = platform_xml(platform.hosts, platform.cores_per_node, units.fmt_speed(host_speed),
                            platform.bw, platform.lat, platform.topo, energy, platform.topology,
                            (platform.loopback_bw, platform.loopback_lat))
    else:
        if os.path.abspath(platform.spec) != os.path.abspath(dst):
            shutil.copyfile(platform.spec, dst)
        return
    with open(dst, "w") as f:
        f.write(text)
