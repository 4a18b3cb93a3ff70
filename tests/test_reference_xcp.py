"""XCP router and sender: C/Python twins, fuzzing, and the XCP paper's convergence experiment (Fig. 10)."""

import math

import numpy as np
import pytest
from conftest import examples
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from rcpstab.cosim.packet_vs_fluid import cosimulate
from rcpstab.errors import InputError
from rcpstab.packet import _datapath
from rcpstab.packet.routers.xcp.datapath_py import PyXcpDatapath
from rcpstab.packet.simulator.run import run_scenario
from rcpstab.packet.simulator.scenarios import Scenario
from rcpstab.packet.wire.xcp_header import FEEDBACK_MAX, XcpHeader, xcp_receiver_echo

N_PORTS = 2
PROTOCOLS = ["xcp", "rcpac"]

headers = st.builds(
    lambda cwnd, rtt, fb, tail: XcpHeader(cwnd=cwnd, rtt=rtt, feedback=fb).pack() + tail,
    cwnd=st.sampled_from([0, 1, 1500, 3000, 2**32 - 1]) | st.integers(0, 2**32 - 1),
    rtt=st.sampled_from([0, 1, 4000, 40_000, 20_000_000, 2**32 - 1]) | st.integers(0, 2**32 - 1),
    fb=st.sampled_from([-(2**31), -1, 0, 1, FEEDBACK_MAX]) | st.integers(-(2**31), FEEDBACK_MAX),
    tail=st.binary(max_size=4),
)
packets = headers | st.binary(max_size=24)
sizes = st.sampled_from([0, 19, 20, 52, 1500]) | st.integers(0, 2**32 - 1)
reals = st.floats(allow_nan=True, allow_infinity=True) | st.sampled_from([0.0, 1e-3, 0.04, 1e4, 1e7])
ports = st.integers(0, N_PORTS - 1)
REAL_REGISTERS = ["xi_p", "xi_n", "residue_pos", "residue_neg", "rate", "avg_rtt", "xi_ac", "min_queue"]
operations = st.lists(
    st.one_of(
        st.tuples(st.just("arrive"), ports, packets, sizes),
        st.tuples(st.just("depart"), ports, packets, sizes),
        st.tuples(st.just("real"), ports, st.sampled_from(REAL_REGISTERS), reals),
        st.tuples(st.just("buffer"), ports, st.sampled_from([0, 1500, 3000, 2**64 - 1])),
    ),
    max_size=60,
)


def apply(dp, op):
    kind, port, *rest = op
    if kind in ("arrive", "depart"):
        return getattr(dp, kind)(port, *rest)
    if kind == "real":
        return dp.set_xcp_registers(port, **{rest[0]: rest[1]})
    return dp.set_registers(port, buffer_bytes=rest[0])


def same_reals(a: dict, b: dict) -> bool:
    return all(x == y or (math.isnan(x) and math.isnan(y)) for x, y in zip(a.values(), b.values()))


def _h(cwnd, rtt_us, feedback_bytes):
    return XcpHeader(cwnd=cwnd, rtt=rtt_us, feedback=round(feedback_bytes * 1000)).pack()


def _regs(**values):
    return [("real", 0, name, value) for name, value in values.items()]


