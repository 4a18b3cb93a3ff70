"""Periodic orbits by shooting on the compiled kernel (rcpstab.bifurcation.kernel_orbits): a DDE with a
known orbit, agreement with the collocation solver on a smooth model, agreement with simulation on a
clamped model's stable cycle, the side of the Hopf point against the sign of l1, the CLI contract."""

import json
import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from conftest import run_cli
from scipy.special import lambertw
from test_periodic_orbits import linear_delay_model

from rcpstab.bifurcation import kernel_orbits as ko
from rcpstab.bifurcation.kernel_orbits import (
    RCP_CLAMPED,
    KernelOrbitSystem,
    orbit_from_simulation,
    solve_kernel_orbit,
    state_from_profile,
)
from rcpstab.bifurcation.lyapunov import hopf_point
from rcpstab.bifurcation.measure import measure_cycles
from rcpstab.bifurcation.periodic import PeriodicSystem, _hopf_guess, continue_from_hopf
from rcpstab.bifurcation.smooth import RCP_UNCLAMPED
from rcpstab.bifurcation.textbook import hutchinson_model
from rcpstab.errors import InputError
from rcpstab.phaseplane.setup import make_integrator

TESTS = Path(__file__).parent


def test_linear_delay_equation_critical_gain_period_and_multipliers_are_exact():
    """x' = -a x(t-1) has the orbits sin(pi t/2) exactly at a = pi/2: the gain left free goes there."""
    system = KernelOrbitSystem(linear_delay_model(), period=4.0, alpha=1.5)
    profile = np.sin(2 * math.pi * np.arange(64) / 64)[None, :]
    z = state_from_profile(system, profile, 4.0)
    orbit = solve_kernel_orbit(system, z, 4.2, 1.5, free_gain=True)
    assert orbit is not None
    assert orbit.gain == pytest.approx(math.pi / 2, abs=1e-5)  # RK4 at 20 steps per delay: ~dt^4
    assert orbit.period == pytest.approx(4.0, abs=1e-5)
    assert orbit.amplitude == pytest.approx(1.0, rel=1e-3)
    # the centre pair is a double multiplier 1; the next ones are exp(4 lambda), lambda = W_1(-pi/2)
    mu = np.abs(orbit.multipliers)
    assert abs(mu[0] - 1) < 1e-4 and abs(mu[1] - 1) < 1e-4
    assert mu[2] == pytest.approx(math.exp(4 * lambertw(-math.pi / 2, k=1).real), rel=2e-3)


def test_kernel_and_collocation_agree_on_an_unstable_orbit_of_rcp_unclamped():
    """Two methods (RK4/Hermite shooting vs RK4 collocation on a periodic mesh) on the subcritical branch."""
    branch = continue_from_hopf(RCP_UNCLAMPED, (1.5, 1.55), beta=0.1, steps=2, first_amplitude=0.05)
    p = branch.points[-1]
    ps = PeriodicSystem(RCP_UNCLAMPED, "alpha", beta=0.1)
    system = KernelOrbitSystem(RCP_UNCLAMPED, period=p.period, beta=0.1)
    orbit = solve_kernel_orbit(system, state_from_profile(system, p.profile, p.period, ps.scale), p.period, p.gain)
    assert not orbit.stable and not p.stable
    assert orbit.amplitude == pytest.approx(p.amplitude, rel=1e-3)
    assert orbit.period == pytest.approx(p.period, rel=1e-5)
    assert orbit.max_multiplier == pytest.approx(p.max_multiplier, rel=1e-3)
    # the trivial multiplier of the smooth map is 1 to the finite-difference error
    assert np.min(np.abs(orbit.multipliers - 1)) < 1e-4


