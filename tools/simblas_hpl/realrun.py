"""Real HPL runs on this machine: xhpl-mpi (plain HPL, Open MPI, OpenBLAS)
under `mpirun`, one rank bound to each core, one BLAS thread per rank.
They are the ground truth `simblas-hpl validate` compares simulations
with, and the check run of a new xhpl-mpi."""

import os
import shutil
import subprocess
import time

from . import builds, hpldat, memory, results, settings
from .errors import CliError
from .files import read_text, tail_lines
from .launch import stop_group


def machine_cores():
    """The cores this process may run on (its affinity), at least 1."""
    try:
        return len(os.sched_getaffinity(0)) or 1
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def mpirun_path():
    """Open MPI's mpirun (not SimGrid's smpirun), or CliError."""
    path = settings.value("SIMBLAS_MPIRUN") or shutil.which("mpirun")
    if not path:
        raise CliError("`mpirun` not found: the real runs need Open MPI (Debian's openmpi-bin and "
                       "libopenmpi-dev; scripts/install-deps.sh installs them)")
    return path


def mpi_binary(build_id=None, patch=None, why=""):
    """(the HPL build, its xhpl-mpi) of --build-id or the default build, or
    CliError: no build, no xhpl-mpi in it, or (patch: a file name of
    hpl-patches/) a build that predates that patch."""
    build, _ = builds.choose(build_id)
    xhpl = build.binary("mpi") if build else None
    bid = f" --build-id {build.id}" if build else ""
    if not xhpl:
        raise CliError("no xhpl-mpi (the real-MPI HPL) in the HPL build" + (f" {build.id}" if build else "s") +
                       f": run `simblas-hpl build{bid} --mode mpi` (it needs Open MPI's mpicc)")
    if patch and patch not in build.field("patches", list):
        raise CliError(f"{xhpl} was built before hpl-patches/{patch}{why}: run `simblas-hpl build{bid} --force`")
    return build, xhpl


def mpirun_command(mpirun, xhpl, ranks, wrapper=None):
    """One rank per core, each bound to its core, OpenBLAS on one thread;
    wrapper: a program each rank runs with xhpl as its argument (and that
    execs it)."""
    cmd = [mpirun]
    if os.geteuid() == 0:
        cmd.append("--allow-run-as-root")
    cmd += ["--bind-to", "core", "--map-by", "core", "-np", str(ranks),
            "-x", "OPENBLAS_NUM_THREADS=1", "-x", "OMP_NUM_THREADS=1"] + ([wrapper] if wrapper else []) + [xhpl]
    return cmd


# the bytes a real run needs per matrix element, over 8 for A itself: HPL's
# panels, work arrays and the MPI buffers (a margin, not a measurement)
REAL_RUN_OVERHEAD = 1.25
REAL_RUN_MEMORY = 0.8   # at most this share of the memory available now


def real_n_max(step=1000):
    """The largest N, a multiple of step, whose real run fits in this
    machine's available memory (all its ranks together); None when
    /proc/meminfo says nothing."""
    avail = memory.meminfo_available()
    if not avail:
        return None
    n = int((REAL_RUN_MEMORY * avail / (8 * REAL_RUN_OVERHEAD)) ** 0.5)
    return max(step, n - n % step)


def check_real_memory(n, what, how="give N <= {top}"):
    """CliError when a real run of N does not fit in this machine's memory
    (how: the remedy, {top} the largest N that fits)."""
    top = real_n_max(1)
    if top is not None and n > top:
        need = 8 * REAL_RUN_OVERHEAD * n * n / 2 ** 30
        raise CliError(f"{what}: a real run of N={n} needs about {need:.1f} GiB, and this machine has "
                       f"{memory.meminfo_available() / 2 ** 30:.1f} GiB available: {how.format(top=top)}")


def run_real(xhpl, n, nb, p, q, opts, workdir, timeout=None, mpirun=None, wrapper=None):
    """One real run of HPL.dat (n, nb, p x q, opts) in workdir (made if need
    be; wrapper: as mpirun_command's): a dict with gflops, hpl_time_s, residual, residual_passed,
    result_line, wall_s; CliError (status 1) when it fails or its residual
    check does."""
    ranks = p * q
    cores = machine_cores()
    if ranks > cores:
        raise CliError(f"a real run of {p}x{q} needs {ranks} cores and this machine has {cores}: the ranks are "
                       "bound one per core")
    os.makedirs(workdir, exist_ok=True)
    dat = hpldat.hpl_dat(n, nb, p, q, opts)
    for name in ("HPL.dat", "hpccinf.txt"):
        with open(os.path.join(workdir, name), "w") as f:
            f.write(dat)
    for stale in ("hpccoutf.txt", "HPL.out"):
        try:
            os.unlink(os.path.join(workdir, stale))
        except FileNotFoundError:
            pass
    cmd = mpirun_command(mpirun or mpirun_path(), xhpl, ranks, wrapper)
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1")
    out_path, err_path = os.path.join(workdir, "stdout.txt"), os.path.join(workdir, "stderr.txt")
    t0 = time.monotonic()
    timed_out = False
    with open(out_path, "w") as fo, open(err_path, "w") as fe:
        try:
            proc = subprocess.Popen(cmd, cwd=workdir, env=env, stdin=subprocess.DEVNULL, stdout=fo, stderr=fe,
                                    start_new_session=True)
        except OSError as e:
            raise CliError(f"cannot start {cmd[0]}: {e.strerror or e}", 1)
        try:
            proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            timed_out = True
        except BaseException:
            stop_group(proc)
            raise
        if timed_out:
            stop_group(proc)
    wall = time.monotonic() - t0
    out, err = read_text(out_path), read_text(err_path)
    res = results.parse_output(out, err, workdir)
    problem = results.run_problem(res, proc.returncode, timed_out, f"{timeout:g} s" if timeout else "", "mpirun",
                                  need_residual=True)
    if problem:
        raise CliError(f"the real run N={n} NB={nb} {p}x{q} failed: {problem}.\n"
                       f"--- last lines of stdout ---\n{tail_lines(out, 10)}\n"
                       f"--- last lines of stderr ---\n{tail_lines(err, 10)}\n(files in {workdir}; the command: "
                       f"{' '.join(cmd)})", 1, kept=workdir)
    res["wall_s"] = round(wall, 3)
    return res

