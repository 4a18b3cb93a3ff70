"""Co-simulation: the packet-level run and the fluid model on the same scenario.

The model is ``rcp`` (default), ``xcp`` or ``rcpac``: the packet run uses the matching
router and senders (:func:`~rcpstab.packet.simulator.run.run_scenario`'s ``protocol``). For ``xcp`` the compared
"R/C" is the aggregate input rate per flow, y/(N*C), on both sides (XCP routers hold no rate).

"Same scenario" means: the fluid model's C is the bottleneck capacity, its d0 the scenario's
round-trip propagation delay, its eta the router's, its MTU the data datagram, its T the
router's rate-estimation interval min(d0, 10 ms) (App. F), its N(t) the number of scripted
long-lived flows (piecewise constant), and it starts where the router starts:
R(0)/C = initial_R_over_C * eta, q(0) = 0.

The fluid queue has the scenario's drop-tail buffer (held in [0, B], the overflow dropped and
counted: :mod:`rcpstab.models.rcp`). What the fluid model leaves out (see :data:`FLUID_OMITS`):
packets (the router counts y in whole datagrams per interval and
the queue holds whole packets, so a paced equilibrium keeps a standing queue of a packet or
two that pulls the packet plateau beta*q/(alpha*d*C) below eta/N), the RTT estimator (the
fluid d is d0 + q/C exactly, the router averages header RTTs with App. F's asymmetric gain),
connection set-up (a new flow's first RTT is a handshake), and "no flows": N = 0 has no fluid
counterpart, so it is run as N = 1, whose equilibrium (R = eta*C, q = 0) is where the router's
rate saturates with no traffic.
"""

from __future__ import annotations

import csv
import math
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from ..models import get_model
from ..packet.lens.fluid_twin import fluid_run
from ..packet.protocols.registry import model_protocol
from ..packet.simulator.run import run_scenario
from ..packet.simulator.scenarios import Scenario, get_scenario
from ..packet.simulator.segments import control_interval_s, flow_segments, rtt_average
from ..runtime.atomic import atomic_open

if TYPE_CHECKING:
    from matplotlib.axes import Axes

    from ..models import ModelSpec  # SymPy's: a bundled model's cosim may run without it

TRANSIENT_RTT = 20.0  # after each flow-count change: measured settling (5% band) is <= 15 RTTs at alpha <= 0.8
SETTLE_BAND = 0.05  # settled: one-RTT mean of R/C within 5% of eta/N (the packet plateau sits up to ~3% low)
# fluid models whose packet run is another protocol's router
PACKET_PROTOCOL = {"rcp-router": "rcp", "rcpac-router": "rcpac"}
CONSERVED = ("sent", "delivered", "dropped", "in_flight")  # packets: sent = delivered + dropped + in_flight
CSV_COLUMNS = ("t", "packet_R_over_C", "fluid_R_over_C", "packet_queue_bytes", "fluid_queue_bytes")
FLUID_OMITS = (
    "retransmissions: dropped fluid is lost, the senders' rate does not react to drops (R-TCP takes it from the router)",
    "packets: whole-datagram counting of y and a standing queue of a packet or two (pulls R/C below eta/N)",
    "RTT averaging: the fluid d is d0 + q/C, the router averages header RTTs (App. F lines 2-6)",
    "connection set-up: a new flow sends its first data one handshake after it starts",
    "no flows: N = 0 is run as N = 1 (same equilibrium: R = eta*C, q = 0)",
)


@dataclass
class SegmentAgreement:
    """Agreement of the two runs over one segment of constant flow count.

    Attributes
    ----------
    start_s, stop_s : float
        The segment [start_s, stop_s), seconds.
    n_flows : int
        Scripted long-lived flows.
    equilibrium : float
        eta/N (R/C), or eta with no flows.
    packet_plateau, fluid_plateau : float
        Mean R/C after the transient (NaN if the segment is no longer than the transient).
    packet_settling_s, fluid_settling_s : float
        Seconds from the segment's start until the one-RTT mean of R/C stays within
        :data:`SETTLE_BAND` of ``equilibrium`` to the segment's end (NaN: never).
    rms_R_over_C : float
        RMS of packet minus fluid R/C after the transient.
    """

    start_s: float
    stop_s: float
    n_flows: int
    equilibrium: float
    packet_plateau: float
    fluid_plateau: float
    packet_settling_s: float
    fluid_settling_s: float
    rms_R_over_C: float


