"""Refine sign-change brackets to rounding: many at once with Chandrupatla's vectorized bracketing
root finder (:mod:`.chandrupatla`, SciPy's algorithm without importing scipy.optimize), a handful
one by one with mpmath's (a point command's few crossings)."""

from __future__ import annotations

from typing import SupportsFloat

import numpy as np
from numpy.typing import ArrayLike

from .chandrupatla import BracketFunction, find_roots

# Up to this many brackets are refined by mpmath's Anderson-Bjorck solver: mpmath is loaded with SymPy,
# while importing scipy.optimize costs more than a point command's whole computation (0.3-0.5 s).
FEW_BRACKETS = 8


def bisect_brackets(f: BracketFunction, lo: ArrayLike, hi: ArrayLike, iterations: int | None = None) -> np.ndarray:
    """Refine every bracket ``[lo[k], hi[k]]`` on which ``f`` changes sign, to rounding.

    Parameters
    ----------
    f : callable
        ``f(x, k)`` evaluates the k-th function at ``x`` for the brackets ``k`` (an integer
        array of the same shape as ``x``), so one call serves every bracket still open.
    lo, hi : ndarray
        Bracket ends, ``f`` of opposite signs (or zero) at the two ends.
    iterations : int, optional
        Ignored (kept for callers of the former fixed-count bisection): both solvers stop at
        rounding, Chandrupatla's method (:func:`.chandrupatla.find_roots`, SciPy's bit for bit) for more
        than :data:`FEW_BRACKETS` brackets, Anderson-Bjorck's (:func:`mpmath.findroot`) for fewer,
        each result checked (a bracket it cannot refine goes to SciPy with the rest).

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
    if lo.size <= FEW_BRACKETS:
        few = [_refine_one(f, k, a, b) for k, (a, b) in enumerate(zip(lo, hi))]
        if all(r is not None for r in few):
            return np.array(few)
    x = find_roots(f, lo, hi)
    # An end where f is exactly zero is a root; find_root reports those too, but be explicit.
    return np.where(np.isfinite(x), x, 0.5 * (lo + hi))


def _refine_one(f: BracketFunction, k: int, a: float, b: float) -> float | None:
    """One bracket by the Anderson-Bjorck method in double precision (``f`` evaluated as for the batch).

    Returns None unless the result lies in the bracket with ``|f|`` at rounding level: mpmath's
    solvers return their last iterate without complaint (``verify=False``; its own check is in
    mpmath's precision, not ``f``'s). Its Ridders solver, tried first, returned 0.698 for
    x sin x = 1.375 on [0, 2], whose root is 1.396; ``tests/test_bisection.py`` holds that bracket.
    """
    import mpmath

    index = np.array([k])

    def g(x: SupportsFloat) -> float:  # x: mpmath's number while it solves
        return float(np.asarray(f(np.array([float(x)]), index), dtype=float)[0])

    ga, gb = g(a), g(b)
    if ga == 0.0 or gb == 0.0:  # an end where f is exactly zero is the root
        return float(a if ga == 0.0 else b)
    try:
        with mpmath.workdps(15):
            r = float(mpmath.findroot(g, (a, b), solver="anderson", verify=False).real)
    except (ZeroDivisionError, ValueError, TypeError):
        return None
    inside = min(a, b) <= r <= max(a, b)
    return r if inside and abs(g(r)) <= 64 * np.finfo(float).eps * max(abs(ga), abs(gb)) else None
