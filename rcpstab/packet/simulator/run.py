"""Run a scenario through the packet simulator: C event loop, Python or C control path.

The simulator (C, or its Python twin) runs uninterrupted until the next control-timer
expiry; the control path of the port's protocol (:mod:`.protocols`: App. F for RCP,
:mod:`rcpstab.packet.routers.xcp.control`, :mod:`rcpstab.packet.routers.rcpac.control`) then reads and writes the port registers in
Python and the simulator continues. Nothing calls back into Python per packet. On the C backend,
a single controlled port running a bundled controller has its control path computed in C with the
event loop instead (:meth:`~rcpstab.packet.protocols.base.PacketProtocol.native_intervals`, the same
bits), so Python runs once per throughput window, not once per interval.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ...errors import InputError
from ..protocols import PACKET_PROTOCOLS, get_protocol
from .scenarios import Scenario, get_scenario
from .sim_py import PySimulator
from .topology import IP_HEADER_BYTES, RCP_HEADER_BYTES, RWND_PACKETS, TCP_HEADER_BYTES, Link, Topology, dumbbell, flow_table

NS_PER_S = 1_000_000_000
NS_PER_MS = 1_000_000
BACKENDS = ("c", "python")
THROUGHPUT_WINDOW_S = 1.0
PROTOCOLS = PACKET_PROTOCOLS  # the registry itself: names registered later are accepted too


@dataclass
class PacketRun:
    """Result of one packet-level run.

    Attributes
    ----------
    scenario : Scenario
    alpha, beta : float
    seed : int
    backend : str
        ``"c"`` or ``"python"``.
    t : ndarray
        Control-timer expiries of the monitored (bottleneck) port, seconds.
    R_over_C : ndarray
        Router rate ``rcp_rate`` after each expiry, as a fraction of the link capacity
        (RCP, RCP-AC). XCP routers have no rate: for ``xcp`` it is the measured input rate
        per scripted flow, y/(N*C), the fluid xcp model's gamma.
    queue_bytes : ndarray
        Bottleneck queue at each expiry, bytes.
    n_active : ndarray
        Flows started and not yet stopped or finished, at each expiry.
    throughput_t : ndarray
        Ends of the throughput windows, seconds.
    flow_throughput_bps : ndarray
        Delivered (in-order) datagram bits per second of each long-lived flow in each
        window, shape (len(throughput_t), number of long-lived flows).
    flow_completion_s : ndarray
        Completion time of each Poisson flow, seconds (NaN if unfinished).
    counters : dict
        Final simulator counters: events, sent, delivered, dropped, in_flight, n_active,
        flows_done, now_ns.
    wall_time_s : float
        Wall-clock time of the run, seconds.
    utilization : ndarray
        Input rate of the monitored port over each interval, as a fraction of its capacity.
    protocol : str
        The registered packet protocol, e.g. ``"rcp"``, ``"xcp"`` or ``"rcpac"``.
    dropped_packets : ndarray
        Packets the monitored port's drop-tail buffer refused so far, at each expiry (its
        ``dropped`` register, cumulative).
    avg_rtt_s : ndarray
        The control path's RTT estimate d after each expiry, seconds (RCP, RCP-AC; NaN for a
        protocol without one, XCP).
    """

    scenario: Scenario
    alpha: float
    beta: float
    seed: int
    backend: str
    t: np.ndarray
    R_over_C: np.ndarray
    queue_bytes: np.ndarray
    n_active: np.ndarray
    throughput_t: np.ndarray
    flow_throughput_bps: np.ndarray
    flow_completion_s: np.ndarray
    counters: dict[str, int] = field(default_factory=dict)
    wall_time_s: float = 0.0
    utilization: np.ndarray = field(default_factory=lambda: np.empty(0))
    protocol: str = "rcp"
    dropped_packets: np.ndarray = field(default_factory=lambda: np.empty(0))
    avg_rtt_s: np.ndarray = field(default_factory=lambda: np.empty(0))

    @property
    def events_per_s(self) -> float:
        """Simulator events processed per wall-clock second."""
        return self.counters["events"] / self.wall_time_s if self.wall_time_s > 0 else float("nan")


def make_simulator(scenario: Scenario, seed: int, t_end_s: float, backend: str, protocol: str = "rcp") -> tuple[Any, Topology]:
    """Build the simulator for ``scenario`` (C ``Simulator`` or ``PySimulator``) and its topology."""
    topology = dumbbell(scenario, protocol)
    return build_simulator(
        topology, flow_table(scenario, topology, seed, t_end_s), scenario.packet_bytes, backend, protocol
    ), topology


def build_simulator(
    topology: Topology, flows: list[Any], packet_bytes: int, backend: str, protocol: str, rwnd_pkts: int = RWND_PACKETS
) -> Any:
    """The C ``Simulator`` or ``PySimulator`` on ``topology`` with ``protocol``'s senders."""
    proto = get_protocol(protocol)
    args: dict[str, Any] = dict(
        links=[link.as_sim_tuple() for link in topology.links],
        paths=list(topology.paths),
        flows=flows,
        data_size=packet_bytes,
        # The protocol's control header in SYNs and ACKs; the window rule is R-TCP's only.
        ctrl_size=IP_HEADER_BYTES + TCP_HEADER_BYTES + proto.header_bytes,
        window_denominator=packet_bytes - TCP_HEADER_BYTES,  # MSS + RCP + IP headers
        rwnd_pkts=rwnd_pkts,
        sender=proto.sender_code,
    )
    assert packet_bytes - TCP_HEADER_BYTES > IP_HEADER_BYTES + RCP_HEADER_BYTES
    if backend == "c":
        from .._datapath import Simulator

        return Simulator(**args)
    return PySimulator(**args)


