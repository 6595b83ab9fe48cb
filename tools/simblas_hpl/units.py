"""SimGrid's units (bandwidth, latency) and the number formats of the files."""

import re

from .errors import CliError

# SimGrid units (xbt_parse_get_*): bandwidth in byte/s, latency in s.  As
# in SimGrid, a number needs its unit: `--bw 10` was 10 B/s, `--lat 24` 24 s.
# SimGrid (3.32, src/xbt/xbt_parse_units.cpp) takes bps and Bps under the
# SI prefixes k M G T P E Z Y (powers of 1000) and the binary ones Ki Mi
# Gi Ti Pi Ei Zi Yi (powers of 1024), each multiplied up in turn as it
# does; its kilo is k only: 10KBps is its "unknown unit: KBps"
SI_PREFIXES = ("k", "M", "G", "T", "P", "E", "Z", "Y")
BINARY_PREFIXES = ("Ki", "Mi", "Gi", "Ti", "Pi", "Ei", "Zi", "Yi")


def prefixed(unit, value, prefixes, base):
    """unit and each prefixed unit -> its value, as SimGrid's unit_scale."""
    scale = {unit: value}
    for p in prefixes:
        value *= base
        scale[p + unit] = value
    return scale


BW_UNITS = {}
for _u, _v in (("bps", 0.125), ("Bps", 1.0)):
    BW_UNITS.update(prefixed(_u, _v, BINARY_PREFIXES, 1024.0))
    BW_UNITS.update(prefixed(_u, _v, SI_PREFIXES, 1000.0))
LAT_UNITS = {"s": 1, "ms": 1e-3, "us": 1e-6, "ns": 1e-9, "ps": 1e-12, "m": 60, "h": 3600, "d": 86400, "w": 604800}
# what a link can be: beyond these SimGrid's solver overflows ("The
# Impossible Did Happen") or the run means nothing
BW_RANGE = (1.0, 1e15)      # B/s: 8 bps to 8000 Tbps
LAT_RANGE = (0.0, 1.0)      # s
_NUM = r"([0-9]*\.?[0-9]+(?:[eE][-+]?[0-9]+)?)"
NUMBER = r"(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][-+]?[0-9]+)?"  # a plain decimal number >= 0, as SimGrid's files take it
_WHAT = {
    "bandwidth": ("10Gbps, 1.25GBps, 100MBps",
                  "bps, kbps, Mbps, Gbps, Tbps... Ybps (bits/s), Bps, kBps, MBps, GBps, TBps... YBps (bytes/s), or "
                  "Kibps... Yibps, KiBps... YiBps", "8bps and 8000Tbps"),
    "latency": ("24us, 1.5ms, 0.00001s", "s, ms, us, ns, ps (or m, h, d, w)", "0s and 1s"),
}


def parse_unit(text, units, what, opt, bounds):
    """(value in SimGrid's base unit, the text for the platform file)."""
    example, names, between = _WHAT[what]
    m = re.fullmatch(_NUM + r"\s*([A-Za-z]*)", (text or "").strip())
    if m and not m.group(2):
        raise CliError(f"{opt} {text!r}: a {what} needs its unit, as in SimGrid: {names} (e.g. {example})")
    if m and m.group(2) in ("KBps", "Kbps") and what == "bandwidth":
        raise CliError(f"{opt} {text!r}: SimGrid's kilo is a lower-case k (it refuses {m.group(2)}): give "
                       f"{m.group(1)}k{m.group(2)[1:]}, or Ki{m.group(2)[1:]} for 1024")
    if not m or m.group(2) not in units:
        raise CliError(f"{opt} {text!r}: not a {what} (e.g. {example})")
    v = float(m.group(1)) * units[m.group(2)]
    if v <= 0 and what == "bandwidth":
        raise CliError(f"{opt} {text!r}: must be positive")
    if not bounds[0] <= v <= bounds[1]:
        raise CliError(f"{opt} {text!r}: out of range; a link's {what} is between {between}")
    return v, m.group(1) + m.group(2)


def parse_bandwidth(text, opt="--bw"):
    return parse_unit(text, BW_UNITS, "bandwidth", opt, BW_RANGE)


def parse_latency(text, opt="--lat"):
    return parse_unit(text, LAT_UNITS, "latency", opt, LAT_RANGE)


# SimGrid's speeds: f under the SI prefixes, and flops under their names
SPEED_UNITS = {**prefixed("f", 1.0, SI_PREFIXES, 1000.0),
               **prefixed("flops", 1.0, ("kilo", "mega", "giga", "tera", "peta", "exa", "zeta", "yotta"), 1000.0)}


def parse_speed(text, opt="--host-speed"):
    """A host speed in SimGrid's units (1Gf: 10^9 flop/s) -> flop/s."""
    m = re.fullmatch(_NUM + r"\s*([A-Za-z]*)", (text or "").strip())
    if not m or m.group(2) not in SPEED_UNITS or float(m.group(1)) <= 0:
        raise CliError(f"{opt} {text!r}: not a host speed; give flop/s with SimGrid's unit: f, kf, Mf, Gf, Tf, "
                       "Pf... Yf (e.g. 1Gf, 42.5Gf)")
    return float(m.group(1)) * SPEED_UNITS[m.group(2)]


def fmt_speed(flops):
    """A host speed as the platform file and smpi/host-speed give it."""
    return f"{flops:.10g}f"


def fmt_duration(sec):
    if sec < 120:
        return f"{sec:.0f} s"
    if sec < 7200:
        return f"{sec / 60:.0f} min"
    return f"{sec / 3600:.1f} h"
