"""Periodic orbits of clamped (non-smooth) delay models: shooting on the compiled phase-plane kernel.

A queue clamped at zero, a saturated rate or a finite buffer make the vector field only
piecewise smooth, so :mod:`.periodic`'s collocation (and normal-form theory) does not apply.
Here a periodic orbit is a fixed point of the kernel's own return map: the compiled stepping
loop (:mod:`rcpstab.phaseplane.integrator`, RK4 with a Hermite delay line, clamps applied
exactly) is started from a state z, runs N steps of dt = P/N, and must give z back.

The state z is everything the kernel carries from one step to the next: the current state and
the delay line (values and slopes of the last L steps), of every loop state (a buffer's
overflow counter is not part of the loop and is reset). Values are divided by each state's
scale (its equilibrium, or the queue unit), slopes are derivatives per time unit on the same
scale, so every unknown is O(1). The step dt = P/N follows the unknown period, so the same z
describes the orbit at any P (the delay line then covers a different span of time: the
delayed reads move with P, smoothly, because the Hermite interpolation does).

Newton solves F(z, P, gain) = z with an integral phase condition (against the previous
orbit's derivative) and a pseudo-arclength condition, so folds are passed. The Jacobian is by
forward finite differences, all columns in one compiled batch. The map is only piecewise
smooth (a trajectory entering or leaving the clamp at a step boundary, the delayed read
switching stencil), so the difference step must stay well above the size of those kinks'
effect while being small against the orbit: :data:`FD_EPS` = 1e-6 of the scale (the kernel's
rounding is ~1e-15 of the map, its own truncation error ~1e-7 of the amplitude at 20 steps per
delay does not enter: the map differentiated *is* the discrete kernel). The multipliers are
checked to be independent of the step (1e-5 and 1e-7 give the same leading multiplier to
2e-3 on a clamped orbit in the tests). Forward differences keep a clamped state at or above its bound.
A continuation step is halved when the branch's secant turns by more than ~37 degrees (a long
step can land on another branch), except below a quarter of the proposed step: a clamped
branch is only piecewise smooth.

The Floquet multipliers are the eigenvalues of dF/dz; one is the trivial multiplier 1 (time
shift), the orbit is stable when every other one is inside the unit circle.

A sampled model (a rate held between updates) is refused: its update grid is fixed in time
while the cycle's period is not a whole number of updates, so its attractor is an invariant
circle of the update map, not a periodic orbit of the kernel (use the model with the
update continuous in time, e.g. :data:`RCP_CLAMPED`, and compare by simulation).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from typing import TYPE_CHECKING, Any, Literal, overload

import numpy as np
from numpy.typing import ArrayLike

from ..errors import InputError
from ..models import as_model, rcp
from ..phaseplane.compiled import compile_model
from ..phaseplane.integrator import BatchIntegrator
from ..phaseplane.setup import make_integrator, own_name, parameter_values
from .branch_points import point_dicts
from .folds import locate_fold
from .measure import measure_cycles

if TYPE_CHECKING:
    from ..models.spec import ModelSpec

__all__ = [
    "KernelOrbitSystem",
    "KernelOrbit",
    "KernelBranch",
    "RCP_CLAMPED",
    "continue_kernel_orbits",
    "equilibrium_state",
    "orbit_from_simulation",
    "ray_orbit",
    "solve_kernel_orbit",
    "state_from_profile",
]

FD_EPS = 1e-6  # forward-difference step (scaled units): above the map's kinks, below the orbit's scale
NEWTON_TOL = 1e-9  # weighted RMS Newton step at which a solve has converged
NEWTON_ITER = 10
STEPS_PER_DELAY = 20  # steps per longest delay at the starting period (the phase plane's default)
HISTORY_MARGIN = 1.5  # the delay line covers this many times the delay at the start (the period may grow)
START_STEP_LINES = 64  # the injected state is laid at step 64 L (far from t = 0 and its breakpoints)

RCP_CLAMPED = dataclasses.replace(
    rcp.MODEL,
    name="rcp-clamped",
    title="RCP eqs. 5.1-5.4 with the rate law continuous in time (queue clamped in [0, buffer], rate saturated)",
    sampled={},
)
"""``rcp`` with its rate updated continuously (R(t - T) a genuine delay): clamp, buffer and saturation kept.

