"""Exact margins of delayed LTI loops (rcpstab.linear.lti) against closed forms and independent roots."""

import numpy as np
import pytest
from scipy.special import lambertw

from rcpstab.errors import InputError
from rcpstab.linear.lti import as_loop, loop_margins, loop_roots


def _first_order_rightmost(k, a, tau):
    """Rightmost root of s - a + k e^{-s tau} = 0 by Lambert W: (s - a) tau = W0(-k tau e^{-a tau})."""
    return a + complex(lambertw(-k * tau * np.exp(-a * tau), 0)) / tau


@pytest.mark.parametrize("k", [0.3, 1.0, 1.5])
def test_integrator_with_delay_closed_form(k):
    # L = k e^{-s}/s: crossover w = k, PM = pi/2 - k, phase crossover pi/2, GM = pi/(2k), DM = (pi/2 - k)/k.
    m = loop_margins(([k], [1.0, 0.0]), delay=1.0)
    assert m.stable
    assert m.phase_margin_deg == pytest.approx(np.degrees(np.pi / 2 - k), abs=1e-9)
    assert m.crossover_w == pytest.approx(k, rel=1e-9)
    assert m.gain_margin == pytest.approx(np.pi / (2 * k), rel=1e-9)
    assert m.phase_crossover_w == pytest.approx(np.pi / 2, rel=1e-9)
    assert m.delay_margin == pytest.approx((np.pi / 2 - k) / k, abs=1e-9)
    assert m.open_loop_rhp_poles == 0
    root = _first_order_rightmost(k, 0.0, 1.0)
    assert complex(*m.rightmost_root) == pytest.approx(root, abs=1e-9)


@pytest.mark.parametrize("k,a,tau", [(2.0, 1.0, 0.3), (2.0, 1.0, 0.7), (3.0, 0.5, 0.2), (1.2, 1.0, 0.05)])
def test_unstable_open_loop_with_crossover(k, a, tau):
    # L = k e^{-s tau}/(s - a): stable iff k > a and tau < arccos(a/k)/sqrt(k^2 - a^2).
    bound = np.arccos(a / k) / np.sqrt(k * k - a * a)
    m = loop_margins(([k], [1.0, -a]), delay=tau)
    assert m.stable == (tau < bound)
    assert m.open_loop_rhp_poles == 1
    wc = np.sqrt(k * k - a * a)
    pm = np.arctan2(wc, a) - wc * tau  # 180 deg + (-(pi - atan(wc/a)) - wc tau)
    assert m.crossover_w == pytest.approx(wc, rel=1e-9)
    assert m.phase_margin_deg == pytest.approx(np.degrees(pm), abs=1e-9)
    if m.stable:
        assert m.delay_margin == pytest.approx(bound - tau, abs=1e-9)
        assert m.gain_margin_lower == pytest.approx(a / k, rel=1e-9)  # below K = a/k the root at 0 crosses
    else:
        assert m.delay_margin == pytest.approx(pm / wc, abs=1e-9)  # negative: delay to remove
    assert complex(*m.rightmost_root) == pytest.approx(_first_order_rightmost(k, a, tau), abs=1e-9)
    assert "open_loop_rhp_poles" in m.notes


def test_unstable_open_loop_without_crossover_is_flagged():
    # k < a: |L| < 1 at every frequency, no phase margin exists, yet the root a - k > 0 ... is unstable.
    m = loop_margins(([0.5], [1.0, -1.0]), delay=0.1)
    assert not m.stable and m.unstable_roots == 1
    assert m.phase_margin_deg is None and m.delay_margin is None
    assert "no gain crossover" in m.notes["verdict"]
    assert m.rightmost_root[0] == pytest.approx(_first_order_rightmost(0.5, 1.0, 0.1).real, abs=1e-9)
    assert m.gain_margin == pytest.approx(2.0, rel=1e-9)  # raising the gain to K = a/k reaches the edge


def test_delay_margin_is_where_the_boundary_is_hit():
    # Add the delay margin: a root sits on the axis at the crossover; slightly less: stable.
    loop = ([4.0, 2.0], [1.0, 3.0, 0.5, 0.0])  # (4s + 2) / (s (s^2 + 3 s + 0.5))
    m = loop_margins(loop, delay=0.2)
    assert m.stable
    edge = loop_roots(as_loop(loop, 0.2 + m.delay_margin), count=1)[0]
    assert edge.real == pytest.approx(0.0, abs=1e-9)
    assert edge.imag == pytest.approx(m.crossover_w, rel=1e-9) or m.notes
    assert loop_margins(loop, delay=0.2 + m.delay_margin * (1 - 1e-6)).stable
    assert not loop_margins(loop, delay=0.2 + m.delay_margin * (1 + 1e-6)).stable


def _argument_principle_count(loop, delay, R=60.0, n=20_000):
    """Roots of den + num e^{-s tau} in the box 0 < Re < R, |Im| < R: winding number on its edge.

    ``n`` samples per side: each step must turn f by far less than pi (asserted: under pi/8; the loops
    below turn by at most 0.05 rad a step at n = 20,000, and 400,000 gave the same counts)."""
    t = np.linspace(0, 1, n)
    edges = [1j * R * (1 - 2 * t), R * t - 1j * R, R - 1j * R + 2j * R * t, R + 1j * R - R * t]
    s = np.concatenate(edges) + 1e-9
    f = np.polyval(loop[1], s) + np.polyval(loop[0], s) * np.exp(-s * delay)
    steps = np.angle(f[1:] / f[:-1])
    assert np.abs(steps).max() < np.pi / 8  # no step's turn can be mistaken for one the other way
    return int(round(np.sum(steps) / (2 * np.pi)))


