"""The region map's PNG without matplotlib's figure machinery (:mod:`rcpstab.figures_raster`).

The same figure as :func:`~rcpstab.linear.region_plot.region_plot` draws: the stable cells shaded
cell for cell (clipped to the exact boundary for the methods inside it), the exact linear boundary,
the stable points themselves on a small grid, labelled axes, the title and the legend.
"""

from __future__ import annotations

import numpy as np

from ..figures import grid_extent, region_caption, title_lines
from ..figures_raster import LegendEntry, RasterFigure
from .region_plot import INSIDE_EXACT, exact_region_outline, gain_labels, method_label, region_title
from .result import RegionMap

__all__ = ["region_figure", "save_region_png"]

FIGSIZE = (6.4, 4.8)  # inches, at 150 dpi: what figures.draw_and_save gives the matplotlib figure


def region_figure(region: RegionMap, boundary: bool = True, color: str = "tab:blue") -> RasterFigure:
    """The map of ``region`` (a map without verdicts: exact, bode, nyquist, certified) as a raster figure.

    Parameters
    ----------
    region : RegionMap
        The computed map; ``region.stable[j, i]`` is the verdict at ``(alpha[i], beta[j])``.
    boundary : bool
        Draw the exact linear boundary (eq. 5.7) when the model has one.
    color : str
        Colour of the stable cells (drawn at opacity 0.45, as the matplotlib figure).

    Returns
    -------
    RasterFigure
        Its :meth:`~rcpstab.figures_raster.RasterFigure.save` writes the PNG.

    Examples
    --------
    >>> from rcpstab.linear.exact import exact_region
    >>> fig = region_figure(exact_region("rcp", np.arange(1, 41) * 0.05, np.arange(1, 21) * 0.05))
    >>> fig.render().size   # 6.4 x 4.8 in at 150 dpi, in pixels
    (960, 720)
    """
    from .exact import boundary_points, has_linear_boundary

    extent = grid_extent(region.alpha, region.beta)
    figure = RasterFigure(FIGSIZE)
    ax = figure.axes((extent[0], extent[1]), (extent[2], extent[3]))
    label = method_label(region)
    legend = [LegendEntry("patch", f"stable: {label}", color, alpha=0.45)]
    curve: tuple[np.ndarray, np.ndarray] | None = None
    if boundary and has_linear_boundary(region.model):
        curve = boundary_points(region.model, extent[1], extent[3])
    clip = exact_region_outline(curve[0], curve[1], extent[2]) if curve is not None and region.method in INSIDE_EXACT else None
    ax.cells(region.stable, extent, color, 0.45, clip)
    if curve is not None:
        ax.line(curve[0], curve[1], "k", 1.5)
        legend.append(LegendEntry("line", "exact linear boundary", "k"))
        if clip is not None and region.stable.size <= 2500:  # show which points were decided (cells end at the boundary)
            alphas, betas = np.meshgrid(region.alpha, region.beta)
            # matplotlib's "." marker at ms=3: a dot half the marker size across
            ax.marker(alphas[region.stable], betas[region.stable], color, "o", 1.5)
    ax.xlabel, ax.ylabel = gain_labels(region.model, unicode=True)
    ax.title = title_lines(region_title(region), region_caption(region), FIGSIZE[0])
    ax.set_legend(legend, "upper right")
    return figure


def save_region_png(region: RegionMap, path: str) -> None:
    """Write :func:`region_figure` of ``region`` to ``path`` (PNG)."""
    region_figure(region).save(path)
