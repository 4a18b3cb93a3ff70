"""The exact region: boundary at known values, agreement with rightmost roots and closed form."""

import numpy as np
import pytest
from conftest import near_rcp_boundary, rcp_inside
from scipy.optimize import brentq

from rcpstab.errors import InputError
from rcpstab.linear.exact import exact_region, row_crossings
from rcpstab.linear.roots import rightmost_root, rightmost_roots


def test_boundary_crosses_beta_zero_at_half_pi(rcp):
    crossings = row_crossings(rcp, [1e-13], alpha_max=2.0)[0]
    inside = crossings[(crossings > 0) & (crossings < 2)]
    assert inside.size == 2
    assert abs(inside[1] - np.pi / 2) < 1e-6
    assert inside[0] < 1e-6


@pytest.mark.parametrize("beta", [0.05, 0.1, 0.3, 0.45, 0.54])
def test_row_crossings_match_closed_form_to_1e9(rcp, beta):
    """Solve w^2 cos w = beta independently; alpha = w sin w on both branches."""
    w_peak = brentq(lambda w: np.tan(w) - 2 / w, 0.5, 1.5)
    w_lo = brentq(lambda w: w**2 * np.cos(w) - beta, 1e-9, w_peak)
    w_hi = brentq(lambda w: w**2 * np.cos(w) - beta, w_peak, np.pi / 2)
    found = row_crossings(rcp, [beta], alpha_max=2.0)[0]
    found = found[(found > 0) & (found < 2)]
    np.testing.assert_allclose(found, [w_lo * np.sin(w_lo), w_hi * np.sin(w_hi)], atol=1e-9)


def test_beta_0_3_interval(rcp):
    found = row_crossings(rcp, [0.3], alpha_max=2.0)[0]
    lo, hi = found[(found > 0) & (found < 2)]
    assert lo == pytest.approx(0.342671, abs=1e-6)
    assert hi == pytest.approx(1.406112, abs=1e-6)


def test_region_equals_closed_form_on_a_fine_grid(rcp):
    alphas, betas = np.linspace(0.004, 2, 500), np.linspace(0.002, 1, 500)
    region = exact_region(rcp, alphas, betas)
    A, B = np.meshgrid(alphas, betas)
    far = ~near_rcp_boundary(A, B, 1e-4)
    assert far.mean() > 0.99
    assert np.array_equal(region.stable[far], rcp_inside(A, B)[far])
    assert region.stable[betas > 0.5499].sum() == 0  # the bell tops out at beta = 0.5498
    assert 0.28 < region.stable_fraction < 0.30


def test_region_agrees_with_rightmost_roots(rcp):
    """Two independent methods: D-subdivision vs the sign of the rightmost root."""
    rng = np.random.default_rng(7)
    a, b = rng.uniform(0.01, 2, 150), rng.uniform(0.01, 1, 150)
    keep = ~near_rcp_boundary(a, b, 1e-4)
    region = exact_region(rcp, np.sort(a), np.sort(b))
    for ai, bi in zip(a[keep], b[keep]):
        i, j = np.searchsorted(region.alpha, ai), np.searchsorted(region.beta, bi)
        assert region.stable[j, i] == (rightmost_root(rcp, ai, bi).real < 0)


def test_rightmost_root_is_a_root_and_crosses_at_the_boundary(rcp):
    roots = rightmost_roots(rcp, 0.4, 0.2, count=3)
    residual = roots**2 + (0.4 * roots + 0.2) * np.exp(-roots)
    assert np.max(np.abs(residual)) < 1e-12
    assert np.all(np.diff(roots.real) <= 0)
    lo = row_crossings(rcp, [0.3], 2.0)[0]
    lo = lo[lo > 0][0]
    root = rightmost_root(rcp, lo, 0.3)
    assert abs(root.real) < 1e-9  # on the boundary the root is on the axis
    assert root.imag == pytest.approx(0.603658, abs=1e-5)


def test_bad_gains_rejected(rcp):
    with pytest.raises(InputError, match="alpha"):
        exact_region(rcp, [-0.1, 0.5], [0.2])
    with pytest.raises(InputError, match="beta"):
        exact_region(rcp, [0.5], [np.nan])
