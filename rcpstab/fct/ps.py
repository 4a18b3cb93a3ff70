"""Processor sharing, the reference of thesis Ch. 4: eq. 4.1 and the lower bound.

Under M/G/1 processor sharing a flow of L bits on a link of C bit/s at offered load rho
completes, in expectation, in ``L / (C (1 - rho))``; with the connection set-up (one RTPD
for SYN / SYN-ACK) and the propagation of the data (half an RTPD) the thesis' eq. 4.1 is

    FCT_PS(L) = 1.5 RTPD + L / (C (1 - rho)).

No flow can finish faster than ``1.5 RTPD + L / C`` (the link all to itself, no queue).
Both are linear in L, so the PS AFCT of a set of flows is eq. 4.1 at their mean size.
"""
from __future__ import annotations

import numpy as np

__all__ = ["processor_sharing_fct", "lower_bound_fct"]


def processor_sharing_fct(size_bits, capacity_bps: float, rtt_s: float, load: float):
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


def lower_bound_fct(size_bits, capacity_bps: float, rtt_s: float):
    """The smallest possible FCT, ``1.5 RTPD + L / C``, seconds.

    Examples
    --------
    >>> round(float(lower_bound_fct(25 * 8000, 10e6, 0.1)), 6)
    0.17
    """
    return 1.5 * rtt_s + np.asarray(size_bits, dtype=float) / capacity_bps
