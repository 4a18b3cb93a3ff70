"""The finite buffer of the fluid models: the queue held in [0, B], the overflow dropped and counted."""

import dataclasses

import numpy as np
import pytest

from rcpstab.cli import main


def exit_code(argv):
    """main's return code, or argparse's exit code for a value that is not a number."""
    try:
        return main(argv)
    except SystemExit as exc:
        return exc.code


from rcpstab.models import Clamp, get_model
from rcpstab.phaseplane.reference import ReferenceIntegrator
from rcpstab.phaseplane.setup import make_integrator
from rcpstab.phaseplane.trajectory import simulate
from rcpstab.verdicts.judgement import band_distance, last_band_exit

BUFFERED = ("rcp", "switched", "xcp", "rcpac", "rcp-router", "xcp-router", "rcpac-router")
C, D0 = 10e6, 0.05
BDP = C * D0


def without_buffer(model):
    """The model as it was before buffers: the same equations, the queue clamped at 0 only."""
    n = len(model.loop_states)
    return dataclasses.replace(
        model,
        name=model.name + "-nobuffer",
        states=model.loop_states,
        rhs=model.rhs[:n],
        parameters={k: v for k, v in model.parameters.items() if k.name != "buffer"},
        clamps=tuple(Clamp(c.state, c.lower) for c in model.clamps),
        equilibrium={k: v for k, v in model.equilibrium.items() if k in model.loop_states},
        initial_state={k: v for k, v in model.initial_state.items() if k in model.loop_states},
    )


def flash_crowd(name, buffers_bdp, engine=None, steps=2000, dt=None):
    """N = 10 flows at equilibrium become 100: the queue fills in the first RTT whatever the gains."""
    model = get_model(name)
    size = len(buffers_bdp)
    params = {
        "alpha": 0.4,
        "beta": 0.226,
        "C": C,
        "d0": D0,
        "N": np.full(size, 100.0),
        "T": 0.01,
        "buffer": np.asarray(buffers_bdp, dtype=float) * BDP,
    }
    kwargs = {"engine": engine} if engine else {}
    integ = make_integrator(model, params, {"gamma0": 0.1, "q0": 0.0}, dt, **kwargs)
    first = np.stack(integ.states, axis=1)[None]
    return model, integ, np.concatenate([first, integ.run(steps, record_every=1)])


@pytest.mark.parametrize("name", BUFFERED)
def test_queue_never_exceeds_the_buffer_and_the_twins_agree(name):
    model, _, compiled = flash_crowd(name, [0.25, 1.0, np.inf], steps=600)
    _, _, reference = flash_crowd(name, [0.25, 1.0, np.inf], engine=ReferenceIntegrator, steps=600)
    assert np.array_equal(compiled, reference)  # C kernel == NumPy executable specification, bit for bit
    names = [s.__name__ for s in model.states]
    queue, dropped = compiled[:, :, names.index("q")], compiled[:, :, names.index("dropped")]
    peak = queue.max(axis=0) / BDP
    assert peak[0] == 0.25 and peak[1] == 1.0  # reaches the buffer, exactly, and never passes it
    assert peak[2] > 3.0  # unbounded: the crowd queues several C*d0
    assert dropped[-1, 0] > 0 and dropped[-1, 1] > 0 and dropped[-1, 2] == 0


def test_rcp_first_rtt_overflow_is_exact():
    """Before any feedback (t < d0) rcp's input is N*R(0) = 10 C: 9 C*d0 arrive in excess in the
    first RTT, so at t = d0 the buffer is full and exactly 9 C*d0 - B has been dropped."""
    model, integ, rec = flash_crowd("rcp", [0.25, 1.0, 4.0], steps=200)
    names = [s.__name__ for s in model.states]
    at = int(round(D0 / integ.dt))
    assert np.allclose(rec[at, :, names.index("q")] / BDP, [0.25, 1.0, 4.0], rtol=1e-12)
    assert np.allclose(rec[at, :, names.index("dropped")] / BDP, [8.75, 8.0, 5.0], rtol=1e-9)


@pytest.mark.parametrize("name", BUFFERED)
def test_unbounded_buffer_is_the_old_model_bit_for_bit(name):
    model = get_model(name)
    old = without_buffer(model)
    params = {"alpha": np.array([0.4, 1.5, 0.8]), "beta": np.array([0.2, 0.3, 1.0]), "C": C, "d0": D0, "N": 20.0}
    initial = {"gamma0": np.array([0.5, 0.01, 0.1]), "q0": np.array([0.0, 2 * BDP, BDP])}
    new_run = make_integrator(model, params, initial).run(3000, record_every=1)
    old_run = make_integrator(old, params, initial).run(3000, record_every=1)
    n = len(model.loop_states)
    assert np.array_equal(new_run[:, :, :n], old_run)
    assert np.all(new_run[:, :, n:] == 0.0)


