"""Fold (turning point) location on a branch of periodic orbits, shared by both continuations.

The collocation continuation (:mod:`~rcpstab.bifurcation.periodic`) and the compiled kernel's
(:mod:`~rcpstab.bifurcation.kernel_orbits`) locate a fold the same way: the turn of the gain seen on
the coarse branch is passed again with short steps until the gain turns, and the fold is the vertex
of the parabola gain(amplitude) through three fine orbits around that turn. They differ only in what
is a parameter here: the stepping function, which turn of the fine pass they take, and whether the
vertex is clipped to the three amplitudes (the kernel's clamped branches are only piecewise smooth,
so a flat fit can put the vertex far outside).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TypeVar

import numpy as np

from .branch_points import BranchOrbit

Orbit = TypeVar("Orbit", bound=BranchOrbit)

__all__ = ["locate_fold"]


def locate_fold(
    fine: Sequence[Orbit],
    step: Callable[[Orbit, Orbit], tuple[Orbit, float] | None],
    max_steps: int,
    coarse: Sequence[Orbit],
    *,
    turn: str = "first",
    clip: bool = False,
) -> dict[str, float | bool]:
    """Pass a turn of the gain again with short steps and return the fold at the parabola's vertex.

    Parameters
    ----------
    fine : list of orbit
        The two orbits (with ``gain``, ``amplitude``, ``stable``, ``max_multiplier``) the fine pass starts
        from, in the branch's direction.
    step : callable
        ``step(before, last)`` -> ``(orbit, h)`` one short continuation step, or None when it fails.
    max_steps : int
        Most steps of the fine pass; it stops early once the gain has turned.
    coarse : list of orbit
        Three coarse orbits around the turn, used when the fine pass sees no turn.
    turn : {"first", "last"}
        Which turn of the fine pass the parabola is fitted around.
    clip : bool
        Clip the vertex's amplitude to the three fitted amplitudes (and take the middle one when the fit is
        a line); without, the vertex is taken as it falls.

    Returns
    -------
    dict
        ``gain`` and ``amplitude`` (the model's units) of the fold, ``max_multiplier_before``/``_after``
        and ``stable_before``/``stable_after`` of the orbits either side.

    Examples
    --------
    >>> from types import SimpleNamespace as Orbit
    >>> branch = [Orbit(gain=(a - 1) ** 2 + 2, amplitude=a, stable=a > 1, max_multiplier=2 - a) for a in (0.5, 0.8)]
    >>> def step(before, last):       # steps of 0.3 in amplitude along gain = (a - 1)^2 + 2
    ...     a = 2 * last.amplitude - before.amplitude
    ...     return Orbit(gain=(a - 1) ** 2 + 2, amplitude=a, stable=a > 1, max_multiplier=2 - a), 0.3
    >>> fold = locate_fold(branch, step, 10, branch)
    >>> round(fold["gain"], 12), round(fold["amplitude"], 12), fold["stable_before"], fold["stable_after"]
    (2.0, 1.0, False, True)
    """
    passed = list(fine)
    for _ in range(max_steps):
        taken = step(passed[-2], passed[-1])
        if taken is None:
            break
        passed.append(taken[0])
        gains = [p.gain for p in passed]
        if len(gains) >= 4 and np.sign(gains[-1] - gains[-2]) != np.sign(gains[-2] - gains[-3]):
            break
    g = np.array([p.gain for p in passed])
    turns = np.flatnonzero(np.sign(np.diff(g[1:])) != np.sign(np.diff(g[:-1])))
    if turns.size:
        t = int(turns[0] if turn == "first" else turns[-1])
        around: Sequence[Orbit] = passed[t : t + 3]
    else:
        around = coarse
    amps = np.array([p.amplitude for p in around])
    c = np.polyfit(amps, [p.gain for p in around], 2)
    if not clip:
        a_star = float(-c[1] / (2 * c[0]))
    elif c[0] != 0:
        a_star = float(np.clip(-c[1] / (2 * c[0]), amps.min(), amps.max()))
    else:
        a_star = float(amps[1])
    return {
        "gain": float(np.polyval(c, a_star)),
        "amplitude": a_star,
        "max_multiplier_before": around[0].max_multiplier,
        "max_multiplier_after": around[-1].max_multiplier,
        "stable_before": bool(around[0].stable),
        "stable_after": bool(around[-1].stable),
    }
