"""Issue 24, item 2: the high-load regime by two independent methods, the packet flow
simulator and the flow-level fluid model (rcpstab/fct/fluid_flows.py)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from conftest import run_cli

from rcpstab.fct.flow_run import draw_workload, run_flows
from rcpstab.fct.fluid_flows import fluid_flow_run, rho_star, time_average_in_progress
from rcpstab.fct.regime import compare_methods
from rcpstab.fct.ucurve import fixed_rate_fcfs
from rcpstab.packet.hosts.flow_traffic import parse_arrivals, parse_sizes

C, D = 20e6, 0.1  # BDP 250 packets of 1000 bytes


@pytest.mark.slow  # packet and fluid runs: ~5.6 s CPU
def test_fluid_fixed_rate_queue_agrees_with_the_packet_fcfs_queue():
    # Two queue implementations: the fluid model with R held (q integrated in steps) and the
    # exact packet Lindley recursion; FCT - 1.5 d of the fluid is L/R + q/C at the last bit.
    start, size, _ = draw_workload(parse_sizes("exponential:mean=20"), parse_arrivals("poisson"), 3000, 0.7, C, 1000, seed=1)
    R = 0.3 * C
    fl = fluid_flow_run(0.1, 1.0, capacity_bps=C, rtt_s=D, arrival_s=start, size_bits=size * 8000.0, fixed_rate_bps=R, dt_s=1e-4)
    pk = fixed_rate_fcfs(start, size, R, C)
    assert np.mean(fl.fct_s - 1.5 * D) == pytest.approx(pk.mean(), rel=0.03)


def test_fluid_alone_flow_is_the_lower_bound_and_light_load_is_ps():
    r = fluid_flow_run(0.1, 1.0, capacity_bps=C, rtt_s=D, arrival_s=[0.0], size_bits=[37 * 8000.0])
    assert r.fct_s[0] == pytest.approx(1.5 * D + 37 * 8000 / C, abs=D / 200)


def test_rho_star_balances_the_rate_law_against_the_md1_queue():
    for a, b, bdp in [(0.1, 1.0, 250), (0.5, 0.4, 250), (0.1, 1.0, 30000)]:
        u = rho_star(a, b, bdp)
        assert a * (1 - u) * bdp == pytest.approx(b * u * u / (2 * (1 - u)), rel=1e-12)
    assert rho_star(0.1, 1.0, 250) < 0.9 < rho_star(0.5, 0.4, 250)


def _growth(load):
    run = run_flows(
        0.1, 1.0, capacity_bps=C, rtt_s=D, load=load, sizes=parse_sizes("fixed:size=37"), n_flows=4000, seed=3, keep_trace=True
    )
    tr = run.trace
    w = np.flatnonzero((tr["t_s"] > run.window_s[0]) & (tr["t_s"] < run.window_s[1]))
    fifths = [tr["n_active"][i].mean() for i in np.array_split(w, 5)]
    return fifths[-1] / fifths[1]


def test_packet_flows_pile_up_above_rho_star_and_not_below():
    # u* = 0.876 for (0.1, 1.0) on a 250-packet BDP: above it the packet simulator's flows
    # accumulate through the run; well below it they do not. Thresholds fixed before running.
    assert _growth(0.95) > 2.0
    assert _growth(0.80) < 2.0


@pytest.mark.slow  # ~6 s CPU
def test_two_methods_agree_on_the_regime_and_the_packet_queue_closes_the_gap():
    # Fixed 37-packet flows (15% of a BDP) at 0.9, the case: the fluid model without the
    # packet-scale queue stays near 4-5x PS; with it, it reaches the packet simulator's pile-up.
    # Tolerances set after looking at seed 1 (issue 24 notes); experiments/fct_regime.py
    # reports the map on other points.
    r = compare_methods(
        0.1, 1.0, capacity_bps=C, rtt_s=D, load=0.9, sizes=parse_sizes("fixed:size=37"), n_flows=5000, seed=1, fluid_dt_s=1e-3
    )
    pkt, fl, flq = (r[k]["afct_over_ps"] for k in ("packet", "fluid", "fluid_packet_queue"))
    assert fl < 6 and pkt > 1.5 * fl  # the ~2x gap of the issue
    assert flq > 1.5 * fl and 0.6 < flq / pkt < 1.5
    # The box (0.5, 0.4): u* = 0.962 > 0.9, both methods stay within 2.5x PS and agree.
    box = compare_methods(
        0.5, 0.4, capacity_bps=C, rtt_s=D, load=0.9, sizes=parse_sizes("fixed:size=37"), n_flows=3000, seed=1, fluid_dt_s=1e-3
    )
    assert box["packet"]["afct_over_ps"] < 2.5 and box["fluid_packet_queue"]["afct_over_ps"] < 2.5
    assert box["fluid_packet_queue"]["afct_over_ps"] == pytest.approx(box["packet"]["afct_over_ps"], rel=0.35)


def test_time_average_in_progress_is_littles_law_for_a_closed_window():
    a = np.array([0.0, 1.0, 2.0])
    fct = np.array([0.5, 0.5, 0.5])
    assert time_average_in_progress(a, fct, 0.0, 3.0) == pytest.approx(0.5)
    assert math.isclose(time_average_in_progress(a, fct, 0.0, 1.0), 0.5)


@pytest.mark.slow  # two runs of the command, in this process: ~4 s CPU
def test_fct_summary_names_the_regime(capsys):
    base = ["fct", "--alpha", "0.1", "--beta", "1", "--d0", "0.1", "--flows", "1500"]
    code, above, err = run_cli(capsys, *base, "--C", "20e6", "--load", "0.9", "--sizes", "fixed:size=37")
    assert code == 0, err
    assert "regime:" in above and "u* = 0.876" in above
    code, small, err = run_cli(capsys, *base, "--C", "2.4e9", "--load", "0.5")
    assert code == 0, err
    assert "regime:" not in small
