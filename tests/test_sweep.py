"""The shared frequency sweep of many loops (``phasecross.sweep``) and the batch built on it.

Batch margins must be what point-by-point calls give, whatever points are swept together; the
sweep's shortcuts (real arithmetic, unwrap by whole turns, groups by reach) must not change a
crossing; and the batch's numbers must equal RCP's closed forms.
"""

import numpy as np
import pytest
from scipy.optimize import brentq

import rcpstab
from rcpstab.linear import phasecross
from rcpstab.linear.margins import margins
from rcpstab.linear.openloop import open_loop
from rcpstab.linear.roots import COLLOCATION_NODES, rightmost_roots_many
from rcpstab.models import get_model


def test_unwrap_equals_numpy_and_a_prefix_keeps_its_values():
    rng = np.random.default_rng(5)
    phase = np.cumsum(rng.uniform(-3.0, 3.0, (6, 400)), axis=1)  # steps below pi: unwrapping recovers them
    wrapped = np.angle(np.exp(1j * phase))
    ours = phasecross.unwrap(wrapped)
    assert np.allclose(ours, np.unwrap(wrapped, axis=-1), rtol=0, atol=1e-11)
    assert np.allclose(ours - ours[:, :1], phase - phase[:, :1], rtol=0, atol=1e-11)
    # a group's wider grid continues each loop's own: the first k samples are unwrapped alike
    assert np.array_equal(phasecross.unwrap(wrapped[:, :137]), ours[:, :137])


def test_grid_sizes_are_the_grids_lengths():
    rng = np.random.default_rng(3)
    ends = np.concatenate((rng.uniform(0.5, 4000.0, 500), [1.0, 1.02, 1.04, 2.0, 10.0, 1.0000001]))
    for theta in (1.0, 0.5, 2.7):
        sizes = phasecross._grid_sizes(ends, theta)
        assert all(phasecross._grid(e, theta).size == n for e, n in zip(ends, sizes))


@pytest.mark.parametrize("model", ["rcp", "xcp", "rcpac"])
def test_real_sampling_equals_the_rational_function(model):
    ol = open_loop(get_model(model))
    rng = np.random.default_rng(8)
    a, b = 10 ** rng.uniform(-2, 1, 9), 10 ** rng.uniform(-2, 1, 9)
    w = phasecross._grid(40.0, ol.theta)
    re, im = phasecross._rational_parts(ol, w, a, b)
    r = ol.rational(1j * w, a[:, None], b[:, None])
    assert np.allclose(re + 1j * im, r, rtol=1e-13, atol=0)


@pytest.mark.parametrize("model", ["rcp", "rcpac"])
def test_crossings_do_not_depend_on_the_loops_swept_together(monkeypatch, model):
    """Groups of 1, 7 or 32 loops, in any order: every crossing and crossover bit for bit the same."""
    ol = open_loop(get_model(model))
    rng = np.random.default_rng(21)
    a, b = rng.uniform(0.02, 2.0, 60), rng.uniform(0.01, 1.0, 60)
    runs = []
    for group, order in ((32, np.arange(60)), (7, rng.permutation(60)), (1, rng.permutation(60))):
        monkeypatch.setattr(phasecross, "GROUP", group)
        pc, (point, wz, phase) = phasecross.sweep(ol, a[order], b[order], gain_limit=16.0)
        back = np.argsort(order)  # loop i of the permuted sweep is loop order[i]
        cross = sorted(zip(order[pc.point], pc.w, pc.magnitude, pc.direction, pc.level))
        over = sorted(zip(order[point], wz, phase))
        runs.append((cross, over, pc.low[back], pc.gain_count[back]))
    for other in runs[1:]:
        assert other[0] == runs[0][0] and other[1] == runs[0][1]
        assert np.array_equal(other[2], runs[0][2]) and np.array_equal(other[3], runs[0][3])
    assert len(runs[0][0]) > 60 and len(runs[0][1]) >= 60  # the loops do cross


