"""The batched integrator: order of convergence, agreement with jitcdde, exactness for rcp, N schedule."""

import numpy as np
import pytest

from rcpstab.errors import InputError
from rcpstab.models import get_model
from rcpstab.phaseplane import simulate

UNIT = {"C": 1.0, "d0": 1.0, "N": 1.0}  # normalized units: rate in C, time in RTTs


def linear_run(dt, t_end=20.0, record_every=None):
    """(alpha, beta) = (0.4, 0.2) from y = 0.5 C, q = 0.5 C*d0, recorded once per RTT by default."""
    return simulate(
        get_model("linear"),
        dict(UNIT, alpha=0.4, beta=0.2),
        {"gamma0": 0.5, "q0": 0.5},
        t_end,
        dt=dt,
        record_every=record_every or int(round(1.0 / dt)),
    )


def test_rk4_order_on_the_smooth_linear_model():
    reference = linear_run(1 / 640)
    errors = []
    for steps in (10, 20, 40):
        traj = linear_run(1 / steps)
        errors.append(
            max(np.abs(traj.states["y"] - reference.states["y"]).max(), np.abs(traj.states["q"] - reference.states["q"]).max())
        )
    orders = np.log2(np.array(errors[:-1]) / np.array(errors[1:]))
    assert np.all((orders > 3.7) & (orders < 4.3)), orders
    assert errors[1] < 1e-6  # the default step (d0/20) is accurate to 1e-6 of C


def test_delay_between_steps_is_interpolated_at_second_order():
    """Off the grid the kink of the history at t = d0 falls inside a step, so the order drops to 2
    (the default step always puts the delay on the grid, where the order is 4)."""
    final = linear_run(1 / 640, t_end=12.0, record_every=1).states["y"][-1, 0]
    errors = [
        abs(linear_run(1 / s, t_end=12.0, record_every=1).states["y"][-1, 0] - final) for s in (10.5, 31.5)
    ]  # 10.5 and 31.5 steps per RTT: the delay falls between steps
    assert 1.9 < np.log(errors[0] / errors[1]) / np.log(3) < 2.1
    assert errors[1] < 2e-6


@pytest.mark.slow  # compiles jitcdde's C code: ~2 s
def test_agrees_with_jitcdde_at_tight_tolerance():
    import jitcdde  # in the test extra: this test must run

    alpha, beta = 1.0, 0.3
    dde = jitcdde.jitcdde(
        [-alpha * (jitcdde.y(0, jitcdde.t - 1) - 1) - beta * jitcdde.y(1, jitcdde.t - 1), jitcdde.y(0) - 1], verbose=False
    )
    dde.constant_past([0.5, 0.5])
    dde.compile_C(verbose=False)
    dde.set_integration_parameters(atol=1e-11, rtol=1e-11)
    dde.step_on_discontinuities()
    times = np.arange(1.0, 30.0 + 1e-9, 1.0)
    reference = np.array([dde.integrate(time) for time in times])
    traj = simulate(
        get_model("linear"), dict(UNIT, alpha=alpha, beta=beta), {"gamma0": 0.5, "q0": 0.5}, 30.0, dt=1 / 40, record_every=40
    )
    ours = np.column_stack([traj.states["y"][1:, 0], traj.states["q"][1:, 0]])
    assert np.abs(ours - reference).max() < 1e-8  # amplitude of the transient is 0.5


def test_rcp_is_exact_at_the_update_interval():
    """rcp's queue has a piecewise-constant derivative: a step of T and of T/4 give the same trajectory."""
    params = {"alpha": [0.6, 1.4], "beta": [0.8, 0.8]}
    coarse = simulate(get_model("rcp"), params, {"gamma0": 0.01, "q0": 6e7}, 20.0)
    fine = simulate(get_model("rcp"), params, {"gamma0": 0.01, "q0": 6e7}, 20.0, dt=0.0025, record_every=4)
    assert coarse.dt == 0.01
    assert np.allclose(coarse.gamma, fine.gamma, rtol=1e-12, atol=0)
    assert np.allclose(coarse.queue, fine.queue, rtol=1e-12, atol=1e-3)


def test_queue_clamp_and_rate_saturation():
    params = {"alpha": 1.4, "beta": 0.8}
    start = {"gamma0": [0.5, 0.01], "q0": [6e7, 0.0]}
    rcp = simulate(get_model("rcp"), params, start, 40.0)
    assert rcp.queue.min() == 0.0 and (rcp.queue == 0).mean() > 0.05  # sits exactly on the switching surface
    assert rcp.gamma.max() <= 1.0  # R <= eta*C
    switched = simulate(get_model("switched"), params, start, 40.0)
    linear = simulate(get_model("linear"), params, start, 40.0)
    assert switched.queue.min() == 0.0
    assert linear.queue.min() < -1e6  # the unclamped model goes negative


def test_piecewise_constant_number_of_flows_fig5_3():
    """5 flows, 5 more at 40 s, the first 5 leave at 100 s: R/C settles at 0.2, 0.1, 0.2."""
    schedule = [(0.0, 5), (40.0, 10), (100.0, 5)]
    traj = simulate(
        get_model("rcp"), {"alpha": 0.4, "beta": 0.2, "N": 5}, {"gamma0": 0.05, "q0": 0.0}, 140.0, n_schedule=schedule
    )
    for time, level in ((39.0, 0.2), (99.0, 0.1), (139.0, 0.2)):
        assert traj.gamma[np.searchsorted(traj.t, time), 0] == pytest.approx(level, rel=0.01)


@pytest.mark.parametrize(
    "params, initial, message",
    [
        ({"T": 0.0}, {}, "T = 0.0"),
        ({"d0": -0.1}, {}, "d0 = -0.1"),
        ({"N": 0.5}, {}, "N = 0.5"),
        ({}, {"q0": -1.0}, "q0 = -1.0"),
    ],
)
def test_bad_input_names_the_value(params, initial, message):
    with pytest.raises(InputError, match=message.replace(".", r"\.")):
        simulate(get_model("rcp"), params, initial, 1.0)
