"""Flow completion times of RCP, RCP-AC and XCP on the same arrivals (issue 24, item 4).

The workload is :func:`~rcpstab.fct.flow_run.draw_workload`'s (the load asked for, on the drawn
sizes); the flows are replayed through the general packet simulator
(:mod:`rcpstab.packet.simulator`) with the protocol's reference router and senders: App. F
and R-TCP hosts for ``rcp``, the RCP-AC router and XCP's window senders for ``rcpac``, XCP's
router and senders for ``xcp``. The flow simulator (:mod:`.flow_run`) runs RCP only; running
``rcp`` here as well cross-checks the two simulators.

TCP is ns-3's NewReno (:mod:`.tcp_ns3`, the ``bench`` extra): rcpstab writes no TCP of its
own, and ``tcp`` is refused in one line without ns-3.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np

from ..errors import InputError
from ..intervals import t_half_width
from ..packet.hosts.flow_traffic import ArrivalProcess
from ..packet.protocols import get_protocol
from ..packet.simulator.run import build_simulator, make_controller
from ..packet.simulator.scenarios import Scenario
from ..packet.simulator.topology import IP_HEADER_BYTES, TCP_HEADER_BYTES, dumbbell, request_field
from .flow_run import DATA_PACKET_BYTES, NS_PER_S, draw_workload
from .ps import processor_sharing_sojourn
from .tcp_ns3 import NS3_MISSING, PACKET_BYTES, dumbbell_spec, flow_fct, flow_losses, ns3_available, port_drops, tcp_runs

__all__ = [
    "FCT_PROTOCOLS",
    "DEFAULT_GAINS",
    "check_protocol",
    "compare_protocols",
    "protocol_fct",
    "run_packet_flows",
    "summarize_protocol",
    "tcp_protocol_batch",
    "tcp_protocol_fcts",
]

# XCP: its paper's (0.4, 0.226); RCP and RCP-AC: thesis Ch. 4's (0.1, 1.0) unless --alpha/--beta say
DEFAULT_GAINS = {"xcp": (0.4, 0.226)}

FCT_PROTOCOLS = ("rcp", "rcpac", "xcp", "tcp")


def check_protocol(name: str) -> str:
    """The protocol name, or InputError in one line (``tcp`` without ns-3 included)."""
    if name not in FCT_PROTOCOLS:
        raise InputError(f"--protocol {name!r}: one of {', '.join(FCT_PROTOCOLS)}")
    if name == "tcp" and not ns3_available():
        raise InputError(NS3_MISSING)
    return name


def sim_ctrl_bytes(protocol: str) -> int:
    """Bytes of a SYN / ACK in the packet simulator for ``protocol`` (as :func:`build_simulator` sets them)."""
    return IP_HEADER_BYTES + TCP_HEADER_BYTES + get_protocol(protocol).header_bytes


def protocol_fct(
    protocol: str,
    alpha: float,
    beta: float,
    *,
    capacity_bps: float,
    rtt_s: float,
    load: float,
    sizes: Any,
    n_flows: int,
    seed: int = 0,
    buffer_bdp: float = 1.0,
    packet_bytes: int = DATA_PACKET_BYTES,
    drain_s: float | None = None,
) -> dict[str, Any]:
    """Run one protocol on the drawn workload through the packet simulator.

    Parameters
    ----------
    protocol : {"rcp", "rcpac", "xcp"}
    alpha, beta : float
        Router gains (App. F for RCP and RCP-AC's rate controller; XCP's efficiency controller).
    capacity_bps, rtt_s, load : float
        C (bit/s), RTPD (s), offered load in (0, 1).
    sizes : SizeDistribution
    n_flows, seed : int
    buffer_bdp : float
        Drop-tail buffer, bandwidth-delay products.
    drain_s : float, optional
        Seconds after the last arrival allowed to finish (default 200 RTPD plus the largest flow
        at C / 50).

    Returns
    -------
    dict
        ``fct_s`` (per flow in arrival order; NaN if unfinished), ``ps_fct_s`` (1.5 RTPD plus the
        sojourn in an exact PS queue fed the same flows), ``arrival_s``, ``size_pkts``,
        ``mean_queue_bytes``, ``dropped``, ``protocol``.
    """
    check_protocol(protocol)
    start_s, size, _ = draw_workload(sizes, ArrivalProcess(), n_flows, load, capacity_bps, packet_bytes, seed)
    ps = 1.5 * rtt_s + processor_sharing_sojourn(start_s, size * (packet_bytes * 8.0), capacity_bps)
    if protocol == "tcp":
        return tcp_protocol_fcts(
            (seed,),
            capacity_bps=capacity_bps,
            rtt_s=rtt_s,
            load=load,
            sizes=sizes,
            n_flows=n_flows,
            buffer_bdp=buffer_bdp,
            packet_bytes=packet_bytes,
            drain_s=drain_s,
        )[0]
    scenario = Scenario(
        name="fct",
        capacity_bps=capacity_bps,
        rtt_s=rtt_s,
        eta=1.0,
        long_flows=(),
        t_end_s=1.0,
        buffer_bytes=max(int(buffer_bdp * capacity_bps * rtt_s / 8), packet_bytes),
        initial_R_over_C=1.0,
        packet_bytes=packet_bytes,
    )
    topology = dumbbell(scenario, protocol)
    req = request_field(0.0)
    flows = [
        (int(round(t * NS_PER_S)), -1, int(z), req, topology.forward_path, topology.reverse_path) for t, z in zip(start_s, size)
    ]
    drain = drain_s if drain_s is not None else _default_drain_s(size, rtt_s, capacity_bps, packet_bytes)
    t_end = int(round((start_s[-1] + drain) * NS_PER_S))
    sim, queue, dt = run_packet_flows(
        topology,
        flows,
        protocol,
        alpha,
        beta,
        avg_rtt_s=rtt_s,
        packet_bytes=packet_bytes,
        t_end_ns=t_end,
        queue_until_s=start_s[-1],
    )
    fct_ns = np.array([np.nan if x is None else x for x in sim.flow_stats()[1]], dtype=float)
    # The packet simulator ends a flow when the sender has the last ACK; the thesis (and the
    # flow simulator) when the receiver has the last data packet: take off the ACK's way back
    # (the return link's propagation and one control packet's serialisation).
    ack_back_s = rtt_s * (1 - scenario.forward_delay_share) + sim_ctrl_bytes(protocol) * 8 / capacity_bps
    fct = fct_ns / NS_PER_S - ack_back_s
    return {
        "protocol": protocol,
        "fct_s": fct,
        "ps_fct_s": ps,
        "arrival_s": start_s,
        "size_pkts": size,
        "mean_queue_bytes": float(np.average(queue, weights=dt)) if queue else math.nan,
        "dropped": int(sim.counters()["dropped"]),
    }


def run_packet_flows(
    topology: Any,
    flows: list[Any],
    protocol: str,
    alpha: float,
    beta: float,
    *,
    avg_rtt_s: float,
    packet_bytes: int,
    t_end_ns: int,
    queue_until_s: float,
    queues: list[Any] | None = None,
) -> tuple[Any, list[float], list[int]]:
    """Run ``flows`` (the simulators' flow table) on ``topology`` with ``protocol``'s routers and
    senders until every flow is done or ``t_end_ns``. With a list ``queues``, every controlled
    link's queue is appended to it at each of its updates as ``(t_ns, link, queue_bytes,
    rate_over_c, utilization, avg_rtt_s)`` (the rate after the update, the interval's input over
    C, the router's RTT estimate, s).

    Returns
    -------
    sim, queue, dt
        The simulator (its ``flow_stats()`` and ``counters()``), and the monitored link's queue
        (bytes) and control intervals (ns) of the updates up to ``queue_until_s``.
    """
    proto = get_protocol(protocol)
    sim = build_simulator(topology, flows, packet_bytes, "c", protocol)
    controllers = {}
    for li, link in enumerate(topology.links):
        if link.controlled:
            controllers[li] = make_controller(link, alpha, beta, 1.0, 1.0, avg_rtt_s, packet_bytes)
            proto.initial_writes(sim, li, controllers[li])
    interval = {li: proto.initial_interval_ns(c) for li, c in controllers.items()}
    tick = dict(interval)
    monitored = topology.monitored_link
    queue, dt = [], []
    n_flows = len(flows)
    while True:
        t_next = min(tick.values())
        if t_next > t_end_ns:
            break
        sim.run_until(t_next)
        for li, ctrl in controllers.items():
            if tick[li] != t_next:
                continue
            next_ns, rate_over_c, utilization, registers = proto.service(sim, li, ctrl, interval[li])
            if queues is not None:
                queues.append((t_next, li, registers["queue_bytes"], rate_over_c, utilization, proto.avg_rtt_s(ctrl)))
            if li == monitored and t_next <= queue_until_s * NS_PER_S:
                queue.append(registers["queue_bytes"])
                dt.append(interval[li])
            interval[li] = next_ns
            tick[li] = t_next + next_ns
        if sim.counters()["flows_done"] >= n_flows:
            break
    return sim, queue, dt


def _default_drain_s(size: np.ndarray, rtt_s: float, capacity_bps: float, packet_bytes: int) -> float:
    """200 RTPD plus the largest flow at C / 50: time after the last arrival for the flows to finish."""
    drain: float = 200 * rtt_s + size.max() * packet_bytes * 8 / (capacity_bps / 50)
    return drain


def tcp_protocol_batch(points: list[dict[str, Any]]) -> list[list[dict[str, Any]]]:
    """:func:`protocol_fct` for ``tcp`` (ns-3 NewReno) at several points, every run in one ns-3 process.

    ``points``: dicts of :func:`protocol_fct`'s keyword arguments (``capacity_bps``, ``rtt_s``,
    ``load``, ``sizes``, ``n_flows``, optional ``buffer_bdp``, ``packet_bytes``, ``drain_s``) with
    ``seeds`` (a sequence), optional ``rwnd_bdp`` (see :func:`~rcpstab.fct.tcp_ns3.dumbbell_spec`) and
    ``count_packets`` (each result then has ``dropped_conservation``: packets sent minus received,
    summed over flows, and ``data_lost``: data packets lost per flow, :func:`~rcpstab.fct.tcp_ns3.flow_losses`). Returns, per point, one result per seed. The buffer is one BDP of
    drop-tail at the device and packets are 1000-byte datagrams; anything else is refused. The
    mean queue is sampled once per RTPD up to the last arrival.
    """
    check_protocol("tcp")
    loads, specs = [], []
    for p in points:
        C, rtt = p["capacity_bps"], p["rtt_s"]
        if p.get("packet_bytes", PACKET_BYTES) != PACKET_BYTES or p.get("buffer_bdp", 1.0) != 1.0:
            raise InputError("--protocol tcp runs with 1000-byte packets and a one-BDP buffer only")
        for seed in p["seeds"]:
            start_s, size, _ = draw_workload(p["sizes"], ArrivalProcess(), p["n_flows"], p["load"], C, PACKET_BYTES, seed)
            drain = p.get("drain_s")
            drain = drain if drain is not None else _default_drain_s(size, rtt, C, PACKET_BYTES)
            loads.append((start_s, size, C, rtt))
            specs.append(dumbbell_spec(start_s, size, C, rtt, drain, rwnd_bdp=p.get("rwnd_bdp")))
            if p.get("count_packets"):
                specs[-1]["count_packets"] = True
    flat = []
    for (start_s, size, C, rtt), r in zip(loads, tcp_runs(specs)):
        port = r["ports"][0]
        t, q = np.array(port["t"]), np.array(port["q"])
        during = t <= start_s[-1]
        flat.append(
            {
                "protocol": "tcp",
                "fct_s": flow_fct(r, start_s, size),
                "ps_fct_s": 1.5 * rtt + processor_sharing_sojourn(start_s, size * (PACKET_BYTES * 8.0), C),
                "arrival_s": start_s,
                "size_pkts": size,
                "mean_queue_bytes": float(q[during].mean() * PACKET_BYTES) if during.any() else math.nan,
                "dropped": port_drops(port),
                **(
                    {"dropped_conservation": int(flow_losses(r).sum()), "data_lost": flow_losses(r)[:, 0]}
                    if "flow_packets" in r
                    else {}
                ),
                "ns3_wall_s": r["wall_s"],
                "ns3_events": r["events"],
            }
        )
    out, i = [], 0
    for p in points:
        out.append(flat[i : i + len(p["seeds"])])
        i += len(p["seeds"])
    return out


def tcp_protocol_fcts(seeds: Iterable[int], **point: Any) -> list[dict[str, Any]]:
    """:func:`tcp_protocol_batch` for one point: one result per seed."""
    return tcp_protocol_batch([{**point, "seeds": tuple(seeds)}])[0]


def summarize_protocol(
    runs: list[dict[str, Any]],
    gains: tuple[float | None, float | None] = (None, None),
    *,
    capacity_bps: float,
    rtt_s: float,
    split_pkts: int = 500,
) -> dict[str, Any]:
    """AFCT over same-arrivals PS of per-seed ``runs`` (:func:`protocol_fct` results): all flows and
    below / from ``split_pkts`` packets, mean over seeds with a 95% t-interval half-width; the mean
    queue in BDPs, unfinished flows and drops summed over seeds."""
    per_seed: dict[str, list[Any]] = {"all": [], "small": [], "large": [], "unfinished": [], "queue_bdp": [], "dropped": []}
    for r in runs:
        f, ps, z = r["fct_s"], r["ps_fct_s"], r["size_pkts"]
        for key, sel in (("all", z > 0), ("small", z < split_pkts), ("large", z >= split_pkts)):
            per_seed[key].append(float(np.nanmean(f[sel]) / ps[sel].mean()) if sel.any() else math.nan)
        per_seed["unfinished"].append(int(np.isnan(f).sum()))
        per_seed["queue_bdp"].append(r["mean_queue_bytes"] * 8 / (capacity_bps * rtt_s))
        per_seed["dropped"].append(r["dropped"])
    row: dict[str, Any] = {"alpha": gains[0], "beta": gains[1]}
    for key in ("all", "small", "large", "queue_bdp"):
        v = np.array(per_seed[key], dtype=float)
        v = v[np.isfinite(v)]
        mean = float(v.mean()) if len(v) else None
        half = float(t_half_width(v)) if len(v) > 1 else None
        row[key] = {"mean": mean, "ci95": half, "per_seed": [float(x) if math.isfinite(x) else None for x in per_seed[key]]}
    row["unfinished"] = sum(per_seed["unfinished"])
    row["dropped"] = sum(per_seed["dropped"])
    return row


def compare_protocols(
    protocols: Iterable[str],
    gains: dict[str, Any],
    *,
    capacity_bps: float,
    rtt_s: float,
    load: float,
    sizes: Any,
    n_flows: int,
    seeds: Sequence[int] = (0,),
    buffer_bdp: float = 1.0,
    split_pkts: int = 500,
) -> dict[str, Any]:
    """Each protocol on the same arrivals per seed: AFCT over same-arrivals PS, for all flows and
    below / from ``split_pkts`` packets (thesis Figs. 4.10-4.14 split at 500), mean over seeds
    with a 95% t-interval half-width (:func:`summarize_protocol`).

    ``gains`` maps a protocol to its (alpha, beta); ``tcp`` takes none and runs every seed in one
    ns-3 process.
    """
    out = {}
    for name in protocols:
        check_protocol(name)
        if name == "tcp":
            runs = tcp_protocol_fcts(
                seeds, capacity_bps=capacity_bps, rtt_s=rtt_s, load=load, sizes=sizes, n_flows=n_flows, buffer_bdp=buffer_bdp
            )
        else:
            runs = [
                protocol_fct(
                    name,
                    *(gains.get(name) or (0.0, 0.0)),
                    capacity_bps=capacity_bps,
                    rtt_s=rtt_s,
                    load=load,
                    sizes=sizes,
                    n_flows=n_flows,
                    seed=seed,
                    buffer_bdp=buffer_bdp,
                )
                for seed in seeds
            ]
        out[name] = summarize_protocol(
            runs, gains.get(name) or (None, None), capacity_bps=capacity_bps, rtt_s=rtt_s, split_pkts=split_pkts
        )
    return out
