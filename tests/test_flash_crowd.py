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
from rcpstab.reference_impl.cosim.flash_crowd import AGREEMENT, flash_crowd_cosim
from rcpstab.reference_impl.simulator.scenarios import flash_crowd

NETWORKS = [(100e6, 0.05, 2), (40e6, 0.1, 3)]     # 21 and 11 packets of C*d0 per flow after the crowd
GAINS = [(0.4, 0.2), (0.4, 0.226)]                 # a thesis box corner and XCP's published gains


@pytest.fixture(scope="module")
def runs():
    return {(net, gains): flash_crowd_cosim(flash_crowd(*net), *gains) for net in NETWORKS for gains in GAINS}


def test_both_runs_hold_the_queue_in_the_buffer_and_conserve_packets(runs):
    for r in runs.values():
        assert r.fluid.peak_queue_bdp == 1.0                 # the fluid clamp is exact
        assert 0.95 < r.packet.peak_queue_bdp <= 1.0         # drop-tail: whole packets, never above B
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


def test_larger_alpha_stalls_the_packet_senders_at_the_rate_floor():
    """(0.6, 0.2): the packet rate falls to App. F's MIN_RATE (R/C ~ 2e-5 here), where R-TCP paces one
    packet per 100 RTTs; the senders stall, the router raises R to C, they return together and the
    buffer overflows again. The fluid model (rate followed with a pure delay) recovers in ~14 RTTs."""
    r = flash_crowd_cosim(flash_crowd(*NETWORKS[0]), 0.6, 0.2)
    floor = 0.01 * r.scenario.packet_bytes * 8 / r.scenario.rtt_s / r.scenario.capacity_bps
    assert r.packet.trough_R_over_C < 1.5 * floor
    assert r.packet.stall_rtt > 10.0 and r.fluid.stall_rtt == 0.0
    assert r.packet.dropped_bdp > 2 * r.fluid.dropped_bdp
    assert math.isnan(r.packet.recovery_rtt) and 10.0 < r.fluid.recovery_rtt < 20.0
    assert any(text.startswith("stall:") for text in r.differences())


def test_cli_flash_crowd_json_and_figure(tmp_path, capsys):
    out = tmp_path / "crowd.png"
    assert main(["cosim", "--scenario", "flash-crowd", "--alpha", "0.4", "--beta", "0.226", "--json",
                 "--out", str(out)]) == 0
    summary = json.loads(capsys.readouterr().out)
    for side in ("fluid", "packet"):
        assert {"peak_queue_bdp", "dropped_bdp", "recovery_rtt"} <= set(summary[side])
        assert summary[side]["peak_queue_bdp"] <= 1.0
    assert set(summary["conservation"]) == {"sent", "delivered", "dropped", "in_flight"}
    assert out.stat().st_size > 10_000


@pytest.mark.parametrize("value", ["0", "-1", "nan", "x"])
def test_cli_bad_buffer_exits_2(value, capsys):
    assert exit_code(["cosim", "--scenario", "flash-crowd", "--alpha", "0.4", "--beta", "0.2", "--buffer", value]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and value in err and "--buffer" in err


def test_recovery_band_comes_from_before_the_crowd_only():
    """The packet band is measured on the 20 RTTs before the crowd: adding noise to R/C after the
    crowd changes the recovery it judges, not the band (no tuning on the reported points)."""
    import dataclasses

    from rcpstab.reference_impl.cosim.flash_crowd import _packet_response
    from rcpstab.reference_impl.simulator.run import run_scenario

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

    from rcpstab.reference_impl.simulator import run as run_module
    from rcpstab.reference_impl.routers.rcp.control import RcpController

    class FluidRtt(RcpController):
        def update(self, input_bytes, rtt_sum, rtt_count, queue_bytes, tr):
            self.avg_rtt = 50.0 + queue_bytes / self.link_rate   # ms: d0 + q/C
            return super().update(input_bytes, 0, 0, queue_bytes, tr)

    original = run_module.make_controller

    def make(*args, **options):
        c = original(*args, **options)
        return FluidRtt(link_rate=c.link_rate, alpha=c.alpha, beta=c.beta, eta=c.eta, rate=c.rate,
                        avg_rtt=c.avg_rtt, mtu=c.mtu)

    scenario = flash_crowd(*NETWORKS[0])
    for gains in [(0.4, 0.2), (0.6, 0.2)]:
        with mock.patch.object(run_module, "make_controller", make):
            r = flash_crowd_cosim(scenario, *gains)
        assert r.packet.overload_d_over_d0 > 1.9
        assert r.fluid.trough_R_over_C / 2 < r.packet.trough_R_over_C < 2 * r.fluid.trough_R_over_C
        assert r.packet.stall_rtt < 2.0
    assert r.agreement()["recovery_rtt"] < AGREEMENT and r.agreement()["dropped_bdp"] < AGREEMENT


@pytest.mark.parametrize("extra, named", [(["--C", "-1"], "--C -1"), (["--N", "0"], "--N 0"), (["--rtt", "0"], "--rtt 0"),
                                          (["--t-end", "5"], "--t-end"), (["--csv", "x.csv"], "--csv")])
def test_cli_flash_crowd_bad_options_exit_2(extra, named, capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert main(["cosim", "--scenario", "flash-crowd", "--alpha", "0.4", "--beta", "0.2", *extra]) == 2
    err = capsys.readouterr().err
    # the option and the value are both named (the one table of domains words the rest)
    assert err.count("\n") == 1 and all(part in err for part in named.split()) and "Traceback" not in err
