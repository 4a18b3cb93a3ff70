"""Flow-count segments of a scenario, its control interval, and one-RTT averaging of packet traces.

Both the co-simulation (plateaus, settling times) and the packet-level region map (one
verdict per segment) judge a run segment by segment: between two changes of the number of
long-lived flows the equilibrium is R/C = eta/N, and each segment is measured against its own.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..routers.rcp.control import MAX_RATE_ESTIMATION_INTERVAL_MS
from .scenarios import Scenario


@dataclass(frozen=True)
class Segment:
    """A stretch of a run with a constant number of scripted long-lived flows.

    Attributes
    ----------
    start_s, stop_s : float
        The stretch [start_s, stop_s), seconds.
    n_flows : int
        Long-lived flows active throughout it.
    """

    start_s: float
    stop_s: float
    n_flows: int

    def equilibrium(self, eta: float) -> float:
        """Equilibrium R/C = eta/N (dimensionless); eta (the rate cap) when no flow is active."""
        return eta / max(self.n_flows, 1)


def flow_segments(scenario: Scenario, t_end_s: float) -> list[Segment]:
    """The segments of ``scenario`` in [0, t_end_s) between changes of its flow count, in order."""
    edges = {0.0, t_end_s}
    edges.update(t for flow in scenario.long_flows for t in flow if 0.0 < t < t_end_s)
    edges = sorted(edges)
    return [Segment(a, b, scenario.n_flows(a)) for a, b in zip(edges[:-1], edges[1:])]


def rtt_average(values: np.ndarray, samples_per_rtt: int) -> np.ndarray:
    """Trailing mean over one round trip (the first samples average what exists so far).

    Parameters
    ----------
    values : ndarray, shape (n,)
        A trace sampled at a fixed interval.
    samples_per_rtt : int
        Samples in one round-trip time.
    """
    width = max(int(samples_per_rtt), 1)
    total = np.cumsum(np.concatenate([[0.0], np.asarray(values, dtype=float)]))
    counts = np.minimum(np.arange(1, len(values) + 1), width)
    return (total[1:] - total[np.arange(1, len(values) + 1) - counts]) / counts


def control_interval_s(scenario: Scenario) -> float:
    """The router's rate-estimation interval min(d0, 10 ms) (App. F), seconds: the fluid T."""
    return min(scenario.rtt_s, MAX_RATE_ESTIMATION_INTERVAL_MS / 1000.0)
