"""The Nyquist criterion on a model's open loop G, exact delay or Pade (thesis App. D).

The closed loop 1 + G(lambda) = 0 (lambda = s*d0) has Z = N + P roots in the right
half-plane, N being the clockwise encirclements of -1 by G along the Nyquist contour
and P the open-loop poles with Re(lambda) > 0. The contour runs up the imaginary axis,
indented to the right of the poles at lambda = 0 (RCP's double integrator) by a quarter
circle of radius :data:`INDENT` on each side, and closes by a large right half-plane
arc on which G vanishes (the loop is strictly proper and ``|exp(-lambda)|`` <= 1 there).

Counting is done without unwrapping any sampled phase. By the conjugate symmetry of G
the lower half of the contour contributes what the upper half does, so only the upper
half is walked: the indentation arc lambda = INDENT*exp(j*phi), phi from 0 to pi/2, then
lambda = j*w up to a frequency W past which ``|G(j w)|`` < 1 is proven (a coefficient bound;
the exact delay and the all-pass Pade factor both have modulus 1 there). Every change of
sign of Im G between samples is bisected; a crossing of the real axis left of -1 counts
+1 (counter-clockwise, Im going from + to -) or -1, and a start at G(INDENT) < -1 counts
one half. Each crossing is located to rounding, so a verdict can only go wrong within
rounding of the boundary, or if two crossings fall between adjacent samples (steps of
:data:`STEP` rad per unit delay, relative below w = 1) with -1 between them.

With ``pade=N`` the delay exp(-theta*lambda) is replaced by python-control's
``pade(1, N)`` evaluated at theta*lambda (the approximant depends on theta*lambda only),
which is App. D's method; the loop is then rational and its closed-loop poles can be
computed outright, which the tests use as a check.

python-control's own count on frequency-response data (``frd``) of the exact-delay loop
is not a substitute. It only unwraps the sampled phase of 1 + G along the given positive
frequencies, so it cannot see the indentation around the double pole at 0. Measured
(tests/test_nyquist.py): with 2000 log-spaced frequencies it returns N - 1 at every RCP
point checked (stable points get -1, so count + P = -1; unstable ones 1 where N = 2);
with 30 frequencies it also aliases near the boundary, returning 1 at a stable point and
-1 at an unstable one. On the rational Pade loops, where it can indent (right), its count
equals ours and N + P equals the closed-loop pole count.

Frequencies are normalized: w*d0, radians per round-trip time.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from numbers import Integral
from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import ArrayLike

from ..errors import InputError
from ..models import as_model
from .bisection import bisect_brackets
from .grid import check_gains
from .openloop import OpenLoop, open_loop
from .result import RegionMap
from .tailbound import dominance_frequency

if TYPE_CHECKING:
    from ..models.spec import ModelSpec

INDENT = 1e-6
"""Radius of the indentation around the poles at lambda = 0. The closed loop has no root
inside it as long as ``|G|`` >> 1 there, i.e. ``|num(0)/den(0)|`` >> INDENT**integrators (for RCP,
beta >> 1e-12)."""
ARC_SAMPLES = 33  # the quarter arc turns G by integrators*pi/2: 16 samples per pi/2 turn
STEP = 0.02  # frequency step: relative below w = 1, absolute above, per unit delay
CHUNK = 2000  # grid points evaluated together (memory ~ CHUNK * samples * 16 bytes)
PADE_ORDERS = range(1, 21)


@dataclass(frozen=True)
class NyquistCount:
    """Encirclement count of -1 by G for each (alpha, beta).

    Attributes
    ----------
    clockwise : ndarray of int
        N, net clockwise encirclements of -1 along the whole indented contour.
    rhp_poles : int
        P, open-loop poles with Re(lambda) > 0 (the poles at 0 are indented around).
    unstable : ndarray of int
        Z = N + P, closed-loop roots in the right half-plane; stable iff Z = 0.
    """

    clockwise: np.ndarray
    rhp_poles: int
    unstable: np.ndarray

    @property
    def stable(self) -> np.ndarray:
        stable: np.ndarray = self.unstable == 0
        return stable


@dataclass(frozen=True)
class NyquistCurve:
    """Data of one Nyquist plot: G along the positive imaginary axis and the count.

    Attributes
    ----------
    alpha, beta : float
        The loop gains.
    pade : int or None
        Pade order of the delay, None for the exact exp(-lambda).
    w : ndarray
        Normalized frequencies w*d0 (rad per round trip), increasing, > 0.
    G : ndarray of complex
        G(j w); the negative frequencies give its mirror image conj(G).
    count : NyquistCount
        N, P and Z for this loop (scalars in 0-d arrays).
    """

    alpha: float
    beta: float
    pade: int | None
    w: np.ndarray
    G: np.ndarray
    count: NyquistCount


def check_pade(pade: object) -> int | None:
    """None, or an integer Pade order in 1..20; :class:`InputError` otherwise."""
    if pade is None:
        return None
    if isinstance(pade, bool) or not isinstance(pade, Integral) or pade not in PADE_ORDERS:
        raise InputError(f"pade = {pade!r}: Pade order must be an integer from 1 to 20")
    return int(pade)


@cache
def _pade_coefficients(pade: int) -> tuple[np.ndarray, np.ndarray]:
    """Numerator and denominator of python-control's Pade approximant of exp(-x), highest power first."""
    import control  # imported here: it costs about a second of start-up for every command

    num, den = control.pade(1.0, pade)
    return np.asarray(num, float), np.asarray(den, float)


