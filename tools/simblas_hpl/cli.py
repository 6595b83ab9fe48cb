"""The command line: `simblas-hpl VERB [options]`.  Each verb is a module of
simblas_hpl.verbs with NAME, ORDER (its place in --help), HELP (one line),
DESCRIPTION, USAGE (the man page's synopsis), add_arguments(parser) and
main(args) -> exit status; a new verb is a new module there (and a line of
Makefile.am, which installs it and makes its man page)."""

import argparse
import importlib
import pkgutil
import signal
import sys

from . import PROG, VERSION, verbs
from .errors import CliError, Terminated


class Parser(argparse.ArgumentParser):
    def error(self, message):  # one line, status 2
        raise CliError(f"{self.prog}: {message} (see --help)")

    def format_help(self):  # "Usage:", which help2man makes the man page's synopsis
        text = super().format_help()
        return "Usage:" + text[len("usage:"):] if text.startswith("usage:") else text


def verb_modules():
    """The verb modules, in their ORDER."""
    mods = [importlib.import_module(f"{verbs.__name__}.{m.name}") for m in pkgutil.iter_modules(verbs.__path__)]
    return sorted((m for m in mods if hasattr(m, "NAME")), key=lambda m: m.ORDER)


def build_parser():
    ap = Parser(prog=PROG, usage=f"{PROG} {{{','.join(m.NAME for m in verb_modules())}}} [options]",
                description="Build HPL against SimBLAS and simulate it with SimGrid/SMPI.",
                epilog=f"Each verb has its --help ({PROG} VERB --help) and its manual page (simblas-hpl-VERB). "
                       "Manual: the SimBLAS user guide (doc/user-guide.md).")
    ap.add_argument("--version", action="version", version=f"{PROG} {VERSION}")
    sub = ap.add_subparsers(dest="cmd", parser_class=Parser)
    for mod in verb_modules():
        p = sub.add_parser(mod.NAME, prog=f"{PROG} {mod.NAME}", help=mod.HELP, description=mod.DESCRIPTION,
                           usage=mod.USAGE)
        mod.add_arguments(p)
        p.set_defaults(verb=mod.main)
    return ap


def main(argv=None):
    try:
        ap = build_parser()  # (its choices and defaults read the settings table)
        args = ap.parse_args(argv)
        if not args.cmd:
            ap.print_help(sys.stderr)
            return 2
        return args.verb(args)
    except CliError as e:
        msg = str(e)
        if not msg.startswith(PROG):
            msg = f"{PROG}: {msg}"
        print(msg, file=sys.stderr)
        return e.status
    except KeyboardInterrupt:
        print(f"{PROG}: interrupted", file=sys.stderr)
        return 130
    except Terminated as e:  # a verb that turned SIGTERM or SIGHUP into it, caught nowhere before
        print(f"{PROG}: interrupted ({signal.Signals(e.signum).name})", file=sys.stderr)
        return 128 + e.signum
