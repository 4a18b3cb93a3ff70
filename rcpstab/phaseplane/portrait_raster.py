"""The phase portrait's PNG without matplotlib's figure machinery (:mod:`rcpstab.figures_raster`).

The same figure as :func:`~rcpstab.phaseplane.plotting.portrait_plot`: each start's trajectory in the
(R/C, q) plane in its own colour with its start marked, any limit cycle as a thick black curve, the
equilibrium as a star, the legend below the axes and a zoom on the cycles placed where it hides the
fewest trajectory samples.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..figures import title_lines
from ..figures_raster import TAB10, X_SMALL_PT, LegendEntry, RasterFigure
from .plotting import (
    INSET_SIZE,
    MBIT,
    PORTRAIT_AXES,
    cycle_label,
    cycle_limits,
    least_covered,
    portrait_title,
    trajectory_label,
)
from .trajectory import Trajectory
from .verdicts import Judgement

__all__ = ["portrait_figure"]

FIGSIZE = (6.4, 4.8)  # inches at 150 dpi, as figures.draw_and_save's matplotlib figure
MARGIN = 0.05  # matplotlib's default axes margins: 5% of the data range on each side


def _limits(values: np.ndarray) -> tuple[float, float]:
    finite = values[np.isfinite(values)]
    lo, hi = (float(finite.min()), float(finite.max())) if finite.size else (0.0, 1.0)
    span = hi - lo or max(abs(lo), 1.0) * 0.1  # one value: a range around it
    return lo - MARGIN * span, hi + MARGIN * span


def portrait_figure(
    traj: Trajectory, title: str | None = None, verdicts: Judgement | None = None, cycles: dict[int, Any] | None = None
) -> RasterFigure:
    """The phase portrait of ``traj`` as a raster figure.

    Parameters
    ----------
    traj : Trajectory
        A batch of trajectories (App. E's six starts at one (alpha, beta)); R/C on x, the queue in Mbit on y.
    title : str, optional
        Headline (default: the model and its gains); the network and the duration follow it.
    verdicts : Judgement, optional
        Each start's verdict, shown in its legend entry.
    cycles : dict, optional
        Start index to ``(gamma, queue_bits)`` over a few periods of its limit cycle: drawn thick and black,
        and zoomed on in an inset.

    Returns
    -------
    RasterFigure
        Its :meth:`~rcpstab.figures_raster.RasterFigure.save` writes the PNG.

    Examples
    --------
    >>> from rcpstab import portrait
    >>> traj = portrait("rcp", 0.4, 0.2, rtts=20).value   # App. E's six starts
    >>> portrait_figure(traj).render().size   # 6.4 x 4.8 in at 150 dpi, in pixels
    (960, 720)
    """
    cycles = cycles or {}
    queue = traj.queue / MBIT
    # the data limits of everything drawn: trajectories, cycles, the equilibrium
    xs = [traj.gamma.ravel(), *(np.ravel(g) for g, _ in cycles.values()), traj.gamma_eq[:1]]
    ys = [queue.ravel(), *(np.ravel(q) / MBIT for _, q in cycles.values()), traj.queue_eq[:1] / MBIT]
    figure = RasterFigure(FIGSIZE)
    ax = figure.axes(_limits(np.concatenate(xs)), _limits(np.concatenate(ys)))
    legend = []
    for b in range(traj.gamma.shape[1]):
        color = TAB10[b % len(TAB10)]
        ax.line(traj.gamma[:, b], queue[:, b], color, 0.9)
        ax.marker(traj.gamma[0, b], queue[0, b], color, "o", 4.0)
        legend.append(LegendEntry("line", trajectory_label(traj, b, verdicts), color, width_pt=0.9))
    for k, (b, (gamma, cycle_queue)) in enumerate(cycles.items()):
        ax.line(gamma, cycle_queue / MBIT, "k", 2.5)
        if k == 0:
            legend.append(LegendEntry("line", cycle_label(traj, b, gamma, verdicts), "k", width_pt=2.5))
    ax.marker(traj.gamma_eq[0], traj.queue_eq[0] / MBIT, "k", "*", 12.0)
    legend.append(LegendEntry("marker", "equilibrium", "k", marker="*", size_pt=12.0))
    ax.xlabel, ax.ylabel = PORTRAIT_AXES
    ax.title = title_lines(*portrait_title(traj, title), FIGSIZE[0])
    ax.set_legend(legend, "below", ncol=2, fontsize_pt=X_SMALL_PT)
    if cycles:
        figure.layout()  # the axes' place: the zoom goes where it hides the fewest samples
        (x0, x1), (y0, y1) = ax.xlim, ax.ylim
        curves = [(traj.gamma[:, b], queue[:, b]) for b in range(traj.gamma.shape[1])]
        curves += [(g, q / MBIT) for g, q in cycles.values()]
        fractions = [np.column_stack([(np.ravel(x) - x0) / (x1 - x0), (np.ravel(y) - y0) / (y1 - y0)]) for x, y in curves]
        rect = least_covered(fractions, (), INSET_SIZE)  # the legend is below the axes: nothing else to avoid
        inset = ax.inset(tuple(rect), *cycle_limits(traj, cycles))
        for gamma, cycle_queue in cycles.values():
            inset.line(gamma, cycle_queue / MBIT, "k", 1.5)
        inset.marker(traj.gamma_eq[0], traj.queue_eq[0] / MBIT, "k", "*", 8.0)
        inset.title = ["limit cycle (zoom)"]
    return figure
