"""Periodic orbits of a smooth delay model, stable and unstable, continued in one gain.

A simulation only ever lands on stable cycles; the unstable cycle of a subcritical Hopf point
(and the fold where it meets a stable one) needs a boundary-value solver. This module
discretises one period of the orbit on N equal steps (time in the model's unit, RTTs for RCP)
and asks that one classical RK4 step carry each grid value to the next, cyclically (multiple
shooting with one RK4 step per interval). Delayed values are read from the periodic profile
itself by 4-point Lagrange interpolation (4th order, like the step), so a solution of the
discrete problem is, to rounding, a fixed point of the discrete period map that integrates
the same scheme sequentially from its own history. Unknowns: the profile, the period P and the
gain; equations: the N*n step defects, an integral phase condition against the previous orbit,
and either the gain fixed (first points) or a pseudo-arclength condition (continuation), so
folds are passed. Newton uses a finite-difference Jacobian, all columns in one NumPy batch.

Stability comes from the linearised period map: the history segment the scheme reads (the
last L grid values, L covering the longest delay and the stencil) is integrated over one
period, and the Jacobian of that map (finite differences, one batch) has the Floquet
multipliers as eigenvalues. One is the trivial multiplier 1 (phase shift); the orbit is stable
when every other one lies inside the unit circle.

The branch starts at a Hopf point (:func:`~.lyapunov.hopf_point`) with the normal form's
cycle x = x* + 2 Re(z q e^{i w t}), abs(z)**2 = -Re(lambda') (mu - mu*) / Re(c1) as the first
guess. Only smooth models (no clamp, saturation or sampled state: :mod:`.smooth`, the
textbook equations) are accepted.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import partial

import numpy as np

from ..errors import InputError
from ..models.spec import ModelSpec
from ..phaseplane.compiled import compile_model
from ..phaseplane.setup import own_name, parameter_values
from .branch_points import point_dicts
from .folds import locate_fold
from .lyapunov import HopfPoint, _full, _Numeric, hopf_point

__all__ = ["OrbitBranch", "OrbitPoint", "PeriodicSystem", "continue_from_hopf", "floquet_multipliers", "solve_orbit"]

NEWTON_TOL = 1e-9  # Newton stops when the step's weighted norm is below this (scaled states, O(1))
NEWTON_ITER = 12
FD_EPS = 1e-7  # finite-difference step for the Jacobians (scaled states are O(1))
STEPS_PER_DELAY = 2.2  # the shortest delay spans at least this many steps, so the stencil stays causal


def _lagrange_weights(theta: float) -> np.ndarray:
    """Weights of the cubic through nodes -1, 0, 1, 2 evaluated at ``theta``."""
    return np.array(
        [
            -theta * (theta - 1) * (theta - 2) / 6,
            (theta + 1) * (theta - 1) * (theta - 2) / 2,
            -(theta + 1) * theta * (theta - 2) / 2,
            (theta + 1) * theta * (theta - 1) / 6,
        ]
    )


class PeriodicSystem:
    """A smooth delay model's vector field in scaled form, with one gain free.

    Time is in the model's unit (``time_scale``, one RTT d0 for RCP); each state is divided by
    its scale (abs of its equilibrium value, or the queue unit for a state at rest at zero), so
    every unknown of the solver is O(1).

    Parameters
    ----------
    model : ModelSpec
        A smooth model (no clamp, saturation or sampled state).
    parameter : {'alpha', 'beta'}
        The free gain.
    **values
        Every other parameter by name (SI units); defaults from the model.
    """

    def __init__(self, model: ModelSpec, parameter: str = "alpha", **values):
        if model.clamps or model.saturations or model.sampled:
            raise InputError(
                f"model {model.name!r} is not smooth (clamp, saturation or sampling): "
                "periodic-orbit continuation needs a smooth delay model"
            )
        self.model = model
        self.parameter = parameter
        self.values = {k: v for k, v in values.items() if k != parameter}
        self.compiled = c = compile_model(model)
        self.n = c.n_states
        self.gain_index = c.param_names.index(own_name(model, parameter))
        p = parameter_values(c, {**self.values, parameter: 1.0})
        self.params = [float(v) for v in p]
        self.time_unit = float(c.time_scale(*self.params))
        eq = np.array([float(f(*[0.0] * self.n, *self.params)) for f in c.equilibrium])
        queue_unit = float(c.queue_scale(*self.params)) if c.judged else 1.0
        self.scale = np.where(np.abs(eq) > 0, np.abs(eq), queue_unit)
        self.delay_state = np.array([d.state_index for d in c.delayed])
        self.delay = np.array([float(d.delay(*self.params)) / self.time_unit for d in c.delayed])
        if self.delay.size == 0 or np.any(self.delay <= 0):
            raise InputError(f"model {model.name!r}: every delayed term needs a positive delay")

    def equilibrium(self, gain: float) -> np.ndarray:
        """Scaled equilibrium state at ``gain``."""
        p = list(self.params)
        p[self.gain_index] = gain
        return np.array([float(f(*[0.0] * self.n, *p)) for f in self.compiled.equilibrium]) / self.scale

    def field(self, u, delayed, gain):
        """Scaled right-hand side: u (n, ...), delayed (m, ...), gain broadcastable; per time unit."""
        p = list(self.params)
        p[self.gain_index] = gain
        x = [u[i] * self.scale[i] for i in range(self.n)]
        xd = [delayed[j] * self.scale[self.delay_state[j]] for j in range(self.delay.size)]
        return np.stack(
            [
                np.broadcast_to(f(*x, *xd, *p), np.shape(u[0])) * (self.time_unit / self.scale[i])
                for i, f in enumerate(self.compiled.rhs)
            ]
        )

    def gamma(self, u, gain) -> np.ndarray:
        """The model's normalised rate (R/C for RCP) of scaled states ``u`` (n, ...)."""
        p = list(self.params)
        p[self.gain_index] = gain
        return np.broadcast_to(self.compiled.gamma(*[u[i] * self.scale[i] for i in range(self.n)], *p), np.shape(u[0]))


