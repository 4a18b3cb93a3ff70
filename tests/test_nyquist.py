"""The Nyquist engine: exact delay against the exact region, Pade convergence, python-control.

Findings asserted here (also in the docstring of rcpstab.linear.nyquist):
- python-control's ``nyquist_response`` on the rational Pade loops, indented to the right,
  gives the same N as our counter and N + P equals the closed-loop RHP pole count.
- On frequency-response data (``frd``) of the exact-delay loop it cannot indent around the
  double pole at 0 and only integrates the phase along the given (positive) frequencies:
  with a dense grid it returns N - 1 at every point checked, so count + P is -1 at stable
  points; on a coarse grid it also miscounts near the boundary (phase-unwrap aliasing),
  calling a stable point unstable and unstable points "stable-looking" (-1).
"""

import warnings

import matplotlib
import numpy as np
import pytest
from conftest import near_rcp_boundary, rcp_inside

from rcpstab.errors import InputError
from rcpstab.linear.exact import exact_region, row_crossings
from rcpstab.linear.nyquist import INDENT, alpha_bounds, loop_count, loop_value, nyquist_count, nyquist_curve, nyquist_region
from rcpstab.linear.openloop import OpenLoop
from rcpstab.linear.quasipoly import QuasiPolynomial
from rcpstab.models import get_model

matplotlib.use("Agg")

ALPHAS = np.linspace(0.01, 2, 200)
BETAS = np.linspace(0.005, 1, 200)


def rcp_open_loop(alpha, beta, w):
    """Thesis eq. 5.7 in normalized frequency: (j w alpha + beta) exp(-j w) / (j w)^2."""
    s = 1j * w
    return (alpha * s + beta) * np.exp(-s) / s**2


def pade_loop(alpha, beta, order):
    """App. D's rational loop: (alpha s + beta)/s^2 times python-control's pade(1, order)."""
    import control  # here, not at import: python-control brings scipy.signal and pyplot (~1 s per worker)

    num, den = control.pade(1, order)
    return control.tf([alpha, beta], [1, 0, 0]) * control.tf(num, den)


def closed_loop_unstable(alpha, beta, order):
    """RHP roots of s^2 den(s) + (alpha s + beta) num(s), and the smallest |Re| among all roots."""
    import control

    num, den = control.pade(1, order)
    roots = np.roots(np.polyadd(np.polymul([1, 0, 0], den), np.polymul([alpha, beta], num)))
    return int((roots.real > 0).sum()), float(np.min(np.abs(roots.real)))


# every third point of the 200 x 200 grid in the quick run (a ninth of the CPU); all of it in the slow one
@pytest.mark.parametrize("stride", [3, pytest.param(1, marks=pytest.mark.slow)])
def test_exact_delay_agrees_with_exact_region_away_from_boundary(stride):
    rcp = get_model("rcp")
    alphas, betas = ALPHAS[::stride], BETAS[::stride]
    region = nyquist_region(rcp, alphas, betas)
    exact_map = exact_region(rcp, alphas, betas)
    A, B = np.meshgrid(alphas, betas)
    away = ~near_rcp_boundary(A, B, 1e-3)
    assert region.method == "nyquist" and region.meta == {"pade": None}
    assert away.mean() > 0.97  # the check covers almost the whole grid
    assert 0.2 < exact_map.stable[away].mean() < 0.6  # and both verdicts in quantity
    assert np.array_equal(region.stable[away], exact_map.stable[away])
    assert np.array_equal(region.stable[away], rcp_inside(A, B)[away])
    # Measured: the two maps agree on every grid point, the near-boundary ones included.
    assert region.agreement(exact_map) == 1.0


def test_verdict_is_right_1e7_from_the_boundary():
    """Points 1e-7 either side of the closed-form boundary: no sampled phase could resolve this."""
    rcp = get_model("rcp")
    w = np.linspace(0.1, 1.5, 57)
    a, b = w * np.sin(w), w**2 * np.cos(w)
    da, db = np.sin(w) + w * np.cos(w), 2 * w * np.cos(w) - w**2 * np.sin(w)
    norm = np.hypot(da, db)
    na, nb = db / norm, -da / norm  # unit normal
    inward = np.where(rcp_inside(a + 1e-3 * na, b + 1e-3 * nb), 1.0, -1.0)
    assert rcp_inside(a + 1e-3 * inward * na, b + 1e-3 * inward * nb).all()
    # near_rcp_boundary() measures a real distance: along the normal it is the offset.
    assert near_rcp_boundary(a + 9e-4 * inward * na, b + 9e-4 * inward * nb, 1e-3).all()
    assert not near_rcp_boundary(a + 1.1e-3 * inward * na, b + 1.1e-3 * inward * nb, 1e-3).any()
    offset = 1e-7 * inward
    assert nyquist_count(rcp, a + offset * na, b + offset * nb).stable.all()
    assert not nyquist_count(rcp, a - offset * na, b - offset * nb).stable.any()