def make_controller(
    link: Link, alpha: float, beta: float, eta: float, initial_R_over_C: float, avg_rtt_s: float, mtu: int, **options: Any
) -> Any:
    """The control path of ``link`` (by its protocol's registry entry) in its initial state.

    ``options`` are the protocol's own control-path settings (:attr:`PacketProtocol.control_options`).
    """
    return get_protocol(link.protocol).make_controller(link, alpha, beta, eta, initial_R_over_C, avg_rtt_s, mtu, **options)


def check_inputs(alpha: float, beta: float, backend: str, t_end: float, protocol: str = "rcp") -> None:
    get_protocol(protocol)  # InputError naming the registered protocols
    if not alpha > 0:
        raise InputError(f"alpha={alpha} must be > 0")
    if not beta >= 0:
        raise InputError(f"beta={beta} must be >= 0")
    if backend not in BACKENDS:
        raise InputError(f"backend={backend!r} is not one of {', '.join(BACKENDS)}")
    if not t_end > 0:
        raise InputError(f"t_end={t_end} must be > 0")


def _control_options(protocol: Any, **given: Any) -> dict[str, Any]:
    """The control-path settings ``protocol`` takes; a non-default one it does not take is refused."""
    defaults = {"rtt_estimator": "appf"}
    unknown = [k for k, v in given.items() if k not in protocol.control_options and v != defaults.get(k)]
    if unknown:
        raise InputError(f"{unknown[0]}={given[unknown[0]]!r}: the {protocol.name} control path has no such setting")
    return {k: v for k, v in given.items() if k in protocol.control_options}