The only difference from ``rcp`` is the update grid; simulation of both measures what the
grid changes (the cycles of ``rcp`` itself are invariant circles of its update map)."""


class KernelOrbitSystem:
    """A non-sampled model's compiled kernel as a map z -> z over one period, with one gain free.

    Parameters
    ----------
    model : ModelSpec or str
        Any model without a sampled state (clamps, saturations and buffers allowed).
    parameter : {'alpha', 'beta'}
        The free gain.
    N : int
        Steps per period (dt = P/N follows the period).
    period : float
        The period (time units, RTTs for RCP) the delay line is sized for.
    **values
        Every other parameter by name (SI units); defaults from the model.
    """

    def __init__(
        self, model: ModelSpec | str, parameter: str = "alpha", N: int | None = None, period: float = 4.0, **values: float
    ) -> None:
        model = as_model(model)
        if model.sampled:
            raise InputError(
                f"model {model.name!r} has a sampled state: its cycles are invariant circles of the "
                "update map, not periodic orbits of the kernel (use its continuous-update variant)"
            )
        self.model = model
        self.parameter = parameter
        self.values = {k: v for k, v in values.items() if k != parameter}
        self.compiled = c = compile_model(model)
        self.gain_index = c.param_names.index(own_name(model, parameter))
        p = parameter_values(c, {**self.values, parameter: 1.0})
        self.params = [float(v) for v in p]
        self.time_unit = float(c.time_scale(*self.params))
        overflow = {model.states.index(s) for s in model.overflow_states}
        self.loop = [i for i in range(c.n_states) if i not in overflow]
        eq = np.array([float(f(*[0.0] * c.n_states, *self.params)) for f in c.equilibrium])
        queue_unit = float(c.queue_scale(*self.params)) if c.judged else 1.0
        self.scale = np.where(np.abs(eq) > 0, np.abs(eq), queue_unit)
        self.delay = min(float(d.delay(*self.params)) for d in c.delayed) / self.time_unit
        longest = max(float(d.delay(*self.params)) for d in c.delayed) / self.time_unit
        self.longest = longest
        # 20 steps per longest delay (the phase plane's default), never a step longer than the shortest delay
        self.N = int(N or math.ceil(max(STEPS_PER_DELAY / longest, 1.5 / self.delay) * period))
        self.L = int(math.ceil(HISTORY_MARGIN * longest * self.N / period)) + 4
        self.size = len(self.loop) * (1 + 2 * self.L)

    # ---- the state vector z <-> the kernel's arrays ----
    def _load(self, integ: BatchIntegrator, Z: np.ndarray, dt: float) -> None:
        """Lay the state vectors Z (size, B) into the integrator at step START_STEP_LINES * L."""
        L, B = self.L, Z.shape[1]
        blocks = Z.reshape(len(self.loop), 1 + 2 * L, B)
        per_step = dt / self.time_unit
        integ.length = L
        integ._ring_values = np.zeros((B, self.compiled.n_states, L))
        integ._ring_slopes = np.zeros((B, self.compiled.n_states, L))
        integ._x = np.zeros((B, self.compiled.n_states))
        for j, i in enumerate(self.loop):
            s = self.scale[i]
            integ._x[:, i] = blocks[j, 0] * s
            integ._ring_values[:, i, :] = blocks[j, 1 : L + 1].T * s
            integ._ring_slopes[:, i, :] = blocks[j, L + 1 :].T * s * per_step
        integ._x0 = integ._x.copy()
        integ.k = START_STEP_LINES * L  # slot j holds step k - L + j

    def _read(self, integ: BatchIntegrator, dt: float) -> np.ndarray:
        """The integrator's state as vectors (size, B), the delay line in time order."""
        L = self.L
        shift = integ.k % L  # slot of step k - L
        order = (shift + np.arange(L)) % L
        per_step = dt / self.time_unit
        out = []
        for i in self.loop:
            s = self.scale[i]
            out.append(
                np.vstack(
                    [
                        integ._x[:, i][None, :] / s,
                        integ._ring_values[:, i, order].T / s,
                        integ._ring_slopes[:, i, order].T / (s * per_step),
                    ]
                )
            )
        return np.vstack(out)

    @overload
    def run(
        self, Z: np.ndarray, period: float, gain: ArrayLike, steps: int | None = None, record: Literal[False] = False
    ) -> np.ndarray: ...

    @overload
    def run(
        self, Z: np.ndarray, period: float, gain: ArrayLike, steps: int | None, record: Literal[True]
    ) -> tuple[np.ndarray, np.ndarray]: ...

    @overload
    def run(
        self, Z: np.ndarray, period: float, gain: ArrayLike, steps: int | None = None, *, record: Literal[True]
    ) -> tuple[np.ndarray, np.ndarray]: ...

    def run(
        self, Z: np.ndarray, period: float, gain: ArrayLike, steps: int | None = None, record: bool = False
    ) -> np.ndarray | tuple[np.ndarray, np.ndarray]:
        """Integrate states Z (size, B) over ``steps`` (default N) steps of dt = period/N.

        Returns the final states (size, B) and, with ``record``, the normalised rate (R/C for
        RCP) after every step, shape (steps, B).
        """
        B = Z.shape[1]
        dt = period * self.time_unit / self.N
        params: list[Any] = list(self.params)
        params[self.gain_index] = np.broadcast_to(np.asarray(gain, dtype=float), (B,)).copy()
        eq = [np.full(B, self.scale[i]) for i in range(self.compiled.n_states)]
        if not (0 < dt <= self.delay * self.time_unit) or not math.isfinite(dt):
            # a step past the shortest delay: no kernel run (the Newton step is refused and halved)
            nan = np.full((self.size, B), np.nan)
            return (nan, np.full((steps or self.N, B), np.nan)) if record else nan
        integ = BatchIntegrator(self.compiled, params, eq, dt)
        self._load(integ, Z, dt)
        recorded = integ.run(steps or self.N, record_every=1 if record else 0)
        out = self._read(integ, dt)
        if not record:
            return out
        states = [recorded[:, :, s] for s in range(self.compiled.n_states)]
        gamma = np.asarray(self.compiled.gamma(*states, *integ.params)) * np.ones_like(states[0])
        return out, gamma

    def value_rows(self) -> np.ndarray:
        """Mask of the entries of z that are delay-line values (not slopes, not the current state)."""
        L = self.L
        one = np.concatenate([[False], np.ones(L, bool), np.zeros(L, bool)])
        return np.tile(one, len(self.loop))

    def slope_of_values(self, z: np.ndarray) -> np.ndarray:
        """The time derivative of each value entry (its stored slope), zero elsewhere: the phase row."""
        L = self.L
        blocks = z.reshape(len(self.loop), 1 + 2 * L)
        row = np.zeros_like(blocks)
        row[:, 1 : L + 1] = blocks[:, L + 1 :]
        return row.ravel()


