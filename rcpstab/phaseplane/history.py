"""Ring buffer of past states: the delay history of a batch of trajectories.

Continuous states are read back by Hermite interpolation from stored values and slopes, so a
delay need not be a multiple of the step: the cubic on the two stored steps around the point
(4th order), or, where the history is smooth over four stored steps (:func:`wide_stencil`),
the degree-7 polynomial through the values and slopes of those four. Both give RK4 its 4th
order; the wide one has a far smaller error, and at the midpoints RK4 reads that error is
most of the step's (Simpson's rule, which RK4 is here, weighs the midpoint 4/6).
Sampled states are piecewise constant and read back exactly, by index.
Before the first step the history is the constant initial state (the thesis' set-up).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from typing import Any

import numpy as np
from numpy.typing import ArrayLike


def wide_stencil(j: int, latest: int, breaks: Iterable[float]) -> bool:
    """Whether the point between stored steps ``j`` and ``j + 1`` is read from steps j-1..j+2.

    Only where all four are stored (``j + 2 <= latest``), none is before time 0 (where the
    history has a kink) and no breakpoint of ``breaks`` (the delays in steps: there the history's
    second derivative jumps) lies strictly inside them. The C kernel applies the same rule.
    """
    return j >= 1 and j + 2 <= latest and not any(j - 1 < b < j + 2 for b in breaks)


def wide_weights(th: float) -> tuple[Any, ...]:
    """Weights of the values, then the slopes, at steps j-1..j+2 for the point ``j + th`` (degree-7 Hermite).

    Written operation for operation as in the C kernel, so both agree to the last bit.
    """
    u, v, p = th - 1, th - 2, th + 1
    return (
        th * th * v * v * u * u * (11 * th + 14) / 108,
        v * v * u * u * p * p * p / 4,
        -th * th * v * v * v * p * p / 4,
        -th * th * u * u * p * p * (11 * th - 25) / 108,
        th * th * v * v * u * u * p / 36,
        th * v * v * u * u * p * p / 4,
        th * th * v * v * u * p * p / 4,
        th * th * v * u * u * p * p / 36,
    )


class History:
    """Past values of every state of a batch, for the last ``length`` steps.

    Parameters
    ----------
    initial : list of ndarray, shape (B,)
        The state at step 0, also the (constant) history before it.
    length : int
        Number of steps kept; must exceed the longest delay in steps plus two.
    breaks : sequence of float, optional
        The delays in steps, for the wide stencil; None (default): always the cubic.
    """

    def __init__(self, initial: Iterable[ArrayLike], length: int, breaks: Iterable[float] | None = None) -> None:
        self.length = length
        self.breaks = None if breaks is None else tuple(breaks)
        self.latest = -1  # the last step stored
        self.initial = [np.array(x, dtype=float) for x in initial]
        self.values = np.repeat(np.stack(self.initial)[:, None, :], length, axis=1)
        self.slopes = np.zeros_like(self.values)

    def store(self, k: int, states: Iterable[ArrayLike], slopes: Mapping[int, ArrayLike]) -> None:
        """Record the states and their slopes (derivative times step) at step ``k``."""
        slot = k % self.length
        self.latest = k
        for i, x in enumerate(states):
            self.values[i, slot] = x
        for i, s in slopes.items():
            self.slopes[i, slot] = s

    def smooth(self, i: int, position: float) -> np.ndarray:
        """State ``i`` at fractional step ``position`` (Hermite interpolation of the stored steps)."""
        if position < 0:
            return self.initial[i]
        j = math.floor(position)
        theta = position - j
        x0: np.ndarray = self.values[i, j % self.length]
        if theta == 0.0:
            return x0
        if self.breaks is not None and wide_stencil(j, self.latest, self.breaks):
            w = wide_weights(theta)
            v = [self.values[i, (j + n) % self.length] for n in (-1, 0, 1, 2)]
            s = [self.slopes[i, (j + n) % self.length] for n in (-1, 0, 1, 2)]
            value: np.ndarray = (
                w[0] * v[0] + w[1] * v[1] + w[2] * v[2] + w[3] * v[3] + w[4] * s[0] + w[5] * s[1] + w[6] * s[2] + w[7] * s[3]
            )
            return value
        x1 = self.values[i, (j + 1) % self.length]
        s0 = self.slopes[i, j % self.length]
        s1 = self.slopes[i, (j + 1) % self.length]
        t2, t3 = theta * theta, theta * theta * theta
        hermite: np.ndarray = (2 * t3 - 3 * t2 + 1) * x0 + (t3 - 2 * t2 + theta) * s0 + (3 * t2 - 2 * t3) * x1 + (t3 - t2) * s1
        return hermite

    def held(self, i: int, index: int) -> np.ndarray:
        """Sampled state ``i`` as it was held at step ``index`` (piecewise constant, read exactly)."""
        if index < 0:
            return self.initial[i]
        held: np.ndarray = self.values[i, index % self.length]
        return held

    def keep(self, mask: np.ndarray) -> None:
        """Drop the trajectories where ``mask`` is false."""
        self.initial = [x[mask] for x in self.initial]
        self.values = self.values[:, :, mask]
        self.slopes = self.slopes[:, :, mask]
