"""Packet runs on multi-link networks: every port runs its own control path (thesis Sec. 5.3).

A :class:`rcpstab.network.Network` (the fluid side's description: links, groups of flows
and their paths) becomes a packet topology: each link is an output port of the run's protocol
(RCP by default, or any registered :class:`~rcpstab.packet.protocols.PacketProtocol`),
and each gets a plain mirror link for the ACKs, so a flow's round trip is twice its one-way
delay as in the fluid model. Each port has its own controller on its own timer (RCP:
:class:`~rcpstab.packet.routers.rcp.control.RcpController`, Tr = min(avg_rtt, 10 ms),
App. F line 13), made, loaded, serviced and read by the protocol as in
:func:`~rcpstab.packet.simulator.run.run_scenario`; the trace holds, at every expiry,
R/C (NaN for a router without a rate, XCP), the input rate over C, the queue, the RTT
estimate (RCP: avg_rtt, eq. 5.17; NaN if the protocol keeps none) and the interval's
packet-average RTT d_T (eq. 5.16). On the C backend, the bundled controller classes run their
control paths in C with the event loop (:meth:`~rcpstab.packet.protocols.base.PacketProtocol.native_network_intervals`,
the same bits), so Python runs once per flow sample, not at every expiry of every port.

Set-up shared with the fluid model (:func:`rcpstab.network.simulate_network`): every
router starts at R/C = :data:`~rcpstab.network.fluid.INITIAL_LOAD` * eta with avg_rtt the
rate-weighted propagation RTT of its flows; the fluid queue is unbounded, so are the
ports' buffers (:data:`UNBOUNDED_BUFFER_BYTES`: memory grows with what is queued, never
with the limit); the fluid model counts every flow's RTT, so each
port's MAX_ALLOWABLE_RTT register is raised to :data:`NETWORK_MAX_RTT_MS` (App. F's 20 s
would drop every sample of Fig. 5.7's 20.002 s flow and leave L1 blind to the one flow
it controls).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..errors import InputError
from ..network.fluid import INITIAL_LOAD, NetworkRun
from ..network.topology import FlowGroup, Network
from ..network.topology import Link as NetLink
from ..packet.protocols import get_protocol
from ..packet.protocols.base import MAX_NATIVE_SPAN_NS
from ..packet.simulator.run import NS_PER_S, build_simulator, check_inputs, make_controller
from ..packet.simulator.topofile import UNBOUNDED_BUFFER_BYTES, TopologySpec, load_topology
from ..packet.simulator.topology import Link, Topology, request_field
from ..packet.wire.rcp_header import RTT_UNKNOWN
from ..runtime.atomic import atomic_path

NETWORK_MAX_RTT_MS = RTT_UNKNOWN
"""MAX_ALLOWABLE_RTT of the network's ports, ms: every RTT a sender can write (up to 65.534 s;
transient queues add tens of seconds to Fig. 5.7's 20 s) counts, only all ones ("unknown") does not."""
NETWORK_RWND_PACKETS = 1 << 20
"""Receiver window, packets: the default 4096 would cap a 20 s flow at 2.5 Mb/s."""
BITS_PER_BYTE = 8
TRACE_FIELDS = ("t", "R_over_C", "queue_bytes", "avg_rtt_s", "rtt_sample_s", "interval_s", "utilization")


