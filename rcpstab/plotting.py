"""Figures of the region maps for the command line: the verdict map when a map has verdicts,
else the shaded region (:func:`rcpstab.linear.region_plot.region_plot`).

Computation lives in the engines; these functions only draw a
:class:`~rcpstab.linear.result.RegionMap` they are given.
"""

from __future__ import annotations

from .figures import draw_and_save
from .figures_raster import is_png
from .linear.region_plot import METHOD_LABELS, region_plot  # noqa: F401  (the figure of a plain map)
from .linear.result import RegionMap


def has_verdicts(region: RegionMap) -> bool:
    """Whether the map carries a verdict per point (phase plane, packet): its figure shows the four verdicts."""
    return region.table is not None and "verdict" in region.table  # type: ignore[redundant-expr]  # a public dataclass: a caller may set table=None


def save_region_figure(region: RegionMap, path: str) -> None:
    """Draw the map in a new figure and write it to ``path`` (.png, .svg, .pdf): the four verdicts
    (:func:`~rcpstab.phaseplane.plotting.verdict_plot`) when the map has them, else :func:`region_plot`;
    the PNG of a map without verdicts by :mod:`rcpstab.linear.region_raster`, without matplotlib's figure."""
    if has_verdicts(region):
        from .phaseplane.plotting import verdict_plot

        draw_and_save(verdict_plot, region, path)
    elif is_png(path):
        from .linear.region_raster import save_region_png

        save_region_png(region, path)
    else:
        draw_and_save(region_plot, region, path)