@dataclass
class _Stencil:
    """Which grid nodes the delayed reads of stage c (0, 1/2, 1) of step k use: offsets from k per delay.

    The nodes are chosen once per solve (from the predicted period) and kept, so that the
    residual stays smooth in the period; the weights follow the period (:meth:`weights_at`).
    """

    offsets: np.ndarray  # (3 stages, m delays, 4) integer offsets from k
    reach: int  # oldest offset (positive number of steps back)

    @classmethod
    def build(cls, delays: np.ndarray, h: float) -> _Stencil:
        offsets = np.zeros((3, delays.size, 4), dtype=int)
        for s, c in enumerate((0.0, 0.5, 1.0)):
            for j, tau in enumerate(delays):
                base = math.ceil(c - tau / h) - 1  # an exact grid hit is the right node, never a future one
                offsets[s, j] = base + np.arange(-1, 3)
        if offsets.max() > 0:
            raise InputError(f"step {h:g} too long for the shortest delay {delays.min():g}: the scheme is not causal")
        return cls(offsets, int(-offsets.min()))

    def weights_at(self, delays: np.ndarray, h) -> np.ndarray:
        """Weights for step(s) ``h`` with the nodes kept (smooth in h, which the Newton unknown P moves).

        Shape (3, m, 4) for a scalar h, (3, m, 4, B) for an array of B steps.
        """
        return np.array(
            [
                [_lagrange_weights(c - tau / h - self.offsets[s, j, 1]) for j, tau in enumerate(delays)]
                for s, c in enumerate((0.0, 0.5, 1.0))
            ]
        )


