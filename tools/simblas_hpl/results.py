"""What a run gives: HPL's output parsed, the extrapolation of a sampled
run, the summary (the JSON object), and the JSON and CSV writers."""

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

from .errors import CliError
from .files import read_text, write_atomic


RESULT_RE = re.compile(r"^(W[RC]\S*)\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s+(\S+)\s+(\S+)\s*$", re.M)
RESIDUAL_RE = re.compile(r"^\|\|Ax-b\|\|_oo/\(eps.*=\s*(\S+)\s*\.+\s*(PASSED|FAILED)", re.M)
SIMTIME_RE = re.compile(r"Simulated time: (\S+) seconds")
ENERGY_RE = re.compile(r"Total energy consumption: (\S+) Joules \(used hosts: (\S+) Joules; unused/idle hosts: (\S+)\)")
HOST_ENERGY_RE = re.compile(r"Energy consumption of host (\S+): (\S+) Joules")
SKIPPED_RE = re.compile(r"(\d+) tests? skipped because of illegal input values")


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
        except ValueError:
            pass
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
    e = ENERGY_RE.search(both)
    if e:
        res["energy_j"] = float(e.group(1))
        res["energy_used_hosts_j"] = float(e.group(2))
        res["energy_idle_hosts_j"] = float(e.group(3))
        res["energy_per_host_j"] = {h: float(j) for h, j in HOST_ENERGY_RE.findall(both)}
    return res


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


# ---- --iterations / --samples: extrapolating the full run (doc/scale.md) ---
def read_iter_log(path):
    """The iteration log libsimblas writes (SIMBLAS_ITER_LOG): passes of marks and the
    end mark (simulated s, wall s, rank 0's BLAS s injected)."""
    segs, end = [], None
    for line in read_text(path).splitlines():
        f = line.split()
        if not f:
            continue
        if f[0] == "seg":
            segs.append({"start": int(f[2]), "total": int(f[3]), "marks": []})
        elif f[0] == "iter" and segs:
            segs[-1]["marks"].append((int(f[1]), float(f[2]), float(f[3]), float(f[4])))
        elif f[0] == "end":
            end = (float(f[2]), float(f[3]), float(f[4]))
    return segs, end


