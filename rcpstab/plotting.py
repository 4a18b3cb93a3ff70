"""Figures of the region maps for the command line: the verdict map when a map has verdicts,
else the shaded region (:func:`rcpstab.linear.region_plot.region_plot`).

Computation lives in the engines; these functions only draw a
:class:`~rcpstab.linear.result.RegionMap` they are given.
"""

from __future__ import annotations

from .figures import draw_and_save
from .linear.region_plot import METHOD_LABELS, region_plot  # noqa: F401  (the figure of a plain map)
from .linear.result import RegionMap


def save_region_figure(region: RegionMap, path: str) -> None:
    """Draw the map in a new figure and write it to ``path`` (.png, .svg, .pdf): the four verdicts
    (:func:`~rcpstab.phaseplane.plotting.verdict_plot`) when the map has them, else :func:`region_plot`."""
    if region.table is not None and "verdict" in region.table:  # type: ignore[redundant-expr]  # a public dataclass: a caller may set table=None
        from .phaseplane.plotting import verdict_plot

        draw_and_save(verdict_plot, region, path)
    else:
        draw_and_save(region_plot, region, path)