def _defects(system: PeriodicSystem, stencil: _Stencil, U, P, gain):
    """RK4 step defects of periodic profiles U (n, N, B) with periods P (B,) and gains (B,): (n, N, B)."""
    n, N, B = U.shape
    h = P / N
    # delayed reads: the weights depend on h (hence on P, per batch column), the nodes do not
    w = stencil.weights_at(system.delay, h)
    reads = [
        np.stack(
            [
                sum(w[s, j, i] * np.roll(U[state], -stencil.offsets[s, j, i], axis=0) for i in range(4))
                for j, state in enumerate(system.delay_state)
            ]
        )
        for s in range(3)
    ]
    k1 = system.field(U, reads[0], gain)
    k2 = system.field(U + 0.5 * h * k1, reads[1], gain)
    k3 = system.field(U + 0.5 * h * k2, reads[1], gain)
    k4 = system.field(U + h * k3, reads[2], gain)
    return np.roll(U, -1, axis=1) - U - h / 6 * (k1 + 2 * k2 + 2 * k3 + k4)


@dataclass
class OrbitPoint:
    """One periodic orbit on a branch.

    Attributes
    ----------
    gain : float
        The free gain's value.
    amplitude : float
        Half peak-to-peak of the model's normalised rate (R/C for RCP, absolute units).
    period : float
        Period in the model's time unit (RTTs for RCP).
    stable : bool
        Every non-trivial Floquet multiplier inside the unit circle.
    max_multiplier : float
        Largest modulus among the non-trivial Floquet multipliers.
    multipliers : ndarray
        The leading multipliers (by modulus), the trivial one included.
    profile : ndarray
        Scaled states over one period, shape (n, N).
    """

    gain: float
    amplitude: float
    period: float
    stable: bool
    max_multiplier: float
    multipliers: np.ndarray = field(repr=False)
    profile: np.ndarray = field(repr=False)


def _phase_row(reference: np.ndarray) -> np.ndarray:
    """Integral phase condition's row: the reference's time derivative (central difference), flattened."""
    return ((np.roll(reference, -1, axis=1) - np.roll(reference, 1, axis=1)) / 2).ravel()


def _residual(system, stencil, Y, N, reference, extra):
    """Full residual for a batch of unknown vectors Y (n*N + 2, B): defects, phase, extra condition."""
    n = system.n
    U = Y[: n * N].reshape(n, N, -1)
    P, gain = Y[n * N], Y[n * N + 1]
    defects = _defects(system, stencil, U, P, gain).reshape(n * N, -1)
    phase = _phase_row(reference) @ (Y[: n * N] - reference.reshape(-1, 1))
    return np.vstack([defects, phase[None, :], extra(Y)[None, :]])


def _newton(system, stencil, Y, N, reference, extra):
    """Newton on the residual; returns (Y, converged)."""
    size = Y.size
    for _ in range(NEWTON_ITER):
        batch = np.repeat(Y[:, None], size + 1, axis=1)
        batch[np.arange(size), np.arange(size)] += FD_EPS
        R = _residual(system, stencil, batch, N, reference, extra)
        J = (R[:, :size] - R[:, [size]]) / FD_EPS
        if not np.all(np.isfinite(R)):
            return Y, False
        step = np.linalg.solve(J, -R[:, size])
        Y = Y + step
        if np.linalg.norm(step) / math.sqrt(size) < NEWTON_TOL:
            return Y, True
    return Y, False


def _period_map(system, stencil, H, N, P, gain):
    """Integrate the scheme sequentially for N steps from histories H (n, L, B); return the new (n, L, B)."""
    n, L, B = H.shape
    h = P / N
    buf = np.concatenate([H, np.zeros((n, N, B))], axis=1)
    w = stencil.weights_at(system.delay, h)
    for k in range(L - 1, L - 1 + N):
        reads = [
            np.stack(
                [
                    sum(w[s, j, i] * buf[state, k + stencil.offsets[s, j, i]] for i in range(4))
                    for j, state in enumerate(system.delay_state)
                ]
            )
            for s in range(3)
        ]
        u = buf[:, k]
        k1 = system.field(u, reads[0], gain)
        k2 = system.field(u + 0.5 * h * k1, reads[1], gain)
        k3 = system.field(u + 0.5 * h * k2, reads[1], gain)
        k4 = system.field(u + h * k3, reads[2], gain)
        buf[:, k + 1] = u + h / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
    return buf[:, -L:]


