"""Certificates beyond the linear region: a functional over two round trips that knows the queue clamp."""

import importlib.util

import numpy as np
import pytest

from rcpstab.linear.exact import exact_region
from rcpstab.linear.roots import rightmost_roots
from rcpstab.linear.switched_lkf import shifted_legendre
from rcpstab.models import get_model
from rcpstab.phaseplane import simulate
from rcpstab.phaseplane.sweep import phaseplane_region
from rcpstab.verdicts.judgement import band_distance

# found, not imported: the code imports cvxpy when it runs; importing it here cost every pytest-xdist worker
# ~2.2 s of CPU at collection, also the worker that does not run this file
if importlib.util.find_spec("cvxpy") is None:
    pytest.skip("cvxpy is not installed", allow_module_level=True)
from rcpstab.linear.certified_window import (  # noqa: E402
    certified_window_region,
    loop_matrices,
    window_certificate,
)

SWITCHED = get_model("switched")
STEPS = 200  # integration steps per round trip for the independent functional check


def _simulate_rtts(A, Ad, clamped, history, rtts):
    """x'(tau) = A x + Ad x(tau-1), the clamped state projected onto >= 0 (Heun's method, own code).

    ``history``: (..., k*STEPS + 1, n) samples of the initial function on [-k, 0]; leading axes are
    independent runs, integrated together.
    """
    h = 1.0 / STEPS
    start, steps = history.shape[-2], int(rtts * STEPS)
    xs = np.concatenate([history, np.zeros(history.shape[:-2] + (steps, history.shape[-1]))], axis=-2)

    def rate(state, delayed):
        r = state @ A.T + delayed @ Ad.T
        held = (state[..., clamped] <= 0) & (r[..., clamped] < 0)
        r[..., clamped] = np.where(held, 0.0, r[..., clamped])
        return r

    for m in range(start, start + steps):
        x, xd, xd1 = xs[..., m - 1, :], xs[..., m - 1 - STEPS, :], xs[..., m - STEPS, :]
        k1 = rate(x, xd)
        pred = x + h * k1
        pred[..., clamped] = np.maximum(pred[..., clamped], 0.0)
        new = x + h / 2 * (k1 + rate(pred, xd1))
        new[..., clamped] = np.maximum(new[..., clamped], 0.0)
        xs[..., m, :] = new
    return xs


def _functional(cert, xs, end):
    """V at sample ``end`` by quadrature of its definition (independent of the LMI builders)."""
    h = 1.0 / STEPS
    L, N = cert.window, cert.order
    Y = np.hstack([xs[end - k * STEPS - STEPS : end - k * STEPS + 1] for k in range(L)])  # Y(tau+s), s in [-1, 0]
    s = np.linspace(-1.0, 0.0, STEPS + 1)
    w = np.full(STEPS + 1, h)
    w[[0, -1]] = h / 2
    moments = [((np.polynomial.polynomial.polyval(s, shifted_legendre(k)) * w)[:, None] * Y).sum(0) for k in range(N)]
    eta = np.concatenate([Y[-1]] + moments)
    dY = np.gradient(Y, h, axis=0)
    q_term = np.einsum("i,ij,jk,ik->", w, Y, cert.Q, Y)
    r_term = np.einsum("i,i,ij,jk,ik->", w, s + 1.0, dY, cert.R, dY)
    return eta @ cert.P @ eta + q_term + r_term


def _random_history(rng, n, rtts, clamped, scale):
    s = np.linspace(-rtts, 0.0, rtts * STEPS + 1)
    out = np.zeros((s.size, n))
    for i in range(n):
        for _ in range(3):
            out[:, i] += rng.normal() * scale[i] * np.sin(rng.uniform(0.3, 3.0) * s + rng.uniform(0, 2 * np.pi))
    out[:, clamped] = np.abs(out[:, clamped])
    return out


@pytest.fixture(scope="module")
def beyond():
    return window_certificate(SWITCHED, 0.8, 0.55, window=2)


def test_the_thesis_point_is_linearly_unstable_and_certified_over_two_round_trips(beyond):
    root = rightmost_roots(get_model("linear"), 0.8, 0.55, count=1)[0]
    assert root.real == pytest.approx(0.0126, abs=5e-4)  # outside the exact linear region...
    assert beyond is not None and beyond.margin > 0  # ...and certified for the switched system
    assert window_certificate(SWITCHED, 0.8, 0.55, window=1) is None  # one round trip cannot (see the docs)


