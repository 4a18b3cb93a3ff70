"""Did a network run converge? Settling times and late oscillation of rates and RTT estimates.

Criteria follow the thesis' (Sec. 5.4): a rate has converged when it stays within
:data:`RATE_BAND` of its max-min target. The RTT estimate is "stable" when, over the last
:data:`LATE_WINDOWS` windows, its swing (max - min) does not grow: a sustained or growing
oscillation fails, a decaying approach passes.
"""
from __future__ import annotations

import numpy as np

from .fluid import NetworkRun

RATE_BAND = 0.02      # thesis Sec. 5.4: within 2% of the equilibrium rate
LATE_WINDOWS = 4      # windows the late part of a run is split into


def settling_time(t, x, target, band: float = RATE_BAND):
    """Time (s) after which ``x`` (shape (n, B)) stays within ``band`` of ``target``; NaN if it never does.

    Returns
    -------
    ndarray, shape (B,)
    """
    out = np.abs(x / target - 1.0) > band
    last = np.where(out.any(axis=0), (out.shape[0] - 1) - np.argmax(out[::-1], axis=0), -1)
    return np.where(last == out.shape[0] - 1, np.nan, t[np.minimum(last + 1, out.shape[0] - 1)])


def window_swings(t, x, start: float, windows: int = LATE_WINDOWS):
    """Swing (max - min) of ``x`` (shape (n, B)) in each of ``windows`` equal windows after ``start``.

    Returns
    -------
    ndarray, shape (windows, B)
    """
    edges = np.linspace(start, t[-1], windows + 1)
    return np.array([np.ptp(x[(t >= a) & (t <= b)], axis=0) for a, b in zip(edges[:-1], edges[1:])])


def summarize(run: NetworkRun, links=("L1", "L3"), rtt_link: str = "L1", late_from: float | None = None) -> list[dict]:
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

    Returns
    -------
    list of dict
        ``alpha``, ``beta``; per link ``<L>_settling_s`` (NaN: not settled), ``<L>_final_rate_bps``,
        ``<L>_target_rate_bps``, ``<L>_final_error`` (relative); ``rtt_final_s``, ``rtt_target_s`` (at the max-min rates), ``rtt_swings_s``
        (late windows, in order), ``rtt_swing_ratio`` (last over first window; <= 1 is not growing).
    """
    start = run.t[-1] / 2 if late_from is None else late_from
    out = [{"alpha": float(a), "beta": float(b)} for a, b in zip(run.alpha, run.beta)]
    for name in links:
        i = run.link(name)
        target = run.target_rate[i]
        settle = settling_time(run.t, run.rate[:, i], target)
        for b, row in enumerate(out):
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