@dataclass
class CosimResult:
    """Packet-level and fluid runs of one scenario on a common time grid.

    Attributes
    ----------
    scenario : Scenario
    alpha, beta : float
    model : ModelSpec
        The fluid model itself (``rcp``, ``xcp``, ``rcpac``... or a user's protocol file's), so that
        plotting and JSON never look a name up again; the JSON prints its ``name``.
    t : ndarray, shape (n,)
        Common grid: every rate-estimation interval T from T to the end, seconds.
    packet_R_over_C, fluid_R_over_C : ndarray, shape (n,)
        Router rate over capacity (packet: the last control update at or before ``t``).
    packet_queue_bytes, fluid_queue_bytes : ndarray, shape (n,)
        Bottleneck queue, bytes.
    n_flows : ndarray, shape (n,)
        Scripted long-lived flows at ``t`` (the fluid N before its floor of 1).
    packet_n_active : ndarray, shape (n,)
        Flows the packet simulator had started and not finished at ``t``.
    segments : list of SegmentAgreement
    transient_rtt : float
        Round trips after each flow-count change left out of plateaus and RMS figures.
    packet_wall_time_s, fluid_wall_time_s : float
        Wall-clock time of each run, seconds.
    conservation : dict
        Packets (data and control) the hosts ``sent``, ``delivered``, ``dropped`` by a full
        buffer and still ``in_flight`` at the end: sent = delivered + dropped + in_flight.
    """

    scenario: Scenario
    alpha: float
    beta: float
    t: np.ndarray
    packet_R_over_C: np.ndarray
    fluid_R_over_C: np.ndarray
    packet_queue_bytes: np.ndarray
    fluid_queue_bytes: np.ndarray
    n_flows: np.ndarray
    packet_n_active: np.ndarray
    segments: list[SegmentAgreement] = field(default_factory=list)
    transient_rtt: float = TRANSIENT_RTT
    packet_wall_time_s: float = 0.0
    fluid_wall_time_s: float = 0.0
    model: ModelSpec = field(default_factory=lambda: get_model("rcp"))
    conservation: dict[str, Any] = field(default_factory=dict)

    def __repr__(self) -> str:
        return (
            f"CosimResult(scenario={self.scenario.name!r}, model={self.model.name!r}, alpha={self.alpha:g}, "
            f"beta={self.beta:g}, 0..{self.t[-1]:.4g} s, {len(self.segments)} segment(s), "
            f"RMS R/C difference {self.rms_R_over_C:.2g})"
        )

    def plot(self, axes: Sequence[Axes] | None = None) -> tuple[Axes, Axes]:
        """Draw the packet/fluid overlay with :func:`~rcpstab.cosim.plot.cosim_plot`.

        Without ``axes`` the two panels go into a new pyplot figure, so that a notebook shows it.
        """
        from .plot import cosim_plot

        if axes is None:
            import matplotlib.pyplot as plt

            axes = plt.figure(figsize=(7.5, 6.0), layout="constrained").subplots(2, 1, sharex=True)
        return cosim_plot(self, axes=axes)

    @property
    def steady(self) -> np.ndarray:
        """Mask of grid points outside every transient."""
        mask = np.zeros(self.t.size, dtype=bool)
        for seg in self.segments:
            mask |= (self.t >= seg.start_s + self.transient_rtt * self.scenario.rtt_s) & (self.t < seg.stop_s)
        return mask

    @property
    def rms_R_over_C(self) -> float:
        """RMS of packet minus fluid R/C outside transients (NaN if nothing is left)."""
        diff = (self.packet_R_over_C - self.fluid_R_over_C)[self.steady]
        return float(np.sqrt(np.mean(diff**2))) if diff.size else math.nan

    @property
    def rms_relative(self) -> float:
        """RMS of (packet - fluid R/C) / (eta/N) outside transients: the error as a fraction of the fair share."""
        fair = np.array([_fair_share(n, self.scenario.eta) for n in self.n_flows])
        diff = ((self.packet_R_over_C - self.fluid_R_over_C) / fair)[self.steady]
        return float(np.sqrt(np.mean(diff**2))) if diff.size else math.nan

    def summary(self) -> dict[str, Any]:
        """The ``cosim --json`` object (keys documented in the command's help)."""
        return {
            "scenario": self.scenario.name,
            "model": self.model.name,
            "alpha": self.alpha,
            "beta": self.beta,
            "transient_rtt": self.transient_rtt,
            "settle_band": SETTLE_BAND,
            "rms_R_over_C": self.rms_R_over_C,
            "rms_relative": self.rms_relative,
            "segments": [{k: _json_number(v) for k, v in asdict(s).items()} for s in self.segments],
            "packet_wall_time_s": self.packet_wall_time_s,
            "fluid_wall_time_s": self.fluid_wall_time_s,
            "fluid_omits": list(FLUID_OMITS),
            "conservation": dict(self.conservation),
        }

    def to_csv(self, path: str) -> None:
        """Write :data:`CSV_COLUMNS`, one row per grid time."""
        with atomic_open(path) as fh:  # a full disk leaves the old file, not a torn one
            writer = csv.writer(fh)
            writer.writerow(CSV_COLUMNS)
            columns = (self.t, self.packet_R_over_C, self.fluid_R_over_C, self.packet_queue_bytes, self.fluid_queue_bytes)
            for row in zip(*columns):
                writer.writerow([repr(float(v)) for v in row])


def _fair_share(n_flows: int, eta: float) -> float:
    return eta / max(int(n_flows), 1)


def _json_number(value: Any) -> Any:
    """NaN is not JSON: report it as null."""
    return None if isinstance(value, float) and math.isnan(value) else value


