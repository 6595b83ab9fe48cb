"""SimGrid's units (bandwidth, latency) and the number formats of the files."""

import re

from .errors import CliError

# SimGrid units (xbt_parse_get_*): bandwidth in byte/s, latency in s
BW_UNITS = {"": 1, "Bps": 1, "bps": 0.125}
for _p, _m in (("k", 1e3), ("K", 1e3), ("M", 1e6), ("G", 1e9), ("T", 1e12)):
    BW_UNITS[_p + "Bps"] = _m
    BW_UNITS[_p + "bps"] = _m / 8
for _p, _m in (("Ki", 2**10), ("Mi", 2**20), ("Gi", 2**30), ("Ti", 2**40)):
    BW_UNITS[_p + "Bps"] = _m
    BW_UNITS[_p + "bps"] = _m / 8
LAT_UNITS = {"": 1, "s": 1, "ms": 1e-3, "us": 1e-6, "ns": 1e-9, "ps": 1e-12,
             "m": 60, "h": 3600, "d": 86400, "w": 604800}
_NUM = r"([0-9]*\.?[0-9]+(?:[eE][-+]?[0-9]+)?)"


def parse_unit(text, units, what, opt):
    """(value in SimGrid's base unit, the text for the platform file)."""
    m = re.fullmatch(_NUM + r"\s*([A-Za-z]*)", (text or "").strip())
    if not m or m.group(2) not in units:
        raise CliError(f"{opt} {text!r}: not a {what} (e.g. " +
                       ("10Gbps, 1.25GBps, 100MBps" if what == "bandwidth" else "24us, 1.5ms, 0.00001s") + ")")
    v = float(m.group(1)) * units[m.group(2)]
    if v <= 0 and what == "bandwidth":
        raise CliError(f"{opt} {text!r}: must be positive")
    # a bare number is in SimGrid's base unit: write it with the unit
    return v, m.group(1) + (m.group(2) or ("Bps" if what == "bandwidth" else "s"))


def parse_bandwidth(text, opt="--bw"):
    return parse_unit(text, BW_UNITS, "bandwidth", opt)


def parse_latency(text, opt="--lat"):
    return parse_unit(text, LAT_UNITS, "latency", opt)


def fmt_speed(flops):
    """A host speed as the platform file and smpi/host-speed give it."""
    return f"{flops:.10g}f"


def fmt_duration(sec):
    if sec < 120:
        return f"{sec:.0f} s"
    if sec < 7200:
        return f"{sec / 60:.0f} min"
    return f"{sec / 3600:.1f} h"
