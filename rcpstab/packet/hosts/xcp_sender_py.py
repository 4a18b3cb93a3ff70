"""The XCP sender (xcp-katabi.txt Sec. 3.3) of the Python twin: its entry of :data:`.senders.SENDER_OPS`.

Twin of the ``xcp_*`` sender functions of ``csrc/sim.c``: change both together. RCP-AC's hosts
are XCP senders too. The window is kept in 1/1000 byte (the feedback field's unit).
"""

from __future__ import annotations

from typing import Any

from ..wire.rcp_header import PROTO_TCP
from ..wire.xcp_header import FEEDBACK_MAX, read_i32, xcp_receiver_echo
from ..wire.xcp_header import fill as xcp_fill

__all__ = [
    "XCP_UNITS_PER_BYTE",
    "xcp_check",
    "xcp_cwnd_field",
    "xcp_fill_data",
    "xcp_fill_syn",
    "xcp_on_ack",
    "xcp_on_acked",
    "xcp_on_synack",
    "xcp_receiver_echo",
    "xcp_take_feedback",
    "xcp_window",
]

NS_PER_US = 1_000
XCP_RTT_FIELD_MAX = 0xFFFFFFFE
XCP_UNITS_PER_BYTE = 1000  # = wire.xcp_header.FEEDBACK_SCALE


def xcp_check(data_size: int, rwnd_pkts: int) -> str | None:
    """Keeps the window arithmetic (1/1000 byte units) far from int64 overflow in C."""
    if rwnd_pkts > 1 << 24 or data_size > 1 << 16:
        return "XCP senders need rwnd_pkts <= 2**24 and data_size <= 2**16"
    return None


def xcp_cwnd_field(f: Any) -> int:
    result: int = min(f.xcp_cwnd // XCP_UNITS_PER_BYTE, 0xFFFFFFFF)
    return result


def xcp_fill_syn(sim: Any, f: Any) -> bytearray:
    """An XCP SYN has H_rtt = 0: "no estimate yet"."""
    return xcp_fill(xcp_cwnd_field(f), 0, FEEDBACK_MAX, 0, PROTO_TCP)


def xcp_fill_data(sim: Any, f: Any) -> bytearray:
    """An unlimited sender asks for any increase (paper Sec. 3.3); routers lower it."""
    rtt_us = min(f.srtt_ns // NS_PER_US, XCP_RTT_FIELD_MAX)
    return xcp_fill(xcp_cwnd_field(f), rtt_us, FEEDBACK_MAX, 0, PROTO_TCP)


def xcp_window(sim: Any, f: Any) -> int:
    """Whole packets the byte window allows, at least one."""
    window: int = max(f.xcp_cwnd // (sim.data_size * XCP_UNITS_PER_BYTE), 1)
    return window


def xcp_take_feedback(sim: Any, f: Any, feedback: int) -> None:
    """cwnd = max(cwnd + H_feedback, s), at most the receiver's window."""
    floor_cwnd = sim.data_size * XCP_UNITS_PER_BYTE
    f.xcp_cwnd = min(max(f.xcp_cwnd + feedback, floor_cwnd), sim.rwnd_pkts * floor_cwnd)


def xcp_on_synack(sim: Any, f: Any, hdr: bytearray) -> None:
    """The SYN-ACK's feedback: an XCP sender's first window is its initial one."""


def xcp_on_ack(sim: Any, f: Any, hdr: bytearray) -> None:
    """The ACK's reverse feedback field."""
    xcp_take_feedback(sim, f, read_i32(hdr, 12))


def xcp_on_acked(sim: Any, f: Any, newly: int) -> None:
    """An XCP sender's window is the routers' business."""
