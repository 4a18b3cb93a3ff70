"""XCP (xcp-katabi.txt): App. A's data path and timeout block, XCP window senders."""

from __future__ import annotations

import math

from ...runtime.validation import control_interval_ns
from ..routers.xcp.control import XcpController
from ..wire.xcp_header import XCP_HEADER_LEN
from .base import NS_PER_S, PacketProtocol, PortService, window_service

__all__ = ["XCP", "XcpProtocol"]


class XcpProtocol(PacketProtocol):
    """XCP: per-packet window feedback; the router has no rate.

    The rate a run records for XCP is the measured input rate per scripted flow, y/(N*C):
    the fluid xcp model's gamma.
    """

    name = "xcp"
    sender = "xcp"
    header_bytes = XCP_HEADER_LEN
    datapath = "xcp"

    def make_controller(self, link, alpha, beta, eta, initial_R_over_C, avg_rtt_s, mtu) -> XcpController:
        capacity = link.capacity_bps / 8000  # bytes/ms
        return XcpController(capacity=capacity * 1000, alpha=alpha, beta=beta, avg_rtt=avg_rtt_s)

    def initial_writes(self, sim, li, ctrl) -> None:
        sim.set_xcp_registers(li, min_queue=float("inf"))

    def service(self, sim, li, ctrl, tr_ns) -> PortService:
        next_ns, registers = window_service(sim, li, ctrl, tr_ns)
        return PortService(next_ns, math.nan, ctrl.utilization, registers)

    def initial_interval_ns(self, ctrl) -> int:
        return control_interval_ns(ctrl.interval * NS_PER_S)

    def monitored_rate(self, rate_over_c, utilization, n_flows) -> float:
        return utilization / max(n_flows, 1)

    def runs_natively(self, ctrl) -> bool:
        return type(self) is XcpProtocol and type(ctrl) is XcpController  # a subclass runs its own Python

    def native_arguments(self, ctrl) -> tuple:
        return (ctrl.capacity, ctrl.alpha, ctrl.beta, ctrl.gamma, ctrl.avg_rtt)

    def native_restore(self, ctrl, state, utilization) -> None:
        (ctrl.avg_rtt,) = state
        if utilization is not None:
            ctrl.utilization = utilization

    def native_intervals(self, sim, li, ctrl, tick_ns, interval_ns, limit_ns, n_flows):
        rows, tick_ns, interval_ns, *state = sim.xcp_intervals(li, tick_ns, interval_ns, limit_ns, *self.native_arguments(ctrl))
        self.native_restore(ctrl, state, rows[-1][4] if rows else None)
        # the rate recorded per scripted flow: the scenario's flow count is not the simulator's
        return (
            [(t, self.monitored_rate(r, u, n_flows(t)), q, n, u, dropped, a) for t, r, q, n, u, dropped, a in rows],
            tick_ns,
            interval_ns,
        )


XCP = XcpProtocol()