# One sequence through every branch of both data paths (250 drawn examples missed some in each of
# three runs: RCP-AC's deficit sum every time, XCP's 0 <= H_feedback < feedback in two). Run for both
# protocols; the drawn examples add the values no one thought of (NaN, infinities, wrapping).
XCP_BRANCHES = [
    ("buffer", 0, 3000),
    # residues of the size of the terms taken off them, so that a one-ulp error in a term shows
    *_regs(min_queue=0.5, xi_p=1e3, xi_n=0.01, residue_pos=300.0, residue_neg=300.0, rate=1e6, avg_rtt=0.1, xi_ac=0.01),
    ("arrive", 0, _h(1500, 100_000, 0), 1500),  # min_queue falls to 0; RCP-AC: R > r, a deficit
    ("arrive", 0, _h(1500, 20_000_000, 0), 1500),  # 20 s: at max_rtt, not averaged
    ("arrive", 0, _h(1500, 100_000, 0), 1500),  # the buffer is full: dropped
    ("arrive", 0, bytes(19), 1500),  # malformed
    ("depart", 0, _h(1500, 100_000, 2e6), 1500),  # XCP: H >= fb; RCP-AC: a smaller feedback replaces it
    ("depart", 0, _h(1500, 100_000, 0), 1500),  # XCP: 0 <= H < fb, fb >= 0
    ("depart", 0, _h(1500, 100_000, -5), 1500),  # XCP: H < 0 <= fb, residue_neg spent; RCP-AC: H kept
    ("depart", 0, _h(10**9, 1_000, 0), 1500),  # RCP-AC: r > R, a decrease; XCP: pos ~ 0
    ("depart", 0, _h(1500, 1_000, 0), 1500),  # RCP-AC: xi_ac >= rtt
    ("depart", 0, _h(0, 100_000, 0.001), 1500),  # no window: positive feedback, the least, zeroed
    ("depart", 0, _h(1500, 0, -0.001), 1500),  # no RTT: negative feedback kept
    *_regs(xi_p=0.0, xi_n=0.5),
    ("depart", 0, _h(1500, 100_000, -100), 1500),  # XCP: H < fb < 0
    *_regs(xi_p=1e12, residue_pos=1e-9, residue_neg=1e-9),
    ("depart", 0, _h(1500, 100_000, 0), 1500),  # XCP: 0 = H < fb, residue_neg spent: xi_n = 0
    *_regs(xi_n=1e12, residue_neg=1e9, rate=1e12, xi_ac=1e9),
    ("depart", 0, _h(1500, 100_000, 2e6), 1500),  # XCP: residue_pos spent, fb at -max; RCP-AC: at +max
    *_regs(avg_rtt=0.0),
    ("arrive", 0, _h(1500, 100_000, 0), 0),  # RCP-AC: no deficit without an interval
    ("depart", 0, _h(1500, 100_000, 2e6), 1500),  # RCP-AC: no packets per interval, H kept
    ("depart", 1, _h(1500, 100_000, 0), 1500),  # an empty port's queue does not wrap
    *_regs(xi_p=math.nan, xi_n=0.0, rate=math.nan, avg_rtt=0.1),
    ("depart", 0, _h(1500, 100_000, 2e6), 1500),  # a NaN feedback is written as 0
]


# 62 drawn examples (250 before XCP_BRANCHES and the per-operation register check): with them, each of
# ten planted bugs (one-ulp errors in a residue or the deficit sum, an off-by-one at max_rtt, at the
# zeroing of positive feedback or in min_queue, a max for a min) failed in 3 runs of 3.
@pytest.mark.parametrize("protocol", PROTOCOLS)
@settings(max_examples=examples(62), deadline=None)
@given(ops=operations)
@example(ops=XCP_BRANCHES)
def test_c_and_python_xcp_datapaths_agree_byte_for_byte(protocol, ops):
    c, py = _datapath.XcpDatapath(N_PORTS, protocol), PyXcpDatapath(N_PORTS, protocol)
    for op in ops:
        out_c, out_py = apply(c, op), apply(py, op)
        assert out_c == out_py
        # the port's registers after every operation: a difference a later write would erase shows
        assert c.registers(op[1]) == py.registers(op[1])
        assert same_reals(c.xcp_registers(op[1]), py.xcp_registers(op[1]))
    for port in range(N_PORTS):
        assert c.registers(port) == py.registers(port)
        assert same_reals(c.xcp_registers(port), py.xcp_registers(port))


