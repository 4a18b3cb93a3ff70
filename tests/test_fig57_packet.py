"""Thesis Fig. 5.7 packet by packet against the fluid network model, at both thesis points.

The network is scaled down in one place: L2's delay is 1 s instead of 10 s, so the long
flow's RTT is 2.002 s against the short flows' 4 ms (a ratio of 500 instead of 5000: still
the one flow L1 controls is slow and a small share of L1's packets). A 200 s run is 100 of
its round trips, as the fluid tests' 400 s are 20 at full size. One test runs the packet
network at full size (2000 s simulated, ~20 s wall) at the slow point, where the scaled variant
does not settle; experiments/fig57.py runs both points at full size, packet and fluid.
"""

import json

import numpy as np
import pytest

from rcpstab.cli import main
from rcpstab.cosim.network import cosimulate_network
from rcpstab.cosim.network_packet_run import run_network
from rcpstab.network import Network, fig57
from rcpstab.network.convergence import settling_time, window_swings
from rcpstab.network.fig57 import THESIS_POINTS
from rcpstab.network.topology import FlowGroup, Link
from rcpstab.packet._datapath import Datapath
from rcpstab.packet.routers.rcp.datapath_py import PyDatapath
from rcpstab.packet.wire.rcp_header import RcpHeader

L2_DELAY = 1.0
T_END = 200.0
LATE = 0.8 * T_END  # the last 40 s (20 long round trips)


@pytest.fixture(scope="module")
def runs():
    return {point: cosimulate_network("fig5.7", *point, t_end=T_END, l2_delay=L2_DELAY) for point in THESIS_POINTS}


FAST, SLOW = THESIS_POINTS[1], THESIS_POINTS[0]  # (0.5, 0.1) and (0.1, 1.0)
PACKET_SLOW_FINDING = (
    "measured: at (0.1, 1.0) the scaled packet run does not settle. L3's standing queue of a few paced packets, "
    "weighted by beta/alpha = 10 over L3's small RTT estimate, pulls L3 under 100/49 Mb/s; L1 then grants the "
    "long flow more, and when L3 recovers L1 is overloaded for a long round trip, a queue inflates the short "
    "flows' RTTs and L3's estimate, and the cycle restarts (~250 s period, rates -40%..+13% around the targets). "
    "At full size (test_full_size_packet_run_converges_at_slow_point, experiments/fig57.py) L3's estimate stays "
    "inflated for the whole run and both links settle"
)


def late_errors(run, name):
    """Relative errors of a link's rate against its max-min target over the late part."""
    return run.rate[run.t >= LATE, run.link(name), 0] / run.target_rate[run.link(name)] - 1


@pytest.mark.slow  # fluid runs of fig5.7's network at four gain pairs: ~5 s
@pytest.mark.parametrize("point", THESIS_POINTS)
def test_fluid_converges_and_its_rtt_estimate_is_stable(runs, point):
    summary = runs[point].summary()["fluid"]
    assert summary["L3_settling_s"] < 10.0 and abs(summary["L3_final_error"]) < 1e-3
    assert summary["L1_settling_s"] < LATE and abs(summary["L1_final_error"]) < 0.01
    assert summary["rtt_swing_ratio"] <= 1.0  # no growing or sustained oscillation
    assert abs(summary["rtt_final_s"] / summary["rtt_target_s"] - 1) < 0.01


def test_packet_converges_at_fast_point(runs):
    result = runs[FAST]
    summary = result.summary()
    for name in ("L1", "L3"):
        assert np.abs(late_errors(result.packet, name)).max() < 0.01
    assert summary["packet"]["L3_settling_s"] < 60.0
    assert summary["packet"]["L1_settling_s"] < LATE
    assert summary["packet"]["rtt_swing_ratio"] <= 1.0
    assert abs(summary["packet"]["rtt_final_s"] / summary["packet"]["rtt_target_s"] - 1) < 0.05
    ratios = summary["packet_over_fluid"]
    assert abs(ratios["L1_final_rate_bps"] - 1) < 0.01 and abs(ratios["L3_final_rate_bps"] - 1) < 0.01
    assert abs(ratios["rtt_final_s"] - 1) < 0.05


def test_packet_stays_bounded_at_slow_point(runs):
    """No divergence and no runaway RTT estimate, though the rates do not settle (see the xfail below)."""
    result = runs[SLOW]
    summary = result.summary()
    for name in ("L1", "L3"):
        errors = late_errors(result.packet, name)
        assert errors.min() > -0.5 and errors.max() < 0.2
    assert abs(summary["packet"]["rtt_final_s"] / summary["packet"]["rtt_target_s"] - 1) < 0.1
    rtt = result.packet.avg_rtt[result.packet.t >= LATE, result.packet.link("L1"), 0]
    assert rtt.max() < 1.2 * summary["packet"]["rtt_target_s"]


@pytest.mark.xfail(strict=True, reason=PACKET_SLOW_FINDING)
def test_packet_converges_at_slow_point(runs):
    for name in ("L1", "L3"):
        assert np.abs(late_errors(runs[SLOW].packet, name)).max() < 0.02


