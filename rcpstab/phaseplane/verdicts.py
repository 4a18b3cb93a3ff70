"""Verdicts on trajectories: converged, limit cycle, diverged or undecided, from the envelope trend.

A trajectory's distance from equilibrium is measured in *band units*: the larger of
``|R/R_e - 1| / 2%`` and ``|q - q_e| / (C*d0) / 1%`` (the thesis' convergence criterion,
Sec. 5.4), so it is within the convergence band when the distance is <= 1. The distance's
peaks over consecutive windows of :data:`WINDOW_RTT` round trips form the envelope; its
fitted exponential trend, not a fixed horizon, decides what a trajectory is doing.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

RATE_BAND = 0.02       # R within 2% of equilibrium (thesis Sec. 5.4)
QUEUE_BAND = 0.01      # q within 1% of C*d0
WINDOW_RTT = 5.0       # envelope window: about one period of the loop's oscillation
BLOCK_WINDOWS = 4      # envelope = max over 4 windows, so slower oscillations (period <= 20 RTT) still peak in each block
SETTLE_RTT = 20.0      # in band this long (and a quarter of the time it took) = staying there
SETTLE_FRACTION = 0.25
TREND = 0.1            # envelope change over the fit span below 10%: neither decaying nor growing
MIN_FLAT_SPAN_RTT = 100.0  # a sustained oscillation is only declared after this long a flat fit
DIVERGED_BAND = 1e6    # 20 000 times the equilibrium rate (or C*d0 of queue) away: diverged

VERDICTS = ("converged", "limit_cycle", "diverged", "undecided")
CONVERGED, LIMIT_CYCLE, DIVERGED, UNDECIDED = range(4)


def band_distance(gamma, queue, gamma_eq, queue_eq, queue_scale):
    """Distance from equilibrium in band units (<= 1 means within the thesis' convergence band).

    Parameters
    ----------
    gamma, gamma_eq : array_like
        Normalized rate R/C and its equilibrium value.
    queue, queue_eq : array_like
        Queue and its equilibrium (bits).
    queue_scale : array_like
        C*d0 (bits): the queue is measured relative to one bandwidth-delay product.
    """
    rate = np.abs(gamma / gamma_eq - 1.0) / RATE_BAND
    return np.maximum(rate, np.abs(queue - queue_eq) / (queue_scale * QUEUE_BAND))


@dataclass
class Envelope:
    """What the verdict needs from a batch of trajectories observed up to ``horizon_rtt``.

    Attributes
    ----------
    peaks : ndarray, shape (n_windows, B)
        Largest band distance in each window of ``window_rtt`` round trips.
    crossings : ndarray, shape (n_windows, B)
        Times the rate crossed its equilibrium value in each window.
    last_out_rtt : ndarray, shape (B,)
        Last time (RTTs) the trajectory was outside the band (0 if never).
    horizon_rtt : float
        How long the trajectories have been integrated (RTTs).
    window_rtt : float
        Window length (RTTs).
    """

    peaks: np.ndarray
    crossings: np.ndarray
    last_out_rtt: np.ndarray
    horizon_rtt: float
    window_rtt: float = WINDOW_RTT


@dataclass
class Verdicts:
    """Per-trajectory verdict codes (index into :data:`VERDICTS`), convergence times and the
    horizon (RTTs) the undecided ones need next."""

    codes: np.ndarray
    convergence_rtt: np.ndarray
    next_horizon_rtt: float

    @property
    def names(self) -> np.ndarray:
        return np.asarray(VERDICTS, dtype=object)[self.codes]


def envelope_trend(peaks: np.ndarray, window_rtt: float):
    """Fitted exponential trend of the envelope over the second half of the observation.

    Returns
    -------
    rate : ndarray, shape (B,)
        d(log envelope)/dt, per RTT (negative: decaying).
    span_rtt : float
        Length of the fitted stretch (RTTs).
    last : ndarray, shape (B,)
        The envelope's latest value (band units).
    """
    n = peaks.shape[0]
    count = n - BLOCK_WINDOWS + 1
    blocks = np.stack([peaks[w:w + BLOCK_WINDOWS].max(axis=0) for w in range(count)])
    fitted = np.log(np.maximum(blocks[count // 2:], 1e-300))
    x = np.arange(fitted.shape[0], dtype=float) * window_rtt
    x -= x.mean()
    denom = (x * x).sum()
    rate = (x[:, None] * fitted).sum(axis=0) / denom if denom > 0 else np.zeros(fitted.shape[1])
    span = float(x[-1] - x[0]) + BLOCK_WINDOWS * window_rtt
    return rate, span, blocks[-1]


def classify(env: Envelope, final: bool = False) -> Verdicts:
    """Verdict of every trajectory of a batch from its envelope.

    Parameters
    ----------
    env : Envelope
    final : bool
        No more integration is possible: a still-growing envelope is then ``diverged``
        and a still-decaying one outside the band ``undecided``.

    Returns
    -------
    Verdicts
    """
    size = env.last_out_rtt.size
    codes = np.full(size, UNDECIDED)
    conv = np.full(size, np.nan)
    settled = env.horizon_rtt - env.last_out_rtt >= np.maximum(SETTLE_RTT, SETTLE_FRACTION * env.last_out_rtt)
    codes[settled] = CONVERGED
    conv[settled] = env.last_out_rtt[settled]
    if env.peaks.shape[0] < 2 * BLOCK_WINDOWS:
        return Verdicts(codes, conv, 2 * BLOCK_WINDOWS * env.window_rtt)
    rate, span, last = envelope_trend(env.peaks, env.window_rtt)
    change = np.exp(np.clip(rate * span, -50, 50))
    blown = ~np.isfinite(env.peaks).all(axis=0) | (last > DIVERGED_BAND)
    growing = ~settled & ~blown & (change > 1 + TREND)
    decaying = ~settled & ~blown & (change < 1 / (1 + TREND))
    flat = ~settled & ~blown & ~growing & ~decaying
    codes[~settled & blown] = DIVERGED
    needs = [env.horizon_rtt]
    if span >= MIN_FLAT_SPAN_RTT or final:
        recent = env.crossings[env.crossings.shape[0] // 2:].sum(axis=0)
        codes[flat & (recent >= 2)] = LIMIT_CYCLE
        codes[flat & (recent < 2)] = DIVERGED  # settled away from the equilibrium, not oscillating around it
    elif flat.any():
        needs.append(2 * MIN_FLAT_SPAN_RTT)
    if final:
        codes[growing] = DIVERGED
    else:
        if growing.any():
            needs.append(2 * env.horizon_rtt)
        if decaying.any():
            # time for the fitted decay to bring the envelope into the band, then to settle there
            remaining = np.log(np.maximum(last[decaying], 1.0)) / -rate[decaying]
            enters = env.horizon_rtt + 1.25 * float(remaining.max())
            needs.append(enters + max(SETTLE_RTT, SETTLE_FRACTION * enters) + env.window_rtt)
    return Verdicts(codes, conv, max(needs))
