"""Running a RunPlan: the run directory's files, smpirun's command and
environment (doc/user-guide.md, "What smpirun is given"), the simulator's
process, and its result.

simulate(plan, workdir) is the whole of it, for one run: the `run` verb
calls it, and so can a study, from a process pool or inside a batch job
(it takes the plan and a directory, returns a RunResult or raises
CliError, and leaves the directory to its caller).
"""

import fcntl
import os
import re
import resource
import shlex
import signal
import subprocess
import threading
import time

from . import extrapolation, hpldat, network, platforms, procs, results, settings, signals, variability
from .errors import CliError, Terminated, note
from .files import read_text, tail_lines
from .memory import fold_block, max_map_count
from .monitor import Progress, PssSampler
from .units import fmt_speed

IPROBE_CPU_USAGE = 0.8      # smpi/iprobe-cpu-usage: polling load (188 W vs 214 W HPL, seed 000)
SPIN_GROWTH = 16            # --waits poll: the k-th failed poll of a spin-wait costs (1 + 16 k) x the poll cost,
SPIN_MAX_S = 1e-5           # and at most 10 us
STALE = ("hpccoutf.txt", "HPL.out", "stdout.txt", "stderr.txt", "iterations.log")
NODE_FILE = "simblas.node"  # --node: the node file libsimblas reads (SIMBLAS_NODE)
HOST_FACTORS = "host-factors.txt"  # --node-spread, --slow-nodes, --node-speeds: SIMBLAS_HOST_FACTORS
# what a run writes in its directory (write_run_files, the simulator's outputs)
RUN_FILES = ("HPL.dat", "hpccinf.txt", "hostfile", "platform.xml", "run.sh", NODE_FILE, HOST_FACTORS) + STALE
RUN_MARK = "# written by simblas-hpl: the simulation, as run"  # run.sh's second line
HOLD_FD_MIN = 100           # simulate(hold_fd=): the simulator inherits it at this number or above


def spin_polls(plan):
    """HPL's spin-waits poll: passthrough (plain HPL), or --waits poll."""
    return plan.mode != "model" or plan.waits == "poll"


def poll_settings(plan):
    """Who charges a failed poll.  SMPI's smpi/iprobe multiplies its cost
    by ONE count of failed polls shared by all ranks (smpi/grow-injected-
    times): at 1,024 ranks a poll cost milliseconds and HPL's simulated time
    doubled.  libsimblas_pmpi's wrappers charge it with a count per rank
    instead (SIMBLAS_POLL_COST), and SMPI's own is turned off."""
    cost = plan.poll_cost
    if plan.per_rank_polls:
        return ["smpi/iprobe:0", "smpi/test:0"], {
            "SIMBLAS_POLL_COST": f"{cost:g}",
            # the polling load matters to the energy only; at 1 it merges
            # into the rank's pending injection (one simulator event fewer)
            "SIMBLAS_POLL_USAGE": f"{IPROBE_CPU_USAGE:g}" if plan.energy else "1",
            # spin-waits that poll back off faster (rung 1: 14 s of wall
            # instead of 38 s at growth 1) ...
            "SIMBLAS_POLL_GROWTH": str(SPIN_GROWTH) if spin_polls(plan) else "1",
            # ... but no poll of theirs costs more than SPIN_MAX_S, so that a
            # panel is seen at most that late (N=8000 4x4: uncapped, the
            # back-off cost 1.1-1.4% of the Gflops, capped at 0.1 ms up to
            # 1.3% depending on the model, at 10 us 0.01%)
            **({"SIMBLAS_POLL_MAX": f"{SPIN_MAX_S:g}"} if spin_polls(plan) else {})}
    return [f"smpi/iprobe:{cost:g}", f"smpi/test:{cost:g}"], {}