@pytest.mark.parametrize("model", ["rcp", "xcp", "rcpac"])
def test_batched_roots_equal_the_full_collocation(model):
    """The batch's few collocation nodes and Newton land on the 24-node root (points unlike the calibration's)."""
    from rcpstab.linear.batch import BATCH_NODES

    rng = np.random.default_rng(314)
    a, b = 10 ** rng.uniform(-2.5, 1.2, 400), 10 ** rng.uniform(-2.5, 1.2, 400)
    spec = get_model(model)
    few = rightmost_roots_many(spec, a, b, nodes=BATCH_NODES)
    full = rightmost_roots_many(spec, a, b, nodes=COLLOCATION_NODES)
    assert np.all(np.abs(few - full) < 1e-9 * (1 + np.abs(full)))


def test_batch_equals_rcps_closed_forms():
    """RCP's G = e^{-jw}(j a w + b)/(j w)^2 (thesis eqs. 5.8-5.11) at every stable point of a grid."""
    A, B = np.meshgrid(np.linspace(0.15, 1.9, 12), np.linspace(0.02, 0.9, 10))
    batch = rcpstab.margins("rcp", A.ravel(), B.ravel())
    checked = 0
    for m in batch:
        a, b = m.alpha, m.beta
        wz = np.sqrt((a**2 + np.sqrt(a**4 + 4 * b**2)) / 2)
        pm = -wz + np.arctan(a * wz / b)
        assert m.crossover_w == pytest.approx(wz, rel=1e-12)
        assert m.phase_margin_deg == pytest.approx(np.degrees(pm), abs=1e-9)
        assert m.stable == (pm > 0)
        if m.stable:
            wc = brentq(lambda w, r=a / b: w * r - np.tan(w), 1e-9, np.pi / 2 - 1e-12, xtol=1e-15)
            assert m.phase_crossover_w == pytest.approx(wc, rel=1e-9)
            assert m.gain_margin == pytest.approx(wc**2 / np.hypot(b, a * wc), rel=1e-9)
            assert m.delay_margin == pytest.approx(pm / wz, rel=1e-9)
            checked += 1
    assert checked > 20


# xcp's open loop is RCP's (its batched roots: test_batched_roots_equal_the_full_collocation[xcp]): slow tier
@pytest.mark.parametrize("model", [pytest.param("xcp", marks=pytest.mark.slow), "rcp"])
def test_batch_equals_point_by_point_over_decades(model):
    """Log-uniform gains over three decades (long and short reaches swept in one batch)."""
    rng = np.random.default_rng(77)
    a, b = 10 ** rng.uniform(-2, 1, 30), 10 ** rng.uniform(-2.3, 0.7, 30)
    batch = rcpstab.margins(model, a, b)
    spec = get_model(model)
    for i in range(30):
        s, r = margins(spec, a[i], b[i]), batch[i]
        assert s.stable == r.stable and s.unstable_roots == r.unstable_roots and s.notes == r.notes
        for f in ("gain_margin", "gain_margin_lower", "phase_margin_deg", "crossover_w", "phase_crossover_w", "delay_margin"):
            x, y = getattr(s, f), getattr(r, f)
            assert (x is None) == (y is None), (i, f)
            if x is not None:
                assert y == pytest.approx(x, rel=1e-9, abs=1e-12), (i, f)
        assert complex(*r.rightmost_root) == pytest.approx(complex(*s.rightmost_root), abs=1e-9)


def _full_angle_brackets(ol, a, b, ends):
    """The brackets as the sweep found them before it stopped taking an angle per sample: the phase of the
    complex loop unwrapped by numpy.unwrap at every sample, bands floor((rest pi/2 + departure) / 2 pi),
    crossings where they change; the gain crossovers' phase as the single-point code's."""
    n = ol.integrators
    own = phasecross._grid_sizes(ends, ol.theta)
    k0 = ol.rational(np.zeros(1), a[:, None], b[:, None])[:, 0].real
    arg_k, sign_k = np.where(k0 < 0, np.pi, 0.0), np.where(k0 < 0, -1.0, 1.0)
    e = arg_k - n * np.pi / 2
    rest = np.mod(np.rint((e + np.pi) / (np.pi / 2)).astype(int), 4)
    w = phasecross._grid(float(np.max(ends)), ol.theta)
    r = ol.rational(1j * w, a[:, None], b[:, None])
    rp = np.unwrap(np.angle(sign_k[:, None] * r), axis=-1)
    rp = rp - 2 * np.pi * np.rint(rp[:, :1] / (2 * np.pi))
    mine = np.arange(w.size - 1)[None, :] + 1 < own[:, None]
    above = np.abs(r) > w**n
    g_rows, g_cols = np.nonzero((above[:, :-1] != above[:, 1:]) & mine)
    g_phase = phasecross._continuous_phase(ol, w, a[:, None], b[:, None], arg_k[:, None])[g_rows, g_cols]
    departure, side, _ = phasecross._departure(ol, w, rp)
    band = np.floor((departure + rest[:, None] * (np.pi / 2)) * (1 / (2 * np.pi)))
    rows, cols = np.nonzero((band[:, :-1] != band[:, 1:]) & mine)
    falling = band[rows, cols + 1] < band[rows, cols]
    k = np.where(falling, band[rows, cols], band[rows, cols + 1])
    offset = 2 * np.pi * k - rest[rows] * (np.pi / 2)
    return (rows, w[cols], falling, offset, departure[rows, cols]), (g_rows, w[g_cols], g_phase), side


