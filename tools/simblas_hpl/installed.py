"""What `make` configured: the install locations and tools of configured.py
(generated at build time, absent in the source tree).  The bottom of the
package: settings (to find its table) and locations read it."""

try:
    from . import configured
except ImportError:  # the source tree: the environment must say
    configured = None


def installed(key):
    """A configured location (LIBDIR, INCDIR, DATADIR, SMPIRUN, SMPICC,
    OPENBLAS_LIBDIR), or None when running from the source tree."""
    v = getattr(configured, key, None)
    if not v or (len(v) > 2 and v[0] == "@" and v[-1] == "@"):
        return None
    return v
