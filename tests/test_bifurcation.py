"""Bifurcation lens: continuation sweeps, the Hopf normal form of delay models, the command."""

import json
import math

import numpy as np
import pytest
from conftest import rcp_boundary_curve

from rcpstab.bifurcation import bifurcation_sweep, first_lyapunov, hopf_point
from rcpstab.bifurcation.measure import measure_cycles
from rcpstab.bifurcation.smooth import RCP_RATE, RCP_UNCLAMPED
from rcpstab.bifurcation.textbook import HUTCHINSON_AMPLITUDE, hutchinson_model
from rcpstab.cli import main
from rcpstab.models import get_model
from rcpstab.phaseplane import simulate
from rcpstab.phaseplane.setup import make_integrator


def closed_form_alpha(beta):
    """High-alpha branch of alpha = w sin w, beta = w^2 cos w."""
    a, b = rcp_boundary_curve()
    peak = np.argmax(b)
    return float(np.interp(beta, b[peak:][::-1], a[peak:][::-1]))


# --- continuation on the linear model: decay before the boundary, growth past it, at the root's rate ---


def test_linear_sweep_decays_before_and_grows_past_the_exact_boundary_at_the_rightmost_root_rate():
    alphas = np.round(np.arange(1.30, 1.501, 0.02), 3)
    d = bifurcation_sweep(get_model("linear"), alphas, [0.3], rtts=200)
    (boundary,) = d.boundaries[0.3]
    assert boundary == pytest.approx(closed_form_alpha(0.3), abs=1e-6)
    checked = 0
    for row in d.rows:
        root = row["rightmost_real_rtt"]  # regions lens: collocation + Newton
        if row["state"] == "diverged" or abs(root) < 5e-3:
            continue
        assert np.sign(row["growth_rtt"]) == np.sign(root) == np.sign(row["alpha"] - boundary)
        # measured on the trace (envelope of the compiled integrator's samples) vs the characteristic root
        assert row["growth_rtt"] == pytest.approx(root, rel=0.03)
        checked += 1
    assert checked >= 14
    assert not d.hysteresis  # a linear system has one attractor


def test_sweep_json_is_strict_and_has_the_contract_fields(capsys):
    code = main(["bifurcation", "--model", "linear", "--alpha", "1.3:1.5:0.1", "--beta", "0.3", "--json", "--rtts", "60"])
    out = capsys.readouterr().out
    assert code == 0
    payload = json.loads(out, parse_constant=lambda c: pytest.fail(f"non-strict JSON constant {c}"))
    assert len(payload["points"]) == 6
    for p in payload["points"]:
        assert {"alpha", "beta", "amplitude", "period_rtt", "direction", "hysteresis"} <= set(p)
        assert p["direction"] in ("up", "down") and isinstance(p["hysteresis"], bool)
        for key in ("amplitude", "period_rtt"):
            assert p[key] is not None or key in p["null_reasons"]


