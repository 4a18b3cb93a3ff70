"""The Bode diagram read for any loop: crossings of -180 deg + k*360 deg with their direction.

The thesis' Bode test (eqs. 5.8-5.12: gain crossover before the phase crossover) assumes the
phase starts above -180 deg, as RCP's does. RCP-AC's loop (alpha*lambda + beta +
lambda**2) e^{-lambda}/lambda**3 starts at -270 deg, and the test is then wrong at most points.
The general reading is the Nyquist criterion written on the Bode diagram::

    Z = P + 2 * sum over crossings of the phase through -180 + k*360 deg (w > 0) where |G| > 1
        of (+1 when the phase falls through the level, -1 when it rises),

plus what happens at w = 0. There G ~ K/(j w)**n (n integrators, K = G's rational part at 0):
on the small right half-circle that the Nyquist contour takes around lambda = 0, the phase
falls from arg K to arg K - n*90 deg with ``|G|`` = infinity, so every level strictly inside
counts +1; a level reached exactly at the end (RCP: -180 deg) counts +1 only if the phase keeps
falling afterwards (App. C: for RCP, when alpha/beta < 1); a start on the level (K < 0)
counts one half, shared with the mirror half of the contour. P counts open-loop poles with
Re > 0. Z is the number of closed-loop roots in the right half-plane, so stable iff Z = 0.

The phase along w > 0 is continuous by construction: the delay's -theta*w exactly, each
integrator -90 deg exactly, and the rational rest unwrapped from its value at w -> 0 on a
grid fine enough that it turns by far less than 180 deg per step. Crossings past the
frequency where ``|G|`` < 1 for good (:func:`~rcpstab.linear.nyquist.tail_frequency`) do not
count and are not searched. Each crossing is located by a bracketing root finder, so the
verdict can only be wrong within rounding of the boundary.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .bisection import bisect_brackets
from .nyquist import rhp_poles, tail_frequency
from .openloop import OpenLoop

LOW = 1e-9            # first frequency sampled (w*d0); below it G ~ K/(j w)**n
RATIO = 1.05          # geometric step up to w = 1: a first-order factor turns < 0.05 rad per step
STEP = 0.02           # uniform step above w = 1, per unit delay
SAMPLES_PER_CHUNK = 4_000_000   # loops x frequencies evaluated together (memory ~ 16 bytes each)
W_CAP = 4096.0        # widest band sampled (w*d0); a loop needing more is refused
ROUNDING = 64         # a departure from the level within this many eps of its terms is rounding

from ..errors import InputError  # noqa: E402  (kept beside the limits it enforces)

__all__ = ["PhaseCrossings", "phase_crossings"]


@dataclass(frozen=True)
class PhaseCrossings:
    """Everything the Bode diagram says about stability, for many loops at once.

    Attributes
    ----------
    point : ndarray of int
        For each crossing of a level -180 + k*360 deg at w > 0, the loop it belongs to.
    w, level, direction, magnitude : ndarray
        Its frequency w*d0, level (rad), +1 falling / -1 rising, and ``|G|`` there.
    low : ndarray of float
        Per loop, the clockwise count contributed at w -> 0 (quarter arc, junction, start).
    gain_count : ndarray of int
        Per loop, how many times ``|G|`` crosses 1 (the thesis' test assumes once).
    rhp_poles : int
        P.
    gain_limit : float
        Crossings were searched far enough to decide K*G for K <= gain_limit.
    """

    point: np.ndarray
    w: np.ndarray
    level: np.ndarray
    direction: np.ndarray
    magnitude: np.ndarray
    low: np.ndarray
    gain_count: np.ndarray
    rhp_poles: int
    gain_limit: float = 1.0

    def unstable(self, gain: float = 1.0) -> np.ndarray:
        """Z for the loops ``gain * G``: a crossing counts where gain * ``|G|`` > 1."""
        upper = self.low + np.bincount(self.point, weights=self.direction * (gain * self.magnitude > 1),
                                       minlength=self.low.size)
        return np.rint(self.rhp_poles + 2 * upper).astype(int)


def _grid(w_end: float, theta: float) -> np.ndarray:
    geometric = np.exp(np.arange(np.log(LOW), 0.0, np.log(RATIO)))
    step = STEP / max(theta, 1.0)
    return np.concatenate((geometric, np.arange(1.0, w_end + step, step)))


def _continuous_phase(ol: OpenLoop, w, a, b, arg_k, r=None):
    """Phase of G(j w) continued from its value arg K - n*pi/2 at w -> 0+ (rows: loops)."""
    r = ol.rational(1j * w, a, b) if r is None else r
    rp = np.unwrap(np.angle(r), axis=-1)
    rp = rp + (arg_k + _wrap(rp[:, :1] - arg_k) - rp[:, :1])
    return rp - ol.theta * w - ol.integrators * np.pi / 2


def _wrap(x):
    return (x + np.pi) % (2 * np.pi) - np.pi


def band_end(ol: OpenLoop, a, b, gain_limit: float = 1.0) -> float:
    """A w*d0 past which gain_limit * ``|G(j w)|`` < 1 for every loop (a, b): no crossing beyond matters.

    Raises :class:`InputError` when that is beyond :data:`W_CAP` (gains in the thousands).
    """
    end = 1.05 * float(np.max(tail_frequency(ol, a, b, gain=gain_limit)))
    if end > W_CAP:
        raise InputError(f"alpha = {np.max(a):g}, beta = {np.max(b):g}: the loop's gain stays above 1 up to "
                         f"w*d0 = {end:.3g}, beyond the {W_CAP:g} the frequency lenses sample")
    return end


def _departure(ol: OpenLoop, w, a, b, sign_k, r):
    """The phase's departure from its w -> 0+ value arg K - n*pi/2, without adding that constant.

    Adding the constant (-pi for RCP) first would bury a departure below ~1e-16 rad in its
    rounding: at alpha = beta RCP's phase leaves -180 deg as -w**3/3, which a sum with -pi
    reads as a random sign up to w ~ 1e-5, where ``|G|`` ~ 1e10 (a spurious crossing). Samples
    whose departure is within rounding of zero (:data:`ROUNDING`) before the first one that is
    not are set just off the level on the side the phase then departs to: the phase is
    continuous, so it cannot have crossed the level in between.

    Returns
    -------
    departure : ndarray
        Rows: loops; columns: ``w``. Radians.
    side : ndarray
        Per loop, the sign (-1, 0, +1) of the first departure above rounding (0: none).
    """
    rp = np.unwrap(np.angle(sign_k * r), axis=-1)
    rp = rp - 2 * np.pi * np.rint(rp[:, :1] / (2 * np.pi))   # start within pi of arg K (exact: no rounding of pi)
    departure = rp - ol.theta * w
    noise = ROUNDING * np.finfo(float).eps * (np.abs(rp) + ol.theta * w)
    reliable = np.abs(departure) > noise
    first = np.where(reliable.any(axis=1), reliable.argmax(axis=1), w.size)
    side = np.sign(departure[np.arange(departure.shape[0]), np.minimum(first, w.size - 1)]) * (first < w.size)
    before = np.arange(w.size)[None, :] < first[:, None]
    departure = np.where(before, side[:, None] * noise, departure)
    return departure, side


def _chunk(ol: OpenLoop, a, b, gain_limit):
    n = ol.integrators
    k0 = ol.rational(np.zeros(1), a[:, None], b[:, None])[:, 0].real
    arg_k = np.where(k0 < 0, np.pi, 0.0)
    sign_k = np.where(k0 < 0, -1.0, 1.0)[:, None]
    w = _grid(band_end(ol, a, b, gain_limit), ol.theta)
    r = ol.rational(1j * w, a[:, None], b[:, None])
    departure, side = _departure(ol, w, a[:, None], b[:, None], sign_k, r)
    above = np.abs(r) > w**n
    gain_count = (above[:, :-1] != above[:, 1:]).sum(axis=1)

    # w -> 0: arc from arg K down to e = arg K - n*pi/2 with |G| = infinity.
    e = arg_k - n * np.pi / 2
    levels_between = np.floor((arg_k + np.pi) / (2 * np.pi) - 1e-12) - np.floor((e + np.pi) / (2 * np.pi) + 1e-12)
    on_level_end = np.isclose(np.cos(e), -1.0, rtol=0, atol=1e-12) & (np.abs(np.sin(e)) < 1e-12)
    falling_after = side < 0
    start_on_level = arg_k == np.pi
    if n >= 1:
        low = np.maximum(levels_between, 0) + (on_level_end & falling_after) + 0.5 * start_on_level
    else:
        # No integrator: G(0) is finite; a start left of -1 on the axis is half a crossing.
        left = start_on_level & (np.abs(k0) > 1)
        low = np.where(left, np.where(side >= 0, 0.5, -0.5), 0.0)

    # Bands between levels -pi + 2 pi k, counted from e in quarter turns so that a phase
    # starting on a level (e + pi = 0 mod 2 pi, RCP's case) is compared with 0 exactly.
    quarters = np.rint((e + np.pi) / (np.pi / 2)).astype(int)
    whole, rest = np.floor_divide(quarters, 4), np.mod(quarters, 4)
    band = whole[:, None] + np.floor((rest[:, None] * (np.pi / 2) + departure) / (2 * np.pi))
    rows, cols = np.nonzero(band[:, :-1] != band[:, 1:])
    falling = band[rows, cols + 1] < band[rows, cols]
    # Level crossed between samples cols and cols+1 (one per bracket: steps turn << 2 pi),
    # measured from e: 2 pi (k - whole) - rest * pi/2, exactly 0 for the level the phase starts on.
    k = np.where(falling, band[rows, cols], band[rows, cols + 1])
    offset = 2 * np.pi * (k - whole[rows]) - rest[rows] * (np.pi / 2)
    base_w, base_departure = w[cols], departure[rows, cols]
    base_angle = np.angle(sign_k[rows, 0] * ol.rational(1j * base_w, a[rows], b[rows]))

    def minus_level(x, i):
        r = np.angle(sign_k[rows[i], 0] * ol.rational(1j * x, a[rows[i]], b[rows[i]]))
        turn = r - base_angle[i]
        turn = turn - 2 * np.pi * np.rint(turn / (2 * np.pi))  # not _wrap: its +pi rounds a small turn
        return base_departure[i] + turn - ol.theta * (x - base_w[i]) - offset[i]

    w_cross = bisect_brackets(minus_level, w[cols], w[cols + 1])
    magnitude = np.abs(ol(1j * w_cross, a[rows], b[rows]))
    return rows, w_cross, e[rows] + offset, np.where(falling, 1.0, -1.0), magnitude, low, gain_count


def phase_crossings(ol: OpenLoop, alpha, beta, gain_limit: float = 1.0) -> PhaseCrossings:
    """The crossings of -180 + k*360 deg of the loops (alpha[i], beta[i]) (1-D arrays).

    Crossings are searched as far as they can matter for the loops K*G with K <= ``gain_limit``
    (1: the loops themselves; more for gain margins).
    """
    alpha = np.atleast_1d(np.asarray(alpha, float)).ravel()
    beta = np.atleast_1d(np.asarray(beta, float)).ravel()
    samples = _grid(band_end(ol, alpha, beta, gain_limit), ol.theta).size
    chunk = max(1, SAMPLES_PER_CHUNK // samples)
    parts = [_chunk(ol, alpha[s:s + chunk], beta[s:s + chunk], gain_limit) for s in range(0, alpha.size, chunk)]
    offsets = np.arange(0, alpha.size, chunk)
    point = np.concatenate([p[0] + o for p, o in zip(parts, offsets)] or [np.zeros(0, int)])
    cat = [np.concatenate([p[i] for p in parts] or [np.zeros(0)]) for i in range(1, 7)]
    return PhaseCrossings(point=point.astype(int), w=cat[0], level=cat[1], direction=cat[2], magnitude=cat[3],
                          low=cat[4], gain_count=cat[5].astype(int), rhp_poles=rhp_poles(ol, None), gain_limit=gain_limit)


def gain_crossovers_many(ol: OpenLoop, alpha, beta):
    """Every w*d0 > 0 where ``|G(j w)|`` = 1, for many loops: (point, w, continuous phase in rad)."""
    alpha = np.atleast_1d(np.asarray(alpha, float)).ravel()
    beta = np.atleast_1d(np.asarray(beta, float)).ravel()
    samples = _grid(band_end(ol, alpha, beta), ol.theta).size
    chunk = max(1, SAMPLES_PER_CHUNK // samples)
    out = []
    for s in range(0, alpha.size, chunk):
        a, b = alpha[s:s + chunk], beta[s:s + chunk]
        k0 = ol.rational(np.zeros(1), a[:, None], b[:, None])[:, 0].real
        arg_k = np.where(k0 < 0, np.pi, 0.0)
        w = _grid(band_end(ol, a, b), ol.theta)
        r = ol.rational(1j * w, a[:, None], b[:, None])
        phase = _continuous_phase(ol, w, a[:, None], b[:, None], arg_k[:, None], r)
        log_mag = np.log(np.abs(r)) - ol.integrators * np.log(w)
        rows, cols = np.nonzero((np.sign(log_mag[:, :-1]) * np.sign(log_mag[:, 1:]) <= 0)
                                & (log_mag[:, :-1] != log_mag[:, 1:]))
        w_cross = bisect_brackets(lambda x, i: np.log(np.abs(ol(1j * x, a[rows[i]], b[rows[i]]))),
                                  w[cols], w[cols + 1])
        base_angle = np.angle(ol.rational(1j * w[cols], a[rows], b[rows]))
        turn = np.angle(ol.rational(1j * w_cross, a[rows], b[rows]))
        out.append((rows + s, w_cross, phase[rows, cols] + _wrap(turn - base_angle) - ol.theta * (w_cross - w[cols])))
    return tuple(np.concatenate([o[i] for o in out]) for i in range(3))


def gain_crossovers(ol: OpenLoop, alpha: float, beta: float):
    """Every w*d0 > 0 where ``|G(j w)|`` = 1 for one loop, and the continuous phase there (rad)."""
    _, w, phase = gain_crossovers_many(ol, [alpha], [beta])
    return w, phase
