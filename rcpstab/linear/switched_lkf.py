"""The matrices of a Lyapunov-Krasovskii certificate over a window of several round trips, for a clamped loop.

No solver here: :mod:`rcpstab.linear.certified_window` solves these conditions with cvxpy and
re-checks the solution in NumPy with the same builders fed plain arrays.

In round trips (tau = t/d0) the loop with one clamped state z = x[i] (the queue, held at its
lower bound 0, which is its equilibrium value) is::

    x'(tau) = A_m x(tau) + Ad_m x(tau - 1),   m = free (z > 0, or z = 0 with f(x) > 0)
                                              m = clamped (z = 0 and f(x) <= 0: row i zeroed),

where f(x) = a . x is the clamped state's unclamped rate (row i of A; row i of Ad must be 0).

**Window.** A functional of x over the last L round trips is a functional of the stacked state
Y(tau) = (x(tau), x(tau-1), ..., x(tau-L+1)) over the last round trip, and Y obeys a delay
system with delay 1 whose mode is the tuple of the modes at tau, tau-1, ..., tau-L+1 (2^L
combinations). Why a window longer than 1 matters: see ``docs/certificates-beyond-linear.md``
(no quadratic functional of one round trip can certify a point whose linear loop has an unstable
root of frequency below pi/2 per round trip).

**Functional** (one for every mode, so nothing jumps at a switch), of order N (Seuret and
Gouaisbaut's Bessel-Legendre hierarchy, 2015)::

    V = eta' P eta + int_{tau-1}^{tau} Y'Q Y + int_{-1}^{0} int_{tau+th}^{tau} Y''R Y',
    eta = (Y(tau), Omega_0, ..., Omega_{N-1}),  Omega_k = int_{-1}^{0} L_k(s) Y(tau+s) ds,

L_k the Legendre polynomials shifted to [-1, 0] (L_k(0) = 1). Along a mode, dV/dtau <= xi' Psi xi
with xi = (Y, Y(tau-1), Omega_0..Omega_{N-1}) and, by Schur's complement,
Psi < 0  <=>  [[Phi, G'R], [R G, -R]] < 0 (x' = G xi).

**What the clamp knows**, per block k of Y (times tau-k-1 .. tau-k), as linear forms l(xi) >= 0
used through the S-procedure (Phi + E'KE with K >= 0 elementwise, since l'Kl >= 0 on the cone):

* z >= 0 at the window's start and over the window: z_k(tau-1) >= 0, int b_j z_k >= 0 for the
  Bernstein polynomials b_j of degree N-1 (nonnegative on [-1, 0]);
* the clamp only adds: z' >= f(x) everywhere, so int b_j (z_k' - f(x_k)) >= 0, written in xi by
  parts (b_j(0) z_k(tau) - b_j(-1) z_k(tau-1) - int b_j' z_k - int b_j f(x_k));
* the block's mode: free z_k(tau) >= 0; clamped z_k(tau) = 0 (a subspace) and f(x_k(tau)) <= 0;
* the blocks are one signal: Y_{k+1}(tau) = Y_k(tau - 1) (a subspace).

V > 0 on every state: P + blockdiag(0, Q, 3Q, ...) - E0'K0E0 > 0 (Bessel-Legendre on the Q
integral; E0 the forms above that involve eta only and hold in every mode).
"""

from __future__ import annotations

import itertools
from math import comb
from typing import Any

import numpy as np
from numpy.polynomial import legendre as npleg
from numpy.polynomial import polynomial as nppoly

__all__ = [
    "Layout",
    "Mode",
    "stacked_loop",
    "legendre_derivative",
    "bernstein_in_legendre",
    "window_modes",
    "decrease_lmi",
    "positivity_lmi",
    "common_eta_forms",
    "shifted_legendre",
]


def shifted_legendre(k: int) -> np.ndarray:
    """Power-series coefficients (in s) of L_k(s) = P_k(2s + 1), shifted to [-1, 0]."""
    c = np.zeros(k + 1)
    c[k] = 1.0
    out: np.ndarray = np.zeros(1)
    for j, coef in enumerate(npleg.leg2poly(c)):
        out = nppoly.polyadd(out, coef * nppoly.polypow([1.0, 2.0], j))
    return out


def _project(poly, order: int) -> np.ndarray:
    """c_k with poly(s) = sum_{k < order} c_k L_k(s) on [-1, 0] (exact when deg poly < order)."""
    out = np.zeros(order)
    for k in range(order):
        anti = nppoly.polyint(nppoly.polymul(poly, shifted_legendre(k)))
        out[k] = (2 * k + 1) * (nppoly.polyval(0.0, anti) - nppoly.polyval(-1.0, anti))
    return out


