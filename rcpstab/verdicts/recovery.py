"""Recovery after a disturbance (a flash crowd): when a trace re-enters the convergence band for good.

The band and the exit time are the one judgement's (:class:`~rcpstab.verdicts.band.Band`,
:func:`~rcpstab.verdicts.band.band_distance`, :func:`~rcpstab.verdicts.band.last_band_exit`);
this module only cuts the trace at the disturbance and says whether the exit is a recovery: the
trace must stay inside for :data:`STAY_RTT` round trips before its end, or the recovery is not
measured (NaN, with the reason).
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import ArrayLike

from .band import STANDARD, Band, band_distance, last_band_exit

__all__ = ["STAY_RTT", "recovery_rtt"]

STAY_RTT = 10.0  # inside the band this long before the end of the trace = stayed (the thesis' 10-RTT scale)


def recovery_rtt(
    t_rtt: ArrayLike,
    gamma: ArrayLike,
    queue_bdp: ArrayLike,
    gamma_eq: float,
    queue_eq_bdp: float = 0.0,
    since_rtt: float = 0.0,
    band: Band = STANDARD,
) -> tuple[float, str | None]:
    """Round trips from ``since_rtt`` until the trace enters the band and stays in it to its end.

    Parameters
    ----------
    t_rtt : array_like, shape (n,)
        Sample times, RTTs, increasing.
    gamma, queue_bdp : array_like, shape (n,)
        R/C (dimensionless) and the queue in bandwidth-delay products C*d0.
    gamma_eq, queue_eq_bdp : float
        The equilibrium after the disturbance.
    since_rtt : float
        The disturbance (RTTs): samples before it are ignored.
    band : Band
        The convergence band (queue half-width in C*d0): the thesis' by default, wider for noisy
        packet traces.

    Returns
    -------
    recovery : float
        RTTs from ``since_rtt`` to the last band exit (NaN when not measured).
    reason : str or None
        Why it was not measured (still outside at the end, or not inside long enough).

    Examples
    --------
    >>> t = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14]
    >>> g = [0.1, 0.5, 0.2, 0.11] + [0.1] * 11
    >>> recovery_rtt(t, g, [0.0] * 15, 0.1, since_rtt=0.0)
    (3.0, None)
    """
    t = np.asarray(t_rtt, dtype=float)
    after = t >= since_rtt
    if after.sum() < 2:
        return math.nan, "no samples after the disturbance"
    distance = band_distance(
        np.asarray(gamma, dtype=float)[after], np.asarray(queue_bdp, dtype=float)[after], gamma_eq, queue_eq_bdp, 1.0, band
    )
    exit_rtt = last_band_exit(t[after], distance)
    end = t[after][-1]
    if not distance[-1] <= 1.0:
        return math.nan, f"still outside the band {end - since_rtt:.3g} RTTs after the disturbance"
    if end - exit_rtt < STAY_RTT:
        return math.nan, f"back in the band only {end - exit_rtt:.3g} RTTs before the end (< {STAY_RTT:g})"
    return float(exit_rtt - since_rtt), None