def smpirun_command(plan):
    cfg = [
        # model mode: no privatization (the patched HPL keeps its timers per
        # rank; SMPI's mmap privatization needs an open file per rank, its
        # dlopen privatization a copy of the binary and its mappings per
        # rank: neither scales to 10^4 ranks); passthrough runs plain HPL
        f"smpi/privatization:{'no' if plan.mode == 'model' else 'dlopen'}",
        "contexts/guard-size:0",  # a guard page splits each stack's mapping
        f"smpi/shared-malloc-blocksize:{plan.blocksize}",
        *poll_settings(plan)[0],
        f"smpi/iprobe-cpu-usage:{IPROBE_CPU_USAGE:g}",
        f"smpi/host-speed:{fmt_speed(plan.reference_speed)}",
        "smpi/display-timing:yes",
    ]
    if plan.mode == "model" and (plan.hpl_code == "free" or plan.code_clock):
        cfg.append("smpi/simulate-computation:no")
    if plan.alloc_only:
        cfg.append("network/model:Constant")  # timing is not the point: no network to solve
        # no detached (eager) sends: SimGrid keeps the detached ones in flight
        # in one list and removes each from it by a linear search, quadratic
        # in the ranks (27 s -> 10 s of set-up at 16,400 ranks)
        cfg.append("smpi/send-is-detached-thresh:0")
    if plan.hugepages:
        cfg.append(f"smpi/shared-malloc-hugepage:{plan.hugepages}")  # SMPI's panel buffers
    if plan.energy:
        cfg.append("plugin:host_energy")
    cfg += network_cfg(plan)
    cmd = [plan.smpirun, "-np", str(plan.ranks), "-platform", "platform.xml", "-hostfile", "hostfile"]
    cmd += [f"--cfg={c}" for c in cfg]
    cmd += ["--log=root.thres:warning", "--log=smpi_utils.thres:info"]
    if plan.energy:
        cmd.append("--log=host_energy.thres:info")
    cmd.append(plan.xhpl)
    return cmd


def factors_link(plan):
    """The network file's link whose piecewise factors the run takes
    (simblas-calibrate --network); None without a file (SimGrid's
    defaults) or with --alloc-only (no network solved)."""
    if not plan.network or plan.alloc_only:
        return None
    return network.factors_link(plan.network, plan.platform.hosts_used)[1]


def network_cfg(plan):
    """SMPI's piecewise factors (factors_link), as smpirun's --cfg."""
    link = factors_link(plan)
    return [f"smpi/lat-factor:{link.lat_factor}", f"smpi/bw-factor:{link.bw_factor}"] if link else []


def mode_env(mode, no_merge):
    """SIMBLAS_MODE and SIMBLAS_MERGE for a run's --mode and --no-merge."""
    return {"SIMBLAS_MODE": "smpi" if mode == "model" else "passthrough",
            # a rank's consecutive BLAS durations reach SimGrid as one injection
            # at its next MPI call: fewer simulator events, same simulated time
            "SIMBLAS_MERGE": "0" if no_merge or mode != "model" else "1"}


