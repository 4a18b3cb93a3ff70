"""Integrate a model from given initial conditions and keep the whole time series."""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from ..errors import InputError
from ..models import as_model
from ..models.spec import ModelSpec
from ..runtime.validation import check_run_cost
from .integrator import BatchIntegrator
from .setup import make_integrator

MAX_SAMPLES = 20_000  # recorded samples per trajectory by default (memory: B * 8 bytes each)
CPU_S_PER_STEP = 5e-8  # one step of one trajectory in the compiled kernel (measured 23-49 ns), for refusals


@dataclass
class Trajectory:
    """Time series of a batch of B trajectories of one model.

    Attributes
    ----------
    model : str
        Model name.
    t : ndarray, shape (n,)
        Sample times (s).
    states : dict of str to ndarray, shape (n, B)
        Each state (SI units: bit/s for rates, bits for queues).
    gamma : ndarray, shape (n, B)
        Normalized per-flow rate R/C (dimensionless).
    queue : ndarray, shape (n, B)
        Queue (bits).
    gamma_eq, queue_eq : ndarray, shape (B,)
        The equilibrium the protocol aims for (R/C = eta/N, q = 0), at the final N.
    d0 : float
        Round-trip propagation delay (s): one RTT, the unit of :attr:`rtt`.
    capacity : ndarray, shape (B,)
        Link capacity C (bit/s): the queue's unit (:attr:`queue_scale`) per round trip.
    dt : float
        Integration step (s).
    params : dict
        Parameter values used (name to float or array).
    """

    model: str
    t: np.ndarray
    states: dict
    gamma: np.ndarray
    queue: np.ndarray
    gamma_eq: np.ndarray
    queue_eq: np.ndarray
    d0: float
    capacity: np.ndarray
    dt: float
    params: dict = field(default_factory=dict)

    @property
    def rtt(self) -> np.ndarray:
        """Sample times in round trips (t / d0)."""
        return self.t / self.d0

    def __repr__(self) -> str:
        gains = "".join(f", {k}={np.ravel(self.params[k])[0]:g}" for k in ("alpha", "beta")
                        if k in self.params and np.size(self.params[k]) == 1)
        return (f"Trajectory(model={self.model!r}, {self.gamma.shape[1]} trajectories, "
                f"0..{self.rtt[-1]:.4g} RTTs (d0 = {self.d0:g} s){gains})")

    def plot(self, ax=None, **kwargs):
        """Draw the phase portrait with :func:`~rcpstab.phaseplane.plotting.portrait_plot`."""
        from .plotting import portrait_plot

        return portrait_plot(self, ax=ax, **kwargs)


def simulate(model: ModelSpec, params: dict, initial: dict, t_end: float, dt: float | None = None,
             n_schedule=None, record_every: int | None = None, n_param: str = "N") -> Trajectory:
    """Integrate ``model`` for a batch of parameter sets and initial conditions.

    Parameters
    ----------
    model : ModelSpec
        The model (``rcpstab.models.get_model('rcp')``...).
    params : dict
        Parameter name (``alpha``, ``beta``, ``C`` bit/s, ``N``, ``d0`` s, ``T`` s, ``eta``,
        ``MTU`` bits) to a float or an array of shape (B,); missing ones take App. E's defaults.
        ``d0`` and ``T`` must be single values (they set the delay line and the step).
    initial : dict
        ``gamma0`` (R/C, in (0, 1]) and ``q0`` (bits, >= 0): floats or arrays of shape (B,).
    t_end : float
        Duration (s).
    dt : float, optional
        Step (s). Default: T for ``rcp`` (exact), d0/20 for the continuous models (RK4).
    n_schedule : list of (float, float), optional
        Piecewise-constant number of flows, ``[(time_s, N), ...]`` (e.g. the fig5.3 scenario).
    n_param : str
        The parameter ``n_schedule`` sets (default ``N``; a model with its own name for it).
    record_every : int, optional
        Keep every this many steps (default: at most 20 000 samples).

    Returns
    -------
    Trajectory
    """
    model = as_model(model)  # a name works too; anything else is an InputError
    if not (math.isfinite(t_end) and t_end > 0):
        raise InputError(f"t_end = {t_end} s: must be > 0")
    integrator = make_integrator(model, params, initial, dt, n_schedule, n_param=n_param)
    n_steps = int(round(t_end / integrator.dt))
    check_run_cost(f"{t_end:g} s in {n_steps} steps of {integrator.dt:.4g} s", n_steps * integrator.size * CPU_S_PER_STEP)
    every = record_every or max(1, math.ceil(n_steps / MAX_SAMPLES))
    first = np.stack(integrator.states, axis=1)[None]
    recorded = np.concatenate([first, integrator.run(n_steps, record_every=every)])
    return _trajectory(integrator, np.arange(recorded.shape[0]) * every * integrator.dt, recorded)


def _trajectory(integrator: BatchIntegrator, times: np.ndarray, recorded: np.ndarray) -> Trajectory:
    """Assemble recorded states, shape (n, B, S), into a :class:`Trajectory`."""
    compiled = integrator.model
    values = integrator.params
    stacked = [recorded[:, :, i] for i in range(compiled.n_states)]
    size = stacked[0].shape[1]
    eq = [np.broadcast_to(f(*[0.0] * compiled.n_states, *values), (size,)) for f in compiled.equilibrium]
    names = compiled.param_names
    return Trajectory(
        model=compiled.spec.name,
        t=times,
        states={s.__name__: x for s, x in zip(compiled.spec.states, stacked)},
        gamma=np.asarray(compiled.gamma(*stacked, *values)) * np.ones_like(stacked[0]),
        queue=np.asarray(compiled.queue(*stacked, *values)) * np.ones_like(stacked[0]),
        gamma_eq=np.broadcast_to(compiled.gamma(*eq, *values), (size,)).copy(),
        queue_eq=np.broadcast_to(compiled.queue(*eq, *values), (size,)).copy(),
        d0=float(np.max(compiled.time_scale(*values))),
        capacity=np.broadcast_to(values[names.index("C")] if "C" in names
                                 else compiled.queue_scale(*values) / compiled.time_scale(*values), (size,)).copy(),
        dt=integrator.dt,
        params=dict(zip(names, values)),
    )
