"""The delay line's wide Hermite stencil: exact on degree-7 polynomials, kept off breakpoints, and
what makes RK4's default step several times more accurate than the cubic on the smooth model."""

import numpy as np
import pytest

from rcpstab.models import get_model
from rcpstab.phaseplane import simulate
from rcpstab.phaseplane.history import History, wide_stencil
from rcpstab.phaseplane.reference import ReferenceIntegrator
from rcpstab.phaseplane.setup import make_integrator

COEFFS = np.array([0.3, -1.1, 0.7, 0.25, -0.05, 0.004, -2e-4, 3e-6])  # a degree-7 polynomial in steps


def _polynomial_history(breaks):
    p = np.polynomial.Polynomial(COEFFS)
    history = History([np.zeros(1)], length=12, breaks=breaks)
    for k in range(10):
        history.store(k, [np.array([p(k)])], {0: np.array([p.deriv()(k)])})  # slope = derivative x step (1)
    return p, history


@pytest.mark.parametrize("position", [4.5, 4.3, 6.9])
def test_wide_stencil_is_exact_on_a_degree_seven_polynomial(position):
    p, wide = _polynomial_history(breaks=())
    _, cubic = _polynomial_history(breaks=None)
    assert wide.smooth(0, position)[0] == pytest.approx(p(position), rel=1e-13, abs=1e-13)
    assert abs(cubic.smooth(0, position)[0] - p(position)) > 1e-4  # the cubic is not: the wide path was taken


def test_wide_stencil_stays_off_time_zero_the_newest_step_and_the_delay():
    assert wide_stencil(1, 3, ()) and not wide_stencil(0, 3, ())  # step -1 would be before time 0
    assert not wide_stencil(2, 3, ())  # step 4 is not stored yet
    # a delay of 20 steps: the history's second derivative jumps at step 20
    assert [j for j in range(16, 24) if not wide_stencil(j, 100, (20.0,))] == [19, 20]


def _linear_error(breaks):
    """Largest error over 20 RTTs at the default step (d0/20), NumPy twin with or without the wide stencil."""
    params, initial = dict(C=1.0, d0=1.0, N=1.0, alpha=[0.4, 1.2], beta=[0.2, 0.5]), {"gamma0": 0.5, "q0": 0.5}
    reference = simulate(get_model("linear"), params, initial, 20.0, dt=1 / 640, record_every=640).states
    integrator = make_integrator(get_model("linear"), params, initial, engine=ReferenceIntegrator)
    assert integrator.dt == 1 / 20
    integrator.history.breaks = breaks
    run = integrator.run(400, record_every=20)
    return max(np.abs(run[:, :, 0] - reference["y"][1:]).max(), np.abs(run[:, :, 1] - reference["q"][1:]).max())


def test_wide_stencil_makes_the_default_step_more_accurate():
    wide, cubic = _linear_error((1.0 * 20,)), _linear_error(None)
    assert wide < cubic / 3, (wide, cubic)
