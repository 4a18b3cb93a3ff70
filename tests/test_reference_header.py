"""RCP header of thesis Fig. 6.2: 12 bytes, network byte order, validated fields."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rcpstab.errors import InputError
from rcpstab.packet.wire.rcp_header import HEADER_LEN, RTT_UNKNOWN, RcpHeader, rate_is_unspecified

headers = st.builds(
    RcpHeader,
    rate=st.integers(0, 2**32 - 1),
    reverse_rate=st.integers(0, 2**32 - 1),
    rtt=st.integers(0, 2**16 - 1),
    proto=st.integers(0, 255),
)


def test_layout_is_network_byte_order_with_one_reserved_byte():
    raw = RcpHeader(rate=0x01020304, reverse_rate=0x0A0B0C0D, rtt=0x1234, proto=6).pack()
    assert HEADER_LEN == 12
    assert raw == bytes([1, 2, 3, 4, 0x0A, 0x0B, 0x0C, 0x0D, 0x12, 0x34, 6, 0])


@given(headers)
def test_pack_unpack_round_trip(header):
    raw = header.pack()
    assert len(raw) == 12
    assert RcpHeader.unpack(raw) == header


@given(headers, st.binary(max_size=40))
def test_unpack_reads_only_the_first_12_bytes(header, payload):
    assert RcpHeader.unpack(header.pack() + payload) == header


def test_default_header_has_unknown_rtt():
    assert RcpHeader().rtt == RTT_UNKNOWN == 0xFFFF


@pytest.mark.parametrize(
    "fields",
    [dict(rate=-1), dict(rate=2**32), dict(reverse_rate=2**32), dict(rtt=2**16), dict(proto=256), dict(rtt=1.5)],
)
def test_out_of_range_fields_are_rejected(fields):
    with pytest.raises(InputError, match=next(iter(fields))):
        RcpHeader(**fields)


def test_short_buffer_and_nonzero_reserved_byte_are_rejected():
    with pytest.raises(InputError, match="11 bytes"):
        RcpHeader.unpack(bytes(11))
    with pytest.raises(InputError, match="reserved"):
        RcpHeader.unpack(bytes(11) + b"\x01")


def test_zero_and_all_ones_rates_are_unspecified():
    assert rate_is_unspecified(0) and rate_is_unspecified(0xFFFFFFFF)
    assert not rate_is_unspecified(1) and not rate_is_unspecified(0xFFFFFFFE)
