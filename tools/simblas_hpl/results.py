"""What a run gives: HPL's output parsed, the summary (the JSON object, with
the extrapolation of a sampled run: extrapolation.py), and the JSON and CSV
writers."""

import csv
import dataclasses
import datetime
import fcntl
import json
import math
import os
import re
import resource
import tempfile
from typing import Any, Dict, Optional

from . import extrapolation, network, settings
from .errors import CliError
from .files import read_text, write_atomic


RESULT_RE = re.compile(r"^(W[RC]\S*)\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s+(\S+)\s+(\S+)\s*$", re.M)
RESIDUAL_RE = re.compile(r"^\|\|Ax-b\|\|_oo/\(eps.*=\s*(\S+)\s*\.+\s*(PASSED|FAILED)", re.M)
SIMTIME_RE = re.compile(r"Simulated time: (\S+) seconds")
ENERGY_RE = re.compile(r"Total energy consumption: (\S+) Joules \(used hosts: (\S+) Joules; unused/idle hosts: (\S+)\)")
HOST_ENERGY_RE = re.compile(r"Energy consumption of host (\S+): (\S+) Joules")
# hpl-patches/20-precise-time.patch: the result line's time in full
PRECISE_TIME_RE = re.compile(r"^SimBLAS: HPL time (\S+) s$", re.M)
SKIPPED_RE = re.compile(r"(\d+) tests? skipped because of illegal input values")
# HPL built with -DHPL_DETAILED_TIMING (simblas-hpl build --detailed-timing):
# the slowest rank's time in each phase, "+" lines nested in the one above
PHASE_RE = re.compile(r"^\+?\s*Max aggregated wall time (rfact|pfact|mxswp|update|laswp|up tr sv)\s*[. ]*:\s*(\S+)\s*$",
                      re.M)
PHASE_KEYS = {"rfact": "rfact", "pfact": "pfact", "mxswp": "mxswp", "update": "update", "laswp": "laswp",
              "up tr sv": "uptrsv"}
NODE_RE = re.compile(r"^simblas: node .*: (\S+) of (\S+) modelled calls offloaded, accelerators busy (\S+) s", re.M)


def parse_output(out, err, workdir):
    text = out + "\n" + read_text(os.path.join(workdir, "hpccoutf.txt"))
    res = {}
    m = None
    for m in RESULT_RE.finditer(text):
        pass
    if m:
        res.update(tv=m.group(1), hpl_n=int(m.group(2)), hpl_nb=int(m.group(3)), hpl_p=int(m.group(4)),
                   hpl_q=int(m.group(5)), result_line=m.group(0).rstrip())
        try:
            res["hpl_time_s"] = float(m.group(6))
            res["gflops"] = float(m.group(7))
            res["hpl_time_precise_s"] = precise_time(m.group(6), m.group(7), res["hpl_n"])
        except ValueError:
            pass
        full = PRECISE_TIME_RE.findall(text)
        if full and "hpl_time_s" in res:
            try:
                t = float(full[-1])
            except ValueError:
                t = None
            # the same run's time (a line of another HPL's test is not taken)
            if t is not None and t > 0 and math.isfinite(t) and abs(t - res["hpl_time_s"]) <= 0.005 + 1e-9:
                res["hpl_time_precise_s"] = t
    phases = {}
    for name, v in PHASE_RE.findall(text):  # the last test's, as the result line
        try:
            phases[PHASE_KEYS[name]] = float(v)
        except ValueError:
            pass
    if phases:
        res["phases_s"] = phases
    r = RESIDUAL_RE.search(text)
    if r:
        res["residual"] = float(r.group(1)) if re.fullmatch(r"[-+0-9.eE]+", r.group(1)) else r.group(1)
        res["residual_passed"] = r.group(2) == "PASSED"
    s = SKIPPED_RE.search(text)
    if s and int(s.group(1)) > 0:
        res["skipped"] = int(s.group(1))
    both = out + "\n" + err
    t = SIMTIME_RE.search(both)
    if t:
        res["simulated_time_s"] = float(t.group(1))
    nd = NODE_RE.search(both)
    if nd:  # --node: libsimblas's account of the accelerators, at exit
        res["offload"] = {"calls_offloaded": int(float(nd.group(1))), "calls": int(float(nd.group(2))),
                          "busy_s": float(nd.group(3))}
    e = ENERGY_RE.search(both)
    if e:
        res["energy_j"] = float(e.group(1))
        res["energy_used_hosts_j"] = float(e.group(2))
        res["energy_idle_hosts_j"] = float(e.group(3))
        res["energy_per_host_j"] = {h: float(j) for h, j in HOST_ENERGY_RE.findall(both)}
    return res


