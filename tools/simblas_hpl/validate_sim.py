"""`validate`'s simulations: a column of simulated figures (Simulation: a
model file in model mode, or the real BLAS under SMPI in passthrough)
simulated on every configuration (simulate_configs), on a platform that
describes this machine: one host of its cores, the intra-node link."""

import dataclasses
import shutil
import tempfile
from typing import Optional

from .errors import note
from .launch import simulate
from .plan import RunOptions, make_plan


@dataclasses.dataclass
class Simulation:
    """One column of simulated figures: a model file (mode model) or the
    real BLAS under SMPI (mode passthrough)."""
    name: str
    mode: str
    model: Optional[str] = None
    network: Optional[str] = None   # run --network: a file, 'none', None (the installed one, if any)
    probe: Optional[str] = None     # run --probe (model mode): the real runs' MPI's (real_probe)


def simulate_configs(configs, sim, cores, workroot, build_id=None, timeout=None, log=note):
    """{label: {"gflops", "hpl_time_s", "wall_s"}} of sim on every config."""
    out = {}
    for i, c in enumerate(configs):
        plan = make_plan(RunOptions(n=c.n, nb=c.nb, p=c.p, q=c.q, cores_per_node=cores, mode=sim.mode,
                                    model=sim.model, hpl=c.hpl, build_id=build_id, timeout=timeout,
                                    network=sim.network, probe=sim.probe if sim.mode == "model" else None))
        d = tempfile.mkdtemp(prefix=f"sim-{i}-", dir=workroot)
        res = simulate(plan, d, quiet=True).summary
        shutil.rmtree(d, ignore_errors=True)
        out[c.label] = {"gflops": res["gflops"], "hpl_time_s": res["hpl_time_s"], "wall_s": res["wall_s"],
                        "network": (res.get("network") or {}).get("file")}
        if res.get("phases_s"):
            out[c.label]["phases_s"] = res["phases_s"]
        log(f"{sim.name}: {c.label}: {res['gflops']:g} Gflops (simulated in {res['wall_s']:.1f} s)")
    return out
