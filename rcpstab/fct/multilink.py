"""Flow completion times on thesis Fig. 4.22's multiple-bottleneck chain (issue 24, Figs. 4.22-4.24).

``n`` cascaded links of the same capacity and delay. Flow group 0 crosses all of them; flow
group i (i = 1..n) crosses link i only, so every link carries group 0 and one cross group
(the thesis' text numbers the cross groups 1..n-1; with n links one of them would then carry
group 0 alone, so here every link has its cross group). All groups have the same arrival rate,
so each link's offered load is twice a group's. Group 0's round-trip propagation delay is
fixed (``rtt0_s``); each link's one-way delay is ``rtt0_s / (2 n)``, so a cross group's RTPD
is ``rtt0_s / n``. Each link has a drop-tail buffer of one bandwidth-delay product of group 0.

RCP and XCP run on the packet simulator with the reference routers on every forward link
(the ACKs return over plain links of the same capacity and delay); TCP runs in ns-3 on the
same chain (:mod:`.tcp_ns3`). The arrivals are the same for every protocol
(:func:`chain_workload`: Poisson, every group offering half the link load over one span).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from ..errors import InputError
from ..packet.simulator.topology import Link, Topology, request_field
from .flow_run import DATA_PACKET_BYTES, NS_PER_S
from .protocols import _default_drain_s, check_protocol, run_packet_flows, sim_ctrl_bytes
from .tcp_ns3 import PACKET_BYTES, flow_fct, port_drops, tcp_runs

__all__ = ["chain_topology", "chain_workload", "chain_fct", "chain_tcp_spec", "path_queue_delay"]


def chain_topology(
    n_links: int, capacity_bps: float, rtt0_s: float, protocol: str, packet_bytes: int = DATA_PACKET_BYTES
) -> Topology:
    """Forward links 0..n-1 (``protocol`` routers), return links n..2n-1 (plain); paths: group 0
    forward (0..n-1) and back (2n-1..n), then group i's forward (i-1,) and back (n+i-1,)."""
    if n_links < 1:
        raise InputError(f"n_links = {n_links}: must be >= 1")
    delay = rtt0_s / (2 * n_links)
    buffer = max(int(capacity_bps * rtt0_s / 8), packet_bytes)
    fwd = [Link(f"L{i + 1}", capacity_bps, delay, buffer, protocol) for i in range(n_links)]
    back = [Link(f"R{i + 1}", capacity_bps, delay, buffer, "plain") for i in range(n_links)]
    paths = [tuple(range(n_links)), tuple(range(2 * n_links - 1, n_links - 1, -1))]
    for i in range(n_links):
        paths += [(i,), (n_links + i,)]
    return Topology(links=tuple(fwd + back), forward_path=0, reverse_path=1, paths=tuple(paths), monitored_link=0)


