"""Bode and Nyquist diagrams of any SISO loop with delays, L(s) = sum_m n_m(s)/d(s) e^{-s tau_m}.

Frequencies in rad/s, delays in s. The phase is continuous: the rational part unwrapped along a
logarithmic grid fine enough that it turns by far less than 180 deg per step, the first delay's
-w tau added exactly (with several delays, the others' factors are unwrapped with the rational
part, so a user's ``w`` must then be fine enough for them). The Nyquist count is the winding of 1 + L around 0 along the Nyquist
contour (the imaginary axis, indented to the right around open-loop poles on it, closed at
infinity where a strictly proper L vanishes)::

    N = clockwise encirclements of -1 by L,    Z = N + P  (closed-loop roots with Re > 0),

P the open-loop poles with Re > 0. The axis is sampled up to the frequency past which
``|L|`` < 1/2 for good (a bound from the coefficients); there 1 + L stays in the right
half-plane, so the rest of the contour adds its principal argument only. Samples are refined
until 1 + L turns by less than 45 deg per step, so the count is an integer by construction.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import ArrayLike

from ..errors import InputError
from .lti import DelayedLoop, LoopMargins, as_loop, loop_margins

if TYPE_CHECKING:
    import pandas
    from matplotlib.axes import Axes

__all__ = ["LoopBode", "LoopNyquist", "loop_bode", "loop_nyquist"]


def _rational_phase(loop: DelayedLoop, w: np.ndarray) -> np.ndarray:
    """Continuous phase (rad) of sum n_m(jw) e^{-jw(tau_m - tau_1)}/d(jw) on an increasing ``w`` > 0,
    with the first delay tau_1 left out (added exactly by the caller)."""
    s = 1j * w
    value = loop(s) * np.exp(s * loop.delay)
    return np.unwrap(np.angle(value))


def _scales(loop: DelayedLoop) -> np.ndarray:
    roots = np.concatenate([np.roots(n) for n, _ in loop.terms] + [np.roots(loop.den)])
    scales: np.ndarray = np.abs(roots[np.abs(roots) > 0])
    return scales


def _tail(loop: DelayedLoop, level: float) -> float:
    """A w (rad/s) past which ``|L(j w)|`` < ``level`` for every larger w (a coefficient bound)."""
    den = loop.den
    m = den.size - 1
    w = 1.0
    for _ in range(200):
        top = sum(np.sum(np.abs(n) * w ** np.arange(n.size - 1, -1, -1)) for n, _ in loop.terms)
        low = np.abs(den[0]) * w**m - np.sum(np.abs(den[1:]) * w ** np.arange(m - 1, -1, -1))
        # the bound top/low decreases in w once low > 0, as L is strictly proper
        if low > 0 and top / low < level:
            return w
        w *= 2.0
    raise InputError("the loop's gain does not fall below 1/2 at any frequency sampled (not strictly proper?)")


@dataclass(frozen=True)
class LoopBode:
    """Frequency response of a delayed loop, SI units.

    Attributes
    ----------
    w : ndarray
        Frequencies (rad/s).
    magnitude : ndarray
        ``|L(j w)|`` (dimensionless).
    phase_deg : ndarray
        Continuous phase of L(j w), degrees (its value at the lowest ``w`` within 180 deg of 0).
    margins : LoopMargins
        The loop's exact verdict and margins (:func:`~rcpstab.linear.lti.loop_margins`).
    """

    w: np.ndarray
    magnitude: np.ndarray
    phase_deg: np.ndarray
    margins: LoopMargins

    def to_dict(self) -> dict[str, Any]:
        """The margins' strict-JSON dict (:meth:`LoopMargins.to_dict`)."""
        return self.margins.to_dict()

    def columns(self) -> dict[str, np.ndarray]:
        """The response as a table, units in the column names."""
        return {"w_rad_s": self.w, "magnitude": self.magnitude, "phase_deg": self.phase_deg}

    def to_pandas(self) -> pandas.DataFrame:
        """:meth:`columns` as a :class:`pandas.DataFrame`."""
        from ..runtime.frames import data_frame

        return data_frame(self.columns())

    def plot(self, axes: Sequence[Axes] | None = None) -> tuple[Axes, Axes]:
        """Magnitude (log-log) and phase (deg) against w (rad/s), the crossovers marked; returns (Axes, Axes)."""
        from ..figures import new_figure
        from .bode_axes import draw_bode, finish_bode

        if axes is None:
            axes = new_figure((6.4, 6.0)).subplots(2, 1, sharex=True)
        mag_ax, phase_ax = axes
        m = self.margins
        draw_bode(
            axes, self.w, self.magnitude, self.phase_deg, f"L(jw), delay {m.delay:.3g} s", m.crossover_w, m.phase_crossover_w
        )
        gm = "none" if m.gain_margin is None else f"{m.gain_margin:.3g}"
        pm = "none" if m.phase_margin_deg is None else f"{m.phase_margin_deg:.3g} deg"
        dm = "none" if m.delay_margin is None else f"{m.delay_margin:.3g} s"
        mag_ax.set_title(
            f"{'stable' if m.stable else 'UNSTABLE'} (roots; {m.open_loop_rhp_poles} open-loop RHP "
            f"poles)\nGm = {gm}, Pm = {pm}, delay margin = {dm}",
            fontsize="medium",
        )
        mag_ax.set_ylabel("|L(jw)| (dimensionless)")
        phase_ax.set_ylabel("phase of L(jw) (deg)")
        phase_ax.set_xlabel("w (rad/s)")
        finish_bode(axes)
        return mag_ax, phase_ax


