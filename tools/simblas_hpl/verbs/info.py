"""simblas-hpl info: the HPL builds, and the one a run uses."""

import json

from .. import builds
from ..errors import CliError, note
from ..locations import data_root

NAME = "info"
ORDER = 3
HELP = "show the HPL builds and the one runs use (JSON)"
USAGE = "%(prog)s [--build-id ID]"
DESCRIPTION = ("Print the manifest of the HPL build that runs use (the default, SIMBLAS_HPL_BUILD, or --build-id "
               "ID) as JSON, with the list of every build (its ID, source and date); the same list, one build a "
               "line, on stderr.")


def add_arguments(i):
    i.add_argument("--build-id", metavar="ID", help="the build to show (default: the one runs use)")


def main(args):
    b, by = builds.choose(args.build_id)
    if not b:
        raise CliError(f"no HPL build in {data_root()}: run `simblas-hpl build` first")
    default = builds.file_default()
    every = builds.all_builds()
    man = dict(b.manifest)
    man["dir"] = b.dir
    man["available"] = {m: b.binary(m) for m in builds.BINARIES if b.binary(m)}
    man["chosen_by"] = by
    man["builds"] = [{"id": x.id, "source": x.manifest.get("source"), "source_kind": x.manifest.get("source_kind"),
                      "built": x.manifest.get("built"), "default": x.id == default} for x in every]
    bid, how = builds.default_id()
    uses = (f"; SIMBLAS_HPL_BUILD={bid} overrides it: runs without --build-id use {bid}" if how == "SIMBLAS_HPL_BUILD"
            else ", which runs without --build-id use")
    note(f"HPL builds in {data_root()} ({len(every)}; * the default{uses}):")
    for x in every:
        note(f"{'*' if x.id == default else ' '} {x.describe()}")
    print(json.dumps(man, indent=2))
    return 0
