"""Flash crowd (N -> 10 N) packet by packet and in the fluid model, with the same finite buffer."""

import json
import math

import numpy as np
import pytest

from rcpstab.cli import main


def exit_code(argv):
    """main's return code, or argparse's exit code for a value that is not a number."""
    try:
        return main(argv)
    except SystemExit as exc:
        return exc.code


from rcpstab.cosim.flash_crowd import AGREEMENT, flash_crowd_cosim
from rcpstab.packet.simulator.scenarios import flash_crowd

NETWORKS = [(100e6, 0.05, 2), (40e6, 0.1, 3)]  # 21 and 11 packets of C*d0 per flow after the crowd
GAINS = [(0.4, 0.2), (0.4, 0.226)]  # a thesis box corner and XCP's published gains


@pytest.fixture(scope="module")
def runs():
    return {(net, gains): flash_crowd_cosim(flash_crowd(*net), *gains) for net in NETWORKS for gains in GAINS}


def test_both_runs_hold_the_queue_in_the_buffer_and_conserve_packets(runs):
    for r in runs.values():
        assert r.fluid.peak_queue_bdp == 1.0  # the fluid clamp is exact
        assert 0.95 < r.packet.peak_queue_bdp <= 1.0  # drop-tail: whole packets, never above B
        c = r.conservation
        assert c["sent"] == c["delivered"] + c["dropped"] + c["in_flight"]
        # every packet the bottleneck refused after the crowd is in the simulator's drop count
        assert r.packet.dropped_bdp * r.scenario.bdp_bytes / r.scenario.packet_bytes <= c["dropped"] + 1e-9


def test_drops_agree_within_30_percent_on_two_networks_and_two_gains(runs):
    for key, r in runs.items():
        assert r.agreement()["dropped_bdp"] < AGREEMENT, key
        # about 9 C*d0 arrive in excess in the first RTT, before any feedback, whatever the gains
        assert 7.0 < r.packet.dropped_bdp < 10.0 and 10.0 < r.fluid.dropped_bdp < 13.0


def test_recovery_disagreement_is_the_routers_rtt_estimate(runs):
    """Recovery does not agree within 30%: the fluid model recovers in 9-10 RTTs (the issue's
    independent integration: 9-14), the packet run in about 20-25. Measured cause: during the
    overload the router's RTT average stays at d0 (its samples are the senders' RTTs, measured
    before the queue) while the fluid's d = d0 + q/C nears 2 d0; the rate law then cuts R harder
    per update, the packet rate bottoms out 10-100x lower, and climbing back at e^alpha per RTT at
    most takes longer than the fluid's whole recovery."""
    for key, r in runs.items():
        f, p = r.fluid, r.packet
        assert 8.0 <= f.recovery_rtt <= 14.0, key
        assert p.recovery_rtt > (1 + AGREEMENT) * f.recovery_rtt, key
        assert p.overload_d_over_d0 < 1.05 and f.overload_d_over_d0 > 1.5, key
        assert p.trough_R_over_C < f.trough_R_over_C / 5, key
        assert p.recovery_rtt >= r.packet_recovery_bound() > 0.5 * f.recovery_rtt, key
        assert any(text.startswith("recovery:") for text in r.differences())


ALL_GAINS = GAINS + [(0.6, 0.2)]  # and the box corner with the larger alpha


def no_window(module):
    """``build_simulator`` with R-TCP's window rule switched off: the senders are paced only, as
    the fluid model's are (window_denominator = 1 makes rate x RTT / 1 byte far above any need)."""
    original = module.build_simulator

    def build(topology, flows, packet_bytes, backend, protocol, rwnd_pkts=module.RWND_PACKETS):
        sim = original(topology, flows, packet_bytes, "python", protocol, rwnd_pkts)
        from rcpstab.packet._datapath import Simulator

        return Simulator(
            links=[link.as_sim_tuple() for link in topology.links],
            paths=list(topology.paths),
            flows=flows,
            data_size=packet_bytes,
            ctrl_size=sim.ctrl_size,
            window_denominator=1,
            rwnd_pkts=1 << 20,
            sender=sim.sender,
        )

    return build


