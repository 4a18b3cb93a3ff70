"""Pure-Python twin of the frame half of ``csrc/xcp_port.h``: the real-valued port registers
(``xcp_state``) and the arrival/departure steps every port reading the XCP header shares.

XCP (:mod:`rcpstab.packet.routers.xcp.datapath_py`) and RCP-AC (:mod:`rcpstab.packet.routers.rcpac.datapath_py`) differ only in their
estimator sums on arrival and their feedback on departure, which the frame calls. Floating
point operations are written in the C order so both give bit-identical registers and headers.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ...wire.xcp_header import XCP_HEADER_LEN, read_i32
from ..rcp.datapath_py import U64_MASK, PortRegisters, port_admit, port_release

__all__ = ["XcpState", "set_xcp_registers", "window_arrive", "window_depart", "write_feedback"]

# sums(x, rtt s, cwnd bytes, size bytes); feedback(x, packet, rtt s, cwnd bytes, size bytes)
Sums = Callable[["XcpState", float, int, int], None]
Feedback = Callable[["XcpState", bytearray, float, int, int], None]


@dataclass
class XcpState:
    """Real-valued registers of an XCP / RCP-AC port (see ``xcp_state`` in ``csrc/xcp_port.h``)."""

    sum_rtt_by_cwnd: float = 0.0
    sum_rtt_square_by_cwnd: float = 0.0
    sum_deficit: float = 0.0
    min_queue: float = 0.0
    xi_p: float = 0.0
    xi_n: float = 0.0
    residue_pos: float = 0.0
    residue_neg: float = 0.0
    rate: float = 0.0
    avg_rtt: float = 0.0
    xi_ac: float = 0.0


def set_xcp_registers(x: XcpState, values: dict[str, Any]) -> None:
    """Write real-valued registers by name (the C module's checks)."""
    for name, value in values.items():
        if not hasattr(x, name):
            raise ValueError(f"unknown register {name}")
        setattr(x, name, float(value))


def header_fields(packet: bytearray) -> tuple[int, int]:
    """(H_cwnd bytes, H_rtt microseconds)."""
    return int.from_bytes(packet[0:4], "big"), int.from_bytes(packet[4:8], "big")


def write_feedback(packet: bytearray, field: int) -> None:
    """Write the H_feedback field (1/1000 byte)."""
    packet[8:12] = field.to_bytes(4, "big", signed=True)


def window_arrive(p: PortRegisters, x: XcpState, packet: bytearray, size: int, sums: Sums) -> bool:
    """Arrival: App. F counters (rtt_sum in us), smallest queue, ``sums``, drop-tail admission."""
    if len(packet) < XCP_HEADER_LEN or size < XCP_HEADER_LEN:
        p.malformed = (p.malformed + 1) & U64_MASK
        return port_admit(p, size)
    p.input_bytes = (p.input_bytes + size) & U64_MASK
    if float(p.queue_bytes) < x.min_queue:
        x.min_queue = float(p.queue_bytes)
    cwnd, rtt_us = header_fields(packet)
    if cwnd > 0 and rtt_us > 0:
        rtt = rtt_us / 1e6
        if rtt_us // 1000 < p.max_rtt:  # = rtt_us < 1000 * max_rtt, as C computes it
            p.rtt_sum = (p.rtt_sum + rtt_us) & U64_MASK
            p.rtt_count = (p.rtt_count + 1) & U64_MASK
        sums(x, rtt, cwnd, size)
    return port_admit(p, size)


def window_depart(p: PortRegisters, x: XcpState, packet: bytearray, size: int, feedback: Feedback) -> None:
    """Departure, in place: release the queue and let ``feedback`` write H_feedback.

    A packet without a window or an RTT gets no positive feedback (H_rtt = 0: no estimate yet).
    """
    port_release(p, size)
    if len(packet) < XCP_HEADER_LEN or size < XCP_HEADER_LEN:
        return
    cwnd, rtt_us = header_fields(packet)
    if cwnd == 0 or rtt_us == 0:
        if read_i32(packet, 8) > 0:
            write_feedback(packet, 0)
        return
    feedback(x, packet, rtt_us / 1e6, cwnd, size)