@pytest.mark.parametrize("point", THESIS_POINTS)
def test_packet_run_never_drops_and_queues_drain(runs, point):
    result = runs[point]
    assert result.summary()["packet_dropped"] == 0
    queue = result.packet.queue[result.packet.t >= LATE, :, 0] / 8
    assert np.median(queue, axis=0).max() < 20 * 1500  # L1 and L3 queues empty to a few packets most of the time


@pytest.mark.parametrize("dp", [Datapath(1), PyDatapath(1)], ids=["c", "python"])
def test_max_rtt_register(dp):
    """App. F's 20 s limit drops the thesis' 20.002 s flow; the per-port register lets it count."""
    packet = RcpHeader(rate=0, reverse_rate=0, rtt=20_002, proto=6).pack()
    dp.set_registers(0, buffer_bytes=10**6)
    assert dp.registers(0)["max_rtt"] == 20_000
    dp.arrive(0, packet, 1500)
    assert dp.registers(0)["rtt_count"] == 0
    dp.set_registers(0, max_rtt=0xFFFF)
    dp.arrive(0, packet, 1500)
    assert dp.registers(0)["rtt_count"] == 1 and dp.registers(0)["rtt_sum"] == 20_002


def test_multilink_c_and_python_traces_identical():
    net = Network(
        links=(Link("A", 20e6, 1e-3), Link("B", 50e6, 0.05), Link("C", 10e6, 1e-3)),
        groups=(FlowGroup("short", 3, ("A", "C"), 4e-3), FlowGroup("long", 1, ("A", "B"), 0.102)),
    )
    c, py = (run_network(net, 0.5, 0.1, 1.5, backend=backend) for backend in ("c", "python"))
    assert c.counters == py.counters and c.counters["events"] > 10_000
    for name in ("A", "B", "C"):
        for key, column in c.traces[name].items():
            assert np.array_equal(column, py.traces[name][key]), (name, key)


def test_cli_cosim_fig57(tmp_path, capsys):
    csv_path, fig_path = tmp_path / "fig57.csv", tmp_path / "fig57.png"
    assert (
        main(
            [
                "cosim",
                "--scenario",
                "fig5.7",
                "--alpha",
                "0.5",
                "--beta",
                "0.1",
                "--t-end",
                "3",
                "--csv",
                str(csv_path),
                "--out",
                str(fig_path),
                "--json",
            ]
        )
        == 0
    )
    summary = json.loads(capsys.readouterr().out)
    assert summary["scenario"] == "fig5.7" and summary["packet_dropped"] == 0
    assert {"L1_final_rate_bps", "L3_final_rate_bps", "rtt_final_s"} <= summary["packet"].keys()
    header = csv_path.read_text().splitlines()[0].split(",")
    assert header[:5] == ["t", "packet_L1_R_over_C", "fluid_L1_R_over_C", "packet_L1_queue_bytes", "fluid_L1_queue_bytes"]
    assert len(header) == 1 + 3 * 4 * 2 and "fluid_L3_avg_rtt_s" in header and "packet_L1_rtt_sample_s" in header
    assert fig_path.stat().st_size > 0
    for bad in (["--model", "xcp"], ["--rtt", "0.1"], ["--t-end", "0"], ["--alpha", "nan"]):
        args = ["cosim", "--scenario", "fig5.7", "--alpha", "0.5", "--beta", "0.1", *bad]
        assert main(args) == 2


def test_full_size_network_is_the_thesis_one():
    net = fig57()
    assert max(g.rtt for g in net.groups) / min(g.rtt for g in net.groups) == pytest.approx(5000.5)
    assert fig57(L2_DELAY).max_min_rates()[1] == pytest.approx(net.max_min_rates()[1])


@pytest.mark.slow  # the thesis-size packet run: ~25 s
def test_full_size_packet_run_converges_at_slow_point():
    """The thesis' own network (L2 = 10 s, long RTT 20 s) at (0.1, 1.0), 2000 s: both links settle.

    The scaled variant above does not settle at this point; at full size the packet run does
    (as the thesis' Fig. 5.8 shows), and its RTT estimate at L1 stops swinging.
    """
    net = fig57()
    run = run_network(net, *SLOW, t_end=2000.0)
    _, link_rates = net.max_min_rates()
    late = {}
    for name in ("L1", "L3"):
        trace = run.traces[name]
        target = link_rates[net.link_index(name)] / net.links[net.link_index(name)].capacity
        settled = settling_time(trace["t"], trace["R_over_C"][:, None], target, band=0.02)[0]
        assert settled < 1500.0, name  # measured: L1 1036 s, L3 514 s
        late[name] = trace["R_over_C"][trace["t"] > 1600.0] / target - 1
        assert np.abs(late[name]).max() < 0.02, name
    rtt = run.traces["L1"]
    swings = window_swings(rtt["t"], rtt["avg_rtt_s"][:, None], start=1000.0, windows=4)[:, 0]
    assert swings[-1] <= swings[0]  # the estimate's swing is not growing
    target_rtt = net.equilibrium_rtt()[net.link_index("L1")]
    assert abs(rtt["avg_rtt_s"][-1] / target_rtt - 1) < 0.05  # measured: 7.27 s against 7.10 s
    assert run.counters["dropped"] == 0