def test_a_reused_compiled_problem_gives_the_fresh_problems_certificate(beyond, monkeypatch):
    """window_certificate keeps its compiled cvxpy problem per shape and re-solves it with new A, Ad: the
    certificate at a point is the same, bit for bit, after the problem has solved another point."""
    from collections import OrderedDict

    import rcpstab.linear.certified_window as cw

    monkeypatch.setattr(cw, "_COMPILED", OrderedDict())  # a cache of its own, the process's left as it was
    other = window_certificate(SWITCHED, 0.4, 0.2, window=2)
    again = window_certificate(SWITCHED, 0.8, 0.55, window=2)
    assert len(cw._COMPILED) == 1  # one compiled problem served both points
    assert other is not None and not np.array_equal(other.P, again.P)
    for name in ("P", "Q", "R", "margin"):
        assert np.array_equal(getattr(again, name), getattr(beyond, name)), name


def _decreases_along_runs(cert, runs, rtts, seed):
    """Soundness, checked without the LMIs: V by quadrature along switched runs from random histories."""
    A, Ad, clamped = loop_matrices(SWITCHED, cert.alpha, cert.beta)
    rng = np.random.default_rng(seed)
    scale = np.array([0.5, 0.5 * 0.2]) * 1.5e8  # rate deviation 0.5 C, queue 0.5 BDP (bits)
    past = cert.window + 1  # round trips of initial history
    switches = 0
    histories = np.array([_random_history(rng, 2, past, clamped, scale) for _ in range(runs)])
    for xs in _simulate_rtts(A, Ad, clamped, histories, rtts):
        q = xs[past * STEPS :, clamped]
        switches += int(np.sum((q[1:] == 0) & (q[:-1] > 0)))
        # from tau = L on: the window (x on [tau-L, tau], its derivative included) is the loop's own solution
        V = np.array([_functional(cert, xs, e) for e in range((past + cert.window) * STEPS, xs.shape[0], STEPS // 4)])
        assert (np.diff(V) <= 1e-4 * V[:-1]).all()  # never up (quadrature error allowed)
        assert V[-1] < 0.5 * V[0]  # and down overall
    return switches


def test_the_functional_decreases_along_simulated_switched_trajectories(beyond):
    assert _decreases_along_runs(beyond, 12, 30, seed=7) >= 12  # the runs visit the clamped mode
    assert _decreases_along_runs(window_certificate(SWITCHED, 0.4, 0.8, window=3), 4, 30, seed=8) >= 4

    # the same check fails for a functional that is not a certificate of this loop
    wrong = window_certificate(SWITCHED, 0.4, 0.1, window=2)
    A, Ad, clamped = loop_matrices(SWITCHED, 0.8, 0.55)
    scale = np.array([0.5, 0.5 * 0.2]) * 1.5e8
    xs = _simulate_rtts(A, Ad, clamped, _random_history(np.random.default_rng(1), 2, 3, clamped, scale), 20)
    V = np.array([_functional(wrong, xs, e) for e in range(5 * STEPS, xs.shape[0], STEPS // 4)])
    assert (np.diff(V) > 1e-3 * V[:-1]).any()


def test_every_certified_point_converges_from_50_starts_including_large_ones():
    grid_a, grid_b = np.array([0.4, 0.8, 1.2]), np.array([0.55, 0.7])
    cert = certified_window_region(SWITCHED, grid_a, grid_b)  # the default: three round trips
    exact = exact_region(get_model("linear"), grid_a, grid_b)
    points = [(a, b) for j, b in enumerate(grid_b) for i, a in enumerate(grid_a) if cert.stable[j, i]]
    assert (cert.stable & ~exact.stable).sum() >= 4  # certified outside the linear region
    gammas = np.array([0.001, 0.01, 0.05, 0.3, 1.0])  # R/C: 1/100 to 10 times the fair share
    queues = np.array([0.0, 0.1, 0.5, 1.0, 2.0, 5.0, 10.0, 30.0, 100.0, 1000.0]) * 0.15e9 * 0.2  # up to 1000 BDP
    G, Q = np.meshgrid(gammas, queues)
    a = np.repeat([p[0] for p in points], G.size)
    b = np.repeat([p[1] for p in points], G.size)
    tr = simulate(
        SWITCHED,
        {"alpha": a, "beta": b},
        {"gamma0": np.tile(G.ravel(), len(points)), "q0": np.tile(Q.ravel(), len(points))},
        1500 * 0.2,
    )
    dist = band_distance(tr.gamma, tr.queue, tr.gamma_eq, tr.queue_eq, tr.capacity * tr.d0)
    assert np.isfinite(dist).all()
    assert (dist[tr.rtt > 1400] <= 1).all()


def test_a_linearly_stable_point_is_certified_for_both_models():
    for model in ("switched", "linear"):
        assert window_certificate(model, 0.4, 0.2, window=2) is not None
        assert window_certificate(model, 0.4, 0.2, window=1) is not None


def test_points_the_phase_plane_refutes_are_never_certified():
    grid_a, grid_b = np.array([1.3, 1.6]), np.array([0.3, 0.6])  # (1.3, 0.3) stable, three refuted
    pp = phaseplane_region(SWITCHED, grid_a, grid_b)
    cert = certified_window_region(SWITCHED, grid_a, grid_b)
    assert (~pp.stable).sum() >= 3  # the grid has points that oscillate...
    assert not (cert.stable & ~pp.stable).any()  # ...and none of them is certified
    assert window_certificate("linear", 0.8, 0.55, window=2) is None  # nor the linear loop outside its region


def test_the_obstruction_two_queue_positive_states_along_which_any_quadratic_functional_grows():
    """The theorem's key step, checked by simulation with the clamp active and arbitrary functionals."""
    from types import SimpleNamespace

    from rcpstab.linear.window_obstruction import obstruction, witness_histories

    ob = obstruction(SWITCHED, 0.8, 0.55, window=1)
    assert ob is not None and ob.root.real == pytest.approx(0.0126, abs=5e-4) and ob.spread < np.pi / 2
    assert obstruction(SWITCHED, 0.8, 0.55, window=2) is None  # 2 * 0.973 > pi/2: the window that works
    A, Ad, clamped = loop_matrices(SWITCHED, 0.8, 0.55)
    theta = np.linspace(-2.0, 0.0, 2 * STEPS + 1)
    pair = witness_histories(A, Ad, clamped, ob.root, 1, theta)
    assert (pair[:, -STEPS - 1 :, clamped] > 0).all()  # queue positive over the whole last round trip
    runs = [_simulate_rtts(A, Ad, clamped, h, 0.25) for h in pair]
    assert all((r[-STEPS - 1 :, clamped] > 0).all() for r in runs)  # still the free mode a quarter RTT later
    rng = np.random.default_rng(3)
    end0, end1 = 2 * STEPS, 2 * STEPS + STEPS // 4
    for _ in range(5):  # any positive definite P, Q, R of one round trip
        P, Q, R = (
            M @ M.T + 0.1 * np.eye(M.shape[0])
            for M in (rng.normal(size=(4, 4)), rng.normal(size=(2, 2)), rng.normal(size=(2, 2)))
        )
        f = SimpleNamespace(window=1, order=1, P=P / 1e14, Q=Q / 1e14, R=R / 1e14)
        w0 = sum(_functional(f, r, end0) for r in runs)
        w1 = sum(_functional(f, r, end1) for r in runs)
        assert w1 / w0 == pytest.approx(np.exp(2 * ob.root.real * 0.25), rel=2e-4)  # grows like e^{2 sigma tau}
    for order in (1, 2, 3):  # and the SDP agrees at every size tried
        assert window_certificate(SWITCHED, 0.8, 0.55, window=1, order=order) is None


def test_the_theorem_predicts_which_window_can_work():
    """(0.2, 0.6): omega = 0.715/RTT, so 2 round trips are ruled out (1.43 < pi/2) and 3 are not, and do certify."""
    two = certified_window_region(SWITCHED, [0.2, 0.8], [0.55, 0.6], window=2)
    ruled = two.table["ruled_out"].reshape(two.stable.shape)
    assert ruled[1, 0] == 1 and not two.stable[1, 0]  # (0.2, 0.6): impossible over 2 round trips
    assert two.stable[0, 1] and ruled[0, 1] == 0  # (0.8, 0.55): certified
    assert not (ruled.astype(bool) & two.stable).any()
    assert window_certificate(SWITCHED, 0.2, 0.6, window=3) is not None


def test_map_certified_window_command(capsys):
    from rcpstab.cli import main

    assert (
        main(
            [
                "map",
                "--method",
                "certified-window",
                "--model",
                "switched",
                "--alpha",
                "0.8",
                "--beta",
                "0.55",
                "--window",
                "1",
                "--json",
            ]
        )
        == 0
    )
    import json

    out = json.loads(capsys.readouterr().out)
    assert out["stable"] == [[0]]  # one round trip: ruled out (see the docs)
    assert (
        main(["map", "--method", "certified-window", "--model", "switched", "--alpha", "0.8", "--beta", "0.55", "--window", "0"])
        == 2
    )
    assert "window = 0" in capsys.readouterr().err  # the domain table's wording, naming the value


def test_legendre_and_bernstein_building_blocks_against_closed_forms():
    from rcpstab.linear.switched_lkf import bernstein_in_legendre, legendre_derivative

    P = np.polynomial.polynomial
    s = np.linspace(-1.0, 0.0, 7)
    assert P.polyval(s, shifted_legendre(2)) == pytest.approx(6 * s**2 + 6 * s + 1)  # P_2(2s + 1)
    c = legendre_derivative(3)
    assert c[1, 0] == pytest.approx(2) and c[2, 1] == pytest.approx(6)  # L_1' = 2, L_2' = 6 L_1
    assert c[3, 0] == pytest.approx(2) and c[3, 2] == pytest.approx(10) and abs(c[3, 1]) < 1e-12
    coef, ends, dcoef = bernstein_in_legendre(3)  # s^2, -2s(s+1), (s+1)^2
    assert coef.sum(0) == pytest.approx([1, 0, 0])  # a partition of unity
    assert ends.tolist() == [[0, 1], [0, 0], [1, 0]]  # (b_j(0), b_j(-1))
    assert dcoef[0] == pytest.approx([-1, 1, 0])  # d/ds s^2 = 2s = L_1 - L_0
    assert dcoef[2] == pytest.approx([1, 1, 0])  # d/ds (s+1)^2 = L_1 + L_0
    assert coef[1] == pytest.approx([1 / 3, 0, -1 / 3])  # -2s(s+1) = (L_0 - L_2)/3


def test_region_api_takes_the_window(capsys):
    import rcpstab

    r = rcpstab.region("switched", "0.8", "0.55", method="certified-window", window=2)
    assert bool(r.stable[0, 0])
    with pytest.raises(rcpstab.InputError, match="window"):
        rcpstab.region("switched", "0.8", "0.55", method="exact", window=2)


def test_the_dual_certificate_makes_every_one_round_trip_sdp_infeasible():
    """At (0.8, 0.55), for orders 1-4: on the two witness states every cone form is >= 0 and the LMI's own
    derivative bound exceeds 2 sigma times the functional's lower bound, for any P, Q, R: so no (P, Q, R, K)
    can make the decrease LMI negative while keeping V positive (W = xi_a xi_a' + xi_b xi_b' is the dual)."""
    from rcpstab.linear.switched_lkf import decrease_lmi, positivity_lmi, window_modes
    from rcpstab.linear.window_obstruction import obstruction, witness_histories

    A, Ad, clamped = loop_matrices(SWITCHED, 0.8, 0.55)
    s = obstruction(SWITCHED, 0.8, 0.55, window=1).root
    nodes, weights = np.polynomial.legendre.leggauss(40)
    theta = (nodes - 1) / 2  # Gauss nodes on [-1, 0]
    pair = witness_histories(A, Ad, clamped, s, 1, np.concatenate([theta, [-1.0, 0.0]]))
    rng = np.random.default_rng(5)
    for order in (1, 2, 3, 4):
        lay, modes = window_modes(A, Ad, clamped, 1, order)
        free = next(m for m in modes if m.modes == (1,))
        xis, rs = [], []
        for h in pair:
            moments = [
                (weights / 2 * np.polynomial.polynomial.polyval(theta, shifted_legendre(k))) @ h[:-2] for k in range(order)
            ]
            xis.append(np.concatenate([h[-1], h[-2]] + moments))
            rs.append(A @ h[-1] + Ad @ h[-2])  # x'(0) on the witness
        assert min((free.forms @ xi).min() for xi in xis) > -1e-9 * max(np.abs(xi).max() for xi in xis)
        for _ in range(4):
            M = rng.normal(size=(lay.dim_eta,) * 2)
            P = (M + M.T) / 2
            Q, R = ((X @ X.T) for X in (rng.normal(size=(2, 2)), rng.normal(size=(2, 2))))
            none = np.zeros((0, 0))
            dec = decrease_lmi(lay, free, P, Q, R, np.zeros((free.forms.shape[0],) * 2), np.block)
            growth = sum(np.concatenate([xi, r]) @ dec @ np.concatenate([xi, r]) for xi, r in zip(xis, rs))
            pos = positivity_lmi(lay, P, Q, none, np.zeros((0, lay.dim_eta)))
            lower = sum((lay.eta @ xi) @ pos @ (lay.eta @ xi) for xi in xis)
            scale = sum(np.abs(xi).sum() ** 2 for xi in xis) * (np.abs(P).max() + np.abs(Q).max() + np.abs(R).max())
            assert growth >= 2 * s.real * lower - 1e-9 * scale