ROUTER_NETWORKS = NETWORKS + [(100e6, 0.015, 1)]  # and check's slowest corner (10 Gb/s, 15 ms, 1 -> 10, at 100 Mb/s)


@pytest.fixture(scope="module")
def router_runs():
    return {
        (net, gains): flash_crowd_cosim(flash_crowd(*net), *gains, model="rcp-router")
        for net in ROUTER_NETWORKS
        for gains in ALL_GAINS
    }


def test_packet_and_router_fluid_agree_within_30_percent_on_three_networks(router_runs):
    """Issue 11's acceptance, against the fluid model with the packet router's timing and RTT
    average (rcp-router), same buffer: the dropped volume within 30% everywhere; the recovery (the
    one judgement) within 30% for at least two gains on every network, the box corner (0.6, 0.2)
    included; where it is not, the packet run recovers *faster* and the difference names R-TCP's
    window (measured by switching the window off, next test). Peak queue at the buffer in both."""
    for net in ROUTER_NETWORKS:
        within = 0
        for gains in ALL_GAINS:
            r = router_runs[(net, gains)]
            rel = r.agreement()
            assert rel["dropped_bdp"] < AGREEMENT, (net, gains, rel)
            assert r.fluid.peak_queue_bdp == 1.0 and 0.95 < r.packet.peak_queue_bdp <= 1.0
            assert r.packet.reason is None and r.fluid.reason is None
            # no sender stall beyond the fluid's own (the rate floor is the rate law's, not the senders')
            assert r.packet.stall_rtt <= r.fluid.stall_rtt + 1.0, (net, gains)
            assert not any(text.startswith("stall:") for text in r.differences())
            if rel["recovery_rtt"] < AGREEMENT:
                within += 1
            else:
                assert r.packet.recovery_rtt < r.fluid.recovery_rtt
                assert "R-TCP's window" in " ".join(r.differences())
        assert within >= 2, net
        assert router_runs[(net, (0.6, 0.2))].agreement()["recovery_rtt"] < AGREEMENT


def test_remaining_difference_is_the_rtcp_window(router_runs):
    """What is left (packet recovery up to a third faster, 15-17% fewer drops): R-TCP's window caps
    what a sender has in flight while the full queue delays its ACKs, so the packet overload is
    shorter. Switching only the window off (senders paced only, as in the fluid model) brings the
    packet drops within 5% of the fluid's and its overload at least as long as the fluid's."""
    from unittest import mock

    from rcpstab.packet.simulator import run as run_module

    for net in NETWORKS:
        with mock.patch.object(run_module, "build_simulator", no_window(run_module)):
            paced = flash_crowd_cosim(flash_crowd(*net), 0.4, 0.2, model="rcp-router")
        windowed = router_runs[(net, (0.4, 0.2))]
        f = windowed.fluid
        assert windowed.packet.overload_rtt < f.overload_rtt  # one control interval (0.2 RTT) or more shorter
        assert windowed.packet.dropped_bdp < 0.9 * f.dropped_bdp
        assert paced.packet.overload_rtt >= f.overload_rtt
        assert paced.agreement()["dropped_bdp"] < 0.05
        assert paced.agreement()["recovery_rtt"] < min(windowed.agreement()["recovery_rtt"], AGREEMENT)


