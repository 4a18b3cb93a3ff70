"""Certified region: an SDP-found Lyapunov-Krasovskii functional, checked against the other lenses."""

import importlib.util
import sys

import numpy as np
import pytest

from rcpstab.cli import main
from rcpstab.linear.exact import exact_region
from rcpstab.models import get_model
from rcpstab.phaseplane import simulate
from rcpstab.phaseplane.sweep import phaseplane_region
from rcpstab.verdicts.judgement import band_distance

# found, not imported: the code imports cvxpy when it runs; importing it here cost every pytest-xdist worker
# ~2.2 s of CPU at collection, also the worker that does not run this file
if importlib.util.find_spec("cvxpy") is None:
    pytest.skip("cvxpy is not installed", allow_module_level=True)
from rcpstab.linear.certified import certified_region  # noqa: E402

ALPHAS = np.round(np.arange(0.1, 1.91, 0.2), 2)
BETAS = np.round(np.arange(0.1, 0.91, 0.2), 2)


@pytest.fixture(scope="module")
def switched_certified():
    return certified_region(get_model("switched"), ALPHAS, BETAS)


def test_certified_points_are_phase_plane_stable(switched_certified):
    pp = phaseplane_region(get_model("switched"), ALPHAS, BETAS)
    assert switched_certified.stable.sum() >= 8  # the certificate finds something...
    assert not (switched_certified.stable & ~pp.stable).any()  # ...and never a point the phase plane refutes
    assert switched_certified.stable.sum() < pp.stable.sum()  # sufficient only: strictly smaller here


def test_certified_linear_points_are_inside_the_exact_region(switched_certified):
    cert = certified_region(get_model("linear"), ALPHAS, BETAS)
    exact = exact_region(get_model("linear"), ALPHAS, BETAS)
    assert cert.stable.sum() >= 8
    assert not (cert.stable & ~exact.stable).any()
    # switched system = linear system plus a clamped mode: its certificate needs more, never less
    assert not (switched_certified.stable & ~cert.stable).any()


def test_every_certified_point_converges_from_a_grid_of_initial_conditions(switched_certified):
    """Global stability means every start: R/C from 0.1x to 10x the fair rate, queue 0 to 4 BDP."""
    points = [(a, b) for j, b in enumerate(BETAS) for i, a in enumerate(ALPHAS) if switched_certified.stable[j, i]]
    gammas = np.array([0.01, 0.03, 0.1, 0.3, 1.0])
    queues = np.array([0.0, 0.5, 2.0, 4.0]) * 0.15e9 * 0.2
    G, Q = np.meshgrid(gammas, queues)
    a = np.repeat([p[0] for p in points], G.size)
    b = np.repeat([p[1] for p in points], G.size)
    tr = simulate(
        get_model("switched"),
        {"alpha": a, "beta": b},
        {"gamma0": np.tile(G.ravel(), len(points)), "q0": np.tile(Q.ravel(), len(points))},
        1200 * 0.2,
    )
    dist = band_distance(tr.gamma, tr.queue, tr.gamma_eq, tr.queue_eq, tr.capacity * tr.d0)
    assert np.isfinite(dist).all()
    # (1.5, 0.1) sits 0.027 inside the linear boundary (decay ~0.012 per RTT): in the band after ~1000 RTTs
    assert (dist[tr.rtt > 1150] <= 1).all()


def test_margin_is_positive_exactly_where_certified(switched_certified):
    margin = switched_certified.table["margin"].reshape(switched_certified.stable.shape)
    assert (margin[switched_certified.stable] > 0).all()
    assert (margin[~switched_certified.stable] <= 1e-7).all()


def test_map_certified_command(capsys):
    assert main(["map", "--method", "certified", "--model", "switched", "--alpha", "0.5", "--beta", "0.1:0.9:0.4"]) == 0
    assert "certified region of switched: 1 of 3" in capsys.readouterr().out


def test_solver_absent_is_one_line_and_exit_2(monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "cvxpy", None)  # import cvxpy now raises ImportError
    assert main(["map", "--method", "certified", "--model", "switched", "--alpha", "0.5", "--beta", "0.2"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "rcpstab[sdp]" in err


def test_nonlinear_model_is_refused(capsys):
    assert main(["map", "--method", "certified", "--model", "rcp", "--alpha", "0.5", "--beta", "0.2"]) == 2
    assert "not affine" in capsys.readouterr().err


def test_solver_options_leave_out_what_the_installed_solver_does_not_know(monkeypatch):
    """A setting the installed Clarabel lacks (as ``max_threads`` is absent from its single-threaded releases)
    is left out, so the solve runs; passed as it is, cvxpy fails the solve on it."""
    import cvxpy as cp

    from rcpstab.linear import certified

    if "CLARABEL" not in cp.installed_solvers():
        pytest.skip("Clarabel is not installed")
    monkeypatch.setitem(certified.SOLVER_OPTIONS, "CLARABEL", {"max_threads": 1, "no_such_setting": 2})
    options = certified.solver_options("CLARABEL")
    assert "no_such_setting" not in options
    x = cp.Variable()
    problem = cp.Problem(cp.Minimize(x), [x >= 2])
    problem.solve(solver="CLARABEL", **options)
    assert abs(x.value - 2) < 1e-6
    with pytest.raises(Exception, match="no_such_setting"):
        problem.solve(solver="CLARABEL", **certified.SOLVER_OPTIONS["CLARABEL"])