def chain_workload(
    n_links: int, capacity_bps: float, load: float, sizes: Any, n_flows: int, seed: int, packet_bytes: int = DATA_PACKET_BYTES
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Merged arrivals of groups 0..n over one common span, in time order.

    The span T is the time ``n_flows`` flows of the mean size take at ``load / 2``. Each group
    (its own generator, seed ``seed * 1000 + g``) draws sizes until its data reaches
    ``load / 2 * C * T`` (the group's last flow included), and its arrivals are uniform order
    statistics on [0, T] (a Poisson process conditioned on its count), so each link, carrying
    group 0 and one cross group, is offered ``load`` over the same span (to within one flow).

    Returns
    -------
    start_s, size_pkts, group : ndarray
    """
    bits = packet_bytes * 8.0
    span = n_flows * sizes.mean_packets * bits / (load / 2 * capacity_bps)
    target = load / 2 * capacity_bps * span / bits  # packets per group
    starts, sz, grp = [], [], []
    for g in range(n_links + 1):
        rng = np.random.default_rng(seed * 1000 + g)
        drawn = sizes.sample(rng, n_flows)
        while drawn.sum() < target:
            drawn = np.concatenate([drawn, sizes.sample(rng, n_flows)])
        size = drawn[: int(np.searchsorted(np.cumsum(drawn), target)) + 1]
        starts.append(np.sort(rng.uniform(0.0, span, len(size))))
        sz.append(size)
        grp.append(np.full(len(size), g))
    start, size, group = np.concatenate(starts), np.concatenate(sz), np.concatenate(grp)
    order = np.argsort(start, kind="stable")
    return start[order], size[order], group[order]


def chain_tcp_spec(
    n_links: int,
    capacity_bps: float,
    rtt0_s: float,
    start_s: np.ndarray,
    size_pkts: np.ndarray,
    group: np.ndarray,
    drain_s: float,
) -> dict[str, Any]:
    """The :func:`~.tcp_ns3.tcp_runs` spec of the chain: nodes 0..n, group 0 from 0 to n, group i from i-1 to i."""
    delay = rtt0_s / (2 * n_links)
    bdp = max(int(capacity_bps * rtt0_s / 8 / PACKET_BYTES), 1)
    flows = [
        {"src": 0 if g == 0 else int(g) - 1, "dst": n_links if g == 0 else int(g), "start_s": float(t), "size_pkts": int(z)}
        for t, z, g in zip(start_s, size_pkts, group)
    ]
    return {
        "links": [{"C": capacity_bps, "delay_s": delay, "buffer_pkts": bdp} for _ in range(n_links)],
        "flows": flows,
        "stop_s": float(start_s[-1] + drain_s),
        "sample_s": rtt0_s,
    }


def chain_fct(
    protocol: str,
    alpha: float,
    beta: float,
    *,
    n_links: int,
    capacity_bps: float,
    rtt0_s: float,
    load: float,
    sizes: Any,
    n_flows: int,
    seed: int = 0,
    drain_s: float | None = None,
    queues: bool = False,
) -> dict[str, Any]:
    """One protocol on the chain's arrivals (``tcp``: ns-3, one process per call).

    ``queues=True`` (packet simulator only) adds ``queue_trace``: one row per router update,
    ``t_s``, ``link`` (0..n-1 along the chain), ``queue_bytes``, the rate after the update
    ``R_over_C``, the interval's input over C ``utilization`` and the RTT estimate ``avg_rtt_s``.

    Returns
    -------
    dict
        ``fct_s`` (per flow in time order, NaN if unfinished; to the last data packet at the
        receiver), ``arrival_s``, ``size_pkts``, ``group``, ``rtt_s`` (each flow's RTPD),
        ``sent``, ``delivered``, ``dropped``, ``in_flight`` (packets, packet simulator only),
        ``delivered_bytes`` (per flow, packet simulator only).
    """
    check_protocol(protocol)
    start, size, group = chain_workload(n_links, capacity_bps, load, sizes, n_flows, seed)
    rtt = np.where(group == 0, rtt0_s, rtt0_s / n_links)
    drain = drain_s if drain_s is not None else _default_drain_s(size, rtt0_s, capacity_bps, DATA_PACKET_BYTES)
    out: dict[str, Any] = {"protocol": protocol, "arrival_s": start, "size_pkts": size, "group": group, "rtt_s": rtt}
    if protocol == "tcp":
        r = tcp_runs([chain_tcp_spec(n_links, capacity_bps, rtt0_s, start, size, group, drain)])[0]
        out["fct_s"] = flow_fct(r, start, size)
        out["dropped"] = sum(port_drops(p) for p in r["ports"])
        return out
    topology = chain_topology(n_links, capacity_bps, rtt0_s, protocol)
    req = request_field(0.0)
    flows = [
        (int(round(t * NS_PER_S)), -1, int(z), req, 0 if g == 0 else 2 * int(g), 1 if g == 0 else 2 * int(g) + 1)
        for t, z, g in zip(start, size, group)
    ]
    trace: list[Any] | None = [] if queues else None
    sim, _, _ = run_packet_flows(
        topology,
        flows,
        protocol,
        alpha,
        beta,
        avg_rtt_s=rtt0_s,
        packet_bytes=DATA_PACKET_BYTES,
        t_end_ns=int(round((start[-1] + drain) * NS_PER_S)),
        queue_until_s=start[-1],
        queues=trace,
    )
    if trace is not None:
        rows = np.array(trace, dtype=float).reshape(-1, 6)
        out["queue_trace"] = {
            "t_s": rows[:, 0] / NS_PER_S,
            "link": rows[:, 1].astype(int),
            "queue_bytes": rows[:, 2],
            "R_over_C": rows[:, 3],
            "utilization": rows[:, 4],
            "avg_rtt_s": rows[:, 5],
        }
    delivered, fct_ns = sim.flow_stats()
    fct_ns = np.array([math.nan if x is None else x for x in fct_ns], dtype=float)
    # the sender's last ACK back to the receiver's last data packet: the return path's
    # propagation (half the flow's RTPD) and one control packet per hop
    hops = np.where(group == 0, n_links, 1)
    out["fct_s"] = fct_ns / NS_PER_S - (rtt / 2 + hops * sim_ctrl_bytes(protocol) * 8 / capacity_bps)
    c = sim.counters()
    out.update(
        sent=int(c["sent"]),
        delivered=int(c["delivered"]),
        dropped=int(c["dropped"]),
        in_flight=int(c["in_flight"]),
        delivered_bytes=np.array(delivered, dtype=float),
    )
    return out


def path_queue_delay(queue_trace: Any, links: Sequence[int], t_s: ArrayLike, capacity_bps: float) -> np.ndarray:
    """Queueing delay summed over ``links`` at times ``t_s`` (the routers' queues, linearly
    interpolated between their updates, over C), s."""
    t_s = np.asarray(t_s, dtype=float)
    total = np.zeros(len(t_s))
    for li in links:
        m = queue_trace["link"] == li
        total += np.interp(t_s, queue_trace["t_s"][m], queue_trace["queue_bytes"][m])
    return total * 8.0 / capacity_bps
