"""Co-simulation on a multi-link network: packet run (:mod:`.packet_run`) and fluid run (:mod:`rcpstab.network`).

Scenario ``fig5.7`` (thesis Fig. 5.7, Figs. 5.8-5.9): both runs use the same network,
gains, eta, initial router state (R/C = 0.1 eta everywhere, avg_rtt the rate-weighted
propagation RTT) and every flow's RTT in the estimator. The packet run is sampled and
held on the fluid's record grid, so both are :class:`~rcpstab.network.fluid.NetworkRun`
objects and share the convergence summary of :mod:`rcpstab.network.convergence`.

CSV (:data:`NETWORK_CSV_QUANTITIES`): ``t`` (s), then for every link L of the network
(fig5.7: L1, L2, L3), for each quantity, ``packet_<L>_<quantity>`` and
``fluid_<L>_<quantity>``; quantities ``R_over_C`` (router rate over link capacity),
``queue_bytes``, ``avg_rtt_s`` (the router's RTT estimate d, eq. 5.17) and
``rtt_sample_s`` (the interval's packet-average RTT d_T, eq. 5.16).
"""

from __future__ import annotations

import csv
import math
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from ..errors import InputError
from ..network.convergence import summarize
from ..network.fluid import NetworkRun, check_whole_steps, simulate_network
from ..network.topology import fig57
from ..packet.simulator.topofile import UNBOUNDED_BUFFER_BYTES, load_topology
from ..runtime.atomic import atomic_open
from .network_packet_run import NETWORK_MAX_RTT_MS, PacketNetworkRun, run_network, run_topology, spec_network

if TYPE_CHECKING:
    from matplotlib.figure import Figure

NETWORK_SCENARIOS = {"fig5.7": fig57}
NETWORK_T_END_S = 400.0  # 20 round trips of Fig. 5.7's long flow, as `rcpstab network`
NETWORK_CSV_QUANTITIES = ("R_over_C", "queue_bytes", "avg_rtt_s", "rtt_sample_s")
NETWORK_FLUID_OMITS = (
    "connection set-up: packet flows send one handshake after t = 0 (the 20 s flow after 20 s), so L1's rate "
    "climbs to its cap meanwhile and the long flow's first full round trip builds a queue the fluid run never has",
    "packets: whole-datagram counting and the queue of paced packets",
    "RTT measurement: a packet carries its sender's smoothed RTT (srtt), the fluid flow its current RTT",
)


@dataclass
class NetworkCosimResult:
    """Packet and fluid runs of a network scenario on the fluid's record grid.

    Attributes
    ----------
    scenario : str
    alpha, beta : float
    packet, fluid : NetworkRun
        One run each (batch size 1); rates bit/s, queues bits, RTTs s.
    packet_counters : dict
        Final simulator counters of the packet run (``dropped`` is 0: buffers are unbounded).
    packet_wall_time_s, fluid_wall_time_s : float
    capacity_bps : ndarray, shape (links,)
    packet_run : PacketNetworkRun or None
        The packet run itself: its per-link and per-flow traces (``packet_run.to_pandas("flows")``).
    judged_links : tuple of str
        Links whose rates the summary judges (fig5.7: L1 and L3; a topology file: all); the first
        one's RTT estimate is judged too.
    """

    scenario: str
    alpha: float
    beta: float
    packet: NetworkRun
    fluid: NetworkRun
    packet_counters: dict[str, Any]
    packet_wall_time_s: float
    fluid_wall_time_s: float
    capacity_bps: np.ndarray
    packet_run: PacketNetworkRun | None = None
    judged_links: tuple[str, ...] = ("L1", "L3")

    def __repr__(self) -> str:
        return (
            f"NetworkCosimResult(scenario={self.scenario!r}, alpha={self.alpha:g}, beta={self.beta:g}, "
            f"0..{self.fluid.t[-1]:.4g} s, links {', '.join(self.fluid.link_names)})"
        )

    def plot(self) -> Figure:
        """Draw packet and fluid runs with :func:`~rcpstab.cosim.network_plot.network_cosim_plot`."""
        from .network_plot import network_cosim_plot

        return network_cosim_plot(self)

    def summary(self) -> dict[str, Any]:
        """The ``cosim --scenario fig5.7 --json`` object (keys in the command's help)."""
        packet, fluid = (
            _without_gains(summarize(run, self.judged_links, self.judged_links[0])[0]) for run in (self.packet, self.fluid)
        )
        return _json_safe(  # type: ignore[no-any-return]  # a dict in, a dict out
            {
                "scenario": self.scenario,
                "alpha": self.alpha,
                "beta": self.beta,
                "t_end_s": float(self.fluid.t[-1]),
                "packet": packet,
                "fluid": fluid,
                "packet_over_fluid": {
                    key: packet[key] / fluid[key] for key in packet if key.endswith(("final_rate_bps", "final_s"))
                },
                "max_allowable_rtt_ms": NETWORK_MAX_RTT_MS,
                "packet_events": self.packet_counters["events"],
                "packet_dropped": self.packet_counters["dropped"],
                "packet_wall_time_s": self.packet_wall_time_s,
                "fluid_wall_time_s": self.fluid_wall_time_s,
                "fluid_omits": list(NETWORK_FLUID_OMITS),
            }
        )

    def columns(self) -> dict[str, np.ndarray]:
        """The CSV's columns by name, in order (see the module docstring)."""
        out = {"t": self.fluid.t}
        for i, name in enumerate(self.fluid.link_names):
            for quantity in NETWORK_CSV_QUANTITIES:
                for side, run in (("packet", self.packet), ("fluid", self.fluid)):
                    out[f"{side}_{name}_{quantity}"] = _quantity(run, i, quantity, self.capacity_bps[i])
        return out

    def to_csv(self, path: str) -> None:
        """Write :meth:`columns`, one row per grid time."""
        columns = self.columns()
        with atomic_open(path) as fh:  # a full disk leaves the old file, not a torn one
            writer = csv.writer(fh)
            writer.writerow(columns)
            for row in zip(*columns.values()):
                writer.writerow([repr(float(v)) for v in row])


