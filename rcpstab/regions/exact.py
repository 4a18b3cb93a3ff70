"""The exact stable region of the delayed linear loop, by D-subdivision.

Roots of Delta(lambda; alpha, beta) = D0 + alpha*D1 + beta*D2 can only enter the right
half-plane by crossing the imaginary axis. A root at lambda = j*w (w > 0) needs both the
real and the imaginary part of Delta(j w) to vanish: two equations linear in (alpha, beta),
whose solution traces the crossing curves (alpha(w), beta(w)); a root at lambda = 0 needs
Delta(0) = 0, a straight line. Between crossings the number of right-half-plane roots is
constant, so on every beta row of the grid the crossings split the alpha axis into
intervals and one argument-principle count per interval
(:meth:`QuasiPolynomial.count_unstable`) labels all of its grid points.
For RCP the curves are alpha = w sin w, beta = w**2 cos w (thesis Fig. 5.2's bell).

No approximation of the delay is made; crossings are refined by bisection to
machine precision, so the boundary is exact to far better than 1e-6.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..models import as_model
from ..models.spec import ModelSpec
from .bisection import bisect_brackets
from .grid import check_gains
from .quasipoly import QuasiPolynomial, quasi_polynomial
from .result import RegionMap

W_STEP = 1e-3          # crossing-curve sampling step in w*d0; brackets are then bisected
W_LOW = np.logspace(-9, -3, 600, endpoint=False)   # near w = 0 the curves need log spacing
W_LIMIT = 1e4          # give up extending the sampled band beyond this frequency


@dataclass(frozen=True)
class CrossingCurves:
    """Sampled crossing curves: for each w, the gains that put a root at j*w.

    Attributes
    ----------
    w : ndarray
        Normalized frequencies w*d0 (rad per round trip).
    alpha, beta : ndarray
        The crossing gains; NaN where the 2x2 system is singular.
    """

    w: np.ndarray
    alpha: np.ndarray
    beta: np.ndarray


def _gains_at(qp: QuasiPolynomial, w):
    """Solve Re and Im of D0 + alpha*D1 + beta*D2 = 0 at lambda = j*w for (alpha, beta)."""
    d0, d1, d2 = qp.parts(1j * np.asarray(w))
    det = d1.real * d2.imag - d2.real * d1.imag
    with np.errstate(divide="ignore", invalid="ignore"):
        alpha = (-d0.real * d2.imag + d2.real * d0.imag) / det
        beta = (-d1.real * d0.imag + d0.real * d1.imag) / det
    singular = np.abs(det) < 1e-12 * (np.abs(d1) * np.abs(d2) + 1e-300)
    alpha[singular] = np.nan
    beta[singular] = np.nan
    return alpha, beta


def crossing_curves(model: ModelSpec, alpha_max: float, beta_max: float) -> CrossingCurves:
    """Sample the crossing curves far enough in w that none can re-enter the box.

    The band is extended (doubling) until its last 2*pi/theta_max stretch stays outside
    ``[0, alpha_max] x [0, beta_max]``; for RCP that is w*d0 of about 10 for Fig. 5.2's box.
    """
    qp = quasi_polynomial(model)
    period = 2 * np.pi / max(qp.thetas.max(), 1e-9)
    w_max = max(4 * period, 10.0)
    while True:
        w = np.concatenate((W_LOW, np.arange(1e-3, w_max + W_STEP, W_STEP)))
        alpha, beta = _gains_at(qp, w)
        last = w > w_max - period
        inside = (np.abs(alpha[last]) <= 1.5 * alpha_max) & (np.abs(beta[last]) <= 1.5 * beta_max)
        if not inside.any() or w_max >= W_LIMIT:
            return CrossingCurves(w=w, alpha=alpha, beta=beta)
        w_max *= 2


def row_crossings(model: ModelSpec, betas, alpha_max: float) -> list[np.ndarray]:
    """For each beta, the sorted alphas where a characteristic root is on the imaginary axis."""
    qp = quasi_polynomial(model)
    betas = np.asarray(betas, dtype=float)
    curves = crossing_curves(model, alpha_max, float(betas.max()))
    b = curves.beta
    ok = np.isfinite(b[:-1]) & np.isfinite(b[1:])
    rows, idx = [], []
    for j, target in enumerate(betas):
        f = b - target
        change = ok & (np.sign(f[:-1]) != np.sign(f[1:]))
        k = np.nonzero(change)[0]
        rows.append(np.full(k.size, j))
        idx.append(k)
    rows = np.concatenate(rows)
    idx = np.concatenate(idx)
    targets = betas[rows]
    w_cross = bisect_brackets(lambda w, k: _gains_at(qp, w)[1] - targets[k], curves.w[idx], curves.w[idx + 1])
    alpha_cross = _gains_at(qp, w_cross)[0]
    # A root at lambda = 0: Delta(0) = D0(0) + alpha*D1(0) + beta*D2(0) = 0 (a line).
    z0, z1, z2 = (p.real for p in qp.parts(np.array(0.0)))
    result = []
    for j, target in enumerate(betas):
        found = list(alpha_cross[rows == j])
        if abs(z1) > 1e-14:
            found.append(-(z0 + z2 * target) / z1)
        result.append(np.sort(np.array(found, dtype=float)))
    return result


def exact_region(model: ModelSpec, alphas, betas) -> RegionMap:
    """Exact linear stability of ``model`` on the grid ``alphas`` x ``betas``.

    Parameters
    ----------
    model : ModelSpec
        Any model whose normalized loop depends on (alpha, beta) only, affinely.
    alphas, betas : array_like
        Grid axes, positive.

    Returns
    -------
    RegionMap
        ``meta['crossings']`` gives, per beta row, the alphas where roots cross the axis.
    """
    model = as_model(model)  # a name works too; anything else is an InputError
    alphas = check_gains(alphas, "alpha")
    betas = check_gains(betas, "beta")
    qp = quasi_polynomial(model)
    crossings = row_crossings(model, betas, float(alphas.max()))
    stable = np.zeros((betas.size, alphas.size), dtype=bool)
    mids_a, mids_b, slots = [], [], []
    for j, cross in enumerate(crossings):
        edges = np.concatenate(([-np.inf], cross, [np.inf]))
        cell = np.searchsorted(cross, alphas)          # interval index of every grid alpha
        for c in np.unique(cell):
            lo, hi = edges[c], edges[c + 1]
            members = alphas[cell == c]
            # Count at a point strictly inside the interval, never on a crossing.
            mid = 0.5 * (max(lo, members.min() - 1.0) + min(hi, members.max() + 1.0))
            mids_a.append(mid)
            mids_b.append(betas[j])
            slots.append((j, cell == c))
    counts = qp.count_unstable(np.array(mids_a), np.array(mids_b))
    for (j, where), z in zip(slots, counts):
        stable[j, where] = z == 0
    return RegionMap(model=model.name, method="exact", alpha=alphas, beta=betas, stable=stable,
                     meta={"crossings": [c.tolist() for c in crossings]})


def boundary_points(model: ModelSpec, alpha_max: float, beta_max: float, offset: float = 1e-4):
    """Points of the crossing curves that bound the stable region inside the box.

    A crossing-curve point is on the boundary when, just off the curve on one side, the
    loop is stable. Returns ``(alpha, beta)`` arrays in curve order, NaN between pieces,
    ready for ``plot``.
    """
    qp = quasi_polynomial(model)
    c = crossing_curves(model, alpha_max, beta_max)
    keep = (np.isfinite(c.alpha) & (c.alpha >= 0) & (c.alpha <= alpha_max)
            & (c.beta >= 0) & (c.beta <= beta_max))
    w, a, b = c.w[keep][::10], c.alpha[keep][::10], c.beta[keep][::10]
    if w.size == 0:
        return np.array([]), np.array([])
    da, db = np.gradient(a), np.gradient(b)
    norm = np.hypot(da, db) + 1e-300
    na, nb = -db / norm * offset, da / norm * offset
    z_plus = qp.count_unstable(a + na, np.maximum(b + nb, 1e-12))
    z_minus = qp.count_unstable(a - na, np.maximum(b - nb, 1e-12))
    on = (z_plus == 0) | (z_minus == 0)
    a, b = np.where(on, a, np.nan), np.where(on, b, np.nan)
    return a, b
