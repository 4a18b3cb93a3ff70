"""Continuation of a model's attractor along one gain, up then down, in one compiled batch.

Every trajectory of the batch is one branch: a fixed value of the other gain and a direction.
The up branch starts at the low end of the range, the down branch at the high end; at each
step every branch moves to its next gain value and keeps integrating from where it is (its
whole delay history kept, so it is a true continuation). A branch whose state diverges is
restarted from the initial condition after that point (its row says ``diverged``). A branch sitting at its
equilibrium gets a small kick first (``kick``, relative to the equilibrium rate), so that an
unstable equilibrium is left within the run rather than kept by exact arithmetic.

Where the up and the down branch settle on different attractors at the same gains (both
settled or one diverged, and their amplitudes apart: :func:`~.measure.disagree`), two
attractors coexist: the point is flagged ``hysteresis``. Runs still growing or decaying at the
end of their window are not compared.
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import ArrayLike

from ..errors import InputError
from ..models import as_model
from ..models.spec import ModelSpec
from ..phaseplane.compiled import compile_model
from ..phaseplane.integrator import BatchIntegrator
from ..phaseplane.setup import make_integrator, own_name, parameter_values
from .boundary import linear_boundary, rightmost_real
from .measure import attractor_interval, disagree, measure_cycles
from .result import BifurcationDiagram, Row

__all__ = ["bifurcation_sweep"]

GAINS = ("alpha", "beta")
RTTS_PER_POINT = 200.0  # run per gain value; the last half is measured
MEASURED_FRACTION = 0.5
KICK = 1e-3  # seed perturbation of the rate, relative to its equilibrium
GROWTH_TOLERANCE = 3e-4  # |envelope rate| per RTT below which a run is settled (3% over 100 RTTs)
EQUILIBRIUM_AMPLITUDE = 1e-4  # half peak-to-peak R/C below this fraction of equilibrium: at the equilibrium
DIVERGED = 50.0  # |R/C| beyond this many times its equilibrium: diverged (restart the branch)
SLACK = 0.1  # relative uncertainty of a settled cycle's amplitude
HYSTERESIS_FLOOR = 2e-3  # attractor intervals must be this far apart (relative to equilibrium R/C)
SETTLED = ("equilibrium", "cycle", "diverged")  # outcomes compared for hysteresis


def _state(amplitude: float, growth: float, finite: bool, peak: float, gamma_eq: float) -> str:
    if not finite or peak > DIVERGED * gamma_eq:
        return "diverged"
    if amplitude < EQUILIBRIUM_AMPLITUDE * gamma_eq:
        return "equilibrium"
    if not np.isfinite(growth) or abs(growth) <= GROWTH_TOLERANCE:
        return "cycle"
    return "growing" if growth > 0 else "decaying"


def bifurcation_sweep(
    model: ModelSpec,
    values: ArrayLike,
    fixed: ArrayLike,
    parameter: str = "alpha",
    rtts: float = RTTS_PER_POINT,
    params: dict[str, float | None] | None = None,
    start: tuple[float | None, float] = (None, 0.0),
    dt: float | None = None,
    kick: float = KICK,
) -> BifurcationDiagram:
    """Continue the attractor of ``model`` over ``values`` of one gain, up and down, for each fixed other gain.

    Parameters
    ----------
    model : ModelSpec
    values : array_like
        The swept gain's values, increasing (dimensionless).
    fixed : array_like
        Values of the other gain; every one is swept in the same batch.
    parameter : {'alpha', 'beta'}
        The swept gain: the model's first or second loop gain, whatever it calls them.
    rtts : float
        Integration per gain value, in the model's time unit (RTTs); the last half is measured.
    params : dict, optional
        Any other declared parameter by name or declared alias (``C`` bit/s, ``d0`` s, ``N``,
        ``T`` s for RCP); the model's own values otherwise (None values are ignored).
    start : (float or None, float)
        Initial normalized rate (None: twice the equilibrium, the thesis' doubled load) and queue
        (in the model's queue unit, C*d0 for RCP; in time units for a model that declares none).
    dt : float, optional
        Integration step (s); the model's default otherwise.
    kick : float
        Seed perturbation of the rate at an equilibrium, relative.

    Returns
    -------
    BifurcationDiagram

    Examples
    --------
    >>> from rcpstab.models import get_model
    >>> d = bifurcation_sweep(get_model("linear"), [1.2, 1.3], [0.3], rtts=60)
    >>> [p["state"] for p in d.points if p["direction"] == "up"]
    ['decaying', 'decaying']
    """
    model = as_model(model)
    if parameter not in GAINS:
        raise InputError(f"swept gain {parameter!r}: choose alpha or beta")
    other = GAINS[1 - GAINS.index(parameter)]
    swept = np.asarray(values, dtype=float)
    fixed_values = np.atleast_1d(np.asarray(fixed, dtype=float))
    if swept.size < 1 or np.any(np.diff(swept) <= 0):
        raise InputError(f"{parameter} values must be increasing")
    if not (math.isfinite(rtts) and rtts >= 20):
        raise InputError(f"rtts per point = {rtts}: must be >= 20")
    given = {k: v for k, v in (params or {}).items() if v is not None}
    # the scales of the run, from what the model declares: its time unit, equilibrium rate and queue unit
    compiled = compile_model(model)
    at = parameter_values(compiled, {**given, parameter: swept[0], other: fixed_values[0]})
    rest = [float(f(*[0.0] * compiled.n_states, *at)) for f in compiled.equilibrium]
    d0 = float(compiled.time_scale(*at))
    queue_unit = float(compiled.queue_scale(*at)) if compiled.judged else d0
    settled = float(compiled.gamma(*rest, *at))
    network = {model.public_name(sym): float(at[list(model.parameters).index(sym)]) for sym in model.configuration_parameters}

    branches = [(f, direction) for f in fixed_values for direction in ("up", "down")]
    other_values = np.array([f for f, _ in branches])
    up = np.array([direction == "up" for _, direction in branches])
    gamma0 = np.full(len(branches), min(1.0, 2.0 * settled) if start[0] is None else start[0])
    q0 = np.full(len(branches), float(start[1]) * queue_unit)

    def gains_at(i: int) -> np.ndarray:
        gains: np.ndarray = np.where(up, swept[i], swept[swept.size - 1 - i])
        return gains

    integrator = make_integrator(model, {**given, parameter: gains_at(0), other: other_values}, {"gamma0": gamma0, "q0": q0}, dt)
    swept_index = compiled.param_names.index(own_name(model, parameter))
    x_start = np.stack(integrator.states, axis=1)
    eq = np.array(
        [np.broadcast_to(f(*[0.0] * compiled.n_states, *integrator.params), (len(branches),)) for f in compiled.equilibrium]
    ).T
    gamma_eq = np.broadcast_to(compiled.gamma(*eq.T, *integrator.params), (len(branches),))
    n_steps = int(round(rtts * d0 / integrator.dt))

    rows: list[Row] = []
    for i in range(swept.size):
        integrator.params[swept_index] = gains_at(i)
        recorded = integrator.run(n_steps, record_every=1)
        states = [recorded[:, :, s] for s in range(compiled.n_states)]
        with np.errstate(all="ignore"):
            gamma = np.asarray(compiled.gamma(*states, *integrator.params)) * np.ones_like(states[0])
            queue = np.asarray(compiled.queue(*states, *integrator.params)) * np.ones_like(states[0]) / queue_unit
        t_rtt = np.arange(1, n_steps + 1) * integrator.dt / d0
        m = measure_cycles(t_rtt, gamma, queue, (1 - MEASURED_FRACTION) * rtts)
        peak = np.nanmax(np.abs(np.nan_to_num(gamma, nan=np.inf)), axis=0)
        for b, (f, direction) in enumerate(branches):
            gain = float(gains_at(i)[b])
            state = _state(m.amplitude[b], m.growth_rtt[b], m.finite[b], peak[b], gamma_eq[b])
            rows.append(
                {
                    parameter: gain,
                    other: float(f),
                    "direction": direction,
                    "step": i,
                    "state": state,
                    "amplitude": float(m.amplitude[b]) if m.finite[b] else math.nan,
                    "amplitude_relative": float(m.amplitude[b] / gamma_eq[b]) if m.finite[b] else math.nan,
                    "amplitude_queue_bdp": float(m.amplitude_queue[b]) if m.finite[b] else math.nan,
                    "period_rtt": float(m.period_rtt[b]),
                    "growth_rtt": float(m.growth_rtt[b]),
                }
            )
        diverged = np.array([r["state"] == "diverged" for r in rows[-len(branches) :]])
        quiet = np.array([r["state"] == "equilibrium" for r in rows[-len(branches) :]])
        _restart(integrator, diverged, x_start)
        _kick(integrator, quiet, kick * eq[:, 0])

    _flag_hysteresis(rows, parameter, other, gamma_eq[0])
    boundaries = {float(f): linear_boundary(model, parameter, swept, **{other: float(f)}) for f in fixed_values}
    for row in rows:
        row["rightmost_real_rtt"] = rightmost_real(model, row["alpha"], row["beta"])
    return BifurcationDiagram(
        model=model,
        parameter=parameter,
        fixed_parameter=other,
        rows=rows,
        boundaries=boundaries,
        gamma_eq=float(gamma_eq[0]),
        settings={
            "rtts_per_point": rtts,
            **network,
            "kick": kick,
            "dt": integrator.dt,
            "start_gamma": float(gamma0[0]),
            "start_queue_bdp": float(start[1]),
        },
    )


def _restart(integrator: BatchIntegrator, mask: np.ndarray, x_start: np.ndarray) -> None:
    """Put the branches in ``mask`` back to the initial condition, with a constant history."""
    if mask.any():
        integrator._x[mask] = x_start[mask]
        integrator._ring_values[mask] = x_start[mask][:, :, None]
        integrator._ring_slopes[mask] = 0.0


def _kick(integrator: BatchIntegrator, mask: np.ndarray, size: np.ndarray) -> None:
    """Nudge the first state (the rate) of the branches in ``mask`` off their equilibrium."""
    if mask.any():
        integrator._x[mask, 0] += size[mask]


def _flag_hysteresis(rows: list[Row], parameter: str, other: str, gamma_eq: float) -> None:
    """Mark both rows of a gain point where the up and down runs settled on different attractors.

    Conservative: a run still growing or decaying says nothing yet, so only settled runs
    (equilibrium, cycle) and diverged ones are compared.
    """
    by_point: dict[tuple[float, float], dict[str, Row]] = {}
    for row in rows:
        by_point.setdefault((row[parameter], row[other]), {})[row["direction"]] = row
    for pair in by_point.values():
        flag = False
        if (
            len(pair) == 2
            and all(r["state"] in SETTLED for r in pair.values())
            and any(r["state"] != "diverged" for r in pair.values())
        ):
            up, down = (
                attractor_interval(r["state"], r["amplitude"] if math.isfinite(r["amplitude"]) else math.inf, SLACK)
                for r in (pair["up"], pair["down"])
            )
            flag = bool(disagree(up, down, HYSTERESIS_FLOOR * gamma_eq))
        for row in pair.values():
            row["hysteresis"] = flag