def _quantity(run: NetworkRun, i: int, quantity: str, capacity_bps: float) -> np.ndarray:
    if quantity == "R_over_C":
        return run.rate[:, i, 0] / capacity_bps
    if quantity == "queue_bytes":
        return run.queue[:, i, 0] / 8
    return (run.avg_rtt if quantity == "avg_rtt_s" else run.rtt_sample)[:, i, 0]


def _without_gains(row: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in row.items() if k not in ("alpha", "beta")}


def _json_safe(value: Any) -> Any:
    """NaN is not JSON: report it as null, recursively."""
    if isinstance(value, dict):
        return {k: _json_safe(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_json_safe(v) for v in value]
    return None if isinstance(value, float) and math.isnan(value) else value


def cosimulate_network(
    scenario: str, alpha: float, beta: float, *, t_end: float = NETWORK_T_END_S, backend: str = "c", **network_options: Any
) -> NetworkCosimResult:
    """Run a network scenario packet by packet and as the fluid model.

    Parameters
    ----------
    scenario : str
        A key of :data:`NETWORK_SCENARIOS` (``"fig5.7"``) or a topology file (``*.toml``/``*.json``,
        :mod:`rcpstab.packet.simulator.topofile`; long-lived flows from t = 0, unbounded buffers).
    alpha, beta : float
        Router gains (both > 0).
    t_end : float
        Simulated seconds.
    backend : {"c", "python"}
        Packet simulator.
    **network_options
        Passed to the scenario's network builder, e.g. ``l2_delay`` for fig5.7.

    Returns
    -------
    NetworkCosimResult

    Raises
    ------
    InputError
        Unknown scenario, a gain <= 0, t_end <= 0, a topology file the fluid model cannot run.
    """
    if not (alpha > 0 and beta > 0):
        raise InputError(f"alpha={alpha} and beta={beta} must be > 0")
    if scenario in NETWORK_SCENARIOS:
        net = NETWORK_SCENARIOS[scenario](**network_options)
        judged: tuple[str, ...] = ("L1", "L3")
        packet = run_network(net, alpha, beta, t_end, backend=backend)
    elif str(scenario).endswith((".toml", ".json")):
        spec = load_topology(scenario)
        _check_fluid_can_run(spec, network_options)
        net, judged = spec_network(spec), tuple(link.name for link in spec.links)
        check_whole_steps(net)
        packet = run_topology(spec, alpha, beta, t_end, backend=backend)
    else:
        raise InputError(
            f"unknown network scenario {scenario!r} (known: {', '.join(NETWORK_SCENARIOS)}, or a topology file *.toml/*.json)"
        )
    wall = time.perf_counter()
    fluid = simulate_network(net, alpha, beta, t_end, eta=packet.eta)
    fluid_wall = time.perf_counter() - wall
    return NetworkCosimResult(
        scenario=scenario,
        alpha=alpha,
        beta=beta,
        packet=packet.as_network_run(fluid.t),
        fluid=fluid,
        packet_counters=packet.counters,
        packet_wall_time_s=packet.wall_time_s,
        fluid_wall_time_s=fluid_wall,
        capacity_bps=np.array([link.capacity for link in net.links]),
        packet_run=packet,
        judged_links=judged,
    )


def _check_fluid_can_run(spec: Any, options: dict[str, Any]) -> None:
    """The fluid network model runs long-lived flows from t = 0 on unbounded queues: refuse what it cannot."""
    if options:
        raise InputError(f"{next(iter(options))}: does not apply to a topology file")
    for flow in spec.flows:
        if flow.start_s != 0 or flow.start_jitter_s != 0 or not math.isinf(flow.stop_s):
            raise InputError(
                f"flows[{flow.name}]: start_s={flow.start_s:g}, stop_s={flow.stop_s:g}: the fluid network "
                "model runs long-lived flows from t = 0 (run the packet side alone: run_topology)"
            )
    for link in spec.links:
        if link.buffer_bytes != UNBOUNDED_BUFFER_BYTES:
            raise InputError(
                f"links[{link.name}].buffer_bytes={link.effective_buffer_bytes}: the fluid network model's queues "
                'are unbounded ("unbounded"; run the packet side alone: run_topology)'
            )