def run_env(plan, workdir):
    """The variables smpirun gets beyond the caller's environment."""
    mode = mode_env(plan.mode, plan.no_merge)
    env = {
        "SIMBLAS_MODE": mode["SIMBLAS_MODE"],
        "SIMBLAS_MODEL": plan.model,
        "SIMBLAS_MERGE": mode["SIMBLAS_MERGE"],
        "OPENBLAS_NUM_THREADS": "1",
        "OMP_NUM_THREADS": "1",
        "TMPDIR": os.path.join(workdir, "tmp"),
    }
    env.update(poll_settings(plan)[1])
    link = factors_link(plan)
    if link:  # libsimblas's message times (simblas_message_time) with SMPI's factors
        env["SIMBLAS_LAT_FACTOR"] = link.lat_factor
        env["SIMBLAS_BW_FACTOR"] = link.bw_factor
    if plan.probe == "lagged":
        env["SIMBLAS_PROBE"] = "lagged"  # a message is seen one MPI_Iprobe later, as Open MPI sees it
    if plan.mode == "model" and plan.waits == "block":
        env["SIMBLAS_BLOCKING_WAITS"] = "1"  # patch 12: HPL's spin-waits receive blocking
    if plan.mode == "model" and not plan.energy and plan.platform.own_core:
        # a rank's owed waits (thinned pivot exchanges) join its next
        # injection: one simulator event fewer, the same clock on a core of
        # its own; only the energy tells idle from busy
        env["SIMBLAS_IDLE_MERGE"] = "1"
    if plan.no_pivot_defer:
        env["SIMBLAS_PIVOT_DEFER"] = "0"  # the thinned exchanges' barriers met in the simulator
    if plan.pivot_every:
        env["SIMBLAS_PIVOT_EVERY"] = str(plan.pivot_every)  # patch 13: thinned pivot search
    if plan.roll_merge is not None and plan.roll_merge != 1:
        env["SIMBLAS_ROLL_MERGE"] = str(plan.roll_merge)  # patch 14: merged rolls
    if plan.hugepages:
        env["SIMBLAS_HUGEPAGE_DIR"] = plan.hugepages  # the matrix's fold block
    if plan.node:
        env["SIMBLAS_NODE"] = os.path.join(workdir, NODE_FILE)  # --node, composed (write_run_files)
    if plan.seed is not None:
        env["SIMBLAS_SEED"] = str(plan.seed)  # the ranks' random streams (--noise)
    if plan.noise:
        env["SIMBLAS_NOISE"] = "1"  # each kernel drawn from the model's noise
    if plan.node_speeds or plan.occupancy or plan.occupancy_memory:
        env["SIMBLAS_HOST_FACTORS"] = os.path.join(workdir, HOST_FACTORS)  # every kernel of a host / its factor
    if fold_block(plan.blocksize) != settings.default("SIMBLAS_FOLD_BLOCK"):  # a multiple of SMPI's
        env["SIMBLAS_FOLD_BLOCK"] = str(plan.blocksize)
    if plan.mode == "model":
        # without privatization smpimain dlopens xhpl into the global scope,
        # where SimGrid's own dependencies (GSL's CBLAS, via ns-3) come
        # before xhpl's: preload SimBLAS so that its BLAS and MPI wrappers win
        pre = [os.path.join(plan.libdir, "libsimblas_pmpi.so"), os.path.join(plan.libdir, "libsimblas.so")]
        if plan.freeclock:
            pre.append(plan.freeclock)  # SMPI's unused CPU clock, without system calls
        if plan.code_clock:
            env["SIMBLAS_CODE_CLOCK"] = "1"  # HPL's own code, timed by SimBLAS
        if plan.malloc_lib:
            pre.append(plan.malloc_lib)  # SimGrid's per-message allocations
        if plan.preload:
            pre.append(plan.preload)
        env["LD_PRELOAD"] = ":".join(pre)
        env["SIMBLAS_ITER_LOG"] = os.path.join(workdir, "iterations.log")
        if plan.alloc_only:
            env["SIMBLAS_ITERATIONS"] = "0"
        elif plan.iterations:
            env["SIMBLAS_ITERATIONS"] = str(plan.iterations)
            env["SIMBLAS_SAMPLES"] = str(plan.samples or 1)
            if plan.sample_only is not None:
                env["SIMBLAS_SAMPLE_ONLY"] = str(plan.sample_only)  # one pass of the S (--engine)
            if plan.skips_solve:
                env["SIMBLAS_SKIP_SOLVE"] = "1"
    settings.check_env(env)  # every variable a row of lib/settings.def, its value one libsimblas takes
    return env


def shell_line(cmd, env, workdir):
    return (f"cd {shlex.quote(workdir)} && env " + " ".join(f"{k}={shlex.quote(v)}" for k, v in env.items())
            + " " + " ".join(shlex.quote(c) for c in cmd))


def host_factors_text(plan):
    """SIMBLAS_HOST_FACTORS's file: each host's node speed (--node-spread,
    --slow-nodes, --node-speeds) times its occupancy factor (a host with
    idle cores, the model's meta solo_speed), and for its memory kernels
    times the memory occupancy factor (meta solo_speed_memory) where the
    model has one."""
    node = dict(plan.node_speeds.factors) if plan.node_speeds else {}
    speeds = dict(node)
    for h, f in (plan.occupancy or {}).items():
        speeds[h] = node.get(h, 1.0) * f
    memory = {h: node.get(h, 1.0) * f for h, f in (plan.occupancy_memory or {}).items()}
    for h in memory:
        speeds.setdefault(h, node.get(h, 1.0))
    return variability.factors_file_text(speeds, memory)