@pytest.mark.parametrize("protocol", PROTOCOLS)
@settings(max_examples=examples(300), deadline=None)
@given(raw=st.binary(max_size=64), size=st.integers(0, 2**32 - 1), values=st.lists(reals, min_size=8, max_size=8))
def test_fuzzed_packets_and_registers_never_crash_the_c_module(protocol, raw, size, values):
    dp = _datapath.XcpDatapath(1, protocol)
    dp.set_registers(0, buffer_bytes=2**63)
    dp.set_xcp_registers(0, **dict(zip(REAL_REGISTERS, values)))
    dp.arrive(0, raw, size)
    out = dp.depart(0, bytearray(raw), size)
    assert len(out) == len(raw)
    assert out[:8] == raw[:8] and out[12:] == raw[12:]  # only H_feedback may change
    assert dp.registers(0)["queue_bytes"] == 0


def test_xcp_feedback_follows_the_pseudo_code():
    """App. A by hand: xi_p = 2, xi_n = 0.5, rtt 0.1 s, cwnd 10 000, s = 1000 bytes."""
    for dp in (_datapath.XcpDatapath(1, "xcp"), PyXcpDatapath(1, "xcp")):
        dp.set_registers(0, buffer_bytes=10**6)
        dp.set_xcp_registers(0, xi_p=2.0, xi_n=0.5, residue_pos=100.0, residue_neg=100.0)
        raw = XcpHeader(cwnd=10_000, rtt=100_000).pack()
        assert dp.arrive(0, raw, 1000)
        out = XcpHeader.unpack(dp.depart(0, raw, 1000))
        pos, neg = 2.0 * 0.01 * 1000 / 10_000, 0.5 * 0.1 * 1000  # 0.002 and 50 bytes
        assert out.feedback == round((pos - neg) * 1000)
        regs = dp.xcp_registers(0)
        assert regs["residue_pos"] == pytest.approx(100 - pos / 0.1)
        assert regs["residue_neg"] == pytest.approx(100 - neg / 0.1)
        assert regs["sum_rtt_by_cwnd"] == pytest.approx(0.1 * 1000 / 10_000)


def test_packets_without_an_rtt_get_no_positive_feedback():
    for protocol in PROTOCOLS:
        dp = _datapath.XcpDatapath(1, protocol)
        dp.set_registers(0, buffer_bytes=10**6)
        dp.set_xcp_registers(0, xi_p=1e9, residue_pos=1e9, rate=1e9, avg_rtt=0.1, xi_ac=1.0)
        raw = XcpHeader(cwnd=3000, rtt=0).pack()
        dp.arrive(0, raw, 1500)
        assert XcpHeader.unpack(dp.depart(0, raw, 1500)).feedback == 0


@given(headers)
def test_receiver_echo_twins(raw):
    ack = _datapath.xcp_receiver_echo(raw)
    assert ack == xcp_receiver_echo(raw)
    sent = XcpHeader.unpack(raw)
    assert XcpHeader.unpack(ack) == XcpHeader(cwnd=0, rtt=0, feedback=0, reverse_feedback=sent.feedback)


def test_bad_arguments_are_errors_not_crashes():
    with pytest.raises(ValueError, match="protocol"):
        _datapath.XcpDatapath(1, "tcp")
    dp = _datapath.XcpDatapath(1, "xcp")
    with pytest.raises(IndexError):
        dp.arrive(1, bytes(20), 100)
    with pytest.raises(ValueError, match="unknown register"):
        dp.set_xcp_registers(0, bogus=1.0)
    with pytest.raises(ValueError, match="no XCP header"):
        _datapath.xcp_receiver_echo(bytes(19))


small = st.builds(
    lambda cap, rtt, flows, buffer_pkts: Scenario(
        name="random", capacity_bps=cap, rtt_s=rtt, eta=1.0, long_flows=tuple(flows), t_end_s=1.5, buffer_bytes=buffer_pkts * 1500
    ),
    cap=st.sampled_from([1e6, 2e6, 5e6]),
    rtt=st.floats(0.005, 0.15),
    flows=st.lists(st.tuples(st.floats(0, 0.8), st.floats(0.05, 2.0)).map(lambda f: (f[0], f[0] + f[1])), min_size=1, max_size=4),
    buffer_pkts=st.integers(2, 30),
)


