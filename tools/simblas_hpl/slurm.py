"""Slurm's commands and what they answer: whether a cluster answers
(check_slurm), the array tasks a job still has in the queue and why they
wait (slurm_live_tasks, pending_reasons; the reasons waiting does or does
not resolve), sbatch's answer and the options given to it (parse_job_id,
slurm_options), a submission found by its comment (submitted_as).
"""

import re
import shlex
import shutil
import subprocess

from .errors import CliError

LOCAL_SLURM = "sh scripts/local-slurm.sh start"


def slurm_command(cmd, timeout=30):
    """(status, stdout, stderr) of a Slurm command; status None when it is missing."""
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, stdin=subprocess.DEVNULL)
    except FileNotFoundError:
        return None, "", f"{cmd[0]}: command not found"
    except subprocess.TimeoutExpired:
        return None, "", f"{cmd[0]} did not answer within {timeout} s"
    return p.returncode, p.stdout, p.stderr


def unreachable(why):
    return CliError(f"Slurm is unreachable ({why}): on a machine without a cluster, start this machine's "
                    f"one-node cluster with `{LOCAL_SLURM}` (as root, from the SimBLAS source tree), "
                    "or run with --engine local")


def check_slurm():
    """CliError (status 2) unless sbatch, squeue and a controller answer."""
    for prog in ("sbatch", "squeue", "sinfo"):
        if not shutil.which(prog):
            raise unreachable(f"{prog} is not installed (Debian's slurm-wlm)")
    rc, out, err = slurm_command(["sinfo", "-h", "-o", "%P"], timeout=20)
    if rc != 0:
        lines = (err or out).strip().splitlines()
        raise unreachable(lines[-1] if lines else f"sinfo exited with status {rc}")


class Tasks(set):
    """The array task ids of a job in Slurm's queue; pending: of those
    pending, {task: (reason, partition, time limit)} as squeue gives them."""

    def __init__(self, tasks=(), pending=None):
        super().__init__(tasks)
        self.pending = pending or {}


def slurm_live_tasks(job):
    """The array task ids of job still in Slurm's queue (pending or
    running), a Tasks, or None when Slurm cannot be asked."""
    if not job or not shutil.which("squeue"):
        return None
    # one line per task: '3 PENDING local 4-03:00:00 PartitionTimeLimit' (the reason may hold spaces:
    # 'ReqNodeNotAvail, UnavailableNodes:n[1-2]'; a running task's is None)
    rc, out, err = slurm_command(["squeue", "-h", "-r", "-j", str(job), "-o", "%K %T %P %l %r"], timeout=20)
    if rc is None:
        return None
    if rc != 0:  # a job that left the queue long ago: "Invalid job id specified"
        return Tasks() if "nvalid job id" in err else None
    tasks = Tasks()
    for ln in out.splitlines():
        f = ln.split(None, 4)
        if f and f[0].isdigit():
            tasks.add(int(f[0]))
            if len(f) == 5 and f[1] == "PENDING":
                tasks.pending[int(f[0])] = (f[4].strip(), f[2], f[3])
    return tasks


