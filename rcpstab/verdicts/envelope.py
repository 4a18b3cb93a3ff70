"""Envelopes of traces: what the judgement (:mod:`rcpstab.verdicts.judgement`) reads of a batch.

A trace is judged from its **envelope** (:class:`Envelope`): the largest band distance
(:func:`~rcpstab.verdicts.band.band_distance`) in each window of :data:`WINDOW_RTT` round trips,
the number of times the rate crossed its equilibrium in each window, and the last band exit. An
integrator can keep these online (:class:`~rcpstab.phaseplane.monitor.EnvelopeMonitor`); a
recorded trace gives them with :func:`trace_envelope`. A noisy trace's sustained oscillation is
recognised by its autocorrelation (:func:`dominant_oscillation`, :func:`coherence_threshold`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from statistics import NormalDist

import numpy as np
from numpy.typing import ArrayLike

from .band import NUMERICAL_FLOOR, STANDARD, Band

__all__ = [
    "COHERENCE_FALSE_ALARM",
    "MAX_PERIOD_RTT",
    "WINDOW_RTT",
    "Envelope",
    "coherence_threshold",
    "dominant_oscillation",
    "trace_envelope",
]

WINDOW_RTT = 5.0  # envelope window: about one period of the loop's oscillation
MAX_PERIOD_RTT = 40.0  # longest period the autocorrelation searches (the loops' periods are 4-20 RTTs)
COHERENCE_FALSE_ALARM = 0.01  # chance that noise alone passes the coherence test of a noisy cycle (rule 5b)


@dataclass
class Envelope:
    """What the judgement needs from a batch of B traces observed up to ``horizon_rtt``.

    Attributes
    ----------
    peaks : ndarray, shape (n_windows, B)
        Largest band distance in each window of ``window_rtt`` round trips (inf once not finite).
    crossings : ndarray, shape (n_windows, B)
        Times the rate crossed its equilibrium value in each window.
    last_out_rtt : ndarray, shape (B,)
        Last time (RTTs) the trace was outside the band (its start if never).
    horizon_rtt : float
        How long the traces have been observed (RTTs).
    window_rtt : float
        Window length (RTTs).
    floor_peaks : ndarray, shape (n_windows, B), optional
        Largest distance in *floor units* (<= 1: within the noise or numerical floor) in each
        window. Default: ``peaks / NUMERICAL_FLOOR``.
    rate_peaks, queue_peaks : ndarray, shape (n_windows, B), optional
        Largest ``|R/Re - 1|`` and ``|q - qe| / (C*d0)`` in each window, when known (recorded
        traces): they give a limit cycle's amplitude in rate and in queue.
    coherence, coherence_period_rtt : ndarray, shape (B,), optional
        Autocorrelation of the rate's deviation at its dominant period, and that period (RTTs),
        measured on the second half of a noisy trace (:func:`dominant_oscillation`): rule 5b.
    coherence_span_rtt : float
        Length of the stretch they were measured on (RTTs).
    """

    peaks: np.ndarray
    crossings: np.ndarray
    last_out_rtt: np.ndarray
    horizon_rtt: float
    window_rtt: float = WINDOW_RTT
    floor_peaks: np.ndarray | None = None
    rate_peaks: np.ndarray | None = None
    queue_peaks: np.ndarray | None = None
    coherence: np.ndarray | None = None
    coherence_period_rtt: np.ndarray | None = None
    coherence_span_rtt: float = 0.0


def dominant_oscillation(deviation: ArrayLike, samples_per_rtt: int) -> tuple[float, float]:
    """Dominant period (RTTs) of a trace and its autocorrelation there (0, 0 if none is found).

    The period is the lag of the autocorrelation's highest peak after its first zero crossing,
    up to :data:`MAX_PERIOD_RTT`. A sustained cycle repeats at its period (the autocorrelation is
    its share of the power); noise does not.

    Examples
    --------
    >>> t = np.arange(0, 300, 0.1)
    >>> period, rho = dominant_oscillation(np.sin(2 * np.pi * t / 5.0), 10)
    >>> round(period, 1), rho > 0.95
    (5.0, True)
    """
    x = np.asarray(deviation, dtype=float)
    x = x - x.mean()
    power = float(x @ x)
    if not power > 0:
        return 0.0, 0.0
    lags = min(x.size - 1, int(MAX_PERIOD_RTT * samples_per_rtt))
    acf = np.array([x[: x.size - k] @ x[k:] for k in range(lags + 1)]) / power
    negative = np.flatnonzero(acf < 0)
    if negative.size == 0:
        return 0.0, 0.0
    peak = int(negative[0] + np.argmax(acf[negative[0] :]))
    return peak / samples_per_rtt, float(acf[peak])


def coherence_threshold(span_rtt: float) -> float:
    """Autocorrelation that noise alone exceeds with probability :data:`COHERENCE_FALSE_ALARM` (rule 5b).

    The autocorrelation of n independent samples at a lag is about normal with standard deviation
    1/sqrt(n); one-RTT means are independent one RTT apart, so n is the span in RTTs, and the
    search takes the largest of about :data:`MAX_PERIOD_RTT` such lags: the two-sided Gaussian
    level of that many, over sqrt(n).

    Examples
    --------
    >>> round(coherence_threshold(300.0), 3)
    0.211
    """
    if not span_rtt > 0:
        return math.inf
    z = NormalDist().inv_cdf(1.0 - COHERENCE_FALSE_ALARM / (2.0 * MAX_PERIOD_RTT))
    return z / math.sqrt(span_rtt)


def trace_envelope(
    t_rtt: ArrayLike,
    gamma: ArrayLike,
    queue: ArrayLike,
    gamma_eq: ArrayLike,
    queue_eq: ArrayLike,
    queue_scale: ArrayLike,
    band: Band = STANDARD,
    rate_floor: float | None = None,
    queue_floor: float | None = None,
    window_rtt: float = WINDOW_RTT,
) -> Envelope:
    """The :class:`Envelope` of recorded traces (the windows of the online monitor).

    Parameters
    ----------
    t_rtt : array_like, shape (n,)
        Sample times in RTTs, increasing; the first sample is the start.
    gamma, queue : array_like, shape (n,) or (n, B)
        Normalized rate R/C and queue (unit of ``queue_scale``).
    gamma_eq, queue_eq, queue_scale : array_like, shape (B,) or scalar
        Equilibrium and C*d0 (see :func:`band_distance`).
    band : Band
        The convergence band (default :data:`~rcpstab.verdicts.band.STANDARD`; widened for noisy traces).
    rate_floor, queue_floor : float, optional
        Noise floor: relative rate deviation and queue (fraction of C*d0) below which a trace is
        at the equilibrium. Default: :data:`NUMERICAL_FLOOR` of ``band``. Given, the trace
        is noisy: its rate's autocorrelation on the second half is measured too (rule 5b).
    window_rtt : float
        Window length (RTTs).
    """
    t = np.asarray(t_rtt, dtype=float)
    gamma = np.asarray(gamma, dtype=float).reshape(t.size, -1)
    queue = np.asarray(queue, dtype=float).reshape(t.size, -1)
    size = gamma.shape[1]
    geq, qeq, scale = (np.broadcast_to(np.asarray(v, dtype=float), (size,)) for v in (gamma_eq, queue_eq, queue_scale))
    rate_dev = np.abs(gamma / geq - 1.0)
    queue_dev = np.abs(queue - qeq) / scale
    distance = np.maximum(rate_dev / band.rate, queue_dev / band.queue)
    noisy = rate_floor is not None or queue_floor is not None
    rate_floor = NUMERICAL_FLOOR * band.rate if rate_floor is None else rate_floor
    queue_floor = NUMERICAL_FLOOR * band.queue if queue_floor is None else queue_floor
    floor_distance = np.maximum(rate_dev / rate_floor, queue_dev / queue_floor)
    rel = t - t[0]
    # sample i > 0 closes the step (t[i-1], t[i]] and belongs to window floor((t[i] - eps) / W)
    window = np.floor((rel - 1e-9) / window_rtt).astype(int)[1:]
    n_windows = int(math.floor(rel[-1] / window_rtt + 1e-9))
    above = gamma > geq
    flips = (above[1:] != above[:-1]).astype(int)
    rows = window < n_windows
    window, flips = window[rows], flips[rows]
    starts = np.searchsorted(window, np.arange(n_windows))
    empty = np.append(starts[1:], window.size) == starts
    arrays = {}
    for name, source in (("peaks", distance), ("floor", floor_distance), ("rate", rate_dev), ("queue", queue_dev)):
        values = np.nan_to_num(source[1:][rows], nan=np.inf)
        arrays[name] = (
            np.maximum.reduceat(values, np.minimum(starts, max(window.size - 1, 0)), axis=0)
            if window.size
            else np.zeros((n_windows, size))
        )
        arrays[name][empty] = 0.0
    crossings = (
        np.add.reduceat(flips, np.minimum(starts, max(window.size - 1, 0)), axis=0)
        if window.size
        else np.zeros((n_windows, size), dtype=int)
    )
    crossings[empty] = 0
    outside = ~(distance <= 1.0)
    last = np.where(outside.any(axis=0), rel[::-1][np.argmax(outside[::-1], axis=0)], 0.0)
    coherence = period = None
    span = 0.0
    if noisy:  # rule 5b's autocorrelation, on the second half (the settled part) of the rate
        late = rel >= rel[-1] / 2.0
        per_rtt = max(int(round(1.0 / float(np.median(np.diff(rel))))), 1) if rel.size > 1 else 1
        found = [dominant_oscillation(gamma[late, b] / geq[b] - 1.0, per_rtt) for b in range(size)]
        period = np.array([f[0] for f in found])
        coherence = np.array([f[1] for f in found])
        span = float(rel[-1] - rel[late][0]) if late.any() else 0.0
    return Envelope(
        arrays["peaks"],
        crossings,
        last,
        float(rel[-1]),
        window_rtt,
        floor_peaks=arrays["floor"],
        rate_peaks=arrays["rate"],
        queue_peaks=arrays["queue"],
        coherence=coherence,
        coherence_period_rtt=period,
        coherence_span_rtt=span,
    )
