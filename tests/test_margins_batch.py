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


@pytest.mark.parametrize("model", ["rcp", "rcpac"])
def test_batch_equals_point_by_point(model):
    rng = np.random.default_rng(11)                # stable, unstable and conditionally stable points
    a, b = rng.uniform(0.02, 2.0, 40), rng.uniform(0.01, 1.0, 40)
    batch = rcpstab.margins(model, a, b)
    assert len(batch) == 40 and batch.gain_margin.shape == (40,)
    for i in range(40):
        s, r = margins(rcpstab.models.get_model(model), a[i], b[i]), batch[i]
        assert s.stable == r.stable and s.unstable_roots == r.unstable_roots
        for f in ("gain_margin", "gain_margin_lower", "phase_margin_deg", "crossover_w", "phase_crossover_w",
                  "delay_margin"):
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
