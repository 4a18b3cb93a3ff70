"""RCP-AC (rcp-ac.txt): App. F's rate controller plus the acceleration controller, XCP window senders."""

from __future__ import annotations

from typing import Any, cast

from ...runtime.validation import control_interval_ns
from ..routers.rcp.control import RcpController
from ..routers.rcpac.control import RCPAC_GAMMA, RcpAcController
from ..wire.xcp_header import XCP_HEADER_LEN
from .base import NS_PER_S, PacketProtocol, PortService, window_service
from .rcp import RCP

__all__ = ["RCPAC", "RcpAcProtocol"]


class RcpAcProtocol(PacketProtocol):
    """RCP-AC: the router keeps RCP's rate R and returns per-packet window feedback toward it.

    Eq. 2's budget gamma*B takes B = the port's buffer and gamma = :data:`RCPAC_GAMMA`.
    """

    name = "rcpac"
    sender = "xcp"
    header_bytes = XCP_HEADER_LEN
    datapath = "rcpac"
    control_options = ("rtt_estimator",)  # App. F's RTT average or ns-2's (routers.rcp.control)
    rtt_resolution_s = 1e-6  # the port's rtt_sum register: us

    def make_controller(
        self,
        link: Any,
        alpha: float,
        beta: float,
        eta: float,
        initial_R_over_C: float,
        avg_rtt_s: float,
        mtu: int,
        **options: Any,
    ) -> RcpAcController:
        rcp = RCP.make_controller(link, alpha, beta, eta, initial_R_over_C, avg_rtt_s, mtu, **options)
        return RcpAcController(rcp, gamma_ac=RCPAC_GAMMA, buffer_bytes=link.buffer_bytes)

    def initial_writes(self, sim: Any, li: int, ctrl: Any) -> None:
        sim.set_xcp_registers(li, rate=ctrl.rcp.rate * 1000.0, avg_rtt=ctrl.rcp.avg_rtt / 1000.0)
        sim.set_xcp_registers(li, min_queue=float("inf"))

    def service(self, sim: Any, li: int, ctrl: Any, tr_ns: int) -> PortService:
        next_ns, registers = window_service(sim, li, ctrl, tr_ns)
        return PortService(next_ns, ctrl.rcp.rate / ctrl.rcp.link_rate, ctrl.utilization, registers)

    def initial_interval_ns(self, ctrl: Any) -> int:
        return control_interval_ns(ctrl.interval * NS_PER_S)

    def avg_rtt_s(self, ctrl: Any) -> float:
        return cast(float, ctrl.rcp.avg_rtt / 1000.0)  # ms -> s

    def runs_natively(self, ctrl: Any) -> bool:
        # exact types, the wrapped rate controller's too: a subclass runs its own Python
        return type(self) is RcpAcProtocol and type(ctrl) is RcpAcController and type(ctrl.rcp) is RcpController

    def native_arguments(self, ctrl: Any) -> tuple[Any, ...]:
        return (*RCP.native_arguments(ctrl.rcp), ctrl.gamma_ac, ctrl.buffer_bytes, ctrl.deficit)

    def native_restore(self, ctrl: Any, state: Any, utilization: float | None) -> None:
        ctrl.rcp.rate, ctrl.rcp.avg_rtt, ctrl.deficit = state
        if utilization is not None:
            ctrl.utilization = utilization

    def native_intervals(
        self, sim: Any, li: int, ctrl: Any, tick_ns: int, interval_ns: int, limit_ns: int, n_flows: Any
    ) -> tuple[list[Any], int, int]:
        rows, tick_ns, interval_ns, *state = sim.rcpac_intervals(li, tick_ns, interval_ns, limit_ns, *self.native_arguments(ctrl))
        self.native_restore(ctrl, state, rows[-1][4] if rows else None)
        return rows, tick_ns, interval_ns


RCPAC = RcpAcProtocol()
