"""The R-TCP sender (thesis 6.1.1) of the Python twin: its entry of :data:`.senders.SENDER_OPS`.

Twin of the ``rtcp_*`` functions of ``csrc/sim.c`` (and of ``take_feedback``, ``tcp_grow``):
change both together. The host logic both simulators share is in :mod:`.rtcp_host_py`. ``sim`` is the :class:`~rcpstab.packet.simulator.sim_py.PySimulator`
(its ``data_size``, ``window_denominator`` and ``rwnd_pkts``), ``f`` one of its flows.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from ..routers.rcp.datapath_py import receiver_echo
from .rtcp_host_py import fill_data_header, fill_syn_header, take_rate

if TYPE_CHECKING:
    from ..simulator.sim_py import PySimulator, _Flow

__all__ = ["rtcp_check", "rtcp_fill_data", "rtcp_fill_syn", "rtcp_on_ack", "rtcp_on_acked",
           "rtcp_window", "receiver_echo", "take_feedback", "tcp_grow"]


def rtcp_check(data_size: int, rwnd_pkts: int) -> str | None:
    """R-TCP's arithmetic takes any parameters the simulator takes."""
    return None


def rtcp_fill_syn(sim: PySimulator, f: _Flow) -> bytearray:
    return fill_syn_header(f.request)


def rtcp_fill_data(sim: PySimulator, f: _Flow) -> bytearray:
    return fill_data_header(f.request, f)


def rtcp_window(sim: PySimulator, f: _Flow) -> int:
    return f.wnd if f.rcp_mode else f.cwnd


def take_feedback(sim: PySimulator, f: _Flow, reverse: int) -> None:
    """Rate feedback from the reverse field: valid -> R-TCP window, otherwise TCP-like mode."""
    f.rcp_mode = take_rate(f, reverse, sim.data_size, sim.window_denominator, sim.rwnd_pkts, sim.rate_refresh)


def rtcp_on_ack(sim: PySimulator, f: _Flow, hdr: bytearray) -> None:
    """The SYN-ACK's or ACK's reverse rate field."""
    take_feedback(sim, f, int.from_bytes(hdr[4:8], "big"))


def tcp_grow(sim: PySimulator, f: _Flow, newly_acked: int) -> None:
    if f.cwnd < f.ssthresh:
        f.cwnd += newly_acked
    else:
        f.cwnd_acc += newly_acked
        if f.cwnd_acc >= f.cwnd:
            f.cwnd_acc -= f.cwnd
            f.cwnd += 1
    f.cwnd = min(f.cwnd, sim.rwnd_pkts)


def rtcp_on_acked(sim: PySimulator, f: _Flow, newly: int) -> None:
    """Without a rate from the routers R-TCP grows its window as TCP does."""
    if not f.rcp_mode:
        tcp_grow(sim, f, newly)
