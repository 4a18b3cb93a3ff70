"""The 20-byte XCP congestion header (xcp-katabi.txt Sec. 3.2) as real bytes, network order.

Layout (offsets in bytes)::

    0  cwnd              u32  H_cwnd, the sender's congestion window, bytes
    4  rtt               u32  H_rtt, the sender's RTT estimate, microseconds (0 = none yet)
    8  feedback          i32  H_feedback, 1/1000 byte: the sender's request, lowered by routers
    12 reverse_feedback  i32  H_feedback of the data packet, echoed in the ACK, 1/1000 byte
    16 proto             u8   higher-layer protocol number (6 = TCP)
    17 reserved          3 bytes, 0

Feedback is in thousandths of a byte because a router spreads an interval's feedback over
every packet, and per-packet shares below one byte are common (a whole-byte field would
truncate them to zero). RCP-AC (rcp-ac.txt eqs. 3-4) carries its window feedback in the
same header. The C data path (``csrc/xcp_header.h``) reads and writes the same offsets.
"""

from __future__ import annotations

import math
import struct
from dataclasses import dataclass

from ...errors import InputError
from .rcp_header import PROTO_TCP

XCP_FORMAT = struct.Struct("!IIiiB3x")
XCP_HEADER_LEN = XCP_FORMAT.size
assert XCP_HEADER_LEN == 20

FEEDBACK_MAX = 0x7FFFFFFF
"""The sender's "any increase" request, and the clamp of every feedback field."""
FEEDBACK_SCALE = 1000.0
"""Feedback field units per byte."""


def feedback_field(nbytes: float) -> int:
    """A feedback in bytes as the field holds it: rounded half up, clamped, NaN as 0."""
    v = nbytes * FEEDBACK_SCALE + 0.5
    if v != v:
        return 0
    if v >= FEEDBACK_MAX:
        return FEEDBACK_MAX
    if v <= -FEEDBACK_MAX:
        return -FEEDBACK_MAX
    return math.floor(v)


def read_i32(packet: bytes | bytearray, offset: int) -> int:
    """A signed 32-bit field in network order."""
    return int.from_bytes(packet[offset : offset + 4], "big", signed=True)


def fill(cwnd: int, rtt_us: int, feedback: int, reverse: int, proto: int) -> bytearray:
    """The 20 header bytes, as the sender (or the receiver's echo) writes them."""
    return bytearray(XCP_FORMAT.pack(cwnd, rtt_us, feedback, reverse, proto))


def xcp_receiver_echo(packet: bytes | bytearray) -> bytes:
    """Header of the receiver's ACK (paper Sec. 3.4): reverse field = the data's H_feedback."""
    if len(packet) < XCP_HEADER_LEN:
        raise ValueError(f"packet of {len(packet)} bytes has no XCP header")
    return bytes(fill(0, 0, 0, read_i32(packet, 8), packet[16]))


@dataclass(frozen=True)
class XcpHeader:
    """One XCP header (fields as in the module docstring)."""

    cwnd: int = 0
    rtt: int = 0
    feedback: int = FEEDBACK_MAX
    reverse_feedback: int = 0
    proto: int = PROTO_TCP

    def __post_init__(self) -> None:
        for name, value, low, top in (
            ("cwnd", self.cwnd, 0, 0xFFFFFFFF),
            ("rtt", self.rtt, 0, 0xFFFFFFFF),
            ("feedback", self.feedback, -(2**31), FEEDBACK_MAX),
            ("reverse_feedback", self.reverse_feedback, -(2**31), FEEDBACK_MAX),
            ("proto", self.proto, 0, 0xFF),
        ):
            if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= top:
                raise InputError(f"XCP header field {name}={value!r} is not an integer in {low}..{top}")

    def pack(self) -> bytes:
        """The 20 header bytes."""
        return bytes(fill(self.cwnd, self.rtt, self.feedback, self.reverse_feedback, self.proto))

    @classmethod
    def unpack(cls, data: bytes | bytearray) -> XcpHeader:
        """Parse the first 20 bytes of ``data``; InputError if shorter."""
        if len(data) < XCP_HEADER_LEN:
            raise InputError(f"XCP header of {len(data)} bytes is shorter than {XCP_HEADER_LEN}")
        return cls(*XCP_FORMAT.unpack_from(bytes(data[:XCP_HEADER_LEN])))
