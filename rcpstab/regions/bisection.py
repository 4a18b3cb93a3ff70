"""Vectorized bisection: refine many sign-change brackets at once."""
from __future__ import annotations

import numpy as np


def bisect_brackets(f, lo, hi, iterations: int = 55):
    """Refine every bracket ``[lo[k], hi[k]]`` on which ``f`` changes sign.

    Parameters
    ----------
    f : callable
        ``f(x, k)`` evaluates the k-th function at ``x[k]`` for all brackets at once
        (``k`` is ``arange(len(lo))``), so one call serves every bracket.
    lo, hi : ndarray
        Bracket ends, ``f`` of opposite signs at the two ends.
    iterations : int
        Halvings; 55 takes a unit bracket below double precision.

    Returns
    -------
    ndarray
        The bracket midpoints after refinement.
    """
    lo = np.asarray(lo, dtype=float)
    hi = np.asarray(hi, dtype=float)
    k = np.arange(lo.size)
    f_lo = f(lo, k)
    for _ in range(iterations):
        mid = 0.5 * (lo + hi)
        f_mid = f(mid, k)
        left = np.sign(f_mid) == np.sign(f_lo)
        lo, f_lo, hi = np.where(left, mid, lo), np.where(left, f_mid, f_lo), np.where(left, hi, mid)
    return 0.5 * (lo + hi)