@pytest.mark.parametrize("delay", [0.1, 0.4, 0.9, 1.6])
def test_verdict_against_contour_count(delay):
    loop = ([3.0, 1.0], [1.0, 1.0, -0.5])  # (3 s + 1)/(s^2 + s - 0.5): one RHP pole
    m = loop_margins(loop, delay=delay)
    count = _argument_principle_count(loop, delay)
    assert m.unstable_roots == count
    assert m.stable == (count == 0)


def test_python_control_objects_and_delays_add():
    control = pytest.importorskip("control")
    a = loop_margins(control.tf([2.0], [1.0, -1.0]), delay=[0.2, 0.1])
    b = loop_margins(control.ss(control.tf([2.0], [1.0, -1.0])), delay=0.3)
    c = loop_margins(([2.0], [1.0, -1.0]), delay=0.3)
    for x in (a, b):
        assert x.phase_margin_deg == pytest.approx(c.phase_margin_deg, abs=1e-9)
        assert x.delay_margin == pytest.approx(c.delay_margin, abs=1e-9)


def test_bad_loops_are_input_errors():
    with pytest.raises(InputError, match="neutral"):
        loop_margins(([1.0, 0.0], [1.0, 1.0]), delay=0.1)
    with pytest.raises(InputError, match="delay"):
        loop_margins(([1.0], [1.0, 1.0]), delay=-1.0)
    with pytest.raises(InputError, match="not a loop"):
        loop_margins("rcp-ish", delay=0.1)


def test_rightmost_root_against_tdscontrol():
    tds = pytest.importorskip("tdscontrol")
    # x' = A x - b c x(t - tau) for L = (s + 2)/(s^3 + 2 s^2 + 3 s + 1)
    A = np.array([[0, 1, 0], [0, 0, 1], [-1, -3, -2.0]])
    A1 = np.zeros((3, 3))
    A1[2] = [-2.0, -1.0, 0.0]
    r = np.array(tds.roots(tds.tds([A, A1], [0.0, 0.8]), -1.0))
    mine = loop_roots(as_loop(([1.0, 2.0], [1.0, 2.0, 3.0, 1.0]), 0.8), count=1)[0]
    best = r[np.argmax(r.real)]
    assert mine.real == pytest.approx(best.real, abs=1e-9)
    assert abs(mine.imag) == pytest.approx(abs(best.imag), abs=1e-9)


def test_region_boundary_is_hit_at_the_delay_margin():
    from rcpstab.linear.lti import loop_region

    k, a, tau = 2.0, 1.0, 0.3
    m = loop_margins(([k], [1.0, -a]), delay=tau)
    delays = tau + m.delay_margin * np.array([0.5, 0.98, 0.999, 1.001, 1.02, 1.5])
    region = loop_region(([k], [1.0, -a]), gain=[1.0], delay=delays)
    assert region.stable[:, 0].tolist() == [True, True, True, False, False, False]
    # over gains at tau: the stable set is (a/k, gain_margin), the two margins' ends
    gains = np.array([0.45, 0.55, 1.0, 2.0, 2.25, 2.35])
    r = loop_region(([k], [1.0, -a]), gain=gains, delay=[tau])
    assert r.stable[0].tolist() == [bool(m.gain_margin_lower < g < m.gain_margin) for g in gains]


def test_dominance_frequency_is_the_positive_root():
    """Cauchy's bound: the unique positive root of lead*w**m - sum c_p w**p (closed form for m = 2)."""
    from rcpstab.linear.tailbound import dominance_frequency

    lead, c0, c1 = 1e-4, 4.0, 0.02  # 1e-4 w^2 = 0.02 w + 4
    root = (c1 + np.sqrt(c1**2 + 4 * lead * c0)) / (2 * lead)
    w = float(dominance_frequency(lead, np.array([c0, c1])))
    assert w == pytest.approx(root, rel=1e-12) and lead * w**2 >= c1 * w + c0
    rows = dominance_frequency(np.array([1.0, 2.0]), np.array([[4.0, 0.0], [0.0, 0.0]]))
    assert rows[0] == pytest.approx(2.0, rel=1e-12) and rows[1] < 1e-20


def test_a_loop_in_seconds_behind_a_long_delay():
    """1/(s^2 + 2 s + 3) behind 100 s: |L| <= 1/(2 sqrt 2) < 1 for all w, so small gain makes it stable;
    the gain margin is 1/|L| at the -180 (mod 360) deg crossing of largest |L|, found here by brentq on
    the continuous phase. It ran 50 s and then refused with 'alpha = 1, beta = 0' (the crude tail bound)."""
    from scipy.optimize import brentq

    import rcpstab

    m = rcpstab.margins(([1.0], [1.0, 2.0, 3.0]), delay=100.0)
    assert m.stable and m.open_loop_rhp_poles == 0 and m.phase_margin_deg is None

    def phase(w):  # continuous: the rational part's phase runs from 0 to -180 deg, the delay adds -100 w
        return -np.arctan2(2 * w, 3 - w**2) - 100 * w

    def gain(w):
        return 1 / abs(3 - w**2 + 2j * w)

    w = np.linspace(1e-9, 5.0, 200_001)
    level = (phase(w) + np.pi) / (2 * np.pi)  # integer at every -180 (mod 360) deg crossing
    cells = np.nonzero(np.floor(level[1:]) != np.floor(level[:-1]))[0]
    turns = np.floor(level[cells])
    crossings = [brentq(lambda x, k=k: (phase(x) + np.pi) / (2 * np.pi) - k, w[i], w[i + 1]) for i, k in zip(cells, turns)]
    assert len(crossings) > 50  # one every 2 pi / 100 rad/s
    assert m.gain_margin == pytest.approx(1 / max(gain(x) for x in crossings), rel=1e-6)
