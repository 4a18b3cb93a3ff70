"""XCP fluid model: its linearization is the paper's loop, it shares RCP's plane, and Theorem 1."""

import json

import matplotlib
import numpy as np
import sympy as sp

from rcpstab.cli import main
from rcpstab.linear.exact import exact_region
from rcpstab.linear.linearization import lam, linearize, s
from rcpstab.linear.margins import margins
from rcpstab.linear.quasipoly import quasi_polynomial
from rcpstab.linear.roots import rightmost_root
from rcpstab.models import get_model, xcp
from rcpstab.models.symbols import alpha, beta, d0
from rcpstab.theorem1 import theorem1_exit, theorem1_plot

matplotlib.use("Agg")


def test_linearization_is_the_papers_loop():
    # xcp-katabi.txt App. B: G(s) = (K1 s + K2)/s^2 e^{-ds}, K1 = alpha/d, K2 = beta/d^2;
    # the closed loop 1 + G = 0 is s^2 + (K1 s + K2) e^{-ds} = 0.
    K1, K2 = alpha / d0, beta / d0**2
    system = linearize(xcp.MODEL)
    assert sp.simplify(system.open_loop - (K1 * s + K2) / s**2 * sp.exp(-d0 * s)) == 0
    assert sp.simplify(system.characteristic - (s**2 + (K1 * s + K2) * sp.exp(-d0 * s))) == 0


def test_same_characteristic_as_rcp_and_paper_point_is_in_the_rcp_plane():
    xcp_char = linearize(xcp.MODEL).normalized_characteristic
    rcp_char = linearize(get_model("rcp")).normalized_characteristic
    assert sp.simplify(xcp_char - rcp_char) == 0
    assert sp.simplify(xcp_char - (lam**2 + (alpha * lam + beta) * sp.exp(-lam))) == 0
    a, b = xcp.PAPER_POINT
    m_xcp, m_rcp = margins(xcp.MODEL, a, b), margins(get_model("rcp"), a, b)
    assert m_xcp.stable and m_rcp.stable
    assert np.isclose(m_xcp.phase_margin_deg, m_rcp.phase_margin_deg)
    assert np.isclose(m_xcp.gain_margin, m_rcp.gain_margin)
    assert m_xcp.phase_margin_deg > 0 and m_xcp.gain_margin > 1
    assert exact_region(get_model("rcp"), [a], [b]).stable[0, 0]


def test_theorem1_curve_inside_exact_region():
    bound = float(xcp.ALPHA_MAX)
    alphas = np.linspace(1e-3, bound * (1 - 1e-3), 400)  # the open interval (0, pi/(4 sqrt 2))
    counts = quasi_polynomial(xcp.MODEL).count_unstable(alphas, xcp.theorem1_beta(alphas))
    assert np.all(counts == 0)
    # Closer to the bound the root is too near the axis for the phase count; use the root itself.
    assert rightmost_root(xcp.MODEL, bound - 1e-6, float(xcp.theorem1_beta(bound - 1e-6))).real < 0


def test_theorem1_exit_is_where_theory_predicts():
    # On beta = sqrt(2) alpha^2 the crossing curve alpha = w sin w, beta = w^2 cos w gives
    # cos w = sqrt(2) sin^2 w, so cos w = 1/sqrt(2): w = pi/4, alpha = pi/(4 sqrt 2) exactly.
    bound = float(xcp.ALPHA_MAX)
    for model in (xcp.MODEL, get_model("rcp")):
        exit_alpha = theorem1_exit(model)
        assert exit_alpha >= bound - 1e-9  # a sufficient condition is conservative
        assert abs(exit_alpha - bound) < 1e-9  # and this one is tight


def test_theorem1_plot_on_a_region_figure():
    import matplotlib.pyplot as plt

    from rcpstab.plotting import region_plot

    region = exact_region(xcp.MODEL, np.arange(0.05, 1.01, 0.05), np.arange(0.05, 1.01, 0.05))
    fig, ax = plt.subplots()
    region_plot(region, ax=ax)
    before = len(ax.lines)
    theorem1_plot(ax, alpha_max=0.9)
    assert len(ax.lines) == before + 3
    a, b = xcp.theorem1_curve()
    assert np.isclose(a[-1], float(xcp.ALPHA_MAX)) and np.allclose(b, np.sqrt(2) * a**2)
    plt.close(fig)


def test_cli_exact_margins_phaseplane(tmp_path, capsys):
    csv_path = tmp_path / "xcp.csv"
    assert (
        main(
            [
                "map",
                "--model",
                "xcp",
                "--method",
                "exact",
                "--alpha",
                "0.1:1.0:0.1",
                "--beta",
                "0.1:1.0:0.1",
                "--csv",
                str(csv_path),
            ]
        )
        == 0
    )
    assert csv_path.read_text().splitlines()[0].startswith("alpha,beta,stable")
    assert capsys.readouterr().out.startswith("exact region of xcp: ")  # the one-line summary (issue 15)
    assert main(["margins", "--model", "xcp", "--alpha", "0.4", "--beta", "0.226", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["stable"] is True and out["phase_margin_deg"] > 0
    assert (
        main(["map", "--model", "xcp", "--method", "phaseplane", "--alpha", "0.2:0.4:0.2", "--beta", "0.2:0.4:0.2", "--json"])
        == 0
    )
    out = json.loads(capsys.readouterr().out)
    assert out["model"] == "xcp" and np.array(out["stable"]).shape == (2, 2)
