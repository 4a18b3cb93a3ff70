"""Pure-Python twin of ``csrc/rcpac_port.h``: RCP-AC's per-packet data path, the deficit sum on
arrival and the Feedback Controller on departure (rcp-ac.txt eqs. 3-4, eq. 4 as derived in
:mod:`rcpstab.models.rcpac`). Packets carry the XCP header; the arrival/departure frame is
:mod:`rcpstab.packet.routers.xcp.frame_py`'s. Floating-point operations are written in the C order.
"""

from __future__ import annotations

from ...wire.xcp_header import feedback_field, read_i32
from ..rcp.datapath_py import PortRegisters
from ..xcp.frame_py import XcpState, window_arrive, window_depart, write_feedback

__all__ = ["rcpac_arrive", "rcpac_depart"]


def rcpac_sums(x: XcpState, rtt: float, cwnd: int, size: int) -> None:
    """sum_deficit += (R - r_i)^+ * size / (r_i * d), r_i = H_cwnd / H_rtt (bytes/s)."""
    r = cwnd / rtt
    per_interval = r * x.avg_rtt
    if x.rate > r and per_interval > 0:
        x.sum_deficit += (x.rate - r) * size / per_interval


def rcpac_feedback(x: XcpState, packet: bytearray, rtt: float, cwnd: int, size: int) -> None:
    """Eq. 3 above R, derived eq. 4 below it; a smaller feedback already in the header is kept."""
    r = cwnd / rtt
    packets = r * x.avg_rtt / size
    if not packets > 0:
        return
    if x.rate > r:
        fb = (x.rate - r) * (x.xi_ac if x.xi_ac < rtt else rtt) / packets
    else:
        fb = -(r - x.rate) * rtt / packets
    field = feedback_field(fb)
    if field < read_i32(packet, 8):
        write_feedback(packet, field)


def rcpac_arrive(p: PortRegisters, x: XcpState, packet: bytearray, size: int) -> bool:
    """Arrival at an RCP-AC port; True if queued."""
    return window_arrive(p, x, packet, size, rcpac_sums)


def rcpac_depart(p: PortRegisters, x: XcpState, packet: bytearray, size: int) -> None:
    """Departure from an RCP-AC port, in place."""
    window_depart(p, x, packet, size, rcpac_feedback)
