"""Figure plumbing shared by every plotting module, without touching matplotlib's backend.

Library code never calls ``matplotlib.use``: a figure written to a file is a plain
:class:`matplotlib.figure.Figure` (no pyplot, no GUI), and a plot drawn without axes in a
notebook goes to pyplot's current axes, so Jupyter's inline backend keeps working.
"""
from __future__ import annotations

import numpy as np
from matplotlib.figure import Figure


def new_figure(figsize=(6.4, 4.8)) -> Figure:
    """A figure detached from pyplot, with constrained layout."""
    return Figure(figsize=figsize, layout="constrained")


def current_axes():
    """pyplot's current axes: where a plot goes when the caller gives none."""
    import matplotlib.pyplot as plt

    return plt.gca()


def grid_extent(alpha, beta, single_step: float = 0.05):
    """``imshow`` extent that centres each cell of an (alpha, beta) grid on its point.

    A one-point axis gets cells ``single_step`` wide.
    """
    da = np.diff(alpha).min() if alpha.size > 1 else single_step
    db = np.diff(beta).min() if beta.size > 1 else single_step
    return (alpha[0] - da / 2, alpha[-1] + da / 2, beta[0] - db / 2, beta[-1] + db / 2)


def save(fig: Figure, path: str, dpi: int = 150) -> None:
    """Write ``fig`` to ``path``; the format follows the suffix (.png, .svg, .pdf)."""
    fig.savefig(path, dpi=dpi)


def draw_and_save(draw, data, path: str, figsize=(6.4, 4.8), **kwargs) -> None:
    """Call ``draw(data, ax=..., **kwargs)`` on a new figure's axes and write it to ``path``."""
    fig = new_figure(figsize)
    draw(data, ax=fig.subplots(), **kwargs)
    save(fig, path)
