"""Bode and Nyquist of LTI loops with delays (rcpstab.bode / rcpstab.nyquist on (num, den) or python-control
systems), against closed forms and independently found closed-loop roots."""

import numpy as np
import pytest
from scipy.special import lambertw

import rcpstab
from rcpstab.errors import InputError
from rcpstab.linear.lti import DelayedLoop, loop_roots


def _wrapped_deg(x):
    return (np.asarray(x) + 180.0) % 360.0 - 180.0


@pytest.mark.parametrize("k,a,tau", [(2.0, 1.0, 0.3), (0.5, -2.0, 1.5), (3.0, 0.0, 0.2)])
def test_bode_of_k_exp_over_s_minus_a_is_the_closed_form(k, a, tau):
    # L(jw) = k e^{-j w tau}/(j w - a): |L| = k/sqrt(w^2 + a^2), phase = -w tau - atan2(w, -a)
    w = np.array([0.05, 0.7, 1.0, 3.0, 12.0])
    r = rcpstab.bode(([k], [1.0, -a]), delay=tau, w=w)
    np.testing.assert_allclose(r.magnitude, k / np.sqrt(w**2 + a**2), rtol=1e-12)
    expected = np.degrees(-w * tau - np.arctan2(w, -a))
    np.testing.assert_allclose(_wrapped_deg(r.phase_deg - expected), 0.0, atol=1e-9)


def test_bode_phase_is_continuous_through_many_turns_of_the_delay():
    # k e^{-s}/s: phase exactly -90 deg - w rad, unwrapped over many turns (no 360-deg jumps)
    r = rcpstab.bode(([1.0], [1.0, 0.0]), delay=1.0, w=np.geomspace(0.01, 60.0, 3000))
    np.testing.assert_allclose(r.phase_deg, -90.0 - np.degrees(r.w), atol=1e-9)
    assert r.margins.phase_margin_deg == pytest.approx(90.0 - np.degrees(1.0), abs=1e-9)


def test_bode_takes_python_control_systems_and_labels_units():
    control = pytest.importorskip("control")
    sys = control.tf([2.0], [1.0, -1.0])
    ours = rcpstab.bode(sys, delay=[0.1, 0.2], w=[0.5, 2.0])  # input and output delays add
    plain = rcpstab.bode(([2.0], [1.0, -1.0]), delay=0.3, w=[0.5, 2.0])
    np.testing.assert_allclose(ours.phase_deg, plain.phase_deg, atol=1e-12)
    ss = rcpstab.bode(control.tf2ss(sys), delay=0.3, w=[0.5, 2.0])
    np.testing.assert_allclose(ss.magnitude, plain.magnitude, rtol=1e-12)
    mag_ax, phase_ax = plain.plot()
    assert "rad/s" in phase_ax.get_xlabel() and "deg" in phase_ax.get_ylabel()
    assert "|L(jw)|" in mag_ax.get_ylabel()
    assert set(plain.columns()) == {"w_rad_s", "magnitude", "phase_deg"}


def _lambert_rhp_count(k, a, tau, branches=80):
    """Roots of s - a + k e^{-s tau} with Re > 0: s = a + W_j(-k tau e^{-a tau})/tau over the branches j."""
    z = -k * tau * np.exp(-a * tau)
    roots = np.array([a + complex(lambertw(z, j)) / tau for j in range(-branches, branches + 1)])
    return int(np.sum(roots.real > 1e-9))


@pytest.mark.parametrize(
    "k,a,tau",
    [
        (2.0, 1.0, 0.3),
        (2.0, 1.0, 1.0),
        (0.5, 1.0, 0.2),
        (4.0, -1.0, 0.5),
        (4.0, -1.0, 2.0),
        (10.0, -1.0, 3.0),
        (10.0, 2.0, 0.05),
        (30.0, 0.5, 1.0),
    ],
)
def test_nyquist_count_equals_the_lambert_w_roots(k, a, tau):
    r = rcpstab.nyquist(([k], [1.0, -a]), delay=tau)
    assert r.P == (1 if a > 0 else 0)
    assert r.Z == _lambert_rhp_count(k, a, tau), (r.N, r.P)
    assert r.stable == r.margins.stable


def _collocation_rhp_count(num, den, tau):
    roots = loop_roots(DelayedLoop(num, den, tau), count=40)
    return int(sum(2 if abs(x.imag) > 1e-9 else 1 for x in roots if x.real > 1e-9))


@pytest.mark.parametrize(
    "num,den,tau",
    [
        ([1.0], [1.0, 1.0, 0.0], 1.0),
        ([4.0], [1.0, 1.0, 0.0], 1.0),
        ([9.0], [1.0, 1.0, 0.0], 2.0),
        ([1.0, 0.5], [1.0, 0.0, 1.0, 0.0], 0.3),
        ([2.0, 1.0], [1.0, -0.5, 2.0, 0.0], 0.4),
        ([5.0], [1.0, 3.0, 3.0, 1.0], 1.0),
    ],
)
def test_nyquist_count_equals_the_roots_with_poles_on_the_axis(num, den, tau):
    """Integrators and a pole pair on the axis (indented contour); roots by collocation + Newton."""
    r = rcpstab.nyquist((num, den), delay=tau)
    assert r.Z == _collocation_rhp_count(num, den, tau), (r.N, r.P)
    if r.margins is not None:  # the margins do not take axis poles off 0
        assert r.stable == r.margins.stable and r.P == r.margins.open_loop_rhp_poles


def test_nyquist_plot_is_labelled_and_refuses_a_proper_loop():
    r = rcpstab.nyquist(([2.0], [1.0, -1.0]), delay=0.3)
    ax = r.plot()
    assert "Re L(jw)" in ax.get_xlabel() and "Im L(jw)" in ax.get_ylabel()
    assert r.to_dict()["Z"] == 0 and r.N == -1
    with pytest.raises(InputError, match="strictly proper"):
        rcpstab.nyquist(([1.0, 0.0], [1.0, 1.0]))
    with pytest.raises(InputError, match="give alpha and beta"):
        rcpstab.bode("rcp")
