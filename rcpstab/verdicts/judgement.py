"""The one judgement of traces, fluid or packet: converged, limit cycle, diverged or undecided.

The convergence band is one object, :class:`~rcpstab.verdicts.band.Band` (:mod:`rcpstab.verdicts.band`; the
thesis' :data:`~rcpstab.verdicts.band.STANDARD` band of Sec. 5.4 by default). A trace's distance
from equilibrium is measured in *band units* (:func:`~rcpstab.verdicts.band.band_distance`): it is
inside the band when the distance is <= 1. The convergence time of a trace is the last time it
was outside the band (:func:`~rcpstab.verdicts.band.last_band_exit`), measured on the trace, never
extrapolated; an extrapolated time is a separate, labelled estimate.

A trace is judged from its **envelope** (:class:`~rcpstab.verdicts.envelope.Envelope`,
:mod:`rcpstab.verdicts.envelope`): the largest band distance in each window of ``WINDOW_RTT`` round trips, the
number of times the rate crossed its equilibrium in each window, and the last band exit. An
integrator can keep these online (:class:`~rcpstab.phaseplane.monitor.EnvelopeMonitor`); a
recorded trace gives them with :func:`~rcpstab.verdicts.envelope.trace_envelope`.
:func:`judge_envelope` applies the rules (in band units, whatever the band); :func:`judge_trace`
does both.

The rules (blocks are maxima over :data:`BLOCK_WINDOWS` consecutive windows; the trend is the
least-squares slope of the blocks' log over the second half of the observation, with its
standard error ``s``):

1. **diverged**: the state is not finite or further than :data:`DIVERGED_BAND` band units.
2. **converged**: the last block is within the *floor* (the numerical floor
   :data:`NUMERICAL_FLOOR` band units for fluid models; a measured noise floor for packet traces)
   and the envelope is still decaying there over the last quarter of the observation, or it is
   down to rounding errors (:data:`ROUNDOFF_BAND`): the trajectory is at the equilibrium. Its
   convergence time is its last band exit. (Being within the floor once is not enough: near a
   weakly unstable equilibrium a trajectory can dip deep into the floor along the stable
   directions and grow back to a limit cycle, as ``rcp`` does at (1.46, 0.3), see
   tests/test_phaseplane_verdicts.py.)
3. **Decaying** (slope ``r < -FLAT_RATE`` and ``r + SIGNIFICANCE * s < 0``): converging,
   however slowly (a queue that drains linearly is decaying too). Integrate longer until it
   reaches the floor; at the last horizon a steady decay (the late half's log-rate keeps at least
   :data:`STEADY` of the early half's) is **converged**: with its measured last band exit when it
   is inside the band, else with an extrapolated ``convergence_estimate_rtt`` (model named in
   ``estimate_model``). A decay that fades (levels off towards a cycle) stays **undecided**.
4. **Growing** (``r > FLAT_RATE`` and ``r - SIGNIFICANCE * s > 0``): integrate longer; at the
   last horizon an envelope still inside the band is **undecided** (the equilibrium is unstable,
   but a growth that has not left the band does not show divergence: the cycle it grows into
   may be smaller than the band; the growth is in ``rate_per_rtt``), and so is a noisy trace's
   growth from within its noise floor (some block of the fitted stretch within the floor, where no
   trend is measurable); outside the band and above the floor, one that keeps growing at least
   linearly (:data:`STEADY_GROWTH`) is **diverged**, one whose growth slows down (a queue near
   its peak) **undecided**.
5. **Flat** (``|r| + SIGNIFICANCE * s <= FLAT_RATE``: e-folding slower than 1/FLAT_RATE RTTs)
   over at least :data:`MIN_FLAT_SPAN_RTT`: crossing the equilibrium rate in both halves of the
   stretch is a **limit_cycle**, whatever its amplitude above the floor (also inside the band);
   its amplitude is the median block peak and its period twice the time between crossings. Not
   crossing, the state has settled away from the equilibrium: **diverged** if outside the band,
   **converged** (within the band, off the equilibrium) if inside; both only once the envelope
   is stationary (varies by less than :data:`STATIONARY`), and a cycle once its peaks vary by
   less than :data:`CYCLE_VARIATION`: a flat fit over the slow top of an excursion is neither.

   (5b) **Noisy cycle** (traces judged against a measured noise floor only): a flat envelope cannot be
   resolved to FLAT_RATE in a few hundred noisy round trips, so a sustained oscillation is a
   **limit_cycle** when, over the fitted stretch, (i) every block stays above the noise floor;
   (ii) the trend is resolved as too slow to matter within the run: ``|r| + SIGNIFICANCE * s <
   log(A) / H``, A the last block in floor units and H the observed length (RTTs), i.e. even the
   fastest decay the data allow would not bring it into the floor in another run's length (nor
   the fastest growth multiply it by A); (iii) it crosses the equilibrium in both halves; and
   (iv) the rate repeats at its dominant period (:func:`dominant_oscillation`, second half of the
   trace) with an autocorrelation above what noise gives (:func:`coherence_threshold`, false
   alarm :data:`COHERENCE_FALSE_ALARM`). Its period is the autocorrelation's.

6. Anything else (a trend not yet resolved) is **undecided** until the last horizon.

Since a piecewise-linear, positively homogeneous system (eq. 5.14) decays at the same rate from
every amplitude, a slow steady decay is never called a limit cycle: it is decaying (rule 3)
as soon as its slope is resolved, and it is followed until it reaches the floor.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, fields
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

# the band and the envelope are modules of their own; their names stay importable from here
from .band import NUMERICAL_FLOOR, STANDARD, Band, band_distance, last_band_exit
from .envelope import (
    COHERENCE_FALSE_ALARM,
    MAX_PERIOD_RTT,
    WINDOW_RTT,
    Envelope,
    coherence_threshold,
    dominant_oscillation,
    trace_envelope,
)

__all__ = [
    "BLOCK_WINDOWS",
    "COHERENCE_FALSE_ALARM",
    "CONVERGED",
    "DIVERGED",
    "DIVERGED_BAND",
    "FLAT_RATE",
    "LIMIT_CYCLE",
    "MAX_PERIOD_RTT",
    "NUMERICAL_FLOOR",
    "QUEUE_BAND",
    "RATE_BAND",
    "STANDARD",
    "UNDECIDED",
    "VERDICTS",
    "WINDOW_RTT",
    "Band",
    "Envelope",
    "Judgement",
    "band_distance",
    "coherence_threshold",
    "dominant_oscillation",
    "judge_envelope",
    "judge_trace",
    "last_band_exit",
    "trace_envelope",
]

# the standard band's half-widths, for callers that need the numbers (the band itself is STANDARD)
RATE_BAND = STANDARD.rate
QUEUE_BAND = STANDARD.queue

VERDICTS = ("converged", "limit_cycle", "diverged", "undecided")
CONVERGED, LIMIT_CYCLE, DIVERGED, UNDECIDED = range(4)

BLOCK_WINDOWS = 4  # a block = 4 windows, so oscillations with periods up to 20 RTTs peak in each block
ROUNDOFF_BAND = 1e-9  # band units: closer than this to the equilibrium, only rounding error is left
DIVERGED_BAND = 1e12  # 1e10 C*d0 of queue: no draining queue of a fluid model gets there
FLAT_RATE = 1e-5  # per RTT: an envelope e-folding more slowly than in 1e5 RTTs is flat
SIGNIFICANCE = 3.0  # a trend counts when it exceeds 3 standard errors of the fitted slope
MIN_FLAT_SPAN_RTT = 100.0  # a limit cycle is only declared after this long a flat fit
MIN_BLOCKS = 8  # fewer blocks in the second half: too short to judge
CYCLE_VARIATION = 0.05  # a limit cycle's block peaks vary by less than 5% over the fitted stretch
STATIONARY = 1e-3  # a state settled away from the equilibrium: block peaks vary by less than 0.1%
SETTLE_FRACTION = 0.25  # within a noise floor for a quarter of the time it took (and a block): settled
STEADY = 0.5  # late log-rate >= half the early one: exponential (or faster) decay, not levelling off
STEADY_GROWTH = 0.9  # late slope >= 90% of the early one: growth that is not slowing down


@dataclass
class Judgement:
    """Verdicts on a batch of B traces, with what was measured.

    Attributes
    ----------
    codes : ndarray of int, shape (B,)
        Index into :data:`VERDICTS` (:attr:`names` gives the strings).
    convergence_rtt : ndarray, shape (B,)
        Last exit from the band (RTTs), measured on the trace; NaN unless converged and observed.
    convergence_estimate_rtt : ndarray, shape (B,)
        Extrapolated time into the band (RTTs) for a trace converging but not yet in the band at
        the last horizon; NaN otherwise. Its model is in :attr:`estimate_model`.
    estimate_model : ndarray of str
        ``"exponential envelope"`` or ``"linear drain"`` where an estimate was made, else ``""``.
    rate_per_rtt, rate_stderr : ndarray
        Fitted log-slope of the envelope over the second half of the observation (per RTT;
        negative: decaying) and its standard error; NaN when too short to fit.
    amplitude_band : ndarray
        Limit cycle: median block peak of the band distance (band units); NaN otherwise.
    amplitude_rate, amplitude_queue : ndarray
        Limit cycle: peak ``|R/Re - 1|`` and ``|q - qe|/(C*d0)`` over the late stretch, when the
        envelope carries them (recorded traces); NaN otherwise.
    period_rtt : ndarray
        Limit cycle: period from the equilibrium crossings (RTTs); NaN otherwise.
    reason : ndarray of str
        Why: the rule that decided, or what is missing for an ``undecided`` trace.
    horizon_rtt : ndarray
        How long each trace was observed (RTTs).
    next_horizon_rtt : float
        The horizon the undecided ones need next (or the largest horizon reached, for a
        finished judgement).
    """

    codes: np.ndarray
    convergence_rtt: np.ndarray
    convergence_estimate_rtt: np.ndarray
    estimate_model: np.ndarray
    rate_per_rtt: np.ndarray
    rate_stderr: np.ndarray
    amplitude_band: np.ndarray
    amplitude_rate: np.ndarray
    amplitude_queue: np.ndarray
    period_rtt: np.ndarray
    reason: np.ndarray
    horizon_rtt: np.ndarray
    next_horizon_rtt: float = 0.0

    @classmethod
    def empty(cls, size: int, horizon_rtt: float = 0.0) -> Judgement:
        """B = ``size`` undecided traces with nothing measured."""
        nan = np.full(size, np.nan)
        text = np.full(size, "", dtype=object)
        return cls(
            np.full(size, UNDECIDED),
            nan.copy(),
            nan.copy(),
            text.copy(),
            nan.copy(),
            nan.copy(),
            nan.copy(),
            nan.copy(),
            nan.copy(),
            nan.copy(),
            text.copy(),
            np.full(size, float(horizon_rtt)),
            float(horizon_rtt),
        )

    def assign(self, where: Any, other: Judgement) -> None:
        """Copy ``other``'s per-trace fields into the traces ``where`` (index or mask)."""
        for f in fields(self):
            if f.name != "next_horizon_rtt":
                getattr(self, f.name)[where] = getattr(other, f.name)

    @property
    def names(self) -> np.ndarray:
        """Verdict names, one per trace."""
        names: np.ndarray = np.asarray(VERDICTS, dtype=object)[self.codes]
        return names

    verdict = names

    def __len__(self) -> int:
        return self.codes.size

    def __repr__(self) -> str:
        counts = ", ".join(
            f"{name}: {int((self.codes == i).sum())}" for i, name in enumerate(VERDICTS) if (self.codes == i).any()
        )
        return f"Judgement({len(self)} traces; {counts})"

    def to_records(self) -> list[dict[str, Any]]:
        """One dict per trace, JSON-safe (NaN as None)."""

        def clean(v: Any) -> Any:
            if isinstance(v, (float, np.floating)):
                return float(v) if math.isfinite(v) else None
            return v.item() if isinstance(v, np.generic) else v

        keys = [f.name for f in fields(self) if f.name not in ("codes", "next_horizon_rtt")]
        return [{"verdict": str(self.names[i]), **{k: clean(getattr(self, k)[i]) for k in keys}} for i in range(len(self))]


