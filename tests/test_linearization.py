"""The linearization is derived from the model, equals thesis eq. B.3 / 5.7, and N, C cancel."""

import dataclasses

import sympy as sp

from rcpstab.linear.linearization import lam, linearize, s
from rcpstab.models import get_model
from rcpstab.models.symbols import C, N, T, alpha, beta, d0


def test_jacobians_equal_thesis_B3(rcp):
    system = linearize(rcp)
    # B.3: dR' = -(alpha/d0) dR(t-d0) - beta/(N d0^2) dq(t);  dq' = N dR(t-d0); R(t-T) drops out.
    assert system.A0 == sp.Matrix([[0, -beta / (N * d0**2)], [0, 0]])
    assert set(system.delayed) == {d0}
    assert system.delayed[d0] == sp.Matrix([[-alpha / d0, 0], [N, 0]])
    assert T not in system.characteristic.free_symbols


def test_open_loop_is_eq_5_7(rcp):
    G = linearize(rcp).open_loop
    expected = sp.exp(-s * d0) * (alpha * s * d0 + beta) / (s * d0) ** 2
    assert sp.simplify(G - expected) == 0


def test_N_and_C_cancel_for_every_rcp_form():
    for name in ("rcp", "switched", "linear"):
        system = linearize(get_model(name))
        assert system.free_parameters() == {alpha, beta}
        assert not ({N, C} & system.characteristic.free_symbols)
        assert sp.simplify(system.normalized_characteristic - (lam**2 + (alpha * lam + beta) * sp.exp(-lam))) == 0


def test_changing_the_model_changes_the_linearization(rcp):
    """Double the queue term and delay the queue feedback: G must follow, not a typed-in formula."""
    R, q = rcp.loop_states
    t = sp.Symbol("t", real=True)
    rate, queue = rcp.rhs[:2]
    changed = rate.subs(beta, 2 * beta).subs(q(t), q(t - d0))
    variant = dataclasses.replace(rcp, name="rcp-variant", rhs=(changed, queue))
    G = linearize(variant).normalized_open_loop
    expected = ((alpha * lam + 2 * beta * sp.exp(-lam)) * sp.exp(-lam)) / lam**2
    assert sp.simplify(G - expected) == 0
    assert sp.simplify(linearize(rcp).normalized_open_loop - expected) != 0


def test_linearization_keeps_what_survives_normalization(rcp):
    """A model whose loop gain scales with N keeps N: the cancellation is a property, not assumed."""
    R, q = rcp.loop_states
    rate, queue = rcp.rhs[:2]
    variant = dataclasses.replace(rcp, name="rcp-n", rhs=(rate * N, queue))
    assert N in linearize(variant).free_parameters()
