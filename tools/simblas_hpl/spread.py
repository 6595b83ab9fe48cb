"""One sampled run spread over the engine: `run --iterations K --samples S
--engine local|slurm` runs each of the S passes as its own job (a point,
points.py, whose plan runs pass s only: SIMBLAS_SAMPLE_ONLY), then combines
their iteration logs into the extrapolation the single-process run makes
(extrapolation.extrapolate_runs).  With K x S covering the loop it is a full
run in S jobs.

The run's directory (--keep DIR, else a temporary one) holds

    spread.json       the run's options: a resumed run must be the same run
    passes/pass-NNN/  one engine point per pass (its plan, result.json...)
    engine/           the Slurm job's script, list and task logs
    result.json       the combined summary, written atomically

Running the same command with the same --keep DIR again resumes: the
passes done are kept, the failed ones run again.
"""

import dataclasses
import json
import math
import os
import shutil
import tempfile
import time

from . import engine, extrapolation, points, settings, slurm
from .differences import changes
from .errors import CliError, note
from .files import sha256_of, write_atomic
from .plan import CONTENT_ADDED, content, make_dir

SPREAD_JSON, PASSES, SPOOL, RESULT = "spread.json", "passes", "engine", "result.json"
OTHERS_POLL_S = 5.0   # passes run by another command: how often to look


def check(plan, engine_name, keep):
    """The engine can spread this run: before anything is written."""
    check_args(plan.iterations, plan.samples, engine_name, keep)
    if plan.node and plan.node.accelerators_per_node:
        # a pass's summary would scale the accelerators' busy time to an
        # extrapolation it does not make (every pass failed, after its run)
        raise CliError(f"--engine {engine_name} with --node's accelerators: their busy time and energy are not "
                       "combined over the passes; drop --engine (one process runs the passes)")


def check_engine_args(engine_name, jobs, slurm_opt, jobs_with=("local",)):
    """--engine, -j and --slurm-opt, as run and tune take them: one line
    before anything else.  JOBS_WITH: the engines -j goes with (run: the
    passes at once on this machine; tune: the points at once, or per Slurm
    batch)."""
    if not engine_name:
        raise CliError("-j and --slurm-opt go with --engine local|slurm")
    if jobs is not None and jobs < 1:
        raise CliError(f"-j {jobs}: must be >= 1")
    if jobs is not None and engine_name not in jobs_with:
        raise CliError(f"-j {jobs}: goes with --engine {' or '.join(jobs_with)}")
    if slurm_opt and engine_name != "slurm":
        raise CliError("--slurm-opt goes with --engine slurm")


def check_args(iterations, samples, engine_name, keep):
    """--engine with --iterations K --samples S (and --keep for Slurm)."""
    if not iterations or not samples:
        raise CliError(f"--engine {engine_name} runs the passes of a sampled run as jobs of their own: give "
                       "--iterations K --samples S (K x S = N/NB or more for a full run in S jobs)")
    if engine_name == "slurm" and not keep:
        raise CliError("--engine slurm runs the passes on the cluster's nodes: give --keep DIR, a directory they "
                       "all see (the passes' files and results are kept there)")


def pass_plans(plan):
    return [dataclasses.replace(plan, sample_only=s, progress_every=0) for s in range(plan.samples)]


# identity's keys added after spread directories were made: a directory
# made before one is checked without it (and gets it when resumed)
ADDED = ("model_sha256", "platform_sha256", "hosts_sha256", "cores_per_node", "network_sha256", "node_sha256",
         "energy") + CONTENT_ADDED


def identity(plan):
    """What makes two spread runs the same run (spread.json): the options,
    and the content of what they name (the model file, a platform file, a
    network file, the composed node), the hosts the ranks run on (a random
    placement's draw) and the seed as the draws take it."""
    keep = ("n", "nb", "p", "q", "mode", "hpl", "speedup", "model", "xhpl", "hpl_code", "waits", "no_merge",
            "iprobe", "pivot_every", "roll_merge", "iterations", "samples", "malloc", "hugepages", "seed", "noise")
    ident = {k: getattr(plan, k) for k in keep}
    if plan.probe != settings.default("SIMBLAS_PROBE"):  # (spread directories made before --probe stay resumable)
        ident["probe"] = plan.probe
    ident["platform"] = plan.platform.spec
    ident["bw"], ident["lat"] = plan.platform.bw, plan.platform.lat
    ident["node_speeds"] = plan.node_speeds.file_text() if plan.node_speeds else None
    if plan.no_pivot_defer:  # (directories made before the option stay resumable)
        ident["no_pivot_defer"] = True
    ident["seed"] = settings.seed(plan.seed)
    ident.update(content(plan))
    ident["hosts_sha256"] = sha256_of("\n".join(plan.platform.hostlist))
    ident["cores_per_node"] = plan.platform.cores_per_node
    ident["energy"] = plan.energy
    return json.loads(json.dumps(ident, default=str))


