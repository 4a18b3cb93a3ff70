"""What a packet run on a network costs: the work that drives it, and its CPU time and memory.

A run's CPU time goes to packet events and to the routers' control intervals; its memory to
the per-port traces (a row per control interval), the packets in flight and the per-flow
samples. None of these follow the simulated time alone: packets follow the links' rates,
intervals follow the round trips (App. F line 13: Tr = min(avg_rtt, 10 ms)), so a network
ten times faster costs ten times the CPU, and one with microsecond links a thousand intervals
where it had one. :func:`packet_run_work` counts them from the topology, and
:func:`packet_run_cost` prices them with the constants below, which
``benchmarks/bench_network.py --cost`` fits on one set of runs and checks on another.

The count is of the max-min equilibrium (:meth:`~rcpstab.network.topology.Network.max_min_rates`,
recomputed whenever a group starts or stops): every flow sends from the end of its first round
trip (the handshake) at its max-min rate, each data packet crossing every link of its path and
its ACK every mirror. RCP starts below it (R/C = 0.1 eta) and converges to it, so the count
is from above, as is the queueing a run adds to the round trips (longer intervals).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..network.topology import Network
from ..packet.protocols import get_protocol
from ..packet.routers.rcp.control import MIN_RATE_MTU_FRACTION
from ..runtime.validation import MIN_CONTROL_INTERVAL_NS

__all__ = [
    "BYTES_PER_FLOW_SAMPLE",
    "BYTES_PER_INTERVAL",
    "BYTES_PER_PACKET_IN_FLIGHT",
    "SECONDS_PER_FLOW_SAMPLE",
    "SECONDS_PER_INTERVAL",
    "SECONDS_PER_PACKET_HOP",
    "PacketRunWork",
    "network_run_cost",
    "packet_run_cost",
    "packet_run_work",
    "topology_work",
]

# Fitted by benchmarks/bench_network.py --cost (docs/performance.md has the figures and the load),
# the C event loop with the control paths in C (the bundled RCP): the largest of three runs' proposals (the
# fit scaled until no calibration run costs more than its estimate). A packet hop is a data packet crossing a link with its ACK crossing
# the mirror (about ten events; a refresh probe counts as a packet); an interval is one port's control step
# and its trace row (seven floats, kept twice while the chunks are joined); a packet in flight is held in the
# simulator's pool and event heap; a flow sample is one flow's delivered bytes once a second (Python ints).
SECONDS_PER_PACKET_HOP = 0.54e-6
SECONDS_PER_INTERVAL = 0.84e-6
SECONDS_PER_FLOW_SAMPLE = 52e-6
BYTES_PER_INTERVAL = 320
BYTES_PER_PACKET_IN_FLIGHT = 320
BYTES_PER_FLOW_SAMPLE = 280
MAX_INTERVAL_S = 0.01  # App. F line 13
CTRL_BYTES = 52  # a SYN, ACK or probe: IP, TCP and the RCP header (packet.simulator.run)


@dataclass(frozen=True)
class PacketRunWork:
    """The work of one packet run on a network (what :func:`packet_run_cost` prices).

    Attributes
    ----------
    packet_hops : float
        Data packets times the links each crosses (each with its ACK on the link's mirror).
    intervals : float
        Control intervals, all ports together.
    in_flight : float
        Packets in flight at the largest equilibrium (every flow's rate times its round trip), packets.
    flow_samples : float
        Flows times per-flow samples.
    """

    packet_hops: float
    intervals: float
    in_flight: float
    flow_samples: float


def packet_run_work(
    net: Network,
    t_end_s: float,
    *,
    eta: float = 1.0,
    packet_bytes: int = 1500,
    windows: Any = None,
    flow_sample_s: float = 1.0,
) -> PacketRunWork:
    """Count the work of a packet run of ``net`` (module docstring: from the max-min equilibrium).

    Parameters
    ----------
    net : Network
        Links (capacity bit/s, delay s) and flow groups (count, path, round trip s).
    t_end_s : float
        Simulated time, s.
    eta : float
        Target utilization of the routers.
    packet_bytes : int
        Data packet size, bytes.
    windows : sequence of (float, float), optional
        Per group, its flows' start and stop times, s (default: all from 0, never stopping).
    flow_sample_s : float
        Interval of the per-flow samples, s.

    Returns
    -------
    PacketRunWork

    Examples
    --------
    Fig. 5.7 for 40 s: the 49 short flows fill L3 (100 Mb/s, two links each) from 4 ms, a packet every
    5.9 ms and a probe between (their round trip is 4 ms); the long flow (55 Mb/s, two links) sends from
    the end of its 20.002 s handshake.

    >>> from rcpstab.network import fig57
    >>> w = packet_run_work(fig57(), 40.0)
    >>> round(w.packet_hops / (2 * (2 * 100e6 * (40 - 0.004) + 55e6 * (40 - 20.002)) / 12000), 6)
    1.0
    """
    groups = net.groups
    bits, ctrl_bits = 8.0 * packet_bytes, 8.0 * CTRL_BYTES
    per_bit = np.array([sum(1.0 / net.links[net.link_index(name)].capacity for name in g.path) for g in groups])
    # the routers start from the propagation round trips and learn the ones packets carry (with a data
    # packet's and its ACK's serialization), which the RCP header holds in whole ms: shorter ones read 0 and
    # leave the start; a sender's smallest round trip, its refresh probes' period, carries control packets
    rtt = np.array([g.rtt for g in groups])
    carried = rtt + (bits + ctrl_bits) * per_bit
    seen_rtt = np.where(carried >= get_protocol("rcp").rtt_resolution_s, carried, rtt)
    probe_rtt = rtt + 2 * ctrl_bits * per_bit
    if windows is None:
        windows = [(0.0, math.inf)] * len(groups)
    on_from = np.array([w[0] for w in windows], float) + rtt  # data follow the handshake's round trip
    until = np.minimum(np.array([w[1] for w in windows], float), t_end_s)
    counts = np.array([g.count for g in groups], float)
    hops = np.array([len(g.path) for g in groups], float)
    edges = np.unique(np.clip(np.concatenate([[0.0, t_end_s], on_from, until]), 0.0, t_end_s))
    # each port's interval: the packet-average round trip of the flows it carries, within App. F's bounds
    # (a port no flow crosses yet keeps the equilibrium of all flows)
    settled_rtt = net.packet_average_rtt(net.max_min_rates(eta)[0], seen_rtt)
    packets_hops = in_flight_bits = intervals = 0.0
    for t0, t1 in zip(edges[:-1], edges[1:]):
        active = (on_from <= t0) & (until >= t1)
        link_rtt = settled_rtt
        if active.any():
            # no router lets a rate below App. F's floor (line 9: 0.01 MTU / avg_rtt)
            rates = np.where(active, np.maximum(net.max_min_rates(eta, active)[0], MIN_RATE_MTU_FRACTION * bits / rtt), 0.0)
            # a sender whose next packet is over a round trip away probes once a round trip (ns-2's REF)
            probes = np.floor(bits / np.maximum(rates, 1e-300) / probe_rtt)
            packets_hops += float(t1 - t0) * float(np.sum(counts * rates / bits * (1.0 + probes) * hops))
            # a pipe fills over a round trip from the group's first data
            in_flight_bits = max(in_flight_bits, float(np.sum(counts * rates * np.clip(t1 - on_from, 0.0, rtt))))
            average = net.packet_average_rtt(rates, seen_rtt)  # 0 on a link no active flow crosses
            link_rtt = np.where(average > 0, average, settled_rtt)
        intervals += float(np.sum(float(t1 - t0) / np.clip(link_rtt, MIN_CONTROL_INTERVAL_NS / 1e9, MAX_INTERVAL_S)))
    return PacketRunWork(
        packet_hops=packets_hops,
        intervals=intervals,
        in_flight=in_flight_bits / bits,
        flow_samples=float(counts.sum() * math.floor(t_end_s / flow_sample_s)),
    )


def topology_work(spec: Any, t_end_s: float | None = None) -> PacketRunWork:
    """:func:`packet_run_work` of a topology file (:class:`~rcpstab.packet.simulator.topofile.TopologySpec`):
    its groups' start and stop times, eta and packet size; ``t_end_s`` default: the file's."""
    from .network_packet_run import spec_network

    return packet_run_work(
        spec_network(spec),
        spec.t_end_s if t_end_s is None else t_end_s,
        eta=spec.eta,
        packet_bytes=spec.packet_bytes,
        windows=[(f.start_s, f.stop_s) for f in spec.flows],
    )


def packet_run_cost(work: PacketRunWork) -> tuple[float, float]:
    """CPU seconds and peak bytes of a run doing ``work`` (the module's constants).

    Parameters
    ----------
    work : PacketRunWork

    Returns
    -------
    cpu_s : float
        CPU time, s.
    memory_bytes : float
        Peak memory above the interpreter's, bytes.

    Examples
    --------
    >>> cpu, memory = packet_run_cost(PacketRunWork(packet_hops=1e6, intervals=0, in_flight=0, flow_samples=0))
    >>> cpu == 1e6 * SECONDS_PER_PACKET_HOP, memory
    (True, 0.0)
    """
    cpu = (
        work.packet_hops * SECONDS_PER_PACKET_HOP
        + work.intervals * SECONDS_PER_INTERVAL
        + work.flow_samples * SECONDS_PER_FLOW_SAMPLE
    )
    memory = (
        work.intervals * BYTES_PER_INTERVAL
        + work.in_flight * BYTES_PER_PACKET_IN_FLIGHT
        + work.flow_samples * BYTES_PER_FLOW_SAMPLE
    )
    return float(cpu), float(memory)


def network_run_cost(target: Any, t_end_s: float, fluid: bool = True) -> tuple[float, float]:
    """CPU seconds and peak bytes of a packet run of ``target`` and, with ``fluid``, its fluid run (a co-simulation).

    Parameters
    ----------
    target : Network or TopologySpec
        A network scenario (all flows from 0, 1500-byte packets, eta 1) or a topology file.
    t_end_s : float
        Simulated time, s.
    fluid : bool
        Add :func:`~rcpstab.network.fluid.fluid_run_cost` (kept with the packet run's traces).

    Returns
    -------
    cpu_s, memory_bytes : float

    Examples
    --------
    >>> from rcpstab.network import fig57
    >>> (cpu, _), (cpu10, _) = (network_run_cost(fig57(), t) for t in (40.0, 400.0))
    >>> bool(cpu10 > 10 * cpu)   # the long flow sends from 20 s on
    True
    """
    from ..network.fluid import fluid_run_cost

    if isinstance(target, Network):
        net, work = target, packet_run_work(target, t_end_s)
    else:
        from .network_packet_run import spec_network

        net, work = spec_network(target), topology_work(target, t_end_s)
    cpu, memory = packet_run_cost(work)
    if fluid:
        fluid_cpu, fluid_memory = fluid_run_cost(net, t_end_s)
        cpu, memory = cpu + fluid_cpu, memory + fluid_memory
    return cpu, memory
