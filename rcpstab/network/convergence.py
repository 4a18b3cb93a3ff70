"""Did a network run converge? Each link's rate judged by the one judgement, and RTT-estimate swings.

Every verdict and convergence time comes from :mod:`rcpstab.verdicts.judgement` (with the rate
half-width of a :class:`~rcpstab.verdicts.band.Band`, the thesis' :data:`~rcpstab.verdicts.band.STANDARD`
by default: a rate has converged when it stays within the band about its max-min target;
its convergence time is its last band exit). The queue of a multi-link network is not part of
the per-link verdict (its target is not zero at links that are not bottlenecks). The RTT
estimate's swing (max - min) over the last :data:`LATE_WINDOWS` windows is reported as a
measurement: a growing swing is a growing oscillation of the estimate.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from ..verdicts.band import STANDARD, Band, band_distance, last_band_exit
from ..verdicts.judgement import judge_trace
from .fluid import NetworkRun

LATE_WINDOWS = 4  # windows the late part of a run is split into


def settling_time(t: ArrayLike, x: ArrayLike, target: ArrayLike, band: Band | float = STANDARD) -> np.ndarray:
    """Last exit (s) of ``x`` (shape (n, B)) from ``band`` around ``target``; NaN if it ends outside.

    This is :func:`~rcpstab.verdicts.band.last_band_exit` on the rate's band distance (the
    queue is not judged here). ``band``: a :class:`~rcpstab.verdicts.band.Band` (its rate
    half-width is used) or the relative half-width itself.

    Returns
    -------
    ndarray, shape (B,)
    """
    x = np.asarray(x, dtype=float)
    distance = band_distance(x, 0.0, target, 0.0, 1.0, _rate_only(band))
    last = np.atleast_1d(last_band_exit(t, distance))
    return np.where(~(distance[-1] <= 1.0), np.nan, last)


def _rate_only(band: Band | float) -> Band:
    """The band of a rate alone (the queue is not judged)."""
    return Band(band.rate if isinstance(band, Band) else float(band), math.inf)


def window_swings(t: np.ndarray, x: np.ndarray, start: float, windows: int = LATE_WINDOWS) -> np.ndarray:
    """Swing (max - min) of ``x`` (shape (n, B)) in each of ``windows`` equal windows after ``start``.

    Returns
    -------
    ndarray, shape (windows, B)
    """
    edges = np.linspace(start, t[-1], windows + 1)
    return np.array([np.ptp(x[(t >= a) & (t <= b)], axis=0) for a, b in zip(edges[:-1], edges[1:])])


def summarize(
    run: NetworkRun,
    links: Sequence[str] = ("L1", "L3"),
    rtt_link: str = "L1",
    late_from: float | None = None,
    band: Band = STANDARD,
) -> list[dict[str, Any]]:
    """Per (alpha, beta) of the batch: settling times, final errors, RTT-estimate swings.

    Parameters
    ----------
    run : NetworkRun
    links : tuple of str
        Links whose rates are checked against their max-min targets.
    rtt_link : str
        Link whose RTT estimate is checked.
    late_from : float, optional
        Start of the late part (s); default the second half of the run.
    band : Band
        The convergence band (its rate half-width: the queue is not judged per link).

    Returns
    -------
    list of dict
        ``alpha``, ``beta``; per link ``<L>_verdict`` and ``<L>_envelope_rate_per_rtt`` (the
        judgement of its rate, time in units of the link's target RTT), ``<L>_settling_s`` (last
        band exit; NaN: not settled), ``<L>_final_rate_bps``,
        ``<L>_target_rate_bps``, ``<L>_final_error`` (relative); ``rtt_final_s``, ``rtt_target_s`` (at the max-min rates), ``rtt_swings_s``
        (late windows, in order), ``rtt_swing_ratio`` (last over first window; <= 1 is not growing).
    """
    start = run.t[-1] / 2 if late_from is None else late_from
    out: list[dict[str, Any]] = [{"alpha": float(a), "beta": float(b)} for a, b in zip(run.alpha, run.beta)]
    for name in links:
        i = run.link(name)
        target = run.target_rate[i]
        settle = settling_time(run.t, run.rate[:, i], target, band)
        rtt = float(run.target_rtt[i])
        judged = judge_trace(run.t / rtt, run.rate[:, i] / target, np.zeros_like(run.rate[:, i]), 1.0, 0.0, 1.0, _rate_only(band))
        for b, row in enumerate(out):
            row[f"{name}_verdict"] = str(judged.names[b])
            row[f"{name}_envelope_rate_per_rtt"] = float(judged.rate_per_rtt[b])
            row[f"{name}_settling_s"] = float(settle[b])
            row[f"{name}_final_rate_bps"] = float(run.rate[-1, i, b])
            row[f"{name}_target_rate_bps"] = float(target)
            row[f"{name}_final_error"] = float(run.rate[-1, i, b] / target - 1.0)
    i = run.link(rtt_link)
    swings = window_swings(run.t, run.avg_rtt[:, i], start)
    for b, row in enumerate(out):
        row["rtt_final_s"] = float(run.avg_rtt[-1, i, b])
        row["rtt_target_s"] = float(run.target_rtt[i])
        row["rtt_swings_s"] = swings[:, b].tolist()
        row["rtt_swing_ratio"] = float(swings[-1, b] / max(swings[0, b], 1e-12))
    return out
