"""Verdicts on one segment of a packet trace: the phase plane's rules, with noise-aware bands.

A packet router's R/C and queue are noisy where the fluid model's are smooth: y is counted in
whole datagrams per interval and the queue holds whole packets. The phase plane's bands (R
within 2% of equilibrium, q within 1% of C*d0) can be narrower than that noise (at 10 Mb/s
and 100 ms, 1% of C*d0 is less than one 1500-byte packet), so a flat run that has converged
keeps stepping out of them. :func:`judge_segment` therefore:

1. Measures the **noise floor** of each trace on the segment's second half (the settled part):

   - R/C (one-RTT means): the part of its spread that does not repeat at its dominant period,
     ``std * sqrt(1 - rho)`` with ``rho`` the autocorrelation there (signal plus noise: a
     sustained cycle repeats, so rho ~ its share of the power; counting noise, and the loop's
     response to it, mostly does not). It is capped at the counting quantum of a one-RTT mean,
     one datagram per RTT relative to the equilibrium rate: a larger fluctuation is not noise.
   - the queue: its spread about its centred one-RTT mean (:func:`occupancy_floor`).

2. Widens each band to ``max(thesis band, NOISE_K * floor)`` and scales the traces so that the
   phase plane's :func:`~rcpstab.phaseplane.verdicts.band_distance` measures them in these
   bands; :func:`~rcpstab.phaseplane.verdicts.classify` judges their envelope. **converged**
   when it is inside and stays inside (or decays steadily), as in the phase plane.
3. Otherwise, on the second half's one-RTT-mean deviation of R/C from the equilibrium:
   **limit_cycle** when it oscillates coherently (``rho >=`` :data:`COHERENCE`), its amplitude
   (sqrt(2) * std) exceeds the widened band and it is not decaying (the last quarter's std keeps
   at least 1/(1 + TREND) of the third quarter's). Rates are clamped and the queue is bounded by
   the buffer, so a growing oscillation is heading for a bounded cycle: this is checked before
   classify's growth rule.
4. **diverged** when classify saw growth and the envelope ends outside the band, or when the
   median deviation is outside the band (settled away from the equilibrium by more than the
   standing-queue offset, already in the equilibrium, explains). Growth that ended back inside
   the band was a noise bump: **undecided**, as is classify's crossing-based limit cycle without
   coherence (noise dithering about the equilibrium).
"""
from __future__ import annotations

import math

import numpy as np

from ..phaseplane.monitor import trajectory_envelope
from ..phaseplane.trajectory import Trajectory
from ..phaseplane.verdicts import CONVERGED, DIVERGED, LIMIT_CYCLE, QUEUE_BAND, RATE_BAND, TREND, UNDECIDED, classify
from .segments import rtt_average

NOISE_K = 5.0          # band >= 5 noise floors: ~100 independent one-RTT means of Gaussian noise stay inside
COHERENCE = 0.5        # autocorrelation at the period: a cycle repeats; noise through a damped loop mostly does not
MAX_PERIOD_RTT = 40.0  # longest period searched (the loop's periods are 4-20 RTTs)


def occupancy_floor(raw: np.ndarray, samples_per_rtt: int) -> float:
    """Packet jitter of a queue trace (same units): its spread about its centred one-RTT mean.

    The queue holds whole packets and how many depends on how the N paced flows' packets
    interleave; those phases persist for many RTTs, so a one-RTT mean does not average the
    jitter away as it would white noise.
    """
    half = samples_per_rtt // 2
    smooth = rtt_average(raw, samples_per_rtt)[samples_per_rtt:]
    residual = raw[samples_per_rtt - half:raw.size - half] - smooth
    return float(np.std(residual)) if residual.size > 1 else 0.0


