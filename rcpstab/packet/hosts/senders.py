"""The sender kinds of the simulator's end hosts, by name and code: twin of ``SENDER_OPS`` in ``csrc/sim.c``.

``"rtcp"``: R-TCP senders (thesis Ch. 6), paced at the rate in the returned RCP header.
``"xcp"``: window senders taking the XCP header's feedback (xcp-katabi.txt Sec. 3.1), which
RCP-AC's hosts are too.

Each entry of :data:`SENDER_OPS` is the Python twin's table of what a host of that kind does
(the C simulator's ``sender_ops``, same fields, same codes, same order: the C module's
``_datapath.SENDERS``). A simulator chooses its entry once; its hosts call it without asking
which kind they run. A new sender kind: one entry here, with its functions in a file of its
own, and one entry of ``SENDER_OPS`` in ``csrc/sim.c``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

from ..wire.rcp_header import HEADER_LEN
from ..wire.xcp_header import XCP_HEADER_LEN
from .rtcp_sender_py import receiver_echo, rtcp_check, rtcp_fill_data, rtcp_fill_syn, rtcp_on_ack, rtcp_on_acked, rtcp_window
from .xcp_sender_py import (
    xcp_check,
    xcp_fill_data,
    xcp_fill_syn,
    xcp_on_ack,
    xcp_on_acked,
    xcp_on_synack,
    xcp_receiver_echo,
    xcp_window,
)

__all__ = ["SENDER_HEADER_BYTES", "SENDER_OPS", "SENDERS", "SENDER_RTCP", "SENDER_XCP", "SenderOps"]


class SenderOps(NamedTuple):
    """What the hosts of one sender kind do; ``sim`` is the simulator, ``f`` a flow, ``hdr`` header bytes."""

    name: str
    header_bytes: int
    """Header bytes in every packet the kind sends."""
    check: Callable[[int, int], str | None]
    """``check(data_size, rwnd_pkts)``: None, or why the kind refuses them."""
    fill_syn: Callable[..., Any]
    """``fill_syn(sim, f) -> bytearray``: a SYN's header."""
    fill_data: Callable[..., Any]
    """``fill_data(sim, f) -> bytearray``: a data packet's header."""
    window: Callable[..., Any]
    """``window(sim, f) -> int``: packets the sender may have outstanding."""
    on_synack: Callable[..., Any]
    """``on_synack(sim, f, hdr)``: the feedback of a SYN-ACK."""
    on_ack: Callable[..., Any]
    """``on_ack(sim, f, hdr)``: the feedback of an ACK."""
    on_acked: Callable[..., Any]
    """``on_acked(sim, f, newly)``: an ACK acknowledged ``newly`` more packets."""
    echo: Callable[..., Any]
    """``echo(data header) -> reply header``: the receiver's rewrite."""


SENDER_OPS: tuple[SenderOps, ...] = (
    SenderOps(
        "rtcp",
        HEADER_LEN,
        rtcp_check,
        rtcp_fill_syn,
        rtcp_fill_data,
        rtcp_window,
        rtcp_on_ack,
        rtcp_on_ack,
        rtcp_on_acked,
        receiver_echo,
    ),
    SenderOps(
        "xcp",
        XCP_HEADER_LEN,
        xcp_check,
        xcp_fill_syn,
        xcp_fill_data,
        xcp_window,
        xcp_on_synack,
        xcp_on_ack,
        xcp_on_acked,
        xcp_receiver_echo,
    ),
)
SENDERS = {ops.name: code for code, ops in enumerate(SENDER_OPS)}
SENDER_RTCP, SENDER_XCP = SENDERS["rtcp"], SENDERS["xcp"]
SENDER_HEADER_BYTES = {ops.name: ops.header_bytes for ops in SENDER_OPS}