def test_pade_regions_converge_to_exact():
    # Every other point of the 200 x 200 grid: the fractions estimate the areas between the Pade and the exact
    # boundaries, and the 100 x 100 grid still puts ~32 points in Pade-2's band (threshold 1e-3: 10 points)
    # and none where Pade-4's boundary is within ~2e-6 of the exact one (the full grid: 0.1657, 0.0031, 0, 0).
    rcp = get_model("rcp")
    alphas, betas = ALPHAS[::2], BETAS[::2]
    exact = exact_region(rcp, alphas, betas)
    fractions = [1 - nyquist_region(rcp, alphas, betas, pade=n).agreement(exact) for n in (1, 2, 4, 8)]
    # Measured: 0.1668, 0.0032, 0, 0.
    assert fractions[0] > fractions[1] > fractions[2] >= fractions[3]
    assert fractions[0] > 0.1 and fractions[1] > 1e-3
    assert fractions[3] == 0.0


# beta = 0.3 (App. D's row) in the quick run; the rows near beta -> 0 and the tip run in the slow one
@pytest.mark.parametrize("beta", [pytest.param(0.1, marks=pytest.mark.slow), 0.3, pytest.param(0.45, marks=pytest.mark.slow)])
def test_pade_boundary_error_decreases_strictly(beta):
    """Boundary alphas bisected to 1e-12; exact from the D-subdivision's row crossings."""
    rcp = get_model("rcp")
    exact = row_crossings(rcp, [beta], alpha_max=4.0)[0]
    exact = exact[(exact > 0) & (exact < 4)]
    assert np.abs(alpha_bounds(rcp, beta) - exact).max() < 1e-10
    errors = [np.abs(alpha_bounds(rcp, beta, n) - exact).max() for n in (1, 2, 4, 8)]
    # Measured at beta = 0.3: 0.414, 9.6e-3, 1.2e-6, 4.6e-13.
    assert errors[0] > errors[1] > errors[2] > errors[3]
    assert errors[3] < 1e-9


def test_beta_0_3_pade_2_interval_differs_from_exact():
    """App. D reads 0.3436 < alpha < 1.436 off its Pade-2 plot (1/2.91 and 1/0.696)."""
    rcp = get_model("rcp")
    lo, hi = alpha_bounds(rcp, 0.3, pade=2)
    # Independent: Routh-Hurwitz of s^4 + (6+a)s^3 + (12+b-6a)s^2 + (12a-6b)s + 12b,
    # the Pade-2 closed loop; its boundary is where a3*a2*a1 = a1^2 + a3^2*a0.
    a, b = np.polynomial.Polynomial([0, 1]), 0.3
    a3, a2, a1, a0 = 6 + a, 12 + b - 6 * a, 12 * a - 6 * b, 12 * b
    roots = (a3 * a2 * a1 - a1**2 - a3**2 * a0).roots()
    hurwitz = np.sort(roots[(np.abs(roots.imag) < 1e-12) & (roots.real > 0)].real)
    np.testing.assert_allclose([lo, hi], hurwitz, atol=1e-10)
    assert lo == pytest.approx(0.342586, abs=1e-6)  # thesis: 0.3436, read off a plot
    assert hi == pytest.approx(1.415695, abs=1e-6)  # thesis: 1.436
    assert hi - 1.40611205 > 5e-3  # the Pade error is visible
    assert abs(lo - 0.3436) < 2e-3


POINTS = np.random.default_rng(7).uniform([0.01, 0.005], [2, 1], size=(30, 2))


# App. D's order 2 and the highest, 8, in the quick run; 1 and 4 (the same code path) in the slow one
@pytest.mark.parametrize("order", [pytest.param(1, marks=pytest.mark.slow), 2, pytest.param(4, marks=pytest.mark.slow), 8])
def test_pade_count_matches_closed_loop_poles_and_python_control(order):
    import control

    rcp = get_model("rcp")
    ours = nyquist_count(rcp, POINTS[:, 0], POINTS[:, 1], pade=order)
    assert ours.rhp_poles == 0
    checked = 0
    for (alpha, beta), n, z in zip(POINTS, ours.clockwise, ours.unstable):
        z_closed, margin = closed_loop_unstable(alpha, beta, order)
        if margin < 1e-3:  # a closed-loop root on the axis: no count is meaningful
            continue
        loop = pade_loop(alpha, beta, order)
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # python-control's own consistency check
            response = control.nyquist_response(loop, indent_direction="right")
        P = int((loop.poles().real > 0).sum())
        assert z == z_closed
        assert response.count == n
        assert response.count + P == z_closed
        checked += 1
    assert checked >= 28
    assert 0 < (ours.unstable == 0).mean() < 1


def frd_count(alpha, beta, w):
    import control

    data = control.frd(rcp_open_loop(alpha, beta, w), w)
    return control.nyquist_response(data, warn_encirclements=False).count


