"""A study's statistics: the mean of an output over a point's replicates,
its standard deviation and the half-width of its 95% Student t interval
(the quantile from scipy; without scipy, or with one value, no interval)."""

import math
import statistics

CONFIDENCE = 0.95


def t_quantile(n):
    """The two-sided 95% Student quantile for n values (scipy), None
    without scipy or with fewer than 2 values."""
    if n < 2:
        return None
    try:
        from scipy import stats
    except ImportError:
        return None
    return float(stats.t.ppf(0.5 + CONFIDENCE / 2, n - 1))


def have_scipy():
    try:
        import scipy.stats  # noqa: F401
        return True
    except ImportError:
        return False


def mean_ci(values):
    """(mean, half-width of its 95% interval or None, standard deviation or None, n)."""
    vals = [v for v in values if isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)]
    if not vals:
        return None, None, None, 0
    n = len(vals)
    m = statistics.fmean(vals)
    if n < 2:
        return m, None, None, n
    sd = statistics.stdev(vals)
    t = t_quantile(n)
    return m, (t * sd / math.sqrt(n) if t is not None else None), sd, n
