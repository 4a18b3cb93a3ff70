"""The R-TCP sender (thesis 6.1.1) of the Python twin: its entry of :data:`.senders.SENDER_OPS`.

Twin of the ``rtcp_*`` functions of ``csrc/sim.c`` (and of ``take_feedback``, ``tcp_grow``):
change both together. The host logic both simulators share is in :mod:`.rtcp_host_py`. ``sim`` is the :class:`~rcpstab.packet.simulator.sim_py.PySimulator`
(its ``data_size``, ``window_denominator`` and ``rwnd_pkts``), ``f`` one of its flows.
"""

from __future__ import annotations

from typing import Any

from ..routers.rcp.datapath_py import receiver_echo
from .rtcp_host_py import fill_data_header, fill_syn_header, take_rate

__all__ = [
    "rtcp_check",
    "rtcp_fill_data",
    "rtcp_fill_syn",
    "rtcp_on_ack",
    "rtcp_on_acked",
    "rtcp_window",
    "receiver_echo",
    "take_feedback",
    "tcp_grow",
]


def rtcp_check(data_size: int, rwnd_pkts: int) -> str | None:
    """R-TCP's arithmetic takes any parameters the simulator takes."""
    return None


def rtcp_fill_syn(sim: Any, f: Any) -> bytearray:
    return fill_syn_header(f.request)


def rtcp_fill_data(sim: Any, f: Any) -> bytearray:
    return fill_data_header(f.request, f)


def rtcp_window(sim: Any, f: Any) -> int:
    result: int = f.wnd if f.rcp_mode else f.cwnd
    return result


def take_feedback(sim: Any, f: Any, reverse: int) -> None:
    """Rate feedback from the reverse field: valid -> R-TCP window, otherwise TCP-like mode."""
    f.rcp_mode = take_rate(f, reverse, sim.data_size, sim.window_denominator, sim.rwnd_pkts, sim.rate_refresh)


def rtcp_on_ack(sim: Any, f: Any, hdr: bytearray) -> None:
    """The SYN-ACK's or ACK's reverse rate field."""
    take_feedback(sim, f, int.from_bytes(hdr[4:8], "big"))


def tcp_grow(sim: Any, f: Any, newly_acked: int) -> None:
    if f.cwnd < f.ssthresh:
        f.cwnd += newly_acked
    else:
        f.cwnd_acc += newly_acked
        if f.cwnd_acc >= f.cwnd:
            f.cwnd_acc -= f.cwnd
            f.cwnd += 1
    f.cwnd = min(f.cwnd, sim.rwnd_pkts)


def rtcp_on_acked(sim: Any, f: Any, newly: int) -> None:
    """Without a rate from the routers R-TCP grows its window as TCP does."""
    if not f.rcp_mode:
        tcp_grow(sim, f, newly)