def precise_time(time_text, gflops_text, n):
    """HPL's time from both figures of its result line: the time is printed
    to 0.01 s, the Gflops to 4 significant digits (N gives the flops), and
    the time lies in both intervals; the middle of their intersection (the
    time column's value when they do not meet)."""
    def half_ulp(text):
        mant = text.lower().split("e")[0]
        return 0.5 * 10.0 ** -(len(mant.split(".")[1]) if "." in mant else 0)
    t, g = float(time_text), float(gflops_text)
    lo, hi = t - half_ulp(time_text), t + half_ulp(time_text)
    if g > 0 and "e" in gflops_text.lower():
        h = half_ulp(gflops_text) * 10.0 ** int(gflops_text.lower().split("e")[1])
        flops = (2.0 / 3.0 * n + 1.5) * n * n / 1e9
        glo, ghi = flops / (g + h), (flops / (g - h) if g > h else float("inf"))
        if max(lo, glo) <= min(hi, ghi):
            lo, hi = max(lo, glo), min(hi, ghi)
    return (lo + hi) / 2


def run_problem(res, returncode, timed_out, timeout_said, launcher, need_result=True, need_residual=False):
    """What went wrong with a finished HPL run (parse_output's res), or
    None: it timed out (timeout_said: the limit, as said), its launcher
    (smpirun, mpirun) failed, HPL printed no result line (when
    need_result), skipped its test, or its residual check failed (or, with
    need_residual, did not run)."""
    if timed_out:
        return f"the run did not finish within {timeout_said}"
    if returncode != 0:
        return f"{launcher} exited with status {returncode}"
    if "gflops" not in res and need_result:
        return "HPL printed no result line (W[RC]... N NB P Q Time Gflops)"
    if res.get("skipped"):
        return "HPL skipped the test: it found the input illegal"
    if res.get("residual_passed") is False or (need_residual and res.get("residual_passed") is not True):
        return f"HPL's residual check FAILED (residual {res.get('residual')})"
    return None


CSV_FIELDS = ["date", "n", "nb", "p", "q", "ranks", "hosts", "cores_per_node", "mode", "platform", "speedup",
              "host_speed", "bw", "lat", "gflops", "hpl_time_s", "simulated_time_s", "wall_s", "peak_rss_mb",
              "energy_j", "tv", "iterations_done", "iterations_total"]


def append_csv(path, summary):
    row = dict(summary)
    row["date"] = datetime.datetime.now().isoformat(timespec="seconds")
    with open(path, "a+", newline="") as f:
        fcntl.flock(f, fcntl.LOCK_EX)  # parallel sweeps append to one file
        f.seek(0)
        header = next(csv.reader(f), None)
        fields = header or CSV_FIELDS
        f.seek(0, os.SEEK_END)
        w = csv.DictWriter(f, fieldnames=fields, extrasaction="ignore")
        if not header:
            w.writeheader()
        w.writerow({k: ("" if row.get(k) is None else row.get(k)) for k in fields})


def write_json(path, summary):
    write_atomic(path, json.dumps(summary, indent=2) + "\n")