def dominant_oscillation(deviation: np.ndarray, samples_per_rtt: int) -> tuple[float, float]:
    """Dominant period (RTTs) of a trace and its autocorrelation there (0, 0 if none is found).

    The period is the lag of the autocorrelation's highest peak after its first zero crossing,
    up to :data:`MAX_PERIOD_RTT`.
    """
    x = deviation - deviation.mean()
    power = float(x @ x)
    if power <= 0:
        return 0.0, 0.0
    lags = min(x.size - 1, int(MAX_PERIOD_RTT * samples_per_rtt))
    acf = np.array([x[:x.size - k] @ x[k:] for k in range(lags + 1)]) / power
    negative = np.flatnonzero(acf < 0)
    if negative.size == 0:
        return 0.0, 0.0
    peak = int(negative[0] + np.argmax(acf[negative[0]:]))
    return peak / samples_per_rtt, float(acf[peak])


def judge_segment(t_s: np.ndarray, gamma_raw: np.ndarray, queue_raw: np.ndarray, gamma_eq: float,
                  queue_eq: float, d0: float, capacity: float, samples_per_rtt: int,
                  packet_bits: float) -> tuple[int, float]:
    """Verdict code and convergence time (RTTs from the first sample) of one packet segment.

    Parameters
    ----------
    t_s : ndarray
        Sample times from the segment's start, seconds (one per control interval).
    gamma_raw, queue_raw : ndarray
        R/C and the queue (bits) at each sample, as the router reads them.
    gamma_eq, queue_eq : float
        The equilibrium the segment is judged against (R/C > 0; bits).
    d0, capacity : float
        Round-trip propagation delay (s) and link capacity (bit/s).
    samples_per_rtt : int
        Control intervals in one RTT (the averaging window).
    packet_bits : float
        A data datagram, bits: the router's counting quantum.
    """
    late = slice(gamma_raw.size // 2, None)
    deviation = rtt_average(gamma_raw, samples_per_rtt) / gamma_eq - 1.0
    settled = deviation[late]
    _, coherence = dominant_oscillation(settled, samples_per_rtt)
    # Counting noise cannot exceed one datagram per RTT in a one-RTT mean of the rate.
    quantum = packet_bits / (capacity * d0 * gamma_eq)
    noise = float(np.std(settled)) * math.sqrt(1.0 - max(coherence, 0.0))
    rate_band = max(RATE_BAND, min(NOISE_K * noise, quantum))
    queue_band = max(QUEUE_BAND * capacity * d0, NOISE_K * occupancy_floor(queue_raw[late], samples_per_rtt))
    queue_off = rtt_average(queue_raw, samples_per_rtt) - queue_eq
    # Scaled so that band_distance's fixed bands (RATE_BAND, QUEUE_BAND * C * d0) become the widened ones.
    traj = Trajectory(model="packet", t=t_s, states={}, gamma=(1.0 + deviation * RATE_BAND / rate_band)[:, None],
                      queue=(queue_off * QUEUE_BAND * capacity * d0 / queue_band)[:, None],
                      gamma_eq=np.ones(1), queue_eq=np.zeros(1), d0=d0, capacity=np.array([capacity]),
                      dt=float(t_s[1] - t_s[0]) if t_s.size > 1 else d0)
    envelope = trajectory_envelope(traj)
    verdict = classify(envelope, final=True)
    code, convergence = int(verdict.codes[0]), float(verdict.convergence_rtt[0])
    if code == CONVERGED:
        return code, convergence
    quarter = settled.size // 2
    third, last = np.std(settled[:quarter]), np.std(settled[quarter:])
    # Rates are clamped and the queue bounded by the buffer, so an oscillation whose envelope
    # still grows is heading for a bounded cycle: coherence decides before classify's growth rule.
    if coherence >= COHERENCE and math.sqrt(2.0) * last > rate_band and last * (1 + TREND) >= third:
        return LIMIT_CYCLE, math.nan
    # A growth verdict on a noisy envelope that ends back inside the band was a noise bump.
    grown = code == DIVERGED and not envelope.peaks[-1, 0] <= 1.0
    if grown or abs(float(np.median(settled))) > rate_band:
        return DIVERGED, math.nan
    return (UNDECIDED if code in (DIVERGED, LIMIT_CYCLE) else code), math.nan
