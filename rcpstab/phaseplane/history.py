"""Ring buffer of past states: the delay history of a batch of trajectories.

Continuous states are read back by cubic Hermite interpolation from stored values and
slopes (4th order, as accurate as the RK4 step, so a delay need not be a multiple of the
step). Sampled states are piecewise constant and read back exactly, by index.
Before the first step the history is the constant initial state (the thesis' set-up).
"""
from __future__ import annotations

import math

import numpy as np


class History:
    """Past values of every state of a batch, for the last ``length`` steps.

    Parameters
    ----------
    initial : list of ndarray, shape (B,)
        The state at step 0, also the (constant) history before it.
    length : int
        Number of steps kept; must exceed the longest delay in steps plus one.
    """

    def __init__(self, initial, length: int):
        self.length = length
        self.initial = [np.array(x, dtype=float) for x in initial]
        self.values = np.repeat(np.stack(self.initial)[:, None, :], length, axis=1)
        self.slopes = np.zeros_like(self.values)

    def store(self, k: int, states, slopes) -> None:
        """Record the states and their slopes (derivative times step) at step ``k``."""
        slot = k % self.length
        for i, x in enumerate(states):
            self.values[i, slot] = x
        for i, s in slopes.items():
            self.slopes[i, slot] = s

    def smooth(self, i: int, position: float) -> np.ndarray:
        """State ``i`` at fractional step ``position`` (cubic Hermite between stored steps)."""
        if position < 0:
            return self.initial[i]
        j = math.floor(position)
        theta = position - j
        x0 = self.values[i, j % self.length]
        if theta == 0.0:
            return x0
        x1 = self.values[i, (j + 1) % self.length]
        s0 = self.slopes[i, j % self.length]
        s1 = self.slopes[i, (j + 1) % self.length]
        t2, t3 = theta * theta, theta * theta * theta
        return ((2 * t3 - 3 * t2 + 1) * x0 + (t3 - 2 * t2 + theta) * s0
                + (3 * t2 - 2 * t3) * x1 + (t3 - t2) * s1)

    def held(self, i: int, index: int) -> np.ndarray:
        """Sampled state ``i`` as it was held at step ``index`` (piecewise constant, read exactly)."""
        if index < 0:
            return self.initial[i]
        return self.values[i, index % self.length]

    def keep(self, mask: np.ndarray) -> None:
        """Drop the trajectories where ``mask`` is false."""
        self.initial = [x[mask] for x in self.initial]
        self.values = self.values[:, :, mask]
        self.slopes = self.slopes[:, :, mask]
