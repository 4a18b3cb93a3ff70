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

Many loops share one sweep (:func:`sweep`): sampled in groups on grids that begin alike, bracketed
by sign changes (:func:`_group_brackets`), all brackets refined together.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .bisection import bisect_brackets
from .nyquist import rhp_poles, tail_frequency
from .openloop import OpenLoop

LOW = 1e-9  # first frequency sampled (w*d0); below it G ~ K/(j w)**n
RATIO = 1.05  # geometric step up to w = 1: a first-order factor turns < 0.05 rad per step
STEP = 0.02  # uniform step above w = 1, per unit delay
SAMPLES_PER_CHUNK = 4_000_000  # loops x frequencies evaluated together (memory ~ 16 bytes each)
GROUP = 32  # loops sampled together on one grid (sorted by reach; 32 rows stay in cache)
W_CAP = 4096.0  # widest band sampled (w*d0); a loop needing more is refused
ROUNDING = 64  # a departure from the level within this many eps of its terms is rounding
PROBE = 64  # samples searched first for a departure above rounding (most loops depart at once)

from ..errors import InputError  # noqa: E402  (kept beside the limits it enforces)

__all__ = ["PhaseCrossings", "gain_crossovers", "gain_crossovers_many", "phase_crossings", "sweep", "unwrap"]


