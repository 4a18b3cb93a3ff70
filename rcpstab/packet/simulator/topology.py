"""Topologies built from links, and the flow table the simulators take.

A topology is a list of links (each an output port with a drop-tail queue) and named
paths through them. The single-bottleneck dumbbell is built here; a multi-link network is
another builder returning the same :class:`Topology`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..protocols.registry import port_code
from ..wire.rcp_header import RATE_ALL_ONES
from .scenarios import Scenario

NS_PER_S = 1_000_000_000
JITTER_STREAM = 1  # the start jitter's random stream: default_rng([seed, JITTER_STREAM]), apart from the arrivals'
# Header bytes of the thesis' window rule: MSS + RCP_HEADER_SIZE + IP_HEADER_SIZE.
IP_HEADER_BYTES = 20
TCP_HEADER_BYTES = 20
RCP_HEADER_BYTES = 12
CTRL_PACKET_BYTES = IP_HEADER_BYTES + RCP_HEADER_BYTES + TCP_HEADER_BYTES  # SYN, SYN-ACK, pure ACK
RWND_PACKETS = 4096  # receiver's advertised window, packets (6 MB at 1500 bytes)


@dataclass(frozen=True)
class Link:
    """One direction of a link: its output port, queue, serialisation and propagation.

    Parameters
    ----------
    name : str
        Label used in traces.
    capacity_bps : float
        Line rate, bit/s.
    delay_s : float
        Propagation delay, seconds.
    buffer_bytes : int
        Drop-tail buffer, bytes.
    protocol : str
        Router on the port: ``"plain"`` (drop-tail only) or a registered packet protocol
        (:data:`rcpstab.packet.protocols.PACKET_PROTOCOLS`: ``"rcp"``, ``"xcp"``, ``"rcpac"``, ...).
    """

    name: str
    capacity_bps: float
    delay_s: float
    buffer_bytes: int
    protocol: str

    @property
    def controlled(self) -> bool:
        """Whether a control path runs on this port."""
        return self.protocol != "plain"

    def as_sim_tuple(self) -> tuple[int, int, int, int]:
        """(capacity b/s, delay ns, buffer bytes, protocol code) as the simulators take it."""
        return (int(round(self.capacity_bps)), int(round(self.delay_s * NS_PER_S)), self.buffer_bytes, port_code(self.protocol))


@dataclass(frozen=True)
class Topology:
    """Links, paths as tuples of link indices, and the link whose trace is recorded."""

    links: tuple[Link, ...]
    forward_path: int
    reverse_path: int
    paths: tuple[tuple[int, ...], ...]
    monitored_link: int


def dumbbell(scenario: Scenario, protocol: str = "rcp") -> Topology:
    """Single bottleneck: data over a ``protocol`` link, ACKs over a plain return link."""
    forward = Link(
        "bottleneck",
        scenario.capacity_bps,
        scenario.rtt_s * scenario.forward_delay_share,
        scenario.effective_buffer_bytes,
        protocol=protocol,
    )
    reverse_capacity = scenario.reverse_capacity_bps or scenario.capacity_bps
    reverse = Link(
        "return",
        reverse_capacity,
        scenario.rtt_s * (1 - scenario.forward_delay_share),
        max(int(reverse_capacity * scenario.rtt_s / 8), scenario.packet_bytes),
        protocol="plain",
    )
    return Topology(links=(forward, reverse), forward_path=0, reverse_path=1, paths=((0,), (1,)), monitored_link=0)


def request_field(request_bps: float) -> int:
    """The rate a sender writes in its header, bytes/ms (0 = as fast as possible)."""
    return min(int(round(request_bps / 8000)), RATE_ALL_ONES - 1)


def _ns(t_s: float) -> int:
    return -1 if math.isinf(t_s) else int(round(t_s * NS_PER_S))


def flow_table(scenario: Scenario, topology: Topology, seed: int, t_end_s: float) -> list[tuple[Any, ...]]:
    """Flows as (start ns, stop ns or -1, size packets or 0, request, forward path, reverse path).

    The scripted long-lived flows come first, in scenario order, each delayed by its start jitter
    (``scenario.start_jitter_s``: uniform draws from ``numpy.random.default_rng([seed, 1])``, made only
    when the jitter is > 0); Poisson arrivals follow, drawn from ``numpy.random.default_rng(seed)``
    (their own stream: jitter does not move them), so a seed fixes the whole run.
    """
    request = request_field(scenario.request_bps)
    fwd, rev = topology.forward_path, topology.reverse_path
    starts = [start for start, _ in scenario.long_flows]
    if scenario.start_jitter_s > 0:
        jitter = np.random.default_rng([seed, JITTER_STREAM]).uniform(0.0, scenario.start_jitter_s, len(starts))
        starts = [start + float(j) for start, j in zip(starts, jitter)]
    flows = [(_ns(start), _ns(stop), 0, request, fwd, rev) for start, (_, stop) in zip(starts, scenario.long_flows)]
    p = scenario.poisson
    if p is not None:
        rng = np.random.default_rng(seed)
        t = p.start_s
        scale = p.mean_size_bytes * (p.shape - 1) / p.shape  # Pareto minimum for this mean
        while True:
            t += rng.exponential(1.0 / p.rate_per_s)
            if t >= min(p.stop_s, t_end_s):
                break
            size_bytes = scale * (1.0 + rng.pareto(p.shape))
            flows.append((_ns(t), -1, max(1, math.ceil(size_bytes / scenario.packet_bytes)), request, fwd, rev))
    return flows
