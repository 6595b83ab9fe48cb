"""This host's processes, as /proc shows them: whether one lives (and is
the one that started then), and whether a process group still has any."""

import os

DEAD = ("Z", "X")  # a zombie holds nothing: its files are closed


def stat(pid):
    """(state, parent, process group, start time in clock ticks since boot)
    of process pid, or None when it is not there or /proc cannot say."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()  # after the command's name, which may hold anything
        return fields[0], int(fields[1]), int(fields[2]), int(fields[19])
    except (OSError, IndexError, ValueError):
        return None


def started(pid):
    """The start time of process pid if it lives (not a zombie), else None."""
    s = stat(pid)
    return s[3] if s and s[0] not in DEAD else None


def group_lives(pgid):
    """Whether a process of group pgid lives (zombies do not count)."""
    try:
        names = os.listdir("/proc")
    except OSError:
        return False
    for n in names:
        if n.isdigit():
            s = stat(n)
            if s and s[2] == pgid and s[0] not in DEAD:
                return True
    return False


def keep_priority(pid):
    """Give the autogroup of process pid, which has just started a session
    of its own (Popen's start_new_session), the niceness pid runs at (19 at
    SCHED_IDLE).  With kernel.sched_autogroup_enabled, Linux shares the CPU
    between sessions first and applies a process's nice and SCHED_IDLE only
    inside its own: a `nice -n 19 simblas-hpl study` or `chrt -i 0 ...`
    whose points each start a session would otherwise take as much CPU as
    any other session, as a foreground run measured beside them showed
    (2026-11-30).  Called by the parent after Popen, not as a preexec_fn:
    no Python runs in a child forked from a process with threads.  Nothing
    is done where the file is absent, for nice 0 and below, or once pid has
    gone."""
    try:
        n = 19 if os.sched_getscheduler(pid) == os.SCHED_IDLE else os.getpriority(os.PRIO_PROCESS, pid)
        if n > 0:
            with open(f"/proc/{pid}/autogroup", "w") as f:
                f.write(str(n))
    except OSError:
        pass
