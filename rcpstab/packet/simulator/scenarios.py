"""Scenarios: the set-ups the packet simulator and the fluid model both run.

A scenario is plain data: the bottleneck (capacity, round-trip propagation delay, eta,
buffer), the schedule of long-lived flows as (start, stop) times, and optional Poisson
arrivals of Pareto-sized flows. ``n_flows(t)`` gives the fluid model its N(t).
"""

from __future__ import annotations

import math
from bisect import bisect_right
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

from ...errors import InputError
from ...runtime.validation import DOMAINS


@dataclass(frozen=True)
class PoissonArrivals:
    """Flows arriving as a Poisson process with Pareto-distributed sizes.

    Parameters
    ----------
    rate_per_s : float
        Mean flow arrivals per second.
    mean_size_bytes : float
        Mean flow size, bytes.
    shape : float
        Pareto shape (> 1 so the mean exists).
    start_s, stop_s : float
        Arrivals happen in [start_s, stop_s), seconds.
    """

    rate_per_s: float
    mean_size_bytes: float
    shape: float = 1.2
    start_s: float = 0.0
    stop_s: float = math.inf


@dataclass(frozen=True)
class Scenario:
    """A single-bottleneck set-up.

    Parameters
    ----------
    name : str
        Registry name.
    capacity_bps : float
        Bottleneck capacity C, bit/s.
    rtt_s : float
        Round-trip propagation delay d0, seconds.
    eta : float
        Target utilisation; equilibrium R = eta * C / N.
    long_flows : tuple of (float, float)
        Long-lived flows as (start_s, stop_s); ``math.inf`` = never stops.
    t_end_s : float
        Default length of a run, seconds.
    forward_delay_share : float
        Fraction of ``rtt_s`` on the data direction (the rest delays ACKs).
    buffer_bytes : int or None
        Drop-tail buffer of the bottleneck, bytes; None = one bandwidth-delay product.
    reverse_capacity_bps : float or None
        Capacity of the ACK path, bit/s; None = ``capacity_bps``.
    initial_R_over_C : float
        The router's initial rate R(0)/C.
    request_bps : float
        Rate the senders request in their headers, bit/s; 0 = "as fast as possible".
    packet_bytes : int
        IP datagram size of a data packet, bytes.
    poisson : PoissonArrivals or None
        Short flows on top of the long-lived ones.
    start_jitter_s : float
        Each long-lived flow starts at its start time plus a uniform draw from [0, start_jitter_s),
        seconds, from the run's seed (ns-3's random start times); 0: no draw, every seed the same run.
        The flow-count segments a run is judged by stay the scripted ones.
    """

    name: str
    capacity_bps: float
    rtt_s: float
    eta: float
    long_flows: tuple[tuple[float, float], ...]
    t_end_s: float
    forward_delay_share: float = 0.5
    buffer_bytes: int | None = None
    reverse_capacity_bps: float | None = None
    initial_R_over_C: float = 0.05
    request_bps: float = 0.0
    packet_bytes: int = 1500
    poisson: PoissonArrivals | None = None
    start_jitter_s: float = 0.0

    @property
    def bdp_bytes(self) -> float:
        """Bandwidth-delay product C * d0, bytes."""
        return self.capacity_bps * self.rtt_s / 8

    @property
    def effective_buffer_bytes(self) -> int:
        """The bottleneck's buffer, bytes (one BDP unless set)."""
        return int(self.bdp_bytes) if self.buffer_bytes is None else self.buffer_bytes

    def n_flows(self, t: float) -> int:
        """Number of scripted long-lived flows active at time ``t`` seconds."""
        starts, stops = self._flow_edges
        # active <=> start <= t < stop; for start < stop, stop <= t implies start <= t
        return bisect_right(starts, t) - bisect_right(stops, t)

    @cached_property
    def _flow_edges(self) -> tuple[list, list]:
        """The sorted starts and stops of the flows that are ever active (start < stop), computed once: the
        router's control path asks for the count every interval, and a scan of 1000 flows cost more than
        the interval's events."""
        live = [(start, stop) for start, stop in self.long_flows if start < stop]
        return sorted(start for start, _ in live), sorted(stop for _, stop in live)

    def validate(self) -> None:
        """Raise :class:`InputError` naming the first invalid value."""
        checks = (
            (self.capacity_bps > 0, f"capacity_bps={self.capacity_bps} must be > 0"),
            # the router's first control interval (avg_rtt's prior): MIN_CONTROL_INTERVAL_NS at least, or a hang
            (DOMAINS["path_rtt"].contains(self.rtt_s), f"rtt_s={self.rtt_s}: must be {DOMAINS['path_rtt'].describe()}"),
            (0 <= self.forward_delay_share <= 1, f"forward_delay_share={self.forward_delay_share} not in [0, 1]"),
            (0 < self.eta <= 1, f"eta={self.eta} must be in (0, 1]"),
            (self.t_end_s > 0, f"t_end_s={self.t_end_s} must be > 0"),
            (self.packet_bytes >= 64, f"packet_bytes={self.packet_bytes} must be >= 64"),
            (
                self.effective_buffer_bytes >= self.packet_bytes,
                f"buffer_bytes={self.effective_buffer_bytes} holds 0 packets of {self.packet_bytes} bytes",
            ),
            (0 < self.initial_R_over_C <= 1, f"initial_R_over_C={self.initial_R_over_C} must be in (0, 1]"),
            (self.request_bps >= 0, f"request_bps={self.request_bps} must be >= 0"),
            (self.start_jitter_s >= 0, f"start_jitter_s={self.start_jitter_s} must be >= 0"),
            (
                self.reverse_capacity_bps is None or self.reverse_capacity_bps > 0,
                f"reverse_capacity_bps={self.reverse_capacity_bps} must be > 0",
            ),
        )
        for ok, message in checks:
            if not ok:
                raise InputError(f"scenario {self.name}: {message}")
        for start, stop in self.long_flows:
            if not 0 <= start < stop:
                raise InputError(f"scenario {self.name}: flow ({start}, {stop}) needs 0 <= start < stop")
            if not start + self.start_jitter_s < stop:
                raise InputError(
                    f"scenario {self.name}: start_jitter_s={self.start_jitter_s:g} would start flow "
                    f"({start:g}, {stop:g}) after its stop"
                )
        if self.poisson is not None:
            p = self.poisson
            if p.rate_per_s <= 0 or p.mean_size_bytes <= 0 or p.shape <= 1 or not 0 <= p.start_s < p.stop_s:
                raise InputError(f"scenario {self.name}: invalid Poisson arrivals {p}")


