"""simblas-hpl build: download, patch and build HPL."""

from .. import hplbuild

NAME = "build"
ORDER = 1
HELP = "download, patch and build HPL (the xhpl-* binaries)"
USAGE = ("%(prog)s [--hpl-tarball FILE | --hpl-dir DIR] [--build-id ID] [--make-default] "
         "[--mode model|passthrough|mpi|both|all] [--detailed-timing] [--force] [--no-check]")
DESCRIPTION = ("Download (or take) HPL's source, apply SimBLAS's patch series and build xhpl-model "
               "(BLAS predicted) and xhpl-real (BLAS computed, for passthrough runs) against libsimblas, and "
               "xhpl-mpi (plain HPL with Open MPI and OpenBLAS, the real runs of `simblas-hpl validate`); "
               "each new binary is checked by a small run.")


def add_arguments(b):
    src = b.add_mutually_exclusive_group()
    src.add_argument("--hpl-tarball", metavar="FILE", help="upstream HPL tarball (hpl-2.3.tar.gz)")
    src.add_argument("--hpl-dir", metavar="DIR", help="an unpacked, unpatched HPL tree (copied, not modified)")
    b.add_argument("--force", action="store_true", help="rebuild even if up to date")
    b.add_argument("--mode", choices=["model", "passthrough", "mpi", "both", "all"],
                   help="model: xhpl-model (-DSIMBLAS_HPL); passthrough: xhpl-real; mpi: xhpl-mpi (Open MPI's mpicc, "
                        "OpenBLAS); both: model and passthrough; all: the three (default: all, or both when "
                        "mpicc is not installed)")
    b.add_argument("--no-check", action="store_true", help="skip the small test run of each new binary")
    b.add_argument("--build-id", metavar="ID",
                   help="the build's name, which `run --build-id` and SIMBLAS_HPL_BUILD give (default: the "
                        "source's, e.g. hpcc-1.5.0 or hpl-2.3-<sha256 prefix>)")
    b.add_argument("--detailed-timing", action="store_true",
                   help="compile HPL with -DHPL_DETAILED_TIMING: every binary prints the slowest rank's time in each "
                        "phase (rfact, pfact, mxswp, update, laswp, up tr sv), which `run` puts in its JSON "
                        "(phases_s) and `validate --build-id` compares, real against simulated, phase by phase "
                        "(default build ID: the source's and -timing)")
    b.add_argument("--make-default", action="store_true",
                   help="make this build the default, which runs without --build-id use (a new build becomes "
                        "the default only when there is none: a study's runs do not change underneath it)")


def main(args):
    return hplbuild.build(mode=args.mode, hpl_tarball=args.hpl_tarball, hpl_dir=args.hpl_dir,
                          force=args.force, no_check=args.no_check, build_id=args.build_id,
                          make_default=args.make_default, detailed_timing=args.detailed_timing)
