"""rcpstab check tells feasibility from tuning: one test per class of network no gains can serve.

Each class is checked against a second method: the rate floors against the ``rcp`` fluid model
itself (the bound falls between two whole flow counts, and the fluid runs change verdict there
for every gain tried), the header bounds against the router's and sender's code.
"""

import math

import pytest

from rcpstab.check import parse_config, run_checks
from rcpstab.check.checks import CheckReport
from rcpstab.check.envelope import network
from rcpstab.check.feasibility import classify, feasibility_finding, feasible
from rcpstab.check.nonlinear import stability, step_responses
from rcpstab.check.suggestion import steps_pass, suggest
from rcpstab.packet.hosts.rtcp_host_py import NS_PER_MS, fill_header
from rcpstab.packet.routers.rcp.control import rate_register
from rcpstab.packet.routers.rcp.datapath_py import PortRegisters, dp_arrive

MTU_BITS = 12000
GAINS = [(0.4, 0.226), (0.5, 0.5), (1.0, 0.3)]


def config(envelope=None, **router):
    return parse_config({"router": {"ALPHA": 0.4, "BETA": 0.226, **router}, "envelope": envelope or {}})


def flows_at_bound(capacity_bps, d0_s, factor, fraction=0.01):
    """The largest N whose fair share eta*C/(factor*N) is still >= MIN_RATE = fraction*MTU/d0 (eta = 1)."""
    return math.floor(capacity_bps / (factor * fraction * MTU_BITS / d0_s))


@pytest.mark.parametrize("factor, step", [(1, "steady"), (2, "doubling"), (10, "flash_crowd")])
def test_rate_floor_bound_is_where_the_fluid_model_stops_converging(factor, step):
    """C = 10 Mb/s, d0 = 10 ms: MIN_RATE = 12 kb/s, so N*factor flows fit up to 833."""
    cfg = config()
    n_ok = flows_at_bound(10e6, 0.01, factor)
    ok, bad = network(cfg, 10e6, 0.01, n_ok), network(cfg, 10e6, 0.01, n_ok + 1)
    assert classify(cfg, ok) is None or classify(cfg, ok).step != step
    found = classify(cfg, bad)
    assert found.step == step and found.bound == "min_rate"
    assert "MIN_RATE" in found.text and "Fix:" in found.text and f"at most {n_ok} flows" in found.text

    def verdict(net, alpha, beta):
        doubling, crowd = step_responses(net, alpha, beta, 500)
        return {"steady": stability(net, alpha, beta)[0], "doubling": doubling.verdict, "flash_crowd": crowd.verdict}[step]

    for alpha, beta in GAINS:
        assert verdict(bad, alpha, beta) != "converged", (alpha, beta)
    assert verdict(ok, 0.4, 0.226) == "converged"  # inside the bound, XCP's gains converge


def test_fair_share_below_the_header_rate_unit():
    """10 Mb/s, 1 s, 1000 flows: 10 kb/s each, 5 kb/s after a doubling, below the 8 kb/s the header carries.
    MIN_RATE there is only 0.12 kb/s, and lowering it does not help: the data path stamps at least 1 byte/ms."""
    cfg = config()
    net = network(cfg, 10e6, 1.0, 1000)
    found = classify(cfg, net)
    assert found.step == "doubling" and found.bound == "wire_rate"
    assert "lowering MIN_RATE does not help" in found.text
    share_bytes_per_ms = 10e6 / 2000 / 8000
    stamped_bps = rate_register(share_bytes_per_ms) * 8000
    assert stamped_bps * 2000 > 10e6  # what the senders are told overloads the link
    assert classify(config(MIN_RATE_MTU_FRACTION=1e-6), net).bound == "wire_rate"