PRESETS = Path(__file__).parent / "presets"
"""The named single-link presets, each a topology file (:mod:`~rcpstab.packet.simulator.topofile`)."""


def preset(name: str) -> Scenario:
    """The named preset ``PRESETS/<name>.toml`` as a :class:`Scenario` (its one link and flows)."""
    from .topofile import load_topology  # topofile builds on this module's Scenario

    return load_topology(PRESETS / f"{name}.toml").single_link()


# Thesis Fig. 5.3 (10 Mb/s, 100 ms: the thesis gives neither) and the Sec. 6.1.2 testbed, from their files
FIG5_3 = preset("fig5.3")
TESTBED = preset("testbed")

CROWD_FACTOR = 10  # a flash crowd: N flows become 10 N (rcp-ac.txt Fig. 1: 10 -> 100; check's envelope)
CROWD_BEFORE_RTT = 40.0  # the N flows settle first: twice the settling cosim allows (cosim.TRANSIENT_RTT)
CROWD_AFTER_RTT = 80.0  # room to recover and to show it stays recovered


def flash_crowd(
    capacity_bps: float,
    rtt_s: float,
    n_flows: int,
    buffer_bdp: float = 1.0,
    eta: float = 1.0,
    factor: int = CROWD_FACTOR,
    before_rtt: float = CROWD_BEFORE_RTT,
    after_rtt: float = CROWD_AFTER_RTT,
    name: str = "flash-crowd",
) -> Scenario:
    """A flash crowd: ``n_flows`` long-lived flows at equilibrium, then ``(factor - 1) * n_flows`` more at once.

    The router starts at the old equilibrium, R/C = eta/N; the crowd starts ``before_rtt`` round
    trips in, the run ends ``after_rtt`` round trips later. The buffer is ``buffer_bdp``
    bandwidth-delay products (drop-tail; the thesis' rule of thumb is 1, Ch. 4).

    Examples
    --------
    >>> sc = flash_crowd(100e6, 0.05, 2)
    >>> sc.n_flows(1.0), sc.n_flows(3.0), sc.effective_buffer_bytes
    (2, 20, 625000)
    """
    n = int(n_flows)
    crowd_s = before_rtt * rtt_s
    buffer = None if buffer_bdp is None else int(round(buffer_bdp * capacity_bps * rtt_s / 8))
    return Scenario(
        name=name,
        capacity_bps=float(capacity_bps),
        rtt_s=float(rtt_s),
        eta=eta,
        long_flows=((0.0, math.inf),) * n + ((crowd_s, math.inf),) * ((factor - 1) * n),
        t_end_s=crowd_s + after_rtt * rtt_s,
        buffer_bytes=buffer,
        initial_R_over_C=1.0 / n,
    )


def crowd_time_s(scenario: Scenario) -> float:
    """When the crowd starts (s): the latest start of a scripted flow."""
    return max(start for start, _ in scenario.long_flows)


# 100 Mb/s, 50 ms, 2 -> 20 flows: 21 packets of C*d0 per flow after the crowd, so the window floor
# of one packet does not bind; 120 RTTs are about 50 000 packets.
FLASH_CROWD = flash_crowd(100e6, 0.05, 2)

SCENARIOS: dict[str, Scenario] = {s.name: s for s in (FIG5_3, TESTBED, FLASH_CROWD)}


def get_scenario(scenario: str | Scenario, also: tuple = ()) -> Scenario:
    """Look a scenario up by name or single-link topology file (or pass a :class:`Scenario` through) and validate it.

    ``also`` names the caller's other valid scenarios (``cosim``'s network ``fig5.7``), so that
    the error for an unknown name lists everything the user may type, with the closest match.
    """
    if isinstance(scenario, str) and scenario.endswith((".toml", ".json")):
        from .topofile import load_topology

        spec = load_topology(scenario)
        scenario = spec.single_link()
        if scenario is None:
            raise InputError(
                f"topology file {spec.name!r}: not a single-link scenario (one link that every flow "
                "crosses, no start jitter); run it with rcpstab.cosim or run_topology"
            )
    if isinstance(scenario, str):
        if scenario not in SCENARIOS:
            import difflib

            known = list(SCENARIOS) + list(also)
            close = difflib.get_close_matches(scenario, known, n=1, cutoff=0.5)
            hint = f"did you mean {close[0]!r}? " if close else ""
            raise InputError(f"unknown scenario {scenario!r} ({hint}known: {', '.join(known)})")
        scenario = SCENARIOS[scenario]
    scenario.validate()
    return scenario
