"""Contour maps of a margin map (data from :func:`~rcpstab.linear.marginmap.margin_map`).

Four panels: gain margin, phase margin, delay margin and the decay rate -Re(lambda) of the
rightmost root, each with the exact stable boundary, the thesis' recommended box
(alpha in (0.4, 0.6), beta in (0.2, 0.6): thesis Sec. 5.4 lines 2696-2697 and Ch. 7 line 3668)
and XCP's gains (0.4, 0.226) marked.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from ..figures import new_figure, save
from .exact import boundary_points
from .region_plot import exact_region_patch, gain_labels
from .result import RegionMap

if TYPE_CHECKING:
    from matplotlib.figure import Figure

THESIS_BOX = ((0.4, 0.6), (0.2, 0.6))
XCP_POINT = (0.4, 0.226)
PANELS = (
    ("gain_margin", "gain margin (loop-gain factor)", (1.0, 1.25, 1.5, 2.0, 3.0, 5.0)),
    ("phase_margin_deg", "phase margin (deg)", (0.0, 10.0, 20.0, 30.0, 45.0, 60.0)),
    ("delay_margin", "delay margin (units of d0)", (0.0, 0.1, 0.25, 0.5, 1.0, 2.0)),
    ("decay", "decay rate -Re(s) d0 of the rightmost root", (0.0, 0.05, 0.1, 0.2, 0.3, 0.5)),
)

__all__ = ["THESIS_BOX", "XCP_POINT", "margin_map_plot", "save_margin_figure"]


def _layer(region: RegionMap, name: str, levels: Sequence[float]) -> np.ndarray:
    """The panel's values, continued across the stable boundary so that the fill ends on it.

    Each margin reaches its lowest level exactly on the boundary (gain margin 1, phase and delay
    margins 0, decay rate 0) and continues past it for an unstable loop (a gain factor below 1,
    negative margins). Masking unstable points instead stopped the fill at the last stable grid
    cell, a staircase below the boundary. Values below the lowest level are not filled, so the
    unstable side stays blank; where a margin does not exist there (no loop gain stabilizes it),
    the value is set below the lowest level, and a stable loop without a limit (no phase
    crossing: an infinite gain margin) is set to the top.
    """
    if name == "decay":
        decay: np.ndarray = -region.layers["rightmost_real"]
        return decay
    values = np.array(region.layers[name], float)
    below = levels[0] - (levels[1] - levels[0])
    values = np.where(np.isfinite(values), values, np.where(region.stable, np.inf, below))
    if name == "gain_margin":
        # Where the loop is lost because the *lower* end of its stable gain range reaches 1
        # (conditionally stable side), the gain margin stays above 1 up to the boundary and the
        # unstable side's factor is a raise, not a continuation: extend the stable neighbours'
        # values there instead; the fill is clipped to the exact boundary (margin_map_plot).
        raise_ = ~region.stable & (values >= levels[0])
        padded = np.pad(np.where(region.stable, values, -np.inf), 1, constant_values=-np.inf)
        near = np.max(
            [
                padded[1 + di : padded.shape[0] - 1 + di, 1 + dj : padded.shape[1] - 1 + dj]
                for di in (-1, 0, 1)
                for dj in (-1, 0, 1)
            ],
            axis=0,
        )
        values = np.where(raise_, np.where(np.isfinite(near), near, below), values)
    return values


def margin_map_plot(region: RegionMap, axes: Any = None, fig: Figure | None = None) -> Any:
    """Draw the four contour panels on ``axes`` (4 Axes) or on a new 2x2 grid of ``fig``.

    Returns the axes.
    """
    if axes is None:
        fig = fig or new_figure((11, 8.5))
        axes = fig.subplots(2, 2, sharex=True, sharey=True).ravel()
    a, b = boundary_points(region.model, float(region.alpha.max()), float(region.beta.max()))
    (ba0, ba1), (bb0, bb1) = THESIS_BOX
    for ax, (name, title, levels) in zip(axes, PANELS):
        z = _layer(region, name, levels)
        if region.alpha.size > 1 and region.beta.size > 1 and np.isfinite(z).any():
            top = max(2 * levels[-1], float(np.max(z[np.isfinite(z)])))
            z = np.minimum(z, top)
            filled = ax.contourf(region.alpha, region.beta, z, levels=list(levels) + [top], cmap="viridis")
            lines = ax.contour(region.alpha, region.beta, z, levels=levels, colors="k", linewidths=0.5)
            ax.clabel(lines, fontsize="x-small", fmt="%g")
            clip = exact_region_patch(ax, a, b, float(region.beta.min()))
            if clip is not None:
                filled.set_clip_path(clip)
                lines.set_clip_path(clip)
            ax.figure.colorbar(filled, ax=ax, shrink=0.85)
        ax.plot(a, b, color="tab:red", lw=1.5, label="exact stable boundary")
        ax.plot(
            [ba0, ba1, ba1, ba0, ba0], [bb0, bb0, bb1, bb1, bb0], color="m", lw=1.5, ls="--", label="thesis box (Sec. 5.4, Ch. 7)"
        )
        ax.plot(*XCP_POINT, marker="*", color="tab:orange", markersize=12, ls="none", label="XCP (0.4, 0.226)")
        ax.set_title(title, fontsize="medium")
        ax.set_xlim(region.alpha.min(), region.alpha.max())
        ax.set_ylim(region.beta.min(), region.beta.max())
    xlabel, ylabel = gain_labels(region.model, short=True)
    for ax in axes[2:]:
        ax.set_xlabel(xlabel)
    for ax in axes[::2]:
        ax.set_ylabel(ylabel)
    axes[0].legend(loc="upper right", fontsize="x-small")
    axes[0].figure.suptitle(f"Margins of model '{region.model.name}' (unstable points blank)")
    return axes


def save_margin_figure(region: RegionMap, path: str) -> None:
    """:func:`margin_map_plot` in a new figure, written to ``path``."""
    fig = new_figure((11, 8.5))
    margin_map_plot(region, fig=fig)
    save(fig, path)