def loop_bode(sys: Any, delay: float = 0.0, w: ArrayLike | None = None) -> LoopBode:
    """The Bode response of ``sys`` closed through ``delay``, with its exact margins.

    Parameters
    ----------
    sys : control.TransferFunction, control.StateSpace, DelayedLoop or (num, den)
        The SISO loop without its delay (coefficients in s, rad/s).
    delay : float or sequence of float
        Loop delay(s), seconds (several add).
    w : array_like, optional
        Frequencies (rad/s, > 0, increasing); default 2,000 log-spaced points from 100 times below
        the smallest pole/zero modulus (or the crossover) to 100 times above the largest.

    Returns
    -------
    LoopBode

    Examples
    --------
    >>> r = loop_bode(([2.0], [1.0, -1.0]), delay=0.3, w=[1.0, 2.0])   # 2 e^{-0.3 s}/(s - 1)
    >>> round(float(r.magnitude[0]), 6), round(float(r.phase_deg[0]), 2)   # sqrt(2), -0.3 rad - 135 deg
    (1.414214, -152.19)
    """
    loop = as_loop(sys, delay)
    margins = loop_margins(loop)
    if w is None:
        marks: Any = list(_scales(loop)) + [x for x in (margins.crossover_w, margins.phase_crossover_w) if x]
        if loop.delay > 0:
            marks.append(1.0 / loop.delay)
        marks = np.array(marks or [1.0])
        w = np.geomspace(marks.min() / 100, marks.max() * 100, 2000)
    w = np.asarray(w, float)
    if w.ndim != 1 or w.size < 1 or np.any(~np.isfinite(w)) or np.any(w <= 0) or np.any(np.diff(w) <= 0):
        raise InputError("w: frequencies must be finite, > 0 (rad/s) and increasing")
    value = loop(1j * w)
    phase = _rational_phase(loop, w) - w * loop.delay
    return LoopBode(w=w, magnitude=np.abs(value), phase_deg=np.degrees(phase), margins=margins)


@dataclass(frozen=True)
class LoopNyquist:
    """The Nyquist curve of a delayed loop and its encirclement count.

    Attributes
    ----------
    w : ndarray
        Frequencies of the curve's samples on the positive imaginary axis (rad/s).
    L : ndarray
        L(j w) there (complex; the mirror image is conj(L)).
    N : int
        Clockwise encirclements of -1 by L along the whole Nyquist contour.
    P : int
        Open-loop poles with Re > 0.
    margins : LoopMargins or None
        The loop's exact verdict and margins (roots, computed independently of the count); None
        for open-loop poles on the imaginary axis away from 0, which the margins do not take.
    """

    w: np.ndarray
    L: np.ndarray
    N: int
    P: int
    margins: LoopMargins | None

    @property
    def Z(self) -> int:
        """Closed-loop roots with Re > 0: N + P."""
        return self.N + self.P

    @property
    def stable(self) -> bool:
        """Z = 0."""
        return self.Z == 0

    def to_dict(self) -> dict[str, Any]:
        """N, P, Z, stable and the margins' strict-JSON dict."""
        return {
            "N": self.N,
            "P": self.P,
            "Z": self.Z,
            "stable": self.stable,
            "margins": None if self.margins is None else self.margins.to_dict(),
        }

    def columns(self) -> dict[str, np.ndarray]:
        """The curve as a table, units in the column names."""
        return {"w_rad_s": self.w, "L_real": self.L.real, "L_imag": self.L.imag}

    def to_pandas(self) -> pandas.DataFrame:
        """:meth:`columns` as a :class:`pandas.DataFrame`."""
        from ..runtime.frames import data_frame

        return data_frame(self.columns())

    def plot(self, ax: Axes | None = None, limit: float = 3.0) -> Axes:
        """L(jw) for w > 0 and its mirror image, -1 marked, the view clipped to ``limit``; returns the Axes."""
        from ..figures import new_figure

        ax = ax or new_figure((6.4, 6.4)).subplots()
        shown = np.where(np.abs(self.L) <= limit, self.L, np.nan)
        ax.plot(shown.real, shown.imag, color="tab:blue", label="L(jw), w > 0")
        ax.plot(shown.real, -shown.imag, color="tab:blue", ls="--", lw=0.8, label="w < 0")
        ax.plot([-1.0], [0.0], "r+", ms=12, mew=2, label="-1")
        ax.set_xlabel("Re L(jw) (dimensionless)")
        ax.set_ylabel("Im L(jw) (dimensionless)")
        ax.set_title(
            f"N = {self.N} (clockwise), P = {self.P}, Z = N + P = {self.Z}: {'stable' if self.stable else 'UNSTABLE'}",
            fontsize="medium",
        )
        ax.set_aspect("equal", adjustable="datalim")
        ax.grid(True, alpha=0.3)
        ax.legend(loc="best", fontsize="small")
        return ax