@dataclass
class KernelOrbit:
    """One periodic orbit of the kernel.

    Attributes
    ----------
    gain : float
    amplitude : float
        Half peak-to-peak of the normalised rate (R/C for RCP, absolute) over one period.
    period : float
        Period, time units (RTTs for RCP).
    stable : bool
        Every non-trivial Floquet multiplier inside the unit circle.
    max_multiplier : float
        Largest modulus among the non-trivial multipliers.
    multipliers : ndarray
        Leading multipliers by modulus (trivial one included).
    z : ndarray
        The kernel state on the orbit (scaled; see :class:`KernelOrbitSystem`).
    gamma_min, gamma_max : float
        Extremes of the normalised rate over the period.
    """

    gain: float
    amplitude: float
    period: float
    stable: bool
    max_multiplier: float
    multipliers: np.ndarray = field(repr=False)
    z: np.ndarray = field(repr=False)
    gamma_min: float = math.nan
    gamma_max: float = math.nan


Extra = Callable[[np.ndarray], np.ndarray]
"""The continuation's extra equation on the columns (z, P, gain) of a batch: one residual per column."""


def _residual_batch(
    system: KernelOrbitSystem,
    Z: np.ndarray,
    P: float,
    G: np.ndarray,
    reference_row: np.ndarray,
    z_ref: np.ndarray,
    extra: Callable[[np.ndarray, float, np.ndarray], np.ndarray],
) -> np.ndarray:
    """Residuals for state columns Z with one period P and gains G (B,)."""
    out = system.run(Z, P, G)
    phase = reference_row @ (Z - z_ref[:, None])
    return np.vstack([out - Z, phase[None, :], extra(Z, P, G)[None, :]])


