"""The exact region at its edges: the tip, beta -> 0, 1e-9 either side of the whole boundary, every model.

Truth comes from outside the D-subdivision: closed-form crossing curves (solved by hand
from Delta(j w) = 0), the rightmost characteristic root (Chebyshev collocation polished by
Newton, rcpstab.linear.roots) and the Nyquist count.
"""

import numpy as np
import pytest
from scipy.optimize import brentq

from rcpstab.errors import InputError
from rcpstab.linear.dcurves import crossings, curve_values, sample_curves
from rcpstab.linear.exact import boundary_table, exact_region
from rcpstab.linear.nyquist import nyquist_region
from rcpstab.linear.openloop import open_loop
from rcpstab.linear.quasipoly import quasi_polynomial
from rcpstab.linear.roots import rightmost_root
from rcpstab.models import MODELS, get_model

OFFSET = 1e-9


def rcp_curve(w):
    """lambda^2 + (alpha lambda + beta) e^{-lambda} = 0 at lambda = j w."""
    return w * np.sin(w), w**2 * np.cos(w), np.sin(w) + w * np.cos(w), 2 * w * np.cos(w) - w**2 * np.sin(w)


def rcpac_curve(w):
    """lambda^3 + (lambda^2 + alpha lambda + beta) e^{-lambda} = 0 at lambda = j w:
    beta - w^2 + j alpha w = j w^3 e^{j w}, so alpha = w^2 cos w, beta = w^2 - w^3 sin w."""
    return (
        w**2 * np.cos(w),
        w**2 - w**3 * np.sin(w),
        2 * w * np.cos(w) - w**2 * np.sin(w),
        2 * w - 3 * w**2 * np.sin(w) - w**3 * np.cos(w),
    )


RCP_TIP_W = brentq(lambda w: np.tan(w) - 2 / w, 0.5, 1.5)  # beta'(w) = 0
RCPAC_TIP_W = brentq(lambda w: rcpac_curve(w)[3], 0.5, 1.0)
CURVES = {
    "rcp": (rcp_curve, RCP_TIP_W, np.pi / 2),
    "rcpac": (rcpac_curve, RCPAC_TIP_W, brentq(lambda w: w * np.sin(w) - 1, 0.5, 1.5)),
}


def _has_gain_loop(name):
    """Models whose normalized loop depends on (alpha, beta) only: every linear lens applies."""
    from rcpstab.errors import InputError
    from rcpstab.linear.quasipoly import quasi_polynomial

    try:
        quasi_polynomial(get_model(name))
    except InputError:
        return False
    return True


LINEAR_MODELS = [name for name in MODELS if _has_gain_loop(name)]


def closed_form(name):
    """The closed-form crossing curve of a model (rcp, switched, linear, xcp share RCP's loop)."""
    qp = quasi_polynomial(get_model(name))
    for key in CURVES:
        ref = quasi_polynomial(get_model(key))
        if (
            qp.coeffs.shape == ref.coeffs.shape
            and np.array_equal(qp.coeffs, ref.coeffs)
            and np.array_equal(qp.thetas, ref.thetas)
        ):
            return CURVES[key]
    pytest.skip(f"no closed form written for {name}")


def test_tip_row_of_the_issue_agrees_with_nyquist_and_roots():
    rcp = get_model("rcp")
    alphas = np.round(np.arange(0.9440, 0.95201, 0.0001), 6)
    exact = exact_region(rcp, alphas, [0.54977])
    nyq = nyquist_region(rcp, alphas, [0.54977])
    roots = np.array([rightmost_root(rcp, a, 0.54977).real < 0 for a in alphas])
    assert exact.stable.sum() == 43
    check = exact.meta["crosscheck"]  # the argument principle may miss the root 3e-6 off the axis ...
    assert check["disagree_roots_confirm_count"] == 0  # ... but the rightmost root never sides with it
    assert np.array_equal(exact.stable[0], nyq.stable[0])
    assert np.array_equal(exact.stable[0], roots)


def test_tip_height_is_exact():
    """The top of the bell is beta(w*) with tan w* = 2/w*, to 1e-12."""
    table = boundary_table(get_model("rcp"), 2.0, 1.0)
    top = RCP_TIP_W**2 * np.cos(RCP_TIP_W)
    assert table["beta"].max() == pytest.approx(top, abs=1e-12)
    assert top == pytest.approx(0.5497740, abs=1e-7)