@dataclass(frozen=True)
class PhaseCrossings:
    """Everything the Bode diagram says about stability, for many loops at once.

    Attributes
    ----------
    point : ndarray of int
        For each crossing of a level -180 + k*360 deg at w > 0, the loop it belongs to.
    w : ndarray
        Its frequency w*d0.
    level : ndarray
        Its level, rad.
    direction : ndarray
        +1 falling, -1 rising.
    magnitude : ndarray
        ``|G|`` there.
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
        upper = self.low + np.bincount(self.point, weights=self.direction * (gain * self.magnitude > 1), minlength=self.low.size)
        return np.rint(self.rhp_poles + 2 * upper).astype(int)


def _grid(w_end: float, theta: float) -> np.ndarray:
    geometric = np.exp(np.arange(np.log(LOW), 0.0, np.log(RATIO)))
    step = STEP / max(theta, 1.0)
    return np.concatenate((geometric, np.arange(1.0, w_end + step, step)))


def _grid_sizes(w_ends, theta: float) -> np.ndarray:
    """``_grid(w_end, theta).size`` for each end, without building the grids (NumPy's arange length)."""
    geometric = int(np.ceil((0.0 - np.log(LOW)) / np.log(RATIO)))
    step = STEP / max(theta, 1.0)
    return geometric + np.maximum(np.ceil((np.asarray(w_ends, float) + step - 1.0) / step), 0).astype(int)


def _continuous_phase(ol: OpenLoop, w, a, b, arg_k, r=None):
    """Phase of G(j w) continued from its value arg K - n*pi/2 at w -> 0+ (rows: loops)."""
    r = ol.rational(1j * w, a, b) if r is None else r
    rp = np.unwrap(np.angle(r), axis=-1)
    rp = rp + (arg_k + _wrap(rp[:, :1] - arg_k) - rp[:, :1])
    return rp - ol.theta * w - ol.integrators * np.pi / 2


def _wrap(x):
    return (x + np.pi) % (2 * np.pi) - np.pi


def unwrap(angle):
    """Phase continued along the last axis: each step's jump moved by whole turns into [-pi, pi].

    The step corrections are added up (a cumulative sum), so a grid's prefix gets the same values
    whatever follows it (a group's wider grid continues each point's own): NumPy's
    :func:`numpy.unwrap` does the same in twice the passes.
    """
    out = angle.copy()
    turns = np.diff(angle, axis=-1)
    turns *= 1 / (2 * np.pi)
    np.rint(turns, out=turns)
    np.cumsum(turns, axis=-1, out=turns)
    turns *= 2 * np.pi
    out[..., 1:] -= turns
    return out


def _departure(ol: OpenLoop, w, rp):
    """The phase's departure from its w -> 0+ value arg K - n*pi/2, without adding that constant.

    ``rp`` is the unwrapped phase of sign(K) * (G's rational part), starting within pi of 0.
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
    first : ndarray of int
        Per loop, the index of that sample (``w.size``: none).
    """
    departure = rp - ol.theta * w
    rows, size = departure.shape

    def noise(r, c):
        return ROUNDING * np.finfo(float).eps * (np.abs(rp[r, c]) + ol.theta * w[c])

    # the first sample above rounding: most loops depart within a few samples, so look there first
    first = np.full(rows, size)
    todo = np.arange(rows)
    for block in (np.arange(min(PROBE, size)), np.arange(min(PROBE, size), size)):
        if todo.size == 0 or block.size == 0:
            break
        reliable = np.abs(departure[todo[:, None], block]) > noise(todo[:, None], block)
        found = reliable.any(axis=1)
        first[todo[found]] = block[0] + reliable[found].argmax(axis=1)
        todo = todo[~found]
    side = np.sign(departure[np.arange(rows), np.minimum(first, size - 1)]) * (first < size)
    late = np.nonzero(first > 0)[0]  # rows with samples to set
    if late.size:
        cols = np.arange(int(first[late].max()))
        before = cols[None, :] < first[late, None]
        part = departure[late[:, None], cols]
        departure[late[:, None], cols] = np.where(before, side[late, None] * noise(late[:, None], cols), part)
    return departure, side, first


@dataclass
class _Brackets:
    """One group's sign changes, before refinement (indices into the group's points)."""

    rows: np.ndarray  # -180 + k*360 deg crossings: the loop
    lo: np.ndarray  # bracket ends (w*d0)
    hi: np.ndarray
    falling: np.ndarray
    offset: np.ndarray  # the level, measured from e
    base_departure: np.ndarray
    base_angle: np.ndarray
    sign_k: np.ndarray  # per crossing
    e: np.ndarray  # per crossing: arg K - n*pi/2
    low: np.ndarray  # per loop
    gain_count: np.ndarray
    g_rows: np.ndarray  # gain crossovers (|G| = 1): the loop, bracket ends, phase at lo
    g_lo: np.ndarray
    g_hi: np.ndarray
    g_phase: np.ndarray
    g_angle: np.ndarray  # angle of the rational part at lo


def _quotients(ol: OpenLoop, w):
    """The three parts of G's rational part on the grid: num_k(j w)/den(j w), k = constant, alpha, beta."""
    polyval = np.polynomial.polynomial.polyval
    lam = 1j * w
    den = polyval(lam, ol.den)
    return tuple(polyval(lam, ol.num[:, k]) / den for k in range(3))


def _rational_parts(ol: OpenLoop, w, a, b, quotients=None):
    """Real and imaginary parts of G's rational part at j w (columns) for the loops (a[i], b[i]) (rows).

    The gains enter the numerator linearly, so each of its three parts is divided by the
    denominator once on the 1-D grid (``quotients``: :func:`_quotients` on ``w`` or a longer grid it
    begins) and the loops are their real combinations: a sample costs a few real operations instead
    of a complex polynomial and a complex division.
    """
    q0, qa, qb = (q[: w.size] for q in (quotients or _quotients(ol, w)))
    re, im, term = (np.empty((a.size, w.size)) for _ in range(3))
    for out, qa_part, qb_part in ((re, qa.real, qb.real), (im, qa.imag, qb.imag)):
        np.multiply(a[:, None], qa_part, out=out)
        out += np.multiply(b[:, None], qb_part, out=term)
    if np.any(ol.num[:, 0]):
        re += q0.real
        im += q0.imag
    return re, im


def _group_brackets(ol: OpenLoop, a, b, ends, crossovers: bool, grid=None) -> _Brackets:
    """Sample the loops (a[i], b[i]) once on the grid up to the largest of their band ``ends`` and bracket
    every crossing of a level -180 + k*360 deg and (``crossovers``) every gain crossover.

    A loop's brackets are those of its own grid (up to its own end): a crossing a wider member's
    samples show beyond it is dropped, so what a loop gets does not depend on its group.

    No angle is taken at every sample (an arctangent costs fifty multiplications): G's phase reaches
    a level -180 + k*360 deg where v = sign(K) r(j w) e^{-j theta w} j^rest (``rest``: e's quarter
    turns past a level) crosses the positive real axis, and the phase of r turns by 360 deg where
    sign(K) r crosses the negative one; both are sign changes of a component. Angles are taken at
    the first samples (the departure from the level, :func:`_departure`), at the brackets, and at
    the rare steps that pass by the origin, where signs alone cannot tell the two axes apart. The
    numbers are those of the full unwrapped phase (the same operations at the same samples).
    ``grid``: (w, quotients, cos theta w, sin theta w) on a grid this group's begins (computed if absent).
    """
    n = ol.integrators
    w_end = float(np.max(ends))
    own = _grid_sizes(ends, ol.theta)  # a loop's own grid: this many samples
    k0 = ol.rational(np.zeros(1), a[:, None], b[:, None])[:, 0].real
    arg_k = np.where(k0 < 0, np.pi, 0.0)
    sign_k = np.where(k0 < 0, -1.0, 1.0)
    e = arg_k - n * np.pi / 2
    quarters = np.rint((e + np.pi) / (np.pi / 2)).astype(int)
    rest = np.mod(quarters, 4)  # whole turns (quarters // 4) shift every band alike: dropped
    size = int(_grid_sizes(w_end, ol.theta))
    w_all, quotients, cos_all, sin_all = grid or _sweep_grid(ol, w_end)
    w = w_all[:size]
    re, im = _rational_parts(ol, w, a, b, quotients)
    magnitude2 = np.square(re)
    magnitude2 += np.square(im)
    if np.any(sign_k < 0):
        re, im = sign_k[:, None] * re, sign_k[:, None] * im
    mine = np.arange(size - 1)[None, :] + 1 < own[:, None]  # steps inside each loop's own grid
    above = magnitude2 > w ** (2 * n)
    change = (above[:, :-1] != above[:, 1:]) & mine
    gain_count = change.sum(axis=1)

    # turns of r's phase: sign(K) r crosses the negative real axis (its angle jumps by -+ 2 pi)
    wraps = _axis_steps(re, im, negative=True, steps=mine)
    # the departure from the level near w = 0: angles of the first samples only
    first, side, band_first = _first_departure(ol, w, re, im, rest)

    # levels: v crosses the positive real axis
    c, s = cos_all[:size], sin_all[:size]
    vre = re * c
    vre += im * s
    vim = im * c
    vim -= re * s
    for r in range(1, 4):  # v *= j**rest, exactly (a swap and signs)
        pick = rest == r
        if pick.any():
            x, y = vre[pick], vim[pick]
            vre[pick], vim[pick] = {1: (-y, x), 2: (-x, -y), 3: (y, -x)}[r]
    level_steps = mine & (np.arange(size - 1)[None, :] >= first[:, None])  # no crossing before the departure
    rows, cols, rising = _axis_steps(vre, vim, negative=False, steps=level_steps)
    falling = ~rising  # the phase rises through a level where v's y goes up
    # the band below each crossing: the band at the departure plus the crossings before it in its row
    step = np.where(rising, 1.0, -1.0)
    before = _per_row_cumsum(rows, step) - step
    band_c = band_first[rows] + before
    k = np.where(falling, band_c, band_c + 1)
    # Level crossed between samples cols and cols+1 (one per bracket: steps turn << 2 pi),
    # measured from e: 2 pi k' - rest * pi/2 (k' counted from whole), 0 for the level the phase starts on.
    offset = 2 * np.pi * k - rest[rows] * (np.pi / 2)
    base_departure, base_angle = _departure_at(ol, w, a, b, sign_k, rows, cols, wraps)

    if crossovers:
        # gain crossovers: |G| passes 1 between samples
        g_rows, g_cols = np.nonzero(change)
        wraps_r = (
            wraps
            if not np.any(sign_k < 0)
            else _axis_steps(sign_k[:, None] * re, sign_k[:, None] * im, negative=True, steps=mine)
        )  # r's own turns
        g_phase, g_angle = _continuous_phase_at(ol, w, a, b, arg_k, g_rows, g_cols, wraps_r)
    else:
        g_rows = g_cols = np.zeros(0, int)
        g_phase = g_angle = np.zeros(0)

    # w -> 0: arc from arg K down to e = arg K - n*pi/2 with |G| = infinity.
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
    return _Brackets(
        rows=rows,
        lo=w[cols],
        hi=w[cols + 1],
        falling=falling,
        offset=offset,
        base_departure=base_departure,
        base_angle=base_angle,
        sign_k=sign_k[rows],
        e=e[rows],
        low=low,
        gain_count=gain_count,
        g_rows=g_rows,
        g_lo=w[g_cols],
        g_hi=w[g_cols + 1],
        g_phase=g_phase,
        g_angle=g_angle,
    )


def _sweep_grid(ol: OpenLoop, w_end: float):
    """The grid up to ``w_end`` and what every group's samples share on it (any group's grid begins it)."""
    w = _grid(w_end, ol.theta)
    return w, _quotients(ol, w), np.cos(ol.theta * w), np.sin(ol.theta * w)


def _axis_steps(x, y, negative: bool, steps):
    """Steps (row, col: between samples col and col+1, where ``steps`` is True) on which the point
    (x, y) crosses the real axis on its negative (``negative``) or positive side, and whether y went
    up through it (from arctan2's negative half to its positive one).

    A step is taken to turn by less than 180 deg. Where x keeps its sign the sign of y decides; where
    x changes sign too (the step passes by the origin) the angles decide, as unwrapping would: the
    step's turn is the difference of the angles moved into [-pi, pi].
    """
    below = np.signbit(y)  # arctan2's sign, -0.0 included
    flip = (below[:, :-1] != below[:, 1:]) & steps
    on, off = ((x < 0), (x > 0)) if negative else ((x > 0), (x < 0))
    sure = flip & on[:, :-1] & on[:, 1:]
    unsure = flip & ~sure & ~(off[:, :-1] & off[:, 1:])
    rows, cols = np.nonzero(sure)
    up = below[rows, cols]
    ur, uc = np.nonzero(unsure)
    if ur.size:
        a0 = np.arctan2(y[ur, uc], x[ur, uc])
        a1 = np.arctan2(y[ur, uc + 1], x[ur, uc + 1])
        d = a1 - a0
        if negative:
            turn = np.rint(d / (2 * np.pi))  # unwrap's correction: the angle jumped by 2 pi
            hit, u_up = turn != 0, turn > 0
        else:
            d -= 2 * np.pi * np.rint(d / (2 * np.pi))
            hit = (np.signbit(a0) != np.signbit(a0 + d)) & (np.abs(a0 + d) < np.pi)
            u_up = d > 0
        rows, cols = np.concatenate((rows, ur[hit])), np.concatenate((cols, uc[hit]))
        up = np.concatenate((up, u_up[hit]))
        order = np.lexsort((cols, rows))
        rows, cols, up = rows[order], cols[order], up[order]
    return rows, cols, up


def _unwrapped_at(ol: OpenLoop, w, a, b, sign, rows, cols, wraps):
    """``numpy.unwrap(numpy.angle(sign * r))`` at the samples (rows, cols), its first column and the
    angles at the samples (before unwrapping), r the
    complex rational part, from the angles there and at the turns only (``wraps``: the steps on which
    sign * r crosses its negative real axis): :func:`numpy.unwrap`'s correction (the jump moved into
    [-pi, pi) minus the jump) summed in each row in order, as it sums them, so the values are its own
    bit for bit."""
    w_rows, w_cols, _ = wraps
    every = np.arange(a.size)
    r_all = np.concatenate((w_rows, w_rows, rows, every))  # one evaluation for every angle needed
    c_all = np.concatenate((w_cols + 1, w_cols, cols, np.zeros(a.size, int)))
    angles = np.angle(sign[r_all] * ol.rational(1j * w[c_all], a[r_all], b[r_all]))
    after, at_turn, here, first = np.split(angles, np.cumsum([w_rows.size, w_rows.size, rows.size]))
    dd = after - at_turn
    ddmod = np.mod(dd + np.pi, 2 * np.pi) - np.pi
    ddmod = np.where((ddmod == -np.pi) & (dd > 0), np.pi, ddmod)
    correct = np.where(np.abs(dd) < np.pi, 0.0, ddmod - dd)
    # per row, the running sums of its corrections (a padded table: cumsum adds them in order)
    counts = np.bincount(w_rows, minlength=a.size)
    starts = np.concatenate(([0], np.cumsum(counts)[:-1]))
    table = np.zeros((a.size, int(counts.max(initial=0)) + 1))
    table[w_rows, 1 + np.arange(w_rows.size) - starts[w_rows]] = correct
    np.cumsum(table, axis=1, out=table)
    key = w_rows.astype(np.int64) * w.size + w_cols
    before = np.searchsorted(key, rows.astype(np.int64) * w.size + cols) - starts[rows]  # turns before
    return here + table[rows, before], first, here


def _continuous_phase_at(ol: OpenLoop, w, a, b, arg_k, rows, cols, wraps):
    """:func:`_continuous_phase` at the samples (rows, cols) (``wraps``: r's turns), bit for bit, and the
    angle of r there."""
    rp, first, angle = _unwrapped_at(ol, w, a, b, np.ones(a.size), rows, cols, wraps)
    shift = arg_k + _wrap(first - arg_k) - first
    return rp + shift[rows] - ol.theta * w[cols] - ol.integrators * np.pi / 2, angle


def _departure_at(ol: OpenLoop, w, a, b, sign_k, rows, cols, wraps):
    """The departure (:func:`_departure`, past the first sample above rounding) at the samples (rows, cols)
    (``wraps``: sign(K) r's turns): its unwrapped phase started within pi of 0, minus the delay's; and
    the angle of sign(K) r there."""
    rp, first, angle = _unwrapped_at(ol, w, a, b, sign_k, rows, cols, wraps)
    return rp - 2 * np.pi * np.rint(first[rows] / (2 * np.pi)) - ol.theta * w[cols], angle


def _per_row_cumsum(rows, values):
    """Running sum of ``values`` within each row (``rows`` sorted), the current entry included."""
    total = np.cumsum(values)
    if rows.size == 0:
        return total
    start = np.concatenate(([True], rows[1:] != rows[:-1]))
    first = np.maximum.accumulate(np.where(start, np.arange(rows.size), 0))
    return total - (total - values)[first]


def _first_departure(ol, w, re, im, rest):
    """Per loop: the first sample whose departure from the level is above rounding, the side it
    departs to, and the band at that sample (:func:`_departure`); from
    the angles of the first :data:`PROBE` samples, of all only for a loop that has not departed there."""
    rows_n, size = re.shape
    first = np.full(rows_n, size)
    side, band = np.zeros(rows_n), np.zeros(rows_n)
    todo = np.arange(rows_n)
    for width in (min(PROBE, size), size):
        if todo.size == 0:
            break
        rp = unwrap(np.arctan2(im[todo, :width], re[todo, :width]))
        shift = np.rint(rp[:, :1] / (2 * np.pi))
        rp -= 2 * np.pi * shift  # start within pi of arg K (exact: no rounding of pi)
        dep, sd, f = _departure(ol, w[:width], rp)
        done = (f < width) | (width == size)
        rows = todo[done]
        at = np.minimum(f[done], width - 1)
        first[rows] = np.where(f[done] < width, f[done], size)
        side[rows] = sd[done]
        band[rows] = np.floor((rest[rows] * (np.pi / 2) + dep[done, at]) * (1 / (2 * np.pi)))
        todo = todo[~done]
    return first, side, band


def _cat(parts, name, dtype=float):
    return np.concatenate([getattr(p, name) for p in parts]) if parts else np.zeros(0, dtype)


def sweep(ol: OpenLoop, alpha, beta, gain_limit: float = 1.0, crossovers: bool = True, tails=None):
    """The -180 + k*360 deg crossings and the gain crossovers of many loops, from one frequency sweep.

    Loops are sampled in groups of similar reach (sorted by their tail frequency), each group on
    one grid as far as its widest member needs; a loop's samples are the same in any group (the
    grid's prefix, its own band first), and every crossing is refined afterwards, all at once,
    so a loop's crossings do not depend on the loops swept with it.

    Parameters
    ----------
    ol : OpenLoop
    alpha, beta : array_like
        The loops' gains, 1-D.
    gain_limit : float
        Crossings are searched far enough to decide K*G for K <= gain_limit.
    crossovers : bool
        Also bracket and refine the gain crossovers (``|G|`` = 1).
    tails : ndarray, optional
        :func:`~rcpstab.linear.nyquist.tail_frequency` of the loops at ``gain_limit`` (computed if absent).

    Returns
    -------
    crossings : PhaseCrossings
        The -180 + k*360 deg crossings of every loop.
    crossovers : tuple of ndarray
        The gain crossovers' loop index, frequency w*d0 and continuous phase (rad); empty if not asked.
    """
    alpha = np.atleast_1d(np.asarray(alpha, float)).ravel()
    beta = np.atleast_1d(np.asarray(beta, float)).ravel()
    tails = tail_frequency(ol, alpha, beta, gain=gain_limit) if tails is None else np.asarray(tails, float)
    ends = _band_ends(tails, alpha, beta)
    order = np.argsort(ends, kind="stable")
    grid = _sweep_grid(ol, float(ends.max())) if ends.size else None
    parts, members = [], []
    s = 0
    while s < order.size:
        # as many loops as fit SAMPLES_PER_CHUNK on the grid of the group's widest member
        size = min(GROUP, order.size - s)
        samples = int(_grid_sizes(ends[order[s + size - 1]], ol.theta))
        size = max(1, min(size, SAMPLES_PER_CHUNK // samples))
        group = order[s : s + size]
        parts.append(_group_brackets(ol, alpha[group], beta[group], ends[group], crossovers, grid))
        members.append(group)
        s += size
    for p, group in zip(parts, members):  # group rows -> the loops' own indices
        p.rows, p.g_rows = group[p.rows], group[p.g_rows]
    low, gain_count = np.zeros(alpha.size), np.zeros(alpha.size, int)
    for p, group in zip(parts, members):
        low[group], gain_count[group] = p.low, p.gain_count
    pc = _refine_crossings(ol, alpha, beta, parts, low, gain_count, gain_limit)
    if not crossovers:
        return pc, (np.zeros(0, int), np.zeros(0), np.zeros(0))
    return pc, _refine_crossovers(ol, alpha, beta, parts)


def _band_ends(tails, alpha, beta):
    """Per loop, the grid's end 1.05 * tail (:func:`band_end`'s rule); InputError past :data:`W_CAP`."""
    ends = 1.05 * tails
    if ends.size and float(np.max(ends)) > W_CAP:
        i = int(np.argmax(ends))
        raise InputError(
            f"alpha = {alpha[i]:g}, beta = {beta[i]:g}: the loop's gain stays above 1 up to "
            f"w*d0 = {ends[i]:.3g}, beyond the {W_CAP:g} the frequency lenses sample"
        )
    return ends


def _refine_crossings(ol, alpha, beta, parts, low, gain_count, gain_limit) -> PhaseCrossings:
    rows = _cat(parts, "rows", int)
    order = np.argsort(rows, kind="stable")  # by loop; each loop's crossings stay in order of w
    rows = rows[order]
    lo, hi, falling, offset, base_departure, base_angle, sign_k, e = (
        _cat(parts, name)[order] for name in ("lo", "hi", "falling", "offset", "base_departure", "base_angle", "sign_k", "e")
    )
    falling = falling.astype(bool)
    a, b = alpha[rows], beta[rows]

    def minus_level(x, i):
        r = np.angle(sign_k[i] * ol.rational(1j * x, a[i], b[i]))
        turn = r - base_angle[i]
        turn = turn - 2 * np.pi * np.rint(turn / (2 * np.pi))  # not _wrap: its +pi rounds a small turn
        return base_departure[i] + turn - ol.theta * (x - lo[i]) - offset[i]

    w_cross = bisect_brackets(minus_level, lo, hi)
    magnitude = np.abs(ol(1j * w_cross, a, b))
    return PhaseCrossings(
        point=rows.astype(int),
        w=w_cross,
        level=e + offset,
        direction=np.where(falling, 1.0, -1.0),
        magnitude=magnitude,
        low=low,
        gain_count=gain_count,
        rhp_poles=rhp_poles(ol, None),
        gain_limit=gain_limit,
    )


def _refine_crossovers(ol, alpha, beta, parts):
    rows = _cat(parts, "g_rows", int)
    order = np.argsort(rows, kind="stable")
    rows = rows[order]
    lo, hi, phase, angle = (_cat(parts, name)[order] for name in ("g_lo", "g_hi", "g_phase", "g_angle"))
    a, b = alpha[rows], beta[rows]
    w_cross = bisect_brackets(lambda x, i: np.log(np.abs(ol(1j * x, a[i], b[i]))), lo, hi)
    turn = np.angle(ol.rational(1j * w_cross, a, b))
    return rows.astype(int), w_cross, phase + _wrap(turn - angle) - ol.theta * (w_cross - lo)


def phase_crossings(ol: OpenLoop, alpha, beta, gain_limit: float = 1.0) -> PhaseCrossings:
    """The crossings of -180 + k*360 deg of the loops (alpha[i], beta[i]) (1-D arrays).

    Crossings are searched as far as they can matter for the loops K*G with K <= ``gain_limit``
    (1: the loops themselves; more for gain margins).
    """
    return sweep(ol, alpha, beta, gain_limit, crossovers=False)[0]


def gain_crossovers_many(ol: OpenLoop, alpha, beta):
    """Every w*d0 > 0 where ``|G(j w)|`` = 1, for many loops: (point, w, continuous phase in rad)."""
    return sweep(ol, alpha, beta)[1]


def gain_crossovers(ol: OpenLoop, alpha: float, beta: float):
    """Every w*d0 > 0 where ``|G(j w)|`` = 1 for one loop, and the continuous phase there (rad)."""
    _, w, phase = gain_crossovers_many(ol, [alpha], [beta])
    return w, phase