def write_run_files(plan, workdir, cmd, env):
    """HPL.dat (and hpccinf.txt), hostfile, platform.xml, run.sh; the
    previous run's outputs removed.  Returns run.sh's command line."""
    os.makedirs(os.path.join(workdir, "tmp"), exist_ok=True)
    dat = hpldat.hpl_dat(plan.n, plan.nb, plan.p, plan.q, plan.hpl)
    for name in ("HPL.dat", "hpccinf.txt"):  # hpccinf.txt: HPCC's HPL reads that name
        with open(os.path.join(workdir, name), "w") as f:
            f.write(dat)
    for stale in STALE:
        try:
            os.unlink(os.path.join(workdir, stale))
        except FileNotFoundError:
            pass
    platforms.write_files(plan.platform, workdir, plan.host_speed, plan.energy, plan.alloc_only)
    if plan.node:
        with open(os.path.join(workdir, NODE_FILE), "w") as f:
            f.write(plan.node.text)
    if plan.node_speeds or plan.occupancy or plan.occupancy_memory:
        with open(os.path.join(workdir, HOST_FACTORS), "w") as f:
            f.write(host_factors_text(plan))
    line = shell_line(cmd, env, workdir)
    with open(os.path.join(workdir, "run.sh"), "w") as f:
        f.write(f"#!/bin/sh\n{RUN_MARK}\n" + line + "\n")
    os.chmod(os.path.join(workdir, "run.sh"), 0o755)
    return line


def foreign_run_files(workdir):
    """The files of workdir that a run would replace when no simblas-hpl
    run wrote them (its run.sh has RUN_MARK): [] when it is a run's
    directory, new or empty."""
    present = [n for n in RUN_FILES if os.path.lexists(os.path.join(workdir, n))]
    try:
        with open(os.path.join(workdir, "run.sh")) as f:
            if RUN_MARK in f.read(4096).splitlines():
                return []
    except (OSError, UnicodeDecodeError):
        pass
    return present


def check_workdir(workdir, opt="--keep", what="run"):
    if any(c.isspace() for c in workdir):
        raise CliError(f"the {what} directory {workdir!r} contains white space, which smpirun cannot handle; "
                       f"use {opt} DIR without spaces")
    if "," in workdir:  # SimGrid splits its options (TMPDIR's too) at commas
        raise CliError(f"the {what} directory {workdir!r} contains a comma, at which SimGrid splits its options; "
                       f"use {opt} DIR without commas")


def prepare_rundir(plan, workdir, quiet=False):
    """Write the run's files in workdir; (command, environment, run.sh's line)."""
    check_workdir(workdir)
    cmd = smpirun_command(plan)
    env = run_env(plan, workdir)
    line = write_run_files(plan, workdir, cmd, env)
    # a warning only once everything checked out: an error stays one line
    if plan.model_nominal and plan.mode == "model" and not quiet:
        note(f"warning: {plan.model} is the nominal model (made-up rates, not measured on any machine), "
             "so the simulated times are not this machine's: run `make calibrate` in the SimBLAS build "
             "tree (or simblas-calibrate -o FILE and --model FILE) first")
    if plan.iterations and (plan.samples or 1) == 1 and not quiet:
        note(f"warning: --iterations {plan.iterations} without --samples extrapolates from the run's first "
             "iterations, whose cost does not show how the later ones fall (4-28% off on Gflops in the "
             "small-scale validation, doc/scale.md); --samples S spreads S passes over the run (within 2%)")
    return cmd, env, line


def stop_group(proc):
    """Stop the simulator's process group: SIGTERM, then SIGKILL to what is
    left of it once smpirun has gone (smpimain, which smpirun's trap only
    sends SIGTERM, may outlive it and would run on, orphaned) or after 5 s."""
    try:
        os.killpg(proc.pid, signal.SIGTERM)
    except ProcessLookupError:
        return
    try:
        proc.wait(timeout=5)
    except subprocess.TimeoutExpired:
        pass
    end_group(proc)
    try:
        proc.wait(timeout=5)
    except subprocess.TimeoutExpired:
        pass


def end_group(proc, wait_s=5):
    """SIGKILL to what is left of the simulator's process group (its leader,
    smpirun, waited for or not), and wait up to wait_s for it to be gone:
    nothing of a run outlives it, nor holds what it inherited (hold_fd)."""
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        return
    deadline = time.monotonic() + wait_s
    while procs.group_lives(proc.pid) and time.monotonic() < deadline:
        time.sleep(0.01)


