"""Figures of network runs: rates at two links and a router's RTT estimate vs time (thesis Figs. 5.8-5.9)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from ..figures import new_figure, save
from .fluid import NetworkRun

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

MBPS = 1e6


def network_plot(
    run: NetworkRun, rate_links: Sequence[str] = ("L1", "L3"), rtt_link: str = "L1", fig: Figure | None = None
) -> Figure:
    """Rates at ``rate_links`` (top) and ``rtt_link``'s RTT estimates d and d_T (bottom), every run of the batch.

    Returns
    -------
    matplotlib.figure.Figure
    """
    fig = fig or new_figure((9, 6.4))
    targets = ", ".join(f"{name} {rate / MBPS:.4g}" for name, rate in zip(run.link_names, run.target_rate))
    fig.suptitle(
        f"Fluid model of a {len(run.link_names)}-link network (App. F control path at every link), "
        f"t = 0-{run.t[-1]:.4g} s\nmax-min target rates (Mb/s): {targets}; buffers: none (fluid queues)",
        fontsize="medium",
    )
    grid = fig.add_gridspec(2, len(rate_links))
    for col, name in enumerate(rate_links):
        ax = fig.add_subplot(grid[0, col])
        i = run.link(name)
        for b in range(run.alpha.size):
            ax.plot(run.t, run.rate[:, i, b] / MBPS, lw=1, label=rf"$\alpha$={run.alpha[b]:g}, $\beta$={run.beta[b]:g}")
        ax.axhline(run.target_rate[i] / MBPS, color="k", ls=":", lw=1, label="max-min rate")
        ax.set_title(f"RCP rate at {name}")
        ax.set_xlabel("time (s)")
        ax.set_ylabel("R (Mb/s)")
        ax.legend(fontsize="small")
    ax = fig.add_subplot(grid[1, :])
    series = [(rf"$\alpha$={run.alpha[b]:g}, $\beta$={run.beta[b]:g}", run, b) for b in range(run.alpha.size)]
    rtt_estimate_panel(ax, series, rtt_link, run.target_rtt[run.link(rtt_link)], f"Average RTT estimate at {rtt_link}")
    return fig


def rtt_estimate_panel(ax: Axes, series: Any, link: str, target: float, title: str) -> Axes:
    """A router's RTT estimates vs time: eq. 5.17's d (solid) and eq. 5.16's d_T (faint).

    Parameters
    ----------
    series : list of (str, run, int)
        Label, a run with ``t``, ``avg_rtt`` and ``rtt_sample`` (time x link x batch), batch column.
    link : str
        The router's link.
    target : float
        The estimate at equilibrium, s (dotted).
    """
    for label, run, b in series:
        i = run.link(link)
        (line,) = ax.plot(run.t, run.avg_rtt[:, i, b], lw=1.2, label=f"d (eq. 5.17), {label}")
        ax.plot(run.t, run.rtt_sample[:, i, b], lw=0.6, alpha=0.5, color=line.get_color(), label=f"$d_T$ (eq. 5.16), {label}")
    ax.axhline(target, color="k", ls=":", lw=1, label="at equilibrium")
    ax.set_title(title)
    ax.set_xlabel("time (s)")
    ax.set_ylabel("RTT (s)")
    ax.legend(fontsize="small")
    return ax


def save_network_figure(run: NetworkRun, path: str) -> None:
    """Draw :func:`network_plot` and write it to ``path`` (.png, .svg, .pdf)."""
    save(network_plot(run), path)
