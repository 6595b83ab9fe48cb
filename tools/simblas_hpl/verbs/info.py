"""simblas-hpl info: the HPL build a run uses."""

import json
import os

from ..builds import load_build
from ..errors import CliError
from ..locations import data_root

NAME = "info"
ORDER = 3
HELP = "show the current HPL build (JSON)"
USAGE = "%(prog)s [--build-id ID]"
DESCRIPTION = "Print the manifest of the HPL build that runs use (JSON)."


def add_arguments(i):
    i.add_argument("--build-id", metavar="ID")


def main(args):
    b = load_build(args.build_id)
    if not b:
        raise CliError(f"no HPL build in {data_root()}: run `simblas-hpl build` first")
    d, man = b
    man["dir"] = d
    man["available"] = {m: os.path.join(d, n) for m, n in man.get("binaries", {}).items()
                        if os.path.isfile(os.path.join(d, n))}
    print(json.dumps(man, indent=2))
    return 0