def legendre_derivative(order: int) -> np.ndarray:
    """c[k, j] with L_k'(s) = sum_{j < k} c[k, j] L_j(s), for k, j <= order."""
    c = np.zeros((order + 1, order + 1))
    for k in range(1, order + 1):
        c[k, :k] = _project(nppoly.polyder(shifted_legendre(k)), k)
    return c


def bernstein_in_legendre(order: int):
    """The Bernstein basis of degree order-1 on [-1, 0] in Legendre terms.

    Returns
    -------
    coef : ndarray (order, order)
        b_j(s) = sum_k coef[j, k] L_k(s).
    ends : ndarray (order, 2)
        (b_j(0), b_j(-1)).
    dcoef : ndarray (order, order)
        b_j'(s) = sum_k dcoef[j, k] L_k(s).
    """
    deg = order - 1
    coef, ends, dcoef = np.zeros((order, order)), np.zeros((order, 2)), np.zeros((order, order))
    r = np.array([1.0, 1.0])  # r = s + 1, in [0, 1]
    for j in range(order):
        b = comb(deg, j) * nppoly.polymul(nppoly.polypow(r, j), nppoly.polypow([0.0, -1.0], deg - j))  # 1 - r = -s
        coef[j] = _project(b, order)
        ends[j] = nppoly.polyval(0.0, b), nppoly.polyval(-1.0, b)
        dcoef[j] = _project(nppoly.polyder(b), order)
    return coef, ends, dcoef


class Layout:
    """Index bookkeeping: xi = (Y, Y(tau-1), Omega_0..Omega_{N-1}), eta = (Y, Omega_0..Omega_{N-1}).

    Parameters
    ----------
    n : int
        Size of Y.
    order : int
        N >= 1, the number of Legendre moments in eta.
    """

    def __init__(self, n: int, order: int):
        if order < 1:
            raise ValueError("order must be >= 1")
        self.n, self.order = n, order
        self.dim_xi = n * (order + 2)
        self.dim_eta = n * (order + 1)
        eye = np.eye(self.dim_xi)
        self.x = eye[:n]
        self.xd = eye[n : 2 * n]
        self.om = [eye[n * (2 + k) : n * (3 + k)] for k in range(order)]
        self.eta = np.vstack([self.x] + self.om)
        self.dleg = legendre_derivative(order)

    def moment_derivative(self, k: int) -> np.ndarray:
        """Omega_k(Y') = Y(tau) - (-1)^k Y(tau-1) - sum_j c_kj Omega_j, as a map on xi (k <= order)."""
        out = self.x - (-1) ** k * self.xd
        for j in range(k):
            out = out - self.dleg[k, j] * self.om[j]
        return out


class Mode:
    """One combination of block modes: its matrices, cone forms (rows on xi) and kept subspace.

    Attributes
    ----------
    modes : tuple of int
        Per block of Y: 1 free, 2 clamped (block k is the state at tau - k).
    A, Ad : ndarray
        Y' = A Y + Ad Y(tau - 1) in this combination.
    forms : ndarray (m, dim_xi)
        l(xi) >= 0 on every state of this combination.
    basis : ndarray (dim_xi, r)
        Columns spanning the xi allowed by the equalities (clamped z = 0, blocks one signal).
    """

    def __init__(self, modes, A, Ad, forms, basis):
        self.modes, self.A, self.Ad, self.forms, self.basis = modes, A, Ad, forms, basis


def _null_basis(rows: list, dim: int) -> np.ndarray:
    if not rows:
        return np.eye(dim)
    _, s, vt = np.linalg.svd(np.array(rows))
    rank = int((s > 1e-12 * s.max()).sum())
    return vt[rank:].T


def stacked_loop(A, Ad, clamped: int | None, combo, block):
    """Y' = A_Y Y + Ad_Y Y(tau - 1) of one mode combination (block k: the state at tau - k).

    Parameters
    ----------
    A, Ad : (n, n) arrays or cvxpy expressions
        The free loop in round trips.
    clamped : int or None
        Index of the clamped state (its row is zeroed in a clamped block).
    combo : tuple of int
        Per block, 1 free or 2 clamped.
    block : callable
        ``np.block`` or ``cvxpy.bmat``.

    Returns
    -------
    (A_Y, Ad_Y)
    """
    n = A.shape[0]
    window = len(combo)
    zero = np.zeros((n, n))
    rows_a, rows_d = [], []
    for k, m in enumerate(combo):
        keep = np.eye(n)
        if m == 2:
            keep[clamped, clamped] = 0.0
        Ak, Adk = keep @ A, keep @ Ad
        # x(tau-k)' = A_m x(tau-k) + Ad_m x(tau-k-1): the next block now, or the last block one round trip ago
        rows_a.append([Ak if j == k else (Adk if j == k + 1 else zero) for j in range(window)])
        rows_d.append([Adk if j == k == window - 1 else zero for j in range(window)])
    return block(rows_a), block(rows_d)


