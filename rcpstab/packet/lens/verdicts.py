"""Verdicts on one segment of a packet trace: the shared judgement, with a measured noise floor.

A packet router's R/C and queue are noisy where the fluid model's are smooth: y is counted in
whole datagrams per interval and the queue holds whole packets. The thesis' band
(:data:`~rcpstab.verdicts.band.STANDARD`, or the band passed in) can be narrower than that noise (at 10 Mb/s and 100 ms,
1% of C*d0 is less than one 1500-byte packet). :func:`judge_segment` therefore measures the
noise and hands the one-RTT means of the traces to the shared judgement
(:func:`rcpstab.verdicts.judgement.judge_trace`) with that noise as its floor; it has no rule of
its own. Every constant is fixed from first principles, none fitted to a map:

1. **Noise floor** of each trace, measured on the segment's second half (the settled part):

   - R/C (one-RTT means): the part of its spread that does not repeat at its dominant period,
     ``std * sqrt(1 - rho)`` with ``rho`` the autocorrelation there (a sustained cycle repeats,
     so rho is about its share of the power; counting noise mostly does not). It is capped at
     the counting quantum of a one-RTT mean, one datagram per RTT relative to the equilibrium
     rate: a larger fluctuation is not counting noise.
   - the queue: its spread about its centred one-RTT mean (:func:`occupancy_floor`).

2. **Floor = max(band, K noise)**: the thesis calls a trace converged once it stays in
   its band (:class:`~rcpstab.verdicts.band.Band`), and noise must not carry a converged trace out
   of it. K is the level that Gaussian noise's one-RTT means exceed with probability
   :data:`FALSE_ALARM` anywhere in the judgement's last block (``BLOCK_WINDOWS * WINDOW_RTT``
   one-RTT means, independent): ``K = Phi^-1(1 - FALSE_ALARM / (2 n))``, 3.5 for n = 20. A
   trace whose last block stays within the floor is at the equilibrium; the convergence time
   is its last exit from that (widened) band. The shared judgement's other rules (steady
   decay, flat cycle, growth) apply unchanged, and its rule 5b (a sustained coherent cycle
   above that floor) applies to these traces only.

3. **Window quantum** (window senders, XCP's aggregate input y): a window sender has a whole
   number of packets in flight, between its real-valued window minus one packet and the
   window, so N of them put up to N packets per RTT less on the link than the fluid aggregate
   W/d: y is resolved to ``N * packet / d0``, relative to its equilibrium ``N gamma_e C`` one
   packet per flow per RTT (``packet / (gamma_e C d0)``), and the queue to N packets. A rate
   R stamped for window senders (RCP-AC) becomes a window R*d, a whole number of packets: R is
   resolved to the same relative quantum. Below that the fluid model says nothing, and the
   closed loop keeps a deterministic, coherent cycle (and an offset) of that size that shrinks
   as the windows hold more packets (a coherent cycle that the noise estimate of 1 discounts),
   so for these traces the floor is at least one quantum. It is a bound from the sender, not a
   fitted level (measured cycle sizes: ``experiments/xcp_region.py``,
   ``experiments/rcpac_router.py``).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np
from scipy.special import ndtri  # scipy.stats.norm.isf(p) is -ndtri(p); scipy.stats costs ~0.5 s of import

from ...verdicts.band import STANDARD, Band
from ...verdicts.judgement import (  # noqa: F401
    BLOCK_WINDOWS,
    MAX_PERIOD_RTT,
    QUEUE_BAND,
    RATE_BAND,
    WINDOW_RTT,
    dominant_oscillation,
    judge_trace,
)
from ..simulator.segments import rtt_average

if TYPE_CHECKING:
    from ...verdicts.judgement import Judgement

FALSE_ALARM = 0.01  # chance that pure noise leaves the floor somewhere in the last block


def noise_multiple(n_independent: float, false_alarm: float = FALSE_ALARM) -> float:
    """K such that n independent Gaussian samples all stay within K sigma with probability 1 - false_alarm.

    Examples
    --------
    >>> round(noise_multiple(20), 2)
    3.48
    """
    return float(-ndtri(false_alarm / (2.0 * n_independent)))


NOISE_K = noise_multiple(BLOCK_WINDOWS * WINDOW_RTT)  # one-RTT means are independent one RTT apart


def occupancy_floor(raw: np.ndarray, samples_per_rtt: int) -> float:
    """Packet jitter of a queue trace (same units): its spread about its centred one-RTT mean.

    The queue holds whole packets and how many depends on how the N paced flows' packets
    interleave; those phases persist for many RTTs, so a one-RTT mean does not average the
    jitter away as it would white noise.
    """
    half = samples_per_rtt // 2
    smooth = rtt_average(raw, samples_per_rtt)[samples_per_rtt:]
    residual = raw[samples_per_rtt - half : raw.size - half] - smooth
    return float(np.std(residual)) if residual.size > 1 else 0.0


def judge_segment(
    t_s: np.ndarray,
    gamma_raw: np.ndarray,
    queue_raw: np.ndarray,
    gamma_eq: float,
    queue_eq: float,
    d0: float,
    capacity: float,
    samples_per_rtt: int,
    packet_bits: float,
    noisy: bool = True,
    window_flows: int = 0,
    band: Band = STANDARD,
) -> tuple[int, float]:
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
    noisy : bool
        True for a packet trace (floor: the band widened by the measured noise); False for a fluid
        trace sampled like one, which has no noise to hide behind: it is judged down to the shared
        judgement's numerical floor, so that a slow growth inside the band is seen as growth.
    window_flows : int
        The number N of window senders behind the trace (XCP's y/(N C), RCP-AC's R/C); 0 for
        rate-paced senders. Given, the floor is at least the window quantum (point 3 above).
    band : Band
        The convergence band (widened to the measured noise, point 2 above).
    """
    judged = judgement_of_segment(
        t_s, gamma_raw, queue_raw, gamma_eq, queue_eq, d0, capacity, samples_per_rtt, packet_bits, noisy, window_flows, band
    )
    return int(judged.codes[0]), float(judged.convergence_rtt[0])


