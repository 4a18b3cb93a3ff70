"""A model's loop handed to python-control: its margins on a Pade of order >= 8 equal rcpstab's exact ones."""

import pytest

import rcpstab
from rcpstab.errors import InputError


@pytest.fixture(scope="module")
def control():
    """python-control, imported by the tests that run (at collection it cost every pytest-xdist worker ~1.6 s CPU)."""
    return pytest.importorskip("control")


@pytest.mark.parametrize("model,alpha,beta", [("rcp", 0.4, 0.2), ("rcp", 0.8, 0.3), ("xcp", 0.4, 0.226), ("rcp", 1.2, 0.2)])
def test_pade_margins_match_exact(model, alpha, beta, control):
    d0 = 0.2  # the model's default round trip (s)
    G = rcpstab.linearize(model).to_control(pade=10, alpha=alpha, beta=beta)
    assert isinstance(G, control.TransferFunction)
    gm, pm, _, wpc, wgc, _ = control.stability_margins(G)
    exact = rcpstab.margins(model, alpha, beta)
    assert pm == pytest.approx(exact.phase_margin_deg, abs=1e-3)
    assert wgc * d0 == pytest.approx(exact.crossover_w, rel=1e-3)
    assert gm == pytest.approx(exact.gain_margin, rel=1e-3)
    assert wpc * d0 == pytest.approx(exact.phase_crossover_w, rel=1e-3)


def test_low_pade_order_is_visibly_approximate(control):
    # order 1 misplaces the phase crossover: the test above would fail with it, so it measures something
    G = rcpstab.linearize("rcp").to_control(pade=1, alpha=0.4, beta=0.2)
    gm = control.stability_margins(G)[0]
    assert abs(gm - rcpstab.margins("rcp", 0.4, 0.2).gain_margin) > 1e-2


def test_dcqcn_loop_export(control):
    from rcpstab.linear.export import loop_to_control
    from rcpstab.linear.fluid_loop import linearized_loop

    loop = linearized_loop("dcqcn", N=10, tau_star=50e-6)
    pm = control.stability_margins(loop_to_control(loop, pade=10))[1]
    assert pm == pytest.approx(rcpstab.margins("dcqcn", N=10, tau_star=50e-6).phase_margin_deg, abs=1e-3)


@pytest.mark.usefixtures("control")  # skipped without python-control, as the whole module was
def test_without_pade_is_a_clear_error():
    with pytest.raises(InputError, match="pade=N"):
        rcpstab.linearize("rcp").to_control(alpha=0.4, beta=0.2)
    with pytest.raises(InputError, match="no parameter"):
        rcpstab.linearize("rcp").to_control(pade=8, gamma=1.0)