@pytest.mark.parametrize("protocol", PROTOCOLS)
@settings(max_examples=examples(15), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(scenario=small)
def test_c_and_python_simulators_agree_with_xcp_senders(protocol, scenario):
    c = run_scenario(scenario, 0.4, 0.226, backend="c", protocol=protocol)
    py = run_scenario(scenario, 0.4, 0.226, backend="python", protocol=protocol)
    for name in ("t", "R_over_C", "queue_bytes", "utilization", "flow_throughput_bps"):
        np.testing.assert_array_equal(getattr(c, name), getattr(py, name), err_msg=name)
    assert c.counters == py.counters


def test_unknown_protocol_is_an_input_error():
    with pytest.raises(InputError, match="model 'tcp'"):
        run_scenario("fig5.3", 0.4, 0.2, protocol="tcp", t_end=1.0)


# XCP paper Fig. 10: five flows, 45 Mb/s, common RTT 40 ms, starting 0, 2, 4, 6, 8 s.
FIG10 = Scenario(
    name="xcp-fig10",
    capacity_bps=45e6,
    rtt_s=0.04,
    eta=1.0,
    long_flows=tuple((2.0 * i, math.inf) for i in range(5)),
    t_end_s=14.0,
)


@pytest.fixture(scope="module")
def fig10():
    return run_scenario(FIG10, 0.4, 0.226, protocol="xcp")


def test_each_new_flow_converges_to_the_fair_share(fig10):
    # Window k ends at k+1 s. From 1.5 s after each arrival (k = start + 2) until the next
    # arrival, every active flow is within 20% of C/n; from 2 s after the last arrival, 10%.
    # (Measured: 1.5-2 s after an arrival the spread is 3-9%; the rest is shuffling at 10%/RTT.)
    rates = fig10.flow_throughput_bps
    for n in range(2, 6):
        k = 2 * (n - 1) + 1  # the window [2(n-1)+1, 2(n-1)+2) s: 1-2 s after flow n starts
        share = rates[k, :n] / (FIG10.capacity_bps / n)
        assert np.all(np.abs(share - 1) < 0.2), (n, share)
    late = rates[10:, :] / (FIG10.capacity_bps / 5)
    assert np.all(np.abs(late - 1) < 0.1)


def test_high_utilization_and_small_queue(fig10):
    # After the first second (slow start of the first flow from 2 packets) the link stays above
    # 99% busy and the queue below 10 packets = 15 kB, 7% of the 225 kB BDP (paper Fig. 10-c:
    # a queue that absorbs each arrival and drains). Measured: >= 99.6%, at most 4 packets.
    after = fig10.t >= 1.0
    assert fig10.utilization[after].mean() > 0.99
    assert fig10.queue_bytes[after].max() <= 10 * 1500
    assert fig10.counters["dropped"] == 0


def test_cosim_xcp_plateaus_match_the_fluid_model():
    # fig5.3 with XCP at the paper's gains: y/(N*C) settles at 1/N in both runs. Measured packet
    # plateaus 0.19999 / 0.0988 / 0.19999 (the 1.2% low middle one: a standing queue of a few
    # packets, phi = 0 at y = C - beta*Q/(alpha*d)); fluid 0.2 / 0.1 / 0.2.
    result = cosimulate("fig5.3", 0.4, 0.226, model="xcp")
    for seg, expected in zip(result.segments, (0.2, 0.1, 0.2)):
        assert seg.packet_plateau == pytest.approx(expected, rel=0.03)
        assert seg.fluid_plateau == pytest.approx(expected, rel=0.01)
