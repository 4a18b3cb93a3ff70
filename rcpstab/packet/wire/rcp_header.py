"""The 12-byte RCP header of thesis Fig. 6.2 as real bytes in network byte order.

Layout (offsets in bytes)::

    0  rate           u32  bottleneck rate, bytes/ms (0 or all ones = unspecified)
    4  reverse_rate   u32  reverse-path bottleneck rate echoed by the receiver, bytes/ms
    8  rtt            u16  sender's RTT estimate, ms (all ones = unknown)
    10 proto          u8   higher-layer protocol number (6 = TCP)
    11 reserved       u8   always 0 on send; the thesis' four fields add to 11 bytes

The C data path (``csrc/rcp_header.h``) reads and writes the same offsets.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass

from ...errors import InputError

HEADER_FORMAT = struct.Struct("!IIHBx")
HEADER_LEN = HEADER_FORMAT.size
assert HEADER_LEN == 12

U32_MAX = 0xFFFFFFFF
U16_MAX = 0xFFFF
RATE_ALL_ONES = U32_MAX
RTT_UNKNOWN = U16_MAX
PROTO_TCP = 6


def rate_is_unspecified(rate: int) -> bool:
    """Whether a rate field means "no request / no feedback".

    The sender writes 0 for "as fast as the network allows" (thesis Sec. 6.1.1) and
    App. F treats all ones as unspecified too; App. F line 22's ``>`` alone would
    never overwrite a 0, so the data path checks both explicitly.
    """
    return rate == 0 or rate == RATE_ALL_ONES


@dataclass(frozen=True)
class RcpHeader:
    """One RCP header.

    Parameters
    ----------
    rate : int
        Bottleneck rate field, bytes/ms (u32).
    reverse_rate : int
        Reverse bottleneck rate field, bytes/ms (u32).
    rtt : int
        RTT estimate, ms (u16); ``RTT_UNKNOWN`` (all ones) when the sender has none.
    proto : int
        Higher-layer protocol number (u8).
    """

    rate: int = 0
    reverse_rate: int = 0
    rtt: int = RTT_UNKNOWN
    proto: int = PROTO_TCP

    def __post_init__(self) -> None:
        for name, value, top in (
            ("rate", self.rate, U32_MAX),
            ("reverse_rate", self.reverse_rate, U32_MAX),
            ("rtt", self.rtt, U16_MAX),
            ("proto", self.proto, 0xFF),
        ):
            if not isinstance(value, int) or isinstance(value, bool):
                raise InputError(f"RCP header field {name}={value!r} is not an integer")
            if not 0 <= value <= top:
                raise InputError(f"RCP header field {name}={value} is outside 0..{top}")

    def pack(self) -> bytes:
        """Return the 12 header bytes in network byte order."""
        return HEADER_FORMAT.pack(self.rate, self.reverse_rate, self.rtt, self.proto)

    @classmethod
    def unpack(cls, data: bytes | bytearray | memoryview) -> RcpHeader:
        """Parse the first 12 bytes of ``data``.

        Raises
        ------
        InputError
            If ``data`` is shorter than 12 bytes or its reserved byte is not zero.
        """
        if len(data) < HEADER_LEN:
            raise InputError(f"RCP header of {len(data)} bytes is shorter than {HEADER_LEN}")
        if data[HEADER_LEN - 1] != 0:
            raise InputError(f"RCP header reserved byte is {data[HEADER_LEN - 1]}, not 0")
        rate, reverse_rate, rtt, proto = HEADER_FORMAT.unpack_from(bytes(data[:HEADER_LEN]))
        return cls(rate, reverse_rate, rtt, proto)
