"""Amplitude, period and envelope growth of oscillating traces, measured on the samples.

These are the measurements a bifurcation diagram needs on each continuation run. They are
local to this package while the phase plane's shared judgement of traces is being rewritten;
they should later move onto :mod:`rcpstab.verdicts.judgement` (one judgement of traces).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

__all__ = ["CycleMeasures", "measure_cycles", "attractor_interval", "disagree"]

MIN_CROSSINGS = 3  # upward crossings needed to call an oscillation periodic (2 full periods)
ENVELOPE_WINDOW_RTT = 10.0  # envelope samples: peak-to-peak over windows at least this long...
PERIODS_PER_WINDOW = 1.5  # ...and at least this many periods


@dataclass
class CycleMeasures:
    """Per-trajectory measurements on the last part of a run (arrays of shape (B,)).

    Attributes
    ----------
    amplitude : ndarray
        Half peak-to-peak of R/C (absolute R/C units) over the measured window.
    amplitude_queue : ndarray
        Half peak-to-peak of the queue, in bandwidth-delay products (q / (C d0)).
    period_rtt : ndarray
        Mean spacing of the upward crossings of R/C through its mid-range, RTTs (NaN: fewer than
        :data:`MIN_CROSSINGS` crossings).
    growth_rtt : ndarray
        Slope of log(peak-to-peak) over consecutive windows, per RTT: the envelope's exponential
        rate (for a linear system, the real part of the rightmost root in units of 1/d0).
    finite : ndarray of bool
        Every sample finite.
    """

    amplitude: np.ndarray
    amplitude_queue: np.ndarray
    period_rtt: np.ndarray
    growth_rtt: np.ndarray
    finite: np.ndarray


def _periods(t: np.ndarray, x: np.ndarray) -> np.ndarray:
    """Mean spacing of upward crossings of each column of ``x`` through its mid-range (NaN if too few)."""
    mid = 0.5 * (x.max(axis=0) + x.min(axis=0))
    y = x - mid
    out = np.full(x.shape[1], np.nan)
    for b in range(x.shape[1]):
        up = np.flatnonzero((y[:-1, b] < 0) & (y[1:, b] >= 0))
        if up.size >= MIN_CROSSINGS:
            # linear interpolation of the crossing instant between the two samples
            times = t[up] + (t[up + 1] - t[up]) * (-y[up, b]) / (y[up + 1, b] - y[up, b])
            out[b] = float(np.mean(np.diff(times)))
    return out


def _growth(t: np.ndarray, x: np.ndarray, period: np.ndarray) -> np.ndarray:
    """Envelope rate per unit of t: least-squares slope of log(peak-to-peak) over windows."""
    out = np.full(x.shape[1], np.nan)
    span = t[-1] - t[0]
    for b in range(x.shape[1]):
        width = max(ENVELOPE_WINDOW_RTT, PERIODS_PER_WINDOW * period[b]) if np.isfinite(period[b]) else ENVELOPE_WINDOW_RTT
        count = int(span // width)
        if count < 3:
            continue
        edges = t[0] + width * np.arange(count + 1)
        index = np.searchsorted(t, edges)
        pp = np.array([np.ptp(x[i:j, b]) if j > i else np.nan for i, j in zip(index[:-1], index[1:])])
        centers = 0.5 * (edges[:-1] + edges[1:])
        good = np.isfinite(pp) & (pp > 0)
        if good.sum() >= 3:
            out[b] = float(np.polyfit(centers[good], np.log(pp[good]), 1)[0])
    return out


def measure_cycles(t_rtt: ArrayLike, gamma: ArrayLike, queue_bdp: ArrayLike, measure_from_rtt: float) -> CycleMeasures:
    """Measure a batch of traces from ``measure_from_rtt`` on.

    Parameters
    ----------
    t_rtt : ndarray, shape (n,)
        Sample times in RTTs.
    gamma, queue_bdp : ndarray, shape (n, B)
        R/C and q/(C d0).
    measure_from_rtt : float
        Start of the measured window (the transient before it is ignored).

    Returns
    -------
    CycleMeasures

    Examples
    --------
    >>> t = np.linspace(0, 100, 20001)
    >>> x = 0.1 + 0.01 * np.exp(-0.02 * t) * np.sin(2 * np.pi * t / 4.5)
    >>> m = measure_cycles(t, x[:, None], 0 * x[:, None], 50.0)
    >>> round(float(m.period_rtt[0]), 2), round(float(m.growth_rtt[0]), 3)
    (4.5, -0.02)
    """
    t_rtt = np.asarray(t_rtt, dtype=float)
    gamma = np.asarray(gamma, dtype=float)
    queue_bdp = np.asarray(queue_bdp, dtype=float)
    finite = np.isfinite(gamma).all(axis=0) & np.isfinite(queue_bdp).all(axis=0)
    keep = t_rtt >= measure_from_rtt
    t, g, q = t_rtt[keep], np.nan_to_num(gamma[keep]), np.nan_to_num(queue_bdp[keep])
    period = _periods(t, g)
    return CycleMeasures(
        amplitude=0.5 * np.ptp(g, axis=0),
        amplitude_queue=0.5 * np.ptp(q, axis=0),
        period_rtt=period,
        growth_rtt=_growth(t, g, period),
        finite=finite,
    )


def attractor_interval(state: str, amplitude: float, slack: float) -> tuple[float, float]:
    """Where the attractor's amplitude can lie, given what one run saw.

    A settled cycle pins it (within ``slack``, relative); a decaying run bounds it from above by
    what it still has, a growing one from below; an equilibrium is an amplitude of zero.
    """
    return {
        "equilibrium": (0.0, amplitude * (1 + slack)),
        "cycle": (amplitude * (1 - slack), amplitude * (1 + slack)),
        "decaying": (0.0, amplitude * (1 + slack)),
        "growing": (amplitude * (1 - slack), np.inf),
        "diverged": (amplitude * (1 - slack), np.inf),
    }[state]


def disagree(first: tuple[float, float], second: tuple[float, float], absolute: float) -> bool:
    """Whether two attractor intervals are disjoint by more than ``absolute`` (two attractors coexist)."""
    return first[0] > second[1] + absolute or second[0] > first[1] + absolute
