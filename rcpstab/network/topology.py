"""Multi-link networks for the fluid model: links, groups of identical flows, max-min rates.

A router sits at the head of each link and runs RCP on it; a flow's path is a sequence
of links, and its round trip is the sum of their one-way delays plus a reverse path
(thesis Fig. 5.7: the reverse path mirrors the forward one).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from ..packet.simulator.topofile import check_every_link_crossed
from ..runtime.validation import check_value


@dataclass(frozen=True)
class Link:
    """One link and the RCP router at its head.

    Attributes
    ----------
    name : str
    capacity : float
        bit/s.
    delay : float
        One-way propagation delay, s.
    """

    name: str
    capacity: float
    delay: float


@dataclass(frozen=True)
class FlowGroup:
    """``count`` identical long-lived flows on one path.

    Attributes
    ----------
    name : str
    count : int
    path : tuple of str
        Link names, in the order the data crosses them.
    rtt : float
        Round-trip propagation delay, s.
    """

    name: str
    count: int
    path: tuple[str, ...]
    rtt: float


@dataclass(frozen=True)
class Network:
    """Links and flow groups."""

    links: tuple[Any, ...]
    groups: tuple[Any, ...]

    def __post_init__(self) -> None:
        # as a topology file: a link no group crosses has no RTT for its router to start from
        check_every_link_crossed([link.name for link in self.links], [g.path for g in self.groups])
        for g in self.groups:  # its routers' first control interval (App. F: Tr = min(avg_rtt, 10 ms))
            check_value("path_rtt", g.rtt, field=f"group {g.name!r} rtt")

    def link_index(self, name: str) -> int:
        return [link.name for link in self.links].index(name)

    def offsets(self, group: FlowGroup) -> list[float]:
        """Time (s) from the sender to the head of each link of the group's path."""
        out, elapsed = [], 0.0
        for name in group.path:
            out.append(elapsed)
            elapsed += self.links[self.link_index(name)].delay
        return out

    def max_min_rates(self, eta: float = 1.0, active: ArrayLike | None = None) -> tuple[np.ndarray, np.ndarray]:
        """The max-min fair allocation RCP aims for (water-filling on eta*C).

        Parameters
        ----------
        eta : float
            Target utilization.
        active : array_like of bool, shape (groups,), optional
            The groups sending (default: all); the others get rate 0 and leave their links to the rest.

        Returns
        -------
        group_rates : ndarray, shape (groups,)
            Each flow's rate, bit/s.
        link_rates : ndarray, shape (links,)
            The rate each router should settle at, bit/s: the fair share at a bottleneck,
            eta*C (the cap of App. F line 11) where no flow is bottlenecked.
        """
        capacity = np.array([eta * link.capacity for link in self.links])
        on = np.array([[name in g.path for name in (link.name for link in self.links)] for g in self.groups])
        counts = np.array([g.count for g in self.groups], dtype=float)
        rates = np.full(len(self.groups), np.nan)
        if active is not None:
            rates[~np.asarray(active, bool)] = 0.0
        link_rates = capacity.copy()
        while np.isnan(rates).any():
            free = np.isnan(rates)
            left = capacity - on[~free].T @ (counts[~free] * rates[~free])
            users = on[free].T @ counts[free]
            share = np.divide(left, users, out=np.full_like(left, np.inf), where=users > 0)
            bottleneck = int(np.argmin(share))
            fixed = free & on[:, bottleneck]
            rates[fixed] = share[bottleneck]
            link_rates[bottleneck] = share[bottleneck]
        return rates, link_rates

    def equilibrium_rtt(self, eta: float = 1.0) -> np.ndarray:
        """Each link's packet-average RTT (eq. 5.16, s) at the max-min rates with empty queues."""
        return self.packet_average_rtt(self.max_min_rates(eta)[0])

    def packet_average_rtt(self, group_rates: Sequence[float] | np.ndarray, rtts: ArrayLike | None = None) -> np.ndarray:
        """Each link's packet-average propagation RTT (eq. 5.16, s) with each group's flows at ``group_rates``
        (of ``rtts`` instead, one per group, s, if given)."""
        volume = np.array(
            [[g.count * r * (link.name in g.path) for g, r in zip(self.groups, group_rates)] for link in self.links]
        )
        rtts = np.array([g.rtt for g in self.groups]) if rtts is None else np.asarray(rtts, float)
        average: np.ndarray = volume @ rtts / np.maximum(volume.sum(axis=1), 1e-300)
        return average

    def path_min(self, link_values: ArrayLike) -> np.ndarray:
        """Per group, the smallest of ``link_values`` (shape (links,)) along its path: the rate its flows send at."""
        values = np.asarray(link_values, float)
        return np.array([min(values[self.link_index(name)] for name in g.path) for g in self.groups])


def fig57(l2_delay: float = 10.0) -> Network:
    """Thesis Fig. 5.7: 49 short flows cross L1 then L3; one long flow crosses L1 then L2.

    L1 155 Mb/s and L3 100 Mb/s with 1 ms delays, L2 622 Mb/s with ``l2_delay`` (10 s in
    the thesis). The short flows' round trip is 2*(1 + 1) ms = 4 ms, the long flow's
    2*(1 ms + 10 s) = 20.002 s. At equilibrium the short flows share L3 (100/49 Mb/s each,
    100 Mb/s across L1) and the long flow gets what is left of L1: 55 Mb/s.
    """
    links = (Link("L1", 155e6, 1e-3), Link("L2", 622e6, l2_delay), Link("L3", 100e6, 1e-3))
    groups = (FlowGroup("short", 49, ("L1", "L3"), 4e-3), FlowGroup("long", 1, ("L1", "L2"), 2 * (1e-3 + l2_delay)))
    return Network(links, groups)
