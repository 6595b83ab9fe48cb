"""Errors reported as one message, and notes on stderr."""

import sys

from . import PROG


class CliError(Exception):
    """An error reported as one message; status 2 = bad usage or set-up
    (refused before any work), 1 = a failure.  `kept`: the directory of
    run files kept for the user, if any (the caller then leaves it)."""

    def __init__(self, msg, status=2, kept=None):
        super().__init__(msg)
        self.status = status
        self.kept = kept

    def __reduce__(self):  # picklable whole, for process pools
        return (type(self), (str(self), self.status, self.kept))


class Terminated(Exception):
    """SIGTERM or SIGHUP while a simulation runs."""

    def __init__(self, signum):
        super().__init__(signum)
        self.signum = signum


def note(msg):
    print(f"{PROG}: {msg}", file=sys.stderr, flush=True)