def delay_factor(theta_lam: ArrayLike, pade: int | None) -> np.ndarray:
    """exp(-theta*lambda), or its Pade approximant, at ``theta_lam`` = theta*lambda."""
    x = np.asarray(theta_lam)
    if pade is None:
        exact: np.ndarray = np.exp(-x)
        return exact
    num, den = _pade_coefficients(pade)
    approximant: np.ndarray = np.polyval(num, x) / np.polyval(den, x)
    return approximant


def loop_value(ol: OpenLoop, lam_values: ArrayLike, alpha: ArrayLike, beta: ArrayLike, pade: int | None) -> np.ndarray:
    """G(lambda) with the exact or Pade delay, broadcasting lambda against the gains."""
    lam = np.asarray(lam_values, dtype=complex)
    value: np.ndarray = delay_factor(ol.theta * lam, pade) * ol.rational(lam, alpha, beta) / lam**ol.integrators
    return value


def rhp_poles(ol: OpenLoop, pade: int | None) -> int:
    """P: poles of G with Re(lambda) > 0; the poles at 0 are not counted (indented right).

    Raises :class:`InputError` for poles on the imaginary axis away from 0, which the
    contour does not indent around.
    """
    poles = np.polynomial.polynomial.polyroots(ol.den) if ol.den.size > 1 else np.array([])
    if pade is not None:
        poles = np.concatenate([poles, np.roots(_pade_coefficients(pade)[1]) / ol.theta])
    on_axis = np.abs(poles.real) <= 1e-12 * np.maximum(np.abs(poles), 1.0)
    if on_axis.any():
        raise InputError(f"open loop has a pole on the imaginary axis at {poles[on_axis][0]:.6g}; only poles at 0 are supported")
    return int((poles.real > 0).sum())


def tail_frequency(ol: OpenLoop, alpha: ArrayLike, beta: ArrayLike, gain: float = 1.0) -> np.ndarray:
    """A normalized frequency W >= 1 past which ``gain * |G(j w)|`` < 1, for each (alpha, beta).

    On the axis ``|num(j w)|`` <= sum_p N_p w**p and ``|w**k den(j w)|`` >= ``|d_q|`` w**(k+q) -
    sum_p D_p w**(p+k) (N_p, D_p the moduli of the coefficients, the lower ones for den; the delay
    factor has modulus 1), so W is where ``|d_q| w**(k+q)`` dominates both sums
    (:func:`~rcpstab.linear.tailbound.dominance_frequency`), and at least 1.
    """
    a, b = np.broadcast_arrays(np.abs(np.asarray(alpha, float)), np.abs(np.asarray(beta, float)))
    k, q = ol.integrators, ol.den.size - 1
    m = k + q
    num = np.abs(ol.num)
    # |num_p(alpha, beta)| <= |c0| + |c_alpha| alpha + |c_beta| beta, per power p
    n_p = gain * (num[:, 0] + a[..., None] * num[:, 1] + b[..., None] * num[:, 2])
    if n_p.shape[-1] > m and np.any(n_p[..., m:] > 0):  # not strictly proper: no tail (the margins refuse it)
        s_num = n_p.sum(axis=-1)
        improper: np.ndarray = np.maximum(1.0, (s_num + np.abs(ol.den[:-1]).sum()) / abs(ol.den[-1]))
        return improper
    lower = np.zeros(a.shape + (m,))
    lower[..., : min(n_p.shape[-1], m)] += n_p[..., :m]
    lower[..., k:m] += np.abs(ol.den[:-1])
    tail: np.ndarray = np.maximum(1.0, dominance_frequency(abs(ol.den[-1]), lower))
    return tail


