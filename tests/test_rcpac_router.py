"""The rcpac-router model: RCP-AC's packet router timing in the fluid model, its limit T -> 0, its linear loop."""

import dataclasses
import json

import numpy as np
import pytest
import sympy as sp

from rcpstab.cli import main
from rcpstab.linear.exact import exact_region
from rcpstab.linear.linearization import lam, linearize
from rcpstab.models import get_model
from rcpstab.models.spec import t
from rcpstab.models.symbols import C, alpha, beta, d0
from rcpstab.packet.lens.region import packet_region
from rcpstab.phaseplane import simulate
from rcpstab.phaseplane.flash_crowd import flash_crowd_peak_queue

ROUTER = get_model("rcpac-router")
RCPAC = get_model("rcpac")


def _true_rtt_variant():
    """rcpac-router with the router's RTT average D replaced where rcpac has its own delay:
    d0 + q/C in the rate law and the budget, d0 in the feedback (rcpac's d_fb)."""
    # The model's module, here and not at import: it builds the model with SymPy (~0.4 s) in every
    # xdist worker that collects this file, and one runs it.
    from rcpstab.models import rcpac_router

    true_rtt = d0 + rcpac_router.q(t) / C
    rhs = list(ROUTER.rhs)
    rhs[0] = rhs[0].subs(rcpac_router.D_new, true_rtt)
    stamped = rcpac_router.D_new.subs(t, t - d0)
    rhs[5] = rhs[5].subs(stamped, true_rtt.subs(t, t - d0)).subs(rcpac_router.D(t - d0), d0)
    return dataclasses.replace(ROUTER, name="rcpac-router-true-rtt", rhs=tuple(rhs))


def _max_gap(model, T, gamma0, q0, t_end=20.0):
    """Largest |R_rcpac - R_model| / Re over [0, t_end] on a 40 ms grid (App. E set-up, (0.4, 0.2))."""
    params = {"alpha": 0.4, "beta": 0.2, "T": T, "gamma_AC": 0.2}
    runs = [simulate(m, params, {"gamma0": gamma0, "q0": q0}, t_end, record_every=1) for m in (RCPAC, model)]
    grid = np.arange(0.0, t_end + 1e-9, 0.04)
    a, b = (np.interp(grid, r.t, r.gamma[:, 0]) for r in runs)
    return float(np.max(np.abs(a - b)) / 0.1)


@pytest.mark.slow  # four interval sizes, compiled each: ~2 s
def test_reduces_to_rcpac_as_the_interval_shrinks():
    """With the true RTT in place of the router's average the averaged, held measurements differ
    from rcpac's instantaneous ones by O(T): first order, from a light start and from App. E's
    q(0) = 2 C d0. The router's own RTT average (eq. 5.17, time constant about one RTT whatever T)
    keeps a gap that does not shrink with T (> 1 band from q(0) = 2 C d0): it is the one difference
    that is not a discretization."""
    for gamma0, q0 in ((0.05, 0.0), (0.5, 2 * 0.15e9 * 0.2)):
        gaps = [_max_gap(_true_rtt_variant(), 0.2 / k, gamma0, q0) for k in (20, 40, 80)]
        order = np.log2(np.array(gaps[:-1]) / np.array(gaps[1:]))
        assert np.all(np.abs(order - 1.0) < 0.05), (gaps, order)
        assert gaps[-1] < 2e-3
    filtered = [_max_gap(ROUTER, 0.2 / k, 0.5, 2 * 0.15e9 * 0.2) for k in (20, 80)]
    assert filtered[-1] > 1.0 and filtered[-1] > 0.95 * filtered[0]


