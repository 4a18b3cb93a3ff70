"""Figure of a co-simulation: R/C and the queue of the packet and fluid runs overlaid.

Draws a :class:`~rcpstab.reference_impl.cosim.CosimResult` computed elsewhere (data first,
plotting separate, as in the rest of rcpstab).
"""
from __future__ import annotations

from ..figures import network_caption, new_figure, save, set_title
from .cosim import CosimResult


def cosim_plot(result: CosimResult, axes=None):
    """Two panels against time (s): R/C (with eta/N dashed) and the queue (bytes), both runs.

    Parameters
    ----------
    result : CosimResult
    axes : pair of matplotlib.axes.Axes, optional
        Rate panel and queue panel; new ones in a new figure if omitted.

    Returns
    -------
    tuple of matplotlib.axes.Axes
    """
    if axes is None:
        axes = new_figure((7.5, 6.0)).subplots(2, 1, sharex=True)
    rate_ax, queue_ax = axes
    rate_ax.plot(result.t, result.packet_R_over_C, lw=0.8, label="packet (reference router)")
    rate_ax.plot(result.t, result.fluid_R_over_C, lw=1.0, label="fluid model rcp")
    for seg in result.segments:
        rate_ax.hlines(seg.equilibrium, seg.start_s, seg.stop_s, colors="k", linestyles="--", lw=0.7)
    rate_ax.plot([], [], "k--", lw=0.7, label="eta/N")
    rate_ax.set_ylabel("R/C (dimensionless)")
    sc = result.scenario
    buffer = {"buffer_bdp": 1.0} if sc.buffer_bytes is None else {"buffer_bytes": sc.buffer_bytes}
    set_title(rate_ax, f"Co-simulation {sc.name}, {result.model}: alpha = {result.alpha:g}, beta = {result.beta:g}",
              f"{network_caption({'C': sc.capacity_bps, 'd0': sc.rtt_s, 'N': [int(result.n_flows.min()), int(result.n_flows.max())], **buffer})}"
              f"; packet simulator (reference router) vs fluid model")
    rate_ax.legend(fontsize="small", loc="upper right")
    queue_ax.plot(result.t, result.packet_queue_bytes, lw=0.8, label="packet (reference router)")
    queue_ax.plot(result.t, result.fluid_queue_bytes, lw=1.0, label="fluid model rcp")
    queue_ax.set_xlabel("time (s)")
    queue_ax.set_ylabel("bottleneck queue (bytes)")
    queue_ax.legend(fontsize="small", loc="upper right")
    return rate_ax, queue_ax


def save_cosim_figure(result: CosimResult, path: str) -> None:
    """Draw :func:`cosim_plot` in a new figure and write it to ``path`` (.png, .svg or .pdf)."""
    rate_ax, _ = cosim_plot(result)
    save(rate_ax.figure, path)
