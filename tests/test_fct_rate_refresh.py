"""The flow-level simulator's R-TCP senders react to a new rate as the packet simulator's do (ns-2 RCP
host: re-pace from the last send, probe every minimum RTT while the next packet is over one away),
through the one host implementation both share (csrc/rtcp_host.h, hosts/rtcp_host_py.py)."""

import numpy as np
import pytest

from rcpstab.fct._flows import FlowSimulator
from rcpstab.fct.flow_run import run_flows
from rcpstab.fct.flows_py import RECORD_FIELDS, PyFlowSimulator
from rcpstab.packet.hosts.flow_traffic import parse_sizes

RTT_NS = 20_000_000  # 10 ms each way
PKT = 1000  # data packet bytes
FLOOR = 1  # bytes/ms: one packet per second = 50 RTTs
HIGH = 1000  # bytes/ms: one packet per ms
SIZE = 5  # packets
RAISE_NS = 510_000_000  # mid-way through the floor's first 1 s gap (not on a probe's time)


def simulator(backend, rate_refresh):
    links = dict(forward=(100_000_000, RTT_NS // 2, 10**6), reverse=(100_000_000, RTT_NS // 2, 10**6))
    cls = FlowSimulator if backend == "c" else PyFlowSimulator
    return cls(**links, data_size=PKT, ctrl_size=40, window_denominator=960, rwnd_pkts=4096, request=0, rate_refresh=rate_refresh)


def one_flow(backend, rate_refresh, step_ns=1_000_000, horizon_ns=3_000_000_000):
    """One flow of SIZE packets at t = 0; the port's rate is held at FLOOR, then HIGH from RAISE_NS."""
    sim = simulator(backend, rate_refresh)
    sim.add_arrivals(np.array([0], np.int64).tobytes(), np.array([SIZE], np.int64).tobytes())
    t = 0
    while t < horizon_ns:  # no control path runs: the register holds what is written
        sim.set_registers(rate=FLOOR if t < RAISE_NS else HIGH)
        t += step_ns
        sim.run_until(t)
    rec = np.frombuffer(sim.take_records(), dtype=np.int64).reshape(-1, len(RECORD_FIELDS))
    return rec, sim.counters()


@pytest.mark.parametrize("rate_refresh", [True, False])
def test_c_and_python_twins_agree_on_a_floor_paced_flow(rate_refresh):
    c, py = one_flow("c", rate_refresh), one_flow("python", rate_refresh)
    assert np.array_equal(c[0], py[0])
    assert c[1] == py[1]
    assert len(c[0]) == 1


def test_a_floor_paced_flow_finishes_soon_after_the_rate_is_raised():
    """Both senders send packet 0 at the SYN-ACK (1 RTT) and are then due one floor interval (1 s)
    later; the rate is raised 0.51 s in. With the refresh the sender hears it from its next probe
    (at most one minimum RTT after the raise, echoed one RTT later) and sends the other 4 packets
    1 ms apart: FCT <= raise + 2 RTT + 3 ms + one way. Without, packet 1 leaves at 1 RTT + 1 s and,
    paced from its send time at the old rate, packet 2 one more second later: FCT > 2 s."""
    new, k_new = one_flow("c", True)
    old, k_old = one_flow("c", False)
    fct_new, fct_old = new[0][RECORD_FIELDS.index("fct_ns")], old[0][RECORD_FIELDS.index("fct_ns")]
    one_way = RTT_NS // 2
    assert RAISE_NS + RTT_NS < fct_new <= RAISE_NS + 2 * RTT_NS + (SIZE - 2) * 1_000_000 + one_way + 1_000_000
    assert 2 * 1_000_000_000 + RTT_NS < fct_old < 2 * 1_000_000_000 + 2 * RTT_NS
    # The probes: one per minimum RTT between the first send and the raise's echo, each echoed.
    probes = (k_new["sent"] - k_old["sent"]) // 2
    assert (RAISE_NS - RTT_NS) // RTT_NS - 1 <= probes <= (RAISE_NS + 2 * RTT_NS) // RTT_NS
    assert k_new["sent"] == k_new["delivered"] + k_new["dropped"] + k_new["in_flight"]


def test_re_pacing_cannot_matter_when_every_flow_is_sent_before_its_first_ack():
    """A new rate reaches a sender only with an ACK (or a probe's echo, sent only while the next
    packet is over a minimum RTT away). Flows of 10 packets on 1 Gb/s with a 100 ms RTT are paced
    8 us apart at R = C and still under 10 ms apart at R = C/1000: each has sent all its data before
    its first ACK returns, so the two pacings must give the same run, event for event."""
    kw = dict(capacity_bps=1e9, rtt_s=0.1, load=0.5, sizes=parse_sizes("fixed:size=10"), n_flows=2000, seed=4)
    new = run_flows(0.1, 1.0, rate_refresh=True, **kw)
    old = run_flows(0.1, 1.0, rate_refresh=False, **kw)
    assert new.mean_R_over_C > 0.1  # the premise: the rate stays far above C/1000
    assert np.array_equal(new.records, old.records)
    assert new.counters == old.counters