def test_linearization_matches_the_hand_derivation():
    """rcpac's loop with rcp-router's averaging factor on the alpha term, times the decoupled modes
    of the RTT average and the deficit average (lambda + 1 each), tau = T/d0 = 1/20 (module docstring)."""
    tau = sp.Rational(1, 20)
    system = linearize(ROUTER)
    loop = lam**3 + sp.exp(-lam) * (lam**2 + alpha * (1 - sp.exp(-lam * tau)) / tau + beta)
    hand = sp.expand((lam + 1) ** 2 * loop)
    assert sp.simplify(sp.expand(system.normalized_characteristic) - hand) == 0
    assert system.free_parameters() == {alpha, beta}


def test_linear_loop_tends_to_rcpacs_region():
    """Exact regions on rcpac's small linear region (alpha <= 0.5, beta <= 0.26): at T/d0 = 1/40 the
    averaged loop loses one boundary point of 48 and gains none; at T/d0 = 1 it has lost 11."""
    from rcpstab.models import rcpac_router

    alphas, betas = np.arange(0.05, 0.61, 0.05), np.arange(0.02, 0.31, 0.04)
    base = exact_region(RCPAC, alphas, betas)
    near = exact_region(rcpac_router.at_interval_ratio(sp.Rational(1, 40)), alphas, betas)
    coarse = exact_region(rcpac_router.at_interval_ratio(1), alphas, betas)
    assert base.stable.sum() == 48
    assert not (near.stable & ~base.stable).any() and base.stable.sum() - near.stable.sum() <= 1
    assert coarse.stable.sum() <= base.stable.sum() - 10


def test_equilibrium_is_a_rest_point():
    """Every right-hand side vanishes at the declared equilibrium (eta = 1, T = d0/20)."""
    eq = {f: v.subs(ROUTER.linearize_at) for f, v in ROUTER.equilibrium.items()}
    subs = {}
    for f, value in eq.items():
        for term in [f(t)] + [x.applied for x in ROUTER.delayed_terms if x.state == f]:
            subs[term] = value
    for f in ROUTER.rhs:
        assert sp.simplify(f.xreplace(subs).subs(ROUTER.linearize_at)) == 0


def test_deficit_average_lets_a_flash_crowd_through():
    """10 -> 100 flows at gamma_AC = 0.01 (flash_crowd_peak_queue's set-up): rcpac's budget holds the
    queue spike under 1 C*d0. The router shares the budget by the deficits averaged over one RTT
    (routers/rcpac/control.py), which are near 0 when the crowd arrives: the whole demand passes for about
    an RTT and the spike is > 10 C*d0. With the deficit read instantly instead (everything else the
    router's) the spike is rcpac's again, within 5%: the average alone makes the difference."""
    from rcpstab.models import rcpac_router

    params = {"alpha": 0.4, "beta": 0.2, "gamma_AC": np.array([0.01])}
    rhs = list(ROUTER.rhs)
    rhs[5] = rhs[5].subs(rcpac_router.E(t - d0), sp.Max(0, rcpac_router.e_stamp))
    instant = dataclasses.replace(ROUTER, name="rcpac-router-instant-deficit", rhs=tuple(rhs))
    base, router, variant = (float(flash_crowd_peak_queue(m, params)[0]) for m in (RCPAC, ROUTER, instant))
    assert base < 1.0 and router > 10.0
    assert abs(variant / base - 1.0) < 0.05


def test_cli_linearize_cosim_and_packet_map(capsys):
    """The linear lens, and the packet lenses pairing the RCP-AC router with this model."""
    assert main(["linearize", "--model", "rcpac-router"]) == 0
    assert "parameters left after normalization: alpha, beta" in capsys.readouterr().out
    assert main(["cosim", "--model", "rcpac-router", "--alpha", "0.4", "--beta", "0.2", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["model"] == "rcpac-router"
    late = report["segments"][1]  # 10 flows: both settle near C/10
    assert abs(late["fluid_plateau"] - 0.1) < 1e-3 and abs(late["packet_plateau"] - 0.1) < 0.01
    region = packet_region(ROUTER, [0.4], [0.2])
    assert region.meta["fluid_model"] == "rcpac-router"
