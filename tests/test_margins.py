"""Margins agree with closed forms, with python-control on a high-order Pade loop, and with stability."""

import numpy as np
import pytest
from scipy.optimize import brentq

from rcpstab.errors import InputError
from rcpstab.linear.exact import exact_region
from rcpstab.linear.margins import margins

POINTS = [(0.4, 0.2), (1.0, 0.2), (0.6, 0.45), (1.4, 0.3), (1.4, 0.8), (0.8, 0.55), (1.2, 0.05)]


def closed_form(a, b):
    """Gain/phase margins of G = e^{-jw}(j a w + b)/(j w)^2 from eqs. 5.8-5.11."""
    wz = np.sqrt((a**2 + np.sqrt(a**4 + 4 * b**2)) / 2)
    pm = -wz + np.arctan(a * wz / b)  # pi + phase(wz)
    wc = brentq(lambda w: w * a / b - np.tan(w), 1e-9, np.pi / 2 - 1e-12)
    gm = wc**2 / np.hypot(b, a * wc)
    return wz, pm, wc, gm


@pytest.mark.parametrize("a,b", POINTS)
def test_margins_equal_closed_form(rcp, a, b):
    m = margins(rcp, a, b)
    wz, pm, wc, gm = closed_form(a, b)
    assert m.crossover_w == pytest.approx(wz, rel=1e-9)
    assert m.phase_margin_deg == pytest.approx(np.degrees(pm), abs=1e-6)
    assert m.phase_crossover_w == pytest.approx(wc, rel=1e-9)
    assert m.gain_margin == pytest.approx(gm, rel=1e-9)
    assert m.delay_margin == pytest.approx(pm / wz, rel=1e-6)


@pytest.mark.parametrize("a,b", POINTS)
def test_margins_agree_with_python_control_on_pade_10(rcp, a, b):
    import control as ct  # here, not at import: python-control brings scipy.signal and pyplot (~1 s per worker)

    num, den = ct.pade(1.0, 10)
    loop = ct.tf(num, den) * ct.tf([a, b], [1, 0, 0])
    gm, pm, _, wpc, wgc, _ = ct.stability_margins(loop)
    m = margins(rcp, a, b)
    assert m.gain_margin == pytest.approx(gm, rel=1e-6)
    assert m.phase_margin_deg == pytest.approx(pm, abs=1e-5)
    assert m.crossover_w == pytest.approx(wgc, rel=1e-6)
    assert m.phase_crossover_w == pytest.approx(wpc, rel=1e-6)


@pytest.mark.parametrize("a,b", POINTS + [(0.3, 0.3), (0.5, 0.5), (0.2, 0.4)])
def test_stability_agrees_with_margins_and_exact_region(rcp, a, b):
    m = margins(rcp, a, b)
    exact = exact_region(rcp, [a], [b]).stable[0, 0]
    assert m.stable == exact == (m.rightmost_root[0] < 0)
    by_margins = m.phase_margin_deg > 0 and m.gain_margin is not None and m.gain_margin > 1
    assert by_margins == m.stable


def test_growing_both_gains_by_the_gain_margin_reaches_the_boundary(rcp):
    m = margins(rcp, 0.4, 0.2)
    k = m.gain_margin
    assert margins(rcp, 0.4 * k * 0.999, 0.2 * k * 0.999).stable
    assert not margins(rcp, 0.4 * k * 1.001, 0.2 * k * 1.001).stable


def test_margins_reject_bad_gains(rcp):
    with pytest.raises(InputError):
        margins(rcp, 0.0, 0.2)


@pytest.mark.parametrize("gain", [0.1, 0.5, 1.0, 2.0])
def test_alpha_equal_beta_has_no_gain_margin(rcp, gain):
    """App. C: for alpha/beta <= 1 the phase leaves -180 deg downwards at w -> 0, where |G| is
    infinite, so no loop gain K stabilizes K*G. At alpha = beta the departure is -w**3/3
    (atan(w) - w): it once drowned in the rounding of -pi and gave (0.5, 0.5) a gain margin of 1.85e-10."""
    m = margins(rcp, gain, gain)
    assert not m.stable
    assert m.gain_margin is None and m.phase_crossover_w is None
    assert "alpha/beta <= 1" in m.notes["gain_margin"]
    assert m.unstable_roots == 2  # the complex pair of the rightmost root, as for (0.4, 0.6)


@pytest.mark.parametrize("excess", [1e-4, 1e-8, 1e-10])
@pytest.mark.parametrize("beta", [0.2, 1.0])
def test_gain_margin_just_above_alpha_equal_beta_matches_closed_form(rcp, beta, excess):
    """alpha/beta = r slightly above 1: the phase -pi + atan(r w) - w rises above -180 deg and falls back
    through it at the root w_c of atan(r w) = w (about sqrt(3 (r - 1))); K*G is stable for K < 1/|G(j w_c)|,
    the unstable loop's gain margin."""
    alpha = beta * (1 + excess)
    r = alpha / beta
    w_c = brentq(lambda w: np.arctan(r * w) - w, 1e-3 * np.sqrt(3 * excess), 10 * np.sqrt(3 * excess), xtol=1e-300, rtol=1e-15)
    expected = w_c**2 / abs(alpha * 1j * w_c + beta)
    m = margins(rcp, alpha, beta)
    assert not m.stable
    assert m.phase_crossover_w == pytest.approx(w_c, rel=1e-6)
    assert m.gain_margin == pytest.approx(expected, rel=1e-6)
