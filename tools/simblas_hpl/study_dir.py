"""A study's directory: prepare() writes it from a loaded study (study.py):
study.toml, study.json (the design: factors, seeds, outputs, every point)
and a point directory (points.py) per point; open_dir()
finds it again from the study file or the directory; status() says where
its points are, from their own files.

    DIR/study.toml     the study file, as it was run
    DIR/study.json     the design, which collect and plot read
    DIR/points/ID/     a point (points.py), ID from study.point_id
"""

import json
import os

from . import hpldat, points
from .differences import changes
from .errors import CliError
from .files import write_atomic
from .plan import check_keep, content, content_then, make_dir
from .study import dir_of, parse, study_table

STUDY_JSON, STUDY_TOML, POINTS = "study.json", "study.toml", "points"

def design_json(study, plans):
    return {"format": 1, "name": study.name, "file": study.path, "design": study.design,
            "factors": {k: v for k, v in study.factors.items()}, "base": study.base, "seeds": study.seeds,
            "outputs": study.outputs,
            "points": [{"id": p.id, "factors": p.values, "seed": p.seed, "set": p.factors,
                        "options": rec["options"], "content": rec["content"]}
                       for p, rec in ((p, point_record(p, plan)) for p, plan in zip(study.points, plans))]}


def point_record(pt, plan):
    """What point.json says: the factors, the seed, and what the run was
    asked (the options, the model and HPL actually used, the content of
    the model, platform, network and node files: plan.content)."""
    opts = pt.options.record(skip=("progress",))
    return {"id": pt.id, "factors": pt.factors, "seed": pt.seed, "options": opts, "model": plan.model,
            "xhpl": plan.xhpl, "content": content(plan)}


def differs(old, new):
    """What differs between two point records (point.json's, study.json's
    point), as 'what old -> new' texts; [] when they are the same run.
    Records made before content was recorded are compared without it."""
    was = {"options": hpldat.comparable(old.get("options"))}
    now = {"options": hpldat.comparable(new.get("options"))}
    for k in ("model", "xhpl", "content"):
        if k in old and k in new and (k != "content" or isinstance(old[k], dict) and isinstance(new[k], dict)):
            was[k], now[k] = content_then(old[k], new[k]) if k == "content" else old[k], new[k]
    return changes(was, now, lambda path: {"xhpl": "HPL"}.get(path[-1], path[-1].replace("_", "-")))


def prepare(study, plans):
    """Write the study's directory: study.toml, study.json and the points.
    A point done, running or queued with other options or inputs (the
    content of its model or network file) refuses the whole study."""
    check_dir(study.dir)
    pdir = os.path.join(study.dir, POINTS)
    if os.path.exists(os.path.join(study.dir, "tune.json")):
        raise CliError(f"{study.dir} is a tune's directory (it holds tune.json): its points would mix with the "
                       "study's; give another --dir")
    for pt, plan in zip(study.points, plans):
        d = os.path.join(pdir, pt.id)
        if not os.path.isdir(d):
            continue
        old, s = points.info(d), points.state(d)
        if s not in ("done", "running", "queued") or not isinstance(old, dict):
            continue
        diff = differs(old, point_record(pt, plan))
        if diff:
            what = {"done": "was run", "running": "is running", "queued": "is queued in a Slurm job"}[s]
            raise CliError(f"{d} {what} with other settings than {study.path} now gives ({', '.join(diff[:3])}): "
                           "its result would be mixed with the new ones; give another --dir, or remove that point's "
                           "directory to run it again" + (" once it has ended" if s != "done" else ""))
    make_dir(pdir, "--dir")
    write_atomic(os.path.join(study.dir, STUDY_TOML), study.text)
    write_atomic(os.path.join(study.dir, STUDY_JSON), json.dumps(design_json(study, plans), indent=2) + "\n")
    dirs = []
    for pt, plan in zip(study.points, plans):
        d = os.path.join(pdir, pt.id)
        if points.state(d) not in ("done", "running", "queued"):
            points.write_point(d, plan, point_record(pt, plan))
        dirs.append(d)
    return dirs


def check_dir(d):
    """The study's directory: one smpirun can run in (no white space, no
    comma), a directory or one that can be made there; one line if not."""
    check_keep(d, "for the study", opt="--dir", kind="study")


