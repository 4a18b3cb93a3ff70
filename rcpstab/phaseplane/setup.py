"""Checked parameter values, initial conditions and the default step for a batch."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np

from ..errors import InputError
from ..runtime.validation import check_run_cost
from .compiled import CompiledModel, compile_model
from .integrator import BatchIntegrator

if TYPE_CHECKING:
    from ..models.spec import ModelSpec

STEPS_PER_DELAY = 20  # RK4 steps per round trip: error ~1e-7 of the amplitude (see tests)
MAX_STEP_DIVISOR = 64  # largest k tried so that T/k divides the delay
DELAY_READ_TOLERANCE = 1e-3  # incommensurate delays: largest relative move of the delay by the step grid
GAIN_AXES = ("alpha", "beta")  # the grid's axes: a model's first and second loop gain, whatever it calls them


def own_name(spec: ModelSpec, name: str) -> str | None:
    """The model's own name of the parameter given as ``name``: itself, an alias the model declares
    (``d0`` for RCP's ``d_0``) or a grid axis (``alpha``, ``beta``: the loop gains); None if none."""
    table = spec.parameter_table  # by name: a cached bundled model is not built (no SymPy)
    if name in GAIN_AXES and len(table.loop) == len(GAIN_AXES) and table.own(name) is None:
        return table.loop[GAIN_AXES.index(name)]
    return table.own(name)


def parameter_values(model: CompiledModel, params: dict) -> list:
    """Parameter values in the model's order, defaults filled in, each a float or an array.

    Parameters
    ----------
    model : CompiledModel
    params : dict
        Any parameter the model declares, by its name or an alias it declares (see
        :func:`own_name`), to a number or an array over the batch (SI units, the model's
        declared units); ``alpha`` and ``beta`` name its two loop gains whatever it calls them.

    Raises
    ------
    InputError
        For an unknown name or a value outside its declared domain.
    """
    given = {}
    for key, value in params.items():
        name = own_name(model.spec, key)
        if name is None:
            raise InputError(f"unknown parameter {key!r} (model has {', '.join(model.param_names)})")
        given[name] = value
    values = []
    table = model.spec.parameter_table
    for name, default in table.defaults.items():
        value = given.get(name, default)
        arr = np.atleast_1d(np.asarray(value, dtype=float))
        problem = table.domain(name).violation(arr, name)  # the model declares its domains
        if problem:
            raise InputError(problem)
        values.append(float(arr[0]) if np.ndim(value) == 0 else arr)
    return values


def initial_states(model: CompiledModel, values: list, gamma0, q0) -> list:
    """Initial state from App. E's normalized rate ``gamma0 = R/C`` and queue ``q0`` (bits).

    Raises :class:`InputError` for a negative queue or a rate outside (0, 1].
    """
    gamma0 = np.asarray(gamma0, dtype=float)
    q0 = np.asarray(q0, dtype=float)
    bad_q = np.ravel(q0)[~(np.isfinite(np.ravel(q0)) & (np.ravel(q0) >= 0))]
    if bad_q.size:
        raise InputError(f"initial queue q0 = {bad_q[0]} bits: must be >= 0")
    bad_g = np.ravel(gamma0)[~(np.isfinite(np.ravel(gamma0)) & (np.ravel(gamma0) > 0) & (np.ravel(gamma0) <= 1))]
    if bad_g.size:
        raise InputError(f"initial rate gamma0 = {bad_g[0]}: must be in (0, 1] (a fraction of C)")
    return [np.asarray(f(gamma0, q0, *values), dtype=float) for f in model.initial]


def unreachable(model: CompiledModel, values: list) -> np.ndarray:
    """Where the equilibrium lies outside a state's saturation bounds, so no trajectory can reach it.

    For ``rcp``: the fair rate eta*C/N below the rate floor MIN_RATE = 0.01*MTU/d0 (e.g. 56 kb/s
    shared by 1000 flows). Such a system settles away from its equilibrium whatever the gains.

    Returns
    -------
    ndarray of bool, shape (B,) (or () for scalar parameters)
    """
    zeros = [0.0] * model.n_states
    eq = [np.asarray(f(*zeros, *values), dtype=float) for f in model.equilibrium]
    out = np.zeros(np.broadcast_shapes(*(np.shape(v) for v in values + eq)), dtype=bool)
    for i, (lower, upper) in model.saturation.items():
        # relative slack: an equilibrium exactly on a bound (R = eta*C) is reachable
        out |= eq[i] < lower(*eq, *values) * (1 - 1e-12)
        out |= eq[i] > upper(*eq, *values) * (1 + 1e-12)
    return out


def batch_size(values: list, initial: list) -> int:
    """The common batch length of every array argument (raises ValueError if they disagree)."""
    return np.broadcast_shapes(*(np.shape(v) for v in values + initial), (1,))[0]


def default_step(model: CompiledModel, values: list) -> float:
    """The step (s): T/k for sampled models with the delay a whole number of steps, else delay/20.

    For sampled models the continuous states then have a piecewise-constant derivative and
    the step is exact. A delay that no T/k (k <= 64) divides is read at the nearest held
    sample, i.e. the model is integrated with its delay moved by at most half a step; the step
    is then the coarsest T/k that keeps that move within :data:`DELAY_READ_TOLERANCE` of the
    delay (never finer than T/64, the former fallback). This keeps long incommensurate delays
    cheap: d0 = 13.136545 s with T = 10 ms takes T itself (a 3.8e-4 relative move) instead of
    T/64, 64 times fewer steps (the check of a 13-15 s RTT envelope took over 7 minutes).
    """
    delays = [float(np.max(term.delay(*values))) for term in model.delayed]
    shortest = min(delays)
    if not model.interval:
        return shortest / STEPS_PER_DELAY
    interval = min(float(np.max(f(*values))) for f in model.interval.values())

    def on_grid(d, dt):
        return abs(d / dt - round(d / dt)) < 1e-9 * max(1.0, d / dt)

    for k in range(1, MAX_STEP_DIVISOR + 1):
        dt = interval / k
        if dt <= shortest and all(on_grid(d, dt) for d in delays):
            return dt
    for k in range(1, MAX_STEP_DIVISOR + 1):
        dt = interval / k
        if dt <= shortest and all(on_grid(d, dt) or dt <= 2 * DELAY_READ_TOLERANCE * d for d in delays):
            return dt
    return interval / max(MAX_STEP_DIVISOR, math.ceil(interval / shortest))


def make_integrator(
    model: ModelSpec,
    params: dict,
    initial: dict,
    dt: float | None = None,
    n_schedule=None,
    engine: type = BatchIntegrator,
    n_param: str | None = None,
) -> BatchIntegrator:
    """A checked, ready-to-run batch: see :func:`~rcpstab.phaseplane.trajectory.simulate` for the arguments.

    ``engine`` is the integrator class: the compiled one, or
    :class:`~rcpstab.phaseplane.reference.ReferenceIntegrator` to cross-check it.
    """
    compiled = compile_model(model)
    values = parameter_values(compiled, params)
    x0 = initial_states(compiled, values, initial.get("gamma0", 0.5), initial.get("q0", 0.0))
    if dt is not None and not (math.isfinite(dt) and dt > 0):
        raise InputError(f"dt = {dt} s: must be > 0")
    if n_schedule:
        given, n_param = n_param, own_name(model, n_param) if n_param is not None else model.flow_parameter()
        if n_param is None:
            raise InputError(f"flow schedule: model {model.name!r} has no parameter {given!r}")
    for _, flows in n_schedule or []:
        parameter_values(compiled, {n_param: flows})
    for name in compiled.delay_symbols:
        if np.ndim(values[compiled.param_names.index(name)]):
            raise InputError(f"{name} must be a single value per batch (it sets the delay line)")
    size = batch_size(values, x0)
    x0 = [np.broadcast_to(x, (size,)).copy() for x in x0]
    step = dt or default_step(compiled, values)
    delay_steps = max((float(np.max(term.delay(*values))) for term in compiled.delayed), default=0.0) / step
    # the delay line holds every step of the longest delay, values and slopes: refuse what cannot fit
    check_run_cost(
        f"a batch of {size} trajectories with a delay of {delay_steps:.4g} steps of {step:.4g} s",
        0.0,
        (delay_steps + 3) * compiled.n_states * size * 16,
    )
    return engine(compiled, values, x0, step, n_schedule, n_param=n_param)