@pytest.mark.parametrize(
    "argv, word",
    [
        (["--alpha", "1.5:1.3:0.1", "--beta", "0.3"], "reversed"),
        (["--alpha", "1.3:1.5:0.1", "--beta", "0.1:0.3:0.1"], "exactly one"),
        (["--alpha", "1.3:1.5:0.1", "--beta", "-0.3"], "-0.3"),
        (["--alpha", "1.3:1.5:0.1", "--beta", "0.3", "--model", "nope"], "nope"),
        (["--alpha", "1.3:1.5:0.1", "--beta", "0.3", "--rtts", "nan"], "rtts"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(capsys, argv, word):
    assert main(["bifurcation", *argv]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and word in err


def test_figure_is_written(tmp_path, capsys):
    png = tmp_path / "b.png"
    assert (
        main(
            [
                "bifurcation",
                "--model",
                "linear",
                "--beta",
                "1.3:1.5:0.1",
                "--alpha",
                "1.0",
                "--out",
                str(png),
                "--rtts",
                "40",
                "--quiet",
            ]
        )
        == 0
    )
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert capsys.readouterr().out == ""


# --- first Lyapunov coefficient ---


def test_hutchinson_normal_form_matches_the_textbook():
    point = hopf_point(hutchinson_model(), (1.4, 1.7))
    assert point.critical == pytest.approx(math.pi / 2, abs=1e-10)
    assert point.omega_rtt == pytest.approx(math.pi / 2, abs=1e-10)
    assert point.criticality == "supercritical" and point.l1 < 0
    # root speed d lambda / d a = e^{-i w} / (1 - a e^{-i w})... real part (pi/2)/(1 + pi^2/4)
    assert point.speed == pytest.approx((math.pi / 2) / (1 + math.pi**2 / 4), rel=1e-6)
    # Chow & Mallet-Paret / Hassard-Kazarinoff-Wan: amplitude = sqrt(40 (a - pi/2) / (3 pi - 2))
    assert point.gamma_coefficient == pytest.approx(HUTCHINSON_AMPLITUDE, rel=1e-6)


def test_hutchinson_amplitude_law_holds_in_simulation():
    """Third, independent route: the compiled integrator's cycles approach sqrt(40 d / (3 pi - 2))."""
    d = np.array([0.01, 0.04])
    integ = make_integrator(hutchinson_model(), {"alpha": math.pi / 2 + d}, {"gamma0": 2.3 * np.sqrt(d)})
    n = int(2000 / integ.dt)
    x = integ.run(n, record_every=1)[:, :, 0]
    m = measure_cycles(np.arange(1, n + 1) * integ.dt, x, 0 * x, 1500)
    ratio = m.amplitude / np.sqrt(d)
    assert ratio[0] == pytest.approx(HUTCHINSON_AMPLITUDE, rel=0.005)
    assert abs(ratio[0] - HUTCHINSON_AMPLITUDE) < abs(ratio[1] - HUTCHINSON_AMPLITUDE)  # O(d) correction
    assert m.period_rtt[0] == pytest.approx(4.0, rel=0.01)


def test_linear_model_hopf_point_is_degenerate():
    point = hopf_point(get_model("linear"), (1.3, 1.5), beta=0.3)
    assert point.critical == pytest.approx(closed_form_alpha(0.3), abs=1e-9)
    assert point.l1 == 0.0 and point.criticality == "degenerate"


def test_rate_only_rcp_reduces_to_hutchinson_as_T_vanishes():
    point = hopf_point(RCP_RATE, (1.4, 1.7), T=1e-7)
    assert point.critical == pytest.approx(math.pi / 2, abs=1e-9)
    # rho = N R / C obeys Wright's equation: R/C amplitude = Hutchinson's / N
    assert point.gamma_coefficient == pytest.approx(HUTCHINSON_AMPLITUDE / 10, rel=1e-4)


def test_rcp_unclamped_supercritical_point_amplitude_law_matches_simulation():
    point = hopf_point(RCP_UNCLAMPED, (1.40, 1.45), beta=0.3)
    assert point.critical == pytest.approx(closed_form_alpha(0.3), abs=1e-9)
    assert point.criticality == "supercritical"
    alphas = point.critical + np.array([0.0025, 0.01])
    tr = simulate(
        RCP_UNCLAMPED,
        {"alpha": alphas, "beta": 0.3},
        {"gamma0": 0.1 + point.predicted_amplitude(alphas)},
        2500 * 0.2,
        record_every=1,
    )
    m = measure_cycles(tr.rtt, tr.gamma, tr.queue / (0.15e9 * 0.2), 2000)
    ratio = m.amplitude / point.predicted_amplitude(alphas)
    assert ratio[0] == pytest.approx(1.0, abs=0.015)
    assert abs(ratio[0] - 1) < abs(ratio[1] - 1)
    assert m.period_rtt[0] == pytest.approx(2 * math.pi / point.omega_rtt, rel=0.005)


def test_first_lyapunov_refuses_a_point_off_the_boundary():
    with pytest.raises(ValueError, match="boundary"):
        first_lyapunov(RCP_UNCLAMPED, alpha=1.2, beta=0.3)


def test_subcritical_rcp_unclamped_has_no_small_cycle_past_the_boundary():
    """beta = 0.1: l1 > 0, so past the boundary the sweep finds no small settled cycle."""
    point = hopf_point(RCP_UNCLAMPED, (1.50, 1.55), beta=0.1)
    assert point.criticality == "subcritical"
    alphas = np.round(np.arange(1.53, 1.571, 0.01), 3)
    d = bifurcation_sweep(RCP_UNCLAMPED, alphas, [0.1], rtts=300)
    for row in d.rows:
        assert row["state"] in ("growing", "diverged")


def test_subcritical_textbook_equation_shows_hysteresis_below_its_hopf_point():
    """Normal form says subcritical; the up sweep stays at the equilibrium while the down sweep
    stays on the large cycle, below alpha* only (above it the equilibrium is unstable)."""
    from rcpstab.bifurcation.textbook import bistable_model

    model = bistable_model()
    point = hopf_point(model, (1.4, 1.7), beta=1.0)
    assert point.criticality == "subcritical" and point.critical == pytest.approx(math.pi / 2, abs=1e-10)
    d = bifurcation_sweep(model, np.round(np.arange(1.3, 1.751, 0.05), 3), [1.0], rtts=200, start=(0.5, 0.0))
    flagged = sorted({r["alpha"] for r in d.rows if r["hysteresis"]})
    assert flagged == [1.35, 1.4, 1.45, 1.5]
    up = {r["alpha"]: r for r in d.branch(1.0, "up")}
    down = {r["alpha"]: r for r in d.branch(1.0, "down")}
    assert up[1.45]["state"] == "equilibrium" and down[1.45]["state"] == "cycle" and down[1.45]["amplitude"] > 0.5


def test_supercritical_textbook_equation_has_no_hysteresis():
    d = bifurcation_sweep(
        hutchinson_model_shifted(), np.round(np.arange(1.45, 1.751, 0.05), 3), [1.0], rtts=300, start=(0.5, 0.0)
    )
    assert not d.hysteresis
    settled = [r for r in d.rows if r["state"] == "cycle" and r["alpha"] >= 1.65]
    assert settled
    for r in settled:  # the cycles follow Hutchinson's amplitude law (0.2 past the point: within 10%)
        assert r["amplitude"] == pytest.approx(HUTCHINSON_AMPLITUDE * math.sqrt(r["alpha"] - math.pi / 2), rel=0.1)


def hutchinson_model_shifted():
    """Hutchinson's equation about y = 1 + x (the sweep measures relative to the equilibrium)."""
    import sympy as sp

    from rcpstab.models.spec import ModelSpec, t

    y = sp.Function("y")
    a, b, tau = sp.symbols("alpha beta d_0", positive=True)
    g0 = sp.Symbol("gamma_0", nonnegative=True)
    return ModelSpec(
        name="hutchinson-shifted",
        title="Wright's equation about y = 1",
        states=(y,),
        rhs=(-a * (y(t - tau) - 1) * y(t),),
        parameters={a: math.pi / 2, b: 1.0, tau: 1.0},
        equilibrium={y: sp.Integer(1)},
        loop_parameters=(a, b),
        time_scale=tau,
        gamma=y(t),
        queue=sp.Integer(0),
        initial_state={y: g0},
    )


def test_no_queue_term_rcp_sweep_follows_its_supercritical_amplitude_law():
    """beta = 0 (rcp-rate, T = 0.01 s kept): the sweep's settled cycles match the normal form near alpha*."""
    point = hopf_point(RCP_RATE, (1.4, 1.7))
    assert point.criticality == "supercritical"
    d = bifurcation_sweep(RCP_RATE, [1.56, 1.60, 1.62], [0.2], rtts=600)
    assert not d.hysteresis
    for row in d.rows:
        if row["alpha"] < point.critical:
            assert row["state"] in ("decaying", "equilibrium")
        else:
            assert row["state"] == "cycle"
            assert row["amplitude"] == pytest.approx(float(point.predicted_amplitude(row["alpha"])), rel=0.03)