@pytest.mark.parametrize("beta", [0.1, 0.3])
def test_side_of_the_small_orbit_follows_the_sign_of_l1(beta):
    """The kernel, with the gain free and the orbit's size fixed, puts a small orbit below the Hopf
    point where the normal form says subcritical (l1 > 0) and above it where supercritical."""
    bracket = {0.1: (1.5, 1.55), 0.3: (1.38, 1.43)}[beta]
    hopf = hopf_point(RCP_UNCLAMPED, bracket, beta=beta)
    ps = PeriodicSystem(RCP_UNCLAMPED, "alpha", beta=beta)
    guess, period = _hopf_guess(ps, hopf, hopf.critical + 1e-4 * np.sign(-hopf.l1), 128)
    # a guess of 1e-2 relative size (the normal form's amplitude at a 1e-4 gain offset is smaller)
    eq = ps.equilibrium(hopf.critical)[:, None]
    guess = eq + (guess - eq) * (0.01 / np.ptp(guess[0]) * 2)
    system = KernelOrbitSystem(RCP_UNCLAMPED, period=period, beta=beta)
    orbit = solve_kernel_orbit(system, state_from_profile(system, guess, period, ps.scale), period, hopf.critical, free_gain=True)
    assert orbit is not None and orbit.amplitude > 1e-4
    assert np.sign(orbit.gain - hopf.critical) == -np.sign(hopf.l1)
    assert orbit.stable == (hopf.l1 < 0)


def test_hutchinson_stable_cycle_kernel_against_collocation():
    branch = continue_from_hopf(hutchinson_model(), (1.4, 1.7), steps=4, first_amplitude=0.05, N=64)
    p = branch.points[-1]
    ps = PeriodicSystem(hutchinson_model())
    system = KernelOrbitSystem(hutchinson_model(), period=p.period)
    orbit = solve_kernel_orbit(system, state_from_profile(system, p.profile, p.period, ps.scale), p.period, p.gain)
    assert orbit.stable and p.stable
    assert orbit.amplitude == pytest.approx(p.amplitude, rel=1e-3)
    assert orbit.period == pytest.approx(p.period, rel=1e-5)
    assert orbit.max_multiplier == pytest.approx(p.max_multiplier, abs=2e-3)


@pytest.fixture(scope="module")
def clamped_orbit():
    return orbit_from_simulation(RCP_CLAMPED, 1.8, beta=0.1, rtts=300)


def test_clamped_rcp_orbit_agrees_with_a_finer_simulation(clamped_orbit):
    """The queue sits on its clamp for part of the cycle; a run at 1/20 of the kernel's step settles on it."""
    system, orbit = clamped_orbit
    assert orbit is not None and orbit.stable
    assert orbit.gamma_min > 0
    integ = make_integrator(RCP_CLAMPED, {"alpha": 1.8, "beta": 0.1}, {"gamma0": 0.3})
    n = int(round(600 * 0.2 / integ.dt))
    rec = integ.run(n, record_every=1)
    g = rec[:, :, 0] / 0.15e9
    m = measure_cycles(np.arange(1, n + 1) * integ.dt / 0.2, g, 0 * g, 450)
    assert m.amplitude[0] == pytest.approx(orbit.amplitude, rel=1e-3)
    assert m.period_rtt[0] == pytest.approx(orbit.period, rel=1e-4)
    queue = rec[:, 0, 1]
    assert np.mean(queue[-int(orbit.period * 0.2 / integ.dt) :] == 0) > 0.02  # the clamp is active part of the cycle


def test_clamped_multipliers_do_not_depend_on_the_difference_step(clamped_orbit, monkeypatch):
    system, orbit = clamped_orbit
    found = []
    for eps in (1e-5, 1e-7):
        monkeypatch.setattr(ko, "FD_EPS", eps)
        found.append(solve_kernel_orbit(system, orbit.z, orbit.period, orbit.gain).max_multiplier)
    assert found[0] == pytest.approx(orbit.max_multiplier, abs=2e-3)
    assert found[1] == pytest.approx(orbit.max_multiplier, abs=2e-3)


def test_sampled_model_is_refused_with_the_reason():
    with pytest.raises(InputError, match="invariant circles"):
        KernelOrbitSystem("rcp")


def _cli(*args):
    return subprocess.run(
        [sys.executable, "-m", "rcpstab", "bifurcation", *args], cwd=TESTS, capture_output=True, text=True, timeout=900
    )