def floquet_multipliers(
    system: PeriodicSystem, profile: np.ndarray, period: float, gain: float, stencil: _Stencil | None = None
) -> tuple[np.ndarray, float]:
    """Floquet multipliers of a periodic orbit from the linearised period map of the discrete scheme.

    Returns
    -------
    multipliers : ndarray
        Eigenvalues of the period map's Jacobian, by decreasing modulus.
    defect : float
        Max abs difference between the profile's own history and its image under the period map
        (a check that ``profile`` is a fixed point of the sequential integration).
    """
    n, N = profile.shape
    stencil = stencil or _Stencil.build(system.delay, period / N)
    L = stencil.reach + 1
    H = profile[:, N - L :]  # the last L grid values; their image after N steps is again them
    size = n * L
    batch = np.repeat(H.reshape(size, 1), size + 1, axis=1)
    batch[np.arange(size), np.arange(size)] += FD_EPS
    out = _period_map(system, stencil, batch.reshape(n, L, size + 1), N, period, gain).reshape(size, size + 1)
    J = (out[:, :size] - out[:, [size]]) / FD_EPS
    mu = np.linalg.eigvals(J)
    return mu[np.argsort(-np.abs(mu))], float(np.max(np.abs(out[:, size] - H.ravel())))


def _point(system, stencil, profile, period, gain) -> OrbitPoint:
    mu, _ = floquet_multipliers(system, profile, period, gain, stencil)
    nontrivial = np.delete(mu, np.argmin(np.abs(mu - 1)))
    biggest = float(np.max(np.abs(nontrivial)))
    fine = _resample(profile, 8 * profile.shape[1])
    g = system.gamma(fine, gain)
    return OrbitPoint(
        gain=float(gain),
        amplitude=float(0.5 * np.ptp(g)),
        period=float(period),
        stable=biggest < 1.0,
        max_multiplier=biggest,
        multipliers=mu[:6],
        profile=profile,
    )


