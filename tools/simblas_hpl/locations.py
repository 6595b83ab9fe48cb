"""Where SimBLAS is installed, where builds and caches go, external tools.

The configured locations come from configured.py, which `make` generates
(absent in the source tree; installed.py reads it); SIMBLAS_LIBDIR, SIMBLAS_INCDIR,
SIMBLAS_DATADIR and SIMBLAS_PATCHDIR override them (read through
settings, as every SIMBLAS_* variable).
"""

import os
import shutil

from . import settings
from .errors import CliError
from .installed import installed


def simblas_libdir():
    d = settings.value("SIMBLAS_LIBDIR") or installed("LIBDIR")
    if not d:
        raise CliError("cannot locate libsimblas: set SIMBLAS_LIBDIR to the directory holding libsimblas.so")
    if not os.path.exists(os.path.join(d, "libsimblas.so")):
        raise CliError(f"{d}/libsimblas.so does not exist: install SimBLAS (make install) "
                       "or set SIMBLAS_LIBDIR to a build tree's .libs")
    return os.path.abspath(d)


def simblas_incdir():
    d = settings.value("SIMBLAS_INCDIR") or installed("INCDIR")
    if not d or not os.path.exists(os.path.join(d, "simblas.h")):
        raise CliError(f"simblas.h not found in {d or '(unset)'}: set SIMBLAS_INCDIR to SimBLAS's include directory")
    return os.path.abspath(d)


def simblas_datadir():
    return settings.value("SIMBLAS_DATADIR") or installed("DATADIR")


def patch_dir():
    d = settings.value("SIMBLAS_PATCHDIR")
    if not d:
        dd = simblas_datadir()
        d = os.path.join(dd, "hpl-patches") if dd else None
    if not d:
        raise CliError("cannot locate the HPL patch series: set SIMBLAS_PATCHDIR (the source tree's hpl-patches/)")
    return os.path.abspath(d)


# the models of SimBLAS's data directory: default.model, libsimblas's default (make install's, then make
# calibrate's); refined.model, simblas-hpl refine's of it, which make install puts back as default.model
DEFAULT_MODEL, REFINED_MODEL = "default.model", "refined.model"


def default_model():
    """SIMBLAS_MODEL, else the default.model of SimBLAS's data directory
    (SIMBLAS_DATADIR's or the installed one), as libsimblas's default."""
    m = settings.given("SIMBLAS_MODEL")
    if m:
        return m
    dd = simblas_datadir()
    return os.path.join(dd, DEFAULT_MODEL) if dd else None


def keep_path(out):
    """Where simblas-hpl refine keeps the model it replaces: OUT.calibrated
    (make calibrate removes the installed default.model's)."""
    return out + ".calibrated"


def installed_copy(out):
    """refined.model beside the installed default.model when out is that
    model: make install's hook installs it as default.model before
    calibrated.model, so reinstalling SimBLAS keeps the refinement, and
    make calibrate removes it (a new calibration supersedes it).  None for
    any other file."""
    dd = simblas_datadir()
    if not dd or os.path.basename(out) != DEFAULT_MODEL:
        return None
    try:
        same = os.path.samefile(os.path.dirname(out), dd)
    except OSError:
        return None
    return os.path.join(os.path.dirname(out), REFINED_MODEL) if same else None


def tool(name, key=None, env=None):
    """Path of an external program: $env, the configured path, then PATH."""
    for c in (os.environ.get(env) if env else None, installed(key) if key else None):
        if c and os.access(c, os.X_OK):
            return c
    found = shutil.which(name)
    if not found:
        raise CliError(f"`{name}` not found: install it (SimGrid's smpicc/smpirun come with libsimgrid-dev)")
    return found


def user_dir(xdg, fallback):
    base = os.environ.get(xdg) or os.path.join(os.path.expanduser("~"), fallback)
    return os.path.join(base, "simblas", "hpl")


def data_root():
    """Where builds go: $XDG_DATA_HOME/simblas/hpl (~/.local/share/...)."""
    return user_dir("XDG_DATA_HOME", os.path.join(".local", "share"))


def cache_root():
    """Where downloaded sources go: $XDG_CACHE_HOME/simblas/hpl (~/.cache/...)."""
    return user_dir("XDG_CACHE_HOME", ".cache")


def made_root(xdg):
    """data_root() (xdg "XDG_DATA_HOME") or cache_root() ("XDG_CACHE_HOME"),
    made if needed; one CliError naming the variable and the directory when
    it cannot be made or written (a file, /proc, no permission)."""
    root = data_root() if xdg == "XDG_DATA_HOME" else cache_root()
    given = os.environ.get(xdg)
    said = f"{xdg}={given}" if given else f"{xdg} is unset, and its default"
    try:
        os.makedirs(root, exist_ok=True)
        if not os.path.isdir(root) or not os.access(root, os.W_OK | os.X_OK):
            raise PermissionError(13, "not a directory you can write")
    except OSError as e:
        raise CliError(f"{said}: cannot make or write the directory {root} ({e.strerror or e}); "
                       f"set {xdg} to a directory you can write")
    return root