def test_cli_continuation_json_has_the_contract_fields(capsys):
    # the command's output, in this process (the exit contract has a real process below)
    code, stdout, err = run_cli(
        capsys,
        "bifurcation",
        "--model",
        "rcp-unclamped",
        "--beta",
        "0.1",
        "--alpha",
        "1.45:1.55:0.05",
        "--rtts",
        "20",
        "--continuation",
        "--branch-steps",
        "2",
        "--json",
    )
    assert code == 0, err
    out = json.loads(stdout)
    (branch,) = out["branches"]
    assert branch["source"] == "hopf" and len(branch["points"]) == 4
    for row in branch["points"]:
        assert set(row) == {"alpha", "amplitude", "period", "stable", "max_multiplier"}
        assert row["stable"] is False and row["max_multiplier"] > 1  # subcritical: unstable orbits
    assert all(b["alpha"] < 1.5266 for b in branch["points"])


@pytest.mark.parametrize(
    "args, needle",
    [
        (("--beta", "0.1,0.2", "--alpha", "1.4:1.6:0.1"), "--continuation: give one --beta value"),
        (("--beta", "0.1", "--alpha", "1.4:1.6:0.1", "--branch-steps", "0"), "--branch-steps"),
    ],
)
def test_cli_continuation_bad_input_is_one_line_exit_2(args, needle, capsys):
    if needle == "--branch-steps":  # a real process: exit code 2, one line, no traceback
        r = _cli("--model", "rcp-unclamped", "--continuation", *args)
        code, err = r.returncode, r.stderr
    else:  # the same main() in this process
        code, _, err = run_cli(capsys, "bifurcation", "--model", "rcp-unclamped", "--continuation", *args)
    assert code == 2
    assert needle in err and len(err.strip().splitlines()) == 1 and "Traceback" not in err


def test_kernel_passes_the_fold_of_the_bautin_equation_at_the_exact_gain():
    """y' = -a u - u^3 + u^5, u = y(t-1) - 1: subcritical Hopf point, fold at a = 1.3447437 (exact, Kaplan-Yorke;
    tests/test_periodic_orbits.py), where the unstable orbits turn into stable ones."""
    from rcpstab.bifurcation.kernel_orbits import continue_kernel_orbits
    from rcpstab.bifurcation.textbook import bistable_model

    start = continue_from_hopf(bistable_model(), (1.4, 1.7), beta=1.0, steps=1, first_amplitude=0.05, N=64).points[-1]
    ps = PeriodicSystem(bistable_model(), beta=1.0)
    system = KernelOrbitSystem(bistable_model(), period=start.period, beta=1.0)
    first = solve_kernel_orbit(
        system, state_from_profile(system, start.profile, start.period, ps.scale), start.period, start.gain
    )
    branch = continue_kernel_orbits(system, first, -1, steps=9, step=0.05, max_step=0.3)
    (fold,) = branch.folds
    assert fold["gain"] == pytest.approx(1.3447437, abs=2e-5)
    assert fold["amplitude"] == pytest.approx(0.7707, abs=2e-3)
    assert not fold["stable_before"] and fold["stable_after"]
    assert fold["max_multiplier_before"] > 1 > fold["max_multiplier_after"]


def test_switched_system_has_a_ray_of_orbits_at_the_gain_where_simulations_change_from_decay_to_growth():
    """Eq. 5.14 is positively homogeneous: its orbits form a ray at one gain (scaling by 2 keeps a fixed
    point; the scaling adds a second multiplier 1). Runs just below that gain decay, just above they grow."""
    from rcpstab.bifurcation.kernel_orbits import ray_orbit
    from rcpstab.models import get_model

    switched = get_model("switched")
    system, orbit, homogeneous = ray_orbit(switched, 1.56, beta=0.1)
    assert homogeneous
    assert np.sum(np.abs(np.abs(orbit.multipliers) - 1) < 1e-3) == 2
    integ = make_integrator(switched, {"alpha": [orbit.gain - 3e-3, orbit.gain + 3e-3], "beta": 0.1}, {"gamma0": 0.11})
    n = int(round(600 * 0.2 / integ.dt))
    g = integ.run(n, record_every=1)[:, :, 0] / 1.5e9
    m = measure_cycles(np.arange(1, n + 1) * integ.dt / 0.2, g, 0 * g, 200)
    assert m.growth_rtt[0] < 0 < m.growth_rtt[1]
