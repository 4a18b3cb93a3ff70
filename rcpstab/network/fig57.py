"""Scenario ``fig5.7``: thesis Fig. 5.7's three links, rates at L1 and L3 and L1's RTT estimate (Figs. 5.8-5.9)."""

from __future__ import annotations

from numpy.typing import ArrayLike

from .fluid import DEFAULT_DT, NetworkRun, simulate_network
from .topology import fig57

THESIS_POINTS = ((0.1, 1.0), (0.5, 0.1))
"""The extreme (alpha, beta) of Figs. 5.8 and 5.9."""


def simulate_fig57(
    alpha: ArrayLike, beta: ArrayLike, t_end: float = 400.0, dt: float = DEFAULT_DT, eta: float = 1.0, l2_delay: float = 10.0
) -> NetworkRun:
    """Run Fig. 5.7's network for ``t_end`` seconds (default: 20 round trips of the long flow).

    Parameters
    ----------
    alpha, beta : float or array_like, shape (B,)
        RCP gains; several pairs run as one batch.
    t_end : float
        Duration, s.
    dt : float
        Step, s (1 ms: the 1 ms links' delay).
    eta : float
        Target utilization (Figs. 5.8-5.9 use 1).
    l2_delay : float
        L2's one-way delay, s (the thesis' 10 s; a whole number of ``dt``).

    Returns
    -------
    NetworkRun
        ``rate[:, run.link("L1")]``, ``rate[:, run.link("L3")]`` and ``avg_rtt[:, run.link("L1")]``
        are the curves of Figs. 5.8-5.9.
    """
    return simulate_network(fig57(l2_delay), alpha, beta, t_end, dt=dt, eta=eta)
