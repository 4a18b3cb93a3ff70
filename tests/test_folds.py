"""One fold location (rcpstab.bifurcation.folds.locate_fold) for both continuations.

The collocation branch (periodic.py) and the compiled kernel's (kernel_orbits.py) each had their own copy;
the fold each finds on the Bautin equation is pinned here to the values their own copies gave before they
were merged (the same to the last bit on this machine), and the exact fold (Kaplan-Yorke, a = 1.3447437)
checks both independently (tests/test_periodic_orbits.py, tests/test_kernel_orbits.py)."""

from types import SimpleNamespace

import numpy as np
import pytest

from rcpstab.bifurcation.folds import locate_fold
from rcpstab.bifurcation.kernel_orbits import KernelOrbitSystem, continue_kernel_orbits, solve_kernel_orbit, state_from_profile
from rcpstab.bifurcation.periodic import PeriodicSystem, continue_from_hopf
from rcpstab.bifurcation.textbook import bistable_model

# each caller's fold before the merge (git 3f50b59: periodic._folds and kernel_orbits._folds)
BEFORE = {
    "periodic": {
        "gain": 1.3447432183342887,
        "amplitude": 0.7704189076018514,
        "max_multiplier_before": 1.0801821661928324,
        "max_multiplier_after": 0.8831534734292779,
        "stable_before": False,
        "stable_after": True,
    },
    "kernel": {
        "gain": 1.3447432253464462,
        "amplitude": 0.7701023766917556,
        "max_multiplier_before": 1.1175303151353808,
        "max_multiplier_after": 0.8665923769034287,
        "stable_before": False,
        "stable_after": True,
    },
}


def test_both_continuations_find_the_fold_they_found_before_the_merge():
    model = bistable_model()
    collocation = continue_from_hopf(model, (1.4, 1.7), beta=1.0, steps=9, first_amplitude=0.05, N=64, max_step=0.5)
    start = continue_from_hopf(model, (1.4, 1.7), beta=1.0, steps=1, first_amplitude=0.05, N=64).points[-1]
    system = KernelOrbitSystem(model, period=start.period, beta=1.0)
    state = state_from_profile(system, start.profile, start.period, PeriodicSystem(model, beta=1.0).scale)
    kernel = continue_kernel_orbits(
        system, solve_kernel_orbit(system, state, start.period, start.gain), -1, steps=9, step=0.05, max_step=0.3
    )
    for name, branch in (("periodic", collocation), ("kernel", kernel)):
        (fold,) = branch.folds
        assert set(fold) == set(BEFORE[name])
        for key, value in BEFORE[name].items():
            assert fold[key] == pytest.approx(value, rel=1e-9, abs=0), (name, key)


def no_step(before, last):
    return None


def orbit(amplitude, gain):
    return SimpleNamespace(gain=gain, amplitude=amplitude, stable=amplitude > 1, max_multiplier=2 - amplitude)


def walker(gain_of, h):
    """A step of ``h`` in amplitude along gain_of(amplitude)."""

    def step(before, last):
        a = last.amplitude + h
        return orbit(a, gain_of(a)), h

    return step


def test_first_or_last_turn_of_the_fine_pass():
    # gain = cos(pi a): turns at a = 1 (a minimum, -1) and a = 2 (a maximum, +1); the stepping pass stops
    # just past the first turn
    gain = lambda a: float(np.cos(np.pi * a))  # noqa: E731
    start = [orbit(0.75, gain(0.75)), orbit(0.8, gain(0.8))]
    first = locate_fold(start, walker(gain, 0.05), 40, start, turn="first")
    assert first["gain"] == pytest.approx(-1, abs=2e-3) and first["amplitude"] == pytest.approx(1, abs=1e-9)
    # orbits that already pass both turns (no steps): "first" and "last" pick the two turns
    two_turns = [orbit(a, gain(a)) for a in np.arange(0.8, 2.21, 0.05)]
    last = locate_fold(two_turns, no_step, 0, two_turns[:3], turn="last")
    assert last["gain"] == pytest.approx(1, abs=2e-3) and last["amplitude"] == pytest.approx(2, abs=1e-9)
    assert locate_fold(two_turns, no_step, 0, two_turns[:3], turn="first")["amplitude"] == pytest.approx(1)


def test_clip_keeps_a_flat_fit_inside_the_fitted_amplitudes():
    # three orbits on a line gain = a: no turn, the fallback orbits are fitted; the parabola's leading term is
    # zero to rounding, so the unclipped vertex is far away (or inf) while the clipped one stays inside
    line = [orbit(a, a) for a in (0.9, 1.0, 1.1)]
    clipped = locate_fold(line[:2], no_step, 0, line, clip=True)
    assert 0.9 <= clipped["amplitude"] <= 1.1
    with np.errstate(divide="ignore", invalid="ignore"):
        loose = locate_fold(line[:2], no_step, 0, line)
    assert not 0.9 <= loose["amplitude"] <= 1.1
