"""rcpstab check: configuration parsing, the linear-vs-nonlinear split, exit codes.

The nonlinear tests use a one-corner envelope (rtt, link and flows each a single value) and no
inside samples, so each check integrates one network.
"""

import json
import math

import pytest

from rcpstab.check import load_config, parse_config, run_checks
from rcpstab.cli import main

SMALL_ENVELOPE = "[envelope]\nrtt_ms = [100, 100]\nlink_mbps = [100, 100]\nflows = [10, 10]\n"


def write(tmp_path, text, name="c.toml"):
    path = tmp_path / name
    path.write_text(text)
    return str(path)


@pytest.mark.parametrize(
    "text, message",
    [
        ("[router\nALPHA = 0.4", "TOML syntax error"),
        ("[router]\nALPHA = 0.4\n", "missing key BETA"),
        ("[router]\nALPHA = -0.4\nBETA = 0.2\n", "ALPHA = -0.4"),
        ("[router]\nALPHA = nan\nBETA = 0.2\n", "ALPHA = nan"),
        ("[router]\nALPHA = 0.4\nBETA = 0\n", "BETA = 0.0"),
        ("[router]\nALPHA = 0.4\nBETA = 0.2\nETTA = 1\n", "'ETTA' in [router] (did you mean 'ETA'?)"),
        ("[router]\nALPHA = '0.4'\nBETA = 0.2\n", "expected a number"),
        ("[router]\nALPHA = 0.4\nBETA = 0.2\n[envelope]\nrtt_ms = [500, 15]\n", "rtt_ms = [500, 15]: reversed"),
        ("[router]\nALPHA = 0.4\nBETA = 0.2\n[envelop]\n", "'envelop' in the file (tables) (did you mean 'envelope'?)"),
    ],
)
def test_bad_input_exits_2_with_one_line(tmp_path, capsys, text, message):
    assert main(["check", write(tmp_path, text)]) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1 and "Traceback" not in err


def test_missing_file_exits_2(tmp_path, capsys):
    assert main(["check", str(tmp_path / "nope.toml")]) == 2
    assert "no such file" in capsys.readouterr().err


def test_defaults_filled_in(tmp_path):
    config = load_config(write(tmp_path, "[router]\nALPHA = 0.4\nBETA = 0.2\n"))
    assert config.router.eta == 1.0 and config.router.max_interval_ms == 10.0
    assert config.envelope.rtt_ms == (15.0, 500.0) and config.thresholds.gain_margin_min == 2.0


def test_thesis_point_splits_linear_and_nonlinear():
    config = parse_config(
        {"router": {"ALPHA": 0.5, "BETA": 0.5}, "envelope": {"rtt_ms": [100, 100], "link_mbps": [100, 100], "flows": [10, 10]}}
    )
    report = run_checks(config, "all", samples=0)
    assert not report.passed
    root = report.finding("linear_stability")
    assert not root.passed and root.figure == pytest.approx(0.058, abs=1e-3)
    assert report.finding("nonlinear_stability").passed
    assert "linearly unstable" in report.summary and "--criterion nonlinear" in report.summary
    nonlinear = run_checks(config, "nonlinear", samples=0)
    assert nonlinear.passed
    assert not run_checks(config, "linear", samples=0).passed