def _newton(
    system: KernelOrbitSystem, y: np.ndarray, reference: np.ndarray, extra: Extra
) -> tuple[np.ndarray, bool, np.ndarray | None]:
    """Newton on (z, P, gain); returns (y, converged, dF/dz at the solution)."""
    n = system.size
    row = system.slope_of_values(reference)
    for _ in range(NEWTON_ITER):
        z, P, g = y[:n], y[n], y[n + 1]
        Z = np.repeat(z[:, None], n + 2, axis=1)
        Z[np.arange(n), np.arange(n)] += FD_EPS
        G = np.full(n + 2, g)
        G[n + 1] += FD_EPS  # column n: base, n+1: gain
        R = _residual_batch(
            system, Z, P, G, row, reference, lambda Zc, Pc, Gc: extra(np.vstack([Zc, np.full((1, Zc.shape[1]), Pc), Gc[None, :]]))
        )
        Rp = _residual_batch(
            system,
            z[:, None],
            P + FD_EPS,
            np.array([g]),
            row,
            reference,
            lambda Zc, Pc, Gc: extra(np.vstack([Zc, [[Pc]], Gc[None, :]])),
        )
        if not (np.all(np.isfinite(R)) and np.all(np.isfinite(Rp))):
            return y, False, None
        base = R[:, n]
        J = np.empty((n + 2, n + 2))
        J[:, :n] = (R[:, :n] - base[:, None]) / FD_EPS
        J[:, n] = (Rp[:, 0] - base) / FD_EPS
        J[:, n + 1] = (R[:, n + 1] - base) / FD_EPS
        step = np.linalg.solve(J, -base)
        y = y + step
        if np.linalg.norm(step) / math.sqrt(n) < NEWTON_TOL:
            return y, True, J[:n, :n] + np.eye(n)
    return y, False, None


def _orbit(system: KernelOrbitSystem, y: np.ndarray, monodromy: np.ndarray) -> KernelOrbit:
    n = system.size
    mu = np.linalg.eigvals(monodromy)
    mu = mu[np.argsort(-np.abs(mu))]
    nontrivial = np.delete(mu, np.argmin(np.abs(mu - 1)))
    biggest = float(np.max(np.abs(nontrivial)))
    _, gamma = system.run(y[:n, None], y[n], np.array([y[n + 1]]), record=True)
    lo, hi = float(gamma.min()), float(gamma.max())
    return KernelOrbit(
        gain=float(y[n + 1]),
        amplitude=0.5 * (hi - lo),
        period=float(y[n]),
        stable=biggest < 1.0,
        max_multiplier=biggest,
        multipliers=mu[:6],
        z=y[:n].copy(),
        gamma_min=lo,
        gamma_max=hi,
    )


def solve_kernel_orbit(
    system: KernelOrbitSystem, z: np.ndarray, period: float, gain: float, free_gain: bool = False
) -> KernelOrbit | None:
    """Newton for the orbit near state ``z`` and ``period``; None if it fails.

    The gain is held, or, with ``free_gain``, left free while the current value of the first
    state stays at ``z``'s (which fixes the orbit's size: the way through a vertical branch,
    such as the continuum of cycles of a linear or positively homogeneous model at its
    critical gain, or to find on which side of a Hopf point a small orbit lives).
    """
    y = np.concatenate([z, [period, gain]])
    if free_gain:

        def extra(Y: np.ndarray) -> np.ndarray:
            held: np.ndarray = Y[0] - z[0]
            return held

    else:

        def extra(Y: np.ndarray) -> np.ndarray:
            held: np.ndarray = Y[-1] - gain
            return held

    y, ok, M = _newton(system, y, z, extra)
    return _orbit(system, y, M) if ok and M is not None else None


