"""SIGTERM and SIGHUP (signals.py), the one helper of every place that
turns them into exceptions: Terminated(signum) for a simulation
(launch.simulate) and the engine's workers and pool, KeyboardInterrupt for
validate and refine (stopped as by ^C); the handlers of before put back
where a guarded block ends, and never called while it runs."""

import os
import signal
import threading
import time

from support import Sandbox
from test_engine import EngineCase
from simblas_hpl import engine, signals
from simblas_hpl.errors import CliError, Terminated

TERM = (signal.SIGTERM, signal.SIGHUP)


def kill_self(sig, handled=lambda: False):
    """sig to this process, and a wait (2 s at most, less once handled())
    in which its handler runs, in this thread."""
    os.kill(os.getpid(), sig)
    deadline = time.monotonic() + 2
    while not handled() and time.monotonic() < deadline:
        time.sleep(0.01)


def kill_self_once(path, sig=signal.SIGTERM, timeout=60):
    """A thread that sends sig to this process once path exists (the
    guarded block under way in the main thread)."""
    def wait():
        deadline = time.monotonic() + timeout
        while not os.path.exists(path) and time.monotonic() < deadline:
            time.sleep(0.02)
        os.kill(os.getpid(), sig)
    t = threading.Thread(target=wait, daemon=True)
    t.start()
    return t


class Handlers(Sandbox):
    """Each test's own handlers for SIGTERM and SIGHUP, which count what
    they are called with; the process's put back after it."""

    def setUp(self):
        super().setUp()
        saved = {s: signal.getsignal(s) for s in TERM}
        self.addCleanup(signals.restore, saved)
        self.got = []
        self.mine = lambda signum, frame: self.got.append(signum)
        for s in TERM:
            signal.signal(s, self.mine)

    def assertMine(self):
        self.assertEqual([signal.getsignal(s) for s in TERM], [self.mine, self.mine])


class Helper(Handlers):
    def test_terminated_then_restored(self):
        for sig in TERM:
            with self.subTest(sig=sig):
                previous = signals.raise_on_term()
                self.assertEqual(previous, {s: self.mine for s in TERM})
                try:
                    with self.assertRaises(Terminated) as e:
                        kill_self(sig)
                    self.assertEqual(e.exception.signum, sig)
                finally:
                    signals.restore(previous)
                self.assertEqual(self.got, [])  # the handler of before is not chained to
                self.assertMine()
                kill_self(sig, lambda: self.got)
                self.assertEqual(self.got, [sig])
                self.got.clear()

    def test_interrupt(self):
        previous = signals.raise_on_term(interrupt=True)
        try:
            for sig in TERM:
                with self.subTest(sig=sig), self.assertRaises(KeyboardInterrupt) as e:
                    kill_self(sig)
                self.assertIs(type(e.exception), KeyboardInterrupt)
        finally:
            signals.restore(previous)
        self.assertEqual(self.got, [])
        self.assertMine()

    def test_nested(self):
        # a simulation inside validate: Terminated while it runs, validate's KeyboardInterrupt again after it
        outer = signals.raise_on_term(interrupt=True)
        try:
            inner = signals.raise_on_term()
            try:
                with self.assertRaises(Terminated):
                    kill_self(signal.SIGTERM)
            finally:
                signals.restore(inner)
            with self.assertRaises(KeyboardInterrupt):
                kill_self(signal.SIGTERM)
        finally:
            signals.restore(outer)
        self.assertMine()

    def test_main_thread_only(self):
        # as signal.signal: another thread cannot set a handler (launch.simulate does not ask it there)
        caught = []

        def other():
            try:
                signals.raise_on_term()
            except ValueError as e:
                caught.append(e)
        t = threading.Thread(target=other)
        t.start()
        t.join()
        self.assertEqual(len(caught), 1)
        self.assertMine()


RESULT = "WR11C2R4        8000   128     2     2               1.91              1.786e+02"


class Simulate(Handlers):
    """launch.simulate: a SIGTERM stops the simulation (CliError, status
    143), the handlers of before put back; off the main thread, none set."""

    def setUp(self):
        super().setUp()
        self.started = self.path("started")

    def test_sigterm_stops_the_simulation(self):
        with open(self.env["SMPIRUN"], "w") as f:
            f.write(f"#!/bin/sh\ntouch {self.started}\nsleep 60\n")
        kill_self_once(self.started)
        status, out, err = self.cli("run", "--n", 8000, "--nb", 128, "--p", 2, "--q", 2, "--xhpl", self.xhpl,
                                    "--keep", self.path("k"))
        self.assertEqual(status, 128 + signal.SIGTERM, err)
        self.assertIn("interrupted (SIGTERM): the simulation was stopped", err)
        self.assertEqual(self.got, [])
        self.assertMine()

    def test_off_the_main_thread(self):
        with open(self.env["SMPIRUN"], "w") as f:
            f.write(f"#!/bin/sh\necho '{RESULT}'\n")
        got = []
        t = threading.Thread(target=lambda: got.append(self.cli("run", "--n", 8000, "--nb", 128, "--p", 2, "--q", 2,
                                                                "--xhpl", self.xhpl, "--keep", self.path("k"))))
        t.start()
        t.join()
        self.assertEqual(got[0][0], 0, got[0][2])
        self.assertMine()


class Engine(EngineCase, Handlers):
    """The local engine: a SIGTERM stops its workers (each stops its
    simulation, its point to do again), CliError status 143, the handlers
    of before put back."""

    def test_sigterm_stops_the_points(self):
        d, = self.points(2000)
        os.environ["FAKE_UNTIL"] = self.path("never")
        kill_self_once(self.calls)  # once the fake simulator runs
        with self.assertRaises(CliError) as e:
            self.run_local([d], jobs=1)
        self.assertEqual(e.exception.status, 128 + signal.SIGTERM)
        self.assertIn("interrupted: the 1 running point(s) were stopped and are to do again", str(e.exception))
        self.assertIn(f"{d}: interrupted", self.read(d, "worker.log"))  # the worker stopped its simulation
        self.assertEqual(engine.state(d), "todo")
        self.assertEqual(self.got, [])
        self.assertMine()


class Verbs(Handlers):
    """validate and refine: SIGTERM and SIGHUP stop them as ^C does (their
    mpirun with them), from the start of their main."""

    def test_validate_and_refine(self):
        for argv in (("validate", "--runs", "0"), ("refine", "--n", "1", "--config", "1000:1x1")):
            with self.subTest(verb=argv[0]):
                status, out, err = self.cli(*argv)
                self.assertEqual(status, 2, err)  # refused after main set the handlers
                for sig in TERM:
                    with self.assertRaises(KeyboardInterrupt):
                        kill_self(sig)
                for s in TERM:
                    signal.signal(s, self.mine)
        self.assertEqual(self.got, [])
