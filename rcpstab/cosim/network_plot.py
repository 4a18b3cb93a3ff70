"""Figure of a network co-simulation, as thesis Figs. 5.8-5.9: rates at L1 and L3, L1's RTT estimate; packet vs fluid."""

from __future__ import annotations

from collections.abc import Sequence

from matplotlib.figure import Figure

from ..figures import new_figure, save
from ..network.plotting import rtt_estimate_panel
from .network import NetworkCosimResult

MBPS = 1e6


def network_cosim_plot(
    result: NetworkCosimResult, rate_links: Sequence[str] | None = None, rtt_link: str | None = None
) -> Figure:
    """Rates at ``rate_links`` (top) and ``rtt_link``'s RTT estimate d (bottom, d_T thin), both runs.

    By default the links the summary judges (fig5.7: L1 and L3; a topology file: all) and the first of them.

    Returns
    -------
    matplotlib.figure.Figure
    """
    rate_links = result.judged_links if rate_links is None else rate_links
    rtt_link = rate_links[0] if rtt_link is None else rtt_link
    fig = new_figure((9, 6.4))
    fluid = result.fluid
    targets = ", ".join(f"{name} {rate / MBPS:.4g}" for name, rate in zip(fluid.link_names, fluid.target_rate))
    fig.suptitle(
        f"Network {result.scenario} ({len(fluid.link_names)} links), t = 0-{fluid.t[-1]:.4g} s: packet simulator "
        f"(App. F router at every link) vs fluid model\nmax-min target rates (Mb/s): {targets}; "
        "buffers: unbounded",
        fontsize="medium",
    )
    grid = fig.add_gridspec(2, len(rate_links))
    runs = (("packet", result.packet), ("fluid", result.fluid))
    for col, name in enumerate(rate_links):
        ax = fig.add_subplot(grid[0, col])
        for label, run in runs:
            ax.plot(run.t, run.rate[:, run.link(name), 0] / MBPS, lw=1, label=label)
        ax.axhline(result.fluid.target_rate[result.fluid.link(name)] / MBPS, color="k", ls=":", lw=1, label="max-min rate")
        ax.set_title(f"RCP rate at {name}")
        ax.set_xlabel("time (s)")
        ax.set_ylabel("R (Mb/s)")
        ax.legend(fontsize="small")
    ax = fig.add_subplot(grid[1, :])
    rtt_estimate_panel(
        ax,
        [(label, run, 0) for label, run in runs],
        rtt_link,
        result.fluid.target_rtt[result.fluid.link(rtt_link)],
        f"{result.scenario}: average RTT estimate at {rtt_link}, "
        rf"$\alpha$ = {result.alpha:g}, $\beta$ = {result.beta:g}",
    )
    return fig


def save_network_cosim_figure(result: NetworkCosimResult, path: str) -> None:
    """Draw :func:`network_cosim_plot` and write it to ``path`` (.png, .svg, .pdf)."""
    save(network_cosim_plot(result), path)
