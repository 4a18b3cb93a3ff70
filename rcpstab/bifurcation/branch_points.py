"""A branch of periodic orbits point by point, as both continuations report it in JSON.

The collocation continuation (:mod:`~rcpstab.bifurcation.periodic`) and the compiled kernel's
(:mod:`~rcpstab.bifurcation.kernel_orbits`) write the same five keys per orbit: they are the
``points`` of ``rcpstab bifurcation``'s JSON contract, so one function writes them for both.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Protocol

__all__ = ["BranchOrbit", "point_dicts"]


class BranchOrbit(Protocol):
    """What a branch's orbit answers: its gain, amplitude, period and stability."""

    @property
    def gain(self) -> float: ...

    @property
    def amplitude(self) -> float: ...

    @property
    def period(self) -> float: ...

    @property
    def stable(self) -> bool: ...

    @property
    def max_multiplier(self) -> float: ...


def point_dicts(parameter: str, points: Iterable[BranchOrbit]) -> list[dict[str, float | bool]]:
    """One dict per orbit: the free gain under its own name, ``amplitude``, ``period``, ``stable``, ``max_multiplier``.

    Parameters
    ----------
    parameter : str
        The free gain's name (``alpha`` or ``beta``): the key its value is written under.
    points : iterable of orbit
        The branch's orbits in continuation order, each with ``gain`` (the gain's value),
        ``amplitude`` (half peak-to-peak of the normalised rate, R/C for RCP), ``period`` (the model's
        time unit, RTTs for RCP), ``stable`` and ``max_multiplier`` (largest non-trivial Floquet
        multiplier's modulus).

    Returns
    -------
    list of dict
        The orbits' values under those keys, in the branch's order.

    Examples
    --------
    >>> from types import SimpleNamespace
    >>> orbit = SimpleNamespace(gain=1.2, amplitude=0.05, period=4.1, stable=True, max_multiplier=0.93)
    >>> point_dicts("alpha", [orbit])
    [{'alpha': 1.2, 'amplitude': 0.05, 'period': 4.1, 'stable': True, 'max_multiplier': 0.93}]
    """
    return [
        {
            parameter: p.gain,
            "amplitude": p.amplitude,
            "period": p.period,
            "stable": p.stable,
            "max_multiplier": p.max_multiplier,
        }
        for p in points
    ]
