"""Network files (doc/model-format.md, "Network files"): what
`simblas-calibrate --network` measured of the real MPI, and what a run
takes of it.

A run takes, from the `intra` section, the link between two cores of a
host (the generated platform's loopback) and SMPI's piecewise factors
(smpi/lat-factor, smpi/bw-factor, and the same lists to libsimblas's
message-time estimate: SIMBLAS_LAT_FACTOR, SIMBLAS_BW_FACTOR).  From an
`inter` section (two hosts of a hostfile), when there is one: the
generated platform's links where --bw / --lat do not give them, and the
factors of a run that spans several hosts (SimGrid 3.32 has one list of
factors for every message of a run).
"""

import dataclasses
import math
import os
import re
from typing import Optional

from . import units
from .errors import CliError
from .files import read_text
from .locations import simblas_datadir

MAGIC = "simblas-network"
VERSION = 1
DEFAULT_NAME = "default.network"   # installed by `make calibrate-network`
SECTIONS = ("intra", "inter")
KEYS = ("link", "lat-factor", "bw-factor", "fit", "segment", "pingpong", "collective")
REMEDY = "measure it again with: simblas-calibrate --network -o FILE"


@dataclasses.dataclass(frozen=True)
class Link:
    """One measured link: SMPI's time for S bytes is latency x
    lat_factor(S) + S / (bandwidth x bw_factor(S))."""
    latency: float          # s
    bandwidth: float        # B/s
    lat_factor: str         # "size:factor;..." as SimGrid takes it
    bw_factor: str

    @property
    def lat_text(self):
        return f"{self.latency:.6g}s"

    @property
    def bw_text(self):
        return f"{self.bandwidth:.6g}Bps"

    def summary(self):
        return {"latency_s": self.latency, "bandwidth_Bps": self.bandwidth, "lat_factor": self.lat_factor,
                "bw_factor": self.bw_factor}


@dataclasses.dataclass(frozen=True)
class Network:
    path: str
    intra: Link
    inter: Optional[Link] = None
    date: Optional[str] = None


_NUMBER = re.compile(r"[+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?")  # what strtod reads, and SimGrid (no inf, nan, _)
SIZE_MAX = 2 ** 53          # a message size, in bytes: whole, and exact in a double


def parse_factors(text):
    """SMPI's list ("size:factor;...") -> [(size, factor)], or None.  A
    size is a whole number of bytes, however written (65536, 6.5536e4); a
    factor a plain decimal number > 0."""
    out = []
    for part in text.split(";"):
        size, sep, value = part.partition(":")
        if not sep or not _NUMBER.fullmatch(size) or not _NUMBER.fullmatch(value):
            return None
        s, v = float(size), float(value)
        if not (v > 0) or not math.isfinite(s + v) or s != int(s) or s > SIZE_MAX:
            return None
        out.append((int(s), v))
    return out if out and len(out) <= 32 else None  # libsimblas keeps up to 32 (SB_MAX_FACTORS)


def factors_text(text):
    """A list parse_factors takes, as libsimblas (SIMBLAS_LAT_FACTOR: sizes
    of digits only) and SimGrid (smpi/lat-factor, sizes as integers) read
    it: each size as its digits, each factor as written."""
    return ";".join(f"{s}:{part.partition(':')[2]}" for (s, _), part in zip(parse_factors(text), text.split(";")))


