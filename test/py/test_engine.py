"""The study engine (engine.py) with a fake smpirun in the sandbox: points
run once and are skipped once done, a failed point keeps its message and
stderr tail and is retried, ^C stops the running points and leaves them to
do (the others done and kept), a worker killed with SIGKILL leaves its
point running while its orphaned simulator lives (never two simulators in
one point), and Slurm problems are named before anything is submitted.
The engine on a real Slurm cluster is test/study-slurm.sh."""

import fcntl
import json
import os
import signal
import subprocess
import sys
import time
import unittest
from unittest import mock

from support import SRC, Sandbox
from simblas_hpl import engine, points, slurm, slurm_engine, study_dir, worker
from simblas_hpl.errors import CliError
from simblas_hpl.plan import RunOptions, make_plan

# the fake simulator: HPL's result line with N from HPL.dat (Gflops = N / 1000),
# a line in calls.log per call ("N PID"; its PID is its process group); N = 3000
# fails; FAKE_SLEEP in the environment waits, FAKE_UNTIL waits (at most 120 s)
# until that file exists, FAKE_STRAY leaves a process behind it
FAKE = r"""#!/bin/sh
n=$(awk 'NR == 6 { print $1 }' HPL.dat)
echo "$n $$" >> {calls}
[ -n "${FAKE_SLEEP:-}" ] && sleep "$FAKE_SLEEP"
i=0
while [ -n "${FAKE_UNTIL:-}" ] && [ ! -e "$FAKE_UNTIL" ] && [ $i -lt 2400 ]; do sleep 0.05; i=$((i + 1)); done
[ -n "${FAKE_STRAY:-}" ] && { sleep 120 & echo $! > "$FAKE_STRAY"; }
if [ "$n" = 3000 ]; then
  i=0; while [ $i -lt 60 ]; do echo "stderr line $i" >&2; i=$((i + 1)); done
  echo "[node-0:0:(1) 0.0] smpi_x.cpp:1: [root/CRITICAL] the fake simulator fails at N=3000" >&2
  exit 3
fi
printf 'WR11C2R4 %8d   128     2     2               1.00              %s\n' "$n" "$(awk -v n=$n 'BEGIN { printf "%.3e", n / 1000 }')"
echo 'Simulated time: 1.5 seconds.' >&2
"""