def test_python_control_frd_count_misses_the_indentation():
    """Dense FRD of the exact-delay loop: count = N - 1 wherever we looked."""
    rcp = get_model("rcp")
    w = np.geomspace(1e-3, 1e2, 2000)
    A, B = np.meshgrid(np.linspace(0.05, 1.95, 10), np.linspace(0.02, 0.95, 10))
    ours = nyquist_count(rcp, A, B)
    counts = np.vectorize(lambda a, b: frd_count(a, b, w))(A, B)
    assert np.array_equal(counts, ours.clockwise - 1)
    assert ours.stable.any() and not ours.stable.all()
    assert (counts[ours.stable] == -1).all()  # count + P = -1: "minus one unstable root"


COARSE = np.linspace(0.01, 2, 40), np.linspace(0.005, 1, 40)  # where the aliasing was found


@pytest.mark.parametrize(
    "i, j, true_n, coarse_count",
    [
        (13, 19, 0, 1),  # stable, coarse FRD count says unstable
        (28, 10, 2, -1),  # unstable, coarse FRD count equals a stable point's
    ],
)
def test_python_control_frd_count_aliases_on_a_coarse_grid(i, j, true_n, coarse_count):
    rcp = get_model("rcp")
    alpha, beta = COARSE[0][i], COARSE[1][j]
    assert int(nyquist_count(rcp, alpha, beta).clockwise) == true_n
    assert exact_region(rcp, [alpha], [beta]).stable[0, 0] == (true_n == 0)
    assert frd_count(alpha, beta, np.geomspace(1e-3, 1e2, 2000)) == true_n - 1
    assert frd_count(alpha, beta, np.geomspace(1e-2, 10, 30)) == coarse_count


def test_curve_data_and_plot():
    rcp = get_model("rcp")
    curve = nyquist_curve(rcp, 1.6, 0.3)
    np.testing.assert_allclose(curve.G, rcp_open_loop(1.6, 0.3, curve.w), rtol=1e-12)
    assert int(curve.count.clockwise) == 2 and int(curve.count.unstable) == 2
    pade = nyquist_curve(rcp, 0.5, 0.3, pade=2, w=[0.5, 1.0])
    expected = pade_loop(0.5, 0.3, 2)(1j * np.array([0.5, 1.0]))
    np.testing.assert_allclose(pade.G, expected, rtol=1e-12)
    assert int(pade.count.unstable) == 0

    from rcpstab.linear.nyquist_plot import nyquist_plot

    ax = nyquist_plot(curve)
    assert ax.get_xlabel() == "Re G" and ax.get_ylabel() == "Im G"
    marks = [line for line in ax.get_lines() if list(line.get_xdata()) == [-1.0]]
    assert marks and list(marks[0].get_ydata()) == [0.0]
    assert "N = 2" in ax.get_title()


@pytest.mark.parametrize("den", [(1.0, 1.0), (-1.0, 1.0)])  # 1 + lambda, lambda - 1 (P = 1)
@pytest.mark.parametrize("k", [-2.0, -0.5, 0.5, 1.5, 2.0, 2.5, 5.0])
def test_loops_without_integrators_and_with_an_unstable_pole(den, k):
    """G = k exp(-lambda)/den(lambda): Z against the argument principle on den + k exp(-lambda).

    Where G(0) < -1 (k = -2 over 1 + lambda, k > 1 over lambda - 1) the contour starts on
    the ray left of -1, which the half-crossing at the start must count.
    """
    ol = OpenLoop(theta=1.0, num=np.array([[k, 0.0, 0.0]]), den=np.array(den), integrators=0)
    count = loop_count(ol, 1.0, 1.0)
    coeffs = np.zeros((2, 2, 3))
    coeffs[0, :, 0], coeffs[1, 0, 0] = den, k
    reference = QuasiPolynomial(thetas=np.array([0.0, 1.0]), coeffs=coeffs, degree=1).count_unstable(1.0, 1.0)
    assert count.rhp_poles == (den[0] < 0)
    assert int(count.unstable) == reference
    starts_on_ray = loop_value(ol, INDENT, 1.0, 1.0, None).real < -1
    assert starts_on_ray == ((k < -1) if den[0] > 0 else (k > 1))


def test_every_rcp_variant_has_the_same_loop():
    alphas, betas = ALPHAS[::4], BETAS[::4]
    maps = [nyquist_region(get_model(name), alphas, betas).stable for name in ("rcp", "switched", "linear")]
    assert np.array_equal(maps[0], maps[1]) and np.array_equal(maps[0], maps[2])


@pytest.mark.parametrize("bad", [0, 21, -3, 2.5, "2", True, np.nan])
def test_bad_pade_order_is_input_error(bad):
    with pytest.raises(InputError) as info:
        nyquist_region(get_model("rcp"), [0.5], [0.3], pade=bad)
    message = str(info.value)
    assert "\n" not in message and "pade" in message and repr(bad) in message
