"""The convergence band: the one definition of "close enough to the equilibrium".

A trace is inside the band when its rate R is within ``rate`` (relative) of its equilibrium and
its queue q within ``queue`` of the model's queue scale (one bandwidth-delay product C*d0 for
RCP) of its own. The thesis' band (Sec. 5.4) is :data:`STANDARD`: R within 2%, q within 1% of
C*d0. Every engine that judges traces takes a :class:`Band` (default :data:`STANDARD`) and
every checkpoint key includes :meth:`Band.key`, so a run with another band can never be fed
results computed with this one. Texts (summaries, figure labels, docs) read the band's own
values (:meth:`Band.describe`) instead of writing the numbers out.

A trace's distance from equilibrium is measured in *band units* (:func:`band_distance`): it
is inside the band when the distance is <= 1. Its convergence time is the last time it was
outside (:func:`last_band_exit`), measured on the trace, never extrapolated.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray

__all__ = ["NUMERICAL_FLOOR", "STANDARD", "Band", "band_distance", "last_band_exit"]

# Numerical floor, band units: 1e-3 of the band is R within 2e-5 of Re and q within 1e-5 C*d0 (standard
# band), far below the band and far above rounding (the integrators' truncation error is proportional to
# the deviation itself, so it cannot sustain an oscillation). A smaller oscillation counts as converged.
NUMERICAL_FLOOR = 1e-3


@dataclass(frozen=True)
class Band:
    """Half-widths of the convergence band.

    Parameters
    ----------
    rate : float
        Largest relative rate error ``|R/Re - 1|`` inside the band (dimensionless, > 0).
    queue : float
        Largest queue error ``|q - qe|`` inside the band, as a fraction of the model's queue scale
        (C*d0 for RCP; dimensionless, > 0; ``inf`` ignores the queue).

    Examples
    --------
    >>> STANDARD.describe()
    'R within 2%, q within 1% of the queue scale'
    >>> Band(0.04, 0.02).key()
    {'band_rate': 0.04, 'band_queue': 0.02}
    """

    rate: float = 0.02  # thesis Sec. 5.4
    queue: float = 0.01

    def __post_init__(self) -> None:
        for name in ("rate", "queue"):
            value = getattr(self, name)
            if not (isinstance(value, (int, float)) and value > 0 and not math.isnan(value)):
                raise ValueError(f"band {name} = {value!r}: must be a number > 0")

    def key(self) -> dict[str, float]:
        """What enters a checkpoint key (a change of band re-keys every chunk)."""
        return {"band_rate": float(self.rate), "band_queue": float(self.queue)}

    def widened(self, rate: float, queue: float) -> Band:
        """The band at least ``rate`` and ``queue`` wide (a noisy trace's measured noise floor)."""
        return Band(max(self.rate, rate), max(self.queue, queue))

    @property
    def rate_percent(self) -> str:
        """The rate half-width as text, e.g. ``'2%'``."""
        return f"{100 * self.rate:g}%"

    @property
    def queue_percent(self) -> str:
        """The queue half-width as text, e.g. ``'1%'``."""
        return f"{100 * self.queue:g}%"

    def describe(self, queue_unit: str = "the queue scale") -> str:
        """``'R within 2%, q within 1% of C*d0'`` for ``queue_unit='C*d0'``."""
        if math.isinf(self.queue):
            return f"R within {self.rate_percent}"
        return f"R within {self.rate_percent}, q within {self.queue_percent} of {queue_unit}"

    def distance(
        self, gamma: ArrayLike, queue: ArrayLike, gamma_eq: ArrayLike, queue_eq: ArrayLike, queue_scale: ArrayLike
    ) -> NDArray[np.float64]:
        """:func:`band_distance` with this band."""
        return band_distance(gamma, queue, gamma_eq, queue_eq, queue_scale, self)


STANDARD = Band()


def band_distance(
    gamma: ArrayLike, queue: ArrayLike, gamma_eq: ArrayLike, queue_eq: ArrayLike, queue_scale: ArrayLike, band: Band = STANDARD
) -> NDArray[np.float64]:
    """Distance from equilibrium in band units (<= 1 means within the convergence band).

    Parameters
    ----------
    gamma, gamma_eq : array_like
        Normalized rate R/C (dimensionless) and its equilibrium value.
    queue, queue_eq : array_like
        Queue and its equilibrium (bits, or any unit shared with ``queue_scale``).
    queue_scale : array_like
        C*d0 in the queue's unit: the queue is measured relative to one bandwidth-delay product.
    band : Band
        The band (default :data:`STANDARD`); noisy (packet) traces pass wider bands measured from
        their noise floor (:meth:`Band.widened`).

    Returns
    -------
    ndarray
        ``max(|gamma/gamma_eq - 1| / band.rate, |queue - queue_eq| / (queue_scale * band.queue))``.

    Examples
    --------
    >>> round(float(band_distance(0.103, 0.0, 0.1, 0.0, 1.0)), 12)  # 3% off in rate: 1.5 band widths
    1.5
    """
    rate = np.abs(np.asarray(gamma) / gamma_eq - 1.0) / band.rate
    return np.maximum(rate, np.abs(np.asarray(queue) - queue_eq) / (np.asarray(queue_scale) * band.queue))


def last_band_exit(t: ArrayLike, distance: ArrayLike, axis: int = 0) -> NDArray[np.float64] | float:
    """The last time a trace was outside the band (the measured convergence time).

    Parameters
    ----------
    t : array_like, shape (n,)
        Sample times (any unit, RTTs usually), increasing.
    distance : array_like, shape (n, ...)
        Band distance (:func:`band_distance`) at those times; NaN counts as outside.
    axis : int
        The time axis of ``distance``.

    Returns
    -------
    ndarray or float
        For each trace, the time of the last sample outside the band (``t[0]`` if it never was
        outside). Whether the trace then *stays* inside is for the caller to judge from the horizon.

    Examples
    --------
    >>> float(last_band_exit([0, 1, 2, 3], [5.0, 2.0, 0.5, 0.2]))
    1.0
    """
    t = np.asarray(t, dtype=float)
    outside = ~(np.moveaxis(np.asarray(distance, dtype=float), axis, 0) <= 1.0)
    last = outside.shape[0] - 1 - np.argmax(outside[::-1], axis=0)
    result = np.where(outside.any(axis=0), t[last], t[0])
    return result if result.ndim else float(result)
