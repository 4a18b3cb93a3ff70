"""Periodic-orbit continuation (rcpstab.bifurcation.periodic): exact orbits, the textbook Hopf law,
agreement with the phase-plane integrator, and the subcritical branch of rcp-unclamped."""

import json
import math

import numpy as np
import pytest
import sympy as sp
from scipy.optimize import brentq, minimize_scalar
from scipy.special import lambertw

from rcpstab.bifurcation.measure import measure_cycles
from rcpstab.bifurcation.orbit_start import simulate_from_orbit
from rcpstab.bifurcation.periodic import PeriodicSystem, continue_from_hopf, floquet_multipliers
from rcpstab.bifurcation.smooth import RCP_UNCLAMPED
from rcpstab.bifurcation.textbook import HUTCHINSON_AMPLITUDE, bistable_model, hutchinson_model
from rcpstab.models.spec import ModelSpec, t
from rcpstab.phaseplane import simulate


def linear_delay_model() -> ModelSpec:
    """x' = -alpha x(t - 1): at alpha = pi/2 every a sin(pi t / 2) + b cos(pi t / 2) is a solution."""
    x = sp.Function("x")
    a, b = sp.symbols("alpha beta", positive=True)
    tau = sp.Symbol("d_0", positive=True)
    g0 = sp.Symbol("gamma_0", nonnegative=True)
    return ModelSpec(
        name="linear-delay",
        title="x' = -a x(t-1)",
        states=(x,),
        rhs=(-a * x(t - tau),),
        parameters={a: math.pi / 2, b: 1.0, tau: 1.0},
        equilibrium={x: sp.Integer(0)},
        loop_parameters=(a, b),
        time_scale=tau,
        gamma=x(t),
        queue=sp.Integer(0),
        initial_state={x: g0},
    )


def test_exact_orbit_of_the_linear_delay_equation_is_a_fixed_point_with_the_exact_multipliers():
    """sin(pi t/2), period 4: fixed point of the period map; multipliers exp(4 lambda), lambda = W_k(-pi/2)."""
    system = PeriodicSystem(linear_delay_model(), alpha=math.pi / 2)
    defects = []
    for N in (64, 128):
        profile = np.sin(2 * math.pi * np.arange(N) / N)[None, :]
        mu, defect = floquet_multipliers(system, profile, 4.0, math.pi / 2)
        defects.append(defect)
    assert defects[0] < 1e-5 and defects[1] < defects[0] / 12  # 4th order: 16x smaller for half the step
    assert np.abs(mu[:2] - 1).max() < 1e-4  # the centre pair +-i pi/2: double multiplier 1
    lam = lambertw(-math.pi / 2, k=1)  # next roots of lambda = -(pi/2) e^-lambda
    assert abs(mu[2]) == abs(mu[3]) == pytest.approx(math.exp(4 * lam.real), rel=2e-3)


@pytest.fixture(scope="module")
def hutchinson_branch():
    return continue_from_hopf(hutchinson_model(), (1.4, 1.7), steps=9, first_amplitude=0.05, N=64)


def test_hutchinson_branch_follows_the_textbook_amplitude_law_and_the_linear_floquet_rate(hutchinson_branch):
    b = hutchinson_branch
    first = b.points[0]
    assert b.hopf.criticality == "supercritical"
    # Chow & Mallet-Paret: eps = sqrt(40 (a - pi/2) / (3 pi - 2)), error O(eps) relative
    assert first.amplitude == pytest.approx(HUTCHINSON_AMPLITUDE * math.sqrt(first.gain - math.pi / 2), rel=5e-3)
    assert first.period == pytest.approx(4.0, abs=1e-3)
    # near the Hopf point the radial multiplier is exp(-2 Re(lambda') (a - a*) P)
    for p in b.points[:2]:
        rate = math.log(p.max_multiplier) / p.period
        assert rate == pytest.approx(-2 * b.hopf.speed * (p.gain - b.hopf.critical), rel=0.03)
    assert all(p.stable for p in b.points)
    assert np.all(np.diff([p.gain for p in b.points]) > 0) and not b.folds
    rows = json.loads(json.dumps(b.as_dict(), allow_nan=False))["points"]  # strict JSON, the contract's fields
    assert set(rows[0]) == {"alpha", "amplitude", "period", "stable", "max_multiplier"}
    assert [r["stable"] for r in rows] == [p.stable for p in b.points]


def test_stable_hutchinson_cycle_agrees_with_the_phase_plane_integrator(hutchinson_branch):
    """An independent integrator (the compiled phase-plane kernel) settles on the same cycle."""
    far = [p for p in hutchinson_branch.points if p.gain > 1.75]
    assert far
    for p in far[:2]:
        tr = simulate(hutchinson_model(), {"alpha": p.gain}, {"gamma0": 0.5}, 400.0, dt=1 / 64, record_every=1)
        m = measure_cycles(tr.rtt, tr.gamma, 0 * tr.gamma, 300.0)
        assert m.amplitude[0] == pytest.approx(p.amplitude, rel=2e-3)
        assert m.period_rtt[0] == pytest.approx(p.period, rel=2e-3)


