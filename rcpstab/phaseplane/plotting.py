"""Figures of phase-plane results: portraits (thesis Figs. E.1-E.2) and convergence maps (Fig. 5.13).

These functions only draw data computed elsewhere (:func:`~rcpstab.phaseplane.simulate`,
:func:`~rcpstab.phaseplane.phaseplane_region`), as python-control separates ``*_response``
from ``*_plot``.
"""
from __future__ import annotations

import numpy as np

from ..figures import current_axes, grid_extent, network_caption, region_caption, set_title
from ..regions.result import RegionMap
from .trajectory import Trajectory

MBIT = 1e6


def portrait_plot(traj: Trajectory, ax=None, title: str | None = None):
    """Draw every trajectory of ``traj`` in the (R/C, q) plane with the equilibrium marked.

    Parameters
    ----------
    traj : Trajectory
        A batch (typically App. E's six initial conditions at one (alpha, beta)).
    ax : matplotlib.axes.Axes, optional
    title : str, optional

    Returns
    -------
    matplotlib.axes.Axes
    """
    ax = ax or current_axes()
    for b in range(traj.gamma.shape[1]):
        label = f"R/C = {traj.gamma[0, b]:.2g}, q = {traj.queue[0, b] / MBIT:.3g} Mbit"
        (line,) = ax.plot(traj.gamma[:, b], traj.queue[:, b] / MBIT, lw=0.9, label=label)
        ax.plot(traj.gamma[0, b], traj.queue[0, b] / MBIT, "o", color=line.get_color(), ms=4)
    ax.plot(traj.gamma_eq[0], traj.queue_eq[0] / MBIT, "k*", ms=12, label="equilibrium")
    ax.set_xlabel("normalized rate R/C (dimensionless)")
    ax.set_ylabel("queue q (Mbit)")
    alpha, beta = (np.atleast_1d(traj.params.get(k, np.nan)) for k in ("alpha", "beta"))
    gains = f", alpha = {alpha[0]:g}, beta = {beta[0]:g}" if alpha.size == 1 and beta.size == 1 else ""
    set_title(ax, title or f"Phase portrait, model '{traj.model}'{gains}",
              f"{network_caption(traj.params)}; nonlinear fluid model, {traj.rtt[-1]:.4g} RTTs")
    ax.legend(fontsize="x-small", loc="upper right")
    return ax


def convergence_plot(region: RegionMap, ax=None):
    """Colour map of the convergence time (RTTs) over (alpha, beta); blank where not stable.

    With several configurations, the slowest over them is shown.
    """
    ax = ax or current_axes()
    table = region.table
    times = np.asarray(table["convergence_rtt"], dtype=float).reshape(-1, region.beta.size, region.alpha.size)
    worst = np.where(np.isnan(times).any(axis=0), np.nan, np.nanmax(np.where(np.isnan(times), -1, times), axis=0))
    extent = grid_extent(region.alpha, region.beta)
    image = ax.imshow(worst, origin="lower", extent=extent, aspect="auto", cmap="viridis", interpolation="nearest")
    ax.figure.colorbar(image, ax=ax, label="convergence time (RTTs)")
    ax.set_xlabel(r"$\alpha$ (rate gain, dimensionless)")
    ax.set_ylabel(r"$\beta$ (queue gain, dimensionless)")
    set_title(ax, f"Convergence time of model '{region.model}' (R within 2%, q within 1% of C·d0)",
              f"{region_caption(region)}; blank: does not converge")
    return ax

