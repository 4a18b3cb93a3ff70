"""The R-TCP sender's reaction to a new rate (ns-2 RCP host: re-pace from the last send, and a
rate-refresh probe every minimum RTT while paced slower than one packet per RTT)."""

import functools
from unittest import mock

import numpy as np
import pytest

from rcpstab.packet import _datapath
from rcpstab.packet.simulator.run import run_scenario
from rcpstab.packet.simulator.scenarios import flash_crowd
from rcpstab.packet.simulator.sim_py import PySimulator

RTT_NS = 20_000_000  # 10 ms each way
FLOOR = 1  # bytes/ms: one 1500-byte packet per 1.5 s = 75 RTTs (App. F's floor is 0.01 MTU/d)
HIGH = 1000  # bytes/ms = 8 Mb/s: one packet per 1.5 ms


def one_flow(backend, rate_refresh):
    """One long-lived R-TCP flow through an RCP port (link 0) and back over a plain link (link 1)."""
    links = [(100_000_000, RTT_NS // 2, 10**6, 1), (100_000_000, RTT_NS // 2, 10**6, 0)]
    args = dict(
        links=links,
        paths=[(0,), (1,)],
        flows=[(0, -1, 0, 0, 0, 1)],
        data_size=1500,
        ctrl_size=52,
        window_denominator=1480,
        rwnd_pkts=4096,
        rate_refresh=rate_refresh,
    )
    return (_datapath.Simulator if backend == "c" else PySimulator)(**args)


def delivered_after_raise(sim, raise_ns, step_ns=1_000_000, horizon_ns=40 * RTT_NS):
    """Pin the port's rate at FLOOR, raise it to HIGH at ``raise_ns``; delivered bytes every ``step_ns`` after."""
    sim.set_registers(0, rate=FLOOR)
    t = 0
    while t < raise_ns:  # the control path is not running: hold the register
        t += step_ns
        sim.run_until(t)
        sim.set_registers(0, rate=FLOOR)
    sim.set_registers(0, rate=HIGH)
    start = sim.flow_stats()[0][0]
    out = []
    for k in range(1, horizon_ns // step_ns + 1):
        sim.run_until(raise_ns + k * step_ns)
        out.append(sim.flow_stats()[0][0] - start)
    return np.array(out), sim


@pytest.mark.parametrize("rate_refresh", [True, False])
def test_c_and_python_twins_agree_on_a_floor_paced_sender(rate_refresh):
    runs = [delivered_after_raise(one_flow(backend, rate_refresh), 3_000_000_000) for backend in ("c", "python")]
    np.testing.assert_array_equal(runs[0][0], runs[1][0])
    assert runs[0][1].counters() == runs[1][1].counters()


def test_a_floor_paced_sender_picks_up_a_higher_rate_within_about_one_rtt():
    """The raise lands while the sender waits out a 1.5 s (75 RTT) pacing gap. With the refresh it
    hears the new rate from its next probe (sent at most one minimum RTT after the raise, back one
    RTT later) and sends at once; without it, it waits for its next paced packet."""
    raise_ns = 3_000_000_000 + 700_000_000  # mid-gap: the floor's sends are 1.5 s apart
    for refresh, latest_rtt in ((True, 2.1), (False, None)):
        delivered, _ = delivered_after_raise(one_flow("c", refresh), raise_ns)
        first = (np.argmax(delivered > 0) + 1) * 1e6 / RTT_NS if delivered.any() else np.inf  # RTTs
        if refresh:
            # probe within 1 RTT, its echo 1 RTT later, the data one-way 0.5 RTT: first delivery <= 2.5 RTT
            assert first <= latest_rtt + 0.5
            # and from then on the flow runs at the new rate: 1000 B/ms x the remaining time, within 2 packets
            t_rtt = np.arange(1, delivered.size + 1) * 1e6 / RTT_NS
            expected = HIGH * (t_rtt[-1] - first) * RTT_NS / 1e6
            assert abs(delivered[-1] - expected) <= 2 * 1500 + HIGH * RTT_NS / 1e6 / 2
        else:
            assert first > 20  # the old pacing waits out the floor's gap (0.8 s = 40 RTTs left here)


def test_flash_crowd_twins_agree_with_refresh_probes():
    """A small flash crowd that drives the rate to App. F's floor: the C and Python simulators give
    the same trace, and the senders probed (more packets sent than without the refresh)."""
    sc = flash_crowd(10e6, 0.02, 2, before_rtt=15, after_rtt=40)
    c = run_scenario(sc, 0.6, 0.2, backend="c")
    py = run_scenario(sc, 0.6, 0.2, backend="python")
    np.testing.assert_array_equal(c.R_over_C, py.R_over_C)
    np.testing.assert_array_equal(c.queue_bytes, py.queue_bytes)
    assert c.counters == py.counters
    k = c.counters
    assert k["sent"] == k["delivered"] + k["dropped"] + k["in_flight"]
    floor = 0.01 * sc.packet_bytes * 8 / sc.rtt_s / sc.capacity_bps
    assert c.R_over_C.min() < 1.01 * floor
    with mock.patch.object(_datapath, "Simulator", functools.partial(_datapath.Simulator, rate_refresh=False)):
        old = run_scenario(sc, 0.6, 0.2, backend="c")
    assert old.counters["sent"] < k["sent"]
