"""Margins over arrays of parameters: one result per point, equal to point-by-point calls."""

import numpy as np
import pytest

import rcpstab
from rcpstab.linear.margins import margins


def _same(x, y):
    return (x is None and y is None) or (x is not None and y is not None and x == pytest.approx(y, rel=1e-9, abs=1e-12))


def test_two_points_are_two_results():
    batch = rcpstab.margins("rcp", [0.4, 0.5], 0.2)
    assert len(batch) == 2
    for i, a in enumerate([0.4, 0.5]):
        single = rcpstab.margins("rcp", a, 0.2)
        assert _same(batch[i].phase_margin_deg, single.phase_margin_deg)
        assert batch.alpha[i] == a


# rcpac in the quick run (its 40 points include conditionally stable ones); rcp's batch is checked point by point
# there by test_two_points_are_two_results and test_vectorized_rules_equal_the_single_point_rules[rcp]
@pytest.mark.parametrize("model", [pytest.param("rcp", marks=pytest.mark.slow), "rcpac"])
def test_batch_equals_point_by_point(model):
    rng = np.random.default_rng(11)  # stable, unstable and conditionally stable points
    a, b = rng.uniform(0.02, 2.0, 40), rng.uniform(0.01, 1.0, 40)
    batch = rcpstab.margins(model, a, b)
    assert len(batch) == 40 and batch.gain_margin.shape == (40,)
    for i in range(40):
        s, r = margins(rcpstab.models.get_model(model), a[i], b[i]), batch[i]
        assert s.stable == r.stable and s.unstable_roots == r.unstable_roots
        for f in ("gain_margin", "gain_margin_lower", "phase_margin_deg", "crossover_w", "phase_crossover_w", "delay_margin"):
            assert _same(getattr(s, f), getattr(r, f)), (i, f)
        assert complex(*r.rightmost_root) == pytest.approx(complex(*s.rightmost_root), abs=1e-9)
        assert s.notes == r.notes
    d = batch.to_dict()
    assert len(d["results"]) == 40 and d["points"]["alpha"][3] == a[3]


def test_loop_model_over_n():
    batch = rcpstab.margins("timely", N=[10, 20], D_prop=100e-6)
    assert len(batch) == 2
    assert batch.phase_margin_deg[1] == pytest.approx(rcpstab.margins("timely", N=20, D_prop=100e-6).phase_margin_deg)


def test_plot_draws_a_margin_map():
    pytest.importorskip("matplotlib")
    batch = rcpstab.margins("rcp", np.linspace(0.2, 1.0, 5), 0.2)
    ax = batch.plot()
    assert ax.get_xlabel() == "alpha" and len(ax.lines) >= 1


# xcp's open loop and quasi-polynomial are RCP's (test_nyquist, test_exact_edges): it runs in the slow tier
@pytest.mark.parametrize("model", ["rcp", "rcpac", pytest.param("xcp", marks=pytest.mark.slow)])
def test_vectorized_rules_equal_the_single_point_rules(model):
    """The batch's NumPy reading of the crossings (gainrules) gives every point exactly what the single-point
    rules give, notes included, on a grid crossing the stable edge (stable, unstable, conditionally stable)."""
    from rcpstab.linear.batch import BATCH_NODES
    from rcpstab.linear.gainrules import assemble_many, crossover_readings, gain_margins_many
    from rcpstab.linear.margins import GAIN_LIMITS, _assemble, _gain_margin, _single
    from rcpstab.linear.openloop import open_loop
    from rcpstab.linear.phasecross import gain_crossovers_many, phase_crossings
    from rcpstab.linear.roots import rightmost_roots_many
    from rcpstab.models import get_model

    spec = get_model(model)
    A, B = np.meshgrid(np.geomspace(0.01, 3.0, 23), np.geomspace(0.005, 2.0, 17))
    a, b = A.ravel(), B.ravel()
    ol = open_loop(spec)
    first = phase_crossings(ol, a, b, gain_limit=GAIN_LIMITS[0])
    z = first.unstable()
    roots = rightmost_roots_many(spec, a, b, nodes=BATCH_NODES)  # the batch's roots: both rules read the same ones
    stable = roots.real < 0
    point, wz, phase = gain_crossovers_many(ol, a, b)
    gains = gain_margins_many(first, stable)
    widened = 0
    for i in range(a.size):
        notes = {}
        one = _gain_margin(ol, a[i], b[i], bool(stable[i]), notes, first=_single(first, i))
        if gains[i] is None:
            widened += 1
            gains[i] = (one, notes)
        else:
            assert gains[i] == (one, notes), (a[i], b[i])
    pristine = [dict(notes) for _, notes in gains]  # assemble_many adds to the notes in place
    ours = assemble_many(a, b, stable, roots, z, gains, crossover_readings(a.size, point, wz, phase, stable))
    bounds = np.searchsorted(point, np.arange(a.size + 1))
    for i, m in enumerate(ours):
        sl = slice(bounds[i], bounds[i + 1])
        ref = _assemble(
            float(a[i]), float(b[i]), bool(stable[i]), roots[i], int(z[i]), gains[i][0], wz[sl], phase[sl], pristine[i]
        )
        assert m.to_dict() == ref.to_dict(), (a[i], b[i])
    assert widened < a.size // 4 and len({m.stable for m in ours}) == 2
