"""The per-packet data paths a port can run, by protocol code: twin of ``csrc/port_ops.h``.

Each entry is (name, arrive, depart) with ``arrive(port, state, packet, size) -> bool`` (True if
queued) and ``depart(port, state, packet, size)`` (in place). A link chooses its entry once,
from its protocol code; the per-packet path calls it without asking which protocol it serves.
The codes and names are the C module's ``_datapath.DATAPATHS``, in the same order.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

from .rcp.datapath_py import PortRegisters, dp_arrive, dp_depart, port_admit, port_release
from .rcpac.datapath_py import rcpac_arrive, rcpac_depart
from .xcp.datapath_py import xcp_arrive, xcp_depart
from .xcp.frame_py import XcpState

__all__ = ["DATAPATH_CODES", "PORT_OPS", "PortOps"]


class PortOps(NamedTuple):
    """One data path: its name and its arrival and departure steps."""

    name: str
    arrive: Callable[[PortRegisters, XcpState, bytearray, int], bool]
    depart: Callable[[PortRegisters, XcpState, bytearray, int], None]


def _plain_arrive(p: PortRegisters, x: XcpState, packet: bytearray, size: int) -> bool:
    return port_admit(p, size)


def _plain_depart(p: PortRegisters, x: XcpState, packet: bytearray, size: int) -> None:
    port_release(p, size)


def _rcp_arrive(p: PortRegisters, x: XcpState, packet: bytearray, size: int) -> bool:
    return dp_arrive(p, packet, size)


def _rcp_depart(p: PortRegisters, x: XcpState, packet: bytearray, size: int) -> None:
    dp_depart(p, packet, size)


PORT_OPS: tuple[PortOps, ...] = (
    PortOps("plain", _plain_arrive, _plain_depart),  # drop-tail only: ACK links
    PortOps("rcp", _rcp_arrive, _rcp_depart),  # App. F lines 18-23
    PortOps("xcp", xcp_arrive, xcp_depart),  # xcp-katabi.txt App. A
    PortOps("rcpac", rcpac_arrive, rcpac_depart),  # rcp-ac.txt eqs. 3-4
)
DATAPATH_CODES = {ops.name: code for code, ops in enumerate(PORT_OPS)}