ERROR_RE = re.compile(r"\[[\w./-]+/(?:CRITICAL|ERROR)\]|^simblas: |^HPL ERROR|^\S+: error", re.M)
OUT_OF_ADDRESS_SPACE_RE = re.compile(r"Failed to allocate|Cannot allocate memory|callocation of \d+ bytes failed")


def stderr_excerpt(err, n=15):
    """The last n lines of smpirun's stderr, and its first error line before
    them when they do not hold it (a backtrace pushes it out)."""
    tail = tail_lines(err, n)
    m = ERROR_RE.search(err)
    first = err[err.rfind("\n", 0, m.start()) + 1:].split("\n", 1)[0].rstrip() if m else None
    if first and first not in tail:
        return f"--- first error on stderr ---\n{first}\n--- last lines of stderr ---\n{tail}"
    return "--- last lines of stderr ---\n" + tail


def address_space_hint(err):
    """The remedy when an allocation failed under `ulimit -v`: SMPI's own
    message ("Run sysctl vm.overcommit_memory=1") does not apply there."""
    limit = resource.getrlimit(resource.RLIMIT_AS)[0]
    if limit == resource.RLIM_INFINITY or not OUT_OF_ADDRESS_SPACE_RE.search(err):
        return ""
    return (f"The address space is limited (ulimit -v {limit >> 10}, in KiB): SMPI and SimBLAS reserve far more "
            "address space than the memory they use, and the simulation ran out of it (whatever SMPI says of "
            "vm.overcommit_memory); raise the limit with: ulimit -v unlimited")


def start_monitors(plan, env, quiet):
    """The memory sampler and, with --progress, the progress thread, started
    before the simulator: a machine that refuses a new thread (a low
    vm.max_map_count: "can't start new thread") stops the run before it
    begins, with one line."""
    sampler = PssSampler(hugetlb=bool(plan.hugepages))
    progress = None
    if plan.progress_every > 0 and not quiet and "SIMBLAS_ITER_LOG" in env:
        total = plan.panel_iterations
        if plan.iterations:
            total = min(total, plan.iterations * (plan.samples or 1))
        progress = Progress(env["SIMBLAS_ITER_LOG"], total, plan.progress_every)
    try:
        for t in filter(None, (sampler, progress)):
            t.start()
    except RuntimeError as e:
        sampler.stop()
        raise CliError(f"cannot start a thread to watch the simulation ({e}): this machine refuses new threads; "
                       f"check vm.max_map_count (now {max_map_count()}; raise it with: sysctl -w "
                       "vm.max_map_count=262144) and the process limit (ulimit -u)")
    return sampler, progress


def build_said(plan):
    """Which HPL the run uses, for the line that starts it."""
    b = plan.build
    if not b:
        return f"HPL {plan.xhpl}"
    how = {"default": "the default", "SIMBLAS_HPL_BUILD": "from SIMBLAS_HPL_BUILD"}.get(b.chosen_by)
    return f"HPL build {b.id}" + (f" ({how}; built {b.built})" if how else f" (built {b.built})")


def inheritable_copy(fd):
    """() or (a copy of fd that smpirun passes on to smpimain): smpirun
    uses descriptor 3 for itself (exec 3<&0 ... 3>&-), and a shell script
    may use any low one, so the copy is numbered HOLD_FD_MIN or above."""
    return () if fd is None else (fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, HOLD_FD_MIN),)


def cpu_children():
    """User and system CPU seconds of the children waited for so far."""
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    return ru.ru_utime + ru.ru_stime


