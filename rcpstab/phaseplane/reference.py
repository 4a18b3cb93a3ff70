"""Fixed-step batched integration of a delay-differential model.

Every trajectory of a batch advances in lockstep; each operation acts on a NumPy array
over the batch. Continuous states take a classical RK4 step, their delayed values read
from the :class:`~rcpstab.phaseplane.history.History` by Hermite interpolation (4th order
overall on smooth problems). Where every continuous right-hand side reads only held
values (rcp: dq/dt = N*R(t-d0) - C with R updated every T) one Euler step is exact.
Sampled states are updated every ``interval`` from their right-hand side, then saturated.
Clamps are applied exactly, without smoothing: at the bound the derivative is max(0, rhs)
and the state never goes below it.
"""
from __future__ import annotations

import math

import numpy as np

from .compiled import CompiledModel
from .history import History

GRID_TOLERANCE = 1e-9  # a delay within this many steps of an integer is on the grid


def steps_of(duration, dt: float, what: str) -> float:
    """``duration / dt`` as a scalar number of steps, snapped to an integer when it is one."""
    values = np.unique(np.atleast_1d(np.asarray(duration, dtype=float)))
    if values.size != 1:
        raise ValueError(f"{what} must be the same for every trajectory of a batch")
    steps = float(values[0]) / dt
    return float(round(steps)) if abs(steps - round(steps)) < GRID_TOLERANCE * max(1.0, steps) else steps


class BatchIntegrator:
    """A batch of trajectories of one compiled model, advanced step by step.

    Parameters
    ----------
    model : CompiledModel
        The compiled model.
    params : list
        One value per model parameter (``model.param_names`` order): a float, or an
        array of shape (B,) for a parameter that varies over the batch. Delays and sampling
        intervals must be uniform over the batch.
    initial : list of ndarray, shape (B,)
        Initial state (SI units), also the constant history before time 0.
    dt : float
        Step (s). Every delay must be at least one step; every sampling interval must be a
        whole number of steps.
    n_schedule : list of (float, float), optional
        Piecewise-constant number of flows: ``(time_s, N)`` pairs, N taking effect at time_s.
    """

    def __init__(self, model: CompiledModel, params: list, initial: list, dt: float, n_schedule=None):
        self.model = model
        self.params = list(params)
        self.dt = float(dt)
        self.k = 0
        self.states = [np.array(x, dtype=float) for x in initial]
        self.delay_steps = [steps_of(term.delay(*self.params), self.dt, "the delay") for term in model.delayed]
        if any(d < 1 for d in self.delay_steps):
            raise ValueError(f"step {dt} s is longer than a delay of the model")
        self.update_every = {}
        for i, interval in model.interval.items():
            steps = steps_of(interval(*self.params), self.dt, "the sampling interval")
            if steps != round(steps) or steps < 1:
                raise ValueError(f"sampling interval is not a whole number of steps of {dt} s")
            self.update_every[i] = int(steps)
        self.history = History(self.states, int(math.ceil(max(self.delay_steps, default=1))) + 3)
        self.n_index = model.param_names.index("N") if n_schedule else None
        self.n_schedule = sorted(n_schedule or [])

    @property
    def time(self) -> float:
        """Current time (s)."""
        return self.k * self.dt

    @property
    def size(self) -> int:
        return self.states[0].size

    def _delayed(self, position: float, held_index: int) -> list:
        """Every delayed input at fractional step ``position`` (held states: at step ``held_index``)."""
        out = []
        for term, steps in zip(self.model.delayed, self.delay_steps):
            if term.sampled:
                out.append(self.history.held(term.state_index, math.floor(held_index - steps + GRID_TOLERANCE)))
            else:
                out.append(self.history.smooth(term.state_index, position - steps))
        return out

    def _slopes(self, states: list, position: float) -> dict:
        """dt times the derivative of every continuous state, clamps applied."""
        delayed = self._delayed(position, self.k + 0.5)
        slopes = {}
        for i in self.model.continuous:
            f = self.model.rhs[i](*states, *delayed, *self.params)
            lower = self.model.clamp_lower.get(i)
            if lower is not None:
                f = np.where(states[i] <= lower, np.maximum(f, 0.0), f)
            slopes[i] = self.dt * f
        return slopes

    def _advance(self, states: list, slopes: dict, weight: float) -> list:
        """``states + weight * slopes`` for continuous states, held states unchanged, clamps applied."""
        out = list(states)
        for i, s in slopes.items():
            x = states[i] + weight * s
            lower = self.model.clamp_lower.get(i)
            out[i] = x if lower is None else np.maximum(x, lower)
        return out

    def _apply_schedule(self) -> None:
        while self.n_schedule and self.n_schedule[0][0] <= self.time + GRID_TOLERANCE * self.dt:
            self.params[self.n_index] = float(self.n_schedule.pop(0)[1])

    def step(self) -> None:
        """Advance every trajectory by one step."""
        if self.n_index is not None:
            self._apply_schedule()
        x = self.states
        k1 = self._slopes(x, self.k)
        self.history.store(self.k, x, k1)
        if self.model.piecewise_constant:
            new = self._advance(x, k1, 1.0)
        else:
            k2 = self._slopes(self._advance(x, k1, 0.5), self.k + 0.5)
            k3 = self._slopes(self._advance(x, k2, 0.5), self.k + 0.5)
            k4 = self._slopes(self._advance(x, k3, 1.0), self.k + 1)
            combined = {i: (k1[i] + 2 * k2[i] + 2 * k3[i] + k4[i]) / 6 for i in k1}
            new = self._advance(x, combined, 1.0)
        self.k += 1
        for i in self.model.continuous:
            self._saturate(new, i)
        self._update_sampled(new)
        self.states = new

    def _update_sampled(self, states: list) -> None:
        """The router's periodic update: x <- x + interval * rhs, for the states due at this step."""
        due = [i for i, every in self.update_every.items() if self.k % every == 0]
        if not due:
            return
        delayed = self._delayed(self.k, self.k)
        derivatives = {i: self.model.rhs[i](*states, *delayed, *self.params) for i in due}
        for i in due:
            states[i] = states[i] + self.update_every[i] * self.dt * derivatives[i]
            self._saturate(states, i)

    def _saturate(self, states: list, i: int) -> None:
        bounds = self.model.saturation.get(i)
        if bounds is not None:
            lower, upper = bounds
            states[i] = np.clip(states[i], lower(*states, *self.params), upper(*states, *self.params))

    def run(self, n_steps: int, observer=None) -> None:
        """Take ``n_steps`` steps, calling ``observer(self)`` after each one."""
        for _ in range(n_steps):
            self.step()
            if observer is not None:
                observer(self)

    def keep(self, mask: np.ndarray) -> None:
        """Continue only the trajectories where ``mask`` is true."""
        self.states = [x[mask] for x in self.states]
        self.params = [p[mask] if np.ndim(p) else p for p in self.params]
        self.history.keep(mask)