def check_output_path(path, opt):
    """--json/--csv FILE, before the run: what could not be written after it
    (a directory, a missing directory, a place where no file can be made:
    /proc) is refused now."""
    full = os.path.abspath(path)
    d = os.path.dirname(full)
    if os.path.isdir(full):
        example = "run." + opt[2:] if opt.startswith("--") else "refined.model"
        raise CliError(f"{opt} {path} is a directory: give a file name (e.g. {os.path.join(path, example)})")
    if not os.path.isdir(d):
        raise CliError(f"{opt} {path}: its directory {d} does not exist; create it (mkdir -p {d}) or give another path")
    if os.path.exists(full) and not os.access(full, os.W_OK):
        raise CliError(f"{opt} {path}: the file is not writable")
    try:  # the JSON is written beside it and renamed; the CSV may be created
        fd, probe = tempfile.mkstemp(prefix=".simblas-hpl-probe-", dir=d)
        os.close(fd)
        os.unlink(probe)
    except OSError as e:
        raise CliError(f"{opt} {path}: cannot create a file in {d} ({e.strerror}); give another path")


def check_csv_header(path):
    """run --csv FILE, before the run: an existing file keeps its own
    columns (append_csv), so one whose header has none of a run's
    (another program's table) would get a row of empty fields."""
    try:
        with open(path, newline="") as f:
            header = next(csv.reader(f), None)
    except (OSError, UnicodeDecodeError, csv.Error):
        return  # no file yet, or check_output_path's to say
    if header and not set(header) & set(CSV_FIELDS):
        raise CliError(f"--csv {path}: its header ({','.join(header)[:60]}) has none of the run's columns "
                       f"({','.join(CSV_FIELDS[:5])},...), so the run's row would be empty; give a new file, or "
                       "one simblas-hpl run wrote")


def check_two_outputs(json_path, csv_path):
    """--json and --csv: two files, or the CSV row would follow the JSON in one."""
    if json_path and csv_path and os.path.abspath(json_path) == os.path.abspath(csv_path):
        raise CliError(f"--json and --csv both name {csv_path}: the CSV would follow the JSON in one file; give two "
                       "files")


def write_outputs(summary, json_path=None, csv_path=None, keep_in=None):
    """Write --json and --csv.  What cannot be written (a disk full since the
    check) loses nothing: the summary is kept in keep_in/summary.json, and
    CliError (status 1) says where; the caller must then leave keep_in."""
    try:
        write_or_keep(summary, (("--json", json_path, write_json), ("--csv", csv_path, append_csv)),
                      lambda: os.path.join(keep_in, "summary.json"))
    except CliError as e:
        e.kept = keep_in if e.kept else None
        raise


def write_or_keep(obj, writes, keep_at, what="the result, printed above,", then=""):
    """write(path, obj) for each (option, path, write) given a path, after
    the long work that made obj.  What cannot be written (a disk full, a
    directory removed since the check before the work) loses nothing: obj
    is written as JSON to keep_at()'s path, and CliError (status 1, kept:
    that path) says what failed and where obj is (then, after it)."""
    failed = []
    for opt, path, write in writes:
        if path:
            try:
                write(path, obj)
            except OSError as e:
                failed.append(f"{opt} {path} ({e.strerror or e})")
    if not failed:
        return
    try:
        kept = keep_at()
        write_json(kept, obj)
    except (OSError, TypeError):
        kept = None
    where = f"kept in {kept}{then}" if kept else "on stdout only (it could not be written anywhere)"
    raise CliError(f"could not write {' or '.join(failed)}: {what} is {where}", 1, kept=kept)


@dataclasses.dataclass
class RunResult:
    """A finished run: `summary`, the JSON object (doc/user-guide.md,
    section 6), and the run directory its files are in."""
    summary: Dict[str, Any]
    workdir: str

    @property
    def result_line(self) -> Optional[str]:
        return self.summary.get("result_line")