def judgement_of_segment(
    t_s: np.ndarray,
    gamma_raw: np.ndarray,
    queue_raw: np.ndarray,
    gamma_eq: float,
    queue_eq: float,
    d0: float,
    capacity: float,
    samples_per_rtt: int,
    packet_bits: float,
    noisy: bool = True,
    window_flows: int = 0,
    band: Band = STANDARD,
) -> Judgement:
    """The full :class:`~rcpstab.verdicts.judgement.Judgement` of one segment (see :func:`judge_segment`)."""
    if not noisy:
        return judge_trace(t_s / d0, gamma_raw, queue_raw, gamma_eq, queue_eq, capacity * d0, band, final=True)
    late = slice(gamma_raw.size // 2, None)
    gamma_mean = rtt_average(gamma_raw, samples_per_rtt)
    settled = gamma_mean[late] / gamma_eq - 1.0
    _, coherence = dominant_oscillation(settled, samples_per_rtt)
    # Counting noise cannot exceed one datagram per RTT in a one-RTT mean of the rate.
    quantum = packet_bits / (capacity * d0 * gamma_eq)
    rate_noise = min(float(np.std(settled)) * math.sqrt(1.0 - max(coherence, 0.0)), quantum)
    queue_noise = occupancy_floor(queue_raw[late], samples_per_rtt) / (capacity * d0)
    # The thesis calls a trace converged inside its band: the floor is the band, widened where the
    # noise would carry a converged trace out of it.
    rate_floor = max(NOISE_K * rate_noise, band.rate)
    queue_floor = max(NOISE_K * queue_noise, band.queue)
    if window_flows:  # window senders: y and q are resolved to one packet per flow per RTT (point 3)
        rate_floor = max(rate_floor, quantum)
        queue_floor = max(queue_floor, window_flows * packet_bits / (capacity * d0))
    return judge_trace(
        t_s / d0,
        gamma_mean,
        rtt_average(queue_raw, samples_per_rtt),
        gamma_eq,
        queue_eq,
        capacity * d0,
        Band(rate_floor, queue_floor),
        rate_floor=rate_floor,
        queue_floor=queue_floor,
        final=True,
    )
