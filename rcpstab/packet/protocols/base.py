"""What a packet protocol is: the router's control path, its data path and its end hosts.

A :class:`PacketProtocol` names the pieces the packet simulator composes for a port: the data
path every packet crosses (an entry of the C function table ``csrc/port_ops.h``, by name), the
kind of sender the hosts run and the control-header size it puts in every packet, and the
control path that runs once per interval in Python (a controller object and the four steps
that load it, service it, time it and read it), or in C with the event loop for the bundled
controllers (:meth:`PacketProtocol.native_intervals`, the same bits). The run loop (:mod:`..run`) asks the protocol;
it never asks which protocol it is.
"""

from __future__ import annotations

import math
from abc import ABC, abstractmethod
from typing import Any, NamedTuple

import numpy as np

from ...runtime.validation import control_interval_ns
from ..hosts.senders import SENDERS
from ..routers.port_ops import DATAPATH_CODES
from ..wire.rcp_header import HEADER_LEN

__all__ = ["MAX_NATIVE_SPAN_NS", "NS_PER_MS", "NS_PER_S", "SENDERS", "PacketProtocol", "PortService", "window_service"]

NS_PER_S = 1_000_000_000
NS_PER_MS = 1_000_000
MAX_NATIVE_SPAN_NS = 1 << 40
"""Simulated time one call of a native control path may cover, ns (the C entry points refuse more)."""


class PortService(NamedTuple):
    """One timer expiry of a controlled port."""

    next_ns: int
    """The next interval, ns (>= 1)."""
    rate_over_c: float
    """The router's rate over the link capacity (NaN for a router without a rate)."""
    utilization: float
    """Input rate over the interval, fraction of the capacity."""
    registers: dict[str, Any]
    """The integer registers read at the expiry, before the writes."""


