"""Control path of the XCP router: once per control interval, in Python.

It reads the port's registers (integer: ``sim.registers``; real-valued:
``sim.xcp_registers``), computes the next interval's per-packet constants and writes them
back with the interval's counters cleared, as :class:`~rcpstab.packet.routers.rcp.control.RcpController` does for RCP.
Units: bytes, seconds, bytes/s. RCP-AC's control path is :mod:`rcpstab.packet.routers.rcpac.control`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from ....errors import InputError

XCP_GAMMA = 0.1  # shuffled fraction of the traffic (xcp-katabi.txt eq. 2)
MIN_INTERVAL_S = 1e-4  # the timer never re-arms sooner (a sane floor for a malformed RTT estimate)

__all__ = ["XcpController", "clear_counters"]


def clear_counters() -> dict[str, int]:
    """The integer interval counters, cleared (App. F lines 14-16)."""
    return {"input_bytes": 0, "rtt_sum": 0, "rtt_count": 0}


@dataclass
class XcpController:
    """XCP's estimation-control timeout (xcp-katabi.txt App. A, second block).

    Parameters
    ----------
    capacity : float
        Link capacity, bytes/s.
    alpha, beta : float
        Efficiency-controller gains (paper: 0.4 and 0.226).
    avg_rtt : float
        Initial control interval d, s (a prior until packets carry RTTs).
    gamma : float
        Shuffled fraction.

    Notes
    -----
    - Shuffling is eq. 2, ``h = max(0, gamma*y - |phi|)``; the pseudo-code's ``0.1 *
      input_traffic`` drops the max, which would shuffle even far from equilibrium and
      contradicts footnote 3 ("shuffling exists only when ``|phi| < 0.1 y``").
    - The persistent queue Q is the smallest queue an arriving packet saw during the last
      control interval (one average RTT); the paper takes the last propagation delay, which
      is the interval minus the local queueing delay: a slightly longer window here.
    - d is the cwnd-weighted average of App. A; an interval without packets keeps the last d.
    """

    capacity: float
    alpha: float
    beta: float
    avg_rtt: float
    gamma: float = XCP_GAMMA

    def __post_init__(self) -> None:
        if not (self.capacity > 0 and self.alpha > 0 and self.beta >= 0 and self.avg_rtt > 0):
            raise InputError(
                f"XCP controller: capacity={self.capacity}, alpha={self.alpha}, "
                f"beta={self.beta}, avg_rtt={self.avg_rtt} out of range"
            )
        self.utilization = 0.0

    @property
    def interval(self) -> float:
        """The next control interval, s: the average RTT."""
        return max(self.avg_rtt, MIN_INTERVAL_S)

    def service(
        self, registers: dict[str, Any], xregs: dict[str, Any], tr: float
    ) -> tuple[float, dict[str, Any], dict[str, Any]]:
        """One timeout after an interval of ``tr`` s: returns (next interval s, register writes, real writes)."""
        input_bytes = registers["input_bytes"]
        if xregs["sum_rtt_by_cwnd"] > 0:
            self.avg_rtt = xregs["sum_rtt_square_by_cwnd"] / xregs["sum_rtt_by_cwnd"]
        d = self.interval
        self.utilization = input_bytes / tr / self.capacity
        queue = xregs["min_queue"] if math.isfinite(xregs["min_queue"]) else registers["queue_bytes"]
        phi = self.alpha * d * (self.capacity - input_bytes / tr) - self.beta * queue
        shuffled = max(0.0, self.gamma * input_bytes - abs(phi))
        positive, negative = max(phi, 0.0) + shuffled, max(-phi, 0.0) + shuffled
        weight = xregs["sum_rtt_by_cwnd"]
        xwrites = {
            "xi_p": positive / (d * weight) if weight > 0 else 0.0,
            "xi_n": negative / (d * input_bytes) if input_bytes > 0 else 0.0,
            "residue_pos": positive / d,
            "residue_neg": negative / d,
            "sum_rtt_by_cwnd": 0.0,
            "sum_rtt_square_by_cwnd": 0.0,
            "min_queue": math.inf,
        }
        return d, clear_counters(), xwrites
