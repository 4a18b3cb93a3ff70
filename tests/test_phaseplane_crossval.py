"""Cross-validation with the linear analysis: decay rates vs the rightmost root, map vs exact region."""

import numpy as np
import pytest
from conftest import near_rcp_boundary

from rcpstab.linear.exact import exact_region
from rcpstab.linear.roots import rightmost_root
from rcpstab.models import get_model
from rcpstab.phaseplane import phaseplane_region, simulate


def peak_rate(t, x, start):
    """Exponential rate of the local maxima of ``x`` after ``start`` (parabolic peak refinement)."""
    i = np.flatnonzero((x[1:-1] > x[:-2]) & (x[1:-1] >= x[2:])) + 1
    i = i[t[i] > start]
    a, b, c = x[i - 1], x[i], x[i + 1]
    offset = 0.5 * (a - c) / (a - 2 * b + c)
    times = t[i] + offset * (t[1] - t[0])
    values = b - 0.25 * (a - c) * offset
    return np.polyfit(times, np.log(values), 1)[0]


@pytest.mark.parametrize("alpha, beta", [(0.4, 0.2), (1.0, 0.3), (0.6, 0.8)])
def test_linear_decay_rate_matches_rightmost_root(alpha, beta):
    traj = simulate(
        get_model("linear"),
        {"C": 1.0, "d0": 1.0, "N": 1.0, "alpha": alpha, "beta": beta},
        {"gamma0": 0.5, "q0": 0.5},
        80.0,
        dt=1 / 40,
    )
    root = rightmost_root(get_model("linear"), alpha, beta)
    measured = peak_rate(traj.t, traj.states["q"][:, 0], start=30.0)
    assert measured == pytest.approx(root.real, rel=0.01)


def test_linear_phaseplane_map_agrees_with_exact_region_away_from_boundary():
    alphas = np.round(np.arange(0.1, 2.01, 0.1), 10)
    betas = np.round(np.arange(0.1, 1.01, 0.1), 10)
    model = get_model("linear")
    simulated = phaseplane_region(model, alphas, betas)
    exact = exact_region(model, alphas, betas)
    A, B = np.meshgrid(alphas, betas)
    away = ~near_rcp_boundary(A, B, 0.03)
    assert away.sum() > 150
    assert simulated.agreement(exact, mask=away) == 1.0
    assert simulated.stable.sum() > 10
