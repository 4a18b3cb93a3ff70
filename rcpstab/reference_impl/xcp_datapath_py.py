"""Pure-Python twin of ``csrc/xcp_port.h``: the XCP router's per-packet blocks
(xcp-katabi.txt App. A) and RCP-AC's Feedback Controller (rcp-ac.txt eqs. 3-4 with eq. 4
as derived in :mod:`rcpstab.models.rcpac`). Floating-point operations are written in the
C order so both give bit-identical registers and headers.
"""
from __future__ import annotations

import operator
from dataclasses import asdict, dataclass

from .datapath_py import U64_MASK, PortRegisters, check_size, port_admit, port_release
from .datapath_py import registers_dict, set_registers
from .xcp_header import FEEDBACK_SCALE, XCP_HEADER_LEN, feedback_field, read_i32

PROTO_PLAIN, PROTO_RCP, PROTO_XCP, PROTO_RCPAC = range(4)
PROTOCOLS = {"xcp": PROTO_XCP, "rcpac": PROTO_RCPAC}


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


def set_xcp_registers(x: XcpState, values: dict) -> None:
    """Write real-valued registers by name (the C module's checks)."""
    for name, value in values.items():
        if not hasattr(x, name):
            raise ValueError(f"unknown register {name}")
        setattr(x, name, float(value))


def _header_fields(packet) -> tuple[int, int]:
    return int.from_bytes(packet[0:4], "big"), int.from_bytes(packet[4:8], "big")


def xcp_arrive(proto: int, p: PortRegisters, x: XcpState, packet, size: int) -> bool:
    """Arrival: estimator sums, App. F counters (rtt_sum in us), drop-tail admission."""
    if len(packet) < XCP_HEADER_LEN or size < XCP_HEADER_LEN:
        p.malformed = (p.malformed + 1) & U64_MASK
        return port_admit(p, size)
    p.input_bytes = (p.input_bytes + size) & U64_MASK
    if float(p.queue_bytes) < x.min_queue:
        x.min_queue = float(p.queue_bytes)
    cwnd, rtt_us = _header_fields(packet)
    if cwnd > 0 and rtt_us > 0:
        rtt = rtt_us / 1e6
        if rtt_us // 1000 < p.max_rtt:  # = rtt_us < 1000 * max_rtt, as C computes it
            p.rtt_sum = (p.rtt_sum + rtt_us) & U64_MASK
            p.rtt_count = (p.rtt_count + 1) & U64_MASK
        if proto == PROTO_XCP:
            w = rtt * size / cwnd
            x.sum_rtt_by_cwnd += w
            x.sum_rtt_square_by_cwnd += rtt * w
        else:
            r = cwnd / rtt
            per_interval = r * x.avg_rtt
            if x.rate > r and per_interval > 0:
                x.sum_deficit += (x.rate - r) * size / per_interval
    return port_admit(p, size)


def _write_feedback(packet: bytearray, field: int) -> None:
    packet[8:12] = field.to_bytes(4, "big", signed=True)


def _xcp_feedback(x: XcpState, packet: bytearray, rtt: float, cwnd: int, size: int) -> None:
    h = read_i32(packet, 8) / FEEDBACK_SCALE
    pos = x.xi_p * rtt * rtt * size / cwnd
    neg = x.xi_n * rtt * size
    fb = pos - neg
    if h >= fb:
        _write_feedback(packet, feedback_field(fb))
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


def _rcpac_feedback(x: XcpState, packet: bytearray, rtt: float, cwnd: int, size: int) -> None:
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
        _write_feedback(packet, field)


def xcp_depart(proto: int, p: PortRegisters, x: XcpState, packet: bytearray, size: int) -> None:
    """Departure, in place: release the queue and write H_feedback."""
    port_release(p, size)
    if len(packet) < XCP_HEADER_LEN or size < XCP_HEADER_LEN:
        return
    cwnd, rtt_us = _header_fields(packet)
    if cwnd == 0 or rtt_us == 0:
        if read_i32(packet, 8) > 0:
            _write_feedback(packet, 0)
        return
    if proto == PROTO_XCP:
        _xcp_feedback(x, packet, rtt_us / 1e6, cwnd, size)
    else:
        _rcpac_feedback(x, packet, rtt_us / 1e6, cwnd, size)


class PyXcpDatapath:
    """Output ports of an XCP or RCP-AC router, in Python; twin of the C ``XcpDatapath``."""

    def __init__(self, n_ports: int, protocol: str) -> None:
        n_ports = operator.index(n_ports)
        if not 1 <= n_ports <= 65536:
            raise ValueError(f"n_ports={n_ports} is outside 1..65536")
        if protocol not in PROTOCOLS:
            raise ValueError(f"protocol={protocol} is not xcp or rcpac")
        self._proto = PROTOCOLS[protocol]
        self._ports = [PortRegisters() for _ in range(n_ports)]
        self._state = [XcpState() for _ in range(n_ports)]

    def _check(self, i: int) -> int:
        if not 0 <= i < len(self._ports):
            raise IndexError(f"port {i} is outside 0..{len(self._ports) - 1}")
        return i

    def arrive(self, port: int, packet: bytes, size: int) -> bool:
        """Estimator sums, counters and drop-tail admission; True if queued."""
        i = self._check(port)
        return xcp_arrive(self._proto, self._ports[i], self._state[i], packet, check_size(size))

    def depart(self, port: int, packet: bytes, size: int) -> bytes:
        """The packet with its H_feedback computed."""
        i = self._check(port)
        size = check_size(size)
        out = bytearray(packet)
        xcp_depart(self._proto, self._ports[i], self._state[i], out, size)
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