def test_rtt_at_or_above_max_allowable_rtt():
    cfg = config(MAX_ALLOWABLE_RTT_MS=500)
    found = classify(cfg, network(cfg, 100e6, 0.5, 10))
    assert found.step == "steady" and found.bound == "max_allowable_rtt" and "MAX_ALLOWABLE_RTT_MS" in found.text
    assert classify(cfg, network(cfg, 100e6, 0.499, 10)) is None
    port = PortRegisters(max_rtt=500)  # the data path (App. F line 19) drops that sample
    dp_arrive(port, fill_header(0, 0, 500, 6), 1500)
    dp_arrive(port, fill_header(0, 0, 499, 6), 1500)
    assert port.rtt_count == 1 and port.rtt_sum == 499


def test_rtt_below_the_header_millisecond():
    cfg = config()
    found = classify(cfg, network(cfg, 100e6, 0.0005, 1))
    assert found.step == "steady" and found.bound == "rtt_resolution"
    assert int(0.0005 * 1e9) // NS_PER_MS == 0  # what the sender writes in the header (ms, truncated)
    assert classify(cfg, network(cfg, 100e6, 0.001, 1)) is None


def test_feasible_envelope_gets_a_passing_finding():
    cfg = config({"rtt_ms": [20, 200], "link_mbps": [100, 10000], "flows": [1, 100]})
    from rcpstab.check.envelope import envelope_networks

    finding = feasibility_finding(cfg, envelope_networks(cfg, 4))
    assert finding.passed and finding.figure == 0


# The envelope shrunk to the corners that show each case: 10 Mb/s, 10 ms, and 100 or 1000 flows.
MIXED = {"rtt_ms": [10, 10], "link_mbps": [10, 10], "flows": [100, 1000]}


def test_infeasible_corners_are_named_and_never_blamed_on_the_gains():
    cfg = config(MIXED)
    report = run_checks(cfg, "all", samples=0)
    feas = report.finding("envelope_feasible")
    assert not feas.passed and feas.figure == 2 and feas.gates("all")
    assert "C = 10 Mb/s, d0 = 10 ms, N = 1000" in feas.explanation and "MIN_RATE" in feas.explanation
    assert "C = 10 Mb/s, d0 = 10 ms, N = 100 after a 10x flash crowd" in feas.explanation
    # the gains are judged on what is feasible: N = 100 converges and recovers from a doubling
    assert report.finding("nonlinear_stability").passed
    assert report.finding("load_doubling").passed
    assert report.finding("flash_crowd").passed and "not judged" in report.finding("flash_crowd").explanation
    assert not any("the gains, not T" in f.explanation for f in report.findings)
    assert report.gains_passed and not report.passed
    assert "cannot be served by any gains" in report.summary
    found = suggest(cfg, "all", 0, 1, report=report)
    assert found["alpha"] is None and found["text"].startswith("no other gains suggested")
    assert "no suggestion fixes them" in found["reason"]


def test_suggestion_screen_skips_a_step_no_gains_can_pass():
    """The flash crowd at N = 100 (1000 flows, 10 kb/s < 12 kb/s) used to screen out every candidate."""
    cfg = config({"rtt_ms": [10, 10], "link_mbps": [10, 10], "flows": [100, 100]})
    assert not feasible(cfg, [network(cfg, 10e6, 0.01, 100)], "flash_crowd")[0]
    assert steps_pass(cfg, [(0.4, 0.226), (0.6, 0.2)]).all()


def test_gain_failures_on_feasible_networks_still_get_a_suggestion():
    """Unstable gains on the mixed envelope fail on N = 100 (feasible): the report blames them there, and
    the suggestion's report passes every gain finding while naming the excluded networks."""
    cfg = config(MIXED, ALPHA=0.5, BETA=0.5)
    report = run_checks(cfg, "linear", samples=0)
    assert not report.gains_passed
    found = suggest(cfg, "linear", 0, 1, report=report)
    assert found["alpha"] is not None and found["report"].gains_passed
    assert "2 of the 2 envelope networks" in found["text"] and "no suggestion fixes them" in found["text"]


