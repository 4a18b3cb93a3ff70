"""Crossing curves of D-subdivision, split into monotone pieces, and where lines cross them.

For Delta(lambda) = D0 + alpha*D1 + beta*D2 a root sits at lambda = j*w (w > 0) exactly when
the real and imaginary parts of Delta(j w) vanish: two real equations linear in
(alpha, beta), solved by Cramer's rule::

    alpha(w) = (x2*y0 - x0*y2) / det,   beta(w) = (x0*y1 - x1*y0) / det,
    det(w) = x1*y2 - x2*y1,             D_k(j w) = x_k + j*y_k.

Their derivatives in w come from D_k' in closed form, so the critical points of alpha(w)
and beta(w) (the tips of the curves, where a line of constant gain is tangent) are
found as roots of a derivative, not by sampling. Between critical points and zeros of
``det`` each coordinate is monotone in w: a line beta = b meets such a piece at most once,
and a library bracketing root finder (SciPy's Chandrupatla) on the monotone piece finds the
meeting point to rounding, however close b is to a tip. That makes the boundary exact at tips.

Direction. Implicit differentiation of Delta(lambda; alpha, beta) = 0 at lambda = j*w gives::

    Re(d lambda / d alpha)|beta  =  beta'(w) * det(w) / |Delta'|**2,
    Re(d lambda / d beta)|alpha  = -alpha'(w) * det(w) / |Delta'|**2,

so on a piece the sign of the crossing (a conjugate pair entering, +2, or leaving, -2,
the right half-plane as the swept gain grows) is constant and read off the piece's
monotonicity and the sign of ``det``. At a tip two pieces meet with opposite signs: a
root touches the axis and goes back, net change 0.

How far in w: for w >= 1 a crossing with ``|alpha|`` <= A and ``|beta|`` <= B needs
``|D0(j w)|`` <= A ``|D1|`` + B ``|D2|``; with D0 monic of degree n and D1, D2 of lower degree that
fails past W = max(1, S0 + A*S1 + B*S2) (S the sums of the coefficients' moduli, D0's
principal term excluded). So sampling (0, W] misses no crossing inside the box.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from ..errors import InputError
from .bisection import bisect_brackets
from .quasipoly import QuasiPolynomial

Meetings = tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]
"""Per meeting of a line with the crossing curves: line index, w*d0, the other gain, direction (+-2), piece."""

W_MIN = 1e-12  # curves are followed down to this w*d0; gains below ~W_MIN**2 are not resolved
W_LOG_END = 1e-2  # log-spaced samples below this, uniform above
LOG_SAMPLES = 600
STEP = 2.5e-3  # uniform sampling step in w*d0 per unit of the longest delay: it only has to
# separate the critical points of alpha(w), beta(w) (about pi/2 apart for RCP)
W_CAP = 4096.0  # widest band sampled (4e6 samples); larger gains are refused

__all__ = [
    "CurveSamples",
    "clear_cache",
    "gains_at",
    "curve_values",
    "sample_curves",
    "crossings",
    "crossings_many",
    "frequency_bound",
]


@dataclass(frozen=True)
class CurveSamples:
    """The crossing curves sampled in w, with their monotone pieces.

    Attributes
    ----------
    w, alpha, beta : ndarray
        Normalized frequency w*d0 and the gains putting a root at j*w. The critical points
        of alpha(w) and beta(w) are among the samples (refined to rounding).
    dalpha, dbeta, det : ndarray
        d alpha/dw, d beta/dw and the 2x2 determinant at the samples.
    critical_beta, critical_alpha : ndarray of int
        Indices of the samples where beta'(w) (resp. alpha'(w)) changes sign: the tips.
    singular : ndarray of int
        Indices i where det changes sign between samples i and i+1 (the curve runs off to infinity).
    """

    w: np.ndarray
    alpha: np.ndarray
    beta: np.ndarray
    dalpha: np.ndarray
    dbeta: np.ndarray
    det: np.ndarray
    critical_beta: np.ndarray
    critical_alpha: np.ndarray
    singular: np.ndarray

    def pieces(self, coordinate: str) -> list[tuple[int, int]]:
        """Index ranges ``(start, stop)`` (inclusive) on which ``coordinate`` is monotone in w."""
        critical = self.critical_beta if coordinate == "beta" else self.critical_alpha
        cuts = sorted(set(critical.tolist()) | {0, self.w.size - 1})
        out: list[tuple[int, int]] = []
        singular = set(self.singular.tolist())
        for a, b in zip(cuts[:-1], cuts[1:]):
            # A sign change of det splits the range: the curve leaves through infinity there.
            start = a
            for s in sorted(x for x in singular if a <= x < b):
                if s > start:
                    out.append((start, s))
                start = s + 1
            if b > start:
                out.append((start, b))
        return out


def gains_at(qp: QuasiPolynomial, w: ArrayLike) -> tuple[np.ndarray, np.ndarray]:
    """alpha(w), beta(w): the gains that put a root at j*w (NaN/inf where det = 0)."""
    d0, d1, d2 = qp.parts(1j * np.asarray(w, dtype=float))
    det = d1.real * d2.imag - d2.real * d1.imag
    with np.errstate(divide="ignore", invalid="ignore"):
        return ((d2.real * d0.imag - d0.real * d2.imag) / det, (d0.real * d1.imag - d1.real * d0.imag) / det)


def curve_values(qp: QuasiPolynomial, w: ArrayLike) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """alpha, beta, their w-derivatives and det at frequencies ``w`` (Cramer's rule, see above)."""
    lam = 1j * np.asarray(w, dtype=float)
    d0, d1, d2 = qp.parts(lam)
    e0, e1, e2 = (1j * d for d in qp.parts_derivative(lam))  # d/dw of D_k(j w)
    x0, y0, x1, y1, x2, y2 = d0.real, d0.imag, d1.real, d1.imag, d2.real, d2.imag
    u0, v0, u1, v1, u2, v2 = e0.real, e0.imag, e1.real, e1.imag, e2.real, e2.imag
    det = x1 * y2 - x2 * y1
    na = x2 * y0 - x0 * y2
    nb = x0 * y1 - x1 * y0
    ddet = u1 * y2 + x1 * v2 - u2 * y1 - x2 * v1
    dna = u2 * y0 + x2 * v0 - u0 * y2 - x0 * v2
    dnb = u0 * y1 + x0 * v1 - u1 * y0 - x1 * v0
    with np.errstate(divide="ignore", invalid="ignore"):
        alpha = na / det
        beta = nb / det
        dalpha = (dna * det - na * ddet) / det**2
        dbeta = (dnb * det - nb * ddet) / det**2
    return alpha, beta, dalpha, dbeta, det


def frequency_bound(qp: QuasiPolynomial, alpha_abs: float, beta_abs: float) -> float:
    """W past which no crossing has ``|alpha|`` <= alpha_abs and ``|beta|`` <= beta_abs (module docstring)."""
    c = np.abs(qp.coeffs)
    principal = np.zeros_like(c[..., 0])
    principal[0, qp.degree] = 1.0 if qp.thetas[0] == 0 else 0.0
    if np.any(c[0, qp.degree, 1:] != 0):
        raise InputError("a loop gain multiplies the principal term lambda**n: not supported")
    s0 = float(c[..., 0].sum() - principal.sum())
    return max(1.0, s0 + alpha_abs * float(c[..., 1].sum()) + beta_abs * float(c[..., 2].sum()))


def _refine_sign_changes(
    qp: QuasiPolynomial, w: np.ndarray, columns: dict[int, np.ndarray]
) -> dict[int, tuple[np.ndarray, np.ndarray]]:
    """Bisect every sign change between samples of each of ``columns`` ({which: values}) in one solve.

    ``which`` indexes :func:`curve_values`' output (2: alpha', 3: beta'). Returns {which: (k, roots)}.
    """
    ks: list[np.ndarray] = []
    whiches: list[np.ndarray] = []
    for column, values in columns.items():
        ok = np.isfinite(values)
        changes = np.nonzero(ok[:-1] & ok[1:] & (np.sign(values[:-1]) * np.sign(values[1:]) < 0))[0]
        ks.append(changes)
        whiches.append(np.full(changes.size, column))
    k, which = np.concatenate(ks), np.concatenate(whiches)
    roots = bisect_brackets(lambda x, i: np.choose(which[i] - 2, curve_values(qp, x)[2:4]), w[k], w[k + 1])
    return {wh: (k[which == wh], roots[which == wh]) for wh in columns}


_CACHE: dict[tuple[int, float], tuple[QuasiPolynomial, CurveSamples]] = {}


def clear_cache() -> None:
    """Forget every sampled curve (benchmarks time the sampling too)."""
    _CACHE.clear()


def _sample_cached(qp: QuasiPolynomial, w_end: float) -> CurveSamples:
    # Keyed by identity: quasi_polynomial() compiles each model once, and arrays do not hash.
    key = (id(qp), w_end)
    if key not in _CACHE:
        if len(_CACHE) > 32:
            _CACHE.clear()
        _CACHE[key] = (qp, _sample(qp, w_end))
    return _CACHE[key][1]


def _sample(qp: QuasiPolynomial, w_end: float) -> CurveSamples:
    step = STEP / max(float(qp.thetas.max()), 1.0)
    w = np.concatenate((np.geomspace(W_MIN, W_LOG_END, LOG_SAMPLES, endpoint=False), np.arange(W_LOG_END, w_end + step, step)))
    alpha, beta, dalpha, dbeta, det = curve_values(qp, w)
    # Insert the refined critical points of alpha(w) and beta(w) as samples of their own.
    refined = _refine_sign_changes(qp, w, {3: dbeta, 2: dalpha})
    (_, wb), (_, wa) = refined[3], refined[2]
    extra = np.concatenate((wb, wa))
    w_all = np.concatenate((w, extra))
    order = np.argsort(w_all, kind="stable")
    w_all = w_all[order]
    position = np.empty(order.size, dtype=int)
    position[order] = np.arange(order.size)
    tips_b = position[w.size : w.size + wb.size]
    tips_a = position[w.size + wb.size :]
    alpha, beta, dalpha, dbeta, det = curve_values(qp, w_all)
    good = np.isfinite(det)
    flips = np.nonzero(good[:-1] & good[1:] & (np.sign(det[:-1]) * np.sign(det[1:]) <= 0) | ~good[:-1] | ~good[1:])[0]
    return CurveSamples(
        w=w_all,
        alpha=alpha,
        beta=beta,
        dalpha=dalpha,
        dbeta=dbeta,
        det=det,
        critical_beta=np.sort(tips_b),
        critical_alpha=np.sort(tips_a),
        singular=flips,
    )


def sample_curves(qp: QuasiPolynomial, alpha_abs: float, beta_abs: float) -> CurveSamples:
    """Sample every crossing curve that can enter ``|alpha|`` <= alpha_abs, ``|beta|`` <= beta_abs."""
    w_end = frequency_bound(qp, alpha_abs, beta_abs)
    if w_end > W_CAP:
        raise InputError(
            f"alpha up to {alpha_abs:g}, beta up to {beta_abs:g}: crossings can lie up to "
            f"w*d0 = {w_end:.3g}, beyond the {W_CAP:g} sampled (gains in the thousands)"
        )
    # Round the band up (to 1/8 octave) so that nearby boxes share one cached sampling.
    w_end = float(2.0 ** (np.ceil(8 * np.log2(1.01 * w_end)) / 8))
    return _sample_cached(qp, w_end)


def crossings(
    qp: QuasiPolynomial,
    curves: CurveSamples,
    coordinate: str,
    targets: ArrayLike,
    window: tuple[float, float] = (-np.inf, np.inf),
) -> Meetings:
    """Where the lines ``coordinate = target`` meet the crossing curves.

    Parameters
    ----------
    coordinate : {'beta', 'alpha'}
        'beta': horizontal lines (rows of a map), swept in alpha; 'alpha': vertical lines.
    targets : array_like
        The constant values of ``coordinate``.
    window : (float, float)
        Keep only meetings whose other coordinate lies in this closed interval.

    Returns
    -------
    line, w, other, direction, piece : ndarray
        For each meeting: index into ``targets``, w*d0 of the root on the axis, the other
        gain there, the change in the number of right-half-plane roots when the other gain
        grows through it (+2 or -2), and the index of the monotone piece.
    """
    return crossings_many(qp, curves, [(coordinate, targets, window)])[0]


def _brackets(curves: CurveSamples, coordinate: str, targets: np.ndarray) -> Meetings:
    """Sample brackets [lo, hi] in w of every meeting of the lines with the monotone pieces."""
    mine = curves.beta if coordinate == "beta" else curves.alpha
    sign = 1.0 if coordinate == "beta" else -1.0
    lines: list[np.ndarray] = []
    lo: list[np.ndarray] = []
    hi: list[np.ndarray] = []
    dirs: list[np.ndarray] = []
    pieces: list[np.ndarray] = []
    for p, (a, b) in enumerate(curves.pieces(coordinate)):
        seg = mine[a : b + 1]
        if not np.all(np.isfinite(seg)):
            continue
        increasing = seg[-1] >= seg[0]
        smin, smax = (seg[0], seg[-1]) if increasing else (seg[-1], seg[0])
        hit = np.nonzero((targets >= smin) & (targets <= smax))[0]
        if hit.size == 0:
            continue
        asc = seg if increasing else seg[::-1]
        k = np.clip(np.searchsorted(asc, targets[hit], side="left") - 1, 0, seg.size - 2)
        if not increasing:
            k = seg.size - 2 - k
        mid = (a + b) // 2 if b - a > 1 else a
        # The sign of slope*det is constant on the piece: read it away from the ends (tips).
        direction = 2.0 * sign * np.sign((1.0 if increasing else -1.0) * curves.det[mid])
        lines.append(hit)
        lo.append(curves.w[a + k])
        hi.append(curves.w[a + k + 1])
        dirs.append(np.full(hit.size, direction))
        pieces.append(np.full(hit.size, p))
    if not lines:
        empty = np.zeros(0)
        return empty.astype(int), empty, empty, empty, empty.astype(int)
    return np.concatenate(lines), np.concatenate(lo), np.concatenate(hi), np.concatenate(dirs), np.concatenate(pieces)


def crossings_many(
    qp: QuasiPolynomial, curves: CurveSamples, requests: Sequence[tuple[str, ArrayLike, tuple[float, float]]]
) -> list[Meetings]:
    """:func:`crossings` for several ``(coordinate, targets, window)`` requests, solved together."""
    parts = []
    for coordinate, targets, window in requests:
        goals = np.asarray(targets, dtype=float)
        lines, lo, hi, dirs, pieces = _brackets(curves, coordinate, goals)
        parts.append((coordinate, goals, window, lines, lo, hi, dirs, pieces))
    which = np.concatenate([np.full(p[3].size, 1 if p[0] == "beta" else 0) for p in parts])
    goal = np.concatenate([p[1][p[3]] for p in parts])
    lo = np.concatenate([p[4] for p in parts])
    hi = np.concatenate([p[5] for p in parts])
    w = bisect_brackets(lambda x, i: np.choose(which[i], gains_at(qp, x)) - goal[i], lo, hi)
    values = gains_at(qp, w)
    out: list[Meetings] = []
    start = 0
    for coordinate, _, window, lines, _, _, dirs, pieces in parts:
        sl = slice(start, start + lines.size)
        start += lines.size
        other = values[0 if coordinate == "beta" else 1][sl]
        keep = np.isfinite(other) & (other >= window[0]) & (other <= window[1])
        out.append((lines[keep], w[sl][keep], other[keep], dirs[keep], pieces[keep]))
    return out