def prepare(plan, d):
    """Write d's passes (the done ones kept); their directories."""
    make_dir(os.path.join(d, PASSES))
    ident = identity(plan)
    path = os.path.join(d, SPREAD_JSON)
    old = points._read_json(path)
    if old is not None:
        if old.get("seed", 0) is None:  # written before the default seed was one value
            old["seed"] = settings.seed(None)
        made_before = [k for k in ADDED if k not in old]
        old.update({k: ident[k] for k in made_before})
    if old is not None and old != ident:
        raise CliError(f"{d} holds the passes of another run ({', '.join(changes(old, ident)[:3])}): "
                       "their results would mix; give another --keep DIR, or remove it")
    write_atomic(path, json.dumps(ident, indent=2) + "\n")
    width = len(str(plan.samples - 1))
    dirs = []
    for p in pass_plans(plan):
        pd = os.path.join(d, PASSES, f"pass-{p.sample_only:0{width}d}")
        if points.state(pd) not in ("done", "running", "queued"):
            points.write_point(pd, p, {"pass": p.sample_only, "of": plan.samples})
        dirs.append(pd)
    return dirs


def wait_others(dirs, say):
    """Passes running or queued elsewhere (another command, a Slurm job
    submitted before): wait for them."""
    said = False
    while True:
        st = points.states(dirs)
        busy = [d for d in dirs if st[d] in ("running", "queued")]
        if not busy:
            return st
        if not said:
            say(f"waiting for {len(busy)} pass(es) run elsewhere (^C leaves them running)")
            said = True
        try:
            time.sleep(OTHERS_POLL_S)
        except KeyboardInterrupt:
            raise CliError("stopped waiting: the passes run elsewhere go on; run the same command again to "
                           "collect them", 130)


def combine(plan, summaries):
    """The passes' summaries (in pass order) -> the run's summary."""
    runs = [s["pass"] for s in summaries]
    ex = extrapolation.extrapolate_runs(runs, plan.n, plan.nb, plan.depth, math.lcm(plan.p, plan.q))
    if ex is None:
        raise CliError("the passes' iteration logs give no estimate (a pass without a counted iteration); "
                       f"their files: {os.path.dirname(summaries[0].get('run_dir') or '.')}", 1)
    last = summaries[-1]
    out = {k: v for k, v in last.items() if k not in ("pass", "run_dir", "partial_gflops", "partial_hpl_time_s")}
    out["gflops"], out["hpl_time_s"] = last["partial_gflops"], last["partial_hpl_time_s"]
    walls = [s["wall_s"] for s in summaries]
    cpus = [s.get("cpu_s") for s in summaries]
    out["wall_s"] = max(walls)  # the slowest pass: what S free cores take
    for k in ("peak_rss_mb", "peak_vm_gib", "peak_mappings", "max_rss_mb"):
        vals = [s[k] for s in summaries if isinstance(s.get(k), (int, float))]
        if vals:
            out[k] = max(vals)
    if "energy_j" in last:  # the passes' mean power over their simulated time
        sim = sum(s.get("simulated_time_s") or 0 for s in summaries)
        for k in ("energy_j", "energy_used_hosts_j", "energy_idle_hosts_j"):
            out[k] = sum(s[k] for s in summaries)
        out["energy_per_host_j"] = {h: sum(s["energy_per_host_j"].get(h, 0) for s in summaries)
                                    for h in last["energy_per_host_j"]}
        out["simulated_time_s"] = sim
        out["avg_power_w"] = out["energy_j"] / sim if sim else None
    # the set-up outside HPL's time, once (not the other passes' time too)
    setup = max(0.0, (last.get("simulated_time_s") or 0) - last["partial_hpl_time_s"])
    extrapolation.apply_extrapolation(out, ex, plan, setup_s=setup)
    out["engine"] = {
        "jobs": len(summaries),
        "slowest_job_wall_s": round(max(walls), 3),
        "total_wall_s": round(sum(walls), 3),
        "total_cpu_s": round(sum(c for c in cpus if c is not None), 3) if any(c is not None for c in cpus) else None,
        "job_wall_s": [round(w, 3) for w in walls],
    }
    return out


def run(plan, engine_name, jobs, slurm_opts, keep, say=note):
    """Run plan's passes on the engine and combine them: (the summary, the
    directory: keep's, else a temporary one for the caller to remove)."""
    check(plan, engine_name, keep)
    slurm.slurm_options(slurm_opts)
    if engine_name == "slurm":
        slurm.check_slurm()
    d = os.path.abspath(keep) if keep else tempfile.mkdtemp(prefix="simblas-hpl-spread-")
    dirs = prepare(plan, d)
    say(f"{plan.samples} passes of {plan.iterations} iteration(s), one job each (--engine {engine_name}), in {d}")
    try:
        engine.run_points(dirs, engine_name, jobs=jobs, slurm_opts=slurm_opts, wait=True,
                          spool=os.path.join(d, SPOOL), say=say,
                          follow=f"run the same command again (--keep {d}) to collect its passes")
        st = wait_others(dirs, say)
    except CliError as e:
        if not keep and any(points.state(x) == "done" for x in dirs):
            raise CliError(f"{e} (the passes done are kept in {d}: run again with --keep {d} to resume)", e.status)
        if not keep:
            shutil.rmtree(d, ignore_errors=True)
        raise
    failed = [x for x in dirs if st[x] != "done"]
    if failed:
        why = "; ".join(f"{os.path.basename(x)}: {((points.failure(x) or {}).get('message') or st[x]).splitlines()[0]}"
                        f" ({os.path.join(x, points.FAILED_TAIL)})" for x in failed[:3])
        raise CliError(f"{len(failed)} of {plan.samples} passes did not finish ({why}); run the same command "
                       f"with --keep {d} to run them again", 1, kept=d)
    summary = combine(plan, [points.result(x) for x in dirs])
    summary["run_dir"] = d if keep else None
    write_atomic(os.path.join(d, RESULT), json.dumps(summary, indent=2) + "\n")
    return summary, d