@pytest.mark.parametrize("name", LINEAR_MODELS)
def test_boundary_table_is_the_closed_form_curve(name):
    curve, tip, end = closed_form(name)
    t = boundary_table(get_model(name), 2.0, 1.0)
    a, b, _, _ = curve(t["w"])
    assert np.max(np.abs(t["alpha"] - a)) < 1e-13
    assert np.max(np.abs(t["beta"] - b)) < 1e-13
    assert t["w"].max() == pytest.approx(end, abs=2e-3)  # the curve reaches beta = 0 ...
    assert np.any(np.abs(t["w"] - tip) < 1e-12)  # ... and passes through the tip exactly


@pytest.fixture(scope="module")
def exact_by_loop():
    """Exact verdicts already computed, per quasi-polynomial and points: exact_region reads a model through
    its quasi-polynomial only, so the models sharing RCP's (switched, linear, xcp) share RCP's verdicts
    (their rightmost roots, from each model's own state-space matrices, are still computed per model)."""
    return {}


def _exact_verdicts(cache, model, pa, pb):
    """``exact_region`` at each point (pa[k], pb[k]) alone, once per distinct quasi-polynomial."""
    qp = quasi_polynomial(model)
    key = (qp.degree, qp.thetas.tobytes(), qp.coeffs.shape, qp.coeffs.tobytes(), pa.tobytes(), pb.tobytes())
    if key not in cache:
        cache[key] = [exact_region(model, [ai], [bi], crosscheck=False).stable[0, 0] for ai, bi in zip(pa, pb)]
    return cache[key]


@pytest.mark.parametrize("name", LINEAR_MODELS)
def test_1e9_either_side_of_the_whole_boundary(name, exact_by_loop):
    """Points OFFSET off the closed-form curve along its normal, from beta ~ 1e-8 through the tip
    to beta -> 0 on the far side: exact == sign of the rightmost root, and the two sides differ."""
    model = get_model(name)
    curve, tip, end = closed_form(name)
    # the ends, the tip and 11 points between (23 caught no planted refinement error these miss)
    w = np.unique(np.concatenate(([1e-4, 1e-3, 1e-2, tip, end - 1e-4], np.linspace(0.05, end - 1e-3, 11))))
    a, b, da, db = curve(w)
    norm = np.hypot(da, db)
    na, nb = -db / norm, da / norm
    verdicts = {}
    for side in (+1, -1):
        pa, pb = a + side * OFFSET * na, b + side * OFFSET * nb
        verdicts[side] = []
        for ai, bi, wi, exact in zip(pa, pb, w, _exact_verdicts(exact_by_loop, model, pa, pb)):
            root = rightmost_root(model, ai, bi)
            assert abs(root.real) > 1e-14, (wi, root)  # the offset is resolvable by the roots
            assert exact == (root.real < 0), (name, side, wi, ai, bi, root)
            verdicts[side].append(exact)
    plus, minus = verdicts[1], verdicts[-1]
    assert all(p != m for p, m in zip(plus, minus))  # every sampled curve point is on the boundary


def test_crossing_direction_is_the_root_velocity():
    """The direction read from the monotone piece equals the sign of Re(d lambda/d alpha) = Re(-D1/Delta')."""
    for name in ("rcp", "rcpac"):
        qp = quasi_polynomial(get_model(name))
        curves = sample_curves(qp, 2.0, 2.0)
        betas = np.array([0.05, 0.2, 0.27])
        line, w, alpha, direction, _ = crossings(qp, curves, "beta", betas, window=(0, 2))
        assert w.size >= 6
        lam = 1j * w
        d1 = qp.parts(lam)[1]
        velocity = (-d1 / qp.derivative(lam, alpha, betas[line])).real
        assert np.array_equal(np.sign(velocity) * 2, direction)
        _, _, dalpha, dbeta, det = curve_values(qp, w)
        assert np.all(np.isfinite(dalpha + dbeta + det))


