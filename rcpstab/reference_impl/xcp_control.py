"""Control paths of the XCP and RCP-AC routers: once per control interval, in Python.

Each reads the port's registers (integer: ``sim.registers``; real-valued:
``sim.xcp_registers``), computes the next interval's per-packet constants and writes them
back with the interval's counters cleared, as :class:`~.control.RcpController` does for RCP.
Units: bytes, seconds, bytes/s (App. F's ms and bytes/ms only inside the wrapped RcpController).
"""
from __future__ import annotations

import math
from dataclasses import dataclass

from ..errors import InputError
from .control import RcpController

XCP_GAMMA = 0.1          # shuffled fraction of the traffic (xcp-katabi.txt eq. 2)
MIN_INTERVAL_S = 1e-4    # the timer never re-arms sooner (a sane floor for a malformed RTT estimate)
US_PER_MS = 1000.0


def _clear_counters() -> dict[str, int]:
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
            raise InputError(f"XCP controller: capacity={self.capacity}, alpha={self.alpha}, "
                             f"beta={self.beta}, avg_rtt={self.avg_rtt} out of range")
        self.utilization = 0.0

    @property
    def interval(self) -> float:
        """The next control interval, s: the average RTT."""
        return max(self.avg_rtt, MIN_INTERVAL_S)

    def service(self, registers: dict, xregs: dict, tr: float) -> tuple[float, dict, dict]:
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
        return d, _clear_counters(), xwrites


@dataclass
class RcpAcController:
    """RCP-AC (rcp-ac.txt lines 110-210): App. F's rate controller plus the acceleration controller.

    Parameters
    ----------
    rcp : RcpController
        The rate controller (eq. 1 = RCP's rate law and RTT estimator, App. F).
    gamma_ac : float
        Acceleration gain gamma of eq. 2.
    buffer_bytes : float
        B of eq. 2, bytes.

    Notes
    -----
    phi = alpha*(C - y)*d + gamma*B - beta*q (eq. 2) is a volume per interval d; the data
    path sums (R - r_i)^+ * s / (r_i * d) over the packets of the last Tr, which is
    sum_j (R - r_j)^+ * Tr / d over flows. Tr = min(d, 10 ms) is often far shorter than d,
    and window flows send in bursts, so most intervals see none of a flow's packets: the
    sums are averaged over one d, D <- (1 - Tr/d) D + sum_deficit (D = sum_j (R - r_j)^+ in
    steady state), and the budget share is xi = phi^+ / D seconds (eq. 4 as derived in
    rcpstab.models.rcpac). Before any flow below R has been seen, xi is 0.
    """

    rcp: RcpController
    gamma_ac: float
    buffer_bytes: float

    def __post_init__(self) -> None:
        if not self.gamma_ac >= 0:
            raise InputError(f"gamma_AC={self.gamma_ac} must be >= 0")
        self.utilization = 0.0
        self.deficit = 0.0  # sum over flows of (R - r_j)^+, bytes/s, averaged over one d

    @property
    def interval(self) -> float:
        """The next interval Tr, s (App. F line 13)."""
        return self.rcp.interval / 1000.0

    def service(self, registers: dict, xregs: dict, tr: float) -> tuple[float, dict, dict]:
        """One timer expiry after ``tr`` s: returns (next Tr s, register writes, real writes)."""
        c = self.rcp
        tr_ms = tr * 1000.0
        next_tr_ms = c.update(registers["input_bytes"], registers["rtt_sum"] / US_PER_MS, registers["rtt_count"],
                              registers["queue_bytes"], tr_ms)
        capacity, d = c.link_rate * 1000.0, c.avg_rtt / 1000.0
        y = registers["input_bytes"] / tr
        self.utilization = y / capacity
        phi = c.alpha * (capacity - y) * d + self.gamma_ac * self.buffer_bytes - c.beta * registers["queue_bytes"]
        self.deficit = (1.0 - min(tr / d, 1.0)) * self.deficit + xregs["sum_deficit"]
        xwrites = {
            "rate": c.rate * 1000.0,
            "avg_rtt": d,
            "xi_ac": max(phi, 0.0) / self.deficit if self.deficit > 0 else 0.0,
            "sum_deficit": 0.0,
        }
        return next_tr_ms / 1000.0, _clear_counters(), xwrites