def test_rtcp_window_damps_the_packet_loop_where_the_fluid_oscillates():
    """(1.5, 0.6), linearly unstable, on check's slowest corner of the default envelope (10 Mb/s,
    500 ms, 1 -> 10): the rcp-router fluid model keeps oscillating after the crowd, the packet run
    settles. Cause, by changing only it: without R-TCP's window the packet run oscillates as the
    fluid does (its late R/C swing within a factor 2 of the fluid's, over 5x the windowed run's: 9x)."""
    from unittest import mock

    from rcpstab.packet.simulator import run as run_module

    sc = flash_crowd(10e6, 0.5, 1)
    windowed = flash_crowd_cosim(sc, 1.5, 0.6, model="rcp-router")
    with mock.patch.object(run_module, "build_simulator", no_window(run_module)):
        paced = flash_crowd_cosim(sc, 1.5, 0.6, model="rcp-router")

    def late_swing(t, gamma, r):
        return float(np.ptp(gamma[t > r.arrival_s + 50 * sc.rtt_s]))

    fluid = late_swing(windowed.fluid_t, windowed.fluid_R_over_C, windowed)
    assert math.isnan(windowed.fluid.recovery_rtt) and windowed.fluid.reason
    assert windowed.packet.recovery_rtt < 50.0
    assert "damping the fluid senders" in " ".join(windowed.differences())
    assert math.isnan(paced.packet.recovery_rtt)
    swing = late_swing(paced.packet_t, paced.packet_R_over_C, paced)
    assert fluid / 2 < swing < 2 * fluid
    assert swing > 5 * late_swing(windowed.packet_t, windowed.packet_R_over_C, windowed)


def test_without_the_rate_refresh_the_senders_stall_at_the_rate_floor():
    """The old pacing (next packet one interval at the *old* rate after the last, a new rate heard
    only from an ACK), at (0.6, 0.2): the rate falls to App. F's MIN_RATE (one packet per 100 RTTs),
    the senders stall, the router raises R towards C, they return together and the buffer overflows
    again; no recovery. With ns-2's re-pacing and refresh probes the same run recovers as fast as
    the rcp-router fluid model."""
    import functools
    from unittest import mock

    from rcpstab.packet import _datapath

    sc = flash_crowd(*NETWORKS[0])
    with mock.patch.object(_datapath, "Simulator", functools.partial(_datapath.Simulator, rate_refresh=False)):
        old = flash_crowd_cosim(sc, 0.6, 0.2, model="rcp-router")
    new = flash_crowd_cosim(sc, 0.6, 0.2, model="rcp-router")
    floor = 0.01 * sc.packet_bytes * 8 / sc.rtt_s / sc.capacity_bps
    assert old.packet.trough_R_over_C < 1.5 * floor and new.packet.trough_R_over_C < 1.5 * floor
    assert old.packet.stall_rtt > 10.0 and old.packet.dropped_bdp > 2 * old.fluid.dropped_bdp
    assert math.isnan(old.packet.recovery_rtt)
    assert any(text.startswith("stall:") for text in old.differences())
    assert new.packet.stall_rtt < old.packet.stall_rtt / 2
    assert new.agreement()["recovery_rtt"] < AGREEMENT


def test_cli_flash_crowd_json_and_figure(tmp_path, capsys):
    out = tmp_path / "crowd.png"
    assert main(["cosim", "--scenario", "flash-crowd", "--alpha", "0.4", "--beta", "0.226", "--json", "--out", str(out)]) == 0
    summary = json.loads(capsys.readouterr().out)
    for side in ("fluid", "packet"):
        assert {"peak_queue_bdp", "dropped_bdp", "recovery_rtt"} <= set(summary[side])
        assert summary[side]["peak_queue_bdp"] <= 1.0
    assert set(summary["conservation"]) == {"sent", "delivered", "dropped", "in_flight"}
    assert out.stat().st_size > 10_000


