"""Watching a running simulation: its memory (PssSampler) and how far its
panel loop is (Progress)."""

import os
import re
import threading
import time

from . import units
from .errors import note
from .files import read_text
from .memory import meminfo


class PssSampler(threading.Thread):
    """Peak of the summed Pss (/proc/PID/smaps_rollup) of a process tree: a page
    mapped many times (SMPI/SimBLAS folding) counts once, unlike RSS.
    Started before the process it samples (a thread that cannot start then
    fails before the simulator does), and given its pid with attach()."""

    def __init__(self, interval=0.2, hugetlb=False):
        super().__init__(daemon=True)
        self.pid, self.interval = None, interval
        self.attached = threading.Event()
        self.peak_kb, self.samples = 0, 0
        # huge pages (--hugepages) are in no process's Pss: with them, the
        # machine's huge pages in use beyond those in use at the start
        self.hugetlb = hugetlb
        self.huge_base_kb = self.huge_used_kb() if hugetlb else 0
        self.peak_huge_kb = 0
        self.peak_vm_kb, self.peak_maps = 0, 0  # of the largest process (smpimain)
        self.done = threading.Event()

    @staticmethod
    def children(pid):
        kids = []
        try:
            for tid in os.listdir(f"/proc/{pid}/task"):
                kids += [int(x) for x in read_text(f"/proc/{pid}/task/{tid}/children").split()]
        except OSError:
            pass
        return kids

    def tree(self):
        pids, todo = [], [self.pid]
        while todo:
            p = todo.pop()
            pids.append(p)
            todo.extend(self.children(p))
        return pids

    @staticmethod
    def pss_kb(pid):
        text = read_text(f"/proc/{pid}/smaps_rollup")
        m = re.search(r"^Pss:\s+(\d+) kB", text, re.M)
        if m:
            return int(m.group(1))
        m = re.search(r"^VmRSS:\s+(\d+) kB", read_text(f"/proc/{pid}/status"), re.M)
        return int(m.group(1)) if m else 0

    @staticmethod
    def huge_used_kb():
        mi = meminfo()
        return (mi.get("HugePages_Total", 0) - mi.get("HugePages_Free", 0)) * mi.get("Hugepagesize", 2048)

    def attach(self, pid):
        self.pid = pid
        self.attached.set()

    def run(self):
        self.attached.wait()
        while not self.done.is_set():
            t0 = time.monotonic()
            pids = self.tree()
            total = sum(self.pss_kb(p) for p in pids)
            if self.hugetlb:
                huge = max(0, self.huge_used_kb() - self.huge_base_kb)
                self.peak_huge_kb = max(self.peak_huge_kb, huge)
                total += huge
            self.peak_kb = max(self.peak_kb, total)
            for p in pids:
                m = re.search(r"^VmSize:\s+(\d+) kB", read_text(f"/proc/{p}/status"), re.M)
                if m and int(m.group(1)) > self.peak_vm_kb:
                    self.peak_vm_kb = int(m.group(1))
                    self.peak_maps = max(self.peak_maps, read_text(f"/proc/{p}/maps").count("\n"))
            self.samples += 1
            # faster at first (short runs), then every `interval`; smaps_rollup
            # walks every mapping: keep its cost under ~2 % of a core (at
            # 41,000 ranks a sample takes 0.1 s or more, and 5 % of a core
            # was 3 % of the machine beside the real runs of a validation)
            start = min(self.interval, 0.01 * 2 ** min(self.samples, 10))
            self.done.wait(max(start, 50 * (time.monotonic() - t0)))

    def stop(self):
        self.done.set()
        self.attached.set()
        if self.is_alive():
            self.join(timeout=5)


class Progress(threading.Thread):
    """--progress SEC: every SEC seconds of wall, one line on stderr from the
    iteration log libsimblas writes (rank 0's mark at each panel iteration):
    how far the panel loop is, the simulated time so far, and the time to go
    at the pace of the last few minutes.  For runs of hours (Stampede's
    3,785 iterations: 1.5 h here)."""

    def __init__(self, path, total, every):
        super().__init__(daemon=True)
        self.path, self.total, self.every = path, total, every
        self.done = threading.Event()
        # marks: (count, simulated s, wall s of libsimblas's clock when rank 0 made it)
        self.pos, self.marks, self.count, self.t0 = 0, [], 0, time.monotonic()

    def poll(self):
        try:
            with open(self.path) as f:
                f.seek(self.pos)
                text = f.read()
        except OSError:
            return
        cut = text.rfind("\n") + 1  # whole lines only; the rest next time
        self.pos += len(text[:cut].encode())
        for line in text[:cut].splitlines():
            f = line.split()
            if len(f) >= 4 and f[0] == "iter":
                self.count += 1
                self.marks.append((self.count, float(f[2]), float(f[3])))
            elif len(f) >= 2 and f[0] == "seg" and f[1] != "0" and self.count:
                # with --samples, a pass's last mark ends it (its K-th
                # iteration) and the next pass's first mark starts the
                # next iteration: the same count, not one more
                self.count -= 1

    def line(self, now=None):
        """The progress line at `now` (time.monotonic(), the CLOCK_MONOTONIC
        libsimblas stamps its marks with).  Mark n is the start of panel
        iteration n (1-based) and the end of the n - 1 before it.  The time
        to go counts the current iteration's time so far: an iteration
        that runs longer than the recent pace (41,000 ranks: 19 s, then
        345 s) is not reported as about to end, and the pace the rest is
        reckoned at takes it in, as a finished iteration of at least that
        length (one iteration there can cost 15 times another)."""
        now = time.monotonic() if now is None else now
        if not self.marks:
            return f"{units.fmt_duration(now - self.t0)} of wall, set-up (no panel iteration yet)"
        n, sim, last = self.marks[-1]
        simulated = f"{sim:,.0f}" if sim >= 100 else f"{sim:.3g}"
        msg = f"{units.fmt_duration(now - self.t0)} of wall, panel iteration {n:,} of {self.total:,} " \
              f"({100 * (n - 1) / self.total:.1f}% done), {simulated} s simulated"
        since = now - last
        if not 0 <= since < 1e6:  # another clock: no current-iteration figure
            since = 0.0
        recent = [m for m in self.marks if m[2] >= last - max(600, 3 * self.every)]
        if len(recent) >= 2 and recent[-1][0] > recent[0][0] and n <= self.total:
            span, count = recent[-1][2] - recent[0][2], recent[-1][0] - recent[0][0]
            pace = span / count
            ahead = (span + since) / (count + 1) if since > pace else pace
            to_go = ahead * (self.total - n) + max(ahead - since, 0.0)
            msg += f", {pace:.3g} s of wall per iteration"
            if since > 2 * pace and since >= 60:
                msg += f", this one running for {units.fmt_duration(since)}"
            msg += f": about {units.fmt_duration(to_go)} to go"
        return msg

    def run(self):
        while not self.done.wait(self.every):
            self.poll()
            note(self.line())

    def stop(self):
        self.done.set()