def cosimulate(
    scenario: str | Scenario,
    alpha: float,
    beta: float,
    *,
    seed: int = 0,
    t_end: float | None = None,
    transient_rtt: float = TRANSIENT_RTT,
    model: str = "rcp",
) -> CosimResult:
    """Run ``scenario`` packet by packet and as the fluid ``model``, on a common grid.

    Parameters
    ----------
    scenario : str or Scenario
        ``"fig5.3"``, ``"testbed"`` or a scenario object.
    alpha, beta : float
        Router gains (both > 0).
    seed : int
        Seed of the packet run.
    t_end : float, optional
        Simulated seconds (default: the scenario's).
    transient_rtt : float
        Round trips after each flow-count change left out of plateaus and RMS figures.
    model : {"rcp", "rcp-router", "xcp", "rcpac", "rcpac-router"}
        Protocol of the packet run and fluid model (``rcp-router``: the RCP router against the
        fluid model with its timing).

    Returns
    -------
    CosimResult

    Raises
    ------
    InputError
        Unknown scenario or model, a gain <= 0, a buffer of 0 packets, a negative delay, ...
    """
    scenario = get_scenario(scenario)
    t_end = scenario.t_end_s if t_end is None else t_end
    user = model_protocol(get_model(model))  # a user's protocol file (--model file.py) with a PACKET_PROTOCOL
    protocol = user.name if user else PACKET_PROTOCOL.get(model, model)
    packet = run_scenario(scenario, alpha, beta, seed=seed, t_end=t_end, protocol=protocol)
    wall = time.perf_counter()
    fluid = fluid_run(scenario, alpha, beta, t_end, model)
    fluid_wall = time.perf_counter() - wall
    step = control_interval_s(scenario)
    grid = step * np.arange(1, int(math.floor(t_end / step + 1e-9)) + 1)
    # The router's rate and queue register hold between control updates: sample and hold.
    held = np.clip(np.searchsorted(packet.t, grid + 1e-9 * step, side="right") - 1, 0, None)
    result = CosimResult(
        scenario=scenario,
        alpha=alpha,
        beta=beta,
        t=grid,
        packet_R_over_C=packet.R_over_C[held],
        fluid_R_over_C=np.interp(grid, fluid.t, _fluid_share(fluid, scenario, model)),
        packet_queue_bytes=packet.queue_bytes[held].astype(float),
        fluid_queue_bytes=np.interp(grid, fluid.t, fluid.queue[:, 0]) / 8,
        n_flows=np.array([scenario.n_flows(x) for x in grid]),
        packet_n_active=packet.n_active[held],
        transient_rtt=transient_rtt,
        packet_wall_time_s=packet.wall_time_s,
        fluid_wall_time_s=fluid_wall,
        model=get_model(model),  # the object: a name is resolved once, here
        conservation={key: int(packet.counters[key]) for key in CONSERVED},
    )
    result.segments = [_segment_agreement(result, seg) for seg in flow_segments(scenario, t_end)]
    return result


def _fluid_share(fluid: Any, scenario: Scenario, model: str) -> np.ndarray:
    """The fluid R/C; for xcp y/(N(t)*C): the model's gamma divides by the initial N only."""
    if model != "xcp":  # R/C of the scenario's C (a user's model may scale its rate by another capacity)
        share: np.ndarray = fluid.gamma[:, 0] * (fluid.capacity[0] / scenario.capacity_bps)
        return share
    flows = np.maximum([scenario.n_flows(x) for x in fluid.t], 1)
    share = fluid.states["y"][:, 0] / (flows * scenario.capacity_bps)
    return share


def _segment_agreement(result: CosimResult, seg: Any) -> SegmentAgreement:
    scenario = result.scenario
    inside = (result.t >= seg.start_s) & (result.t < seg.stop_s)
    steady = inside & (result.t >= seg.start_s + result.transient_rtt * scenario.rtt_s)
    eq = seg.equilibrium(scenario.eta)
    per_rtt = int(round(scenario.rtt_s / (result.t[1] - result.t[0]))) if result.t.size > 1 else 1

    def plateau(x: np.ndarray) -> float:
        return float(np.mean(x[steady])) if steady.any() else math.nan

    def settling(x: np.ndarray) -> float:
        smooth = rtt_average(x, per_rtt)[inside]
        out = np.flatnonzero(np.abs(smooth / eq - 1.0) > SETTLE_BAND)
        if out.size == 0:
            return 0.0
        if out[-1] == smooth.size - 1:
            return math.nan
        return float(result.t[inside][out[-1] + 1] - seg.start_s)

    diff = (result.packet_R_over_C - result.fluid_R_over_C)[steady]
    return SegmentAgreement(
        start_s=seg.start_s,
        stop_s=seg.stop_s,
        n_flows=seg.n_flows,
        equilibrium=eq,
        packet_plateau=plateau(result.packet_R_over_C),
        fluid_plateau=plateau(result.fluid_R_over_C),
        packet_settling_s=settling(result.packet_R_over_C),
        fluid_settling_s=settling(result.fluid_R_over_C),
        rms_R_over_C=float(np.sqrt(np.mean(diff**2))) if diff.size else math.nan,
    )
