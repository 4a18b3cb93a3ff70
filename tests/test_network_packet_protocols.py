"""The multi-link packet network runs any registered protocol (rcpstab.cosim.network_packet_run).

A parking lot of three links: three flows cross A (100 Mb/s) then C (50 Mb/s, their bottleneck),
one long flow crosses A then B (200 Mb/s); its max-min share is A's rest, 50 Mb/s.
"""

import numpy as np
import pytest

from rcpstab.cosim.network_packet_run import run_network
from rcpstab.errors import InputError
from rcpstab.network.topology import FlowGroup, Link, Network

NET = Network(
    links=(Link("A", 100e6, 0.01), Link("B", 200e6, 0.05), Link("C", 50e6, 0.01)),
    groups=(FlowGroup("short", 3, ("A", "C"), 0.04), FlowGroup("long", 1, ("A", "B"), 0.12)),
)
GAINS = {"rcp": (0.5, 0.1), "xcp": (0.4, 0.226), "rcpac": (0.4, 0.1)}
SETTLE_S, END_S = 5.0, 10.0


def late_rates(protocol):
    """Each flow's delivered rate (bit/s) over [SETTLE_S, END_S] (runs are deterministic: one is the other's prefix)."""
    early, late = (run_network(NET, *GAINS[protocol], t, protocol=protocol) for t in (SETTLE_S, END_S))
    return (late.flow_bytes - early.flow_bytes) * 8 / (END_S - SETTLE_S), late


@pytest.mark.parametrize("protocol", ["rcp", "xcp", "rcpac"])
def test_every_protocol_conserves_packets_and_shares_its_bottleneck_fairly(protocol):
    rates, run = late_rates(protocol)
    c = run.counters
    assert run.protocol == protocol and set(run.traces) == {"A", "B", "C"}
    assert c["sent"] == c["delivered"] + c["dropped"] + c["in_flight"] and c["dropped"] == 0
    short, capacity_c = rates[:3], NET.links[2].capacity
    # the three flows bottlenecked at C get equal shares of it, and together nearly all of it (never more)
    assert short == pytest.approx([short.mean()] * 3, rel=0.03)
    assert 0.93 * capacity_c < short.sum() <= capacity_c
    # the routers' own view of C agrees with what the receivers got
    assert np.mean(run.traces["C"]["utilization"][-100:]) == pytest.approx(short.sum() / capacity_c, rel=0.02)


def test_rcp_network_reaches_the_max_min_allocation():
    rates, _ = late_rates("rcp")
    fair = NET.max_min_rates(1.0)[0]  # water-filling, independent of the simulator
    assert rates == pytest.approx(np.repeat(fair, [3, 1]), rel=0.01)


@pytest.mark.parametrize("protocol", ["xcp", "rcpac"])
def test_window_protocols_run_identically_on_the_c_loop_and_its_python_twin(protocol):
    c, py = (run_network(NET, *GAINS[protocol], 0.5, protocol=protocol, backend=b) for b in ("c", "python"))
    assert c.counters == py.counters and c.counters["events"] > 10_000
    for name in ("A", "B", "C"):
        for key, column in c.traces[name].items():
            assert np.array_equal(column, py.traces[name][key], equal_nan=True), (name, key)


def test_an_unknown_protocol_is_an_input_error():
    with pytest.raises(InputError, match="rcp, xcp, rcpac"):
        run_network(NET, 0.5, 0.1, 1.0, protocol="red")