D0 = 0.2  # RCP's time unit (s): the normal form's speed is per second, the orbits' periods per RTT


@pytest.mark.slow
def test_rcp_unclamped_beta_01_unstable_branch_has_no_fold_and_no_stable_cycle_to_simulate():
    """Subcritical Hopf point (l1 > 0): the unstable cycle grows as alpha decreases, with no fold down to alpha < 1.38."""
    b = continue_from_hopf(RCP_UNCLAMPED, (1.50, 1.55), beta=0.1, steps=9, first_amplitude=0.02, N=128, max_step=1.0)
    assert b.hopf.criticality == "subcritical" and b.hopf.critical == pytest.approx(1.52655, abs=1e-5)
    for p in b.points[:2]:
        assert p.amplitude == pytest.approx(float(b.hopf.predicted_amplitude(p.gain)), rel=0.01)
        rate = math.log(p.max_multiplier) / p.period  # radial Floquet exponent -2 Re(lambda') (a - a*)
        assert rate == pytest.approx(-2 * b.hopf.speed * D0 * (p.gain - b.hopf.critical), rel=0.03)
    gains = np.array([p.gain for p in b.points])
    assert np.all(np.diff(gains) < 0) and not b.folds and gains[-1] < 1.38
    assert all(not p.stable and p.max_multiplier > 1 for p in b.points)
    assert all(np.min(np.abs(p.multipliers - 1)) < 1e-3 for p in b.points)  # the trivial multiplier resolved
    # no stable cycle there for a simulation to find: from the thesis' doubled rate it settles on the equilibrium
    alphas = gains[[2, 5, 8]]
    tr = simulate(RCP_UNCLAMPED, {"alpha": alphas, "beta": 0.1}, {"gamma0": 0.2}, 800 * D0, record_every=1)
    m = measure_cycles(tr.rtt, tr.gamma, tr.queue / (0.15e9 * D0), 600)
    cycles = np.array([b.points[i].amplitude for i in (2, 5, 8)])
    assert np.all(m.amplitude < 0.01 * cycles) and np.all(m.growth_rtt <= 0)  # decayed far inside, still decaying


@pytest.mark.slow
def test_rcp_unclamped_stable_branch_at_beta_03_equals_the_simulated_attractor():
    """Supercritical at beta = 0.3: every continued orbit is stable and is the phase plane's settled cycle."""
    b = continue_from_hopf(RCP_UNCLAMPED, (1.40, 1.45), beta=0.3, steps=4, first_amplitude=0.05, N=128, max_step=0.5)
    assert b.hopf.criticality == "supercritical" and all(p.stable for p in b.points)
    far = b.points[2:]  # far enough from the Hopf point to settle in 1200 RTTs
    tr = simulate(
        RCP_UNCLAMPED,
        {"alpha": [p.gain for p in far], "beta": 0.3},
        {"gamma0": 0.1 + np.array([p.amplitude for p in far])},
        1500 * D0,
        record_every=1,
    )
    m = measure_cycles(tr.rtt, tr.gamma, tr.queue / (0.15e9 * D0), 1200)
    assert m.amplitude == pytest.approx([p.amplitude for p in far], rel=1e-4)
    assert m.period_rtt == pytest.approx([p.period for p in far], rel=1e-4)


def _hamiltonian_period(alpha, beta, amplitude):
    """Period of x' = -g(y), y' = g(x), g(u) = alpha u + beta u^3 - u^5, through (amplitude, 0).

    Kaplan-Yorke: a solution of u' = -g(u(t-1)) with u(t-2) = -u(t) has (x, y) = (u(t), u(t-1)) on
    this planar Hamiltonian system, and then its period is exactly 4: an independent check of an orbit.
    """
    from scipy.integrate import solve_ivp

    def g(u):
        return alpha * u + beta * u**3 - u**5

    def crossing(_, z):
        return z[1]

    crossing.direction = 1.0
    # The start, on y = 0, counts as the first upward crossing: stop at the second, one period on. The steps
    # up to it are those of a longer run, so the period is the same to the bit, at a tenth of the cost.
    crossing.terminal = 2
    sol = solve_ivp(lambda _, z: [-g(z[1]), g(z[0])], (0, 40), [amplitude, 0.0], events=crossing, rtol=1e-11, atol=1e-12)
    return float(sol.t_events[0][sol.t_events[0] > 0.1][0])  # not the start