# ---- why a job waits: squeue's reason for its pending tasks (Slurm 22.05's man squeue, JOB REASON CODES) ----
# reasons waiting resolves, and what they mean ({job}, {part}: the job, its partition)
WAITS = {
    "Priority": "jobs of higher priority go first",
    "Resources": "the CPUs or memory it asks for are in use",
    "Dependency": "it waits for the jobs it depends on",
    "BeginTime": "its --begin time has not come",
    "JobArrayTaskLimit": "its array's limit of tasks at once is reached",
    "JobHeldUser": "held: `scontrol release {job}` lets it start",
    "JobHeldAdmin": "held by an administrator",
    "PartitionDown": "partition {part} is down: it starts once an administrator brings it up (`sinfo -p {part}`)",
    "PartitionInactive": "partition {part} is inactive: it starts once an administrator brings it up "
                         "(`sinfo -p {part}`)",
    "ReqNodeNotAvail": "a node it requires is in use, reserved, down or drained",
    "NodeDown": "a node it requires is down",
    "Reservation": "its reservation has not begun",
    "Licenses": "the licenses it asks for are in use",
    "Cleaning": "requeued, its last run still cleaning up",
}
# reasons waiting does not resolve: the job asks for what its partition, account or QOS never gives, or its
# dependency failed: (what it means, the remedy), {limit} the job's time limit, {max} the partition's MaxTime
NEVER = {
    "PartitionTimeLimit": ("its time limit, {limit}, is over partition {part}'s MaxTime{max}",
                           "a --slurm-opt=--time=... within partition {part}'s MaxTime{max} "
                           "(`scontrol show partition {part}` gives it)"),
    "PartitionNodeLimit": ("its node count is outside partition {part}'s MinNodes-MaxNodes, or nodes it requires "
                           "are down or drained", "a --slurm-opt -N within the limits `scontrol show partition {part}` "
                           "gives, or nodes `sinfo -p {part}` shows up"),
    "PartitionConfig": ("it does not fit partition {part}: its time limit, {limit}, against the MaxTime{max}, or "
                        "its nodes, CPUs or memory against the partition's nodes",
                        "a --slurm-opt that fits (`scontrol show job {job}` against `scontrol show partition "
                        "{part}`)"),
    "BadConstraints": ("its constraints cannot be satisfied by partition {part}'s nodes",
                       "a --slurm-opt=--constraint=... of the features `sinfo -p {part} -o %f` lists"),
    "AccountNotAllowed": ("its account may not use partition {part}",
                          "a --slurm-opt --account or --partition allowed (`scontrol show partition {part}`)"),
    "QOSNotAllowed": ("its QOS may not use partition {part}, or its account may not use the QOS",
                      "a --slurm-opt --qos allowed (`scontrol show partition {part}`, `sacctmgr show assoc`)"),
    "InvalidAccount": ("its account is not one Slurm knows for the user",
                       "a --slurm-opt --account of `sacctmgr show assoc user=$USER`"),
    "InvalidQOS": ("its QOS is not one Slurm knows for its account",
                   "a --slurm-opt --qos of `sacctmgr show assoc user=$USER format=account,qos`"),
    "DependencyNeverSatisfied": ("a job it depends on ended so that it never will", "a --slurm-opt --dependency "
                                 "that can still be satisfied, or none"),
    "ReservationDeleted": ("its reservation was deleted", "another --slurm-opt --reservation, or none"),
}
PER_JOB = re.compile(r"^(Assoc|QOS)Max\w*Per(Job|Node)(Limit)?$")  # a per-job limit: AssocMaxWallDurationPerJobLimit
QOS_MIN = re.compile(r"^QOSMin\w+$")  # below the QOS's minimum: QOSMinCpuNotSatisfied


def reason_code(reason):
    """'ReqNodeNotAvail' of 'ReqNodeNotAvail, UnavailableNodes:n1'."""
    return reason.split(",")[0].split()[0] if reason.strip() else ""


def pending_reasons(tasks):
    """The reasons squeue gives for the pending tasks of a job (Tasks), each
    once, in task order, with the partition and time limit of the task
    that has it first; not None nor WaitingForScheduling (no reason yet)."""
    out = {}
    for t in sorted(getattr(tasks, "pending", None) or {}):
        reason, part, limit = tasks.pending[t]
        if reason_code(reason) not in ("", "None", "WaitingForScheduling") and reason not in out:
            out[reason] = (part, limit)
    return out


def never_starts(reason):
    """(meaning, remedy) templates of a reason waiting does not resolve, or None."""
    code = reason_code(reason)
    if code in NEVER:
        return NEVER[code]
    if PER_JOB.match(code):
        return ("it asks for more than a per-job limit of its " + ("QOS" if code.startswith("QOS") else "association")
                + " allows", "a --slurm-opt within that limit (`sacctmgr show qos`, `sacctmgr show assoc "
                "user=$USER`)")
    if QOS_MIN.match(code):
        return ("it asks for less than its QOS's minimum", "a --slurm-opt that asks at least that minimum "
                "(`sacctmgr show qos`)")
    return None