@dataclass
class PacketNetworkRun:
    """One packet-level run on a network.

    Attributes
    ----------
    network : Network
    alpha, beta, eta : float
    backend : str
    traces : dict of str to dict of str to ndarray
        Per controlled link (by name), at every timer expiry: ``t`` (s), ``R_over_C``,
        ``queue_bytes`` (at the expiry), ``avg_rtt_s`` (RCP: eq. 5.17 after the update),
        ``rtt_sample_s`` (eq. 5.16's d_T of the interval; the previous one if no packet
        carried an RTT), ``interval_s`` (the interval that ended), ``utilization`` (input
        rate over C in the interval).
    counters : dict
        Final simulator counters (events, sent, delivered, dropped, ...).
    wall_time_s : float
    protocol : str
        The routers' and senders' protocol.
    flow_bytes : ndarray
        Bytes each flow's receiver got in order, flows in group order.
    flow_names : list of str
        ``<group>[<i>]`` per flow, in group order.
    flow_t : ndarray
        Times of the per-flow samples, s (every ``flow_sample_s``).
    flow_delivered_bytes : ndarray, shape (len(flow_t), flows)
        Bytes each flow's receiver had got in order at each sample.
    """

    network: Network
    alpha: float
    beta: float
    eta: float
    backend: str
    traces: dict
    counters: dict = field(default_factory=dict)
    wall_time_s: float = 0.0
    protocol: str = "rcp"
    flow_bytes: np.ndarray = field(default_factory=lambda: np.empty(0))
    flow_names: list = field(default_factory=list)
    flow_t: np.ndarray = field(default_factory=lambda: np.empty(0))
    flow_delivered_bytes: np.ndarray = field(default_factory=lambda: np.empty((0, 0)))

    def columns(self, table: str = "links") -> dict[str, np.ndarray]:
        """A long table: ``"links"``, one row per link and timer expiry (``link``, ``t_s`` and the
        :data:`TRACE_FIELDS`, units in the names); ``"flows"``, one row per flow and sample
        (``flow``, ``t_s``, ``delivered_bytes``, ``throughput_bps`` over the interval that ended)."""
        if table == "links":
            names = list(self.traces)
            out = {"link": np.repeat(names, [self.traces[n]["t"].size for n in names])}
            for key in TRACE_FIELDS:
                out["t_s" if key == "t" else key] = np.concatenate([self.traces[n][key] for n in names])
            return out
        if table == "flows":
            d = self.flow_delivered_bytes
            dt = np.diff(self.flow_t, prepend=0.0)[:, None]
            rate = np.diff(d, axis=0, prepend=np.zeros((1, d.shape[1]))) * BITS_PER_BYTE / np.where(dt > 0, dt, np.nan)
            return {
                "flow": np.tile(np.asarray(self.flow_names, dtype=object), d.shape[0]),
                "t_s": np.repeat(self.flow_t, d.shape[1]),
                "delivered_bytes": d.ravel(),
                "throughput_bps": rate.ravel(),
            }
        raise InputError(f"table={table!r}: choose 'links' or 'flows'")

    def to_pandas(self, table: str = "links"):
        """:meth:`columns` of ``table`` as a :class:`pandas.DataFrame` (long format)."""
        try:
            import pandas
        except ImportError:
            raise InputError("to_pandas needs pandas: pip install 'rcpstab[pandas]'") from None
        return pandas.DataFrame(self.columns(table))

    def to_csv(self, path: str, table: str = "links") -> None:
        """Write :meth:`columns` of ``table`` with a header row (through pandas)."""
        frame = self.to_pandas(table)
        with atomic_path(path) as temporary:  # a full disk leaves the old file, not a torn one
            frame.to_csv(temporary, index=False)

    def as_network_run(self, grid) -> NetworkRun:
        """The traces held (sample and hold, as the registers hold) at ``grid`` (s), in the fluid's units."""
        names = tuple(link.name for link in self.network.links)
        capacity = np.array([link.capacity for link in self.network.links])
        grid = np.asarray(grid, float)
        series = {key: np.empty((grid.size, len(names), 1)) for key in ("rate", "queue", "avg_rtt", "sample")}
        for i, name in enumerate(names):
            tr = self.traces[name]
            held = np.clip(np.searchsorted(tr["t"], grid, side="right") - 1, 0, None)
            series["rate"][:, i, 0] = tr["R_over_C"][held] * capacity[i]
            series["queue"][:, i, 0] = tr["queue_bytes"][held] * BITS_PER_BYTE
            series["avg_rtt"][:, i, 0] = tr["avg_rtt_s"][held]
            series["sample"][:, i, 0] = tr["rtt_sample_s"][held]
        return NetworkRun(
            t=grid,
            rate=series["rate"],
            avg_rtt=series["avg_rtt"],
            rtt_sample=series["sample"],
            queue=series["queue"],
            link_names=names,
            alpha=np.array([self.alpha]),
            beta=np.array([self.beta]),
            target_rate=self.network.max_min_rates(self.eta)[1],
            target_rtt=self.network.equilibrium_rtt(self.eta),
        )


def _native_network(backend: str, proto: Any, controllers: dict[int, Any]) -> bool:
    """Whether the run's control paths go in C: the C backend, and the protocol computes every controller's
    updates in C to the bit (:meth:`~rcpstab.packet.protocols.base.PacketProtocol.runs_natively`: the exact
    bundled classes; a subclass runs its own Python at every expiry)."""
    return backend == "c" and bool(controllers) and all(proto.runs_natively(ctrl) for ctrl in controllers.values())


def network_topology(net: Network, protocol: str = "rcp") -> tuple[Topology, list[tuple[int, int]]]:
    """``protocol``'s links of ``net`` (indices 0..L-1), plain ACK mirrors (L..2L-1), and each group's (forward, reverse) path."""
    links = [
        Link(link.name + suffix, link.capacity, link.delay, UNBOUNDED_BUFFER_BYTES, kind)
        for kind, suffix in ((protocol, ""), ("plain", "-ack"))
        for link in net.links
    ]
    n = len(net.links)
    paths, group_paths = [], []
    for g in net.groups:
        forward = tuple(net.link_index(name) for name in g.path)
        paths += [forward, tuple(n + li for li in reversed(forward))]
        group_paths.append((len(paths) - 2, len(paths) - 1))
    topology = Topology(
        links=tuple(links), forward_path=group_paths[0][0], reverse_path=group_paths[0][1], paths=tuple(paths), monitored_link=0
    )
    return topology, group_paths