def test_rcp_drop_is_the_overflow_of_the_exact_queue_recursion():
    """rcp's queue derivative N*R(t-d0) - C is constant over a step: rebuild q and the drops from R alone."""
    model, integ, rec = flash_crowd("rcp", [0.5], steps=3000)
    names = [s.__name__ for s in model.states]
    R, q, D = (rec[:, 0, names.index(x)] for x in ("R", "q", "dropped"))
    dt, lag = integ.dt, int(round(D0 / integ.dt))
    buffer = 0.5 * BDP
    queue, drop = 0.0, 0.0
    queues, drops = [queue], [drop]
    for k in range(len(R) - 1):
        y = 100.0 * (R[k - lag] if k >= lag else R[0])  # N*R(t - d0); before t = 0 the history is R(0)
        level = queue + dt * (y - C)
        drop += max(0.0, level - buffer)
        queue = min(max(level, 0.0), buffer)
        queues.append(queue)
        drops.append(drop)
    assert np.allclose(q, queues, rtol=1e-12, atol=1e-9 * BDP)
    assert np.allclose(D, drops, rtol=1e-12, atol=1e-9 * BDP)
    assert D[-1] > 5 * BDP  # about 9 C*d0 arrive in the first RTT; half of one fits


@pytest.mark.parametrize("name", ["switched", "xcp"])
def test_dropped_volume_is_the_integral_of_the_overflow(name):
    """While the queue has not emptied, q + dropped - q(0) = integral of (y - C): trapezoids on the trace.

    The buffer overflows for most of an RTT here (about 2 C*d0 dropped), so an accumulator that missed
    the volume cut at the bound, or counted the part that still fits, would be off by far more."""
    model, integ, rec = flash_crowd(name, [1.0], steps=4000)
    names = [s.__name__ for s in model.states]
    y, q, D = (rec[:, 0, names.index(x)] for x in ("y", "q", "dropped"))
    full = np.flatnonzero(q >= BDP)
    low = q[full[0] :] <= 0.05 * BDP  # stop short of the empty queue: RK4's stages meet the lower clamp there
    stop = full[0] + np.argmax(low) if np.any(low) else len(q)
    t = np.arange(len(q)) * integ.dt
    inflow = np.concatenate([[0.0], np.cumsum(0.5 * (y[1:] + y[:-1] - 2 * C) * np.diff(t))])
    assert D[stop - 1] > 1.0 * BDP
    assert np.allclose((q + D)[:stop], inflow[:stop], atol=2e-3 * BDP)


def test_independent_euler_of_eqs_5_1_to_5_4_with_a_buffer_agrees():
    """A plain Python Euler integration of eqs. 5.1-5.4 (T -> 0: R updated every step) with the queue held
    in [0, B] gives the same drops and recovery as the kernel at T = dt."""
    dt, steps, lag = D0 / 100, 4000, 100
    params = {"alpha": 0.4, "beta": 0.2, "C": C, "d0": D0, "N": 100.0, "T": dt, "buffer": BDP}
    run = simulate(get_model("rcp"), params, {"gamma0": 0.1, "q0": 0.0}, steps * dt, dt=dt, record_every=1)
    R = np.empty(steps + 1)
    q = np.zeros(steps + 1)
    R[0], dropped = 0.1 * C, 0.0
    for k in range(steps):
        d = D0 + q[k] / C
        y = 100.0 * R[max(k - lag, 0)]
        level = q[k] + dt * (y - C)
        dropped += max(0.0, level - BDP)
        q[k + 1] = min(max(level, 0.0), BDP)
        rate = R[k] + dt * R[k] * (0.4 * (C - y) - 0.2 * q[k + 1] / d) / (C * d)
        R[k + 1] = min(max(rate, 0.01 * 12000 / (D0 + q[k + 1] / C)), C)
    assert run.states["dropped"][-1, 0] / BDP == pytest.approx(dropped / BDP, rel=0.02)
    assert run.queue[:, 0].max() == BDP and q.max() == BDP
    assert np.abs(run.gamma[:, 0] - R / C).max() < 2e-3  # R/C within 0.2% of C throughout (R(t-T) vs R(t))
    recovery = [
        last_band_exit(run.rtt, band_distance(g, x, 0.01, 0.0, BDP)) for g, x in ((run.gamma[:, 0], run.queue[:, 0]), (R / C, q))
    ]
    assert 5 < recovery[0] < 40 and recovery[0] == pytest.approx(recovery[1], abs=1.0)  # RTTs


def test_linear_model_has_no_buffer_and_linearization_is_unchanged():
    from rcpstab.linear.linearization import linearize

    assert "buffer" not in {s.name for s in get_model("linear").parameters}
    for name in BUFFERED:
        model = get_model(name)
        assert linearize(model).A0.shape[0] == len(model.loop_states) == len(model.states) - 1


@pytest.mark.parametrize("value", ["-1", "0", "nan", "abc", "inf"])
@pytest.mark.parametrize(
    "command",
    [
        ["map", "--method", "phaseplane", "--alpha", "0.4:0.4:0.1", "--beta", "0.2:0.2:0.1"],
        ["portrait", "--alpha", "0.4", "--beta", "0.2"],
        ["convergence", "--alpha", "0.4:0.4:0.1", "--beta", "0.2:0.2:0.1"],
    ],
)
def test_bad_buffer_exits_2_with_one_line(command, value, capsys):
    assert exit_code([*command, "--buffer", value]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and value in err and "--buffer" in err


def test_map_buffer_holds_app_e_full_queue_start(capsys):
    assert (
        main(["map", "--method", "phaseplane", "--alpha", "0.4:0.4:0.1", "--beta", "0.2:0.2:0.1", "--buffer", "1", "--json"]) == 0
    )
