"""Thesis Fig. 4.1: AFCT against flow size, log axes, beside processor sharing.

Only draws an :class:`~.study.FctResult` it is given.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from matplotlib.axes import Axes

from ..figures import current_axes, draw_and_save
from .ps import lower_bound_fct, processor_sharing_fct

__all__ = ["fct_plot", "save_fct_figure", "network_title"]


def network_title(result: Any) -> str:
    """The set-up in one line: C, RTPD, rho, sizes, gains, buffer."""
    s = result.setup
    return (
        f"C = {s.capacity_bps / 1e6:g} Mb/s, RTPD = {s.rtt_s:g} s, $\\rho$ = {s.load:g}, {s.sizes}, "
        f"$\\alpha$ = {s.alpha:g}, $\\beta$ = {s.beta:g}, buffer {s.buffer_bytes * 8 / (s.capacity_bps * s.rtt_s):.2g} BDP"
    )


def fct_plot(result: Any, ax: Axes | None = None, show_max: bool = True, label: str = "RCP (reference router)") -> Axes:
    """AFCT (and the largest FCT) per size bin on log axes, with eq. 4.1 and the lower bound.

    Returns the axes.
    """
    ax = ax or current_axes()
    s = result.setup
    sizes = np.array([b.mean_size_pkts for b in result.bins])
    ax.loglog(sizes, [b.afct_s for b in result.bins], "o-", color="tab:red", label=f"{label}: AFCT")
    if show_max:
        ax.loglog(sizes, [b.max_fct_s for b in result.bins], "v:", color="tab:red", alpha=0.6, label=f"{label}: max FCT")
    grid = np.geomspace(1, max(sizes.max(), 2), 200)
    bits = grid * s.packet_bytes * 8
    if result.ps_mean_active is not None:
        ax.loglog(
            grid,
            processor_sharing_fct(bits, s.capacity_bps, s.rtt_s, s.load),
            "k-",
            label=r"PS, eq. 4.1: $1.5\,RTPD + L/(C(1-\rho))$",
        )
        drawn = result.measured_load
        if np.isfinite(drawn) and 0 < drawn < 1 and abs(drawn - s.load) > 0.02 * s.load:
            # Heavy tails: a finite run draws less load than rho; PS at the drawn load too.
            ax.loglog(
                grid,
                processor_sharing_fct(bits, s.capacity_bps, s.rtt_s, drawn),
                "-",
                color="0.6",
                label=rf"PS at the load this run drew, $\hat\rho$ = {drawn:.3f}",
            )
    ax.loglog(grid, lower_bound_fct(bits, s.capacity_bps, s.rtt_s), "k--", lw=0.8, label=r"lower bound $1.5\,RTPD + L/C$")
    ax.set_xlabel(f"flow size L (data packets of {s.packet_bytes:d} bytes)")
    ax.set_ylabel("flow completion time (s)")
    ax.set_title(network_title(result), fontsize="small")
    ax.legend(fontsize="small", loc="upper left")
    ax.grid(True, which="both", alpha=0.3)
    return ax


def save_fct_figure(result: Any, path: str) -> None:
    """Draw :func:`fct_plot` in a new figure and write it to ``path`` (.png, .svg, .pdf)."""
    draw_and_save(fct_plot, result, path, figsize=(7.5, 5.2))
