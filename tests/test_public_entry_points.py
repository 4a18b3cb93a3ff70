"""The public entry points the tutorials use in place of internal names (issue 28), each checked against a
closed form or a second method: the exact boundary against its parametrization (alpha, beta) = (w sin w,
w^2 cos w), the crossovers against eq. 5.10 and App. C, the Hopf point of Wright's equation against pi/2
and its amplitude law, the single-flow FCT against 1.5 RTPD + L/C, the FCFS U curve against App. A, a
packet run's verdict against the packet map's, and the router's C datapath against its Python twin."""

import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from scipy.optimize import brentq

import rcpstab
from rcpstab.errors import InputError

TESTS = Path(__file__).resolve().parent


def test_boundary_lies_on_the_crossing_curve_and_its_rows_end_where_it_crosses():
    b = rcpstab.boundary("rcp", 2.0, 1.0)
    table = b.to_pandas()
    w = table["w_d0"].to_numpy()
    # RCP's characteristic equation s^2 + (alpha s + beta) e^{-s} = 0 on s = j w: alpha = w sin w, beta = w^2 cos w
    np.testing.assert_allclose(table["alpha"], w * np.sin(w), rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(table["beta"], w**2 * np.cos(w), rtol=1e-9, atol=1e-12)
    assert np.isnan(b.alpha).sum() == np.isnan(b.beta).sum() and b.alpha.size >= len(table)
    for beta in (0.1, 0.3, 0.5):
        ends = [brentq(lambda x, b=beta: x**2 * math.cos(x) - b, lo, hi) for lo, hi in ((1e-6, 1.0768), (1.0770, math.pi / 2))]
        np.testing.assert_allclose(b.alpha_interval(beta), [x * math.sin(x) for x in ends], atol=1e-9)
    # a Pade delay moves the ends (App. D): order 8 is within 1e-3 of the exact ones, order 1 is not
    exact = b.alpha_interval(0.3)
    assert np.abs(b.alpha_interval(0.3, pade=8) - exact).max() < 1e-3 < np.abs(b.alpha_interval(0.3, pade=1) - exact).max()


def test_crossovers_over_a_grid_follow_eq_5_10_and_app_c():
    A, B = np.meshgrid(np.linspace(0.1, 1.5, 8), np.linspace(0.05, 0.9, 6))
    c = rcpstab.crossovers("rcp", A, B)
    assert c.gain_w.shape == A.shape
    np.testing.assert_allclose(c.gain_w, np.sqrt((A**2 + np.sqrt(A**4 + 4 * B**2)) / 2), rtol=1e-9)
    assert (np.isnan(c.phase_w) == (A <= B)).all()  # App. C: a phase crossover needs alpha > beta
    assert (c.gain_count == 1).all()  # |G| crosses 1 once for RCP
    assert len(c.to_pandas()) == A.size


def test_model_bode_on_a_grid_is_the_loop_value():
    w = np.array([0.2, 0.7, 3.0])
    r = rcpstab.bode("rcp", 0.4, 0.2, w=w)
    np.testing.assert_allclose(r.magnitude, np.sqrt(0.16 * w**2 + 0.04) / w**2, rtol=1e-12)
    with pytest.raises(InputError, match="w: frequencies"):
        rcpstab.bode("rcp", 0.4, 0.2, w=[-1.0])


def test_hopf_point_of_wrights_equation_and_a_row_of_rcp_unclamped():
    h = rcpstab.hopf("hutchinson", alpha=(1.4, 1.7)).points[0]
    assert h.critical == pytest.approx(math.pi / 2, abs=1e-10) and h.omega_rtt == pytest.approx(math.pi / 2, abs=1e-9)
    assert h.gamma_coefficient == pytest.approx(math.sqrt(40 / (3 * math.pi - 2)), rel=1e-6)
    row = rcpstab.hopf("rcp-unclamped", beta=0.3)
    # the Hopf points of the smooth model are the exact boundary's crossings of the row beta = 0.3
    np.testing.assert_allclose(sorted(p.critical for p in row.points), rcpstab.boundary("rcp").alpha_interval(0.3), atol=1e-7)
    assert list(row.to_pandas()["criticality"]) == [p.criticality for p in row.points]
    with pytest.raises(InputError, match="bracket"):
        rcpstab.hopf("rcp-unclamped", alpha=(1.7, 1.4))


def test_orbit_period_near_onset_and_no_cycle_inside():
    near = rcpstab.orbit("hutchinson", 1.6, rtts=300)
    # just past a* = pi/2 the cycle has the Hopf frequency pi/2 (period 4) and the normal form's amplitude
    assert near.stable and near.period == pytest.approx(4.0, abs=0.05)
    h = rcpstab.hopf("hutchinson", alpha=(1.4, 1.7)).points[0]
    assert near.amplitude == pytest.approx(float(h.predicted_amplitude(1.6)), rel=0.1)
    assert rcpstab.orbit("hutchinson", 1.3, rtts=300).to_dict()["cycle"] is False


def test_fct_study_single_flow_and_u_curve_against_their_closed_forms():
    for size in (1, 30):
        run = rcpstab.fct_study("flows", alpha=0.4, beta=0.2, C=10e6, d0=0.1, load=0.5, sizes=f"fixed:size={size}", flows=1)
        assert 0 < run.fct_s[0] - (1.5 * 0.1 + size * 8000 / 10e6) < 8000 / 10e6
    curve = rcpstab.fct_study(
        "u-curve",
        rates=[0.01e8, 0.02e8, 0.05e8],
        C=1e8,
        sizes="bpareto:mean=25,shape=1.2,max=1000",
        flows=20000,
        load=0.8,
        seed=4,
    )
    # App. A's model holds where many flows share C at a low fixed rate (notebook 07: within 1.1% up to 0.1 C, mean of seeds 1-3)
    np.testing.assert_allclose(curve["duration_s"], curve["app_a_duration_s"], rtol=0.02)
    w = rcpstab.fct_study("workload", sizes="fixed:size=10", flows=1000, load=0.6, C=1e8, seed=2)
    assert w["size_pkts"].sum() * 8000 / (1e8 * w["start_s"][-1]) == pytest.approx(0.6, rel=1e-6)  # drawn to the load
    with pytest.raises(InputError, match="choose from"):
        rcpstab.fct_study("nothing")
    with pytest.raises(InputError, match="unexpected keyword"):
        rcpstab.fct_study("sizes", sizes="fixed:size=1", flows=3)


def test_packet_run_verdicts_match_the_packet_map():
    alphas = [0.4, 1.4]
    table = rcpstab.region("rcp", alphas, [0.6], method="packet", scenario="fig5.3").value.table
    for a, packet, fluid in zip(alphas, table["verdict"], table["fluid_verdict"]):
        run = rcpstab.packet_run("fig5.3", a, 0.6)
        assert run.verdict == packet and run.fluid_verdict("rcp-router") == fluid


def test_router_datapath_twins_agree_and_the_header_round_trips():
    parts = rcpstab.router()
    header = parts.header(rate=400, rtt=120)
    assert parts.header.unpack(header.pack()) == header
    payload = bytes(1488)
    out = []
    for cls in (parts.datapath, parts.datapath_python):
        dp = cls(1)
        dp.set_registers(0, rate=1250, buffer_bytes=64_000)
        packet = parts.header(rate=0, rtt=100).pack() + payload
        dp.arrive(0, packet, len(packet))
        out.append((dp.registers(0), parts.header.unpack(dp.depart(0, packet, len(packet))[:12]).rate))
    assert out[0] == out[1] and out[0][1] == 1250  # the departing header carries the port's rate
    with pytest.raises(InputError):
        rcpstab.router("xcp")


def test_new_entry_points_bad_input_is_one_line():
    proc = subprocess.run(
        [sys.executable, "-c", "import rcpstab; rcpstab.packet_run('fig5.3', -1.0, 0.6)"],
        capture_output=True,
        text=True,
        cwd=TESTS,
    )
    assert proc.returncode != 0 and "alpha" in proc.stderr.strip().splitlines()[-1]
    with pytest.raises(InputError, match="rtt_estimator"):
        rcpstab.packet_run("fig5.3", 0.4, 0.6, rtt_estimator="x")