def _path(t: ArrayLike) -> np.ndarray:
    """The upper half of the indented contour: the arc for t in [0, 1], then lambda = j*INDENT*t."""
    x = np.asarray(t, dtype=float)
    point: np.ndarray = np.where(x < 1, INDENT * np.exp(0.5j * np.pi * np.minimum(x, 1)), 1j * INDENT * x)
    return point


def _path_samples(w_end: float, theta: float) -> np.ndarray:
    """Path parameters: the arc, then w geometric up to 1 and uniform up to ``w_end``."""
    step = STEP / max(theta, 1.0)
    arc = np.linspace(0.0, 1.0, ARC_SAMPLES)
    low = np.geomspace(INDENT, 1.0, int(np.ceil(np.log(1 / INDENT) / np.log1p(step))) + 1)
    high = np.arange(1.0 + step, w_end + step, step)
    return np.concatenate([arc, low[1:] / INDENT, high / INDENT])


def _counter_clockwise(ol: OpenLoop, alpha: np.ndarray, beta: np.ndarray, pade: int | None) -> np.ndarray:
    """Net counter-clockwise encirclements of -1 along the whole contour, for 1-D gain arrays."""
    t = _path_samples(1.05 * float(np.max(tail_frequency(ol, alpha, beta))), ol.theta)
    # G is affine in the gains: evaluate its three parts once per sample, then only the
    # imaginary parts (real arithmetic) over the whole chunk.
    lam = _path(t)
    g0 = loop_value(ol, lam, 0.0, 0.0, pade)
    ga, gb = loop_value(ol, lam, 1.0, 0.0, pade) - g0, loop_value(ol, lam, 0.0, 1.0, pade) - g0
    imag = g0.imag + alpha[:, None] * ga.imag + beta[:, None] * gb.imag
    # G(INDENT) is real: on the ray left of -1 it is half a crossing, shared with the mirror half.
    start_real = g0[0].real + alpha * ga[0].real + beta * gb[0].real
    start = np.where(start_real < -1, np.where(imag[:, 1] < 0, 0.5, -0.5), 0.0)
    upper = imag[:, 1:] > 0
    rows, cols = np.nonzero(upper[:, :-1] != upper[:, 1:])
    cols = cols + 1  # back to indices into t

    def imag_along(x: np.ndarray, k: np.ndarray) -> np.ndarray:
        imag_part: np.ndarray = loop_value(ol, _path(x), alpha[rows[k]], beta[rows[k]], pade).imag
        return imag_part

    t_cross = bisect_brackets(imag_along, t[cols], t[cols + 1])
    left_of_minus_one = loop_value(ol, _path(t_cross), alpha[rows], beta[rows], pade).real < -1
    direction = np.where(upper[rows, cols - 1], 1.0, -1.0)  # + to - is counter-clockwise
    half = start + np.bincount(rows, weights=direction * left_of_minus_one, minlength=alpha.size)
    turns: np.ndarray = np.rint(2 * half).astype(int)
    return turns


def loop_count(ol: OpenLoop, alpha: ArrayLike, beta: ArrayLike, pade: int | None = None) -> NyquistCount:
    """N, P and Z of the compiled loop ``ol`` at every (alpha, beta) (arrays broadcast together)."""
    order = check_pade(pade)
    alphas, betas = np.broadcast_arrays(np.asarray(alpha, float), np.asarray(beta, float))
    P = rhp_poles(ol, order)
    a, b = alphas.ravel(), betas.ravel()
    ccw = np.concatenate(
        [_counter_clockwise(ol, a[i : i + CHUNK], b[i : i + CHUNK], order) for i in range(0, a.size, CHUNK)] or [np.zeros(0, int)]
    )
    clockwise = (-ccw).reshape(alphas.shape)
    return NyquistCount(clockwise=clockwise, rhp_poles=P, unstable=np.asarray(clockwise + P))