def extrapolate(segs, end, n, nb, depth, hpl_time, wall, period=1):
    """The full run's HPL time and wall time from the sampled iterations.

    Each pass gives per-iteration costs (simulated and wall seconds) at
    trailing sizes x = (N - i NB) / N.  The first `depth` iterations of a
    pass prime the look-ahead and are left out; at depth 0, so is the first
    iteration of a pass that jumped into the middle of the loop (every rank
    enters it at once, with none of the overlap of a running loop: up to
    +33% on Stampede's last stratum), when the pass has another.  So are the first
    ones beyond a whole number of periods lcm(P, Q) when the pass has one
    (an iteration's cost cycles with the owner of its panel).
    HPL's per-iteration cost has a part that shrinks with the trailing
    update (quadratic in x) and a part that does not (panel factorization
    latency, messages).  Without look-ahead (depth 0) the two add up: rank
    0's BLAS time per iteration is taken as the first, scaled by x^2 from
    the pass's mean x^2, the rest of the iteration as constant.  With
    look-ahead the update hides behind the next panel's factorization and
    the cost is not a sum; a pass's mean cost stands for its iterations.
    Wall time per iteration as constant.
     - S >= 2 passes (--samples): stratified sampling.  Pass s sits in the
       middle of the s-th of S equal strata of the panel loop and stands
       for the stratum's iterations (at depth 0 the quadratic part corrects
       what a stratum's midpoint misses of the cost's curvature).
     - 1 pass (the first K iterations): the sum model over the whole loop,
       at any depth (a pass's mean cannot stand for the whole loop).
    What is outside the panel loop (set-up, the solve, finalization) is
    measured, not modelled.
    """
    total = -(-n // nb)
    skip = []
    for sg in segs:
        span = sg["marks"][-1][0] - sg["marks"][0][0] if sg["marks"] else 0
        first = max(depth, 1) if sg["start"] > 0 else depth
        skip.append(first if span > first else depth)
    pts = []  # (pass, x, simulated s, wall s, BLAS s) per steady iteration
    for k, sg in enumerate(segs):
        mk = sg["marks"]
        for (i0, s0, w0, b0), (i1, s1, w1, b1) in zip(mk, mk[1:]):
            if i0 < sg["start"] + skip[k] or i1 <= i0:
                continue
            for i in range(i0, i1):
                pts.append((k, (n - i * nb) / n, (s1 - s0) / (i1 - i0), (w1 - w0) / (i1 - i0),
                            (b1 - b0) / (i1 - i0)))
    # the cost of an iteration cycles with the owner of its panel (period
    # lcm(P, Q)): a pass keeps a whole number of periods when it has one
    kept = []
    for k in range(len(segs)):
        mine = [p for p in pts if p[0] == k]
        kept += mine[len(mine) % period:] if len(mine) >= period else mine
    pts = kept
    if not pts or end is None:
        return None
    first = min((mk for sg in segs for mk in sg["marks"]), key=lambda m: m[1])
    def stand_for(mine, lo, hi):
        """Simulated and wall seconds of iterations lo..hi-1 from one pass's
        points, and the pass's mean simulated and wall seconds per iteration."""
        xbar2 = sum(p[1] * p[1] for p in mine) / len(mine)
        bbar = sum(p[4] for p in mine) / len(mine)
        tbar = sum(p[2] for p in mine) / len(mine)
        wbar = sum(p[3] for p in mine) / len(mine)
        rest = max(0.0, tbar - bbar)
        if depth > 0 and len(segs) > 1:
            t = (hi - lo) * tbar
        else:
            t = sum(rest + bbar * ((n - i * nb) / n) ** 2 / xbar2 for i in range(lo, hi))
        return t, (hi - lo) * wbar, tbar, wbar

    S = len(segs)
    loop_t_model = loop_w_model = 0.0
    strata = []  # what each pass measured and the part of the loop it stands for
    for k in range(S):
        mine = [p for p in pts if p[0] == k]
        if not mine:
            return None
        lo, hi = (k * total // S, (k + 1) * total // S) if S > 1 else (0, total)
        t, w, tbar, wbar = stand_for(mine, lo, hi)
        loop_t_model += t
        loop_w_model += w
        strata.append({"first_iteration": segs[k]["start"], "counted": len(mine),
                       "per_iteration_s": round(tbar, 6), "per_iteration_wall_s": round(wbar, 6),
                       "stands_for": [lo, hi], "stands_for_s": round(t, 4)})
    ts, ws = [p[2] for p in pts], [p[3] for p in pts]

    loop_t, loop_w = end[0] - first[1], end[1] - first[2]
    t = hpl_time - loop_t + loop_t_model
    w = wall - loop_w + loop_w_model
    flops = (2.0 / 3.0 * n + 1.5) * n * n
    return {
        "iterations_done": sum(sg["marks"][-1][0] - sg["marks"][0][0] for sg in segs if sg["marks"]),
        "iterations_total": total,
        "samples": len(segs),
        "per_iteration_s": sum(ts) / len(ts),
        "per_iteration_wall_s": sum(ws) / len(ws),
        "extrapolated_wall_s": round(w, 3),
        "extrapolated_hpl_time_s": t,
        "extrapolated_gflops": flops / t / 1e9,
        "strata": strata,
    }


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
        raise CliError(f"{opt} {path} is a directory: give a file name (e.g. {os.path.join(path, 'run.' + opt[2:])})")
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


def write_outputs(summary, json_path=None, csv_path=None, keep_in=None):
    """Write --json and --csv.  What cannot be written (a disk full since the
    check) loses nothing: the summary is kept in keep_in/summary.json, and
    CliError (status 1) says where; the caller must then leave keep_in."""
    failed = []
    for opt, path, write in (("--json", json_path, write_json), ("--csv", csv_path, append_csv)):
        if path:
            try:
                write(path, summary)
            except OSError as e:
                failed.append(f"{opt} {path} ({e.strerror or e})")
    if not failed:
        return
    kept = os.path.join(keep_in, "summary.json") if keep_in else None
    try:
        write_json(kept, summary)
    except (OSError, TypeError):
        kept = None
    where = f"kept in {kept}" if kept else "on stdout only (it could not be written anywhere)"
    raise CliError(f"could not write {' or '.join(failed)}: the result, printed above, is {where}", 1,
                   kept=keep_in if kept else None)


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
        "hosts": platform.hosts, "cores_per_node": platform.cores_per_node, "mode": plan.mode,
        "gflops": res.get("gflops"), "hpl_time_s": res.get("hpl_time_s"),
        "simulated_time_s": res.get("simulated_time_s"), "wall_s": round(wall, 3),
        "peak_rss_mb": round(sampler.peak_kb / 1024.0, 1), "peak_rss_method": "sampled Pss (smaps_rollup)",
        "peak_vm_gib": round(sampler.peak_vm_kb / 2**20, 1), "peak_mappings": sampler.peak_maps,
        "max_rss_mb": round(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024.0, 1),
        "tv": res.get("tv"), "result_line": res.get("result_line"),
        "platform": platform.spec, "speedup": plan.speedup,
        "reference_speed": plan.reference_speed, "host_speed": plan.host_speed,
        "bw": platform.bw, "lat": platform.lat, "model": plan.model, "xhpl": plan.xhpl, "build": plan.build,
        "hpl": plan.hpl, "model_nominal": plan.model_nominal,
    }
    if plan.mode == "model":
        summary["hpl_code"] = plan.hpl_code
        # who charged HPL's own code: SimBLAS (SIMBLAS_CODE_CLOCK), SMPI, nobody
        summary["hpl_code_timer"] = ("simblas" if plan.code_clock else
                                     "smpi" if plan.hpl_code == "timed" else None)
        summary["waits"] = plan.waits
        summary["malloc"] = plan.malloc
        summary["pivot_every"] = plan.pivot_every or 1
        summary["roll_merge"] = 1 if plan.roll_merge is None else plan.roll_merge
        summary["hugepages"] = plan.hugepages
        summary["seed"] = 1 if plan.seed is None else plan.seed
        summary["noise"] = plan.noise
        summary["node_speed"] = plan.node_speeds.summary() if plan.node_speeds else None
        if plan.hugepages:
            summary["peak_hugetlb_mb"] = round(sampler.peak_huge_kb / 1024.0, 1)
            summary["peak_rss_method"] += " + the machine's huge pages in use beyond the start's"
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
    if plan.iterations:
        ex = extrapolate(segs, end, plan.n, plan.nb, plan.depth, res["hpl_time_s"], wall,
                         math.lcm(plan.p, plan.q))
        if ex is None:
            raise CliError(f"--iterations: libsimblas wrote no usable iteration log ({workdir}/iterations.log); "
                           "rebuild HPL with this SimBLAS: simblas-hpl build --force", 1, kept=workdir)
        summary.update(ex)
        summary["iterations"] = plan.iterations
        summary["solve"] = "skipped" if plan.skips_solve else "measured"
        summary["partial_gflops"] = summary.pop("gflops")
        summary["partial_hpl_time_s"] = summary.pop("hpl_time_s")
        summary["gflops"] = round(ex["extrapolated_gflops"], 4)
        summary["hpl_time_s"] = round(ex["extrapolated_hpl_time_s"], 4)
        summary["extrapolated_gflops"] = round(ex["extrapolated_gflops"], 4)
        summary["extrapolated_hpl_time_s"] = round(ex["extrapolated_hpl_time_s"], 4)
        summary["per_iteration_s"] = round(ex["per_iteration_s"], 6)
        summary["per_iteration_wall_s"] = round(ex["per_iteration_wall_s"], 6)
        if "energy_j" in summary:
            # the plugin measured the simulated part only: its figures become
            # partial_*, and the run's energy is extrapolated at the average
            # power of that part (setup included) over the extrapolated time
            for k in ("energy_j", "energy_used_hosts_j", "energy_idle_hosts_j", "energy_per_host_j"):
                summary["partial_" + k] = summary.pop(k)
            setup = max(0.0, (summary.get("simulated_time_s") or 0) - summary["partial_hpl_time_s"])
            if summary.get("avg_power_w"):
                summary["energy_j"] = summary["extrapolated_energy_j"] = round(
                    summary["avg_power_w"] * (ex["extrapolated_hpl_time_s"] + setup), 3)
    if plan.alloc_only:
        summary["alloc_only"] = True
        for k in ("gflops", "hpl_time_s"):  # nothing was factored
            summary.pop(k, None)
    return summary
