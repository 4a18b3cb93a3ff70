"""What the flow simulator's held-rate duration holds beyond the FCFS queue's (issue 24, item 4).

``rcpstab fct --fixed-rate`` reports the flow simulator's ``FCT - 1.5 RTPD`` beside the packet
FCFS queue's ``L P/R + W_last`` (:func:`~rcpstab.fct.ucurve.fixed_rate_fcfs`, App. A's
duration). The flow simulator's flow differs in four ways, each accounted for here on the same
arrivals:

* its SYN (40 bytes) is queued at the same bottleneck: it waits the work it finds, which under
  PASTA has the time average ``E[Q_a]`` as mean, so ``E[W_syn] = E[Q_a]/C``;
* SYN and SYN-ACK are serialised (``2 S/C``, S the control packet's bits);
* its last packet takes ``P/C`` on the link, not ``P/R`` (App. A counts ``L/R``);
* its data start one RTPD after the SYN *leaves* the queue, not after it arrives, so the data of
  flows that arrived into a queue are held back by it (feedback).

:func:`fcfs_with_syn` is the FCFS queue extended by all four (SYNs as jobs in the same queue,
data released by their departure); :func:`syn_accounting` adds them one at a time and gives
the closed form ``FCFS + E[Q_a]/C + 2 S/C - (P/R - P/C)`` beside them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from ..errors import InputError
from .ucurve import fcfs_trace, fixed_rate_fcfs, paced_packets
from .ucurve_gap import time_average_work_bits

__all__ = ["SynFcfs", "fcfs_with_syn", "syn_accounting"]


@dataclass(frozen=True)
class SynFcfs:
    """Per flow (arrival order), s: ``duration`` (the flow simulator's ``FCT - 1.5 RTPD``),
    ``syn_wait`` (the SYN's wait in queue) and ``last_wait`` (the last data packet's)."""

    duration: np.ndarray
    syn_wait: np.ndarray
    last_wait: np.ndarray


def fcfs_with_syn(
    start_s: ArrayLike,
    size_pkts: ArrayLike,
    rate_bps: float,
    capacity_bps: float,
    rtt_s: float,
    packet_bits: float = 8000.0,
    syn_bits: float = 320.0,
    feedback: bool = True,
) -> SynFcfs:
    """The packet FCFS queue with every flow's SYN in it and its data released by the SYN.

    Flow i's SYN (``syn_bits``) joins the queue at ``start_s[i]``; its data packet k at
    ``b_i + k P/R`` with ``b_i = D_syn + RTPD + S/C`` (SYN propagation, SYN-ACK serialisation
    and propagation; the ACK direction's queue is left out), or ``start_s[i] + S/C + RTPD + S/C``
    without ``feedback`` (the SYN's wait does not hold the data back). The queue is solved one
    RTPD of arrivals at a time (Lindley with per-job service): data always arrive at least one
    RTPD after their SYN, so each window's SYNs release only later windows' data.

    Parameters
    ----------
    start_s : array_like
        Flow arrival (SYN sent) times, s, non-decreasing.
    size_pkts : array_like
        Flow sizes, packets (>= 1).
    rate_bps, capacity_bps : float
        The held rate R and the capacity C, bit/s.
    rtt_s : float
        Round-trip propagation delay RTPD, s.
    packet_bits, syn_bits : float
        Data packet P and SYN / SYN-ACK S, bits.
    feedback : bool
        Release the data after the SYN's departure (True, the flow simulator) or after its arrival.

    Returns
    -------
    SynFcfs

    Examples
    --------
    Two one-packet flows at t = 0 on a 1 b/s link, 1-bit packets, 0.5-bit SYNs, RTPD 10 s: the
    SYNs leave at 0.5 and 1 s, the data arrive at 11 and 11.5 s, and the second waits 0.5 s
    behind the first (duration = SYN wait + 2 S/C + (L-1) P/R + W_last + P/C):

    >>> r = fcfs_with_syn([0.0, 0.0], [1, 1], 1.0, 1.0, 10.0, packet_bits=1.0, syn_bits=0.5)
    >>> r.syn_wait.tolist(), r.duration.tolist()
    ([0.0, 0.5], [2.0, 3.0])
    """
    a = np.asarray(start_s, float)
    n = np.asarray(size_pkts, np.int64)
    if a.shape != n.shape or np.any(n < 1) or np.any(np.diff(a) < 0):
        raise InputError("start_s must be non-decreasing and sizes >= 1 packet, one per flow")
    if not (rate_bps > 0 and capacity_bps > 0 and rtt_s > 0 and packet_bits > 0 and syn_bits >= 0):
        raise InputError("rates, RTPD and packet bits must be > 0")
    s_d, s_c, pace = packet_bits / capacity_bps, syn_bits / capacity_bps, packet_bits / rate_bps
    nf = len(a)
    syn_depart = np.empty(nf)
    last_wait = np.empty(nf)
    # pending data packets: arrival time, flow, is-last
    pend_t, pend_f, pend_last = np.empty(0), np.empty(0, np.int64), np.empty(0, bool)
    free_at = -np.inf  # the link is free from this time
    lo = 0
    k = 0
    while lo < nf or len(pend_t):
        edge = (k + 1) * rtt_s + (a[0] if nf else 0.0)
        hi = int(np.searchsorted(a, edge, side="left"))
        take = pend_t < edge
        t = np.concatenate([a[lo:hi], pend_t[take]])
        flow = np.concatenate([np.arange(lo, hi), pend_f[take]])
        is_syn = np.concatenate([np.ones(hi - lo, bool), np.zeros(int(take.sum()), bool)])
        is_last = np.concatenate([np.zeros(hi - lo, bool), pend_last[take]])
        pend_t, pend_f, pend_last = pend_t[~take], pend_f[~take], pend_last[~take]
        if len(t):
            order = np.argsort(t, kind="stable")
            t, flow, is_syn, is_last = t[order], flow[order], is_syn[order], is_last[order]
            svc = np.where(is_syn, s_c, s_d)
            cum = np.cumsum(svc)
            # Lindley: D_j = S_j + max(free_at, max_{i<=j} (A_i - S_{i-1}))
            depart = cum + np.maximum(free_at, np.maximum.accumulate(t - (cum - svc)))
            free_at = float(depart[-1])
            syn_depart[flow[is_syn]] = depart[is_syn]
            last_wait[flow[is_last]] = (depart - svc - t)[is_last]
            new = flow[is_syn]
            if len(new):
                release = (syn_depart[new] if feedback else a[new] + s_c) + rtt_s + s_c
                i, kk, times = paced_packets(release, n[new], pace)
                fl = new[i]
                pend_t = np.concatenate([pend_t, times])
                pend_f = np.concatenate([pend_f, fl])
                pend_last = np.concatenate([pend_last, kk == n[fl] - 1])
        lo = hi
        k += 1
    syn_wait = syn_depart - s_c - a
    duration = syn_wait + 2 * s_c + (n - 1) * pace + last_wait + s_d
    return SynFcfs(duration, syn_wait, last_wait)


def syn_accounting(
    start_s: ArrayLike,
    size_pkts: ArrayLike,
    rate_bps: float,
    capacity_bps: float,
    rtt_s: float,
    packet_bits: float = 8000.0,
    syn_bits: float = 320.0,
) -> dict[str, Any]:
    """The FCFS queue's mean duration brought to the flow simulator's, one term at a time.

    Parameters
    ----------
    start_s, size_pkts, rate_bps, capacity_bps, rtt_s, packet_bits, syn_bits
        As :func:`fcfs_with_syn`.

    Returns
    -------
    dict
        ``fcfs_s`` (App. A's ``L P/R + W_last``, mean, s); ``terms_s``: ``last_packet_at_C``
        (``-(P/R - P/C)``), ``syn_serialisation`` (``2 S/C``), ``syn_wait`` (the work each SYN
        finds in the plain FCFS queue: its first packet's wait, mean, s), ``syn_bits_in_queue`` (the extended queue
        without feedback minus the sum so far: the SYNs' own bits in the queue) and ``feedback``
        (data released by the SYN's departure, not its arrival); ``extended_s`` (:func:`fcfs_with_syn`'s mean,
        = ``fcfs_s`` + the terms); ``closed_form_s`` (``fcfs_s + E[Q_a]/C + 2 S/C - (P/R -
        P/C)``, E[Q_a] the plain queue's time-average work over the arrivals' span, PASTA);
        ``Qa_over_C_s``.

    Examples
    --------
    One flow alone: no queue, so the terms are the serialisations and the last packet's.

    >>> acc = syn_accounting([0.0], [2], 1.0, 2.0, 10.0, packet_bits=1.0, syn_bits=0.5)
    >>> acc["fcfs_s"], acc["extended_s"], acc["terms_s"]["last_packet_at_C"]
    (2.0, 2.0, -0.5)
    """
    a = np.asarray(start_s, float)
    n = np.asarray(size_pkts, np.int64)
    s_c = syn_bits / capacity_bps
    fcfs = float(fixed_rate_fcfs(a, n, rate_bps, capacity_bps, packet_bits).mean())
    trace = fcfs_trace(a, n, rate_bps, capacity_bps, packet_bits)
    # the work a SYN arriving just before the flow's first packet finds: that packet's wait
    syn_plain = float(trace.wait[trace.first].mean())
    no_fb = float(fcfs_with_syn(a, n, rate_bps, capacity_bps, rtt_s, packet_bits, syn_bits, feedback=False).duration.mean())
    ext = float(fcfs_with_syn(a, n, rate_bps, capacity_bps, rtt_s, packet_bits, syn_bits).duration.mean())
    last = -(packet_bits / rate_bps - packet_bits / capacity_bps)
    so_far = fcfs + last + 2 * s_c + syn_plain
    qa = time_average_work_bits(trace, packet_bits, float(a[0]), float(a[-1])) / capacity_bps if len(a) > 1 else 0.0
    return {
        "fcfs_s": fcfs,
        "terms_s": {
            "last_packet_at_C": last,
            "syn_serialisation": 2 * s_c,
            "syn_wait": syn_plain,
            "syn_bits_in_queue": no_fb - so_far,
            "feedback": ext - no_fb,
        },
        "extended_s": ext,
        "closed_form_s": fcfs + qa + 2 * s_c + last,
        "Qa_over_C_s": qa,
    }