def nyquist_count(model: ModelSpec, alpha: ArrayLike, beta: ArrayLike, pade: int | None = None) -> NyquistCount:
    """N, P and Z of the model's loop at every (alpha, beta) (arrays broadcast together).

    Parameters
    ----------
    model : ModelSpec
        Its normalized open loop (:func:`~rcpstab.linear.openloop.open_loop`) is used.
    alpha, beta : array_like
        Loop gains, positive.
    pade : int, optional
        Pade order 1..20 for the delay; None (default) keeps the exact exp(-lambda).

    Returns
    -------
    NyquistCount
        Arrays shaped like the broadcast gains.
    """
    return loop_count(open_loop(model), alpha, beta, check_pade(pade))


def nyquist_curve(
    model: ModelSpec, alpha: float, beta: float, pade: int | None = None, w: ArrayLike | None = None
) -> NyquistCurve:
    """G(j w) of one loop for plotting, with its encirclement count.

    Parameters
    ----------
    w : array_like, optional
        Normalized frequencies w*d0 > 0; by default 2000 points log-spaced from 0.01 to
        twice the frequency past which ``|G|`` < 1.
    """
    order = check_pade(pade)
    ol = open_loop(model)
    if w is None:
        w_end = 2 * float(tail_frequency(ol, alpha, beta))
        w = np.geomspace(1e-2, max(w_end, 10.0), 2000)
    ws = check_gains(w, "w")
    G = loop_value(ol, 1j * ws, alpha, beta, order)
    return NyquistCurve(
        alpha=float(alpha), beta=float(beta), pade=order, w=ws, G=G, count=nyquist_count(model, alpha, beta, order)
    )


def nyquist_region(
    model: ModelSpec, alphas: ArrayLike, betas: ArrayLike, pade: int | None = None, params: dict[str, float] | None = None
) -> RegionMap:
    """Stable points (Z = 0) of the grid ``alphas`` x ``betas`` by the Nyquist criterion.

    Parameters
    ----------
    model : ModelSpec
    alphas, betas : array_like
        Grid axes (positive gains).
    pade : int, optional
        Pade order for the delay (None: the exact delay).
    params : dict, optional
        Any other parameter the model declares, by name, one value each (the model's own
        values otherwise): the linear loop at those values.

    Returns
    -------
    RegionMap
        ``method='nyquist'``, ``meta={'pade': pade}``.
    """
    model = as_model(model).with_values(params)  # a name works too; anything else is an InputError
    order = check_pade(pade)
    a_axis = check_gains(alphas, "alpha")
    b_axis = check_gains(betas, "beta")
    A, B = np.meshgrid(a_axis, b_axis)
    count = nyquist_count(model, A, B, order)
    return RegionMap(model=model, method="nyquist", alpha=a_axis, beta=b_axis, stable=count.stable, meta={"pade": order})


def alpha_bounds(
    model: ModelSpec, beta: float, pade: int | None = None, alpha_max: float = 4.0, tol: float = 1e-12
) -> np.ndarray:
    """The alphas in (0, alpha_max] where the Nyquist verdict changes along the row ``beta``.

    The row is scanned with step 1e-3 and every change of verdict narrowed to ``tol`` by
    multisection (each round counts 63 inner points of every bracket in one batched call, so
    1e-3 shrinks to 1e-12 in 5 rounds instead of 30 bisection steps of 2 points each);
    for RCP at beta = 0.3 the result is the stable interval's two ends.
    """
    order = check_pade(pade)
    alphas = np.arange(1e-3, alpha_max, 1e-3)
    stable = nyquist_count(model, alphas, beta, order).stable
    k = np.nonzero(stable[:-1] != stable[1:])[0]
    lo, hi, lo_stable = alphas[k], alphas[k + 1], stable[k]
    fractions = np.arange(1, _SECTIONS) / _SECTIONS
    rows = np.arange(lo.size)
    while np.any(hi - lo > tol):
        inner = lo[:, None] + (hi - lo)[:, None] * fractions
        same = (nyquist_count(model, inner.ravel(), beta, order).stable == np.repeat(lo_stable, fractions.size)).reshape(
            inner.shape
        )
        # the first inner point whose verdict differs from lo's (none: the bracket's last section)
        first = np.where(same.all(axis=1), fractions.size, same.argmin(axis=1))
        edges = np.concatenate([lo[:, None], inner, hi[:, None]], axis=1)
        lo, hi = edges[rows, first], edges[rows, first + 1]
    bounds: np.ndarray = 0.5 * (lo + hi)
    return bounds


_SECTIONS = 64  # sections per bracket and round of alpha_bounds
