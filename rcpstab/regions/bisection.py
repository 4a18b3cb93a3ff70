"""Refine many sign-change brackets at once, with SciPy's vectorized bracketing root finder."""
from __future__ import annotations

import numpy as np


def bisect_brackets(f, lo, hi, iterations: int | None = None):
    """Refine every bracket ``[lo[k], hi[k]]`` on which ``f`` changes sign, to rounding.

    Parameters
    ----------
    f : callable
        ``f(x, k)`` evaluates the k-th function at ``x`` for the brackets ``k`` (an integer
        array of the same shape as ``x``), so one call serves every bracket still open.
    lo, hi : ndarray
        Bracket ends, ``f`` of opposite signs (or zero) at the two ends.
    iterations : int, optional
        Ignored (kept for callers of the former fixed-count bisection); Chandrupatla's
        method (:func:`scipy.optimize.elementwise.find_root`) stops at rounding.

    Returns
    -------
    ndarray
        The roots, one per bracket.

    Examples
    --------
    >>> r = bisect_brackets(lambda x, k: x**2 - (k + 2.0), np.zeros(2), np.full(2, 3.0))
    >>> bool(np.allclose(r, np.sqrt([2.0, 3.0]), rtol=1e-15))
    True
    """
    lo = np.asarray(lo, dtype=float)
    hi = np.asarray(hi, dtype=float)
    if lo.size == 0:
        return lo.copy()
    from scipy.optimize import elementwise   # imported here: half a second of every command's start-up

    k = np.arange(lo.size)

    def g(x, kk):
        return f(x, kk.astype(int))

    res = elementwise.find_root(g, (lo, hi), args=(k.astype(float),))
    x = np.asarray(res.x, dtype=float)
    # An end where f is exactly zero is a root; find_root reports those too, but be explicit.
    return np.where(np.isfinite(x), x, 0.5 * (lo + hi))