def test_pass_exits_0_and_json(tmp_path, capsys):
    path = write(tmp_path, "[router]\nALPHA = 0.6\nBETA = 0.2\n" + SMALL_ENVELOPE)
    assert main(["check", path, "--json", "--samples", "0"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["passed"] is True and {f["name"] for f in out["findings"]} >= {
        "linear_stability",
        "gain_margin",
        "phase_margin",
        "rightmost_root",
        "nonlinear_stability",
        "load_doubling",
        "flash_crowd",
        "peak_queue",
        "update_interval",
    }
    assert all({"name", "passed", "figure", "threshold", "explanation"} <= set(f) for f in out["findings"])


def test_fail_exits_1_with_a_suggestion_that_passes(tmp_path, capsys):
    path = write(tmp_path, "[router]\nALPHA = 0.5\nBETA = 0.5\n" + SMALL_ENVELOPE)
    assert main(["check", path, "--json", "--samples", "0"]) == 1
    out = json.loads(capsys.readouterr().out)
    suggestion = out["suggestion"]
    assert suggestion is not None and suggestion["report"]["passed"]
    again = write(
        tmp_path, f"[router]\nALPHA = {suggestion['alpha']}\nBETA = {suggestion['beta']}\n" + SMALL_ENVELOPE, "again.toml"
    )
    assert main(["check", again, "--samples", "0"]) == 0
    assert math.hypot(suggestion["alpha"] - 0.5, suggestion["beta"] - 0.5) <= 0.3 + 1e-9


PACKET_ENVELOPE = {"rtt_ms": [100, 100], "link_mbps": [10, 10], "flows": [10, 10]}


@pytest.mark.parametrize("alpha, beta, stable", [(0.6, 0.2, True), (3.0, 0.6, False)])
def test_packet_confirmation_agrees_with_the_fluid_verdict(alpha, beta, stable):
    config = parse_config({"router": {"ALPHA": alpha, "BETA": beta}, "envelope": PACKET_ENVELOPE})
    report = run_checks(config, "nonlinear", samples=0, packet=True)
    packet = report.finding("packet_confirmation")
    assert report.finding("nonlinear_stability").passed is stable
    assert packet.passed is stable and "agrees" in packet.explanation
    assert report.passed is stable


def test_packet_corner_skips_networks_with_under_a_few_packets_per_flow():
    # 200 flows on 10 Mb/s at 15 ms: 0.06 packets of C*d0 per flow, every flow overloads the link
    config = parse_config(
        {"router": {"ALPHA": 0.6, "BETA": 0.2}, "envelope": {"rtt_ms": [15, 100], "link_mbps": [10, 10], "flows": [10, 200]}}
    )
    packet = run_checks(config, "nonlinear", samples=0, packet=True).finding("packet_confirmation")
    assert "d0 = 100 ms, N = 10 " in packet.explanation


def test_slow_flash_crowd_is_measured_not_called_divergence():
    # a buffer of 10 000 C*d0 is the unbounded fluid queue of eqs. 5.1-5.4: hundreds of RTTs of drain
    config = parse_config(
        {
            "router": {"ALPHA": 0.4, "BETA": 0.2},
            "envelope": {"rtt_ms": [15, 15], "link_mbps": [10, 10], "flows": [1, 1], "buffer_bdp": 1e4},
        }
    )
    crowd = run_checks(config, "nonlinear", samples=0).finding("flash_crowd")
    assert not crowd.passed and math.isfinite(crowd.figure) and crowd.figure > 300
    assert "not converged" not in crowd.explanation


@pytest.mark.slow  # the full default envelope: ~10 s each on 2 cores
@pytest.mark.parametrize("alpha, beta", [(0.6, 0.2), (0.4, 0.226)])  # the thesis box corner; XCP's gains
def test_box_corner_and_xcp_pass_the_default_envelope_with_its_buffer(alpha, beta):
    report = run_checks(parse_config({"router": {"ALPHA": alpha, "BETA": beta}}), "all", samples=4, workers=2)
    assert report.passed, report.summary
    crowd = report.finding("flash_crowd")
    # recovery measured with the one-BDP buffer, against the threshold derived in config.Thresholds
    assert 20.0 < crowd.figure <= crowd.threshold == 50.0
    assert "peaks at 1 C*d0" in crowd.explanation and "Q1" in crowd.explanation
    assert crowd.details["peak_queue_bdp_max"] == 1.0 and 9.0 < crowd.details["dropped_bdp"] < 15.0
    assert json.dumps(report.to_dict(), allow_nan=False)
    # From the thesis' start (the old equilibrium, R(0) = 2 Re) one C*d0 arrives before any feedback, so a
    # doubling fills the one-BDP buffer: the queue is held at it, and the finding informs without gating.
    doubling = report.finding("peak_queue")
    assert doubling.kind == "info" and doubling.figure == 1.0 and "dropped" in doubling.explanation
    assert report.passed


@pytest.mark.slow
@pytest.mark.parametrize("alpha, beta", [(0.6, 0.2), (0.4, 0.226)])
def test_packet_flash_crowd_passes_on_the_slowest_corner(alpha, beta):
    """The packet simulator on the fluid model's slowest corner of the default envelope (10 Gb/s,
    15 ms, 1 -> 10 flows, simulated at 100 Mb/s): the rate law drives R to MIN_RATE, the R-TCP
    senders hear the rate climb back through their rate-refresh probes (ns-2's RCP host), and the
    packet run recovers within the threshold and within 30% of the fluid model with the router's
    timing (rcp-router), the thesis' box corner and XCP's gains alike."""
    config = parse_config({"router": {"ALPHA": alpha, "BETA": beta}})
    finding = run_checks(config, "nonlinear", samples=0, packet=True).finding("packet_flash_crowd")
    assert finding.passed and finding.figure <= finding.threshold == 50.0
    assert "C = 1e+04 Mb/s, d0 = 15 ms, N = 1 -> 10, simulated at C = 100 Mb/s" in finding.explanation
    fluid, packet = finding.details["fluid"]["recovery_rtt"], finding.details["packet"]["recovery_rtt"]
    assert abs(packet - fluid) < 0.3 * fluid
    assert finding.details["packet"]["peak_queue_bdp"] <= 1.0
    assert "stall:" not in finding.explanation


def test_no_passing_gains_comes_with_the_reason(tmp_path, capsys):
    # a 2-RTT recovery after a 10x crowd is impossible: 9 C*d0 arrive before any feedback
    path = write(tmp_path, "[router]\nALPHA = 0.5\nBETA = 0.5\n" + SMALL_ENVELOPE + "[thresholds]\nflash_crowd_rtt_max = 2\n")
    assert main(["check", path, "--json", "--samples", "0"]) == 1
    suggestion = json.loads(capsys.readouterr().out)["suggestion"]
    assert suggestion["alpha"] is None and suggestion["report"] is None
    assert "too slow after a load doubling or a flash crowd" in suggestion["reason"]


def test_suggestion_is_the_nearest_point_that_passes_by_brute_force(monkeypatch):
    """On a small grid, suggest() agrees with running the full check on every point."""
    import importlib

    suggest_module = importlib.import_module("rcpstab.check.suggestion")  # the package re-exports the function

    grid = [(0.5, 0.6), (0.9, 0.5), (0.45, 0.25), (0.4, 0.2), (1.6, 0.6), (0.2, 0.05)]
    monkeypatch.setattr(suggest_module, "_grid", lambda config: grid)
    config = parse_config(
        {"router": {"ALPHA": 0.5, "BETA": 0.5}, "envelope": {"rtt_ms": [100, 100], "link_mbps": [100, 100], "flows": [10, 10]}}
    )
    passing = [p for p in grid if run_checks(config.with_gains(*p), "all", samples=0).passed]
    found = suggest_module.suggest(config, "all", samples=0, workers=1)
    assert passing and (found["alpha"], found["beta"]) in passing
    nearest = min(round(math.hypot(a - 0.5, b - 0.5) / suggest_module.STEP) for a, b in passing)
    assert round(found["distance"] / suggest_module.STEP) == nearest
    monkeypatch.setattr(suggest_module, "_grid", lambda config: [p for p in grid if p not in passing])
    none = suggest_module.suggest(config, "all", samples=0, workers=1)
    assert none["alpha"] is None and "none of the" in none["reason"]


def test_batched_linear_screen_keeps_the_single_point_candidates(monkeypatch):
    """suggest() screens its grid with one margins_many batch (equal to margins() to rounding): a point whose
    figure is within rounding of a threshold is recomputed singly, so the candidates and their order are those
    of margins() at every point. The phase-margin threshold sits exactly on (0.9, 0.05)'s single-point figure,
    which the batch puts a few ulps below."""
    import importlib

    from rcpstab.linear.batch import MarginsBatch
    from rcpstab.linear.margins import margins
    from rcpstab.models import get_model

    suggest_module = importlib.import_module("rcpstab.check.suggestion")
    edge = margins(get_model("rcp"), 0.9, 0.05).phase_margin_deg
    config = parse_config(
        {"router": {"ALPHA": 0.6, "BETA": 0.45}, "thresholds": {"gain_margin_min": 1.5, "phase_margin_min_deg": edge}}
    )
    grid = suggest_module._grid(config)[::5]  # 35 points, near and wide
    assert (0.9, 0.05) in grid
    monkeypatch.setattr(suggest_module, "_grid", lambda config: grid)
    batched = suggest_module.candidates(config, "linear")

    def single(model, alphas, betas):
        return MarginsBatch(model, {"alpha": alphas, "beta": betas}, [margins(model, a, b) for a, b in zip(alphas, betas)])

    monkeypatch.setattr(suggest_module, "margins_many", single)
    assert batched == suggest_module.candidates(config, "linear")
    assert (0.9, 0.05) in [(a, b) for a, b, _ in batched[0]]  # passes at its threshold
