"""The rcp-router model: App. F's timing in the fluid model, its limit T -> 0, its linear loop."""

import dataclasses

import numpy as np
import pytest
import sympy as sp

from rcpstab.cli import main
from rcpstab.linear.exact import exact_region
from rcpstab.linear.linearization import lam, linearize
from rcpstab.linear.roots import rightmost_root
from rcpstab.models import get_model, rcp_router
from rcpstab.models.spec import t
from rcpstab.models.symbols import C, alpha, beta, d0
from rcpstab.phaseplane import simulate

ROUTER = get_model("rcp-router")


def _exact_rtt_variant():
    """rcp-router with the router's RTT average replaced by the true RTT d0 + q/C (as in rcp)."""
    exact = d0 + rcp_router.q(t) / C
    rhs = (ROUTER.rhs[0].subs(rcp_router.D_new, exact), *ROUTER.rhs[1:])
    return dataclasses.replace(ROUTER, name="rcp-router-exact-rtt", rhs=rhs)


def _max_gap(model_a, model_b, T, gamma0, q0, t_end=20.0):
    """Largest |R_a - R_b| / Re over [0, t_end] on a 40 ms grid (App. E set-up, (0.4, 0.2))."""
    params = {"alpha": 0.4, "beta": 0.2, "T": T}
    runs = [simulate(m, params, {"gamma0": gamma0, "q0": q0}, t_end, record_every=1) for m in (model_a, model_b)]
    grid = np.arange(0.0, t_end + 1e-9, 0.04)
    a, b = (np.interp(grid, r.t, r.gamma[:, 0]) for r in runs)
    return float(np.max(np.abs(a - b)) / 0.1)


def test_reduces_to_rcp_as_the_interval_shrinks_first_order():
    """Light load (R/C from 0.05 to 0.1, the queue stays below 1e-4 C*d0): the router's averaged,
    held measurement differs from rcp's instantaneous one by O(T). Measured order ~0.99."""
    rcp = get_model("rcp")
    gaps = [_max_gap(rcp, ROUTER, 0.2 / k, 0.05, 0.0) for k in (10, 20, 40, 80)]
    order = np.log2(np.array(gaps[:-1]) / np.array(gaps[1:]))
    assert np.all(np.diff(gaps) < 0)
    assert np.allclose(order, 1.0, atol=0.05), order
    assert gaps[-1] < 2e-3


def test_with_the_true_rtt_it_reduces_to_rcp_from_a_large_queue_too():
    """From App. E's q(0) = 2 C d0 the RTT average (eq. 5.17: an EWMA with a time constant of
    about one RTT, whatever T) keeps a finite gap to rcp as T -> 0; with the true RTT in its
    place the gap closes at first order. So the averaged measurement and the hold are the only
    other differences, and they vanish with T."""
    rcp = get_model("rcp")
    q0 = 2 * 0.15e9 * 0.2
    filtered = [_max_gap(rcp, ROUTER, 0.2 / k, 0.5, q0) for k in (20, 40, 80)]
    exact = [_max_gap(rcp, _exact_rtt_variant(), 0.2 / k, 0.5, q0) for k in (20, 40, 80)]
    assert filtered[-1] > 1.0  # the RTT filter: not a discretization error
    order = np.log2(np.array(exact[:-1]) / np.array(exact[1:]))
    assert np.all(order > 0.9), (exact, order)
    assert exact[-1] < 0.05 * filtered[-1]


def test_linearization_matches_the_hand_derivation():
    """(lambda + 1)(lambda**2 + exp(-lambda) (alpha (1 - exp(-lambda tau))/tau + beta)), tau = 1/20:
    the RTT average's own decoupled mode times the averaged rate loop (module docstring)."""
    tau = sp.Rational(1, 20)
    system = linearize(ROUTER)
    hand = sp.expand((lam + 1) * (lam**2 + sp.exp(-lam) * (alpha * (1 - sp.exp(-lam * tau)) / tau + beta)))
    assert sp.simplify(sp.expand(system.normalized_characteristic) - hand) == 0
    G = sp.exp(-lam) * (alpha * (1 - sp.exp(-lam * tau)) / tau + beta) / lam**2
    assert sp.simplify(system.normalized_open_loop - G) == 0
    assert system.free_parameters() == {alpha, beta}


def test_continuous_loop_and_exact_sampled_loop_agree_as_the_hold_shrinks():
    """Two independent linear analyses: the spec's symbolic linearization (R continuous) and the
    hand-derived z-domain loop with the hold (d0 = m T). Growth per d0 from the sampled loop,
    m*log|z|, tends to the continuous rightmost root's real part; the hold's extra half interval
    of delay makes the gap shrink about like 1/m."""
    gaps = []
    for m in (20, 80):
        model = rcp_router.at_interval_ratio(sp.Rational(1, m))
        for a, b in ((0.4, 0.2), (1.4, 0.3)):
            continuous = rightmost_root(model, a, b).real
            sampled = m * np.log(rcp_router.sampled_spectral_radius(a, b, m))
            gaps.append(abs(sampled - continuous))
            assert np.sign(sampled) == np.sign(continuous)
    assert max(gaps[2:]) < 0.5 * max(gaps[:2])
    assert max(gaps[2:]) < 0.01


