"""Chandrupatla's bracketing root finder over many brackets at once, in NumPy.

A line-for-line port of SciPy's :func:`scipy.optimize.elementwise.find_root` (its default
tolerances, its order of floating-point operations, its shrinking of the active set), so it
returns the same roots bit for bit (``tests/test_bisection.py`` compares the two) without
importing :mod:`scipy.optimize`, which costs more than a whole map command's computation.

Reference: T. R. Chandrupatla, "A new hybrid quadratic/bisection algorithm for finding the
zero of a nonlinear function without using derivatives", Adv. Eng. Software 28 (1997) 145-149.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
from numpy.typing import ArrayLike

BracketFunction = Callable[[np.ndarray, np.ndarray], ArrayLike]
"""``f(x, k)``: the functions of the brackets ``k`` (an integer array) at the abscissae ``x``."""

__all__ = ["find_roots"]

_FINFO = np.finfo(float)
XATOL = 4 * _FINFO.smallest_normal  # SciPy's defaults for float64
XRTOL = 4 * _FINFO.eps
FATOL = _FINFO.smallest_normal
MAXITER = math.log2(_FINFO.max) - math.log2(_FINFO.smallest_normal)


def find_roots(f: BracketFunction, lo: ArrayLike, hi: ArrayLike) -> np.ndarray:
    """Roots of ``f(x, k)`` on the brackets ``[lo[k], hi[k]]`` (1-D float arrays, signs differing at the ends).

    ``f(x, k)`` evaluates the functions of the brackets ``k`` (an integer array) at ``x``.
    Returns the abscissa of smallest ``|f|`` when the bracket is below SciPy's tolerance
    (``|x2 - x1| < 4 eps |x| + 4 tiny``) or ``f`` is zero there; NaN where the signs at the
    ends agree or a value is NaN, as SciPy does.
    """
    x1 = np.array(lo, dtype=float)
    x2 = np.array(hi, dtype=float)
    n = x1.size
    active = np.arange(n)
    f1 = np.asarray(f(x1, active), dtype=float).copy()
    f2 = np.asarray(f(x2, active), dtype=float).copy()
    with np.errstate(invalid="ignore"):
        frtol = 0.0 * np.minimum(np.abs(f1), np.abs(f2))  # SciPy's frtol=0 scaled (NaN where an end is infinite)
    x_out = np.zeros(n)
    x3 = np.full(n, math.nan)  # the third point, set from the first step on (filtered with the others before)
    f3 = np.full(n, math.nan)
    t = 0.5
    nit = 0

    def check(
        x1: np.ndarray, f1: np.ndarray, x2: np.ndarray, f2: np.ndarray, frtol: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        i = np.abs(f1) < np.abs(f2)
        xmin = np.where(i, x1, x2)
        fmin = np.where(i, f1, f2)
        stop = np.abs(fmin) <= FATOL + frtol
        bad = (np.sign(f1) == np.sign(f2)) & ~stop
        xmin[bad] = np.nan
        stop |= bad
        bad = (~(np.isfinite(x1) & np.isfinite(x2)) | (np.isnan(f1) & np.isnan(f2))) & ~stop
        xmin[bad] = np.nan
        stop |= bad
        dx = np.abs(x2 - x1)
        tol = np.abs(xmin) * XRTOL + XATOL
        stop |= dx < tol
        return xmin, stop, dx, tol

    xmin, stop, dx, tol = check(x1, f1, x2, f2, frtol)
    while True:
        if stop.any():
            x_out[active[stop]] = xmin[stop]
            keep = ~stop
            active = active[keep]
            x1, f1, x2, f2, xmin, dx, tol, frtol = (v[keep] for v in (x1, f1, x2, f2, xmin, dx, tol, frtol))
            x3, f3 = x3[keep], f3[keep]
        if active.size == 0 or nit >= MAXITER:
            break
        if nit > 0:
            # Chandrupatla's test: inverse quadratic interpolation when it stays inside, else bisection.
            xi1 = (x1 - x2) / (x3 - x2)
            with np.errstate(divide="ignore", invalid="ignore"):
                phi1 = (f1 - f2) / (f3 - f2)
            alpha = (x3 - x1) / (x2 - x1)
            with np.errstate(invalid="ignore"):
                j = ((1 - np.sqrt(1 - xi1)) < phi1) & (phi1 < np.sqrt(xi1))
            f1j, f2j, f3j, alphaj = f1[j], f2[j], f3[j], alpha[j]
            t = np.full_like(alpha, 0.5)
            t[j] = f1j / (f1j - f2j) * f3j / (f3j - f2j) - alphaj * f1j / (f3j - f1j) * f2j / (f2j - f3j)
            tl = 0.5 * tol / dx
            t = np.clip(t, tl, 1 - tl)
        x = x1 + t * (x2 - x1)
        fx = np.asarray(f(x, active), dtype=float)
        x3, f3 = x2.copy(), f2.copy()
        same = np.sign(fx) == np.sign(f1)
        x3[same], f3[same] = x1[same], f1[same]
        x2[~same], f2[~same] = x1[~same], f1[~same]
        x1, f1 = x, fx
        nit += 1
        xmin, stop, dx, tol = check(x1, f1, x2, f2, frtol)
    if active.size:
        x_out[active] = xmin  # not converged within MAXITER: the best abscissa, as SciPy reports
    return x_out
