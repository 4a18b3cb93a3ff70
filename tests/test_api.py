"""The python-control style API: top-level entry points taking a name or a spec, short reprs, .plot()."""

import matplotlib
import numpy as np
import pytest
from conftest import rcp_inside

import rcpstab
from rcpstab.errors import InputError
from rcpstab.figures import new_figure


def test_region_agrees_with_the_closed_form_and_accepts_a_spec():
    r = rcpstab.region("rcp", alpha="0.05:2:0.05", beta="0.05:1:0.05")
    A, B = np.meshgrid(r.alpha, r.beta)
    assert (r.stable == rcp_inside(A, B)).mean() > 0.99  # the grid points on the boundary may differ
    same = rcpstab.region(rcpstab.get_model("rcp"), alpha=r.alpha, beta=r.beta)
    assert (same.stable == r.stable).all()


@pytest.mark.parametrize("method", ["bode", "nyquist"])
def test_region_methods_by_name(method):
    grid = dict(alpha="0.1:2:0.1", beta="0.1:1:0.1")
    assert (rcpstab.region("rcp", method=method, **grid).stable == rcpstab.region("rcp", **grid).stable).all()


def test_reprs_are_short():
    r = rcpstab.region("rcp", alpha="0.01:2:0.01", beta="0.01:1:0.01")
    t = rcpstab.simulate("rcp", 0.4, 0.2, rtts=20)
    for obj in (r, t, rcpstab.linearize("rcp"), rcpstab.margins("rcp", 0.4, 0.2)):
        text = repr(obj)
        assert len(text) < 300 and "[" not in text and "array" not in text, text  # no array printed


def test_simulate_defaults_are_app_e_and_end_at_equilibrium():
    t = rcpstab.simulate("rcp", 0.4, 0.2, rtts=400)
    assert t.gamma.shape[1] == 6
    np.testing.assert_allclose(sorted(t.gamma[0]), [0.01, 0.01, 0.1, 0.1, 0.5, 0.5])
    np.testing.assert_allclose(t.gamma[-1], 0.1, rtol=1e-6)  # R = C/N with N = 10
    np.testing.assert_allclose(t.queue[-1], 0.0, atol=1.0)  # bits
    one = rcpstab.simulate("rcp", 0.4, 0.2, rtts=400, gamma0=0.01, q0=0.0, N=20)
    np.testing.assert_allclose(one.gamma[-1], 0.05, rtol=1e-6)


def test_margins_and_linearize_match_the_command_line(capsys):
    import json

    from rcpstab.cli import main

    main(["margins", "--alpha", "0.4", "--beta", "0.2", "--json"])
    assert json.loads(capsys.readouterr().out) == rcpstab.margins("rcp", 0.4, 0.2).to_dict() | {
        "rightmost_root": list(rcpstab.margins("rcp", 0.4, 0.2).rightmost_root)
    }
    assert str(rcpstab.linearize("rcp").open_loop) == "(alpha*d_0*s + beta)*exp(-d_0*s)/(d_0**2*s**2)"


def test_plot_methods_draw_with_the_network_in_the_title():
    fig = new_figure()
    ax = rcpstab.simulate("rcp", 1.4, 0.8, rtts=50).plot(ax=fig.subplots())
    assert "C = 150 Mb/s, d0 = 200 ms, N = 10, T = 10 ms" in ax.get_title().replace("\n", " ")
    assert len(ax.lines) == 6 * 2 + 1  # six trajectories with their start markers, the equilibrium
    ax = rcpstab.region("rcp", alpha="0.1:2:0.1", beta="0.1:1:0.1").plot(ax=new_figure().subplots())
    assert "every C, d0, N" in ax.get_title().replace("\n", " ")
    assert isinstance(ax, matplotlib.axes.Axes)


@pytest.mark.parametrize(
    "call",
    [
        lambda m: rcpstab.region(m),
        lambda m: rcpstab.margins(m, 0.4, 0.2),
        lambda m: rcpstab.linearize(m),
        lambda m: rcpstab.simulate(m, 0.4, 0.2),
    ],
)
def test_a_wrong_model_is_an_input_error(call):
    with pytest.raises(InputError, match="expected a model name"):
        call(3.5)
    with pytest.raises(InputError, match="unknown model"):
        call("tcp")


def test_lens_functions_take_a_name_too():
    from rcpstab.linear.exact import exact_region
    from rcpstab.linear.margins import margins
    from rcpstab.phaseplane import phaseplane_region

    assert margins("rcp", 0.4, 0.2) == margins(rcpstab.get_model("rcp"), 0.4, 0.2)
    assert exact_region("xcp", [0.4], [0.226]).stable.all()
    assert phaseplane_region("rcp", [0.4], [0.2]).stable.all()
