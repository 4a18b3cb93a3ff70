"""The flow-level fair-sharing model of the chain (rcpstab/fct/fair_share.py), issue 24's second
method for the multi-bottleneck figures: its rates against brute force, its one-link case
against exact processor sharing."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.optimize import minimize

from rcpstab.errors import InputError
from rcpstab.fct.fair_share import chain_fair_sojourn, chain_rates
from rcpstab.fct.ps import processor_sharing_sojourn


def _progressive_filling(counts, capacity):
    """Max-min by raising every unfrozen flow's rate together until a link fills (generic routes)."""
    n_links = len(counts) - 1
    routes = [list(range(n_links))] + [[i] for i in range(n_links)]
    rate = np.zeros(len(counts))
    frozen = np.array([c == 0 for c in counts])
    left = np.full(n_links, float(capacity))
    while not frozen.all():
        load = np.zeros(n_links)
        for r, links in enumerate(routes):
            if not frozen[r]:
                load[links] += counts[r]
        step = min(left[i] / load[i] for i in range(n_links) if load[i] > 0)
        for r, links in enumerate(routes):
            if not frozen[r]:
                rate[r] += step
                left[links] -= step * counts[r]
        full = left <= 1e-9 * capacity
        for r, links in enumerate(routes):
            if not frozen[r] and full[links].any():
                frozen[r] = True
    return rate


def _proportional(counts, capacity):
    """Proportional fairness by a general solver: maximise sum n_r log x_r on the chain's links."""
    n = np.asarray(counts, float)
    live = np.flatnonzero(n > 0)
    k = len(counts) - 1

    def link_load(x):
        full = np.zeros(len(n))
        full[live] = x
        return np.array([capacity - n[0] * full[0] - n[i + 1] * full[i + 1] for i in range(k)])

    x0 = np.full(len(live), capacity / (2 * n.sum()))
    res = minimize(
        lambda x: -np.sum(n[live] * np.log(x)),
        x0,
        method="SLSQP",
        constraints=[{"type": "ineq", "fun": link_load}],
        bounds=[(1e-9, capacity)] * len(live),
        options={"ftol": 1e-14, "maxiter": 500},
    )
    out = np.zeros(len(n))
    out[live] = res.x
    return out


@pytest.mark.parametrize("seed", range(6))
def test_rates_match_progressive_filling_and_a_general_solver(seed):
    rng = np.random.default_rng(seed)
    counts = rng.integers(0, 6, size=rng.integers(2, 7))
    counts[0] = max(counts[0], 1)
    np.testing.assert_allclose(chain_rates(counts, 10.0), _progressive_filling(counts, 10.0), rtol=1e-9)
    np.testing.assert_allclose(chain_rates(counts, 10.0, "proportional"), _proportional(counts, 10.0), rtol=2e-4, atol=1e-6)


def test_one_link_is_processor_sharing():
    rng = np.random.default_rng(3)
    a = np.cumsum(rng.exponential(1.0, 300))
    size = rng.exponential(0.8, 300)
    group = rng.integers(0, 2, 300)  # group 0 and group 1 share the one link
    for rule in ("maxmin", "proportional"):
        np.testing.assert_allclose(
            chain_fair_sojourn(a, size, group, 1, 1.0, rule), processor_sharing_sojourn(a, size, 1.0), rtol=1e-9, atol=1e-9
        )


def test_a_worked_chain():
    # A 3-link chain by hand: one group-0 flow and two on link 1 share link 1 by thirds (it fills
    # first under max-min) and all finish at 12; a later group-0 flow alone runs at C.
    a = np.array([0.0, 0.0, 0.0, 20.0])
    size = np.array([4.0, 4.0, 4.0, 2.0])
    so = chain_fair_sojourn(a, size, [0, 1, 1, 0], 3, 1.0)
    np.testing.assert_allclose(so, [12.0, 12.0, 12.0, 2.0])
    # proportional fairness agrees here: X0 = C n0 / (n0 + 2) = 1/3, each group-1 flow (1 - X0) / 2 = 1/3
    pf = chain_fair_sojourn(a, size, [0, 1, 1, 0], 3, 1.0, "proportional")
    np.testing.assert_allclose(pf, [12.0, 12.0, 12.0, 2.0])
    with pytest.raises(InputError, match="rule"):
        chain_rates([1, 1], 1.0, "fifo")
    with pytest.raises(InputError, match="groups"):
        chain_fair_sojourn([0.0], [1.0], [3], 2, 1.0)