class PacketProtocol(ABC):
    """A router protocol of the packet simulator; subclass it and register an instance.

    Attributes
    ----------
    name : str
        Registry key, e.g. ``"rcp"`` (what ``run_scenario(protocol=...)`` takes).
    sender : {"rtcp", "xcp"}
        The hosts: R-TCP senders paced at the stamped rate (thesis 6.1.1), or XCP window
        senders (cwnd += H_feedback on every ACK).
    header_bytes : int
        Control-header bytes in every packet, at least the sender's header (12 for R-TCP,
        20 for XCP); SYNs and ACKs are IP + TCP + this many bytes.
    control_options : tuple of str
        Names of the control path's own settings that :meth:`make_controller` takes (RCP: its
        RTT average, ``rtt_estimator``); :func:`~rcpstab.packet.simulator.run.run_scenario` refuses
        one a protocol does not list.
    datapath : str
        The per-packet data path of the protocol's ports: a name of
        ``rcpstab.packet.routers.port_ops.DATAPATH_CODES`` (``"rcp"``, ``"xcp"``, ``"rcpac"``),
        the same entry of the C table ``PORT_OPS``.
    rtt_resolution_s : float
        The resolution of the RTT samples its data path sums, s (RCP's header: whole ms; RCP-AC's
        register: us; 0: none kept); a run refuses ns-2's RTT average below it (every sample 0).

    Notes
    -----
    Controllers are plain objects the protocol's own methods create and read; units inside
    them are the protocol's business. Times at this interface are integer nanoseconds.
    """

    name: str = ""
    sender: str = "rtcp"
    header_bytes: int = HEADER_LEN
    datapath: str = "rcp"
    control_options: tuple[str, ...] = ()
    rtt_resolution_s: float = 0.0

    @abstractmethod
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
    ) -> Any:
        """The control path of ``link`` (a :class:`~..topology.Link`) in its initial state.

        ``options`` are the protocol's own control-path settings, by name (the engine does not
        interpret them, as jitcdde's ``control_pars``): only those listed in :attr:`control_options`
        are passed (RCP's ``rtt_estimator``).

        ``alpha``, ``beta`` are the router gains, ``eta`` the target utilization,
        ``initial_R_over_C`` the initial rate over eta*C, ``avg_rtt_s`` the router's prior RTT
        estimate (s), ``mtu`` the data packet size (bytes).
        """

    @abstractmethod
    def initial_writes(self, sim: Any, li: int, ctrl: Any) -> None:
        """Load ``ctrl``'s initial state into port ``li`` of ``sim``."""

    @abstractmethod
    def service(self, sim: Any, li: int, ctrl: Any, tr_ns: int) -> PortService:
        """One timer expiry of port ``li`` after an interval of ``tr_ns`` ns: read, update, write."""

    @abstractmethod
    def initial_interval_ns(self, ctrl: Any) -> int:
        """``ctrl``'s first timer interval, ns (>= ``MIN_CONTROL_INTERVAL_NS``: ``control_interval_ns``)."""

    def monitored_rate(self, rate_over_c: float, utilization: float, n_flows: Any) -> float:
        """The rate a run records for the monitored port, over C (default: the router's rate)."""
        return rate_over_c

    def avg_rtt_s(self, ctrl: Any) -> float:
        """The control path's RTT estimate d, s (default NaN: the protocol keeps none)."""
        return math.nan

    def runs_natively(self, ctrl: Any) -> bool:
        """Whether :meth:`native_intervals` computes ``ctrl``'s control path to the bit (default: no).

        A protocol with a native control path answers yes only for its exact class and its exact
        controller class: a subclass that overrides a step must run its own Python.
        """
        return False

    def native_intervals(
        self, sim: Any, li: int, ctrl: Any, tick_ns: int, interval_ns: int, limit_ns: int, n_flows: Any
    ) -> tuple[list[Any], int, int]:
        """Every expiry of port ``li`` from ``tick_ns`` up to ``limit_ns``, computed in the C simulator.

        Called only when :meth:`runs_natively` says yes; it does at each expiry what :meth:`service` and the
        run loop would, with no Python per interval.

        Parameters
        ----------
        sim : rcpstab.packet._datapath.Simulator
            The C simulator (the Python twin has no native control path).
        li : int
            The port's link index.
        ctrl : object
            The controller; it holds the state after the last expiry on return.
        tick_ns, interval_ns : int
            The next expiry and the interval that ends there, ns.
        limit_ns : int
            The last time an expiry may fall on, ns (at most 2**40 ns after ``tick_ns``).
        n_flows : callable
            The scenario's scripted long-lived flows at a time in seconds (``Scenario.n_flows``).

        Returns
        -------
        rows : list of tuple
            One per expiry, as the run records it: time s, rate over C, queue bytes, active flows,
            utilization, dropped packets (cumulative), RTT estimate s.
        tick_ns, interval_ns : int
            The next expiry after ``limit_ns`` and its interval, ns.
        """
        raise NotImplementedError(f"{self.name}: no native control path")

    def native_arguments(self, ctrl: Any) -> tuple[Any, ...]:
        """``ctrl``'s state as the C entry points take it, after the link and the times (called only when
        :meth:`runs_natively` says yes)."""
        raise NotImplementedError(f"{self.name}: no native control path")

    def native_restore(self, ctrl: Any, state: Any, utilization: float | None) -> None:
        """Write the state a C entry point returns back into ``ctrl`` (with the last expiry's utilization,
        None if there was none)."""
        raise NotImplementedError(f"{self.name}: no native control path")

    def native_network_intervals(self, sim: Any, ports: list[tuple[int, Any, int, int, float]], limit_ns: int) -> list[Any]:
        """Every expiry of several ports up to ``limit_ns``, computed in the C simulator (a network run).

        Called only when :meth:`runs_natively` says yes for every controller; it does at each expiry what
        :meth:`service` and the network run loop (:mod:`rcpstab.cosim.network_packet_run`) would: ports in
        time order, in the given order at a tie, each after the simulation has run to it.

        Parameters
        ----------
        sim : rcpstab.packet._datapath.Simulator
            The C simulator.
        ports : list of tuple
            Per port ``(link, controller, next expiry ns, its interval ns, last RTT sample s)``; each
            controller holds its state after the last expiry on return.
        limit_ns : int
            The last time an expiry may fall on, ns (at most 2**40 ns after every port's next expiry).

        Returns
        -------
        list of tuple
            Per port ``(rows, next expiry ns, its interval ns, last RTT sample s)``; rows an array of shape
            (expiries, 7): time s, rate over C, queue bytes, RTT estimate s, RTT sample s, interval s,
            utilization.
        """
        given = [(li, tick, interval, sample, self.native_arguments(ctrl)) for li, ctrl, tick, interval, sample in ports]
        out = []
        for (_, ctrl, *_), (rows, tick, interval, sample, state) in zip(ports, sim.network_intervals(self.name, limit_ns, given)):
            table = np.frombuffer(rows, dtype=float).reshape(-1, 7)
            self.native_restore(ctrl, state, float(table[-1, 6]) if len(table) else None)
            out.append((table, tick, interval, sample))
        return out

    fluid_flows: str = "N"
    """The fluid model's parameter that the scenario's flow schedule sets."""

    def fluid_parameters(self, facts: dict[str, Any]) -> dict[str, Any]:
        """The fluid model's parameters on a packet scenario, from its facts in RCP's names.

        ``facts``: ``alpha``, ``beta`` (the gains), ``C`` (bit/s), ``d0`` (s), ``T`` (the router's
        interval, s), ``eta``, ``N`` (the first segment's flows), ``MTU`` (bits), ``buffer`` (bits).
        The default passes them on: the bundled fluid models take these names. A protocol whose
        fluid model has its own names maps them here (and names its flow count in :attr:`fluid_flows`).
        """
        return facts

    @property
    def sender_code(self) -> int:
        """The sender kind as the simulators take it (``sender=``)."""
        return SENDERS[self.sender]

    @property
    def datapath_code(self) -> int:
        """The protocol code of the protocol's links as the simulators take it."""
        return DATAPATH_CODES[self.datapath]

    def __repr__(self) -> str:
        return (
            f"<{type(self).__name__} {self.name!r}: {self.sender} senders, {self.header_bytes}-byte header, "
            f"{self.datapath} data path>"
        )


def window_service(sim: Any, li: int, ctrl: Any, tr_ns: int) -> tuple[int, dict[str, Any]]:
    """The service step of a controller with real-valued registers (XCP, RCP-AC).

    ``ctrl.service(registers, real registers, interval s)`` returns (next interval s, integer
    writes, real writes); returns (next interval ns, the integer registers read).
    """
    registers = sim.registers(li)
    next_s, writes, xwrites = ctrl.service(registers, sim.xcp_registers(li), tr_ns / NS_PER_S)
    sim.set_registers(li, **writes)
    sim.set_xcp_registers(li, **xwrites)
    return control_interval_ns(next_s * NS_PER_S), registers
