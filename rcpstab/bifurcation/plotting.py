"""Bifurcation diagrams: limit-cycle amplitude against the swept gain, with the exact linear boundary."""
from __future__ import annotations

import numpy as np

from ..figures import current_axes
from .result import BifurcationDiagram

__all__ = ["bifurcation_plot"]


def bifurcation_plot(diagram: BifurcationDiagram, ax=None, title: str | None = None, hopf=None):
    """Amplitude (half peak-to-peak R/C, % of equilibrium) of each branch, up and down.

    Parameters
    ----------
    diagram : BifurcationDiagram
    ax : matplotlib.axes.Axes, optional
    title : str, optional
    hopf : sequence of HopfPoint, optional
        Normal-form predictions to overlay (the sqrt amplitude law near each point).

    Returns
    -------
    matplotlib.axes.Axes
    """
    ax = ax or current_axes()
    colors = {}
    for k, fixed in enumerate(sorted(diagram.boundaries)):
        color = f"C{k % 10}"
        colors[fixed] = color
        for direction, marker, style in (("up", "^", "-"), ("down", "v", "--")):
            rows = diagram.branch(fixed, direction)
            x = np.array([r[diagram.parameter] for r in rows])
            y = np.array([100 * r["amplitude_relative"] if r["state"] in ("cycle", "equilibrium") else np.nan
                          for r in rows])
            moving = np.array([100 * r["amplitude_relative"] if r["state"] not in ("cycle", "equilibrium") else np.nan
                               for r in rows])
            ax.plot(x, y, style + marker, color=color, ms=4,
                    label=f"{diagram.fixed_parameter}={fixed:g} {direction}")
            ax.plot(x, moving, marker, color=color, ms=4, mfc="none")
            flagged = [r[diagram.parameter] for r in rows if r["hysteresis"]]
            if flagged and direction == "up":
                ax.plot(flagged, np.zeros(len(flagged)), "x", color=color, ms=8)
        for b in diagram.boundaries[fixed]:
            ax.axvline(b, color=color, lw=0.8, ls=":")
    for point in hopf or ():
        gain = np.linspace(point.critical - 0.05, point.critical + 0.05, 200)
        ax.plot(gain, 100 * point.predicted_amplitude(gain) / diagram.gamma_eq, color="k", lw=0.8)
    ax.set_yscale("symlog", linthresh=0.1)
    ax.set_ylim(bottom=0.0)  # an amplitude: symlog would otherwise offer negative decades
    ax.set_xlabel(diagram.parameter)
    ax.set_ylabel("limit-cycle amplitude, % of equilibrium R/C")
    ax.set_title(title or f"Bifurcation diagram, model '{diagram.model.name}' (dotted: exact linear boundary; "
                 "open: still growing or decaying)", fontsize=8)
    ax.legend(fontsize=7)
    return ax
