"""Bode and margins for every model's loop, whatever its low-frequency phase; strict JSON at extremes."""

import json

import numpy as np
import pytest

from rcpstab.cli import main
from rcpstab.linear.bode import bode_region
from rcpstab.linear.exact import exact_region, row_structure
from rcpstab.linear.margins import margins
from rcpstab.linear.nyquist import nyquist_region
from rcpstab.linear.roots import rightmost_root
from rcpstab.models import MODELS, get_model


def _has_gain_loop(name):
    """Models whose normalized loop depends on (alpha, beta) only and has one delay: every linear lens
    applies (rcp-router's averaged loop has two delays, and only exact reads it)."""
    from rcpstab.errors import InputError
    from rcpstab.linear.openloop import open_loop
    from rcpstab.linear.quasipoly import quasi_polynomial

    try:
        quasi_polynomial(get_model(name))
        open_loop(get_model(name))
    except InputError:
        return False
    return True


LINEAR_MODELS = [name for name in MODELS if _has_gain_loop(name)]


def far_from_crossings(model, alphas, betas, tol):
    """Grid points further than ``tol`` in alpha from every crossing of their row."""
    s = row_structure(model, betas, alphas.min(), alphas.max())
    far = np.ones((betas.size, alphas.size), bool)
    for j in range(betas.size):
        cross = s.alpha[s.row_slice(j)]
        if cross.size:
            far[j] = np.min(np.abs(alphas[:, None] - cross[None, :]), axis=1) > tol
    return far


@pytest.fixture(scope="module")
def maps_by_loop():
    """The three maps already drawn, per distinct loop: each lens reads a model through its open loop and
    quasi-polynomial only, so the models sharing RCP's (switched, linear, xcp) share RCP's maps."""
    return {}


def _loop_key(model):
    from rcpstab.linear.openloop import open_loop
    from rcpstab.linear.quasipoly import quasi_polynomial

    ol, qp = open_loop(model), quasi_polynomial(model)
    return (ol.theta, ol.integrators, ol.num.shape, ol.num.tobytes(), ol.den.tobytes()) + (
        qp.degree,
        qp.thetas.tobytes(),
        qp.coeffs.shape,
        qp.coeffs.tobytes(),
    )


@pytest.mark.parametrize("name", LINEAR_MODELS)
def test_bode_equals_exact_and_nyquist_for_every_model(name, maps_by_loop):
    model = get_model(name)
    alphas, betas = np.linspace(0.013, 2, 70), np.linspace(0.007, 1, 70)
    key = _loop_key(model)
    if key not in maps_by_loop:
        maps_by_loop[key] = (
            bode_region(model, alphas, betas),
            exact_region(model, alphas, betas),
            far_from_crossings(model, alphas, betas, 1e-6),
            nyquist_region(model, alphas, betas),
        )
    bode, exact, far, nyquist = maps_by_loop[key]
    assert far.mean() > 0.99
    assert np.array_equal(bode.stable[far], exact.stable[far])
    assert np.array_equal(bode.stable, nyquist.stable)


def test_rcpac_bode_matches_rightmost_roots_at_random_points():
    """Issue 14: the thesis' rule got 119 of 900 random rcpac points wrong; the count gets none."""
    model = get_model("rcpac")
    rng = np.random.default_rng(14)
    a, b = rng.uniform(0.02, 2, 60), rng.uniform(0.01, 1, 60)
    for ai, bi in zip(a, b):
        root = rightmost_root(model, ai, bi)
        if abs(root.real) < 1e-6:
            continue
        assert bode_region(model, [ai], [bi]).stable[0, 0] == (root.real < 0)


@pytest.mark.parametrize("name,a,b", [("rcp", 0.4, 0.2), ("rcp", 1.0, 0.3), ("rcpac", 0.4, 0.1), ("rcpac", 0.3, 0.05)])
def test_gain_margin_is_where_the_scaled_loop_goes_unstable(name, a, b):
    """K*G for K just inside / outside [gain_margin_lower, gain_margin]: pole check with a Pade-20 loop."""
    import control as ct  # here: its import (~1.6 s CPU) was paid at collection by every pytest-xdist worker

    m = margins(get_model(name), a, b)
    assert m.stable and m.unstable_roots == 0
    num, den = ct.pade(1.0, 20)
    rational = {"rcp": ct.tf([a, b], [1, 0, 0]), "rcpac": ct.tf([1, a, b], [1, 0, 0, 0])}[name]
    loop = ct.tf(num, den) * rational

    def stable(k):
        return np.all(ct.feedback(k * loop, 1).poles().real < 0)

    assert stable(1.0)
    assert stable(m.gain_margin * 0.999) and not stable(m.gain_margin * 1.001)
    if m.gain_margin_lower is not None:
        assert stable(m.gain_margin_lower * 1.001) and not stable(m.gain_margin_lower * 0.999)
    # Extra delay equal to the delay margin puts a root on the axis (rightmost root of the delayed loop).
    assert m.delay_margin > 0


def test_rcpac_unstable_point_has_no_gain_margin_beside_it():
    """Issue 14 printed a gain margin of 1.645 beside an unstable verdict; now it is explained or null."""
    model = get_model("rcpac")
    for a, b in [(1.6, 0.1), (0.1, 0.9), (1.2, 0.6)]:
        m = margins(model, a, b)
        assert not m.stable and m.unstable_roots > 0
        if m.gain_margin is not None:
            assert "unstable" in m.notes["gain_margin"]
        else:
            assert "gain_margin" in m.notes


def test_margins_agree_with_python_control_on_rcpac_pade_loop():
    import control as ct

    a, b = 0.4, 0.1
    num, den = ct.pade(1.0, 12)
    loop = ct.tf(num, den) * ct.tf([1, a, b], [1, 0, 0, 0])
    gm, pm, _, wpc, wgc, _ = ct.stability_margins(loop)
    m = margins(get_model("rcpac"), a, b)
    assert m.phase_margin_deg == pytest.approx(pm, abs=1e-4)
    assert m.crossover_w == pytest.approx(wgc, rel=1e-5)


# gains above 1000 are outside the one table of domains (rcpstab.runtime.validation): exit 2 before any work
EXTREMES = [
    ("1e-6", "1e-9"),
    ("1e-12", "1e-12"),
    ("1e3", "1e-9"),
    ("1e-9", "1e3"),
    ("1e3", "1e3"),
    ("0.948", "0.5497740256"),
    ("2", "1e-300"),
]


@pytest.mark.parametrize("model", ["rcp", "rcpac"])
@pytest.mark.parametrize("a,b", EXTREMES)
def test_margins_json_is_strict_at_extreme_gains(capsys, model, a, b):
    code = main(["margins", "--model", model, "--alpha", a, "--beta", b, "--json"])
    out, err = capsys.readouterr()
    assert code == 0, err
    payload = json.loads(out, parse_constant=lambda c: pytest.fail(f"non-strict JSON constant {c}"))
    for key, value in payload.items():
        if value is None and key not in ("gain_margin_lower",):
            assert key in payload["notes"], (key, payload["notes"])