def simulate(plan, workdir, quiet=False, hold_fd=None, started=None):
    """Run plan in workdir (which must exist): a RunResult, or CliError
    (status 1 when the simulation failed: kept=workdir, the files to look
    at).  Whatever fails once the simulator has started stops it first.

    hold_fd: a file descriptor (the study engine's lock on its point) that
    every process of the simulator inherits, so that what it holds stays
    held while any of them lives, were this process killed.  started(pid),
    once the simulator has started: its process group."""
    cmd, env, line = prepare_rundir(plan, workdir, quiet)
    full_env = settings.inherited_env()  # nothing of libsimblas's from the caller but what env sets
    full_env.update(env)
    sampler, progress = start_monitors(plan, env, quiet)
    if not quiet:
        note(f"simulating N={plan.n} NB={plan.nb} on {plan.p}x{plan.q} ranks, {plan.platform.hosts} host(s), "
             f"{plan.mode} mode, {build_said(plan)}; files in {workdir}")
    out_path, err_path = os.path.join(workdir, "stdout.txt"), os.path.join(workdir, "stderr.txt")
    timed_out = False
    # the simulation runs in a session of its own (a terminal's ^C must
    # not reach smpirun before us): on SIGTERM or SIGHUP, as on ^C, stop
    # it too, rather than leave it running, orphaned, for hours
    previous, proc = {}, None
    t0, cpu0 = time.monotonic(), cpu_children()
    try:
        if threading.current_thread() is threading.main_thread():  # only it can set handlers
            previous.update(signals.raise_on_term())
        with open(out_path, "w") as fo, open(err_path, "w") as fe:
            inherited = inheritable_copy(hold_fd)
            try:
                # a ^C or SIGTERM while it starts is noted, and sent again once proc can be stopped
                proc = signals.started_held(cmd, cwd=workdir, env=full_env, stdin=subprocess.DEVNULL, stdout=fo,
                                            stderr=fe, start_new_session=True, pass_fds=inherited)
                signals.redeliver(proc.held_signals)
                procs.keep_priority(proc.pid)
            finally:
                for fd in inherited:
                    os.close(fd)
            sampler.attach(proc.pid)
            if started:
                started(proc.pid)
            try:
                proc.wait(timeout=plan.timeout)
                end_group(proc)  # anything smpirun left behind
            except subprocess.TimeoutExpired:
                timed_out = True
                stop_group(proc)
    except (KeyboardInterrupt, Terminated) as e:
        if proc:
            stop_group(proc)
        code, why = (128 + e.signum, signal.Signals(e.signum).name) if isinstance(e, Terminated) else (130, "^C")
        raise CliError(f"interrupted ({why}): the simulation was stopped; run files in {workdir}", code,
                       kept=workdir)
    except BaseException as e:
        if proc is None:
            if isinstance(e, OSError):
                raise CliError(f"cannot start the simulation: {cmd[0]}: {e.strerror or e}", 1) from e
            raise
        stop_group(proc)  # never leave it running, orphaned
        raise CliError(f"simblas-hpl failed after the simulator started ({type(e).__name__}: {e}): "
                       "the simulation was stopped", 1) from e
    finally:
        signals.restore(previous)
        sampler.stop()
        if progress:
            progress.stop()
    wall = time.monotonic() - t0
    out, err = read_text(out_path), read_text(err_path)
    res = results.parse_output(out, err, workdir)
    problem = results.run_problem(res, proc.returncode, timed_out, f"--timeout {plan.timeout} s", "smpirun",
                                  need_result=not plan.alloc_only)
    if problem:
        shown = "\n".join(filter(None, [
            "--- last lines of stdout ---\n" + tail_lines(out, 15) if out.strip() else "",
            stderr_excerpt(err) if err.strip() else "", address_space_hint(err)]))
        raise CliError(f"{problem}.\n{shown}\n(run files kept in {workdir}; rerun with {workdir}/run.sh)", 1,
                       kept=workdir)
    try:
        segs, end = (extrapolation.read_iter_log(os.path.join(workdir, "iterations.log")) if plan.mode == "model"
                     else ([], None))
        summary = results.summarize(plan, res, wall, sampler, segs, end, workdir)
        summary["cpu_s"] = round(cpu_children() - cpu0, 3)  # the simulator's user and system time
    except CliError:
        raise
    except Exception as e:  # a finished run is never lost to a bug of ours: its outputs stay
        raise CliError(f"simblas-hpl failed reading the finished run's results ({type(e).__name__}: {e}); "
                       f"its outputs are kept in {workdir} (stdout.txt, stderr.txt, iterations.log)", 1,
                       kept=workdir) from e
    return results.RunResult(summary=summary, workdir=workdir)