def run_scenario(
    scenario: str | Scenario,
    alpha: float,
    beta: float,
    *,
    seed: int = 0,
    backend: str = "c",
    t_end: float | None = None,
    protocol: str = "rcp",
    rtt_estimator: str = "appf",
) -> PacketRun:
    """Simulate ``scenario`` packet by packet with router gains ``alpha`` and ``beta``.

    Parameters
    ----------
    scenario : str or Scenario
        A name from :data:`rcpstab.packet.simulator.scenarios.SCENARIOS` or a scenario object.
    alpha, beta : float
        Router gains: App. F line 8 (RCP, RCP-AC's rate controller) or XCP's efficiency
        controller (alpha > 0, beta >= 0).
    seed : int
        Seed of the Poisson arrivals; everything else is deterministic.
    backend : {"c", "python"}
        The C event loop or its pure-Python twin (identical traces; their speeds are
        ``benchmarks/bench_packet.py``'s output, recorded in the README).
    t_end : float, optional
        Simulated seconds; default ``scenario.t_end_s``.
    protocol : str
        A name of :data:`rcpstab.packet.protocols.PACKET_PROTOCOLS`: router and senders,
        ``"rcp"`` (R-TCP hosts), ``"xcp"`` or ``"rcpac"`` (XCP senders), or a registered plug-in.
    rtt_estimator : {"appf", "ns2"}
        The RCP control path's RTT average (:mod:`rcpstab.packet.routers.rcp.control`): App. F's or ns-2's (RCP and RCP-AC).

    Returns
    -------
    PacketRun

    Raises
    ------
    InputError
        Unknown scenario, alpha <= 0, beta < 0, a buffer of 0 packets, a negative delay, ...
    """
    scenario = get_scenario(scenario)
    t_end = scenario.t_end_s if t_end is None else t_end
    check_inputs(alpha, beta, backend, t_end, protocol)
    resolution = get_protocol(protocol).rtt_resolution_s
    if rtt_estimator == "ns2" and scenario.rtt_s < resolution:
        # below the samples' resolution (RCP's header: whole ms) every sample is 0 and ns-2's fixed-gain average
        # decays to 0 (avg_rtt underflowed and the run ended in NaN rates; App. F's ignores a smaller sample)
        raise InputError(
            f"rtt_estimator='ns2' with rtt_s={scenario.rtt_s:g}: below {resolution:g} s the {protocol} data path's "
            "RTT samples are 0 and ns-2's average decays to 0; use 'appf'"
        )
    wall_start = time.perf_counter()
    sim, topology = make_simulator(scenario, seed, t_end, backend, protocol)
    controllers, protocols = {}, {}
    for li, link in enumerate(topology.links):
        if link.controlled:
            protocols[li] = get_protocol(link.protocol)
            controllers[li] = make_controller(
                link,
                alpha,
                beta,
                scenario.eta,
                scenario.initial_R_over_C,
                scenario.rtt_s if scenario.rtt_s > 0 else 1e-3,
                scenario.packet_bytes,
                **_control_options(protocols[li], rtt_estimator=rtt_estimator),
            )
            protocols[li].initial_writes(sim, li, controllers[li])
    interval_ns = {li: protocols[li].initial_interval_ns(c) for li, c in controllers.items()}
    next_tick = dict(interval_ns)
    t_end_ns = int(round(t_end * NS_PER_S))
    window_ns = int(THROUGHPUT_WINDOW_S * NS_PER_S)
    next_window = window_ns
    n_long = len(scenario.long_flows)
    trace: list[tuple[float, float, int, int, float, int, float]] = []
    windows: list[tuple[float, list[int]]] = []
    monitored = topology.monitored_link
    native = _native_control(backend, controllers, protocols, monitored)
    at = 0  # the time the simulation has run to, ns
    while native is not None:  # the control path in C at every expiry (native_intervals), Python per window
        (li, ctrl), t_next = native, min(next_tick[native[0]], next_window)
        if t_next > t_end_ns:
            break
        if next_tick[li] <= next_window:  # every expiry up to the window's end (or the run's)
            rows, next_tick[li], interval_ns[li] = protocols[li].native_intervals(
                sim, li, ctrl, next_tick[li], interval_ns[li], min(next_window, t_end_ns), scenario.n_flows
            )
            trace.extend(rows)
            at = next_tick[li] - interval_ns[li] if rows else at  # the last expiry's time
            continue
        if at != next_window:
            sim.run_until(next_window)
        at = next_window
        windows.append((next_window / NS_PER_S, sim.flow_stats()[0][:n_long]))
        next_window += window_ns
    while native is None:
        t_next = min(min(next_tick.values()), next_window)
        if t_next > t_end_ns:
            break
        sim.run_until(t_next)
        for li, ctrl in controllers.items():
            if next_tick[li] != t_next:
                continue
            next_ns, rate, utilization, registers = protocols[li].service(sim, li, ctrl, interval_ns[li])
            interval_ns[li] = next_ns
            next_tick[li] = t_next + next_ns
            if li == monitored:
                rate = protocols[li].monitored_rate(rate, utilization, scenario.n_flows(t_next / NS_PER_S))
                trace.append(
                    (
                        t_next / NS_PER_S,
                        rate,
                        registers["queue_bytes"],
                        sim.n_active(),
                        utilization,
                        registers["dropped"],
                        protocols[li].avg_rtt_s(ctrl),
                    )
                )
        if next_window == t_next:
            windows.append((t_next / NS_PER_S, sim.flow_stats()[0][:n_long]))
            next_window += window_ns
    sim.run_until(t_end_ns)
    counters = sim.counters()
    wall = time.perf_counter() - wall_start
    run = _package(scenario, alpha, beta, seed, backend, trace, windows, sim.flow_stats()[1][n_long:], counters, wall)
    run.protocol = protocol
    return run


def _native_control(backend: str, controllers: dict[int, Any], protocols: Any, monitored: int) -> tuple[int, Any] | None:
    """``(link, controller)`` when the run's one controlled port is monitored, on the C backend, and its
    protocol computes the controller's updates in C (:meth:`PacketProtocol.runs_natively`: RCP, XCP and RCP-AC
    with their own controller classes, to the bit; the twin tests compare it with the Python path). None
    otherwise: the control path then runs in Python at every expiry."""
    if backend != "c" or len(controllers) != 1:
        return None
    ((li, ctrl),) = controllers.items()
    return (li, ctrl) if li == monitored and protocols[li].runs_natively(ctrl) else None


def _package(
    scenario: Scenario,
    alpha: float,
    beta: float,
    seed: int,
    backend: str,
    trace: list[Any],
    windows: list[Any],
    fct_ns: Any,
    counters: dict[str, Any],
    wall: float,
) -> PacketRun:
    t, r, q, n, u, dropped, avg_rtt = (np.array(col) for col in zip(*trace)) if trace else (np.empty(0),) * 7
    n_long = len(scenario.long_flows)
    throughput_t = np.array([w[0] for w in windows])
    delivered = np.array([w[1] for w in windows], dtype=float).reshape(len(windows), n_long)
    previous = np.vstack([np.zeros((1, n_long)), delivered[:-1]])
    return PacketRun(
        scenario=scenario,
        alpha=alpha,
        beta=beta,
        seed=seed,
        backend=backend,
        t=t,
        R_over_C=r,
        queue_bytes=q,
        n_active=n,
        throughput_t=throughput_t,
        flow_throughput_bps=(delivered - previous) * 8 / THROUGHPUT_WINDOW_S,
        flow_completion_s=np.array([np.nan if c is None else c / NS_PER_S for c in fct_ns], dtype=float),
        counters=counters,
        wall_time_s=wall,
        utilization=u,
        dropped_packets=dropped,
        avg_rtt_s=avg_rtt,
    )