def read(path):
    """The network file at path -> Network; CliError naming file:line and
    the remedy for anything malformed."""
    if not os.path.isfile(path):
        raise CliError(f"--network {path}: no such file; {REMEDY}, or drop --network")
    text = read_text(path)
    found = {s: {} for s in SECTIONS}
    date = None

    def bad(n, why):
        return CliError(f"{path}:{n}: {why}; {REMEDY}")

    started = False
    for n, raw in enumerate(text.splitlines(), 1):
        words = raw.split("#", 1)[0].split()
        if not words:
            continue
        if not started:
            if words[0] != MAGIC:
                raise bad(n, f"not a SimBLAS network file (its first line is not '{MAGIC} {VERSION}')")
            if words[1:] != [str(VERSION)]:
                raise bad(n, f"network file version {' '.join(words[1:]) or '(none)'}; this SimBLAS reads "
                             f"version {VERSION}")
            started = True
            continue
        sec = words[0]
        if sec == "meta":
            if len(words) >= 3 and words[1] == "date":
                date = words[2]
            continue
        if sec not in SECTIONS:
            raise bad(n, f"unknown section '{sec}' (expected {', '.join(SECTIONS)} or meta)")
        if len(words) < 2 or words[1] not in KEYS:
            raise bad(n, f"unknown {sec} line '{' '.join(words[1:2])}' (expected one of {', '.join(KEYS)})")
        key, args = words[1], words[2:]
        if key == "link":
            try:
                lat, bw = (float(x) for x in args)
            except ValueError:
                raise bad(n, f"{sec} link needs LATENCY BANDWIDTH (seconds, bytes/s), not '{' '.join(args)}'")
            if not (units.LAT_RANGE[0] < lat <= units.LAT_RANGE[1]) or \
                    not (units.BW_RANGE[0] <= bw <= units.BW_RANGE[1]):
                raise bad(n, f"{sec} link: latency {lat:g} s, bandwidth {bw:g} B/s out of range (a latency in "
                             "(0, 1] s, a bandwidth from 1 B/s to 1e15 B/s)")
            found[sec]["link"] = (lat, bw)
        elif key in ("lat-factor", "bw-factor"):
            if len(args) != 1 or parse_factors(args[0]) is None:
                raise bad(n, f"{sec} {key}: '{' '.join(args)}' is not a list of size:factor pairs (SMPI's "
                             f"smpi/{key}, e.g. 65472:11.6436;0:2.01467: sizes whole numbers of bytes, factors "
                             "> 0, at most 32 pairs)")
            found[sec][key] = factors_text(args[0])
    if not started:
        raise CliError(f"{path}:1: an empty file, not a SimBLAS network file; {REMEDY}")
    links = {}
    for sec in SECTIONS:
        have = found[sec]
        if not have:
            continue
        missing = [k for k in ("link", "lat-factor", "bw-factor") if k not in have]
        if missing:
            raise CliError(f"{path}: the {sec} section has no {' or '.join(missing)} line; {REMEDY}")
        links[sec] = Link(latency=have["link"][0], bandwidth=have["link"][1], lat_factor=have["lat-factor"],
                          bw_factor=have["bw-factor"])
    if "intra" not in links:
        raise CliError(f"{path}: no intra section (the link between two cores of a host); {REMEDY}")
    return Network(path=os.path.abspath(path), intra=links["intra"], inter=links.get("inter"), date=date)


def default_path():
    """The installed network file ($(pkgdatadir)/default.network), when it exists."""
    dd = simblas_datadir()
    path = os.path.join(dd, DEFAULT_NAME) if dd else None
    return path if path and os.path.isfile(path) else None


def resolve(option):
    """--network FILE, 'none' (SimGrid's defaults and the assumed loopback,
    even when one is installed), or None: the installed file, if any."""
    if option == "none":
        return None
    path = option or default_path()
    return read(path) if path else None


def factors_link(network, hosts):
    """The link whose factors a run on `hosts` hosts (those that run its
    ranks) uses: the interconnect's when it spans several and the file has
    one, else the intra-node's."""
    if network.inter and hosts > 1:
        return "inter", network.inter
    return "intra", network.intra


def summary(network, platform):
    """What the run's JSON says of the network it simulated: the file (None:
    SimGrid's default factors), whose factors, and the link between a
    generated host's cores (None: one core a host, or a platform file)."""
    loopback = None
    if platform.kind == "generated" and (platform.cores_per_node or 1) > 1:
        loopback = {"bw": platform.loopback_bw, "lat": platform.loopback_lat,
                    "source": "network file" if network else "assumed"}
    if network is None:
        return {"file": None, "factors": "SimGrid 3.32's defaults", "loopback": loopback}
    which, link = factors_link(network, platform.hosts_used)
    return {"file": network.path, "date": network.date, "factors": which, "lat_factor": link.lat_factor,
            "bw_factor": link.bw_factor, "loopback": loopback, "intra": network.intra.summary(),
            "inter": network.inter.summary() if network.inter else None}