def test_report_json_is_strict(tmp_path):
    import json

    report = run_checks(config(MIXED), "all", samples=0)
    text = json.dumps(CheckReport.to_dict(report), allow_nan=False)
    assert "envelope_feasible" in text


@pytest.mark.slow
@pytest.mark.parametrize("alpha, beta", [(0.4, 0.226), (0.5, 0.5)])
def test_check_on_a_feasible_envelope_gives_the_lenses_verdicts(alpha, beta):
    """XCP's and the thesis' gains on a feasible network: ``check --criterion nonlinear --packet`` says what
    the phase-plane lens and the packet lens say there, asked directly (about 10 s)."""
    from rcpstab import api
    from rcpstab.check.envelope import envelope_networks
    from rcpstab.check.packet import corner_scenario
    from rcpstab.models import get_model
    from rcpstab.packet.lens.region import packet_region

    cfg = config({"rtt_ms": [100, 100], "link_mbps": [100, 100], "flows": [10, 10]}, ALPHA=alpha, BETA=beta)
    report = run_checks(cfg, "nonlinear", samples=0, packet=True)
    assert report.finding("envelope_feasible").passed
    net = envelope_networks(cfg, 0)[0]
    fluid = api.region(
        "rcp",
        [alpha],
        [beta],
        method="phaseplane",
        C=[net["C"]],
        d0=[net["d0"]],
        N=[net["N"]],
        T=net["T"],
        buffer_bdp=cfg.envelope.buffer_bdp,
    )
    packet = packet_region(get_model("rcp"), [alpha], [beta], scenario=corner_scenario(net))
    assert bool(fluid.stable[0, 0]) == report.finding("nonlinear_stability").passed
    assert bool(packet.stable[0, 0]) == report.finding("packet_confirmation").passed
    assert packet.table["convergence_rtt"][0] == pytest.approx(report.finding("packet_confirmation").figure)
    assert report.passed  # both lenses converge there: (0.5, 0.5) too, though linearly unstable


PACKET_CORNER = {"rtt_ms": [20, 20], "link_mbps": [10000, 10000], "flows": [100, 100]}


def test_packet_suggestion_past_its_budget_names_what_it_was_not_checked_against(monkeypatch):
    """With no packet tries left, the fluid-verified suggestion says which findings it was not checked against."""
    import importlib

    suggest_module = importlib.import_module("rcpstab.check.suggestion")
    monkeypatch.setattr(suggest_module, "PACKET_TRIES", 0)
    monkeypatch.setattr(suggest_module, "PACKET_POOL", 1)
    cfg = config(PACKET_CORNER, ALPHA=0.6, BETA=0.45)  # gain margin below 2: fails, cheaply
    found = suggest(cfg, "all", 0, 1, packet=True)
    assert found["alpha"] is not None and not found["verified_with_packet"]
    assert found["not_checked"] == ["packet_confirmation", "packet_flash_crowd"]
    assert "NOT checked against packet_confirmation, packet_flash_crowd" in found["text"]


@pytest.mark.slow
def test_packet_suggestion_passes_the_packet_findings_when_rerun():
    """The issue's case (10 Gb/s, 20-200 ms, 1-100 flows) at XCP's gains fails packet_confirmation; its fluid-only
    suggestion (0.35, 0.176) failed the packet flash crowd. The suggestion now, rerun independently with
    --packet, passes everything (about 30 s of CPU)."""
    cfg = config({"rtt_ms": [20, 200], "link_mbps": [10000, 10000], "flows": [1, 100]})
    report = run_checks(cfg, "all", samples=0, packet=True)
    assert not report.finding("packet_confirmation").passed
    found = suggest(cfg, "all", 0, 1, packet=True, report=report)
    assert found["verified_with_packet"], found["text"]
    rerun = run_checks(cfg.with_gains(found["alpha"], found["beta"]), "all", samples=0, packet=True)
    assert rerun.passed
