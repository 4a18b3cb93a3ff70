"""The sender kinds of the simulator's end hosts, by name: the code the C simulator takes and the header each writes.

``"rtcp"``: R-TCP senders (thesis Ch. 6), paced at the rate in the returned RCP header.
``"xcp"``: window senders taking the XCP header's feedback (xcp-katabi.txt Sec. 3.1), which
RCP-AC's hosts are too. The codes are those of ``csrc/sim.h`` (``SENDER_RTCP``, ``SENDER_XCP``).
"""
from __future__ import annotations

from ..wire.rcp_header import HEADER_LEN
from ..wire.xcp_header import XCP_HEADER_LEN

__all__ = ["SENDER_HEADER_BYTES", "SENDERS", "SENDER_RTCP", "SENDER_XCP"]

SENDER_RTCP, SENDER_XCP = range(2)
SENDERS = {"rtcp": SENDER_RTCP, "xcp": SENDER_XCP}
SENDER_HEADER_BYTES = {"rtcp": HEADER_LEN, "xcp": XCP_HEADER_LEN}
