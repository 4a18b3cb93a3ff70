"""Integrate a model from given initial conditions and keep the whole time series."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import ArrayLike

from ..errors import InputError
from ..models import as_model
from ..runtime.validation import check_run_cost
from .compiled import compile_model
from .integrator import BatchIntegrator
from .setup import make_integrator, parameter_values

if TYPE_CHECKING:
    from matplotlib.axes import Axes

    from ..models.spec import ModelSpec

MAX_SAMPLES = 20_000  # recorded samples per trajectory by default (memory: B * 8 bytes each)
CPU_S_PER_STEP = 5e-8  # one step of one trajectory in the compiled kernel (measured 23-49 ns), for refusals


@dataclass
class Trajectory:
    """Time series of a batch of B trajectories of one model.

    Attributes
    ----------
    model : ModelSpec
        The model integrated (the object: plotting and re-use never look a name up again).
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
        The model's time scale (s; the round-trip propagation delay d0 for RCP): one RTT, the unit of :attr:`rtt`.
    capacity : ndarray, shape (B,)
        The model's declared link capacity (bit/s; C for RCP), NaN if it declares no queue unit.
    queue_scale : ndarray, shape (B,)
        The model's declared queue unit (bits; C*d0 for RCP) that convergence is judged in, NaN if none.
    dt : float
        Integration step (s).
    params : dict
        Parameter values used (name to float or array).
    """

    model: ModelSpec
    t: np.ndarray
    states: dict[str, Any]
    gamma: np.ndarray
    queue: np.ndarray
    gamma_eq: np.ndarray
    queue_eq: np.ndarray
    d0: float
    capacity: np.ndarray
    dt: float
    params: dict[str, Any] = field(default_factory=dict)
    queue_scale: np.ndarray | None = None

    @property
    def rtt(self) -> np.ndarray:
        """Sample times in round trips (t / d0)."""
        return self.t / self.d0

    def __repr__(self) -> str:
        gains = "".join(
            f", {k}={np.ravel(self.params[k])[0]:g}"
            for k in self.model.parameter_table.loop
            if k in self.params and np.size(self.params[k]) == 1
        )
        return (
            f"Trajectory(model={self.model.name!r}, {self.gamma.shape[1]} trajectories, "
            f"0..{self.rtt[-1]:.4g} RTTs (d0 = {self.d0:g} s){gains})"
        )

    def plot(self, ax: Axes | None = None, **kwargs: Any) -> Any:
        """Draw the phase portrait with :func:`~rcpstab.phaseplane.plotting.portrait_plot`."""
        from .plotting import portrait_plot

        return portrait_plot(self, ax=ax, **kwargs)


def simulate(
    model: ModelSpec,
    params: dict[str, Any],
    initial: dict[str, Any],
    t_end: float,
    dt: float | None = None,
    n_schedule: Any = None,
    record_every: int | None = None,
    n_param: str | None = None,
) -> Trajectory:
    """Integrate ``model`` for a batch of parameter sets and initial conditions.

    Parameters
    ----------
    model : ModelSpec
        The model (``rcpstab.models.get_model('rcp')``...).
    params : dict
        Any parameter the model declares, by name or declared alias (``alpha`` and ``beta`` name
        its two loop gains), to a float or an array of shape (B,); missing ones take the model's
        defaults. The parameters of the delays and sampling intervals must be single values.
    initial : dict
        ``gamma0`` (R/C, in (0, 1]) and ``q0`` (bits, >= 0): floats or arrays of shape (B,).
    t_end : float
        Duration (s).
    dt : float, optional
        Step (s). Default: T for ``rcp`` (exact), d0/20 for the continuous models (RK4).
    n_schedule : list of (float, float), optional
        Piecewise-constant number of flows, ``[(time_s, N), ...]`` (e.g. the fig5.3 scenario).
    n_param : str, optional
        The parameter ``n_schedule`` sets (default: the model's declared ``flows``, N for RCP).
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


def simulate_rtts(
    model: ModelSpec,
    alpha: float,
    beta: float,
    rtts: float,
    params: dict[str, Any] | None = None,
    gamma0: ArrayLike | None = None,
    q0: ArrayLike | None = None,
    batch: dict[str, Any] | None = None,
    record_every: int | None = None,
) -> Trajectory:
    """Integrate ``model`` at one point of its gain grid for ``rtts`` of its time units, from App. E's starts.

    Parameters
    ----------
    model : ModelSpec
    alpha, beta : float
        The model's first and second loop gain.
    rtts : float
        Duration in the model's time unit (round trips d0 for RCP).
    params : dict, optional
        Any declared parameter by name or declared alias (one value each; None values ignored).
    gamma0, q0 : array_like, optional
        Initial normalized rates and queues, one trajectory per pair; default App. E's six
        starts placed relative to the model's equilibrium
        (:func:`~rcpstab.phaseplane.sweep.equilibrium_starts`).
    batch : dict, optional
        Parameters (not the delays) that take one value per trajectory, name to array broadcast against
        ``gamma0``/``q0`` (which must then be given).
    record_every : int, optional
        As for :func:`simulate`.
    """
    from .sweep import configurations, equilibrium_starts

    model = as_model(model)
    if not (np.isfinite(rtts) and rtts > 0):
        raise InputError(f"rtts = {rtts}: must be > 0")
    given = {k: v for k, v in (params or {}).items() if v is not None}
    (config,) = configurations(model, {k: [v] for k, v in given.items()})
    point = dict(config, alpha=alpha, beta=beta)
    if gamma0 is None and q0 is None and not batch:
        gamma0, q0 = (v[0] for v in equilibrium_starts(model, point))
    elif gamma0 is None or q0 is None:
        raise InputError("gamma0 and q0: give both (with parameters given per trajectory, give the starts too)")
    compiled = compile_model(model)
    unit = float(compiled.time_scale(*parameter_values(compiled, point)))
    if batch:  # one value per trajectory; the time unit (the delays) is shared
        *columns, gamma0, q0 = np.broadcast_arrays(*batch.values(), np.asarray(gamma0, dtype=float), np.asarray(q0, dtype=float))
        point.update({k: v.ravel().astype(float) for k, v in zip(batch, columns)})
    gamma0, q0 = np.broadcast_arrays(np.asarray(gamma0, dtype=float), np.asarray(q0, dtype=float))
    return simulate(model, point, {"gamma0": gamma0.ravel(), "q0": q0.ravel()}, rtts * unit, record_every=record_every)


def _trajectory(integrator: BatchIntegrator, times: np.ndarray, recorded: np.ndarray) -> Trajectory:
    """Assemble recorded states, shape (n, B, S), into a :class:`Trajectory`."""
    compiled = integrator.model
    values = integrator.params
    stacked = [recorded[:, :, i] for i in range(compiled.n_states)]
    size = stacked[0].shape[1]
    eq = [np.broadcast_to(f(*[0.0] * compiled.n_states, *values), (size,)) for f in compiled.equilibrium]
    names = compiled.param_names

    def scale(
        f: Callable[..., Any],
    ) -> np.ndarray:  # a model that declares no queue unit is integrated all the same, but not judged
        return np.broadcast_to(f(*values) if compiled.judged else np.nan, (size,)).astype(float)

    return Trajectory(
        model=compiled.spec,
        t=times,
        states=dict(zip(compiled.spec.parameter_table.states, stacked)),
        gamma=np.asarray(compiled.gamma(*stacked, *values)) * np.ones_like(stacked[0]),
        queue=np.asarray(compiled.queue(*stacked, *values)) * np.ones_like(stacked[0]),
        gamma_eq=np.broadcast_to(compiled.gamma(*eq, *values), (size,)).copy(),
        queue_eq=np.broadcast_to(compiled.queue(*eq, *values), (size,)).copy(),
        d0=float(np.max(compiled.time_scale(*values))),
        capacity=scale(lambda *v: compiled.rate_scale(*v)),
        dt=integrator.dt,
        params=dict(zip(names, values)),
        queue_scale=scale(lambda *v: compiled.queue_scale(*v)),
    )