def run_network(
    net: Network,
    alpha: float,
    beta: float,
    t_end: float,
    *,
    eta: float = 1.0,
    backend: str = "c",
    packet_bytes: int = 1500,
    max_rtt_ms: int = NETWORK_MAX_RTT_MS,
    protocol: str = "rcp",
    flow_sample_s: float = 1.0,
) -> PacketNetworkRun:
    """Simulate ``net`` packet by packet: long-lived flows from t = 0, ``protocol``'s control path on every link.

    Parameters
    ----------
    net : Network
        E.g. :func:`rcpstab.network.fig57`.
    alpha, beta : float
        Router gains (alpha > 0, beta >= 0).
    t_end : float
        Simulated seconds.
    eta : float
        Target utilization of every router.
    backend : {"c", "python"}
    packet_bytes : int
        Data datagram size, bytes.
    max_rtt_ms : int
        Every port's MAX_ALLOWABLE_RTT register, ms (App. F: 20000).
    protocol : str
        A name of :data:`rcpstab.packet.protocols.PACKET_PROTOCOLS` (``"rcp"``: R-TCP
        hosts and App. F routers; ``"xcp"``, ``"rcpac"``: XCP senders), or a registered plug-in.
    flow_sample_s : float
        Interval of the per-flow trace (delivered bytes), s.

    Returns
    -------
    PacketNetworkRun

    Raises
    ------
    InputError
        alpha <= 0, beta < 0, t_end <= 0, an unknown backend or protocol, max_rtt_ms < 1.
    """
    topology, group_paths = network_topology(net, protocol)
    request = request_field(0.0)  # "as fast as possible": the routers set every rate
    flows = [(0, -1, 0, request, fwd, rev) for g, (fwd, rev) in zip(net.groups, group_paths) for _ in range(g.count)]
    names = [f"{g.name}[{i}]" for g in net.groups for i in range(g.count)]
    return _run(net, topology, flows, names, alpha, beta, t_end, eta, backend, packet_bytes, max_rtt_ms, protocol, flow_sample_s)


def spec_network(spec: TopologySpec) -> Network:
    """The fluid side's description of a topology file: its links and flow groups (RTT: path and ACK mirror)."""
    return Network(
        tuple(NetLink(link.name, link.capacity_bps, link.delay_s) for link in spec.links),
        tuple(FlowGroup(f.name, f.count, f.path, spec.rtt_s(f)) for f in spec.flows),
    )


def run_topology(
    spec: TopologySpec | str,
    alpha: float,
    beta: float,
    t_end: float | None = None,
    *,
    backend: str = "c",
    max_rtt_ms: int = NETWORK_MAX_RTT_MS,
    protocol: str = "rcp",
    flow_sample_s: float = 1.0,
    seed: int = 0,
) -> PacketNetworkRun:
    """Simulate a topology file packet by packet: its links' buffers, its flows' paths, starts and stops.

    Parameters
    ----------
    spec : TopologySpec or str
        A loaded file or the path of one (:mod:`rcpstab.packet.simulator.topofile` gives the format).
    alpha, beta : float
        Router gains (alpha > 0, beta >= 0).
    t_end : float, optional
        Simulated seconds (default: the file's ``t_end_s``).
    backend : {"c", "python"}
    max_rtt_ms : int
        Every port's MAX_ALLOWABLE_RTT register, ms.
    protocol : str
        Every link's router and every sender's protocol.
    flow_sample_s : float
        Interval of the per-flow trace (delivered bytes), s.
    seed : int
        Seed of the flows' start jitter (``start_jitter_s``); nothing else in a run is random.

    Returns
    -------
    PacketNetworkRun
        ``to_pandas("links")`` and ``to_pandas("flows")`` are the per-link and per-flow traces.

    Raises
    ------
    InputError
        A bad file or value (named), as :func:`run_network`.
    """
    if not isinstance(spec, TopologySpec):
        spec = load_topology(spec)
    t_end = spec.t_end_s if t_end is None else t_end
    topology, group_paths = spec.packet_topology(protocol)
    return _run(
        spec_network(spec),
        topology,
        spec.flow_table(group_paths, seed),
        spec.flow_names(),
        alpha,
        beta,
        t_end,
        spec.eta,
        backend,
        spec.packet_bytes,
        max_rtt_ms,
        protocol,
        flow_sample_s,
    )


