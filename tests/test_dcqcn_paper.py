"""DCQCN linearized as Zhu et al. (CoNEXT 2016) do (``dcqcn-paper``), against their published margins and
against a hand derivation of their appendix's transfer functions.

Reference data: the authors' figure data (their public repository jitupadhye-zz/rdma, folder conext2016/figures:
pm_rai40_delay*.txt, pm_rai10_delay*.txt, pm_rai10_delay*_kmax1000.txt), read from $RCPSTAB_ZHU2016_DATA; it is
not committed, and without it the comparisons are skipped and say so.
"""

import os
import pathlib

import numpy as np
import pytest

from rcpstab.linear.fluid_loop import linearized_loop, model_margins
from rcpstab.models.dcqcn_paper import APPROXIMATIONS, variant

DATA = pathlib.Path(os.environ.get("RCPSTAB_ZHU2016_DATA", "/nonexistent"))
FIGURES = [
    ("pm_rai40_delay{}", {}),
    ("pm_rai10_delay{}", {"R_AI": 10e6}),
    ("pm_rai10_delay{}_kmax1000", {"R_AI": 10e6, "K_max": 1000e3}),
]
CASES = [(pattern.format(d), d * 1e-6, values) for pattern, values in FIGURES for d in (0, 50, 100)]


def _paper(name):
    path = DATA / f"{name}.txt"
    if not path.exists():
        pytest.skip(f"the paper's figure data ({name}.txt) is not here: set RCPSTAB_ZHU2016_DATA")
    return np.loadtxt(path)


def _compare(name, tau_star, values, stride):
    data = _paper(name)
    for N, pm in data[::stride]:
        m = model_margins("dcqcn-paper", N=N, tau_star=tau_star, **values)
        assert m.phase_margin_deg == pytest.approx(pm, abs=0.5), (name, N)


@pytest.mark.parametrize("name,tau_star,values", CASES[:3], ids=[c[0] for c in CASES[:3]])
def test_paper_linearization_gives_the_published_margins(name, tau_star, values):
    _compare(name, tau_star, values, stride=7)


@pytest.mark.slow
@pytest.mark.parametrize("name,tau_star,values", CASES, ids=[c[0] for c in CASES])
def test_paper_linearization_gives_the_published_margins_at_every_N(name, tau_star, values):
    _compare(name, tau_star, values, stride=1)


def test_the_exact_linearization_does_not():
    # the default model is the exact linearization of eqs. (1)-(5): at N = 2, 0 us it is 6 deg from the figure
    pm = dict(_paper("pm_rai40_delay0"))[2.0]
    assert abs(model_margins("dcqcn", N=2, tau_star=0.0).phase_margin_deg - pm) > 5
    assert model_margins("dcqcn-paper", N=2, tau_star=0.0).phase_margin_deg == pytest.approx(pm, abs=0.1)


def _appendix_loop(N, tau_star, R_AI=40e6, K_max=200e3):
    """L(s) derived by hand from the paper's appendix (its printed Laplace transform of dR_C/dt), alpha's and
    R_T's transforms under the same first-order approximations, and the figure's alpha pole -g C/N and
    undelayed A R_AI dR_C; quantities in 1000-byte packets."""
    C, Rai, B, T, tau, tau_p, F, g = 40e9 / 8e3, R_AI / 8e3, 1e4, 55e-6, 50e-6, 55e-6, 5, 1 / 256
    kp = 0.01 / (K_max / 1e3 - 5.0)  # marking slope per packet
    Rc = C / N
    p = (Rai * N * N / (tau_p * C * C) * (1 / B + N / (C * T)) ** 2) ** (1 / 3)

    def incr(x):  # (1-p)^(F x) p / ((1-p)^-x - 1)
        return np.exp(F * x * np.log1p(-p)) * p / np.expm1(-x * np.log1p(-p))

    a = -np.expm1(tau * Rc * np.log1p(-p))
    Rt = Rc * (1 + tau * Rai * (incr(B) + incr(T * Rc)) / a)
    al = -np.expm1(tau_p * Rc * np.log1p(-p))
    A = 1 / B + 1 / (T * Rc)
    h, f = 0.5 + A / 4, A / 2 - (0.5 + A / 4) * p
    k = 1 + 2 * F + A / 2

    def L(s):
        z, P = np.exp(-s * tau_star), kp * N / s  # P: p(s)/R_C(s), through the queue
        alpha = g * Rc * P * z / (s + g * Rc)  # alpha(s)/R_C(s)
        rt_now = (p * Rc + A * Rai) / (s + p * Rc)  # R_T(s)/R_C(s): undelayed part
        rt_late = (-p * (Rt - Rc) + Rai * (A - k * p) - (Rt - Rc) * Rc * P - k * Rai * Rc * P) / (s + p * Rc)
        now = -0.5 * p * Rc * al + (Rt - Rc) * f + Rc * f * rt_now
        late = (
            (-0.5 * Rc * Rc * al - h * (Rt - Rc) * Rc) * P
            - 0.5 * p * Rc * al
            - Rc * f
            + Rc * f * rt_late
            - 0.5 * p * Rc * Rc * alpha / z
        )
        return -z * late / (s - now)

    return L


@pytest.mark.parametrize(
    "N,tau_star,values",
    [
        (4, 50e-6, {}),
        (10, 100e-6, {}),
        (40, 50e-6, {}),
        (18, 100e-6, {"R_AI": 10e6}),
        (12, 50e-6, {"R_AI": 10e6, "K_max": 1000e3}),
    ],
)
def test_paper_loop_equals_the_appendix_transfer_function(N, tau_star, values):
    """The symbolic linearization of the approximated equations is the hand-derived transfer function."""
    ours = linearized_loop("dcqcn-paper", N=N, tau_star=tau_star, **values)
    hand = _appendix_loop(N, tau_star, **values)
    s = 1j * np.geomspace(10.0, 1e6, 9)
    np.testing.assert_allclose(ours(s), hand(s), rtol=1e-8)


def test_paper_loop_has_the_right_half_plane_pole_the_exact_one_has_not():
    # the issue's +2300..+3600 rad/s pole is the paper's approximations': the exact loop has none
    for N in (2, 10, 40, 100):
        poles = np.roots(linearized_loop("dcqcn-paper", N=N, tau_star=50e-6).den)
        assert (poles.real > 0).sum() == 1 and 2200 < poles.real.max() < 3700, N
        assert model_margins("dcqcn", N=N, tau_star=50e-6, extend_ramp=1).open_loop_rhp_poles == 0
    m = model_margins("dcqcn-paper", N=10, tau_star=50e-6)
    assert m.open_loop_rhp_poles == 1 and "open_loop_rhp_poles" in m.notes


def test_variant_takes_subsets_and_refuses_unknown_names():
    assert variant() is variant(frozenset(APPROXIMATIONS))
    assert variant(frozenset()).name == "dcqcn-paper[none]"
    with pytest.raises(ValueError, match="unknown approximation"):
        variant({"nonsense"})
