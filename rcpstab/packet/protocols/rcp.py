"""RCP (thesis Ch. 6, App. F): App. F's data path and control path, R-TCP senders."""

from __future__ import annotations

from ...runtime.validation import control_interval_ns
from ..routers.rcp.control import RcpController, rate_register
from ..wire.rcp_header import HEADER_LEN
from .base import NS_PER_MS, PacketProtocol, PortService

__all__ = ["RCP", "RcpProtocol"]


class RcpProtocol(PacketProtocol):
    """RCP: the port stamps ``rate`` (bytes/ms) on every packet; App. F's controller sets it every Tr."""

    name = "rcp"
    sender = "rtcp"
    header_bytes = HEADER_LEN
    datapath = "rcp"
    control_options = ("rtt_estimator",)  # App. F's RTT average or ns-2's (routers.rcp.control)
    rtt_resolution_s = 1e-3  # the header's RTT field: whole ms (rtcp_host.h rtcp_rtt_field)

    def make_controller(
        self, link, alpha, beta, eta, initial_R_over_C, avg_rtt_s, mtu, rtt_estimator: str = "appf"
    ) -> RcpController:
        capacity = link.capacity_bps / 8000  # bytes/ms
        return RcpController(
            link_rate=capacity,
            alpha=alpha,
            beta=beta,
            eta=eta,
            rate=initial_R_over_C * eta * capacity,
            avg_rtt=avg_rtt_s * 1000,
            mtu=mtu,
            rtt_estimator=rtt_estimator,
        )

    def initial_writes(self, sim, li, ctrl) -> None:
        sim.set_registers(li, rate=rate_register(ctrl.rate))

    def service(self, sim, li, ctrl, tr_ns) -> PortService:
        registers = sim.registers(li)
        next_tr, writes = ctrl.service(registers, tr_ns / NS_PER_MS)
        sim.set_registers(li, **writes)
        utilization = registers["input_bytes"] * NS_PER_MS / tr_ns / ctrl.link_rate
        return PortService(control_interval_ns(next_tr * NS_PER_MS), ctrl.rate / ctrl.link_rate, utilization, registers)

    def initial_interval_ns(self, ctrl) -> int:
        return control_interval_ns(ctrl.interval * NS_PER_MS)

    def avg_rtt_s(self, ctrl) -> float:
        return ctrl.avg_rtt / 1000.0

    def runs_natively(self, ctrl) -> bool:
        # exact types: a subclass (a user's controller, a counterfactual RTT estimate) must run its own update
        return type(self) is RcpProtocol and type(ctrl) is RcpController

    def native_arguments(self, ctrl) -> tuple:
        return (
            ctrl.link_rate,
            ctrl.alpha,
            ctrl.beta,
            ctrl.eta,
            ctrl.rate,
            ctrl.avg_rtt,
            ctrl.mtu,
            ctrl.rtt_estimator == "ns2",
        )

    def native_restore(self, ctrl, state, utilization) -> None:
        ctrl.rate, ctrl.avg_rtt = state

    def native_intervals(self, sim, li, ctrl, tick_ns, interval_ns, limit_ns, n_flows):
        rows, tick_ns, interval_ns, *state = sim.rcp_intervals(li, tick_ns, interval_ns, limit_ns, *self.native_arguments(ctrl))
        self.native_restore(ctrl, state, None)
        return rows, tick_ns, interval_ns


RCP = RcpProtocol()
