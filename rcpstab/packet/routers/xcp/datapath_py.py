"""Pure-Python twin of ``csrc/xcp_port.h``: the XCP router's per-packet blocks
(xcp-katabi.txt App. A), and :class:`PyXcpDatapath`, stand-alone XCP or RCP-AC ports (twin of
the C ``XcpDatapath``). The shared arrival/departure frame is :mod:`rcpstab.packet.routers.xcp.frame_py`; RCP-AC's
own blocks are :mod:`rcpstab.packet.routers.rcpac.datapath_py`. Floating-point operations are written in the C
order so both give bit-identical registers and headers.
"""

from __future__ import annotations

from dataclasses import asdict

from ....runtime.validation import check_simulator_integer
from ...wire.xcp_header import FEEDBACK_SCALE, feedback_field, read_i32
from ..rcp.datapath_py import PortRegisters, check_size, registers_dict, set_registers
from ..rcpac.datapath_py import rcpac_arrive, rcpac_depart
from .frame_py import XcpState, set_xcp_registers, window_arrive, window_depart, write_feedback

__all__ = ["PyXcpDatapath", "XcpState", "set_xcp_registers", "xcp_arrive", "xcp_depart"]


def xcp_sums(x: XcpState, rtt: float, cwnd: int, size: int) -> None:
    """App. A's arrival block: the cwnd-weighted RTT sums."""
    w = rtt * size / cwnd
    x.sum_rtt_by_cwnd += w
    x.sum_rtt_square_by_cwnd += rtt * w


def xcp_feedback(x: XcpState, packet: bytearray, rtt: float, cwnd: int, size: int) -> None:
    """App. A's departure block, literally, feedback in bytes."""
    h = read_i32(packet, 8) / FEEDBACK_SCALE
    pos = x.xi_p * rtt * rtt * size / cwnd
    neg = x.xi_n * rtt * size
    fb = pos - neg
    if h >= fb:
        write_feedback(packet, feedback_field(fb))
        x.residue_pos -= pos / rtt
        x.residue_neg -= neg / rtt
    else:
        if h >= 0:
            x.residue_pos -= h / rtt
            x.residue_neg -= (fb - h) / rtt
        else:
            x.residue_neg += h / rtt
        if fb >= 0:
            x.residue_neg -= fb / rtt
    if x.residue_pos <= 0:
        x.xi_p = 0.0
    if x.residue_neg <= 0:
        x.xi_n = 0.0


def xcp_arrive(p: PortRegisters, x: XcpState, packet: bytearray, size: int) -> bool:
    """Arrival at an XCP port: estimator sums, counters, drop-tail admission; True if queued."""
    return window_arrive(p, x, packet, size, xcp_sums)


def xcp_depart(p: PortRegisters, x: XcpState, packet: bytearray, size: int) -> None:
    """Departure from an XCP port, in place: release the queue and write H_feedback."""
    window_depart(p, x, packet, size, xcp_feedback)


# The data paths an XcpDatapath runs (C: port_ops_by_name on these two names).
WINDOW_DATAPATHS = {"xcp": (xcp_arrive, xcp_depart), "rcpac": (rcpac_arrive, rcpac_depart)}


class PyXcpDatapath:
    """Output ports of an XCP or RCP-AC router, in Python; twin of the C ``XcpDatapath``."""

    def __init__(self, n_ports: int, protocol: str) -> None:
        n_ports = check_simulator_integer("n_ports", n_ports)
        if protocol not in WINDOW_DATAPATHS:
            raise ValueError(f"protocol={protocol} is not xcp or rcpac")
        self._arrive, self._depart = WINDOW_DATAPATHS[protocol]
        self._ports = [PortRegisters() for _ in range(n_ports)]
        self._state = [XcpState() for _ in range(n_ports)]

    def _check(self, i: int) -> int:
        if not 0 <= i < len(self._ports):
            raise IndexError(f"port {i} is outside 0..{len(self._ports) - 1}")
        return i

    def arrive(self, port: int, packet: bytearray, size: int) -> bool:
        """Estimator sums, counters and drop-tail admission; True if queued."""
        i = self._check(port)
        return self._arrive(self._ports[i], self._state[i], packet, check_size(size))

    def depart(self, port: int, packet: bytearray, size: int) -> bytes:
        """The packet with its H_feedback computed."""
        i = self._check(port)
        size = check_size(size)
        out = bytearray(packet)
        self._depart(self._ports[i], self._state[i], out, size)
        return bytes(out)

    def registers(self, port: int) -> dict[str, int]:
        """Integer registers by name."""
        return registers_dict(self._ports[self._check(port)])

    def set_registers(self, port: int, **values: int) -> None:
        """Write integer registers by name."""
        set_registers(self._ports[self._check(port)], values)

    def xcp_registers(self, port: int) -> dict[str, float]:
        """Real-valued registers by name."""
        return asdict(self._state[self._check(port)])

    def set_xcp_registers(self, port: int, **values: float) -> None:
        """Write real-valued registers by name."""
        set_xcp_registers(self._state[self._check(port)], values)
