"""Checked parameter values, initial conditions and the default step for a batch."""
from __future__ import annotations

import math

import numpy as np

from ..errors import InputError
from ..models.spec import ModelSpec
from .compiled import CompiledModel, compile_model
from .integrator import BatchIntegrator

STEPS_PER_DELAY = 20          # RK4 steps per round trip: error ~1e-7 of the amplitude (see tests)
MAX_STEP_DIVISOR = 64         # largest k tried so that T/k divides the delay
ALIASES = {"d0": "d_0", "mtu": "MTU"}

# Physical meaning of each check, so the message can name the value (the CLI prints it as one line).
CHECKS = {
    "T": (lambda v: v > 0, "update interval T = {} s: must be > 0"),
    "d_0": (lambda v: v > 0, "propagation delay d0 = {} s: must be > 0"),
    "N": (lambda v: v >= 1, "number of flows N = {}: must be >= 1"),
    "C": (lambda v: v > 0, "capacity C = {} bit/s: must be > 0"),
    "alpha": (lambda v: v > 0, "alpha = {}: must be > 0"),
    "beta": (lambda v: v > 0, "beta = {}: must be > 0"),
    "eta": (lambda v: v > 0, "eta = {}: must be > 0"),
    "MTU": (lambda v: v > 0, "MTU = {} bits: must be > 0"),
    "buffer": (lambda v: v > 0, "buffer = {} bits: must be > 0 (inf: unbounded)"),
}
MAY_BE_INFINITE = {"buffer"}  # an unbounded buffer is the thesis' fluid model


def parameter_values(model: CompiledModel, params: dict) -> list:
    """Parameter values in the model's order, defaults filled in, each a float or an array.

    Parameters
    ----------
    model : CompiledModel
    params : dict
        Name (``alpha``, ``beta``, ``C`` bit/s, ``N``, ``d0`` s, ``T`` s, ``eta``, ``MTU`` bits)
        to a number or an array over the batch.

    Raises
    ------
    InputError
        For an unknown name or a value outside its physical range.
    """
    given = {ALIASES.get(k, k): v for k, v in params.items()}
    unknown = set(given) - set(model.param_names)
    if unknown:
        raise InputError(f"unknown parameter {sorted(unknown)[0]!r} (model has {', '.join(model.param_names)})")
    values = []
    for sym, default in model.spec.parameters.items():
        value = given.get(sym.name, default)
        arr = np.atleast_1d(np.asarray(value, dtype=float))
        ok, message = CHECKS.get(sym.name, (lambda v: True, sym.name + " = {}: must be finite"))
        finite = np.isfinite(arr) | (np.isposinf(arr) if sym.name in MAY_BE_INFINITE else False)
        bad = arr[~(finite & ok(arr))]
        if bad.size:
            raise InputError(message.format(bad[0]))
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
    the step is exact; a delay that no T/k divides is read at the nearest held sample.
    """
    delays = [float(np.max(term.delay(*values))) for term in model.delayed]
    shortest = min(delays)
    if not model.interval:
        return shortest / STEPS_PER_DELAY
    interval = min(float(np.max(f(*values))) for f in model.interval.values())
    for k in range(1, MAX_STEP_DIVISOR + 1):
        dt = interval / k
        if dt <= shortest and all(abs(d / dt - round(d / dt)) < 1e-9 * max(1.0, d / dt) for d in delays):
            return dt
    return interval / max(MAX_STEP_DIVISOR, math.ceil(interval / shortest))


def make_integrator(model: ModelSpec, params: dict, initial: dict, dt: float | None = None,
                    n_schedule=None, engine: type = BatchIntegrator) -> BatchIntegrator:
    """A checked, ready-to-run batch: see :func:`~rcpstab.phaseplane.trajectory.simulate` for the arguments.

    ``engine`` is the integrator class: the compiled one, or
    :class:`~rcpstab.phaseplane.reference.ReferenceIntegrator` to cross-check it.
    """
    compiled = compile_model(model)
    values = parameter_values(compiled, params)
    x0 = initial_states(compiled, values, initial.get("gamma0", 0.5), initial.get("q0", 0.0))
    if dt is not None and not (math.isfinite(dt) and dt > 0):
        raise InputError(f"dt = {dt} s: must be > 0")
    for _, flows in n_schedule or []:
        parameter_values(compiled, {"N": flows})
    for name in compiled.delay_symbols:
        if np.ndim(values[compiled.param_names.index(name)]):
            raise InputError(f"{name} must be a single value per batch (it sets the delay line)")
    size = batch_size(values, x0)
    x0 = [np.broadcast_to(x, (size,)).copy() for x in x0]
    return engine(compiled, values, x0, dt or default_step(compiled, values), n_schedule)
