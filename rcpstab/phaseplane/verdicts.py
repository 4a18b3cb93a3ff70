"""Verdicts on trajectories: converged, limit cycle, diverged or undecided, from the envelope trend.

A trajectory's distance from equilibrium is measured in *band units*: the larger of
``|R/R_e - 1| / 2%`` and ``|q - q_e| / (C*d0) / 1%`` (the thesis' convergence criterion,
Sec. 5.4), so it is within the convergence band when the distance is <= 1. The distance's
peaks over consecutive windows of :data:`WINDOW_RTT` round trips form the envelope; its
fitted exponential trend, not a fixed horizon, decides what a trajectory is doing.

Slow convergence is not instability (the thesis calls a point stable when every trajectory
ends at the equilibrium; a sustained oscillation or a state stuck elsewhere is not). The rules,
applied in this order to a trajectory observed for ``horizon`` RTTs:

1. **converged**: inside the band for the last ``max(SETTLE_RTT, SETTLE_FRACTION * t)`` RTTs,
   where ``t`` (the convergence time) is the last time it was outside.
2. **diverged**: the state is not finite or further than :data:`DIVERGED_BAND` band units.
3. The envelope's log is fitted over the second half of the observation (rate per RTT), and
   separately over the two halves of that stretch (early and late). A decay is *steady* when
   the late log-rate keeps at least :data:`STEADY` of the early one (exponential, or a drain
   that speeds up), *fading* otherwise (levelling off). A growth is *unbounded* when the
   envelope's own slope (not its log) keeps at least :data:`STEADY_GROWTH` of its early value
   (linear or exponential growth), *turning* otherwise. The fluid models bound the rate, so a
   queue can only grow about linearly, and one whose growth slows is heading for a peak.
4. **Decaying** (the envelope shrinks by more than :data:`TREND` over the fit): converging,
   however slowly. Before the last horizon, integrate until the fitted decay brings it into the
   band and it can settle; at the last horizon a steady decay is **converged**, its convergence
   time extrapolated from the faster of the overall and the late rate (so later than the horizon,
   and an upper estimate for a queue whose drain speeds up) or, if it is already back in the band
   but has not stayed long enough, the last time it was out; a fading decay (possibly levelling
   off above the band) is **undecided**.
5. **Growing** by more than :data:`TREND`: an unbounded growth at the last horizon is
   **diverged**; a turning one is a slow excursion (a queue still filling from an overload
   while the rate falls) and stays **undecided**. Before the last horizon, integrate twice as long.
6. **Flat** (neither, over at least :data:`MIN_FLAT_SPAN_RTT`): crossing the equilibrium rate
   at least twice in the second half is a **limit_cycle**. Not crossing it and *stationary*
   (the envelope varies by less than :data:`STATIONARY` over the fit) is a state settled away
   from the equilibrium: **diverged**. Not crossing and still moving is the slow turn of a
   monotone approach (the top of a flash-crowd queue): integrate longer, **undecided** at the
   last horizon.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..core.judgement import QUEUE_BAND, RATE_BAND, band_distance  # noqa: F401  (re-exported)

WINDOW_RTT = 5.0       # envelope window: about one period of the loop's oscillation
BLOCK_WINDOWS = 4      # envelope = max over 4 windows, so slower oscillations (period <= 20 RTT) still peak in each block
SETTLE_RTT = 20.0      # in band this long (and a quarter of the time it took) = staying there
SETTLE_FRACTION = 0.25
TREND = 0.1            # envelope change over the fit span below 10%: neither decaying nor growing
MIN_FLAT_SPAN_RTT = 100.0  # a sustained oscillation is only declared after this long a flat fit
DIVERGED_BAND = 1e6    # 20 000 times the equilibrium rate (or C*d0 of queue) away: diverged
STEADY = 0.5           # late log-rate >= half the early one: an exponential (or faster) decay, not levelling off
STEADY_GROWTH = 0.9    # late slope >= 90% of the early one: growth that is not slowing down (no turn ahead)
STATIONARY = 1e-3      # envelope range below 0.1% over the fit: the state has stopped moving

VERDICTS = ("converged", "limit_cycle", "diverged", "undecided")
CONVERGED, LIMIT_CYCLE, DIVERGED, UNDECIDED = range(4)


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
    """Per-trajectory verdict codes (index into :data:`VERDICTS`), convergence times (RTTs; NaN
    unless converged, extrapolated when later than the horizon) and the horizon (RTTs) the
    undecided ones need next."""

    codes: np.ndarray
    convergence_rtt: np.ndarray
    next_horizon_rtt: float

    @property
    def names(self) -> np.ndarray:
        return np.asarray(VERDICTS, dtype=object)[self.codes]


def _slope(y: np.ndarray, window_rtt: float) -> np.ndarray:
    """Least-squares slope (per RTT) of each column of ``y`` (one row per window)."""
    x = np.arange(y.shape[0], dtype=float) * window_rtt
    x -= x.mean()
    denom = (x * x).sum()
    with np.errstate(invalid="ignore"):  # an infinite envelope is caught as blown before its trend is read
        return (x[:, None] * y).sum(axis=0) / denom if denom > 0 else np.zeros(y.shape[1])


@dataclass
class Trend:
    """Fitted envelope trend (see :func:`envelope_trend`).

    Attributes
    ----------
    rate : ndarray
        d(log envelope)/dt over the fitted stretch, per RTT (negative: decaying).
    steady_decay : ndarray of bool
        The log-rate of the second half of the stretch is at least :data:`STEADY` of the first
        half's (an exponential decay, or a drain that speeds up), not levelling off.
    unbounded_growth : ndarray of bool
        The envelope's own slope (band units per RTT) in the second half is at least
        :data:`STEADY_GROWTH` of the first half's: it grows linearly or faster, not turning.
    late_rate : ndarray
        d(log envelope)/dt over the second half.
    span_rtt : float
        Length of the fitted stretch (RTTs).
    last : ndarray
        The envelope's latest value (band units).
    stationary : ndarray of bool
        The envelope varied by less than :data:`STATIONARY` over the stretch.
    """

    rate: np.ndarray
    steady_decay: np.ndarray
    unbounded_growth: np.ndarray
    late_rate: np.ndarray
    span_rtt: float
    last: np.ndarray
    stationary: np.ndarray


def envelope_trend(peaks: np.ndarray, window_rtt: float) -> Trend:
    """Fitted trend of the envelope over the second half of the observation.

    The envelope is the maximum over :data:`BLOCK_WINDOWS` consecutive windows, so that an
    oscillation slower than one window still peaks in every block.
    """
    n = peaks.shape[0]
    count = n - BLOCK_WINDOWS + 1
    blocks = np.stack([peaks[w:w + BLOCK_WINDOWS].max(axis=0) for w in range(count)])[count // 2:]
    logs = np.log(np.maximum(blocks, 1e-300))
    half = max(2, blocks.shape[0] // 2)
    rate, early, late = (_slope(part, window_rtt) for part in (logs, logs[:half], logs[-half:]))
    grew_early, grew_late = _slope(blocks[:half], window_rtt), _slope(blocks[-half:], window_rtt)
    with np.errstate(invalid="ignore"):
        stationary = (logs.max(axis=0) - logs.min(axis=0)) < np.log1p(STATIONARY)
        steady_decay = late <= STEADY * early
        unbounded_growth = grew_late >= STEADY_GROWTH * grew_early
    span = (blocks.shape[0] - 1) * window_rtt + BLOCK_WINDOWS * window_rtt
    return Trend(rate, steady_decay, unbounded_growth, late, float(span), blocks[-1], stationary)


def classify(env: Envelope, final: bool = False) -> Verdicts:
    """Verdict of every trajectory of a batch from its envelope (rules in the module docstring).

    Parameters
    ----------
    env : Envelope
    final : bool
        No more integration is possible (the last horizon).

    Returns
    -------
    Verdicts
        With ``next_horizon_rtt``, the horizon the undecided ones need (when not final).
    """
    size = env.last_out_rtt.size
    codes = np.full(size, UNDECIDED)
    conv = np.full(size, np.nan)
    settled = env.horizon_rtt - env.last_out_rtt >= np.maximum(SETTLE_RTT, SETTLE_FRACTION * env.last_out_rtt)
    codes[settled] = CONVERGED
    conv[settled] = env.last_out_rtt[settled]
    if env.peaks.shape[0] < 2 * BLOCK_WINDOWS:
        return Verdicts(codes, conv, 2 * BLOCK_WINDOWS * env.window_rtt)
    trend = envelope_trend(env.peaks, env.window_rtt)
    change = np.exp(np.clip(trend.rate * trend.span_rtt, -50, 50))
    blown = ~np.isfinite(env.peaks).all(axis=0) | (trend.last > DIVERGED_BAND)
    open_ = ~settled & ~blown
    growing = open_ & (change > 1 + TREND)
    decaying = open_ & (change < 1 / (1 + TREND))
    flat = open_ & ~growing & ~decaying
    codes[~settled & blown] = DIVERGED
    # time for the decay to bring the envelope into the band (RTTs from now), at the faster of the
    # overall and the recent fitted rate (a draining queue speeds up: the recent one is nearer the truth)
    remaining = np.log(np.maximum(trend.last, 1.0)) / np.maximum(-np.minimum(trend.rate, trend.late_rate), 1e-300)
    needs = [env.horizon_rtt]
    recent = env.crossings[env.crossings.shape[0] // 2:].sum(axis=0)
    long_enough = trend.span_rtt >= MIN_FLAT_SPAN_RTT or final
    cycling = flat & (recent >= 2)
    stuck = flat & (recent < 2) & trend.stationary
    if long_enough:
        codes[cycling] = LIMIT_CYCLE
        codes[stuck] = DIVERGED  # settled away from the equilibrium, not oscillating around it
    turning = flat & ~(long_enough & (cycling | stuck))
    if final:
        codes[growing & trend.unbounded_growth] = DIVERGED
        done = decaying & trend.steady_decay
        codes[done] = CONVERGED
        # extrapolated (later than the horizon), or when it was last out if already back in the band
        conv[done] = np.where(trend.last[done] > 1.0, env.horizon_rtt + remaining[done], env.last_out_rtt[done])
    else:
        if (growing | turning).any():
            needs.append(2 * env.horizon_rtt)
        if decaying.any():
            enters = env.horizon_rtt + 1.25 * float(remaining[decaying].max())
            needs.append(enters + max(SETTLE_RTT, SETTLE_FRACTION * enters) + env.window_rtt)
    return Verdicts(codes, conv, max(needs))