def _run(
    net, topology, flows, flow_names, alpha, beta, t_end, eta, backend, packet_bytes, max_rtt_ms, protocol, flow_sample_s
) -> PacketNetworkRun:
    check_inputs(alpha, beta, backend, t_end, protocol)
    if not (isinstance(max_rtt_ms, int) and max_rtt_ms >= 1):
        raise InputError(f"max_rtt_ms={max_rtt_ms!r} must be an integer >= 1")
    if not flow_sample_s > 0:
        raise InputError(f"flow_sample_s={flow_sample_s}: must be > 0")
    wall_start = time.perf_counter()
    sim = build_simulator(topology, flows, packet_bytes, backend, protocol, rwnd_pkts=NETWORK_RWND_PACKETS)
    rate0 = INITIAL_LOAD * eta * np.array([link.capacity for link in net.links])
    rtt0 = net.packet_average_rtt(net.path_min(rate0))
    proto = get_protocol(protocol)  # every link's: the loop asks it, it never asks which protocol it is
    controllers = {}
    for li in range(len(net.links)):
        controllers[li] = make_controller(topology.links[li], alpha, beta, eta, INITIAL_LOAD, rtt0[li], packet_bytes)
        proto.initial_writes(sim, li, controllers[li])
        sim.set_registers(li, max_rtt=max_rtt_ms)
    interval_ns = {li: proto.initial_interval_ns(c) for li, c in controllers.items()}
    next_tick = dict(interval_ns)
    sample = dict(enumerate(rtt0))
    rows = {li: [] for li in controllers}
    t_end_ns = int(round(t_end * NS_PER_S))
    # per-flow samples: stopping the event loop at extra times does not change its order of events
    window_ns = int(round(flow_sample_s * NS_PER_S))
    next_window, flow_t, delivered = window_ns, [], []
    if _native_network(backend, proto, controllers):
        # the control paths in C (the same bits), Python once per flow sample
        chunks: dict[int, list[np.ndarray]] = {li: [] for li in controllers}
        while True:
            limit = min(next_window, t_end_ns, min(next_tick.values()) + MAX_NATIVE_SPAN_NS)
            ports = [(li, ctrl, next_tick[li], interval_ns[li], sample[li]) for li, ctrl in controllers.items()]
            for (li, *_), (table, next_tick[li], interval_ns[li], sample[li]) in zip(
                ports, proto.native_network_intervals(sim, ports, limit)
            ):
                chunks[li].append(table)
            if limit == next_window:
                sim.run_until(next_window)  # a no-op when an expiry fell on it
                flow_t.append(next_window / NS_PER_S)
                delivered.append(sim.flow_stats()[0])
                next_window += window_ns
            elif limit == t_end_ns:
                break
        tables = {li: np.concatenate(c) for li, c in chunks.items()}
    else:
        while (t_next := min(min(next_tick.values()), next_window)) <= t_end_ns:
            sim.run_until(t_next)
            if t_next == next_window:
                flow_t.append(t_next / NS_PER_S)
                delivered.append(sim.flow_stats()[0])
                next_window += window_ns
            for li, ctrl in controllers.items():
                if next_tick[li] != t_next:
                    continue
                next_ns, rate, utilization, registers = proto.service(sim, li, ctrl, interval_ns[li])
                if registers["rtt_count"]:
                    sample[li] = registers["rtt_sum"] / registers["rtt_count"] / 1000
                rows[li].append(
                    (
                        t_next / NS_PER_S,
                        rate,
                        registers["queue_bytes"],
                        proto.avg_rtt_s(ctrl),
                        sample[li],
                        interval_ns[li] / NS_PER_S,
                        utilization,
                    )
                )
                interval_ns[li] = next_ns
                next_tick[li] = t_next + next_ns
        tables = {li: np.array(r, float).reshape(-1, len(TRACE_FIELDS)) for li, r in rows.items()}
    sim.run_until(t_end_ns)
    traces = {net.links[li].name: dict(zip(TRACE_FIELDS, table.T)) for li, table in tables.items()}
    return PacketNetworkRun(
        network=net,
        alpha=alpha,
        beta=beta,
        eta=eta,
        backend=backend,
        traces=traces,
        counters=sim.counters(),
        wall_time_s=time.perf_counter() - wall_start,
        protocol=protocol,
        flow_bytes=np.array(sim.flow_stats()[0], dtype=float),
        flow_names=flow_names,
        flow_t=np.array(flow_t),
        flow_delivered_bytes=np.array(delivered, dtype=float).reshape(len(flow_t), len(flows)),
    )
