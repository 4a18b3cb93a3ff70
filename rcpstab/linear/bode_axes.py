"""The lines every Bode diagram of rcpstab draws: the response, its guides and the crossovers.

Shared by the model loop's diagram (:func:`~rcpstab.linear.bode_plot.bode_plot`, w*d0) and any LTI
loop's (:meth:`~rcpstab.linear.lti_response.LoopBode.plot`, rad/s); each keeps its own axis labels,
units and title.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from matplotlib.axes import Axes

    AxesPair = Sequence[Axes] | np.ndarray  # (magnitude, phase): a pair, or the array subplots(2, 1) gives

__all__ = ["draw_bode", "finish_bode"]


def draw_bode(
    axes: AxesPair,
    w: np.ndarray,
    magnitude: np.ndarray,
    phase_deg: np.ndarray,
    label: str,
    crossover_w: float | None,
    phase_crossover_w: float | None,
) -> None:
    """Magnitude (log-log) and phase, the unity gain and -180 + k 360 deg lines, the crossovers dashed.

    Parameters
    ----------
    axes : (Axes, Axes)
        Magnitude and phase axes.
    w : ndarray
        Frequencies (the caller's unit: w*d0 or rad/s).
    magnitude : ndarray
        ``|L(jw)|``, dimensionless.
    phase_deg : ndarray
        Continuous phase, deg.
    label : str
        Legend entry of the magnitude curve.
    crossover_w, phase_crossover_w : float or None
        Gain and phase crossover frequencies (same unit as ``w``), green and red; none drawn when None or 0.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import matplotlib.pyplot as plt
    >>> axes = plt.figure().subplots(2, 1)
    >>> w = np.geomspace(0.1, 10, 50)
    >>> draw_bode(axes, w, 1 / w, -90 - 20 * w, "1/(jw)", 1.0, None)
    >>> len(axes[1].lines)    # phase curve (-92 to -290 deg), the -180 deg line, the gain crossover
    3
    """
    mag_ax, phase_ax = axes
    mag_ax.loglog(w, magnitude, label=label)
    phase_ax.semilogx(w, phase_deg)
    mag_ax.axhline(1.0, color="k", ls=":", lw=0.8)
    lo, hi = np.floor(phase_deg.min() / 180), np.ceil(phase_deg.max() / 180)
    for k in np.arange(lo, hi + 1):
        if int(k) % 2:  # -180 + k*360 deg
            phase_ax.axhline(180 * k, color="k", ls=":", lw=0.8)
    for crossing, color in ((crossover_w, "tab:green"), (phase_crossover_w, "tab:red")):
        if crossing:
            for ax in axes:
                ax.axvline(crossing, color=color, ls="--", lw=0.8)


def finish_bode(axes: AxesPair) -> None:
    """Both axes' grids and the magnitude axis' legend (lower left).

    Parameters
    ----------
    axes : (Axes, Axes)
        Magnitude and phase axes.

    Examples
    --------
    >>> from matplotlib.figure import Figure     # no backend needed
    >>> axes = Figure().subplots(2, 1)
    >>> _ = axes[0].plot([1, 2], label="G")
    >>> finish_bode(axes)
    >>> [t.get_text() for t in axes[0].get_legend().get_texts()]
    ['G']
    """
    for ax in axes:
        ax.grid(True, which="both", alpha=0.3)
    axes[0].legend(loc="lower left", fontsize="small")