def summarize(plan, res, wall, sampler, segs, end, workdir):
    """The summary of a run that finished: plan, parse_output's res, the wall
    time, the memory sampler's peaks, the iteration log (segs, end)."""
    platform = plan.platform
    summary = {
        "n": plan.n, "nb": plan.nb, "p": plan.p, "q": plan.q, "ranks": plan.ranks,
        "hosts": platform.hosts, "hosts_used": platform.hosts_used, "cores_per_node": platform.cores_per_node, "mode": plan.mode,
        "gflops": res.get("gflops"), "hpl_time_s": res.get("hpl_time_s"),
        "simulated_time_s": res.get("simulated_time_s"), "wall_s": round(wall, 3),
        "peak_rss_mb": round(sampler.peak_kb / 1024.0, 1), "peak_rss_method": "sampled Pss (smaps_rollup)",
        "peak_vm_gib": round(sampler.peak_vm_kb / 2**20, 1), "peak_mappings": sampler.peak_maps,
        "max_rss_mb": round(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024.0, 1),
        "tv": res.get("tv"), "result_line": res.get("result_line"),
        "platform": platform.spec, "placement": platform.placement,
        "speedup": plan.speedup,
        "reference_speed": plan.reference_speed, "host_speed": plan.host_speed,
        "bw": platform.bw, "lat": platform.lat, "model": plan.model, "xhpl": plan.xhpl,
        "iprobe_s": plan.poll_cost,  # a failed poll's simulated cost (--iprobe)
        "build": plan.build.to_json() if plan.build else None,
        "hpl": plan.hpl, "model_nominal": plan.model_nominal,
        "network": network.summary(plan.network, platform),
    }
    if plan.mode == "model":
        summary["hpl_code"] = plan.hpl_code
        # who charged HPL's own code: SimBLAS (SIMBLAS_CODE_CLOCK), SMPI, nobody
        summary["hpl_code_timer"] = ("simblas" if plan.code_clock else
                                     "smpi" if plan.hpl_code == "timed" else None)
        summary["waits"] = plan.waits
        summary["probe"] = plan.probe
        summary["malloc"] = plan.malloc
        summary["pivot_every"] = plan.pivot_every or 1
        summary["pivot_defer"] = not plan.no_pivot_defer
        summary["roll_merge"] = 1 if plan.roll_merge is None else plan.roll_merge
        summary["hugepages"] = plan.hugepages
        summary["seed"] = settings.seed(plan.seed)
        summary["noise"] = plan.noise
        summary["node_speed"] = plan.node_speeds.summary() if plan.node_speeds else None
        # hosts with idle cores, faster by the model's meta solo_speed
        summary["occupancy"] = {h: round(f, 6) for h, f in plan.occupancy.items()} if plan.occupancy else None
        summary["occupancy_memory"] = ({h: round(f, 6) for h, f in plan.occupancy_memory.items()}
                                       if plan.occupancy_memory else None)
        if plan.hugepages:
            summary["peak_hugetlb_mb"] = round(sampler.peak_huge_kb / 1024.0, 1)
            summary["peak_rss_method"] += " + the machine's huge pages in use beyond the start's"
    if platform.placement == "random":
        summary["seed"] = settings.seed(plan.seed)  # the hosts' draw, in passthrough too
    if res.get("phases_s"):  # HPL built with -DHPL_DETAILED_TIMING
        summary["phases_s"] = res["phases_s"]
    if "residual" in res:
        summary["residual"] = res["residual"]
        summary["residual_passed"] = res["residual_passed"]
    if plan.energy:
        if "energy_j" not in res:
            raise CliError(f"the energy plugin printed no total (stderr in {workdir}/stderr.txt)", 1, kept=workdir)
        summary["energy_j"] = res["energy_j"]
        summary["energy_used_hosts_j"] = res["energy_used_hosts_j"]
        summary["energy_idle_hosts_j"] = res["energy_idle_hosts_j"]
        summary["energy_per_host_j"] = res["energy_per_host_j"]
        summary["wattage"] = plan.energy if isinstance(plan.energy, list) else "platform"
        if summary.get("simulated_time_s"):
            summary["avg_power_w"] = res["energy_j"] / summary["simulated_time_s"]
    if plan.mode == "model" and not plan.alloc_only:
        # rank 0 must have injected BLAS time: otherwise xhpl's BLAS calls went
        # to another library (a real BLAS computing, silently)
        if end is not None and end[2] <= 0:
            raise CliError(f"rank 0's BLAS calls did not reach libsimblas (no time injected): another BLAS "
                           f"shadows it in {plan.xhpl}; rebuild with `simblas-hpl build --force` "
                           f"(files kept in {workdir})", 1, kept=workdir)
    hpl_time = res.get("hpl_time_precise_s", res.get("hpl_time_s"))  # patch 20's line, else HPL's two figures
    if plan.iterations and plan.sample_only is not None:
        # one pass of S (--engine): its log, for combine_passes; no estimate alone
        if not segs or end is None:
            raise extrapolation.no_iteration_log(workdir)
        summary["pass"] = {"index": plan.sample_only, "of": plan.samples or 1, "segs": segs, "end": end,
                           "hpl_time_s": hpl_time, "wall_s": wall}
        summary["iterations"] = plan.iterations
        summary["samples"] = plan.samples or 1
        summary["partial_gflops"] = summary.pop("gflops")
        summary["partial_hpl_time_s"] = summary.pop("hpl_time_s")
    elif plan.iterations:
        ex = extrapolation.extrapolate(segs, end, plan.n, plan.nb, plan.depth, hpl_time, wall,
                                       math.lcm(plan.p, plan.q))
        if ex is None:
            raise extrapolation.no_iteration_log(workdir)
        extrapolation.apply_extrapolation(summary, ex, plan)
    if plan.node:
        node_summary(plan, res, summary, workdir)
    if plan.alloc_only:
        summary["alloc_only"] = True
        for k in ("gflops", "hpl_time_s"):  # nothing was factored
            summary.pop(k, None)
    return summary


