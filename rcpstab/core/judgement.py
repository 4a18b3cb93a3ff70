"""The one judgement of traces, fluid or packet: the thesis' convergence band and times measured on it.

The convergence band (thesis Sec. 5.4): the rate R within :data:`RATE_BAND` (2%) of its
equilibrium and the queue q within :data:`QUEUE_BAND` (1%) of C*d0 of its equilibrium. A
trace's distance from equilibrium is measured in *band units* (:func:`band_distance`): it is
inside the band when the distance is <= 1. The convergence time of a trace is the last time it
was outside the band (:func:`last_band_exit`), measured on the trace, never extrapolated.
"""
from __future__ import annotations

import numpy as np

__all__ = ["QUEUE_BAND", "RATE_BAND", "band_distance", "last_band_exit"]

RATE_BAND = 0.02       # R within 2% of equilibrium (thesis Sec. 5.4)
QUEUE_BAND = 0.01      # q within 1% of C*d0


def band_distance(gamma, queue, gamma_eq, queue_eq, queue_scale, rate_band=RATE_BAND, queue_band=QUEUE_BAND):
    """Distance from equilibrium in band units (<= 1 means within the convergence band).

    Parameters
    ----------
    gamma, gamma_eq : array_like
        Normalized rate R/C (dimensionless) and its equilibrium value.
    queue, queue_eq : array_like
        Queue and its equilibrium (bits, or any unit shared with ``queue_scale``).
    queue_scale : array_like
        C*d0 in the queue's unit: the queue is measured relative to one bandwidth-delay product.
    rate_band, queue_band : float
        Half-widths of the band: relative rate error and queue as a fraction of C*d0. Noisy
        (packet) traces pass wider bands measured from their noise floor.

    Returns
    -------
    ndarray
        ``max(|gamma/gamma_eq - 1| / rate_band, |queue - queue_eq| / (queue_scale * queue_band))``.

    Examples
    --------
    >>> round(float(band_distance(0.103, 0.0, 0.1, 0.0, 1.0)), 12)  # 3% off in rate: 1.5 band widths
    1.5
    """
    rate = np.abs(np.asarray(gamma) / gamma_eq - 1.0) / rate_band
    return np.maximum(rate, np.abs(np.asarray(queue) - queue_eq) / (np.asarray(queue_scale) * queue_band))


def last_band_exit(t, distance, axis=0):
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