TURN = np.pi / 4  # largest turn of 1 + L allowed between samples of the contour


def loop_nyquist(sys: Any, delay: float = 0.0) -> LoopNyquist:
    """The Nyquist curve and count of ``sys`` closed through ``delay`` (see the module docstring).

    Parameters
    ----------
    sys : control.TransferFunction, control.StateSpace, DelayedLoop or (num, den)
        The SISO loop without its delay (strictly proper with a delay).
    delay : float or sequence of float
        Loop delay(s), seconds (several add).

    Returns
    -------
    LoopNyquist

    Examples
    --------
    >>> r = loop_nyquist(([2.0], [1.0, -1.0]), delay=0.3)      # 2 e^{-0.3 s}/(s - 1): P = 1, one CCW turn
    >>> r.N, r.P, r.Z, r.stable
    (-1, 1, 0, True)
    """
    loop = as_loop(sys, delay)
    if loop.num.size >= loop.den.size:
        raise InputError("the Nyquist count needs a strictly proper loop (|L| -> 0 at infinity)")
    try:
        margins = loop_margins(loop)
    except InputError:  # poles on the axis off 0: the count still holds
        margins = None
    poles = np.roots(loop.den)
    P = int((poles.real > 1e-9 * np.maximum(1.0, np.abs(poles))).sum())
    w_end = _tail(loop, 0.5)
    path = _sorted_contour(loop, w_end)
    values = 1.0 + loop(path)
    for _ in range(30):  # refine where 1 + L turns too fast
        turn = np.abs(np.angle(values[1:] / values[:-1]))
        bad = np.nonzero(turn > TURN)[0]
        if bad.size == 0:
            break
        mid = 0.5 * (path[bad] + path[bad + 1])
        path = np.insert(path, bad + 1, mid)
        values = np.insert(values, bad + 1, 1.0 + loop(mid))
    else:
        raise InputError("the Nyquist contour could not be sampled finely enough (a root on the axis?)")
    turned = np.sum(np.angle(values[1:] / values[:-1]))
    # the rest of the contour (|w| > w_end and the arc at infinity) keeps 1 + L in Re > 0: from
    # 1 + L(j w_end) back to 1 and from 1 to 1 + L(-j w_end), principal arguments
    turned += -np.angle(values[-1]) + np.angle(values[0])
    N = -int(np.rint(turned / (2 * np.pi)))
    w = np.geomspace(max(w_end * 1e-6, 1e-12), w_end, 2000)
    return LoopNyquist(w=w, L=loop(1j * w), N=N, P=P, margins=margins)


def _sorted_contour(loop: DelayedLoop, w_end: float) -> np.ndarray:
    """The contour's samples in the order of traversal (upwards, each indentation in its place)."""
    poles = np.roots(loop.den)
    on_axis = np.abs(poles.real) <= 1e-9 * np.maximum(1.0, np.abs(poles))
    axis_w = np.unique(np.round(poles.imag[on_axis], 12))
    others = np.abs(np.concatenate([poles[~on_axis], *[np.roots(n) for n, _ in loop.terms]]))
    near = min([x for x in others if x > 0] + [w_end])
    eps = 1e-4 * min(near, w_end, 1.0 / loop.delay if loop.delay > 0 else w_end)
    if axis_w.size > 1:
        eps = min(eps, 1e-3 * float(np.min(np.diff(axis_w))))
    half = np.geomspace(eps / 10, w_end, 3000)
    w = np.unique(np.concatenate([-half, half, np.linspace(-w_end, w_end, 4001)]))
    pieces = []
    start = -np.inf
    for p in list(axis_w) + [np.inf]:
        seg = w[(w > start + (eps if np.isfinite(start) else 0)) & (w < p - (eps if np.isfinite(p) else 0))]
        pieces.append(1j * seg)
        if np.isfinite(p):
            pieces.append(1j * p + eps * np.exp(1j * np.linspace(-np.pi / 2, np.pi / 2, 201)))
        start = p
    return np.concatenate(pieces)