def pending_line(job, reasons):
    """'Slurm job J pending: Priority (jobs of higher priority go first)'."""
    def one(reason, part):
        code = reason_code(reason)
        meaning = (WAITS.get(code) or ("its association has reached an aggregate limit: it starts as other jobs end"
                                       if code.startswith("AssocGrp") else
                                       "its QOS has reached an aggregate limit: it starts as other jobs end"
                                       if code.startswith("QOSGrp") else ""))
        return reason + (f" ({meaning.format(job=job, part=part)})" if meaning else "")
    return f"Slurm job {job} pending: " + "; ".join(one(r, p) for r, (p, _) in reasons.items())


def partition_max_time(part):
    """Partition part's MaxTime as sinfo gives it ('1:00:00'), or None."""
    if not part or "," in part:
        return None
    rc, out, err = slurm_command(["sinfo", "-h", "-p", part, "-o", "%l"], timeout=20)
    t = out.strip().splitlines()[0].strip() if rc == 0 and out.strip() else ""
    return t if re.match(r"^(\d+-)?\d+(:\d+)*$", t) else None


def stuck(job, reason, part, limit):
    """The CliError (status 1) of a job pending for a reason waiting does not
    resolve: what it means and the remedy; the job is left as it is."""
    meaning, remedy = never_starts(reason)
    mx = partition_max_time(part) if reason_code(reason) in ("PartitionTimeLimit", "PartitionConfig") else None
    fill = dict(job=job, part=part, limit=limit, max=f", {mx}" if mx else "")
    return CliError(f"Slurm job {job} will not start: it is pending for {reason} ({meaning.format(**fill)}), which "
                    f"waiting does not resolve; stopped waiting, the job left as it is: `scancel {job}`, then run "
                    f"again with {remedy.format(**fill)}; until then its points stay queued in it", 1)


def parse_job_id(out):
    """sbatch --parsable prints 'id' or 'id;cluster'."""
    first = out.strip().splitlines()[-1] if out.strip() else ""
    job = first.split(";")[0].strip()
    if not job.isdigit():
        raise CliError(f"sbatch answered {out.strip()!r}, not a job id", 1)
    return job


def slurm_options(opts):
    """--slurm-opt values, each split as a shell would ('-p big --time 60')."""
    out = []
    for o in opts or ():
        try:
            out += shlex.split(o)
        except ValueError as e:
            raise CliError(f"--slurm-opt {o!r}: {e}")
    for o in out:
        if o.startswith(("--array", "-a", "--wrap", "--parsable")):
            raise CliError(f"--slurm-opt {o}: the engine sets it (the array is its points); drop it")
        if o.startswith(("--output", "--error", "-o", "-e")):  # (not --exclusive: that is "--e...")
            raise CliError(f"--slurm-opt {o}: the engine puts the task logs in its spool (slurm-JOB_TASK.out), "
                           "which its messages name; drop it")
        if o.startswith("--test-only"):
            raise CliError(f"--slurm-opt {o}: sbatch would only check the job and submit nothing, so no point "
                           "would run; drop it (sbatch --test-only on its own checks the options)")
        if o in ("--wait", "-W"):
            raise CliError(f"--slurm-opt {o}: sbatch would wait for the job to end before saying its id, and the "
                           "engine, which records it, gives up after a minute: drop it (give simblas-hpl's own --wait)")
    return out


def submitted_as(tag):
    """The job id of the study job whose comment is tag, if squeue shows one;
    None when it shows none; False when squeue did not answer."""
    rc, out, err = slurm_command(["squeue", "-h", "-n", "simblas-study", "-o", "%F %k"], timeout=20)
    if rc != 0:
        return False
    for line in out.splitlines():
        fields = line.split()
        if len(fields) == 2 and fields[1] == tag:
            return fields[0]
    return None
