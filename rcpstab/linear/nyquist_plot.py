"""Plotting of a :class:`~rcpstab.linear.nyquist.NyquistCurve` (data and plot kept apart)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from ..figures import current_axes
from .nyquist import NyquistCurve

if TYPE_CHECKING:
    from matplotlib.axes import Axes


def nyquist_plot(curve: NyquistCurve, ax: Axes | None = None, limit: float = 3.0, margins: Any = None) -> Axes:
    """Draw G(j w) (solid), its mirror for w < 0 (dashed) and the critical point -1.

    Parameters
    ----------
    curve : NyquistCurve
        From :func:`~rcpstab.linear.nyquist.nyquist_curve`.
    ax : matplotlib.axes.Axes, optional
        pyplot's current axes if None.
    limit : float
        Half-width of the square view around 0: G grows without bound near w = 0
        (the indentation around the double pole), so the view is clipped.
    margins : Margins, optional
        From :func:`~rcpstab.linear.margins.margins`: the unit circle is drawn and the gain
        and phase crossover points are marked (python-control's ``display_margins``).

    Returns
    -------
    matplotlib.axes.Axes
    """
    ax = ax or current_axes()
    (line,) = ax.plot(curve.G.real, curve.G.imag, label="G(j w), w > 0")
    ax.plot(curve.G.real, -curve.G.imag, "--", color=line.get_color(), label="w < 0")
    ax.plot([-1.0], [0.0], "r+", markersize=12, markeredgewidth=2, label="-1")
    if margins is not None:
        t = np.linspace(0, 2 * np.pi, 361)
        ax.plot(np.cos(t), np.sin(t), ":", color="0.5", lw=0.8, label="|G| = 1")
        if margins.phase_crossover_w and margins.gain_margin:
            x = -1.0 / margins.gain_margin
            ax.plot([x], [0.0], "o", color="tab:red", ms=5, label=f"Gm = {margins.gain_margin:.3g}")
        if margins.crossover_w and margins.phase_margin_deg is not None:
            angle = np.radians(margins.phase_margin_deg - 180.0)
            ax.plot(
                [np.cos(angle)], [np.sin(angle)], "o", color="tab:green", ms=5, label=f"Pm = {margins.phase_margin_deg:.3g} deg"
            )
    ax.axhline(0.0, color="0.7", linewidth=0.5)
    ax.axvline(0.0, color="0.7", linewidth=0.5)
    ax.set_xlim(-limit, limit)
    ax.set_ylim(-limit, limit)
    ax.set_aspect("equal")
    ax.set_xlabel("Re G")
    ax.set_ylabel("Im G")
    delay = "exact delay" if curve.pade is None else f"Pade-{curve.pade}"
    count = curve.count
    ax.set_title(
        f"alpha = {curve.alpha:g}, beta = {curve.beta:g} ({delay}): "
        f"N = {int(count.clockwise)}, P = {count.rhp_poles}, Z = {int(np.asarray(count.unstable))}"
    )
    ax.legend(loc="upper right")
    return ax
