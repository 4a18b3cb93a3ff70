"""RCP-AC fluid model: rate law shared with RCP, its linear loop, the phase plane at a chosen gamma, flash crowds."""

import numpy as np
import sympy as sp

from rcpstab.linear.exact import exact_region
from rcpstab.linear.linearization import lam, linearize
from rcpstab.linear.margins import margins
from rcpstab.models import get_model, rcp, rcpac
from rcpstab.models.spec import t
from rcpstab.models.symbols import C, N, alpha, beta, d0
from rcpstab.phaseplane import phaseplane_region, simulate
from rcpstab.phaseplane.flash_crowd import flash_crowd_peak_queue


def test_rate_controller_is_rcps():
    # rcp-ac.txt line 134: "The Rate Controller uses the same equation as RCP above".
    rate_law = rcpac.MODEL.rhs[0].subs(rcpac.y(t), N * rcp.R(t - d0))
    assert sp.simplify(rate_law - rcp.MODEL.rhs[0]) == 0


def test_linear_loop_and_lenses():
    system = linearize(rcpac.MODEL)
    expected = lam**3 + (lam**2 + alpha * lam + beta) * sp.exp(-lam)
    assert sp.simplify(system.normalized_characteristic - expected) == 0
    assert system.free_parameters() == {alpha, beta}  # gamma_AC, N, C, d0 all drop out
    # Affine in (alpha, beta): the exact, Bode, Nyquist and margin lenses apply.
    m = margins(rcpac.MODEL, 0.4, 0.1)
    assert m.stable and m.phase_margin_deg > 0
    region = exact_region(rcpac.MODEL, [0.4, 1.5], [0.1])
    assert region.stable.tolist() == [[True, False]]


def test_equilibrium_is_a_rest_point():
    eq = {rcpac.R: C / N, rcpac.y: C, rcpac.q: 0}
    subs = {}
    for fn, value in eq.items():
        subs[fn(t)] = value
        subs[fn(t - d0)] = value
        subs[fn(t - rcp.T)] = value
    for f in rcpac.MODEL.rhs:
        assert sp.simplify(f.subs(subs).subs(rcp.eta, 1)) == 0


def test_phaseplane_map_at_chosen_gamma():
    region = phaseplane_region(rcpac.MODEL, [0.4, 1.0], [0.1, 1.0], params={"gamma_AC": 0.2})
    assert [config["gamma_AC"] for config in region.meta["configurations"]] == [0.2]
    assert region.stable[0, 0] and not region.stable[1, 1]


def test_larger_gamma_larger_flash_crowd_queue():
    # rcp-ac.txt lines 246-256: small gamma limits the queue spike, which grows with gamma*B;
    # large gamma behaves like RCP (lines 188-190), whose spike bounds RCP-AC's.
    gammas = [0.01, 0.05, 0.2, 1.0, 10.0]
    peaks = flash_crowd_peak_queue(rcpac.MODEL, {"alpha": 0.4, "beta": 0.2, "gamma_AC": np.array(gammas)})
    assert np.all(np.diff(peaks) > 0)
    assert peaks[0] < 0.1 * peaks[-1]
    crowd = simulate(
        get_model("rcp"), {"alpha": 0.4, "beta": 0.2, "N": 10}, {"gamma0": 0.1, "q0": 0.0}, 12.0, n_schedule=[(2.0, 100)]
    )
    rcp_peak = crowd.queue.max() / (crowd.capacity[0] * crowd.d0)
    assert peaks[-1] < rcp_peak