def node_summary(plan, res, summary, workdir):
    """--node: the composition, what the accelerators did and, with
    --energy, their energy.  SimGrid's energy plugin knows hosts only: a
    device draws its idle power the whole run and its busy power while it
    runs a call (libsimblas counts the device-seconds); a sampled run's busy
    time is scaled to the extrapolated HPL time."""
    comp = plan.node
    summary["node"] = comp.summary
    if comp.accelerators_per_node == 0:
        return
    off = res.get("offload")
    if off is None:
        raise CliError(f"--node: libsimblas printed no account of the accelerators (stderr in {workdir}/stderr.txt);"
                       " rebuild SimBLAS, or check that xhpl runs this libsimblas", 1, kept=workdir)
    off = dict(off)
    devices = comp.summary["accelerators"]["per_rank"] * plan.ranks
    scale = 1.0
    if plan.iterations and summary.get("partial_hpl_time_s"):
        scale = summary["extrapolated_hpl_time_s"] / summary["partial_hpl_time_s"]
        off["partial_busy_s"] = off["busy_s"]
        off["busy_s"] = off["busy_s"] * scale
    off["devices"] = devices
    t = summary.get("hpl_time_s") or 0
    if t and devices:
        off["busy_fraction"] = round(off["busy_s"] / (devices * t), 4)
    summary["offload"] = off
    if comp.accel_watts and plan.energy and "energy_j" in summary:
        idle, busy = comp.accel_watts
        setup = max(0.0, (summary.get("simulated_time_s") or 0) - (summary.get("partial_hpl_time_s") or t))
        span = t + setup if plan.iterations else (summary.get("simulated_time_s") or t)
        e_acc = devices * idle * span + (busy - idle) * off["busy_s"]
        summary["energy_hosts_j"] = summary["energy_j"]
        summary["energy_accelerators_j"] = round(e_acc, 3)
        summary["energy_j"] = round(summary["energy_j"] + e_acc, 3)
        summary["accelerator_wattage"] = [idle, busy]
