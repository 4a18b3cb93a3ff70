"""Bifurcation diagrams: limit-cycle amplitude against the swept gain, with the exact linear boundary."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from ..figures import current_axes
from .result import BifurcationDiagram

if TYPE_CHECKING:
    from matplotlib.axes import Axes

__all__ = ["bifurcation_plot", "continuation_plot"]


def bifurcation_plot(diagram: BifurcationDiagram, ax: Axes | None = None, title: str | None = None, hopf: Any = None) -> Axes:
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
            y = np.array([100 * r["amplitude_relative"] if r["state"] in ("cycle", "equilibrium") else np.nan for r in rows])
            moving = np.array(
                [100 * r["amplitude_relative"] if r["state"] not in ("cycle", "equilibrium") else np.nan for r in rows]
            )
            ax.plot(x, y, style + marker, color=color, ms=4, label=f"{diagram.fixed_parameter}={fixed:g} {direction}")
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
    ax.set_title(
        title
        or f"Bifurcation diagram, model '{diagram.model.name}' (dotted: exact linear boundary; open: still growing or decaying)",
        fontsize=8,
    )
    ax.legend(fontsize=7)
    return ax


def continuation_plot(diagram: BifurcationDiagram, branches: list[Any], ax: Axes | None = None, title: str | None = None) -> Axes:
    """Branches of periodic orbits (stable solid, unstable dashed, folds marked) under the up/down simulations.

    Amplitudes are half peak-to-peak of the normalised rate in % of its equilibrium value; the
    simulations (``diagram``) are drawn on top as triangles (up: filled, down: open).

    Parameters
    ----------
    diagram : BifurcationDiagram
        The simulations (one held value).
    branches : list of Branch
        From :func:`~rcpstab.bifurcation.branches.orbit_branches`.
    ax : matplotlib.axes.Axes, optional
    title : str, optional

    Returns
    -------
    matplotlib.axes.Axes
    """
    ax = ax or current_axes()
    p = diagram.parameter
    scale = 100 / diagram.gamma_eq
    labelled = set()
    for b in branches:
        gains = np.array([r[p] for r in b.points])
        amps = np.array([r["amplitude"] for r in b.points]) * scale
        stable = np.array([r["stable"] for r in b.points])
        for flag, style, name in ((True, "-", "stable orbits"), (False, "--", "unstable orbits")):
            # each run of equal stability drawn as one line, joined to its neighbour so no gap shows
            y: Any = np.where(stable == flag, amps, np.nan)
            edge = np.flatnonzero(np.diff(stable.astype(int)) != 0)
            for i in edge:
                y[i + (stable[i] != flag)] = amps[i + (stable[i] != flag)]
            ax.plot(gains, y, style, color="k", lw=1.4, label=None if name in labelled else name)
            labelled.add(name)
        for f in b.folds:
            ax.plot(f[p], f["amplitude"] * scale, "o", ms=7, mfc="none", mec="C3", label=None if "fold" in labelled else "fold")
            labelled.add("fold")
    for fixed in sorted(diagram.boundaries):
        for direction, marker, fill in (("up", "^", None), ("down", "v", "none")):
            rows = diagram.branch(fixed, direction)
            x = [r[p] for r in rows if r["state"] in ("cycle", "equilibrium")]
            y = [r["amplitude_relative"] * 100 for r in rows if r["state"] in ("cycle", "equilibrium")]
            ax.plot(x, y, marker, color="C0" if direction == "up" else "C1", ms=5, mfc=fill, label=f"simulation, {p} {direction}")
        for b in diagram.boundaries[fixed]:
            ax.axvline(b, color="0.5", lw=0.8, ls=":", label=None if "lin" in labelled else "exact linear boundary")
            labelled.add("lin")
    ax.set_xlabel(f"{p} (dimensionless gain)")
    ax.set_ylabel("cycle amplitude: half peak-to-peak rate, % of equilibrium")
    models = sorted({b.model for b in branches})
    held = ", ".join(f"{diagram.fixed_parameter} = {k:g}" for k in diagram.boundaries)
    ax.set_title(
        title
        or f"'{diagram.model.name}', {held}: periodic orbits"
        + (f" of {', '.join(models)}" if models and models != [diagram.model.name] else ""),
        fontsize=8,
    )
    ax.set_ylim(bottom=0.0)
    ax.legend(fontsize=7)
    return ax
