"""The machine `validate` and `refine` measure on: what it is (the CPU, its
SIMD flags, the cores, the kernel: machine_info), the time of a
measurement (now_iso, UTC), and the load that other processes put on its
cores during a real run (LoadWatch, from /proc/stat; loadavg): above
QUIET_SHARE of them, validate says so and refine refuses its runs."""

import datetime
import os
import platform as pyplatform
import re
import time

from . import realrun
from .files import read_text

SIMD_FLAGS = ("sse4_2", "avx", "avx2", "fma", "avx512f", "avx512dq", "avx512vl", "avx512_vnni", "amx_tile",
              "sve", "neon", "asimd")
# other processes above 2% of the cores during a real run: said, and flagged (validate), refused (refine):
# on the quiet Zen 5 host (2026-11-29) two monitor processes taking 4.1% made refine's traced runs 7-8%
# slower (101.3 and 97.6 Gflops at N=10000, against 109.7 and 105.2 at 0.5% minutes later) and its dgemm
# calls 4.3% slower, and the model refined on them predicted 2.6% low; quiet, that host shows 0.3-0.6%
QUIET_SHARE = 0.02


def machine_info():
    """What the figures were measured on: the CPU model, its x86 family and
    model numbers (a VM's model name can hide them: Zen 3 and Zen 5 both
    say "AMD EPYC"; None elsewhere), its SIMD flags, the cores, the
    kernel."""
    cpuinfo = read_text("/proc/cpuinfo")
    model = re.search(r"^model name\s*:\s*(.*)$", cpuinfo, re.M)
    flags = re.search(r"^(?:flags|Features)\s*:\s*(.*)$", cpuinfo, re.M)
    family = re.search(r"^cpu family\s*:\s*(\d+)\s*$", cpuinfo, re.M)
    number = re.search(r"^model\s*:\s*(\d+)\s*$", cpuinfo, re.M)
    have = set(flags.group(1).split()) if flags else set()
    return {"cpu": model.group(1).strip() if model else pyplatform.processor() or "unknown",
            "family": int(family.group(1)) if family else None, "model": int(number.group(1)) if number else None,
            "simd": [f for f in SIMD_FLAGS if f in have], "cores": realrun.machine_cores(),
            "hypervisor": "hypervisor" in have, "kernel": pyplatform.release(), "host": pyplatform.node()}


def describe(m):
    """A machine_info dict in words, as validate's footer and its refusals
    name it: 'CPU (family F model M; simd, ...), N core(s)' (the family
    and model where it has them)."""
    fm = f"family {m['family']} model {m['model']}; " if m.get("family") is not None and m.get("model") is not None \
        else ""
    return f"{m.get('cpu') or '?'} ({fm}{', '.join(m.get('simd') or []) or 'no SIMD flags found'}), " \
           f"{m.get('cores') or '?'} core(s)"


def cpu_busy():
    """(busy, total) jiffies of all CPUs from /proc/stat (steal counts as busy)."""
    f = read_text("/proc/stat").split("\n", 1)[0].split()
    if not f or f[0] != "cpu":
        return None
    v = [int(x) for x in f[1:]]
    idle = v[3] + (v[4] if len(v) > 4 else 0)
    return sum(v) - idle, sum(v)


def children_cpu():
    u = os.times()
    return u.children_user + u.children_system


class LoadWatch:
    """The share of the machine's cores that processes other than this
    one's children used between start() and stop() (and the hypervisor
    stole, where it reports steal time)."""

    def __init__(self):
        self.hz = os.sysconf("SC_CLK_TCK")
        self.cores = realrun.machine_cores()

    def start(self):
        self.b0, self.c0, self.t0 = cpu_busy(), children_cpu(), time.monotonic()

    def stop(self):
        b1, c1, wall = cpu_busy(), children_cpu(), time.monotonic() - self.t0
        if not self.b0 or not b1 or wall <= 0:
            return None
        busy = (b1[0] - self.b0[0]) / self.hz
        other = max(0.0, busy - (c1 - self.c0))
        return other / (wall * self.cores)


def loadavg():
    f = read_text("/proc/loadavg").split()
    return float(f[0]) if f else None


def now_iso():
    return datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")
