"""DCQCN and patched TIMELY (Zhu et al., CoNEXT 2016) as delayed fluid models: their loops and margins.

Reference data: the authors' published figure data (their public repository jitupadhye-zz/rdma, folder
conext2016/: pm_rai40_delay{0,50,100}.txt, pm_timely_delay{0,50,100}_fixed.txt), read from the folder
named by $RCPSTAB_ZHU2016_DATA. It is not committed here (data from a fetched snapshot stays out of the
repository); without it the comparisons with the paper are skipped and say so.
"""

import os
import pathlib

import numpy as np
import pytest

from rcpstab.linear.fluid_loop import linearized_loop, loop_matrices, model_margins
from rcpstab.linear.lti import loop_roots
from rcpstab.models.delayloop import get_loop_model

DATA = pathlib.Path(os.environ.get("RCPSTAB_ZHU2016_DATA", "/nonexistent"))


def _paper(name):
    path = DATA / f"{name}.txt"
    if not path.exists():
        pytest.skip(f"the paper's figure data ({name}.txt) is not here: set RCPSTAB_ZHU2016_DATA")
    return np.loadtxt(path)


@pytest.mark.parametrize(
    "delay,name,stride",
    [(100e-6, "pm_timely_delay100_fixed", 1), (50e-6, "pm_timely_delay50_fixed", 4), (0.0, "pm_timely_delay0_fixed", 4)],
)
def test_patched_timely_phase_margin_matches_the_paper(delay, name, stride):
    data = _paper(name)[::stride]
    for N, pm in data:
        m = model_margins("timely", N=N, D_prop=delay)
        assert m.phase_margin_deg == pytest.approx(pm, abs=0.5), N
        # one crossover and a stable open loop here: the sign of the margin is the verdict
        assert m.open_loop_rhp_poles == 0
        assert m.stable == (pm > 0), N


def test_timely_weight_slope_of_the_text_misses_the_figure():
    # the text's w = 2 g + 1/2 is far from the published margins (why the default is the figure's 1/2)
    pm = dict(_paper("pm_timely_delay100_fixed"))[20.0]
    assert abs(model_margins("timely", N=20, D_prop=100e-6, w_slope=2.0).phase_margin_deg - pm) > 10


@pytest.mark.parametrize(
    "model,values",
    [
        ("dcqcn", dict(N=10, tau_star=85e-6)),
        pytest.param("dcqcn", dict(N=2, tau_star=4e-6), marks=pytest.mark.slow),
        ("timely", dict(N=4, D_prop=100e-6)),
        pytest.param("timely", dict(N=30, D_prop=50e-6), marks=pytest.mark.slow),
    ],
)  # tdscontrol takes ~0.9 s (dcqcn) and ~0.4 s (timely) a point: one point of each model in the quick run
def test_loop_roots_equal_the_state_space_roots(model, values):
    """The loop's quasi-polynomial (det expanded symbolically) has the roots of the linearized DDE
    x' = A0 x + sum A_k x(t - tau_k), found by tdscontrol on the matrices themselves."""
    tds = pytest.importorskip("tdscontrol")
    spec = get_loop_model(model)
    A0, delayed, _ = loop_matrices(spec, spec.values(**values))
    taus = sorted(delayed)
    theirs = np.array(tds.roots(tds.tds([A0] + [delayed[t] for t in taus], [0.0] + taus), -2000.0))
    ours = loop_roots(linearized_loop(model, **values), count=3)
    top = theirs[np.argsort(-theirs.real)]
    assert ours[0].real == pytest.approx(top[0].real, rel=1e-6, abs=1e-6)
    assert abs(ours[0].imag) == pytest.approx(abs(top[0].imag), rel=1e-6, abs=1e-6)


def test_dcqcn_delay_margin_is_where_the_roots_reach_the_axis():
    m = model_margins("dcqcn", N=10, tau_star=50e-6)
    assert m.stable and m.delay_margin > 0
    edge = loop_roots(linearized_loop("dcqcn", N=10, tau_star=50e-6 + m.delay_margin), count=1)[0]
    assert edge.real == pytest.approx(0.0, abs=1e-6 * m.crossover_w)
    assert abs(edge.imag) == pytest.approx(m.crossover_w, rel=1e-9)


def test_dcqcn_fixed_point_satisfies_the_model():
    from rcpstab.models import dcqcn

    v = dcqcn.MODEL.values(N=10)
    point = dcqcn.operating_point(v)
    subs = {s: v[s.name] for s in dcqcn.MODEL.parameters}
    at = {**subs, **point, dcqcn.q_d: point[dcqcn.q], dcqcn.R_C_d: point[dcqcn.R_C]}
    rates = [float(f.xreplace(at)) for f in dcqcn.MODEL.rhs]  # symbols by numbers: subs' result, 20x faster
    scale = point[dcqcn.R_C]
    assert np.max(np.abs(rates[1:3])) < 1e-6 * scale * 1e4  # dR/dt in packets/s^2 against R*/100 us
    assert abs(rates[0]) < 1e-9 and abs(rates[3]) < 1e-6


@pytest.mark.slow
def test_fluid_runs_agree_with_the_exact_verdict():
    """The paper's fluid runs (all flows start at line rate): at tau* = 85 us, 10 flows oscillate; at 4 us they
    settle. The nonlinear integration (no linearization) agrees with the exact linear verdict of each."""
    from rcpstab.phaseplane.fluid_run import fluid_run

    line = 40e9 / 8000  # packets/s
    start = {"alpha": 1.0, "R_T": line, "R_C": line, "q": 0.0}
    for tau_star, oscillates in ((4e-6, False), (85e-6, True)):
        run = fluid_run("dcqcn", 0.05, 1e-6, start, N=10, tau_star=tau_star)
        swing = run.oscillation("q", 0.01)  # peak-to-peak over mean, last 10 ms
        assert (swing > 0.2) == oscillates and (swing < 0.05) == (not oscillates), (tau_star, swing)
        assert model_margins("dcqcn", N=10, tau_star=tau_star).stable == (not oscillates)