def _blocks(values: np.ndarray, reduce: Callable[..., np.ndarray] = np.max) -> np.ndarray:
    """Non-overlapping blocks of :data:`BLOCK_WINDOWS` windows, aligned to the end (oldest dropped)."""
    n = (values.shape[0] // BLOCK_WINDOWS) * BLOCK_WINDOWS
    tail = values[values.shape[0] - n :]
    return reduce(tail.reshape(-1, BLOCK_WINDOWS, *values.shape[1:]), axis=1)


def _fit(y: np.ndarray, step: float) -> tuple[np.ndarray, np.ndarray]:
    """Least-squares slope (per RTT) of each column of ``y`` (one row per block) and its standard error."""
    n = y.shape[0]
    x = np.arange(n, dtype=float) * step
    x -= x.mean()
    sxx = float(x @ x)
    with np.errstate(invalid="ignore"):
        slope = (x[:, None] * (y - y.mean(axis=0))).sum(axis=0) / sxx
        resid = y - y.mean(axis=0) - slope * x[:, None]
        stderr = np.sqrt((resid * resid).sum(axis=0) / max(n - 2, 1) / sxx)
    return slope, stderr


def judge_envelope(env: Envelope, final: bool = False, noise_floor: bool = False) -> Judgement:
    """Verdict of every trace of a batch from its envelope (rules in the module docstring).

    Parameters
    ----------
    env : rcpstab.verdicts.envelope.Envelope
    final : bool
        No more observation is possible (the last horizon): decide what can be decided.
    noise_floor : bool
        The envelope's floor is a measured noise floor (packet traces), below which no trend can
        be measured: a trace that stays within it for the last block and a quarter of the time it
        took to get into the band is converged, without the decay within the floor that rule 2
        asks of a fluid trajectory.

    Returns
    -------
    Judgement
        ``next_horizon_rtt`` is the horizon the undecided ones need (twice the current one).

    Examples
    --------
    A trace decaying steadily at 0.02 per RTT, in the band but above the numerical floor at
    400 RTTs (the last horizon):

    >>> t = 5.0 * np.arange(1, 81)
    >>> env = Envelope(50 * np.exp(-0.02 * t)[:, None], np.full((80, 1), 2), np.array([196.0]), 400.0)
    >>> j = judge_envelope(env, final=True)
    >>> str(j.names[0]), round(float(j.rate_per_rtt[0]), 4), float(j.convergence_rtt[0])
    ('converged', -0.02, 196.0)
    """
    size = env.last_out_rtt.size
    out = Judgement.empty(size, env.horizon_rtt)
    out.next_horizon_rtt = 2.0 * env.horizon_rtt
    horizon = env.horizon_rtt
    peaks = np.asarray(env.peaks, dtype=float).reshape(-1, size)
    floor = peaks / NUMERICAL_FLOOR if env.floor_peaks is None else np.asarray(env.floor_peaks, dtype=float).reshape(-1, size)
    open_ = np.ones(size, dtype=bool)

    def label(mask: np.ndarray, code: int, reason: str, measured: bool = False) -> np.ndarray:
        """Give the still-open traces of ``mask`` their verdict (the first rule that applies wins)."""
        nonlocal open_
        mask = mask & open_
        out.codes[mask] = code
        out.reason[mask] = reason
        if measured:
            out.convergence_rtt[mask] = env.last_out_rtt[mask]
        open_ = open_ & ~mask
        return mask

    if peaks.shape[0] == 0:
        out.reason[:] = "not observed yet"
        return out
    blown = ~np.isfinite(peaks).all(axis=0) | (peaks[-1] > DIVERGED_BAND)
    label(blown, DIVERGED, f"the state left every bound (not finite or > {DIVERGED_BAND:g} band units)")
    last_block = peaks[-BLOCK_WINDOWS:].max(axis=0)
    at_floor = floor[-BLOCK_WINDOWS:].max(axis=0) <= 1.0
    if noise_floor:
        settle = np.maximum(BLOCK_WINDOWS, np.ceil(SETTLE_FRACTION * env.last_out_rtt / env.window_rtt)).astype(int)
        settled = np.array([floor[-min(n, floor.shape[0]) :, b].max() <= 1.0 for b, n in enumerate(settle)])
        label(settled, CONVERGED, "stayed within the noise floor; time = last band exit", measured=True)
    # so close to the equilibrium that only rounding errors are left: nothing can grow from there
    label(last_block <= ROUNDOFF_BAND, CONVERGED, "at the equilibrium (rounding level); time = last band exit", measured=True)

    block_rtt = BLOCK_WINDOWS * env.window_rtt
    n_blocks = peaks.shape[0] // BLOCK_WINDOWS
    fit_blocks = n_blocks // 2
    if fit_blocks < MIN_BLOCKS:
        out.reason[open_] = "too short to judge the envelope's trend"
        return out
    blocks = _blocks(np.nan_to_num(peaks, posinf=DIVERGED_BAND))[-fit_blocks:]
    logs = np.log(np.maximum(blocks, 1e-300))
    rate, stderr = _fit(logs, block_rtt)
    half = fit_blocks // 2
    early, _ = _fit(logs[:half], block_rtt)
    late, late_err = _fit(logs[-half:], block_rtt)
    grew_early, _ = _fit(blocks[:half], block_rtt)
    grew_late, _ = _fit(blocks[-half:], block_rtt)
    out.rate_per_rtt[:] = rate
    out.rate_stderr[:] = stderr
    span = fit_blocks * block_rtt
    # within the floor and still decaying there: a trajectory that dips near a weakly unstable
    # equilibrium (along its stable directions) stops decaying and turns back, so being within
    # the floor once is not enough
    late_decay = (late < -FLAT_RATE) & (late + SIGNIFICANCE * late_err < 0)
    label(at_floor & late_decay, CONVERGED, "decaying within the floor; time = last band exit", measured=True)
    inside = last_block <= 1.0

    decaying = open_ & (rate < -FLAT_RATE) & (rate + SIGNIFICANCE * stderr < 0)
    growing = open_ & (rate > FLAT_RATE) & (rate - SIGNIFICANCE * stderr > 0)
    flat = open_ & (np.abs(rate) + SIGNIFICANCE * stderr <= FLAT_RATE) & (span >= MIN_FLAT_SPAN_RTT)

    cross = np.asarray(env.crossings).reshape(-1, size)
    cross_blocks = _blocks(cross, np.sum)[-fit_blocks:]
    persistent = (cross_blocks[:half].sum(axis=0) >= 2) & (cross_blocks[-half:].sum(axis=0) >= 2)
    variation = logs.max(axis=0) - logs.min(axis=0)
    cycle = label(
        flat & persistent & (variation < np.log1p(CYCLE_VARIATION)),
        LIMIT_CYCLE,
        "flat envelope above the floor, crossing the equilibrium",
    )
    out.amplitude_band[cycle] = np.median(blocks, axis=0)[cycle]
    total = cross_blocks.sum(axis=0)
    with np.errstate(divide="ignore", invalid="ignore"):
        out.period_rtt[cycle] = (2.0 * span / total)[cycle]
    for name, source in (("amplitude_rate", env.rate_peaks), ("amplitude_queue", env.queue_peaks)):
        if source is not None:
            late_peak = np.asarray(source, dtype=float).reshape(-1, size)[-fit_blocks * BLOCK_WINDOWS :].max(axis=0)
            getattr(out, name)[cycle] = late_peak[cycle]
    if noise_floor and env.coherence is not None:
        # 5b: a noisy trace's envelope cannot be shown flat to FLAT_RATE in a few hundred RTTs, but a
        # cycle is sustained when it stays above the noise floor, its trend is resolved as too slow
        # to carry it into the floor (or double it past where it is) within a run's length, and it
        # repeats at a period with more coherence than noise gives
        floor_blocks = _blocks(floor)[-fit_blocks:]
        reach = np.log(np.maximum(floor_blocks[-1], 1.0)) / horizon  # per RTT
        bounded = np.abs(rate) + SIGNIFICANCE * stderr < reach
        coherent = np.asarray(env.coherence) > coherence_threshold(env.coherence_span_rtt)
        noisy = label(
            bounded & coherent & persistent & (floor_blocks.min(axis=0) > 1.0) & (span >= MIN_FLAT_SPAN_RTT),
            LIMIT_CYCLE,
            "sustained coherent oscillation above the noise floor (trend too slow to reach it in a run)",
        )
        out.amplitude_band[noisy] = np.median(blocks, axis=0)[noisy]
        out.period_rtt[noisy] = np.asarray(env.coherence_period_rtt, dtype=float)[noisy]
        for name, source in (("amplitude_rate", env.rate_peaks), ("amplitude_queue", env.queue_peaks)):
            if source is not None:
                late_peak = np.asarray(source, dtype=float).reshape(-1, size)[-fit_blocks * BLOCK_WINDOWS :].max(axis=0)
                getattr(out, name)[noisy] = late_peak[noisy]
    stationary = variation < np.log1p(STATIONARY)
    label(
        flat & ~persistent & stationary & inside,
        CONVERGED,
        "settled inside the band, off the equilibrium (flat, not crossing it); time = last band exit",
        measured=True,
    )
    label(flat & ~persistent & stationary & ~inside, DIVERGED, "settled away from the equilibrium (flat, outside the band)")

    steady = late <= STEADY * early
    if final:
        done = decaying & steady
        label(done & inside, CONVERGED, "steady decay inside the band at the last horizon; time = last band exit", measured=True)
        pending = done & ~inside & open_
        if pending.any():
            # time into the band: a drain that speeds up (late log-rate steeper) is linear in the
            # envelope itself; otherwise the envelope decays exponentially
            drain = late < early
            with np.errstate(divide="ignore", invalid="ignore"):
                linear_eta = horizon + (last_block - 1.0) / np.maximum(-grew_late, 1e-300)
                expo_eta = horizon + np.log(np.maximum(last_block, 1.0)) / np.maximum(-late, 1e-300)
            estimate = np.where(drain, linear_eta, expo_eta)
            out.convergence_estimate_rtt[pending] = estimate[pending]
            out.estimate_model[pending] = np.where(drain, "linear drain", "exponential envelope")[pending]
            label(pending, CONVERGED, "steady decay, not yet in the band at the last horizon: time estimated")
        label(at_floor & ~growing, CONVERGED, "within the floor at the last horizon; time = last band exit", measured=True)
        label(decaying & ~steady, UNDECIDED, "decay slowing down at the last horizon (may level off at a cycle)")
        # A growth that has not carried the state out of the band has shown that the equilibrium is
        # unstable, not that the state leaves every bound: near a Hopf point the cycle it grows
        # into can be smaller than the band, and a finite segment's horizon cannot be extended to
        # see it (docs notebook 05, rule 4). Undecided, with the measured rate.
        label(
            growing & inside,
            UNDECIDED,
            "growing inside the band at the last horizon (unstable equilibrium; cycle or divergence "
            "not resolved; growth = rate_per_rtt)",
        )
        # a noisy trace's growth from within its noise floor is not a measured trend (no trend is
        # measurable below the floor): an envelope wandering within the floor that ends on a rise
        from_floor = noise_floor & (_blocks(floor)[-fit_blocks:].min(axis=0) <= 1.0)
        label(
            growing & from_floor,
            UNDECIDED,
            "growing from within the noise floor at the last horizon (growth not resolved above the noise)",
        )
        label(
            growing & (grew_late >= STEADY_GROWTH * grew_early),
            DIVERGED,
            "envelope still growing without slowing down, outside the band, at the last horizon",
        )
        label(growing, UNDECIDED, "growth slowing down at the last horizon (a slow excursion near its peak?)")
        out.reason[open_] = "envelope trend not resolved at the last horizon"
    else:
        out.reason[decaying] = "decaying, not yet at the floor"
        out.reason[growing] = "growing"
        out.reason[open_ & ~decaying & ~growing] = "envelope trend not resolved yet"
    return out


def judge_trace(
    t_rtt: ArrayLike,
    gamma: ArrayLike,
    queue: ArrayLike,
    gamma_eq: ArrayLike,
    queue_eq: ArrayLike,
    queue_scale: ArrayLike,
    band: Band = STANDARD,
    rate_floor: float | None = None,
    queue_floor: float | None = None,
    final: bool = True,
) -> Judgement:
    """Judge recorded traces (fluid or packet): :func:`trace_envelope` then :func:`judge_envelope`.

    Parameters are those of :func:`trace_envelope`; ``final`` (default True: the trace is all
    there is) as for :func:`judge_envelope`; passing a floor makes it a noise floor
    (``noise_floor=True``). Times in the result are RTTs from the first sample.

    Examples
    --------
    A rate that drains linearly from 10% above equilibrium to it in 100 RTTs, then stays:

    >>> t = np.arange(0, 400.01, 0.1)
    >>> gamma = 0.1 * (1 + 0.1 * np.clip(1 - t / 100, 0, None))
    >>> j = judge_trace(t, gamma, 0 * t, 0.1, 0.0, 1.0)
    >>> str(j.names[0]), round(float(j.convergence_rtt[0]), 1)   # the standard 2% band is left at t = 80
    ('converged', 80.0)
    """
    env = trace_envelope(t_rtt, gamma, queue, gamma_eq, queue_eq, queue_scale, band, rate_floor, queue_floor)
    return judge_envelope(env, final=final, noise_floor=rate_floor is not None or queue_floor is not None)
