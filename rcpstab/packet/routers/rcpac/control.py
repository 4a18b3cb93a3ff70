"""Control path of the RCP-AC router: once per control interval, in Python.

App. F's rate controller (:class:`~rcpstab.packet.routers.rcp.control.RcpController`) plus RCP-AC's acceleration
controller (rcp-ac.txt lines 110-210). It reads the port's registers (integer:
``sim.registers``; real-valued: ``sim.xcp_registers``) and writes the next interval's rate,
RTT estimate and budget share with the interval's counters cleared. Units: bytes, seconds,
bytes/s (App. F's ms and bytes/ms only inside the wrapped RcpController).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ....errors import InputError
from ..rcp.control import RcpController
from ..xcp.control import clear_counters

__all__ = ["RCPAC_GAMMA", "RcpAcController"]

RCPAC_GAMMA = 0.2  # rcpstab.models.rcpac's default gamma_AC
US_PER_MS = 1000.0


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

    def service(
        self, registers: dict[str, Any], xregs: dict[str, Any], tr: float
    ) -> tuple[float, dict[str, Any], dict[str, Any]]:
        """One timer expiry after ``tr`` s: returns (next Tr s, register writes, real writes)."""
        c = self.rcp
        tr_ms = tr * 1000.0
        next_tr_ms = c.update(
            registers["input_bytes"], registers["rtt_sum"] / US_PER_MS, registers["rtt_count"], registers["queue_bytes"], tr_ms
        )
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
        return next_tr_ms / 1000.0, clear_counters(), xwrites