def test_sampled_loop_tends_to_rcp_characteristic():
    """With z = exp(lambda/m), m -> oo: the router's polynomial over m**-2 -> lambda**2 e^lambda + alpha lambda + beta."""
    lam0, m = 0.3 + 1.1j, 4000
    z = np.exp(lam0 / m)
    value = np.polyval(rcp_router.sampled_characteristic(0.7, 0.4, m), z) * m**2 / z**m
    assert abs(value - (lam0**2 + (0.7 * lam0 + 0.4) * np.exp(-lam0))) < 1e-3


def test_interval_ratio_shrinks_towards_the_thesis_region():
    """Exact regions of the averaged loop: at T/d0 = 1/40 one point of the coarse grid (on the
    thesis boundary) is lost against eq. 5.7's region, at 1/2 more than half; none is gained."""
    alphas, betas = np.arange(0.2, 2.01, 0.2), np.arange(0.1, 1.01, 0.1)
    thesis = exact_region(get_model("rcp"), alphas, betas)
    near = exact_region(rcp_router.at_interval_ratio(sp.Rational(1, 40)), alphas, betas)
    coarse = exact_region(rcp_router.at_interval_ratio(sp.Rational(1, 2)), alphas, betas)
    for region in (near, coarse):
        assert not (region.stable & ~thesis.stable).any()  # averaging never adds stability here
    assert thesis.stable.sum() - near.stable.sum() <= 1
    assert coarse.stable.sum() < 0.5 * thesis.stable.sum()


def test_cli_linearize_and_margins(capsys):
    assert main(["linearize", "--model", "rcp-router"]) == 0
    out = capsys.readouterr().out
    assert "parameters left after normalization: alpha, beta" in out
    assert "T = d_0/20" in out and "sampled_characteristic" in out
    assert main(["margins", "--model", "rcp-router", "--alpha", "0.4", "--beta", "0.2"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "more than one delay" in err


@pytest.mark.parametrize("m, radius_router, radius_rcp", [(1, 1.44996, 0.94868)])
def test_d0_equal_to_T_hand_values(m, radius_router, radius_rcp):
    """At d0 = T, (2.0, 0.1): the router (arrivals over the last interval) is unstable; rcp read at
    the update instant sees one interval less delay, z(z-1)**2 + 2 z(z-1) + 0.1 z, roots
    z = 1 - 1 +/- sqrt(0.9): stable (|z| = sqrt(0.9) = 0.9487)."""
    assert rcp_router.sampled_spectral_radius(2.0, 0.1, m) == pytest.approx(radius_router, abs=1e-5)
    assert rcp_router.sampled_spectral_radius(2.0, 0.1, m, instantaneous=True) == pytest.approx(radius_rcp, abs=1e-5)
    assert radius_rcp == pytest.approx(np.sqrt(0.9), abs=1e-5)


def test_the_jump_at_d0_equal_T_is_rcp_reading_y_at_the_update_instant():
    """(2.0, 0.1), T = 10 ms, App. E's C and N: rcp settles at d0 = T and swings at d0 = 1.01 T (and
    0.99 T settles: the delay read at the instant is one interval shorter up to d0 = T); the
    router-timed model swings at all three, continuously in d0, as the packet router does
    (experiments/interval_ratio.py)."""

    def late_swing(model, d0):
        run = simulate(get_model(model), {"alpha": 2.0, "beta": 0.1, "d0": d0, "T": 0.01}, {"gamma0": 0.5, "q0": 0.0}, 30.0)
        late = run.gamma[run.t > 20.0, 0] / 0.1
        return float(late.max() - late.min())

    assert late_swing("rcp", 0.01) < 1e-6
    assert late_swing("rcp", 0.0099) < 1e-6
    assert late_swing("rcp", 0.0101) > 1.0
    for d0_s in (0.0099, 0.01, 0.0101):
        assert late_swing("rcp-router", d0_s) > 1.0


def test_xcp_router_linearization_matches_the_hand_derivation():
    """xcp-router: lambda**2 (lambda + 1) + exp(-lambda) (alpha (1 - exp(-lambda)) + beta), the feedback's
    hold as a lag of one d0 and the one-interval average of y on the alpha term (module docstring)."""
    system = linearize(get_model("xcp-router"))
    hand = lam**2 * (lam + 1) + sp.exp(-lam) * (alpha * (1 - sp.exp(-lam)) + beta)
    assert sp.simplify(sp.expand(system.normalized_characteristic) - sp.expand(hand)) == 0


def test_xcp_router_settles_at_the_paper_gains_and_not_where_the_hold_costs_stability():
    """(0.4, 0.226), XCP's gains: settles; (0.6, 0.4), where eq. 16 (xcp) settles: the averaged,
    held feedback swings between 0 and 1.67 c."""

    def late(model, a, b):
        run = simulate(get_model(model), {"alpha": a, "beta": b}, {"gamma0": 0.05, "q0": 0.0}, 60.0)
        g = run.gamma[run.t > 50.0, 0] / 0.1
        return float(g.max() - g.min())

    assert late("xcp-router", 0.4, 0.226) < 1e-5
    assert late("xcp", 0.6, 0.4) < 1e-5
    assert late("xcp-router", 0.6, 0.4) > 1.0