def test_cli_flash_crowd_against_the_router_fluid_model(capsys):
    assert main(["cosim", "--scenario", "flash-crowd", "--model", "rcp-router", "--alpha", "0.6", "--beta", "0.2", "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["model"] == "rcp-router" and summary["differences"] == []
    assert summary["relative_difference"]["recovery_rtt"] < AGREEMENT
    assert summary["relative_difference"]["dropped_bdp"] < AGREEMENT


@pytest.mark.parametrize("value", ["0", "-1", "nan", "x"])
def test_cli_bad_buffer_exits_2(value, capsys):
    assert exit_code(["cosim", "--scenario", "flash-crowd", "--alpha", "0.4", "--beta", "0.2", "--buffer", value]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and value in err and "--buffer" in err


def test_recovery_band_comes_from_before_the_crowd_only():
    """The packet band is measured on the 20 RTTs before the crowd: adding noise to R/C after the
    crowd changes the recovery it judges, not the band (no tuning on the reported points)."""
    import dataclasses

    from rcpstab.cosim.flash_crowd import _packet_response
    from rcpstab.packet.simulator.run import run_scenario

    sc = flash_crowd(*NETWORKS[1])
    crowd = 40 * sc.rtt_s
    packet = run_scenario(sc, 0.4, 0.2)
    noisy = packet.R_over_C * np.where(packet.t > crowd, 1 + 0.2 * np.sin(np.arange(packet.t.size)), 1.0)
    clean = _packet_response(packet, sc, 0.4, 0.2, crowd, crowd + sc.rtt_s)
    shaken = _packet_response(dataclasses.replace(packet, R_over_C=noisy), sc, 0.4, 0.2, crowd, crowd + sc.rtt_s)
    assert (shaken.rate_band, shaken.queue_band) == (clean.rate_band, clean.queue_band)
    assert np.isfinite(clean.recovery_rtt) and np.isnan(shaken.recovery_rtt)


def test_counterfactual_router_with_the_fluid_rtt_matches_the_fluid_trough():
    """Cause, tested by changing only it: a router whose RTT estimate is the fluid's d = d0 + q/C
    (instead of App. F's average of the header RTTs) lets the rate fall no deeper than the fluid's,
    the senders no longer stall, and at (0.6, 0.2) the recovery agrees within 30%."""
    from unittest import mock

    from rcpstab.packet.routers.rcp.control import RcpController
    from rcpstab.packet.simulator import run as run_module

    class FluidRtt(RcpController):
        def update(self, input_bytes, rtt_sum, rtt_count, queue_bytes, tr):
            self.avg_rtt = 50.0 + queue_bytes / self.link_rate  # ms: d0 + q/C
            return super().update(input_bytes, 0, 0, queue_bytes, tr)

    original = run_module.make_controller

    def make(*args, **options):
        c = original(*args, **options)
        return FluidRtt(link_rate=c.link_rate, alpha=c.alpha, beta=c.beta, eta=c.eta, rate=c.rate, avg_rtt=c.avg_rtt, mtu=c.mtu)

    scenario = flash_crowd(*NETWORKS[0])
    for gains in [(0.4, 0.2), (0.6, 0.2)]:
        with mock.patch.object(run_module, "make_controller", make):
            r = flash_crowd_cosim(scenario, *gains)
        assert r.packet.overload_d_over_d0 > 1.9
        assert r.fluid.trough_R_over_C / 2 < r.packet.trough_R_over_C < 2 * r.fluid.trough_R_over_C
        assert r.packet.stall_rtt < 2.0
    assert r.agreement()["recovery_rtt"] < AGREEMENT and r.agreement()["dropped_bdp"] < AGREEMENT


@pytest.mark.parametrize(
    "extra, named",
    [
        (["--C", "-1"], "--C -1"),
        (["--N", "0"], "--N 0"),
        (["--rtt", "0"], "--rtt 0"),
        (["--t-end", "5"], "--t-end"),
        (["--csv", "x.csv"], "--csv"),
    ],
)
def test_cli_flash_crowd_bad_options_exit_2(extra, named, capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert main(["cosim", "--scenario", "flash-crowd", "--alpha", "0.4", "--beta", "0.2", *extra]) == 2
    err = capsys.readouterr().err
    # the option and the value are both named (the one table of domains words the rest)
    assert err.count("\n") == 1 and all(part in err for part in named.split()) and "Traceback" not in err