def window_modes(A, Ad, clamped: int | None, window: int, order: int):
    """Every mode combination of the stacked state over ``window`` round trips.

    Parameters
    ----------
    A, Ad : ndarray (n, n)
        The free loop in round trips; ``clamped`` the index of the clamped state (None: no clamp).
    window : int
        L >= 1 round trips of history in the functional.
    order : int
        N >= 1 Legendre moments.

    Returns
    -------
    layout : Layout
    modes : list of Mode
    """
    A, Ad = np.asarray(A, float), np.asarray(Ad, float)
    n = A.shape[0]
    lay = Layout(n * window, order)
    coef, ends, dcoef = bernstein_in_legendre(order)
    out = []
    for combo in itertools.product((1, 2) if clamped is not None else (1,), repeat=window):
        big_a, big_ad = stacked_loop(A, Ad, clamped, combo, np.block)
        forms: list[Any] = []
        equal: list[Any] = []
        for k, m in enumerate(combo):
            rows = slice(n * k, n * (k + 1))
            if k < window - 1:  # x(tau-k-1) is the next block, now
                equal.extend(lay.x[n * (k + 1) : n * (k + 2)] - lay.xd[rows])
            if clamped is None:
                continue
            i = n * k + clamped
            f = np.zeros(n * window)
            f[rows] = A[clamped]  # the unclamped rate of z_k
            forms.append(lay.xd[i])
            for j in range(order):
                forms.append(sum(coef[j, kk] * lay.om[kk][i] for kk in range(order)))
                row = ends[j, 0] * lay.x[i] - ends[j, 1] * lay.xd[i]
                for kk in range(order):
                    row = row - dcoef[j, kk] * lay.om[kk][i] - coef[j, kk] * (f @ lay.om[kk])
                forms.append(row)
            if m == 1:
                forms.append(lay.x[i])
            else:
                forms.append(-(f @ lay.x))
                equal.append(lay.x[i])
        basis = _null_basis(equal, lay.dim_xi)
        out.append(Mode(combo, big_a, big_ad, np.array(forms).reshape(-1, lay.dim_xi), basis))
    return lay, out


def decrease_lmi(lay: Layout, mode: Mode, P, Q, R, K, stack):
    """[[B'(Phi + E'KE)B, B'G'R], [R G B, -R]]: negative definite => V decreases in this mode.

    ``stack`` builds blocks (``np.block`` or ``cvxpy.bmat``); P, Q, R, K numeric or cvxpy.
    """
    G = mode.A @ lay.x + mode.Ad @ lay.xd
    Hd = stack([[G]] + [[lay.moment_derivative(k)] for k in range(lay.order)])
    He = lay.eta.T @ P @ Hd
    Phi = He + He.T + lay.x.T @ Q @ lay.x - lay.xd.T @ Q @ lay.xd
    for k in range(lay.order + 1):
        Bk = lay.moment_derivative(k)
        Phi = Phi - (2 * k + 1) * (Bk.T @ R @ Bk)
    if mode.forms.shape[0]:
        Phi = Phi + mode.forms.T @ K @ mode.forms
    B = mode.basis
    GB = G @ B
    return stack([[B.T @ Phi @ B, GB.T @ R], [R @ GB, -R]])


def common_eta_forms(lay: Layout, modes: list) -> np.ndarray:
    """The forms (on eta) that hold in every mode and involve no Y(tau - 1): for V's positivity."""
    off_eta = np.eye(lay.dim_xi) - lay.eta.T @ lay.eta
    keep = []
    for f in modes[0].forms:
        if np.abs(f @ off_eta).sum() == 0 and all(any(np.array_equal(f, g) for g in m.forms) for m in modes[1:]):
            keep.append(f @ lay.eta.T)
    return np.array(keep).reshape(-1, lay.dim_eta)


def positivity_lmi(lay: Layout, P, Q, K0, forms):
    """P + blockdiag(0, Q, 3Q, ...) - E0'K0E0: positive definite => V >= margin * eta'eta on every state."""
    out = P
    for k in range(lay.order):
        Ok = lay.om[k] @ lay.eta.T
        out = out + (2 * k + 1) * (Ok.T @ Q @ Ok)
    if forms.shape[0]:
        out = out - forms.T @ K0 @ forms
    return out
