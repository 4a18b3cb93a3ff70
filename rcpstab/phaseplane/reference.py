"""The integrator's method in NumPy: the executable specification of the compiled C kernel.

Same steps as :class:`~rcpstab.phaseplane.integrator.BatchIntegrator` (see there for the
method), each operation acting on a NumPy array over the batch and the delay history kept in
a :class:`~rcpstab.phaseplane.history.History`. It is slow (Python runs every step) and only
used to check the kernel: both must agree to rounding on every model.
"""

from __future__ import annotations

import math

import numpy as np

from .history import History
from .integrator import GRID_TOLERANCE, BatchIntegrator


class ReferenceIntegrator(BatchIntegrator):
    """:class:`~rcpstab.phaseplane.integrator.BatchIntegrator` stepped in NumPy (same arguments).

    Only recording is supported (no envelope monitor).
    """

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.history = History(self.states, self.length, self.delay_steps if self.model.wide_history else None)

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
        """dt times the derivative of every continuous state, clamps applied.

        At a full buffer the inflow is cut and becomes the slope of the overflow state.
        """
        delayed = self._delayed(position, self.k + 0.5)
        spills = {j for j, _ in self.model.clamp_upper.values()}
        slopes = {}
        for i in self.model.continuous:
            if i in spills:
                continue
            f = self.model.rhs[i](*states, *delayed, *self.params)
            lower = self.model.clamp_lower.get(i)
            if lower is not None:
                f = np.where(states[i] <= lower, np.maximum(f, 0.0), f)
            if i in self.model.clamp_upper:
                j, upper = self.model.clamp_upper[i]
                full = (states[i] >= upper(*self.params)) & (f > 0.0)
                slopes[j] = self.dt * np.where(full, f, 0.0)
                f = np.where(full, 0.0, f)
            slopes[i] = self.dt * f
        return {i: slopes[i] for i in self.model.continuous}  # the C kernel's order

    def _combine(self, states: list, slopes: dict, weight: float) -> list:
        """``states + weight * slopes`` for continuous states, held states unchanged, clamps applied.

        What passes an upper bound moves into the overflow state.
        """
        out = list(states)
        for i, s in slopes.items():
            x = states[i] + weight * s
            lower = self.model.clamp_lower.get(i)
            out[i] = x if lower is None else np.maximum(x, lower)
        for i, (j, upper) in self.model.clamp_upper.items():
            u = upper(*self.params)
            over = out[i] > u
            out[j] = np.where(over, out[j] + (out[i] - u), out[j])
            out[i] = np.where(over, u, out[i])
        return out

    def step(self) -> None:
        """Advance every trajectory by one step."""
        x = self.states
        k1 = self._slopes(x, self.k)
        self.history.store(self.k, x, k1)
        if self.model.piecewise_constant:
            new = self._combine(x, k1, 1.0)
        else:
            k2 = self._slopes(self._combine(x, k1, 0.5), self.k + 0.5)
            k3 = self._slopes(self._combine(x, k2, 0.5), self.k + 0.5)
            k4 = self._slopes(self._combine(x, k3, 1.0), self.k + 1)
            combined = {i: (k1[i] + 2 * k2[i] + 2 * k3[i] + k4[i]) / 6 for i in k1}
            new = self._combine(x, combined, 1.0)
        self.k += 1
        for i in self.model.continuous:
            self._saturate(new, i)
        self._update_sampled(new)
        self._x = np.column_stack([np.broadcast_to(v, (self.size,)) for v in new])

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

    def _advance(self, n: int, monitor, record_every: int) -> np.ndarray:
        if monitor is not None:
            raise ValueError("the reference integrator has no envelope monitor")
        records = []
        for _ in range(n):
            self.step()
            if record_every and self.k % record_every == 0:
                records.append(np.column_stack(self.states))
        return np.array(records).reshape(-1, self.size, self.model.n_states)

    def keep(self, mask: np.ndarray) -> None:
        super().keep(mask)
        self.history.keep(mask)
