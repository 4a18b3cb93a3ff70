"""Trajectories of a :class:`~rcpstab.models.delayloop.DelayedFluidModel` (DCQCN, TIMELY): the nonlinear lens.

A fixed-step Heun (explicit trapezoidal) integrator of the delay-differential equations, with
the delayed states read from the stored history (the step divides every delay, so no
interpolation is needed) and a constant history before t = 0. The queue is held at 0 from below
(the physical clamp the fluid equations leave implicit). Independent of the linearization: it
integrates the model's own right-hand sides.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import sympy as sp

from ..errors import InputError
from ..models.delayloop import get_loop_model

__all__ = ["FluidRun", "fluid_run"]


@dataclass(frozen=True)
class FluidRun:
    """A trajectory: ``t`` (s), ``states`` (one row per state, the model's order and units), ``names``."""

    t: np.ndarray
    states: np.ndarray
    names: tuple[str, ...]

    def __getitem__(self, name: str) -> np.ndarray:
        state: np.ndarray = self.states[self.names.index(name)]
        return state

    def oscillation(self, name: str, window: float) -> float:
        """Peak-to-peak of ``name`` over the last ``window`` seconds, over its mean there."""
        x = self[name][self.t >= self.t[-1] - window]
        return float((x.max() - x.min()) / max(abs(x.mean()), 1e-300))


def fluid_run(model: Any, t_end: float, dt: float, initial: dict[str, Any], queue: str = "q", **values: float) -> FluidRun:
    """Integrate ``model`` from ``initial`` ({state name: value}, the model's units) to ``t_end`` (s).

    Parameters
    ----------
    model : str or DelayedFluidModel
    t_end, dt : float
        Duration and step (s); ``dt`` must divide every delay.
    initial : dict
        Initial state (also the history before 0), by state name.
    queue : str
        The state held at 0 from below.
    **values : float
        Parameters by name (SI units).

    Returns
    -------
    FluidRun
    """
    model = get_loop_model(model)
    v = model.values(**values)
    subs = {sym: v[sym.name] for sym in model.parameters}
    names = tuple(s.name for s in model.states)
    if set(initial) != set(names):
        raise InputError(f"initial state needs {', '.join(names)}")
    delayed = list(model.delayed)
    point = {s: initial[s.name] for s in model.states}
    at = {**subs, **point}
    for sym in model.derived:  # delays taken at the start (fixed, as the model's)
        at[sym] = float(sp.sympify(model.derived[sym]).subs(at))
    lags = []
    for sym in delayed:
        state, delay = model.delayed[sym]
        steps = float(sp.sympify(delay).subs(at)) / dt
        if abs(steps - round(steps)) > 1e-9:
            raise InputError(f"dt = {dt!r}: must divide the delay {steps * dt!r} s")
        lags.append((model.states.index(state), int(round(steps))))
    rhs = [sp.sympify(f).subs(subs).subs({s: at[s] for s in model.derived}) for f in model.rhs]
    f = sp.lambdify((*model.states, *delayed), rhs, modules="math")
    n = int(round(t_end / dt))
    x = np.empty((len(names), n + 1))
    x[:, 0] = [initial[k] for k in names]
    iq = names.index(queue)

    def past(k: int) -> list[Any]:
        return [x[i, max(k - lag, 0)] for i, lag in lags]

    for k in range(n):
        now = x[:, k]
        d1 = np.asarray(f(*now, *past(k)))
        guess = now + dt * d1
        guess[iq] = max(guess[iq], 0.0)
        d2 = np.asarray(f(*guess, *past(k + 1)))
        nxt = now + 0.5 * dt * (d1 + d2)
        nxt[iq] = max(nxt[iq], 0.0)
        x[:, k + 1] = nxt
    return FluidRun(t=np.arange(n + 1) * dt, states=x, names=names)