def state_from_profile(
    system: KernelOrbitSystem, profile: np.ndarray, period: float, scale: np.ndarray | None = None
) -> np.ndarray:
    """The kernel state z of a periodic profile (n states x M samples over one period, phase 0 at sample 0).

    Values and derivatives on the delay line come from the profile's Fourier series (band-limited);
    ``scale`` is the profile's own state scale (default: the system's).
    """
    n, M = profile.shape
    scale = system.scale if scale is None else scale
    spectrum = np.fft.rfft(profile, axis=1) / M
    k = np.arange(spectrum.shape[1])
    weight = np.where((k == 0) | ((M % 2 == 0) & (k == M // 2)), 1.0, 2.0)
    times = np.arange(-system.L, 1) / system.N  # fractions of the period, oldest first
    phase = np.exp(2j * np.pi * np.outer(k, times))
    values = np.real((spectrum * weight) @ phase)
    slopes = np.real((spectrum * weight * 2j * np.pi * k) @ phase) / period
    out = []
    for i in system.loop:
        r = scale[i] / system.scale[i]
        out.append(np.concatenate([[values[i, -1] * r], values[i, :-1] * r, slopes[i, :-1] * r]))
    return np.concatenate(out)


def orbit_from_simulation(
    model: ModelSpec | str,
    gain: float,
    parameter: str = "alpha",
    rtts: float = 400.0,
    start: dict[str, float] | None = None,
    N: int | None = None,
    **values: float,
) -> tuple[KernelOrbitSystem, KernelOrbit | None]:
    """Simulate to the attractor at ``gain``, then polish the settled cycle into a kernel orbit.

    The period is measured on the simulation (default step); the kernel system is sized for it
    and the run repeated with dt = P/N, so the starting state lies on the solver's grid.

    Returns
    -------
    system : KernelOrbitSystem
    orbit : KernelOrbit or None
        None when the run settles on no cycle or Newton fails.
    """
    model = as_model(model)
    start = start or {"gamma0": 0.5}
    integ = make_integrator(model, {**values, parameter: gain}, start)
    d0 = float(integ.model.time_scale(*integ.params))
    n = int(round(rtts * d0 / integ.dt))
    rec = integ.run(n, record_every=1)
    states = [rec[:, :, s] for s in range(integ.model.n_states)]
    gamma = np.asarray(integ.model.gamma(*states, *integ.params)) * np.ones_like(states[0])
    t = np.arange(1, n + 1) * integ.dt / d0
    m = measure_cycles(t, gamma, 0 * gamma, 0.75 * rtts)
    period = float(m.period_rtt[0])
    system = KernelOrbitSystem(model, parameter, N=N, period=period if math.isfinite(period) else 4.0, **values)
    if not math.isfinite(period):
        return system, None
    dt = period * system.time_unit / system.N
    integ = make_integrator(model, {**values, parameter: gain}, start, dt=dt)
    integ.run(int(round(rtts * d0 / dt)))
    return system, solve_kernel_orbit(system, _state_from(system, integ, dt), period, gain)


HOMOGENEITY_TOLERANCE = 1e-6  # relative defect of the orbit scaled by 2 below which (or 10x the orbit's own) it is a ray


def ray_orbit(
    model: ModelSpec | str, gain: float, parameter: str = "alpha", rtts: float = 200.0, N: int | None = None, **values: float
) -> tuple[KernelOrbitSystem, KernelOrbit, bool] | None:
    """The orbit of a model whose oscillation grows without settling, with the gain left free.

    For a positively homogeneous model (eq. 5.14: linear right-hand sides and a clamp at the
    equilibrium) the orbits come as a ray at one critical gain: every multiple of an orbit about
    the equilibrium is an orbit. The run at ``gain`` (past that gain, so growing) gives the
    period and the shape; Newton with the gain free finds the critical gain.

    Returns
    -------
    (system, orbit, homogeneous) or None
        ``homogeneous``: the orbit scaled by 2 about the equilibrium is again a fixed point
        (relative defect below :data:`HOMOGENEITY_TOLERANCE` or ten times the orbit's own). None when the run does not
        oscillate or Newton fails.
    """
    model = as_model(model)
    integ = make_integrator(model, {**values, parameter: gain}, {"gamma0": 0.5})
    d0 = float(integ.model.time_scale(*integ.params))
    n = int(round(rtts * d0 / integ.dt))
    rec = integ.run(n, record_every=1)
    states = [rec[:, :, s] for s in range(integ.model.n_states)]
    with np.errstate(all="ignore"):
        gamma = np.asarray(integ.model.gamma(*states, *integ.params)) * np.ones_like(states[0])
    if not np.all(np.isfinite(gamma)):
        return None
    m = measure_cycles(np.arange(1, n + 1) * integ.dt / d0, gamma, 0 * gamma, 0.5 * rtts)
    period = float(m.period_rtt[0])
    if not math.isfinite(period):
        return None
    system = KernelOrbitSystem(model, parameter, N=N, period=period, **values)
    dt = period * system.time_unit / system.N
    integ = make_integrator(model, {**values, parameter: gain}, {"gamma0": 0.5}, dt=dt)
    integ.run(int(round(rtts * d0 / dt)))
    orbit = solve_kernel_orbit(system, _state_from(system, integ, dt), period, gain, free_gain=True)
    if orbit is None:
        return None
    eq = equilibrium_state(system, orbit.gain)
    relative = []
    for z in (orbit.z, eq + 2 * (orbit.z - eq)):
        defect = np.abs(system.run(z[:, None], orbit.period, np.array([orbit.gain]))[:, 0] - z).max()
        relative.append(defect / np.abs(z - eq).max())
    # the doubled orbit is as much a fixed point as the orbit itself (Newton leaves ~1e-6 at a clamp)
    return system, orbit, bool(relative[1] < max(HOMOGENEITY_TOLERANCE, 10 * relative[0]))


def equilibrium_state(system: KernelOrbitSystem, gain: float) -> np.ndarray:
    """The equilibrium as a kernel state z (scaled; slopes zero)."""
    p = list(system.params)
    p[system.gain_index] = gain
    c = system.compiled
    out = []
    for i in system.loop:
        e = float(c.equilibrium[i](*[0.0] * c.n_states, *p)) / system.scale[i]
        out.append(np.concatenate([[e], np.full(system.L, e), np.zeros(system.L)]))
    return np.concatenate(out)


def _state_from(system: KernelOrbitSystem, integ: BatchIntegrator, dt: float) -> np.ndarray:
    """A running integrator's state as one vector z (the slots older than its delay line repeat its oldest)."""
    old = integ.length
    steps = np.maximum(integ.k - system.L + np.arange(system.L), integ.k - old) % old
    per_step = dt / system.time_unit
    out = []
    for i in system.loop:
        s = system.scale[i]
        out.append(
            np.concatenate(
                [[integ._x[0, i] / s], integ._ring_values[0, i, steps] / s, integ._ring_slopes[0, i, steps] / (s * per_step)]
            )
        )
    return np.concatenate(out)


@dataclass
class KernelBranch:
    """A branch of kernel orbits (continuation order) with its folds.

    Attributes
    ----------
    parameter : str
    points : list of KernelOrbit
    folds : list of dict
        ``gain``, ``amplitude`` (vertex of the parabola through the three points at the turn),
        and whether the orbits before and after the turn are stable.
    stop : str
        Why the continuation ended.
    """

    parameter: str
    points: list[KernelOrbit]
    folds: list[dict[str, float | bool]]
    stop: str

    def as_dict(self) -> dict[str, Any]:
        return {
            "parameter": self.parameter,
            "points": point_dicts(self.parameter, self.points),
            "folds": self.folds,
            "stop": self.stop,
        }


def _weights(system: KernelOrbitSystem) -> np.ndarray:
    return np.concatenate([np.full(system.size, 1 / math.sqrt(system.size)), [1.0, 1.0]])


def _y(p: KernelOrbit) -> np.ndarray:
    return np.concatenate([p.z, [p.period, p.gain]])


def _arclength_step(
    system: KernelOrbitSystem, before: KernelOrbit, last: KernelOrbit, h: float, min_step: float = 1e-5
) -> tuple[KernelOrbit, float] | None:
    w = _weights(system)
    a, b = _y(before), _y(last)
    tangent = (b - a) * w
    tangent /= np.linalg.norm(tangent)
    while h > min_step:
        predicted = b + h * tangent / w

        def extra(Y: np.ndarray, predicted: np.ndarray = predicted) -> np.ndarray:
            along: np.ndarray = ((Y - predicted[:, None]) * w[:, None]).T @ tangent
            return along

        y, ok, M = _newton(system, predicted.copy(), last.z, extra)
        if ok and M is not None:
            return _orbit(system, y, M), h
        h /= 2
    return None


def continue_kernel_orbits(
    system: KernelOrbitSystem,
    first: KernelOrbit,
    direction: float,
    steps: int = 40,
    step: float = 0.02,
    max_step: float = 0.2,
    gain_range: tuple[float, float] = (0.0, math.inf),
    min_amplitude: float = 0.0,
    max_amplitude: float = math.inf,
) -> KernelBranch:
    """Pseudo-arclength continuation from ``first`` with the gain moving in ``direction`` (+1 or -1) at first.

    Parameters
    ----------
    system : KernelOrbitSystem
    first : KernelOrbit
    direction : float
        Sign of the first gain step.
    steps : int
        Continuation steps.
    step, max_step : float
        First and largest arclength step (weighted units; the gain counts 1 per unit).
    gain_range : (float, float)
        Stop when the gain leaves it.
    min_amplitude, max_amplitude : float
        Stop when the amplitude (absolute R/C) leaves these bounds.

    Returns
    -------
    KernelBranch
    """
    second = solve_kernel_orbit(system, first.z, first.period, first.gain + direction * step / 4)
    if second is None:
        raise RuntimeError("Newton failed on the second orbit of the branch")
    points = [first, second]
    stop, h = "steps", step
    for _ in range(steps):
        taken = _smooth_step(system, points[-2], points[-1], h)
        if taken is None:
            taken = _over_kink(system, points, step)
        if taken is None:
            stop = "step size underflow"
            break
        point, h = taken
        points.append(point)
        h = min(max_step, 1.4 * h)
        if not gain_range[0] <= point.gain <= gain_range[1]:
            stop = "gain range"
            break
        if not min_amplitude <= point.amplitude <= max_amplitude:
            stop = "amplitude bound"
            break
        if system.longest * system.N / point.period + 3 > system.L - 1:
            stop = "period too short for the delay line"
            break
    return KernelBranch(parameter=system.parameter, points=points, folds=_folds(system, points), stop=stop)


MIN_COSINE = 0.8  # successive secants of the branch must turn by less than ~37 degrees (else the step halves)
FOLD_STEPS = 12  # a turn is passed again with steps this many times shorter than the coarse ones


def _over_kink(system: KernelOrbitSystem, points: list[KernelOrbit], step: float) -> tuple[KernelOrbit, float] | None:
    """After short steps failed at a kink of a clamped branch (the last secant is then noisy too): one
    step of the initial length along the secant from a point at least that far back, kept only if its
    amplitude is within a factor 2 of the last one (not the equilibrium, not another branch)."""
    w = _weights(system)
    last = points[-1]
    back = next((p for p in reversed(points[:-1]) if np.linalg.norm((_y(p) - _y(last)) * w) >= step), points[0])
    taken = _arclength_step(system, back, last, step, min_step=step / 8)
    if taken is None or not 0.5 * last.amplitude <= taken[0].amplitude <= 2 * last.amplitude:
        return None
    return taken


def _smooth_step(
    system: KernelOrbitSystem, before: KernelOrbit, last: KernelOrbit, h: float, min_step: float = 1e-5
) -> tuple[KernelOrbit, float] | None:
    """An arclength step whose secant turns little from the previous one (a long step can jump branches)."""
    w = _weights(system)
    previous = (_y(last) - _y(before)) * w
    previous /= np.linalg.norm(previous)
    # a clamped branch is only piecewise smooth (the clamp's timing jumps a step), so the turn is
    # not asked of steps 4 times shorter than the one proposed: they are taken as they come
    # (and where shorter steps fail at such a kink, the first, longer step is kept: it jumped over it)
    accept_below = h / 4
    first: tuple[KernelOrbit, float] | None = None
    while h > min_step:
        taken = _arclength_step(system, before, last, h, min_step)
        if taken is None:
            return first
        point, h_taken = taken
        first = first or taken
        new = (_y(point) - _y(last)) * w
        if h_taken <= accept_below or new @ previous >= MIN_COSINE * np.linalg.norm(new):
            return point, h_taken
        h = h_taken / 2
    return first


def _folds(system: KernelOrbitSystem, points: list[KernelOrbit]) -> list[dict[str, float | bool]]:
    """Turning points of the gain: each turn passed again with short steps, then a parabola's vertex."""
    g = np.array([p.gain for p in points])
    d = np.diff(g)
    out: list[dict[str, float | bool]] = []
    for i in range(1, d.size):
        if d[i] == 0 or np.sign(d[i]) == np.sign(d[i - 1]):
            continue
        w = _weights(system)
        span = float(np.linalg.norm((_y(points[i + 1]) - _y(points[i - 1])) * w))
        nudged = solve_kernel_orbit(
            system, points[i - 1].z, points[i - 1].period, points[i - 1].gain + 1e-3 * span * np.sign(d[i - 1])
        )
        fine = [points[i - 1], points[i] if nudged is None else nudged]
        out.append(
            locate_fold(
                fine,
                partial(_smooth_step, system, h=span / FOLD_STEPS),
                4 * FOLD_STEPS,
                points[i - 1 : i + 2],
                turn="last",
                clip=True,
            )
        )
    return out
