"""Run a scenario through the packet simulator: C event loop, Python control path.

The simulator (C, or its Python twin) runs uninterrupted until the next control-timer
expiry; the App. F control path then reads and writes the port registers in Python and
the simulator continues. Nothing calls back into Python per packet.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np

from ..errors import InputError
from .control import RcpController, rate_register
from .scenarios import Scenario, get_scenario
from .simulator_py import PySimulator
from .topology import CTRL_PACKET_BYTES, IP_HEADER_BYTES, RCP_HEADER_BYTES, RWND_PACKETS, TCP_HEADER_BYTES
from .topology import dumbbell, flow_table

NS_PER_S = 1_000_000_000
NS_PER_MS = 1_000_000
BACKENDS = ("c", "python")
THROUGHPUT_WINDOW_S = 1.0


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
        Router rate ``rcp_rate`` after each expiry, as a fraction of the link capacity.
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

    @property
    def events_per_s(self) -> float:
        """Simulator events processed per wall-clock second."""
        return self.counters["events"] / self.wall_time_s if self.wall_time_s > 0 else float("nan")


def make_simulator(scenario: Scenario, seed: int, t_end_s: float, backend: str):
    """Build the simulator for ``scenario`` (C ``Simulator`` or ``PySimulator``) and its topology."""
    topology = dumbbell(scenario)
    args = dict(
        links=[link.as_sim_tuple() for link in topology.links],
        paths=list(topology.paths),
        flows=flow_table(scenario, topology, seed, t_end_s),
        data_size=scenario.packet_bytes,
        ctrl_size=CTRL_PACKET_BYTES,
        window_denominator=scenario.packet_bytes - TCP_HEADER_BYTES,  # MSS + RCP + IP headers
        rwnd_pkts=RWND_PACKETS,
    )
    assert scenario.packet_bytes - TCP_HEADER_BYTES > IP_HEADER_BYTES + RCP_HEADER_BYTES
    if backend == "c":
        from ._datapath import Simulator

        return Simulator(**args), topology
    return PySimulator(**args), topology


def _check_inputs(alpha: float, beta: float, backend: str, t_end: float) -> None:
    if not alpha > 0:
        raise InputError(f"alpha={alpha} must be > 0")
    if not beta >= 0:
        raise InputError(f"beta={beta} must be >= 0")
    if backend not in BACKENDS:
        raise InputError(f"backend={backend!r} is not one of {', '.join(BACKENDS)}")
    if not t_end > 0:
        raise InputError(f"t_end={t_end} must be > 0")


def run_scenario(
    scenario: str | Scenario,
    alpha: float,
    beta: float,
    *,
    seed: int = 0,
    backend: str = "c",
    t_end: float | None = None,
) -> PacketRun:
    """Simulate ``scenario`` packet by packet with router gains ``alpha`` and ``beta``.

    Parameters
    ----------
    scenario : str or Scenario
        A name from :data:`rcpstab.reference_impl.scenarios.SCENARIOS` or a scenario object.
    alpha, beta : float
        Router gains of App. F line 8 (alpha > 0, beta >= 0).
    seed : int
        Seed of the Poisson arrivals; everything else is deterministic.
    backend : {"c", "python"}
        The C event loop or its pure-Python twin (identical traces, ~tens of times slower).
    t_end : float, optional
        Simulated seconds; default ``scenario.t_end_s``.

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
    _check_inputs(alpha, beta, backend, t_end)
    wall_start = time.perf_counter()
    sim, topology = make_simulator(scenario, seed, t_end, backend)
    controllers = {}
    for li, link in enumerate(topology.links):
        if link.rcp:
            controllers[li] = RcpController(
                link_rate=link.capacity_bps / 8000,
                alpha=alpha,
                beta=beta,
                eta=scenario.eta,
                rate=scenario.initial_R_over_C * scenario.eta * link.capacity_bps / 8000,
                avg_rtt=scenario.rtt_s * 1000 if scenario.rtt_s > 0 else 1.0,
                mtu=scenario.packet_bytes,
            )
            sim.set_registers(li, rate=rate_register(controllers[li].rate))
    interval_ns = {li: int(round(c.interval * NS_PER_MS)) for li, c in controllers.items()}
    next_tick = dict(interval_ns)
    t_end_ns = int(round(t_end * NS_PER_S))
    window_ns = int(THROUGHPUT_WINDOW_S * NS_PER_S)
    next_window = window_ns
    n_long = len(scenario.long_flows)
    trace: list[tuple[float, float, int, int]] = []
    windows: list[tuple[float, list[int]]] = []
    monitored = topology.monitored_link
    while True:
        t_next = min(min(next_tick.values()), next_window)
        if t_next > t_end_ns:
            break
        sim.run_until(t_next)
        for li, ctrl in controllers.items():
            if next_tick[li] != t_next:
                continue
            registers = sim.registers(li)
            next_tr, writes = ctrl.service(registers, interval_ns[li] / NS_PER_MS)
            sim.set_registers(li, **writes)
            interval_ns[li] = max(int(round(next_tr * NS_PER_MS)), 1)
            next_tick[li] = t_next + interval_ns[li]
            if li == monitored:
                trace.append((t_next / NS_PER_S, ctrl.rate / ctrl.link_rate, registers["queue_bytes"], sim.n_active()))
        if next_window == t_next:
            windows.append((t_next / NS_PER_S, sim.flow_stats()[0][:n_long]))
            next_window += window_ns
    sim.run_until(t_end_ns)
    counters = sim.counters()
    wall = time.perf_counter() - wall_start
    return _package(scenario, alpha, beta, seed, backend, trace, windows, sim.flow_stats()[1][n_long:], counters, wall)


def _package(scenario, alpha, beta, seed, backend, trace, windows, fct_ns, counters, wall) -> PacketRun:
    t, r, q, n = (np.array(col) for col in zip(*trace)) if trace else (np.empty(0),) * 4
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
    )
