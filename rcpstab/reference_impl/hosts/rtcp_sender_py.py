"""The R-TCP sender (thesis 6.1.1) of the Python twin: its entry of :data:`.senders.SENDER_OPS`.

Twin of the ``rtcp_*`` functions of ``csrc/sim.c`` (and of ``take_feedback``, ``tcp_grow``):
change both together. ``sim`` is the :class:`~rcpstab.reference_impl.simulator.sim_py.PySimulator`
(its ``data_size``, ``window_denominator`` and ``rwnd_pkts``), ``f`` one of its flows.
"""
from __future__ import annotations

from ..routers.rcp.datapath_py import receiver_echo
from ..wire.rcp_header import PROTO_TCP, RTT_UNKNOWN, rate_is_unspecified

__all__ = ["fill_header", "rtcp_check", "rtcp_fill_data", "rtcp_fill_syn", "rtcp_on_ack", "rtcp_on_acked",
           "rtcp_window", "receiver_echo", "take_feedback", "tcp_grow"]

NS_PER_MS = 1_000_000
RTT_FIELD_MAX = 0xFFFE


def fill_header(rate: int, reverse: int, rtt: int, proto: int) -> bytearray:
    """Sender side: the 12 header bytes with all four fields written."""
    return bytearray(
        rate.to_bytes(4, "big") + reverse.to_bytes(4, "big") + rtt.to_bytes(2, "big") + bytes([proto, 0])
    )


def rtcp_check(data_size: int, rwnd_pkts: int) -> str | None:
    """R-TCP's arithmetic takes any parameters the simulator takes."""
    return None


def rtcp_fill_syn(sim, f) -> bytearray:
    """The SYN carries the desired rate; its RTT is unknown (all ones), so routers do not average in a zero RTT."""
    return fill_header(f.request, 0, RTT_UNKNOWN, PROTO_TCP)


def rtcp_fill_data(sim, f) -> bytearray:
    return fill_header(f.request, 0, min(f.srtt_ns // NS_PER_MS, RTT_FIELD_MAX), PROTO_TCP)


def rtcp_window(sim, f) -> int:
    return f.wnd if f.rcp_mode else f.cwnd


def take_feedback(sim, f, reverse: int) -> None:
    """Rate feedback from the reverse field: valid -> R-TCP window, otherwise TCP-like mode."""
    if rate_is_unspecified(reverse):
        f.rcp_mode = 0
        return
    f.rcp_mode = 1
    f.rate = reverse
    if sim.rate_refresh and f.last_send_ns >= 0:  # re-pace the pending send at the new rate (ns-2's rate_change)
        f.next_send_ns = f.last_send_ns + sim._pace_ns(f)
    denom = NS_PER_MS * sim.window_denominator
    wnd = (reverse * f.srtt_ns + denom - 1) // denom
    f.wnd = 1 if wnd < 1 else min(wnd, sim.rwnd_pkts)


def rtcp_on_ack(sim, f, hdr) -> None:
    """The SYN-ACK's or ACK's reverse rate field."""
    take_feedback(sim, f, int.from_bytes(hdr[4:8], "big"))


def tcp_grow(sim, f, newly_acked: int) -> None:
    if f.cwnd < f.ssthresh:
        f.cwnd += newly_acked
    else:
        f.cwnd_acc += newly_acked
        if f.cwnd_acc >= f.cwnd:
            f.cwnd_acc -= f.cwnd
            f.cwnd += 1
    f.cwnd = min(f.cwnd, sim.rwnd_pkts)


def rtcp_on_acked(sim, f, newly: int) -> None:
    """Without a rate from the routers R-TCP grows its window as TCP does."""
    if not f.rcp_mode:
        tcp_grow(sim, f, newly)