@pytest.mark.slow
def test_bautin_equation_branch_passes_its_fold_with_a_multiplier_crossing_one():
    """Subcritical Hopf point, the unstable branch turns at a fold onto a stable one (multiplier through +1);
    the orbits are Kaplan-Yorke orbits of period 4 of the planar Hamiltonian system (independent check)."""
    b = continue_from_hopf(bistable_model(), (1.4, 1.7), beta=1.0, steps=9, first_amplitude=0.05, N=64, max_step=0.5)
    assert b.hopf.criticality == "subcritical"
    assert len(b.folds) == 1
    fold = b.folds[0]
    assert not fold["stable_before"] and fold["max_multiplier_before"] > 1
    assert fold["stable_after"] and fold["max_multiplier_after"] < 1
    gains = [p.gain for p in b.points]
    turn = int(np.argmin(gains))
    assert fold["gain"] <= gains[turn] + 1e-12

    # the exact fold: the smallest alpha at which the Hamiltonian system has an orbit of period 4
    def alpha_of(amplitude):
        return brentq(lambda a: _hamiltonian_period(a, 1.0, amplitude) - 4.0, 1.0, 1.6, xtol=1e-12)

    exact = minimize_scalar(alpha_of, bounds=(0.5, 1.0), method="bounded", options={"xatol": 1e-8})
    assert fold["gain"] == pytest.approx(exact.fun, abs=1e-5)
    assert fold["amplitude"] == pytest.approx(exact.x, abs=2e-3)
    for p in b.points[1 : turn + 3]:
        assert p.period == pytest.approx(4.0, abs=1e-6)
        assert _hamiltonian_period(p.gain, 1.0, p.amplitude) == pytest.approx(4.0, abs=2e-3)


@pytest.mark.slow
def test_phase_plane_started_on_the_unstable_rcp_cycle_stays_on_it_and_leaves_at_the_floquet_rate():
    """Independent check of the unstable cycles (beta = 0.1): the compiled phase-plane kernel, started with the
    continued orbit as its history, keeps its amplitude; scaled by 1 +- 1e-3 it leaves outwards / inwards, the
    deviation growing per period by the largest Floquet multiplier."""
    b = continue_from_hopf(RCP_UNCLAMPED, (1.50, 1.55), beta=0.1, steps=4, first_amplitude=0.02, N=128, max_step=1.0)
    system = PeriodicSystem(RCP_UNCLAMPED, "alpha", **b.hopf.values)
    for p in b.points[4:6]:
        dt = 0.002
        t_rtt, gamma = simulate_from_orbit(system, p, [0.0, 1e-3, -1e-3], 40 * p.period, dt=dt)
        per = p.period * D0 / dt
        amps = np.array([[0.5 * np.ptp(gamma[int(k * per) : int((k + 1) * per), i]) for k in range(40)] for i in range(3)])
        assert np.abs(amps[0] / p.amplitude - 1).max() < 2e-4  # on the orbit: stays on it for 40 periods
        out, inward = amps[1] - p.amplitude, amps[2] - p.amplitude
        assert np.all(out[5:] > 0) and np.all(inward[5:] < 0)  # the orbit separates growth from decay
        for d in (out, -inward):
            assert (d[30] / d[10]) ** (1 / 20) == pytest.approx(p.max_multiplier, rel=5e-3)


@pytest.mark.slow
def test_rcp_unclamped_stable_branch_agrees_with_the_bifurcation_sweep():
    """beta = 0.3: wherever the up/down sweep calls a run a settled cycle, it is the continued orbit.

    Tolerance: the sweep calls a run settled when its envelope moves less than GROWTH_TOLERANCE per
    RTT, i.e. up to GROWTH_TOLERANCE * 200 = 6% over its measured window; periods to 1e-3.
    """
    from rcpstab.bifurcation import bifurcation_sweep
    from rcpstab.bifurcation.continuation import GROWTH_TOLERANCE
    from rcpstab.bifurcation.periodic import solve_orbit

    b = continue_from_hopf(RCP_UNCLAMPED, (1.40, 1.45), beta=0.3, steps=4, first_amplitude=0.05, N=128, max_step=0.5)
    system = PeriodicSystem(RCP_UNCLAMPED, "alpha", **b.hopf.values)
    alphas = np.array([1.42, 1.43, 1.44, 1.45])
    sweep = bifurcation_sweep(RCP_UNCLAMPED, alphas, [0.3], rtts=400)
    compared = set()
    for a in alphas:
        near = min(b.points, key=lambda p: abs(p.gain - a))
        orbit = solve_orbit(system, near.profile, near.period, a)
        assert orbit.stable
        for row in (r for r in sweep.rows if r["alpha"] == a and r["state"] == "cycle"):
            assert row["amplitude"] == pytest.approx(orbit.amplitude, rel=GROWTH_TOLERANCE * 200)
            assert row["period_rtt"] == pytest.approx(orbit.period, rel=1e-3)
            compared.add(a)
    assert compared == set(alphas)  # the sweep settles on the stable branch at every gain
