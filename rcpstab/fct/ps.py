"""Processor sharing, the reference of thesis Ch. 4: eq. 4.1 and the lower bound.

Under M/G/1 processor sharing a flow of L bits on a link of C bit/s at offered load rho
completes, in expectation, in ``L / (C (1 - rho))``; with the connection set-up (one RTPD
for SYN / SYN-ACK) and the propagation of the data (half an RTPD) the thesis' eq. 4.1 is

    FCT_PS(L) = 1.5 RTPD + L / (C (1 - rho)).

No flow can finish faster than ``1.5 RTPD + L / C`` (the link all to itself, no queue).
Both are linear in L, so the PS AFCT of a set of flows is eq. 4.1 at their mean size.
"""

from __future__ import annotations

import heapq

import numpy as np
from numpy.typing import ArrayLike

__all__ = ["processor_sharing_fct", "lower_bound_fct", "processor_sharing_sojourn"]


def processor_sharing_fct(size_bits: ArrayLike, capacity_bps: float, rtt_s: float, load: float) -> np.ndarray:
    """Eq. 4.1: expected FCT under processor sharing, seconds.

    Parameters
    ----------
    size_bits : float or array_like
        Flow size L, bits.
    capacity_bps : float
        Link capacity C, bit/s.
    rtt_s : float
        Round-trip propagation delay RTPD, seconds.
    load : float
        Offered load rho in [0, 1).

    Examples
    --------
    >>> round(float(processor_sharing_fct(25 * 8000, 10e6, 0.1, 0.9)), 6)   # 25 packets of 1000 bytes
    0.35
    """
    return 1.5 * rtt_s + np.asarray(size_bits, dtype=float) / (capacity_bps * (1.0 - load))


def lower_bound_fct(size_bits: ArrayLike, capacity_bps: float, rtt_s: float) -> np.ndarray:
    """The smallest possible FCT, ``1.5 RTPD + L / C``, seconds.

    Examples
    --------
    >>> round(float(lower_bound_fct(25 * 8000, 10e6, 0.1)), 6)
    0.17
    """
    return 1.5 * rtt_s + np.asarray(size_bits, dtype=float) / capacity_bps


def processor_sharing_sojourn(arrival_s: ArrayLike, size_bits: ArrayLike, capacity_bps: float) -> np.ndarray:
    """Time each job spends in an exact processor-sharing queue fed with these arrivals, s.

    The second method behind eq. 4.1: the same arrival times and sizes a packet run drew,
    served by an ideal PS link (every job in the system gets C / N). PS FCT of a flow is
    then ``1.5 RTPD`` plus its sojourn; with Poisson arrivals its mean for size L tends to
    ``L / (C (1 - rho))`` (M/G/1-PS), at any other arrival process it is still the PS
    reference on the same workload. Virtual time: every job in the system has received
    the same service V(t), which grows at C / N(t); a job leaves when V reaches V at its
    arrival plus its size.

    Parameters
    ----------
    arrival_s : array_like
        Arrival times, seconds, non-decreasing.
    size_bits : array_like
        Job sizes, bits.
    capacity_bps : float
        Link capacity, bit/s.

    Returns
    -------
    ndarray
        Sojourn time of each job, seconds, in input order.

    Examples
    --------
    >>> processor_sharing_sojourn([0.0, 0.0], [1e6, 3e6], 1e6).tolist()   # share, then alone
    [2.0, 4.0]
    """
    arrival = np.asarray(arrival_s, dtype=float)
    size = np.asarray(size_bits, dtype=float)
    if np.any(np.diff(arrival) < 0):
        raise ValueError("arrival times must be non-decreasing")
    leave = np.empty(len(arrival))
    tags: list[tuple[float, int]] = []  # (virtual finish, job)
    t = v = 0.0
    for i in range(len(arrival) + 1):
        a = arrival[i] if i < len(arrival) else np.inf
        while tags:  # serve until the next arrival
            finish, j = tags[0]
            dt = (finish - v) * len(tags) / capacity_bps
            if t + dt > a:
                v += (a - t) * capacity_bps / len(tags)
                break
            t += dt
            v = finish
            heapq.heappop(tags)
            leave[j] = t
        if i == len(arrival):
            break
        t = a
        heapq.heappush(tags, (v + size[i], i))
    sojourn: np.ndarray = leave - arrival
    return sojourn