# the router-timed models' loops have two delays: 5-12 s each, so they run with the slow tests
@pytest.mark.parametrize("name", [pytest.param(n, marks=pytest.mark.slow) if n.endswith("-router") else n for n in LINEAR_MODELS])
def test_crosscheck_and_nyquist_agree_on_a_grid(name):
    model = get_model(name)
    alphas, betas = np.linspace(0.02, 2, 60), np.linspace(0.01, 1, 60)
    exact = exact_region(model, alphas, betas)
    check = exact.meta["crosscheck"]
    assert check["points"] >= 6 and check["agree"] + check["unresolved"] == check["points"]
    assert check["disagree_roots_confirm_count"] == 0
    assert exact.meta["inconsistent_points"] == 0
    try:
        open_loop(model)
    except InputError:
        # a loop with two delays (the router-timed models) has no single-delay Nyquist contour: the
        # independent method is then the rightmost root of the quasi-polynomial, on a subgrid
        for i in range(0, betas.size, 6):
            for j in range(0, alphas.size, 6):
                assert exact.stable[i, j] == (rightmost_root(model, alphas[j], betas[i]).real < 0), (alphas[j], betas[i])
        return
    assert np.array_equal(exact.stable, nyquist_region(model, alphas, betas).stable)


def test_rcpac_stable_count_from_the_issue():
    """Issue 14: exact and Nyquist give 494 stable points on the 100x100 plane for rcpac."""
    model = get_model("rcpac")
    exact = exact_region(model, np.linspace(0.02, 2, 100), np.linspace(0.01, 1, 100))
    assert exact.stable.sum() == 494


def test_labels_on_a_crossing_and_in_any_axis_order():
    """A grid alpha exactly on a crossing is labelled -1 (a root on the axis), and the labels of a shuffled
    axis with repeats are the sorted axis' labels shuffled alike; every other label is the row's start
    count plus the directions of the crossings left of it (the definition, point by point)."""
    from rcpstab.linear.exact import exact_region, row_structure

    betas = np.array([0.1, 0.3, 0.45])
    s = row_structure(get_model("rcp"), betas, 0.05, 2.0)
    on = s.alpha[s.row_slice(1)]  # the crossings of row beta = 0.3
    alphas = np.sort(np.r_[np.linspace(0.05, 2.0, 40), on])
    r = exact_region("rcp", alphas, betas, crosscheck=False)
    Z = r.table["unstable_roots"].reshape(betas.size, alphas.size)
    for j in range(betas.size):
        sl = s.row_slice(j)
        for i, a in enumerate(alphas):
            expected = -1 if np.any(s.alpha[sl] == a) else s.z_start[j] + s.direction[sl][s.alpha[sl] < a].sum()
            assert Z[j, i] == expected
    assert np.count_nonzero(Z[1] == -1) == on.size >= 2
    shuffle = np.random.default_rng(0).permutation(np.r_[alphas, alphas[:5]])
    shuffled = exact_region("rcp", shuffle, betas, crosscheck=False)
    index = np.searchsorted(alphas, shuffle)
    assert np.array_equal(shuffled.stable, r.stable[:, index])
    assert np.array_equal(shuffled.table["unstable_roots"].reshape(betas.size, -1), Z[:, index])


@pytest.mark.parametrize("shape", [(), (1,), (5,), (300,), (4, 7)])
def test_parts_are_three_horner_passes_to_the_bit(shape):
    """QuasiPolynomial.parts (and parts_derivative) take D0, D1, D2 in one Horner pass: the values of a
    separate pass per part (quasipoly.horner, the delays summed from ZERO in order), bit for bit."""
    from rcpstab.linear.quasipoly import ZERO, horner

    rng = np.random.default_rng(len(shape) + sum(shape))
    lam = np.asarray(rng.uniform(-3, 3, shape) + 1j * rng.uniform(0, 100, shape))  # () is a 0-d array, as parts takes it
    for name in LINEAR_MODELS:
        qp = quasi_polynomial(get_model(name))
        delays = [np.exp(-lam * theta) if theta else 1.0 for theta in qp.thetas]
        for coeffs, got in ((qp.coeffs, qp.parts(lam)), (qp._derivative_coeffs, qp.parts_derivative(lam))):
            for j in range(3):
                want = sum((horner(lam, coeffs[k, :, j]) * delays[k] for k in range(qp.thetas.size)), ZERO)
                assert np.shape(got[j]) == np.shape(want) and np.array_equal(got[j], want), (name, j)