def open_dir(target, dir_opt=None):
    """status, collect, plot: the study directory of a study file or the
    directory itself -> (dir, its study.json)."""
    if os.path.isdir(target):
        d = os.path.abspath(target)
        if dir_opt and os.path.abspath(dir_opt) != d:  # was 'no such study file or directory', of one that is
            raise CliError(f"{target} is a study's directory, and --dir {dir_opt} names another: --dir goes with a "
                           "study file (FILE.toml --dir DIR); give the directory alone, or the file with --dir")
    elif os.path.isfile(target):
        src, doc, _ = parse(target)
        d = dir_of(src, study_table(src, doc), dir_opt)
    elif os.path.exists(target):
        raise CliError(f"{target}: neither a study file nor a directory; give FILE.toml or the study's directory")
    else:
        raise CliError(f"{target}: no such study file or directory")
    path = os.path.join(d, STUDY_JSON)
    if not os.path.exists(path):
        raise CliError(f"{d}: no study there yet ({STUDY_JSON} is missing): run `simblas-hpl study FILE.toml` first")
    design = points._read_json(path)
    why = check_design(design)
    if why:
        raise CliError(f"{path}: not a study's design ({why}): run `simblas-hpl study FILE.toml` again to rewrite it "
                       "(the points done are kept)")
    return d, design


def check_design(design):
    """What is wrong with study.json's content, or None."""
    if not isinstance(design, dict):
        return "not readable JSON: truncated or corrupt" if design is None else "not a JSON object"
    kinds = {"name": str, "factors": dict, "seeds": list, "outputs": list, "points": list}
    for k, t in kinds.items():
        if not isinstance(design.get(k), t):
            return f"no {k}" if k not in design else f"its {k} is not a {t.__name__}"
    for p in design["points"]:
        if not (isinstance(p, dict) and isinstance(p.get("id"), str) and isinstance(p.get("factors"), dict)
                and "seed" in p):
            return "a point without id, factors or seed"
    return None


def point_dirs(d, design):
    return [os.path.join(d, POINTS, p["id"]) for p in design["points"]]


def status(d, design, out=print):
    """Print where the points are; returns {state: count}."""
    dirs = point_dirs(d, design)
    asked = {}  # job -> its live array tasks, None: Slurm did not answer
    st = points.states(dirs, asked=asked)
    counts = {s: sum(1 for x in st.values() if x == s) for s in points.STATES}
    runners = {dd: points.runner(dd) for dd in dirs if st[dd] == "running"}
    orphans = sum(1 for r in runners.values() if r["worker"] == "gone")
    counts["orphaned"] = orphans
    out(f"study {design['name']} ({d}): {len(dirs)} point(s): {counts['done']} done, {counts['running']} running"
        + (f" ({orphans} with no worker)" if orphans else "")
        + f", {counts['queued']} queued, {counts['failed']} failed, "
        + (f"{counts['unreadable']} with an unreadable result, " if counts["unreadable"] else "")
        + f"{counts['todo']} to do")
    for job in (j for j, v in asked.items() if v is None):
        n = sum(1 for dd in dirs if st[dd] == "queued" and (points._read_json(os.path.join(dd, points.QUEUED)) or {})
                .get("job") == job)
        if n:
            out(f"  Slurm did not answer (squeue failed or is missing) about job {job}: its {n} point(s) are shown "
                "queued as submitted, which it may no longer hold")
    for p, dd in zip(design["points"], dirs):
        s = st[dd]
        if s == "unreadable":
            out(f"  unreadable {p['id']}: {os.path.join(dd, points.RESULT)} is not a run's summary (truncated or "
                "corrupt); the next run of the study runs it again")
        elif s == "failed":
            f = points.failure(dd) or {}
            first = (f.get("message") or "?").splitlines()[0]
            out(f"  failed   {p['id']}: {first} (attempt {f.get('attempt', '?')}; stderr tail: "
                f"{os.path.join(dd, points.FAILED_TAIL)})")
        elif s == "running":
            r = runners[dd]
            where = f"pid {r.get('pid')} on {r.get('host')}" + (f", Slurm job {r['job']}" if r.get("job") else "")
            out(f"  running  {p['id']}, no worker: {points.orphaned(dd, r)}" if r["worker"] == "gone" else
                f"  running  {p['id']}: since {r.get('started', '?')} ({where})")
        elif s == "queued":
            q = points._read_json(os.path.join(dd, points.QUEUED)) or {}
            out(f"  queued   {p['id']}: Slurm job {q.get('job')}, array task {q.get('task')}")
    return counts
