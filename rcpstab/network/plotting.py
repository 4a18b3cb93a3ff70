"""Figures of network runs: rates at two links and a router's RTT estimate vs time (thesis Figs. 5.8-5.9)."""
from __future__ import annotations

from ..figures import new_figure, save
from .fluid import NetworkRun

MBPS = 1e6


def network_plot(run: NetworkRun, rate_links=("L1", "L3"), rtt_link: str = "L1", fig=None):
    """Rates at ``rate_links`` (top) and ``rtt_link``'s RTT estimates d and d_T (bottom), every run of the batch.

    Returns
    -------
    matplotlib.figure.Figure
    """
    fig = fig or new_figure((9, 6))
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
    i = run.link(rtt_link)
    for b in range(run.alpha.size):
        (line,) = ax.plot(run.t, run.avg_rtt[:, i, b], lw=1.2,
                          label=rf"d (eq. 5.17), $\alpha$={run.alpha[b]:g}, $\beta$={run.beta[b]:g}")
        ax.plot(run.t, run.rtt_sample[:, i, b], lw=0.6, alpha=0.5, color=line.get_color(), label=r"$d_T$ (eq. 5.16)")
    ax.axhline(run.target_rtt[i], color="k", ls=":", lw=1, label="at equilibrium")
    ax.set_title(f"Average RTT estimate at {rtt_link}")
    ax.set_xlabel("time (s)")
    ax.set_ylabel("RTT (s)")
    ax.legend(fontsize="small")
    return fig


def save_network_figure(run: NetworkRun, path: str) -> None:
    """Draw :func:`network_plot` and write it to ``path`` (.png, .svg, .pdf)."""
    save(network_plot(run), path)