def _resample(profile: np.ndarray, N: int) -> np.ndarray:
    """Periodic band-limited resampling of a profile (n, M) to N points."""
    n, M = profile.shape
    spectrum = np.fft.rfft(profile, axis=1)
    out = np.zeros((n, N // 2 + 1), dtype=complex)
    keep = min(spectrum.shape[1], out.shape[1])
    out[:, :keep] = spectrum[:, :keep]
    return np.fft.irfft(out, n=N, axis=1) * (N / M)


def _steps_for(system, period, N) -> int:
    """N, doubled until the step is short enough for the shortest delay."""
    while period / N > system.delay.min() / STEPS_PER_DELAY:
        N *= 2
    return N


def solve_orbit(system: PeriodicSystem, profile: np.ndarray, period: float, gain: float) -> OrbitPoint | None:
    """Newton for the periodic orbit near a guess, the gain held; None when Newton does not converge."""
    n, N = profile.shape
    stencil = _Stencil.build(system.delay, period / N)
    Y = np.concatenate([profile.ravel(), [period, gain]])
    Y, ok = _newton(system, stencil, Y, N, profile, lambda Z: Z[-1] - gain)
    if not ok:
        return None
    return _point(system, stencil, Y[: n * N].reshape(n, N), Y[-2], Y[-1])


@dataclass
class OrbitBranch:
    """A branch of periodic orbits continued from a Hopf point.

    Attributes
    ----------
    hopf : HopfPoint
    points : list of OrbitPoint
        In continuation order (from the Hopf point outwards).
    folds : list of dict
        Turning points of the gain: ``gain`` and ``amplitude`` (vertex of the parabola through
        the three points around the turn) and the multipliers on either side.
    stop : str
        Why the continuation ended.
    """

    hopf: HopfPoint
    parameter: str
    points: list
    folds: list
    stop: str

    def as_dict(self) -> dict:
        return {
            "parameter": self.parameter,
            "hopf": {"gain": self.hopf.critical, "l1": self.hopf.l1, "period": 2 * math.pi / self.hopf.omega_rtt},
            "points": point_dicts(self.parameter, self.points),
            "folds": self.folds,
            "stop": self.stop,
        }


def _hopf_guess(system: PeriodicSystem, hopf: HopfPoint, gain: float, N: int):
    """Normal-form cycle at ``gain`` (scaled profile over one period) and its period (time units)."""
    values = _full(system.model, {**hopf.values, hopf.parameter: hopf.critical})
    num = _Numeric(system.model, values)
    omega = hopf.omega_rtt / system.time_unit  # 1/s
    _, _, Vh = np.linalg.svd(num.delta(1j * omega))
    q = Vh[-1].conj()
    q = q / (num.gamma_gradient @ q)
    radius = math.sqrt(abs(hopf.speed * (gain - hopf.critical) / hopf.c1.real))
    s = np.arange(N) / N * 2 * math.pi
    x = num.equilibrium[:, None] + 2 * radius * np.real(q[:, None] * np.exp(1j * s)[None, :])
    return x / system.scale[:, None], 2 * math.pi / hopf.omega_rtt


def continue_from_hopf(
    model: ModelSpec,
    bracket: tuple,
    parameter: str = "alpha",
    steps: int = 60,
    first_amplitude: float = 0.02,
    step: float = 0.05,
    max_step: float = 0.5,
    max_amplitude: float = math.inf,
    gain_range: tuple = (0.0, math.inf),
    N: int = 128,
    max_mesh: int = 1024,
    **values,
) -> OrbitBranch:
    """Continue the branch of periodic orbits born at the Hopf point inside ``bracket``.

    Parameters
    ----------
    model : ModelSpec
        A smooth delay model.
    bracket : (float, float)
        Gains on either side of the Hopf point (see :func:`~.lyapunov.hopf_point`).
    parameter : {'alpha', 'beta'}
        The gain continued in.
    steps : int
        Continuation steps after the two starting orbits.
    first_amplitude : float
        Amplitude of the first orbit, relative to the equilibrium's normalised rate (or absolute
        when that is zero); the second has twice it. Their gains come from the normal form.
    step, max_step : float
        Initial and largest pseudo-arclength step (scaled RMS units; the step adapts).
    max_amplitude : float
        Stop once the amplitude (absolute normalised-rate units) exceeds this.
    gain_range : (float, float)
        Stop when the gain leaves it.
    N, max_mesh : int
        Steps per period at the start (doubled whenever the shortest delay needs it), and the
        most allowed (the continuation stops there).
    **values
        Every other parameter by name (SI units).

    Returns
    -------
    OrbitBranch
    """
    hopf = hopf_point(model, bracket, parameter, **values)
    if hopf.gamma_coefficient is None:
        raise InputError(f"{model.name}: degenerate Hopf point (l1 = 0): no amplitude law to start from")
    system = PeriodicSystem(model, parameter, **{k: v for k, v in hopf.values.items()})
    N = _steps_for(system, 2 * math.pi / hopf.omega_rtt, N)
    side = -np.sign(hopf.l1) * np.sign(hopf.speed)
    g_eq = abs(float(system.gamma(system.equilibrium(hopf.critical)[:, None], hopf.critical)[0]))
    target = first_amplitude * (g_eq if g_eq > 0 else 1.0)
    points = []
    for factor in (1.0, 2.0):
        gain = hopf.critical + side * (factor * target / hopf.gamma_coefficient) ** 2
        guess, period = _hopf_guess(system, hopf, gain, N)
        point = solve_orbit(system, guess, period, gain)
        if point is None:
            raise RuntimeError(f"{model.name}: Newton failed on the first orbits near the Hopf point")
        points.append(point)
    stop = "steps"
    h_s = step
    for _ in range(steps):
        taken = _arclength_step(system, points[-2], points[-1], h_s, N)
        if taken is None:
            stop = "step size underflow"
            break
        point, h_s = taken
        points.append(point)
        h_s = min(max_step, 1.3 * h_s)
        if points[-1].amplitude > max_amplitude:
            stop = "max amplitude"
            break
        if not gain_range[0] <= points[-1].gain <= gain_range[1]:
            stop = "gain range"
            break
        if points[-1].period / N > system.delay.min() / STEPS_PER_DELAY * 0.9:
            if 2 * N > max_mesh:
                stop = "period too long for the mesh"
                break
            # remesh: band-limited resampling of the last two orbits, so the secant stays defined
            N *= 2
            for p in points[-2:]:
                p.profile = _resample(p.profile, N)
    return OrbitBranch(hopf=hopf, parameter=parameter, points=points, folds=_folds(system, points), stop=stop)


def _weights(n: int, N: int) -> np.ndarray:
    """Norm of the continuation: the profile part as an RMS over the period, then P and the gain."""
    return np.concatenate([np.full(n * N, 1 / math.sqrt(N)), [1.0, 1.0]])


def _vector(p: OrbitPoint, N: int) -> np.ndarray:
    profile = p.profile if p.profile.shape[1] == N else _resample(p.profile, N)
    return np.concatenate([profile.ravel(), [p.period, p.gain]])


def _arclength_step(system, before: OrbitPoint, last: OrbitPoint, h_s: float, N: int):
    """One pseudo-arclength step of length ``h_s`` along the secant before -> last (halved on failure).

    Returns (OrbitPoint, the step actually taken), or None when the step underflows.
    """
    weights = _weights(system.n, N)
    a, b = _vector(before, N), _vector(last, N)
    tangent = (b - a) * weights
    tangent /= np.linalg.norm(tangent)
    while h_s > 1e-6:
        predicted = b + h_s * tangent / weights
        stencil = _Stencil.build(system.delay, predicted[-2] / N)

        def extra(Z, predicted=predicted):
            return ((Z - predicted[:, None]) * weights[:, None]).T @ tangent

        Y, ok = _newton(system, stencil, predicted, N, b[: system.n * N].reshape(system.n, N), extra)
        if ok:
            return _point(system, stencil, Y[: system.n * N].reshape(system.n, N), Y[-2], Y[-1]), h_s
        h_s /= 2
    return None


FOLD_STEPS = 16  # the turn is re-continued with this many steps across the coarse bracket


def _folds(system, points) -> list:
    """Turning points of the gain along the branch.

    Each turn seen on the coarse branch is passed again with steps 1/FOLD_STEPS of the coarse
    bracket, and located at the vertex of the parabola gain(amplitude) through the three
    fine points around it; the multipliers on either side show the crossing of +1.
    """
    gains = np.array([p.gain for p in points])
    d = np.diff(gains)
    out = []
    for i in range(2, d.size):
        if np.sign(d[i]) == np.sign(d[i - 1]) or d[i] == 0:
            continue
        N = points[i + 1].profile.shape[1]
        w = _weights(system.n, N)
        span = np.linalg.norm((_vector(points[i + 1], N) - _vector(points[i - 1], N)) * w)
        out.append(
            locate_fold(
                [points[i - 2], points[i - 1]],
                partial(_arclength_step, system, h_s=float(span / FOLD_STEPS), N=N),
                3 * FOLD_STEPS,
                points[i - 1 : i + 2],
                turn="first",
            )
        )
    return out