class EngineCase(Sandbox):
    """The sandbox, the fake simulator, points of it."""

    def setUp(self):
        super().setUp()
        self.calls = self.path("calls.log")
        with open(self.env["SMPIRUN"], "w") as f:
            f.write(FAKE.replace("{calls}", self.calls))
        self.env["PYTHONDONTWRITEBYTECODE"] = "1"
        patch = mock.patch.dict(os.environ, self.env, clear=True)
        patch.start()
        self.addCleanup(patch.stop)
        self.addCleanup(self.stop_fakes)
        self.said = []

    def stop_fakes(self):
        """Whatever a test left running of its fake simulators: their process
        groups killed (a fake's PID is its group's, in calls.log), and the
        process FAKE_STRAY left."""
        try:
            stray = int(self.read(self.path("stray")))
            with open(f"/proc/{stray}/cmdline", "rb") as f:
                if f.read().startswith(b"sleep\0"):
                    os.kill(stray, signal.SIGKILL)
        except (OSError, ValueError):
            pass
        for pid in self.fake_pids():
            try:
                with open(f"/proc/{pid}/cmdline", "rb") as f:
                    ours = self.root.encode() in f.read()  # not a process that took its number since
            except OSError:
                continue
            if ours:
                try:
                    os.killpg(pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass

    def fake_pids(self):
        try:
            with open(self.calls) as f:  # other tests' fakes write other lines
                return [int(w[1]) for w in map(str.split, f) if len(w) == 2 and w[1].isdigit()]
        except FileNotFoundError:
            return []

    def until(self, what, cond, timeout=60):
        """Poll cond() until it is true; fail, naming what, after timeout s."""
        deadline = time.monotonic() + timeout
        while not cond():
            if time.monotonic() > deadline:
                self.fail(f"{what}: not after {timeout} s")
            time.sleep(0.02)

    def lives(self, pid):
        """Process pid is there and not a zombie."""
        try:
            with open(f"/proc/{pid}/stat") as f:
                return f.read().rsplit(")", 1)[1].split()[0] != "Z"
        except OSError:
            return False

    def start_worker(self, d):
        """A worker running point d in a session of its own (as the local
        engine starts it), killed at the end of the test if still there."""
        p = subprocess.Popen(worker.worker_command("run", d), env=worker.worker_env(), stdout=subprocess.DEVNULL,
                             start_new_session=True)

        def stop():
            if p.poll() is None:
                os.killpg(p.pid, signal.SIGKILL)
            p.wait()
        self.addCleanup(stop)
        return p

    def orphan(self, d):
        """Run point d in a worker, and SIGKILL the worker once its fake
        simulator runs (waiting until self.path('go') exists): the
        simulator's PID (its process group)."""
        os.environ["FAKE_UNTIL"] = self.path("go")
        p = self.start_worker(d)
        self.until("the simulator started and recorded",
                   lambda: self.ran() and "simulator" in (points._read_json(os.path.join(d, "running.json")) or {}))
        self.assertEqual((points.state(d), points.runner(d)["worker"]), ("running", "alive"))
        os.killpg(p.pid, signal.SIGKILL)  # the worker only: its simulator is in a session of its own
        p.wait()
        del os.environ["FAKE_UNTIL"]
        sim, = self.fake_pids()
        self.assertTrue(self.lives(sim))
        return sim

    def plan(self, n):
        return make_plan(RunOptions(n=n, nb=128, p=2, q=2, xhpl=self.xhpl, mode="passthrough", progress=0))

    def points(self, *ns):
        dirs = []
        for n in ns:
            d = self.path("points", f"n={n}")
            points.write_point(d, self.plan(n), {"n": n})
            dirs.append(d)
        return dirs

    def ran(self):
        try:
            with open(self.calls) as f:
                return sorted(int(ln.split()[0]) for ln in f)
        except FileNotFoundError:
            return []

    def run_local(self, dirs, **kw):
        return engine.run_points(dirs, "local", jobs=kw.pop("jobs", 2), say=self.said.append, **kw)


class Local(EngineCase):
    def test_points_run_once_and_are_skipped_when_done(self):
        dirs = self.points(1000, 2000, 4000, 5000)
        out = self.run_local(dirs)
        self.assertEqual(out.count("done"), 4, self.said)
        self.assertEqual(self.ran(), [1000, 2000, 4000, 5000])
        for d, n in zip(dirs, (1000, 2000, 4000, 5000)):
            r = points.result(d)
            self.assertEqual((r["n"], r["gflops"], r["simulated_time_s"]), (n, n / 1000, 1.5))
            self.assertEqual(points.state(d), "done")
            self.assertEqual(points.info(d), {"n": n})
            self.assertFalse(os.path.exists(os.path.join(d, "running.json")))
            self.assertFalse(os.path.exists(os.path.join(d, "run", "tmp")))  # the run's scratch is gone
            self.assertTrue(os.path.exists(os.path.join(d, "run", "HPL.dat")))
        self.assertTrue(any("[4/4] done" in s for s in self.said), self.said)
        # again: nothing runs
        t0 = time.monotonic()
        out = self.run_local(dirs)
        self.assertEqual(out.count("done"), 4)
        self.assertEqual(self.ran(), [1000, 2000, 4000, 5000])
        self.assertLess(time.monotonic() - t0, 2)

    def test_a_failed_point_keeps_its_stderr_the_others_go_on_and_it_is_retried(self):
        dirs = self.points(1000, 3000, 2000)
        out = self.run_local(dirs)
        self.assertEqual((out.count("done"), out.of("failed")), (2, [dirs[1]]))
        f = points.failure(dirs[1])
        self.assertEqual((f["status"], f["attempt"]), (1, 1))
        self.assertIn("smpirun exited with status 3", f["message"])
        self.assertIn("the fake simulator fails at N=3000", f["message"])  # the first error, pushed out of the tail
        tail = self.read(dirs[1], "failed-stderr.txt").splitlines()
        self.assertEqual(len(tail), 40)
        self.assertIn("the fake simulator fails at N=3000", tail[-1])
        self.assertTrue(os.path.isfile(os.path.join(dirs[1], "run", "stderr.txt")))  # its run files kept
        self.assertIsNone(points.result(dirs[1]))
        # the study again: only the failed point runs, a second attempt
        out = self.run_local(dirs)
        self.assertEqual(self.ran(), [1000, 2000, 3000, 3000])
        self.assertEqual(points.failure(dirs[1])["attempt"], 2)
        # ... unless told not to retry
        out = self.run_local(dirs, retry_failed=False)
        self.assertEqual(self.ran(), [1000, 2000, 3000, 3000])

    def test_a_point_locked_by_another_worker_is_left_alone(self):
        d, = self.points(1000)
        fd = os.open(os.path.join(d, "lock"), os.O_RDWR | os.O_CREAT)
        fcntl.flock(fd, fcntl.LOCK_EX)
        try:
            self.assertEqual(points.state(d), "running")
            out = self.run_local([d])
            self.assertEqual(out.states[d], "running")
            self.assertEqual(self.ran(), [])
            self.assertEqual(worker.run_point(d, say=self.said.append), "busy")
        finally:
            os.close(fd)
        self.assertEqual(points.state(d), "todo")

    def test_interrupted_points_stop_and_resume(self):
        dirs = self.points(1000, 2000, 4000)
        self.run_local(dirs[:1])  # done before; the next two sleep until interrupted
        # ^C as a terminal's foreground engine gets it: a background job of
        # a non-interactive shell (nohup ... &) starts with SIGINT ignored
        script = ("import signal; signal.signal(signal.SIGINT, signal.default_int_handler)\n"
                  f"import sys; sys.path.insert(0, {os.path.join(SRC, 'tools')!r})\n"
                  "from simblas_hpl import engine, errors\n"
                  f"dirs = {dirs!r}\n"
                  "try:\n"
                  "    engine.run_points(dirs[1:], jobs=2)\n"
                  "except errors.CliError as e:\n"
                  "    print(e, file=sys.stderr); sys.exit(e.status)\n")
        env = dict(os.environ, FAKE_SLEEP="120")
        p = subprocess.Popen([sys.executable, "-c", script], env=env, stderr=subprocess.PIPE, text=True)
        for _ in range(500):  # both sleeping points started
            if len(self.ran()) == 3:
                break
            time.sleep(0.02)
        self.assertEqual(len(self.ran()), 3)
        fakes = [int(ln.split()[1]) for ln in self.read(self.calls).splitlines()][1:]
        t0 = time.monotonic()
        p.send_signal(signal.SIGINT)
        err = p.communicate(timeout=60)[1]
        self.assertLess(time.monotonic() - t0, 15)
        self.assertEqual(p.returncode, 130, err)
        self.assertIn("interrupted: the 2 running point(s) were stopped and are to do again; 0 of 2 done. "
                      "Run it again to resume", err)
        for pid in fakes:  # the simulators were stopped
            self.assertFalse(os.path.exists(f"/proc/{pid}") and
                             self.read(f"/proc/{pid}/stat").split()[2] != "Z", f"simulator {pid} still runs")
        self.assertEqual(points.state(dirs[0]), "done")
        self.assertEqual([points.state(d) for d in dirs[1:]], ["todo", "todo"])
        self.assertFalse(any(os.path.exists(os.path.join(d, n)) for d in dirs[1:]
                             for n in ("running.json", "failed.json", "result.json")))
        # resumed: the two run, the first does not
        out = self.run_local(dirs)
        self.assertEqual(out.count("done"), 3)
        self.assertEqual(self.ran(), [1000, 2000, 2000, 4000, 4000])

    def test_a_point_killed_whole_is_to_do_again(self):
        d, = self.points(2000)
        sim = self.orphan(d)
        os.killpg(sim, signal.SIGKILL)  # its simulator too (a reboot, the OOM killer taking both)
        self.until("the killed simulator's lock released", lambda: points.state(d) == "todo")  # no result
        self.assertEqual(self.run_local([d]).states[d], "done")
        self.assertEqual(self.ran(), [2000, 2000])

    def test_a_killed_worker_leaves_its_point_running_while_its_simulator_lives(self):
        d, = self.points(2000)
        sim = self.orphan(d)
        lock = os.path.join(d, "lock")
        held = [int(fd) for fd in os.listdir(f"/proc/{sim}/fd") if os.readlink(f"/proc/{sim}/fd/{fd}") == lock]
        self.assertTrue(held and min(held) >= 100, held)  # inherited, out of smpirun's way (its fd 3)
        self.assertEqual(points.state(d), "running")
        r = points.runner(d)
        self.assertEqual((r["worker"], r["simulator"]), ("gone", sim))
        lines = []
        counts = study_dir.status(self.root, {"name": "s", "points": [{"id": "n=2000"}]}, out=lines.append)
        self.assertEqual((counts["running"], counts["todo"]), (1, 0))
        self.assertIn("1 running (1 with no worker)", lines[0])
        self.assertIn("running  n=2000, no worker: its worker (pid ", lines[1])
        self.assertIn(f"left its simulator running, orphaned (process group {sim})", lines[1])
        self.assertIn(f"stop it with: kill -- -{sim}", lines[1])

    def test_no_second_simulator_starts_beside_an_orphaned_one(self):
        d, = self.points(2000)
        sim = self.orphan(d)
        out = self.run_local([d])  # the study run again
        self.assertEqual(out.states[d], "running")
        self.assertTrue(any(f"kill -- -{sim}" in m for m in self.said), self.said)
        self.assertEqual(worker.run_point(d, say=self.said.append), "busy")  # a worker given it anyway
        self.assertEqual(self.ran(), [2000])  # one simulator started, ever
        self.assertEqual(self.fake_pids(), [sim])

    def test_a_point_runs_again_once_its_orphaned_simulator_ends(self):
        d, = self.points(2000)
        sim = self.orphan(d)
        self.assertEqual(points.state(d), "running")
        with open(self.path("go"), "w"):
            pass  # the orphan finishes
        self.until("the orphaned simulator gone", lambda: not self.lives(sim))
        self.until("its lock released", lambda: points.state(d) == "todo")  # its result was not recorded
        self.assertEqual(self.run_local([d]).states[d], "done")
        self.assertEqual(self.ran(), [2000, 2000])
        self.assertEqual(points.result(d)["gflops"], 2.0)

    def test_nothing_a_simulator_leaves_behind_outlives_it(self):
        d, = self.points(2000)
        os.environ["FAKE_STRAY"] = self.path("stray")
        self.assertEqual(self.run_local([d]).states[d], "done")
        stray = int(self.read(self.path("stray")))
        self.until("the stray process killed", lambda: not self.lives(stray), timeout=10)

    def test_not_a_point(self):
        with self.assertRaisesRegex(CliError, "not a point"):
            engine.run_points([self.path("nothing")])


class Slurm(EngineCase):
    """What the engine asks of Slurm, with fake sinfo, sbatch and squeue."""

    def fake(self, name, body):
        d = self.path("bin")
        os.makedirs(d, exist_ok=True)
        with open(os.path.join(d, name), "w") as f:
            f.write("#!/bin/sh\n" + body + "\n")
        os.chmod(os.path.join(d, name), 0o755)
        os.environ["PATH"] = d + os.pathsep + os.environ.get("PATH", "")

    def queued_in(self, job, dirs, squeue, live, tasks):
        """dirs submitted without --wait as Slurm job `job`, its array tasks
        `tasks` in the queue: written in the file live, which the fake
        squeue (the shell code squeue) answers."""
        self.fake("sinfo", "echo local")
        self.fake("sbatch", f"echo {job}")
        self.fake("squeue", squeue)
        with open(live, "w") as f:
            f.write("".join(f"{t}\n" for t in tasks))
        engine.run_points(dirs, "slurm", wait=False, say=None)

    def tasks_later(self, d, tasks, live):
        """In a second, the array tasks `tasks` of the job that queued point d
        run their points one after the other, as Slurm would start them; then
        the job leaves the queue (the file live, squeue's answer, emptied)."""
        lst = json.loads(self.read(d, "queued.json"))["list"]
        runner = subprocess.Popen(["sh", "-c", f"sleep 1; for i in {' '.join(map(str, tasks))}; do "
                                   f"SLURM_ARRAY_TASK_ID=$i sh {self.path('points', '.engine', 'task.sh')} {lst} 1; "
                                   f"done; : > {live}"], env=worker.worker_env(), stdout=subprocess.DEVNULL)
        self.addCleanup(runner.wait)

    def test_unreachable_slurm_names_the_local_cluster_and_the_local_engine(self):
        dirs = self.points(1000)
        self.fake("sbatch", "exit 0")
        self.fake("squeue", "exit 0")
        self.fake("sinfo", "echo 'sinfo: error: Unable to contact slurm controller (connect failure)' >&2; exit 1")
        with self.assertRaises(CliError) as c:
            engine.run_points(dirs, "slurm", say=None)
        msg = str(c.exception)
        self.assertEqual(c.exception.status, 2)
        self.assertIn("Slurm is unreachable (sinfo: error: Unable to contact slurm controller (connect failure))", msg)
        self.assertIn("sh scripts/local-slurm.sh start", msg)
        self.assertIn("--engine local", msg)
        self.assertNotIn("\n", msg)
        self.assertEqual(points.state(dirs[0]), "todo")
        self.assertFalse(os.path.exists(self.path("points", ".engine")))
        os.environ["PATH"] = "/nonexistent"
        with self.assertRaisesRegex(CliError, r"Slurm is unreachable \(sbatch is not installed"):
            engine.run_points(dirs, "slurm", say=None)

    def test_submitted_points_are_queued_and_run_by_their_task(self):
        dirs = self.points(1000, 2000, 4000)
        self.fake("sinfo", "echo local")
        # sbatch --parsable: 'id;cluster'; records its arguments
        self.fake("sbatch", f"echo \"$@\" > {self.path('sbatch.args')}\necho '4242;cluster'")
        self.fake("squeue", f"cat {self.path('live')} 2>/dev/null")
        with open(self.path("live"), "w") as f:
            f.write("0\n1\n")
        out = engine.run_points(dirs, "slurm", wait=False, per_task=2, slurm_opts=["-p big --time=10", "--mem=1G"],
                                say=self.said.append)
        self.assertEqual((out.job, out.finished), ("4242", False))
        self.assertEqual(self.ran(), [])
        args = self.read(self.path("sbatch.args")).split()
        self.assertEqual(args[:5], ["--parsable", "--array=0-1", "--job-name=simblas-study", "--cpus-per-task=1",
                                    f"--output={self.path('points', '.engine', 'slurm-%A_%a.out')}"])
        self.assertRegex(args[5], r"^--comment=simblas-\d{8}-\d{6}-\d+(\.\d+)?$")
        self.assertEqual(args[6:10], ["-p", "big", "--time=10", "--mem=1G"])
        script, lst, k = args[10:]
        self.assertEqual(k, "2")
        self.assertEqual(self.read(lst).split(), dirs)
        self.assertEqual([points.state(d) for d in dirs], ["queued"] * 3)
        self.assertEqual([json.loads(self.read(d, "queued.json"))["task"] for d in dirs], [0, 0, 1])
        # the local engine leaves queued points to their job
        self.assertEqual(self.run_local(dirs).count("queued"), 3)
        # task 1 runs its share (the third point), as Slurm would start it
        r = subprocess.run(["sh", script, lst, k], env=dict(worker.worker_env(), SLURM_ARRAY_TASK_ID="1",
                                                             SLURM_ARRAY_JOB_ID="4242"),
                           capture_output=True, text=True)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(self.ran(), [4000])
        self.assertEqual([points.state(d) for d in dirs], ["queued", "queued", "done"])
        self.assertFalse(os.path.exists(os.path.join(dirs[2], "queued.json")))
        # task 0 ends without running its points (killed): they are to do again
        with open(self.path("live"), "w") as f:
            f.write("")
        self.assertEqual([points.state(d) for d in dirs], ["todo", "todo", "done"])

    def test_a_late_sbatch_is_found_by_its_tag(self):
        """sbatch that submitted the job but said its id after the engine's
        timeout: the points were left to do under a running job ('Slurm is
        unreachable'), so a second submission ran them twice; the job is now
        found in the queue by its submission's comment.  With no such job,
        it stays unreachable, and says that nothing was submitted."""
        dirs = self.points(1000, 2000)
        self.fake("sinfo", "echo local")
        self.fake("sbatch", f"echo \"$@\" > {self.path('sbatch.args')}\nsleep 3\necho 4343")
        # squeue -n simblas-study -o '%F %k': the study jobs and their comments; -j JOB -o %K: its tasks
        self.fake("squeue", f"tag=$(tr ' ' '\\n' < {self.path('sbatch.args')} | sed -n 's/^--comment=//p')\n"
                            'case "$*" in *simblas-study*) echo "4300 simblas-other"; echo "4343 $tag" ;; '
                            '*) echo 0; echo 1 ;; esac')
        with mock.patch.object(slurm_engine, "SBATCH_TIMEOUT_S", 1):
            out = engine.run_points(dirs, "slurm", wait=False, say=self.said.append)
        self.assertEqual(out.job, "4343")
        self.assertEqual([points.state(d) for d in dirs], ["queued", "queued"])
        self.assertIn("sbatch did not answer within 1 s, but Slurm holds the submission as job 4343", self.said)
        self.fake("squeue", "echo \"4300 simblas-other\"")
        dirs = self.points(3000)
        with mock.patch.object(slurm_engine, "SBATCH_TIMEOUT_S", 1), self.assertRaises(CliError) as c:
            engine.run_points(dirs, "slurm", wait=False, say=self.said.append)
        self.assertIn("sbatch did not answer within 1 s; no job of this submission is in the queue", str(c.exception))
        self.assertEqual(points.state(dirs[0]), "todo")
        # squeue failing too (an overloaded controller) was taken as 'no job of this submission is in the queue'
        self.fake("squeue", "echo 'squeue: error: Socket timed out on send/recv operation' >&2; exit 1")
        with mock.patch.object(slurm_engine, "SBATCH_TIMEOUT_S", 1), self.assertRaises(CliError) as c:
            engine.run_points(dirs, "slurm", wait=False, say=self.said.append)
        self.assertNotIn("no job of this submission is in the queue", str(c.exception))
        self.assertRegex(str(c.exception), r"sbatch did not answer within 1 s; squeue did not answer either, so "
                                           r"whether Slurm holds the submission is not known: .* its comment "
                                           r"simblas-\d{8}-\d{6}-\d+(\.\d+)? in `squeue -n simblas-study")

    def test_two_submissions_in_one_second_have_their_own_list_and_tag(self):
        """Two submissions of one process in one second wrote one list file
        (points-STAMP.txt), the second over the first while its job was
        queued: the first job's tasks ran the second's points, and left its
        own not run; both had one tag, by which a late sbatch is found."""
        dirs = self.points(1000, 2000)
        self.fake("sinfo", "echo local")
        self.fake("sbatch", f"echo \"$@\" >> {self.path('sbatch.args')}\necho 71")
        self.fake("squeue", "echo 0")
        with mock.patch.object(slurm_engine.time, "strftime", return_value="20250101-120000"):
            for d in dirs:
                engine.run_points([d], "slurm", wait=False, say=None)
        lists = [json.loads(self.read(d, "queued.json"))["list"] for d in dirs]
        self.assertNotEqual(lists[0], lists[1])
        self.assertEqual([self.read(x).split() for x in lists], [[d] for d in dirs])
        tags = [a for a in self.read(self.path("sbatch.args")).split() if a.startswith("--comment=")]
        self.assertEqual(len(set(tags)), 2, tags)

    def test_wait_waits_for_points_queued_by_an_earlier_submission(self):
        """A second --wait while the first array was still queued returned at
        once, its points queued, as if done (tune then told them failed)."""
        dirs = self.points(1000, 2000)
        self.queued_in("51", dirs, f"cat {self.path('live')} 2>/dev/null", self.path("live"), [0, 1])
        # the first job runs its points while the second command waits
        self.tasks_later(dirs[0], [0, 1], self.path("live"))
        out = engine.run_points(dirs, "slurm", wait=True, say=self.said.append, poll_s=0.05)
        self.assertEqual([out.states[d] for d in dirs], ["done", "done"])
        self.assertEqual(self.ran(), [1000, 2000])
        self.assertTrue(any("[2/2] done" in s for s in self.said), self.said)
        self.assertEqual(self.said[0], "waiting for 2 point(s) in Slurm job 51 (^C leaves them running)")
        self.assertEqual(self.said[-1], "Slurm job 51 ended: 2 of 2 point(s) done, 0 failed")

    def test_wait_says_what_it_waits_for_then_how_it_ended(self):
        """With --wait, the points of an earlier job were said 'left to them
        (... remove the file to run it here when the job is gone)' before
        the command waited for them, and their job ending without them was
        not said; the hand-off line is for a command that does not wait."""
        dirs = self.points(1000, 2000)
        self.queued_in("61", dirs[:1], f'case "$*" in *"-j 61 "*) cat {self.path("live61")} 2>/dev/null ;; esac',
                       self.path("live61"), [0])
        engine.run_points(dirs[:1], "slurm", wait=False, say=self.said.append)  # nothing to submit: left to job 61
        self.assertEqual(len([s for s in self.said if "queued in a Slurm job elsewhere: left to them" in s]), 1)
        self.tasks_later(dirs[0], [0], self.path("live61"))
        self.fake("sbatch", "echo 62")  # job 62, the second point's, cancelled before it started
        self.said = []
        out = engine.run_points(dirs, "slurm", wait=True, say=self.said.append, poll_s=0.05)
        self.assertEqual([out.states[d] for d in dirs], ["done", "todo"])
        self.assertFalse(any("left to them" in s for s in self.said), self.said)
        self.assertIn("waiting for 2 point(s): 1 in Slurm job 62, 1 in Slurm job 61 (^C leaves them running)",
                      self.said)
        self.assertIn("Slurm jobs 62, 61 ended: 1 of 2 point(s) done, 0 failed, 1 not run", self.said)
        self.assertTrue(any(s.startswith("Slurm job 62 ended without running 1 point(s), and none") for s in self.said),
                        self.said)
        self.assertLess(self.said.index("waiting for 2 point(s): 1 in Slurm job 62, 1 in Slurm job 61 (^C leaves "
                                        "them running)"), min(i for i, s in enumerate(self.said) if "] done" in s))

    def test_a_retried_point_its_job_never_ran_is_not_said_to_fail_again(self):
        """A failed point retried in a job cancelled before it ran was said
        '[1/1] failed: <the old message>', and not among those not run."""
        d, = self.points(3000)
        self.assertEqual(self.run_local([d]).count("failed"), 1)
        self.fake("sinfo", "echo local")
        self.fake("sbatch", "echo 53")
        self.fake("squeue", "exit 0")  # the job gone: cancelled
        self.said = []
        out = engine.run_points([d], "slurm", wait=True, say=self.said.append, poll_s=0.05)
        self.assertEqual(out.states[d], "failed")  # its last attempt's
        self.assertFalse(any("] failed" in s for s in self.said), self.said)
        self.assertTrue(any("job 53 ended without running 1 point(s)" in s for s in self.said), self.said)
        self.assertEqual(self.ran(), [3000])

    def test_points_not_run_name_only_the_task_logs_there_are(self):
        """A job whose tasks never started (cancelled while pending) was said
        to end 'a task killed, or one that could not start: see
        SPOOL/slurm-JOB_*.out', logs that were never written; the message
        names the logs there are, and says so when there is none."""
        dirs = self.points(1000, 2000, 4000)
        self.fake("sinfo", "echo local")
        self.fake("sbatch", "echo 54")
        self.fake("squeue", "exit 0")  # cancelled before any task started
        out = engine.run_points(dirs, "slurm", wait=True, say=self.said.append, poll_s=0.05)
        self.assertEqual(out.count("todo"), 3)
        spool = self.path("points", ".engine")
        said = [s for s in self.said if "ended without running" in s]
        self.assertEqual(len(said), 1, self.said)
        self.assertNotIn(".out", said[0])
        self.assertIn("Slurm job 54 ended without running 3 point(s), and none of the 3 array task(s) that held "
                      f"them started (no task log in {spool}): cancelled while pending", said[0])
        self.assertIn("--slurm-opt", said[0])
        self.assertIn("sacct -j 54", said[0])
        self.assertTrue(any(f"each task logs to {spool}/slurm-54_TASK.out once it starts" in s for s in self.said),
                        self.said)
        # task 1 started and was killed (its log written), tasks 0 and 2 never started: task 1's log alone
        self.fake("sbatch", "echo 55")
        os.makedirs(spool, exist_ok=True)
        with open(os.path.join(spool, "slurm-55_1.out"), "w") as f:
            f.write("slurmstepd: error: *** JOB 55 CANCELLED ***\n")
        self.said = []
        engine.run_points(dirs, "slurm", wait=True, say=self.said.append, poll_s=0.05)
        said = [s for s in self.said if "ended without running" in s]
        self.assertEqual(said, [f"Slurm job 55 ended without running 3 point(s) (a task killed, or one that failed): "
                                f"see {spool}/slurm-55_1.out; 2 of its task(s) that held them never started (no log); "
                                "they are to do again"])
        self.assertEqual(self.ran(), [])

    def test_stopped_waiting_says_how_to_follow_the_job(self):
        """^C while waiting said `simblas-hpl study status` follows the job,
        also to run --engine slurm and tune, whose directories are no study."""
        dirs = self.points(1000)
        self.fake("sinfo", "echo local")
        self.fake("sbatch", "echo 52")
        self.fake("squeue", "echo 0")
        sleep = time.sleep

        def interrupted(s):  # the engine's poll, not subprocess's own sleeps
            if s == 7.5:
                raise KeyboardInterrupt
            sleep(s)
        with mock.patch.object(slurm_engine.time, "sleep", side_effect=interrupted):
            with self.assertRaises(CliError) as c:
                engine.run_points(dirs, "slurm", wait=True, say=None, poll_s=7.5,
                                  follow="run the same command again to collect it")
        self.assertEqual(c.exception.status, 130)
        self.assertEqual(str(c.exception), "stopped waiting: Slurm job 52 goes on (scancel 52 stops it); "
                                           "run the same command again to collect it")
        # waiting also for job 52's point, the new job 57 already gone (cancelled): job 57 was said to go on,
        # scancel 57 to stop it, and nothing of job 52
        more = dirs + self.points(2000)
        self.fake("sbatch", "echo 57")
        self.fake("squeue", 'case "$*" in *"-j 52 "*) echo 0 ;; esac')
        with mock.patch.object(slurm_engine.time, "sleep", side_effect=interrupted), self.assertRaises(CliError) as c:
            engine.run_points(more, "slurm", wait=True, say=None, poll_s=7.5, follow="follow it")
        self.assertEqual(str(c.exception), "stopped waiting: Slurm job 52 goes on (scancel 52 stops it); follow it")
        self.fake("squeue", "echo 0")  # both jobs queued, nothing to submit: both named
        with mock.patch.object(slurm_engine.time, "sleep", side_effect=interrupted), self.assertRaises(CliError) as c:
            engine.run_points(more, "slurm", wait=True, say=None, poll_s=7.5, follow="follow it")
        self.assertEqual(str(c.exception), "stopped waiting: Slurm jobs 52, 57 go on (scancel 52 57 stops them); "
                                           "follow it")

    def polls(self, n, s):
        """time.sleep failing the test past n of the engine's polls (its
        sleeps of s s; subprocess sleeps too): the old code waited forever."""
        sleep, count = time.sleep, [0]

        def guarded(x):
            if x == s:
                count[0] += 1
                if count[0] > n:
                    raise self.failureException(f"still waiting after {n} polls")
            sleep(x)
        return mock.patch.object(slurm_engine.time, "sleep", side_effect=guarded)

    def test_wait_says_why_the_job_waits_once_and_when_it_changes(self):
        """--wait on a pending job said what it waited for and nothing more;
        squeue's reason for its tasks is said when it first shows and when
        it changes, not every poll, and the reasons that resolve keep it
        waiting."""
        d, = self.points(1000)
        self.fake("sinfo", "echo local")
        self.fake("sbatch", "echo 81")
        # squeue -r -j 81 -o '%K %T %P %l %r': its answers in turn (| a new line), one a call, then none (job gone)
        with open(self.path("answers"), "w") as f:
            f.write("0 PENDING local 10:00 None\n"  # wait_job's first look
                    "0 PENDING local 10:00 WaitingForScheduling\n"
                    "0 PENDING local 10:00 Priority\n0 PENDING local 10:00 Priority\n"
                    "0 PENDING local 10:00 ReqNodeNotAvail, UnavailableNodes:n1\n"
                    "0 PENDING local 10:00 Priority\n0 RUNNING local 10:00 None\n")
        n = self.path("n")
        self.fake("squeue", f"i=$(($(cat {n} 2>/dev/null || echo 0) + 1)); echo $i > {n}\n"
                            f"sed -n \"${{i}}p\" {self.path('answers')} | tr '|' '\\n'")
        with self.polls(100, 0.0137):
            out = engine.run_points([d], "slurm", wait=True, say=self.said.append, poll_s=0.0137)
        self.assertEqual(out.states[d], "todo")
        self.assertEqual([s for s in self.said if " pending: " in s],
                         ["Slurm job 81 pending: Priority (jobs of higher priority go first)",
                          "Slurm job 81 pending: ReqNodeNotAvail, UnavailableNodes:n1 (a node it requires is in use, "
                          "reserved, down or drained)",
                          "Slurm job 81 pending: Priority (jobs of higher priority go first)"])
        self.assertIn("Slurm job 81 ended: 0 of 1 point(s) done, 0 failed, 1 not run", self.said)
        for r in ("Priority", "Resources", "Dependency", "BeginTime", "JobHeldUser", "PartitionDown", "NodeDown",
                  "ReqNodeNotAvail, UnavailableNodes:n[1-2]", "AssocGrpCpuLimit", "QOSGrpNodeLimit",
                  "QOSMaxCpuPerUserLimit", "MaxJobsPerAccount", "JobArrayTaskLimit", "SomeReasonOfLaterSlurm"):
            self.assertIsNone(slurm.never_starts(r), r)

    def test_wait_stops_at_once_on_a_job_that_will_never_start(self):
        """A job pending for a reason waiting does not resolve (a --time over
        the partition's MaxTime: PartitionTimeLimit) was waited for forever;
        --wait now stops with status 1 in one line saying what it means and
        the remedy, and leaves the job queued and its points with it.  The
        reason must hold (slurm_engine.STUCK_S): Slurm 22.05 says PartitionConfig
        for half a second after sbatch, then PartitionTimeLimit."""
        patch = mock.patch.object(slurm_engine, "STUCK_S", 0.2)
        patch.start()
        self.addCleanup(patch.stop)
        dirs = self.points(1000, 2000)
        self.fake("sinfo", 'case "$*" in *%l*) echo 1:00:00 ;; *) echo local ;; esac')  # the partition's MaxTime
        self.fake("sbatch", f"echo \"$@\" >> {self.path('sbatch.args')}\necho 91")
        self.fake("scancel", f"echo \"$@\" >> {self.path('scancel.args')}")
        n, live = self.path("n"), self.path("live")
        self.fake("squeue", f"i=$(($(cat {n} 2>/dev/null || echo 0) + 1)); echo $i > {n}\n"  # the first 3 calls
                            f"if [ $i -le 3 ]; then sed s/PartitionTimeLimit/PartitionConfig/ {live}; "
                            f"else cat {live}; fi")
        with open(live, "w") as f:
            f.write("0 PENDING local 4-03:00:00 PartitionTimeLimit\n1 PENDING local 4-03:00:00 PartitionTimeLimit\n")
        stuck = ("Slurm job 91 will not start: it is pending for PartitionTimeLimit (its time limit, 4-03:00:00, is "
                 "over partition local's MaxTime, 1:00:00), which waiting does not resolve; stopped waiting, the job "
                 "left as it is: `scancel 91`, then run again with a --slurm-opt=--time=... within partition local's "
                 "MaxTime, 1:00:00 (`scontrol show partition local` gives it); until then its points stay queued in it")
        for _ in range(2):  # the second run: nothing to submit, the points queued in job 91, which it waits for
            with self.polls(100, 0.0137), self.assertRaises(CliError) as c:
                engine.run_points(dirs, "slurm", wait=True, slurm_opts=["--time=99:00:00"], say=self.said.append,
                                  poll_s=0.0137)
            self.assertEqual((c.exception.status, str(c.exception)), (1, stuck))
            self.assertEqual([points.state(d) for d in dirs], ["queued", "queued"])
        self.assertEqual(len(self.read(self.path("sbatch.args")).splitlines()), 1)
        self.assertFalse(os.path.exists(self.path("scancel.args")))  # the job left to the user
        self.assertFalse(any(" pending: " in s for s in self.said), self.said)  # the error line alone
        # other reasons that never resolve, with their remedy; no MaxTime from sinfo: none said
        self.fake("sinfo", "echo local")
        for reason, remedy in (("BadConstraints", "--constraint=... of the features `sinfo -p local -o %f` lists"),
                               ("QOSMaxWallDurationPerJobLimit", "a --slurm-opt within that limit (`sacctmgr show "
                                                                 "qos`"),
                               ("InvalidAccount", "--account of `sacctmgr show assoc user=$USER`"),
                               ("DependencyNeverSatisfied", "--dependency that can still be satisfied"),
                               ("PartitionTimeLimit", "within partition local's MaxTime (`scontrol show partition "
                                                      "local` gives it)")):
            with open(self.path("live"), "w") as f:
                f.write(f"0 RUNNING local 10:00 None\n1 PENDING local 10:00 {reason}\n")
            with self.polls(100, 0.0137), self.assertRaises(CliError) as c:
                engine.run_points(dirs, "slurm", wait=True, say=None, poll_s=0.0137)
            self.assertTrue(str(c.exception).startswith(f"Slurm job 91 will not start: it is pending for {reason} ("),
                            str(c.exception))
            self.assertIn(remedy, str(c.exception))
        for r in ("PartitionNodeLimit", "PartitionConfig", "AccountNotAllowed", "QOSNotAllowed", "InvalidQOS",
                  "AssocMaxCpuPerJobLimit", "QOSMaxNodePerJobLimit", "QOSMaxMemoryPerNode", "QOSMinCpuNotSatisfied"):
            self.assertIsNotNone(slurm.never_starts(r), r)
        # cancelled (scancel 91): the points are to do, and submitted again with a --time that fits
        with open(self.path("live"), "w") as f:
            f.write("")
        self.assertEqual([points.state(d) for d in dirs], ["todo", "todo"])
        self.assertEqual(engine.run_points(dirs, "slurm", wait=False, slurm_opts=["--time=30:00"], say=None).job, "91")
        self.assertIn("--time=30:00", self.read(self.path("sbatch.args")).splitlines()[1].split())

    def test_parse_job_id_and_options(self):
        self.assertEqual(slurm.parse_job_id("123\n"), "123")
        self.assertEqual(slurm.parse_job_id("123;cluster\n"), "123")
        with self.assertRaisesRegex(CliError, "not a job id"):
            slurm.parse_job_id("sbatch: error: nope")
        self.assertEqual(slurm.slurm_options(["-p big --time 60", "--mem=4G"]),
                         ["-p", "big", "--time", "60", "--mem=4G"])
        with self.assertRaisesRegex(CliError, "--slurm-opt --array=1-3: the engine sets it"):
            slurm.slurm_options(["--array=1-3"])
        # sbatch's own --wait blocked past the engine's 60 s: 'Slurm is unreachable', status 2, the job submitted
        # and running, its points 'to do'
        for o in ("--wait", "-W"):
            with self.assertRaisesRegex(CliError, f"^--slurm-opt {o}: sbatch would wait for the job .*: drop it "
                                                  r"\(give simblas-hpl's own --wait\)$"):
                slurm.slurm_options([f"--time=10 {o}"])
        self.assertEqual(slurm.slurm_options(["--wait-all-nodes=1"]), ["--wait-all-nodes=1"])
        # --output moved the task logs away from where the engine's messages send the user; --test-only
        # submitted nothing ("sbatch answered '', not a job id", status 1)
        for o in ("--output=x.out", "-o", "-ox.out", "--error=e", "-e"):
            with self.assertRaisesRegex(CliError, f"^--slurm-opt {o}: the engine puts the task logs in its spool"):
                slurm.slurm_options([f"--time=10 {o}"])
        with self.assertRaisesRegex(CliError, "^--slurm-opt --test-only: sbatch would only check the job"):
            slurm.slurm_options(["--test-only"])
        self.assertEqual(slurm.slurm_options(["--exclusive", "-O"]), ["--exclusive", "-O"])


if __name__ == "__main__":
    unittest.main()