def _random_loops(rng):
    """Open loops with negative and positive K, 0-2 integrators, real and lightly damped poles and zeros
    (strictly proper: a zero pair comes with its own pole pair)."""
    for _ in range(12):
        n = int(rng.integers(0, 3))
        poles = [complex(-rng.uniform(0.05, 3.0), rng.choice([0.0, rng.uniform(0.2, 4.0)])) for _ in range(3)]
        zeros = [-rng.uniform(-1.0, 3.0)]
        if rng.uniform() < 0.5:  # a zero pair next to the axis: r passes by the origin between samples
            z = complex(-rng.uniform(1e-4, 1e-2), rng.uniform(0.5, 3.0))
            zeros += [z, z.conjugate()]
            poles += [complex(-rng.uniform(0.5, 3.0), 0.0) for _ in range(2)]
        den = np.real(np.poly(poles + [np.conj(p) for p in poles if p.imag]))[::-1]
        num = np.real(np.poly(zeros))[::-1] * rng.choice([-1.0, 1.0]) * rng.uniform(0.2, 3.0)
        ol_num = np.zeros((num.size, 3))
        ol_num[:, 1] = num / den[0]
        yield phasecross.OpenLoop(theta=float(rng.uniform(0.3, 2.0)), num=ol_num, den=den / den[0], integrators=n)


def test_sign_changes_find_the_brackets_the_full_phase_finds():
    """Bracketing by sign changes of rotated components gives the very brackets, levels, directions and
    base phases (bit for bit) of the full unwrapped phase of the complex loop at every sample, on
    RCP-family loops (on and next to alpha = beta too) and random rational loops."""
    rng = np.random.default_rng(12)
    loops = [(open_loop(get_model(m)), rng.uniform(0.02, 2.0, 40), rng.uniform(0.01, 1.0, 40)) for m in ("rcp", "xcp", "rcpac")]
    # RCP on and next to alpha = beta: its phase leaves -180 deg as -w**3/3, below rounding for many samples
    near = np.array([0.3, 0.5, 0.5, 0.7, 1.1])
    loops.append((open_loop(get_model("rcp")), near, near * np.array([1.0, 1 + 1e-9, 1 - 1e-9, 1 - 1e-6, 1 + 1e-4])))
    loops += [(ol, rng.uniform(0.3, 3.0, 6), np.zeros(6)) for ol in _random_loops(rng)]
    brackets = 0
    for ol, a, b in loops:
        ends = 1.05 * phasecross.tail_frequency(ol, a, b, gain=16.0)
        got = phasecross._group_brackets(ol, a, b, ends, True)
        (rows, lo, falling, offset, base), (g_rows, g_lo, g_phase), side = _full_angle_brackets(ol, a, b, ends)
        assert np.array_equal(got.rows, rows) and np.array_equal(got.lo, lo)
        assert np.array_equal(got.falling, falling) and np.array_equal(got.offset, offset)
        assert np.array_equal(got.base_departure, base)
        assert np.array_equal(got.g_rows, g_rows) and np.array_equal(got.g_lo, g_lo)
        assert np.array_equal(got.g_phase, g_phase)
        brackets += rows.size
    assert brackets > 500
