"""Bode criterion: crossovers equal eqs. 5.10-5.11, App. C's condition, agreement with exact."""

import numpy as np
import pytest
from conftest import near_rcp_boundary
from scipy.optimize import brentq

from rcpstab.linear.bode import bode_region, crossovers
from rcpstab.linear.exact import exact_region


def test_crossovers_equal_closed_forms(rcp):
    a = np.array([0.4, 1.0, 0.9, 1.5, 0.25])
    b = np.array([0.2, 0.2, 0.5, 0.05, 0.1])
    c = crossovers(rcp, a, b)
    wz = np.sqrt((a**2 + np.sqrt(a**4 + 4 * b**2)) / 2)  # eq. 5.10
    wc = [brentq(lambda w: w * ai / bi - np.tan(w), 1e-9, np.pi / 2 - 1e-12) for ai, bi in zip(a, b)]  # eq. 5.11
    np.testing.assert_allclose(c.gain_w, wz, rtol=1e-10)
    np.testing.assert_allclose(c.phase_w, wc, rtol=1e-10)
    assert np.all(c.gain_count == 1)  # |G| crosses 1 once


def test_app_C_no_phase_crossover_unless_alpha_over_beta_exceeds_one(rcp):
    a = np.array([0.2, 0.3, 0.5, 0.4, 0.31])
    b = np.array([0.4, 0.3, 0.6, 0.2, 0.3])
    c = crossovers(rcp, a, b)
    assert np.array_equal(np.isfinite(c.phase_w), a / b > 1)
    # Fig. C.1 (0.2, 0.4): no crossover; Fig. C.2 (0.4, 0.2): one, after the phase maximum of App. C.
    w_max = 0.2 / 0.4 * np.sqrt(0.4 / 0.2 - 1)
    assert c.phase_w[3] > w_max


# every third point of the 200 x 200 grid in the quick run (0.2 s CPU instead of 2 s); all of it in the slow one
@pytest.mark.parametrize("stride", [3, pytest.param(1, marks=pytest.mark.slow)])
def test_bode_agrees_with_exact_on_200x200_away_from_boundary(rcp, stride):
    alphas, betas = np.linspace(0.01, 2, 200)[::stride], np.linspace(0.005, 1, 200)[::stride]
    bode = bode_region(rcp, alphas, betas)
    exact = exact_region(rcp, alphas, betas)
    A, B = np.meshgrid(alphas, betas)
    far = ~near_rcp_boundary(A, B, 1e-3)
    assert far.sum() > 0.97 * far.size
    assert np.array_equal(bode.stable[far], exact.stable[far])
    assert bode.meta["multiple_gain_crossovers"] == 0
    assert 0.25 < bode.stable_fraction < 0.32


@pytest.mark.parametrize("beta", [0.1, 0.3, 0.5])
def test_bode_row_edges_match_exact_crossings(rcp, beta):
    """Along a fine row the Bode verdict flips within one grid step of the exact crossing."""
    alphas = np.arange(0.0005, 2.0, 0.0005)
    bode = bode_region(rcp, alphas, [beta]).stable[0]
    exact = exact_region(rcp, alphas, [beta])
    flips = alphas[1:][bode[1:] != bode[:-1]]
    crossings = np.array([x for x in exact.meta["crossings"][0] if 0 < x < 2])
    np.testing.assert_allclose(flips, crossings, atol=0.0005)
