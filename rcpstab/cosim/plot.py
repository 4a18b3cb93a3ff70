"""Figure of a co-simulation: R/C and the queue of the packet and fluid runs overlaid.

Draws a :class:`~rcpstab.cosim.packet_vs_fluid.CosimResult` computed elsewhere (data first,
plotting separate, as in the rest of rcpstab).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, cast

import numpy as np
from matplotlib.axes import Axes
from matplotlib.figure import Figure

from ..figures import network_caption, new_figure, save, set_title
from .packet_vs_fluid import CosimResult


def cosim_plot(result: CosimResult, axes: Sequence[Axes] | None = None) -> tuple[Axes, Axes]:
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
    rate_ax.plot(result.t, result.fluid_R_over_C, lw=1.0, label=f"fluid model {result.model.name}")
    for seg in result.segments:
        rate_ax.hlines(seg.equilibrium, seg.start_s, seg.stop_s, colors="k", linestyles="--", lw=0.7)
    rate_ax.plot([], [], "k--", lw=0.7, label="eta/N")
    rate_ax.set_ylabel("R/C (dimensionless)")
    sc = result.scenario
    buffer = {"buffer_bdp": 1.0} if sc.buffer_bytes is None else {"buffer_bytes": sc.buffer_bytes}
    set_title(
        rate_ax,
        f"Co-simulation {sc.name}, {result.model.name}: alpha = {result.alpha:g}, beta = {result.beta:g}",
        f"{network_caption({'C': sc.capacity_bps, 'd0': sc.rtt_s, 'N': [int(result.n_flows.min()), int(result.n_flows.max())], **buffer})}"
        f"; packet simulator (reference router) vs fluid model",
    )
    rate_ax.legend(fontsize="small", loc="upper right")
    queue_ax.plot(result.t, result.packet_queue_bytes, lw=0.8, label="packet (reference router)")
    queue_ax.plot(result.t, result.fluid_queue_bytes, lw=1.0, label=f"fluid model {result.model.name}")
    queue_ax.set_xlabel("time (s)")
    queue_ax.set_ylabel("bottleneck queue (bytes)")
    queue_ax.legend(fontsize="small", loc="upper right")
    return rate_ax, queue_ax


def save_cosim_figure(result: CosimResult, path: str) -> None:
    """Draw :func:`cosim_plot` in a new figure and write it to ``path`` (.png, .svg or .pdf)."""
    rate_ax, _ = cosim_plot(result)
    save(cast(Figure, rate_ax.figure), path)  # axes of new_figure(): a Figure


def network_title(scenario: Any) -> str:
    """The network of a flash crowd in words: capacity, RTT, flows before and after, buffer."""
    flows = sorted({scenario.n_flows(start) for start, _ in scenario.long_flows})
    return (
        f"C = {scenario.capacity_bps / 1e6:.4g} Mb/s, d0 = {scenario.rtt_s * 1000:.4g} ms, "
        f"N = {flows[0]} -> {flows[-1]}, buffer {scenario.effective_buffer_bytes / scenario.bdp_bytes:.3g} C*d0"
    )


def flash_crowd_plot(result: Any, axes: Sequence[Axes] | None = None) -> tuple[Axes, Axes, Axes]:
    """Three panels against RTTs since the crowd's arrival: R/C (log), the queue and the dropped volume (C*d0).

    Parameters
    ----------
    result : FlashCrowdResult
    axes : sequence of three matplotlib.axes.Axes, optional

    Returns
    -------
    tuple of matplotlib.axes.Axes
    """
    if axes is None:
        axes = new_figure((7.5, 8.0)).subplots(3, 1, sharex=True)
    rate_ax, queue_ax, drop_ax = axes
    d0 = result.scenario.rtt_s
    for side, t, rate, queue, dropped in (
        (
            "packet (reference router)",
            result.packet_t,
            result.packet_R_over_C,
            result.packet_queue_bdp,
            result.packet_dropped_bdp,
        ),
        (
            f"fluid model {result.model.name}",
            result.fluid_t,
            result.fluid_R_over_C,
            result.fluid_queue_bdp,
            result.fluid_dropped_bdp,
        ),
    ):
        x = (np.asarray(t) - result.arrival_s) / d0
        rate_ax.plot(x, np.maximum(rate, 1e-6), lw=0.9, label=side)
        queue_ax.plot(x, queue, lw=0.9, label=side)
        drop_ax.plot(x, np.asarray(dropped) - np.interp(result.crowd_s, t, dropped), lw=0.9, label=side)
    for response, style in ((result.packet, ":"), (result.fluid, "--")):
        rate_ax.axhline(response.gamma_eq, color="k", ls=style, lw=0.6)
    rate_ax.set_yscale("log")
    rate_ax.set_ylabel("R/C")
    f, p = result.fluid, result.packet

    def rec(r: Any) -> str:
        return f"{r.recovery_rtt:.3g}" if np.isfinite(r.recovery_rtt) else "-"

    rate_ax.set_title(
        f"flash crowd, {network_title(result.scenario)}\nalpha = {result.alpha:g}, beta = "
        f"{result.beta:g}: recovery fluid {rec(f)} / packet {rec(p)} RTTs",
        fontsize="medium",
    )
    rate_ax.legend(fontsize="small", loc="lower right")
    queue_ax.axhline(result.scenario.effective_buffer_bytes / result.scenario.bdp_bytes, color="k", lw=0.6, ls="--")
    queue_ax.set_ylabel("queue (C*d0)")
    drop_ax.set_ylabel("dropped since the crowd (C*d0)")
    drop_ax.set_xlabel("RTTs since the crowd's first data reached the router")
    return rate_ax, queue_ax, drop_ax


def save_flash_crowd_figure(result: Any, path: str) -> None:
    """Draw :func:`flash_crowd_plot` in a new figure and write it to ``path``."""
    rate_ax, _, _ = flash_crowd_plot(result)
    save(cast(Figure, rate_ax.figure), path)  # axes of new_figure(): a Figure
