"""The flash crowd, packet by packet and in the fluid model, with the same finite buffer.

N long-lived flows sit at equilibrium; then (10 - 1) N more start at once
(:func:`~rcpstab.packet.simulator.scenarios.flash_crowd`). Both runs have the scenario's drop-tail buffer (the fluid
model's queue is held in [0, B] and its overflow counted, :mod:`rcpstab.models.rcp`). Each side
reports the peak queue and the dropped volume after the crowd (in C*d0) and its recovery time:
RTTs from the moment the crowd's traffic reaches the router until R/C and the queue re-enter the
convergence band and stay (:func:`rcpstab.verdicts.recovery.recovery_rtt`, the one judgement).

Aligning the two: a new packet flow sends a SYN first; the router is at the head of the
bottleneck link (:func:`~rcpstab.packet.simulator.topology.dumbbell`), so the SYN is stamped there at once, the SYN-ACK
is back one round trip d0 later and the flow's first data reaches the router then, at the rate
stamped on the SYN: R(t - d0) in the fluid's terms. The fluid model's N therefore steps up d0
after the crowd starts, and both recovery times are counted from that arrival.

The band of each side:

- fluid: the band passed in (:data:`~rcpstab.verdicts.band.STANDARD`, the thesis', by default) about
  R = eta C/N and q = 0;
- packet: the router's packet-level equilibrium, the fixed point of the rate law with the
  standing queue that paced flows keep (as :func:`~rcpstab.packet.lens.region.segment_verdict` does: q_e = mean
  one-RTT-mean queue over the run's last half after the crowd, R_e from alpha*(eta*C - y) =
  beta*q_e/d); the traces are judged on one-RTT means, and each band is widened to
  ``max(thesis band, NOISE_K x noise floor)``, the noise floor measured on the trace **before the
  crowd** (its last :data:`NOISE_WINDOW_RTT` RTTs, N flows settled), never on what is reported.
  The rate's floor is the std of its one-RTT mean, in units of C: the router counts y in whole
  datagrams per interval, an absolute quantum, so it is expressed relative to the new
  equilibrium R_e. The queue's floor is :func:`~rcpstab.packet.lens.verdicts.occupancy_floor` per flow (paced
  flows' packets coincide at random phases: the jitter grows with the flows), times the flows
  after the crowd. Both widened bands are capped: the rate's as
  :func:`~rcpstab.packet.lens.verdicts.judge_segment` caps it (one datagram per RTT at the
  new equilibrium rate), the queue's at one packet per flow (at most every flow's packet at once).
  With one flow before the crowd the queue's per-flow jitter cannot be measured (a paced flow
  never queues behind itself), and its band is the cap.
"""

from __future__ import annotations

import math
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from ..models import get_model
from ..packet.lens.fluid_twin import fluid_run
from ..packet.lens.verdicts import NOISE_K, occupancy_floor
from ..packet.simulator.run import run_scenario
from ..packet.simulator.scenarios import CROWD_AFTER_RTT, CROWD_BEFORE_RTT, CROWD_FACTOR, Scenario, crowd_time_s, get_scenario
from ..packet.simulator.segments import control_interval_s, rtt_average
from ..packet.simulator.topology import RWND_PACKETS
from ..verdicts.band import STANDARD, Band
from ..verdicts.recovery import recovery_rtt
from .packet_vs_fluid import PACKET_PROTOCOL

if TYPE_CHECKING:
    from matplotlib.axes import Axes

    from ..models import ModelSpec  # SymPy's: a bundled model's cosim may run without it

OVERLOAD = 1.05  # input above 5% over C: overloaded (the packet count's noise is a few %)
STALL = 0.05  # input below 5% of C: the senders are not sending
NOISE_WINDOW_RTT = 20.0  # the noise floor: the last 20 RTTs before the crowd (the N flows settle within 15)
# Cost of a flash crowd, from runs at N = 2 to 2e4 (10 N flows after the crowd): each flow about
# 300 us and 500 bytes (the packet simulator's and the fluid run's per-flow state, Python and C);
# each packet about 1 us. Refused above the run-cost limits (runtime.validation.check_run_cost).
SECONDS_PER_FLOW = 300e-6
BYTES_PER_FLOW = 500
SECONDS_PER_PACKET = 1e-6

AGREEMENT = 0.30  # issue 11: fluid and packet within 30% on recovery and drops


@dataclass
class CrowdResponse:
    """One side's response to the crowd.

    Attributes
    ----------
    peak_queue_bdp : float
        Largest queue after the crowd, C*d0.
    dropped_bdp : float
        Volume the buffer dropped after the crowd, C*d0 (packet: dropped datagrams x their size).
    recovery_rtt : float
        RTTs from the crowd's arrival at the router to the last exit from the band (NaN: not measured).
    reason : str or None
        Why ``recovery_rtt`` is NaN.
    gamma_eq, queue_eq_bdp : float
        The equilibrium judged against (R/C; C*d0).
    rate_band, queue_band : float
        The band used (relative rate; C*d0).
    trough_R_over_C : float
        Lowest R/C after the crowd: how far the rate law drove the rate down.
    overload_rtt : float
        Length of the first overload after the crowd's arrival (RTTs): the router's input above
        :data:`OVERLOAD` C (fluid: N*R(t - d0); packet: the input counted over each control interval).
    overload_input : float
        Mean input over C during that overload.
    stall_rtt : float
        Longest stretch after the overload with the input below :data:`STALL` C (RTTs): the
        senders waiting, not sending.
    overload_d_over_d0 : float
        The rate law's RTT d over d0, averaged over the first overload (fluid: d0 + q/C; packet:
        the router's average of the RTTs its packets carry, App. F lines 2-6).
    """

    peak_queue_bdp: float
    dropped_bdp: float
    recovery_rtt: float
    reason: str | None
    gamma_eq: float
    queue_eq_bdp: float
    rate_band: float
    queue_band: float
    trough_R_over_C: float = math.nan
    overload_rtt: float = math.nan
    overload_input: float = math.nan
    stall_rtt: float = math.nan
    overload_d_over_d0: float = math.nan

    def to_dict(self) -> dict[str, Any]:
        out = {k: (None if isinstance(v, float) and not math.isfinite(v) else v) for k, v in self.__dict__.items()}
        if out["recovery_rtt"] is None and out["reason"] is None:
            out["reason"] = "not measured"
        return out


@dataclass
class FlashCrowdResult:
    """Packet and fluid runs of one flash crowd (times in seconds, queues in C*d0).

    Attributes
    ----------
    scenario : Scenario
    alpha, beta : float
    crowd_s, arrival_s : float
        When the crowd starts, and when its traffic reaches the router (both runs' reference).
    packet_t, packet_R_over_C, packet_queue_bdp, packet_dropped_bdp : ndarray
        The router's trace at each control-timer expiry (drops cumulative from the start).
    fluid_t, fluid_R_over_C, fluid_queue_bdp, fluid_dropped_bdp : ndarray
        The fluid trace, every integration step.
    packet, fluid : CrowdResponse
    conservation : dict
        The packet run's counters: sent, delivered, dropped, in_flight (sent = delivered +
        dropped + in_flight).
    model : ModelSpec
        The fluid model itself (``rcp``: eqs. 5.1-5.4; ``rcp-router``: App. F's timing and RTT average);
        the JSON prints its ``name``.
    """

    scenario: Scenario
    alpha: float
    beta: float
    crowd_s: float
    arrival_s: float
    packet_t: np.ndarray
    packet_R_over_C: np.ndarray
    packet_queue_bdp: np.ndarray
    packet_dropped_bdp: np.ndarray
    fluid_t: np.ndarray
    fluid_R_over_C: np.ndarray
    fluid_queue_bdp: np.ndarray
    fluid_dropped_bdp: np.ndarray
    packet: CrowdResponse
    fluid: CrowdResponse
    conservation: dict[str, Any] = field(default_factory=dict)
    wall_time_s: float = 0.0
    model: ModelSpec = field(default_factory=lambda: get_model("rcp"))

    def agreement(self) -> dict[str, float | None]:
        """Relative differences ``abs(packet - fluid) / fluid`` of recovery and drops (None where not measured)."""

        def rel(p: float, f: float) -> float | None:
            return None if not (math.isfinite(p) and math.isfinite(f) and f > 0) else abs(p - f) / f

        return {
            "recovery_rtt": rel(self.packet.recovery_rtt, self.fluid.recovery_rtt),
            "dropped_bdp": rel(self.packet.dropped_bdp, self.fluid.dropped_bdp),
        }

    def differences(self) -> list[str]:
        """Each disagreement beyond :data:`AGREEMENT`, with the measurement that explains it."""
        out = []
        f, p, rel = self.fluid, self.packet, self.agreement()
        if rel["recovery_rtt"] is None or rel["recovery_rtt"] > AGREEMENT:
            head = (
                f"recovery: fluid {_num(f.recovery_rtt)}, packet {_num(p.recovery_rtt)}"
                + (f" ({p.reason})" if p.reason else "")
                + ". "
            )
            cap = self.window_cap_over_C()
            if not math.isfinite(p.overload_input) and cap < OVERLOAD:
                # No overload in the packet run: nothing for the RTT estimate or the window to explain.
                out.append(
                    head
                    + (
                        f"The packet senders never overload the link: each R-TCP sender is capped by its "
                        f"{RWND_PACKETS}-packet receive window per RTT, so the {self.scenario.n_flows(self.crowd_s)} "
                        f"flows after the crowd can send at most {cap:.3g} C; the fluid senders are paced only "
                        f"(overload {_g(f.overload_rtt, '.2g')} RTTs at {_g(f.overload_input)} C)."
                    )
                )
            elif self.model.name == "rcp" and math.isfinite(p.overload_d_over_d0):
                out.append(
                    head
                    + (
                        f"During the overload the packet router's RTT estimate stays at {_g(p.overload_d_over_d0)} d0 "
                        f"(it averages the RTTs the senders write in their headers, measured before the queue built) "
                        f"where eqs. 5.1-5.4's d = d0 + q/C is {_g(f.overload_d_over_d0)} d0, so each update cuts R "
                        f"about {_g(f.overload_d_over_d0 / p.overload_d_over_d0, '.2g')}x harder: the rate bottoms at R/C = "
                        f"{_g(p.trough_R_over_C, '.2g')} against {_g(f.trough_R_over_C, '.2g')}. R grows at most e^alpha per RTT, "
                        f"so climbing back alone takes the packet run >= {_g(self.packet_recovery_bound())} RTTs "
                        f"(the rcp-router fluid model has the router's RTT average)."
                    )
                )
            elif not math.isfinite(p.overload_input):
                out.append(
                    head
                    + (
                        f"The packet run's input never exceeds {OVERLOAD:g} C after the crowd (the fluid's is "
                        f"{_g(f.overload_input)} C for {_g(f.overload_rtt, '.2g')} RTTs)."
                    )
                )
            elif not (math.isfinite(p.recovery_rtt) or math.isfinite(f.recovery_rtt)):
                out.append(head + "Neither run recovers: they agree on that.")
            elif math.isfinite(p.recovery_rtt) and not math.isfinite(f.recovery_rtt):
                out.append(
                    head
                    + (
                        "The fluid model keeps oscillating after the crowd and the packet run settles: R-TCP's "
                        "window (rate x smoothed RTT) lets a sender send less as the queue delays its ACKs, a "
                        "damping the fluid senders (paced only) lack."
                    )
                )
            elif p.recovery_rtt < f.recovery_rtt:
                out.append(
                    head
                    + (
                        f"R-TCP's window (rate x smoothed RTT, measured before the queue built) caps what a sender "
                        f"has in flight while the full queue delays its ACKs; the fluid senders are paced only. "
                        f"The packet overload is {_g(p.overload_rtt, '.2g')} RTTs at {_g(p.overload_input)} C against "
                        f"{_g(f.overload_rtt, '.2g')} RTTs at {_g(f.overload_input)} C, so the rate falls to R/C = "
                        f"{_g(p.trough_R_over_C, '.2g')} against {_g(f.trough_R_over_C, '.2g')} and climbs back sooner."
                    )
                )
            else:
                sc = self.scenario
                n_after = sc.n_flows(self.crowd_s)
                out.append(
                    head
                    + (
                        f"The paced packet flows keep a standing queue the fluid has not, {_g(p.queue_eq_bdp, '.2g')} C*d0 "
                        f"({_g(p.queue_eq_bdp * sc.bdp_bytes / sc.packet_bytes, '.2g')} packets) on average after the crowd; "
                        f"the rate law turns it into an equilibrium R_e = {_g(p.gamma_eq * n_after / sc.eta)} eta C/N "
                        f"(beta = {self.beta:g}), and the collisions of the flows' packets move the rate about it: "
                        f"its last exit from the {_g(100 * p.rate_band, '.2g')}% band comes later."
                    )
                )
        if p.stall_rtt > f.stall_rtt + 1.0:
            out.append(
                f"stall: after the overload the packet input stays under {STALL:g} C for {_g(p.stall_rtt)} RTTs "
                f"against the fluid's {_g(f.stall_rtt)}: at App. F's MIN_RATE = 0.01 MTU/d a sender sends one "
                f"packet per 100 RTTs and hears a higher rate only from an ACK or a rate-refresh probe."
            )
        if rel["dropped_bdp"] is None or rel["dropped_bdp"] > AGREEMENT:
            out.append(
                f"drops: fluid {_g(f.dropped_bdp)} C*d0, packet {_g(p.dropped_bdp)} C*d0; first overload "
                f"{_g(f.overload_rtt, '.2g')} RTTs at {_g(f.overload_input)} C (fluid) against "
                f"{_g(p.overload_rtt, '.2g')} RTTs at {_g(p.overload_input)} C (packet)."
            )
        return out

    def window_cap_over_C(self) -> float:
        """The most the packet senders after the crowd can send, over C: N receive windows per round trip."""
        sc = self.scenario
        return sc.n_flows(self.crowd_s) * RWND_PACKETS * sc.packet_bytes * 8.0 / (sc.rtt_s * sc.capacity_bps)

    def packet_recovery_bound(self) -> float:
        """RTTs the packet rate needs to climb from its trough to its equilibrium at the fastest
        growth the rate law allows (e^alpha per RTT): a lower bound of its recovery time."""
        p = self.packet
        if not (p.trough_R_over_C > 0 and p.gamma_eq > p.trough_R_over_C):
            return 0.0
        return math.log(p.gamma_eq / p.trough_R_over_C) / self.alpha

    def summary(self) -> dict[str, Any]:
        """The ``cosim --scenario flash-crowd --json`` object."""
        sc = self.scenario
        n = sc.n_flows(0.0)
        return {
            "scenario": sc.name,
            "model": self.model.name,
            "alpha": self.alpha,
            "beta": self.beta,
            "network": {
                "C_bps": sc.capacity_bps,
                "d0_s": sc.rtt_s,
                "N_before": n,
                "N_after": sc.n_flows(self.crowd_s),
                "buffer_bdp": sc.effective_buffer_bytes / sc.bdp_bytes,
                "eta": sc.eta,
            },
            "crowd_s": self.crowd_s,
            "arrival_s": self.arrival_s,
            "fluid": self.fluid.to_dict(),
            "packet": self.packet.to_dict(),
            "relative_difference": self.agreement(),
            "agreement_limit": AGREEMENT,
            "differences": self.differences(),
            "conservation": self.conservation,
            "wall_time_s": self.wall_time_s,
        }

    def plot(self, axes: Sequence[Axes] | None = None) -> tuple[Axes, Axes, Axes]:
        """Draw both runs (:func:`~rcpstab.cosim.plot.flash_crowd_plot`)."""
        from .plot import flash_crowd_plot

        return flash_crowd_plot(self, axes)


def _g(x: float, spec: str = ".3g") -> str:
    """A measured number for a sentence: "n/a" where it was not measured (never "nan")."""
    return format(x, spec) if math.isfinite(x) else "n/a"


def _num(x: float) -> str:
    return f"{x:.3g} RTTs" if math.isfinite(x) else "not measured"


def input_episodes(t_rtt: np.ndarray, inflow: np.ndarray, d_over_d0: np.ndarray) -> tuple[float, ...]:
    """First overload (length in RTTs, mean input over C), longest stall after it (RTTs) and the mean
    d/d0 during the overload.

    ``inflow`` is the router's input over C at times ``t_rtt`` (uniform steps), from the crowd's
    arrival; ``d_over_d0`` the rate law's RTT at those times.
    """
    step = float(t_rtt[1] - t_rtt[0]) if t_rtt.size > 1 else 0.0
    over = inflow > OVERLOAD
    if not over.any():
        return 0.0, math.nan, 0.0, math.nan
    first = int(np.argmax(over))
    end = first + (int(np.argmax(~over[first:])) if (~over[first:]).any() else over.size - first)
    low = np.concatenate([[False], inflow[end:] < STALL, [False]]).astype(int)
    edges = np.flatnonzero(np.diff(low))
    stall = float(np.max(edges[1::2] - edges[::2]) * step) if edges.size else 0.0
    return float((end - first) * step), float(inflow[first:end].mean()), stall, float(d_over_d0[first:end].mean())


def arrival_delay_s(scenario: Scenario) -> float:
    """A new flow's first data reaches the router (at the head of the bottleneck) one handshake,
    d0, after it starts (s)."""
    return scenario.rtt_s


def _fluid_response(run: Any, scenario: Scenario, arrival_s: float, band: Band = STANDARD) -> CrowdResponse:
    bdp = scenario.capacity_bps * scenario.rtt_s
    t, gamma, queue = run.t, run.gamma[:, 0], run.queue[:, 0] / bdp
    dropped = run.states["dropped"][:, 0] / bdp
    after = t >= arrival_s
    n_after = scenario.n_flows(arrival_s)
    gamma_eq = scenario.eta / n_after
    recovery, reason = recovery_rtt(t / scenario.rtt_s, gamma, queue, gamma_eq, 0.0, arrival_s / scenario.rtt_s, band)
    before = dropped[np.searchsorted(t, arrival_s) - 1] if np.any(~after) else 0.0
    lag = int(round(scenario.rtt_s / run.dt))
    inflow = n_after * np.concatenate([np.full(lag, gamma[0]), gamma[:-lag]])  # N*R(t - d0)/C
    # the rate law's RTT: the router's average D where the model has one (rcp-router), else d0 + q/C
    d_over_d0 = run.states["D"][:, 0] / scenario.rtt_s if "D" in run.states else 1.0 + queue
    episodes = input_episodes(t[after] / scenario.rtt_s, inflow[after], d_over_d0[after])
    return CrowdResponse(
        float(queue[after].max()),
        float(dropped[-1] - before),
        recovery,
        reason,
        gamma_eq,
        0.0,
        band.rate,
        band.queue,
        float(gamma[after].min()),
        *episodes,
    )


def _packet_response(
    packet: Any, scenario: Scenario, alpha: float, beta: float, crowd_s: float, arrival_s: float, band: Band = STANDARD
) -> CrowdResponse:
    bdp_bits = scenario.capacity_bps * scenario.rtt_s
    per_rtt = max(int(round(scenario.rtt_s / control_interval_s(scenario))), 1)
    t, gamma = packet.t, packet.R_over_C
    queue = packet.queue_bytes * 8.0 / bdp_bits
    n_before, n_after = scenario.n_flows(0.0), scenario.n_flows(crowd_s)
    # noise floors, before the crowd only
    quiet = (t >= crowd_s - NOISE_WINDOW_RTT * scenario.rtt_s) & (t < crowd_s)
    rate_noise = float(np.std(rtt_average(gamma[quiet], per_rtt)[per_rtt:])) if quiet.sum() > 2 * per_rtt else 0.0
    queue_noise = occupancy_floor(queue[quiet], per_rtt) / n_before * n_after if quiet.sum() > 2 * per_rtt else 0.0
    if n_before == 1:
        # One paced flow never queues behind itself: the per-flow collision jitter cannot be measured
        # before the crowd (it reads 0), so the queue band takes its cap, one packet per flow.
        queue_noise = math.inf
    # the packet-level equilibrium after the crowd: the rate law's fixed point with the standing queue
    after = t >= arrival_s
    late = after & (t >= 0.5 * (arrival_s + t[-1]))
    queue_eq = float(rtt_average(queue[after], per_rtt)[-late.sum() :].mean())
    delay = 1.0 + queue_eq  # d/d0
    gamma_eq = (scenario.eta - beta * queue_eq / (alpha * delay)) / n_after
    peak = float(queue[t >= crowd_s].max())
    dropped_pkts = (
        packet.dropped_packets[-1] - packet.dropped_packets[t < crowd_s][-1]
        if np.any(t < crowd_s)
        else packet.dropped_packets[-1]
    )
    dropped = float(dropped_pkts) * scenario.packet_bytes * 8.0 / bdp_bits
    if gamma_eq <= 0:
        return CrowdResponse(
            peak,
            dropped,
            math.nan,
            "the standing queue drives the rate law to zero: no equilibrium",
            gamma_eq,
            queue_eq,
            math.nan,
            math.nan,
        )
    quantum = scenario.packet_bytes * 8.0 / (bdp_bits * gamma_eq)  # one datagram per RTT, relative to R_e
    widened = band.widened(
        min(NOISE_K * rate_noise / gamma_eq, quantum),
        min(NOISE_K * queue_noise, n_after * scenario.packet_bytes * 8.0 / bdp_bits),
    )
    rate_band, queue_band = widened.rate, widened.queue
    smooth_gamma = rtt_average(gamma, per_rtt)
    smooth_queue = rtt_average(queue, per_rtt)
    recovery, reason = recovery_rtt(
        t / scenario.rtt_s, smooth_gamma, smooth_queue, gamma_eq, queue_eq, arrival_s / scenario.rtt_s, widened
    )
    episodes = input_episodes(t[after] / scenario.rtt_s, packet.utilization[after], packet.avg_rtt_s[after] / scenario.rtt_s)
    return CrowdResponse(
        peak, dropped, recovery, reason, gamma_eq, queue_eq, rate_band, queue_band, float(gamma[after].min()), *episodes
    )


def check_flash_crowd(
    capacity_bps: float,
    rtt_s: float,
    n_flows: int,
    buffer_bdp: float = 1.0,
    packet_bytes: int = 1500,
    factor: int = CROWD_FACTOR,
    duration_rtt: float = CROWD_BEFORE_RTT + CROWD_AFTER_RTT,
    options: tuple[str, str, str, str] = ("--C", "--rtt", "--N", "--buffer"),
) -> None:
    """Refuse a flash crowd outside the domain table or above the run-cost limits, in one line.

    Parameters
    ----------
    capacity_bps, rtt_s : float
        C (bit/s) and d0 (s).
    n_flows : int
        Flows before the crowd (``factor`` times as many after it).
    buffer_bdp : float or None
        Drop-tail buffer in C*d0 (None: unbounded).
    packet_bytes, factor, duration_rtt
        Of the scenario (:func:`~rcpstab.packet.simulator.scenarios.flash_crowd`).
    options : tuple of str
        How the user gave C, d0, N and the buffer (the messages name them).

    Raises
    ------
    InputError
    """
    from ..errors import InputError
    from ..runtime.validation import SIMULATOR_INTEGERS, check_integer, check_run_cost, check_value

    o_c, o_rtt, o_n, o_buffer = options
    check_value("C", capacity_bps, o_c)
    check_value("rtt", rtt_s, o_rtt)
    check_integer("N", n_flows, o_n)
    if buffer_bdp is not None:
        check_value("buffer_bdp", buffer_bdp, o_buffer)
        buffer_bytes = buffer_bdp * capacity_bps * rtt_s / 8
        if buffer_bytes > SIMULATOR_INTEGERS["buffer_bytes"][1]:
            raise InputError(
                f"{o_buffer} {buffer_bdp:g} at {o_c} {capacity_bps:g} and {o_rtt} {rtt_s:g}: a buffer of "
                f"{buffer_bytes:.3g} bytes, more than the packet simulator's "
                f"{SIMULATOR_INTEGERS['buffer_bytes'][1]:.3g}"
            )
    flows = factor * n_flows
    # Packets: what the link carries, or what the senders' windows let out if that is less.
    per_rtt = min(capacity_bps * rtt_s / (8 * packet_bytes), flows * RWND_PACKETS)
    packets = duration_rtt * per_rtt + 3 * flows
    check_run_cost(
        f"cosim --scenario flash-crowd with {o_n} {n_flows} ({flows:g} flows after the crowd) at "
        f"{o_c} {capacity_bps:g}, {o_rtt} {rtt_s:g}",
        flows * SECONDS_PER_FLOW + packets * SECONDS_PER_PACKET,
        flows * BYTES_PER_FLOW,
    )


def flash_crowd_cosim(
    scenario: str | Scenario, alpha: float, beta: float, *, seed: int = 0, model: str = "rcp", band: Band = STANDARD
) -> FlashCrowdResult:
    """Run a flash crowd packet by packet and as the fluid ``model`` with the same buffer.

    Parameters
    ----------
    scenario : str or Scenario
        ``"flash-crowd"`` or one built by :func:`~rcpstab.packet.simulator.scenarios.flash_crowd`.
    alpha, beta : float
        Router gains.
    seed : int
        Seed of the packet run.
    model : str
        The fluid model; the packet run is its protocol's (``rcp-router``: the RCP router). ``rcp``
        is eqs. 5.1-5.4; ``rcp-router`` is the one with the packet router's timing (the rate law
        reads the input over the last interval T, updates every T, uses App. F's RTT average of
        the header RTTs): the fluid model the packet run should match.
    band : Band
        The convergence band recovery is measured against (the packet side widens it to its
        noise floor).

    Returns
    -------
    FlashCrowdResult
    """
    scenario = get_scenario(scenario)
    wall = time.perf_counter()
    crowd_s = crowd_time_s(scenario)
    arrival_s = crowd_s + arrival_delay_s(scenario)
    packet = run_scenario(scenario, alpha, beta, seed=seed, protocol=PACKET_PROTOCOL.get(model, model))
    fluid = fluid_run(scenario, alpha, beta, scenario.t_end_s, model, shift={crowd_s: arrival_s})
    bdp_bits = scenario.capacity_bps * scenario.rtt_s
    counters = packet.counters
    return FlashCrowdResult(
        scenario=scenario,
        alpha=alpha,
        beta=beta,
        crowd_s=crowd_s,
        arrival_s=arrival_s,
        model=get_model(model),
        packet_t=packet.t,
        packet_R_over_C=packet.R_over_C,
        packet_queue_bdp=packet.queue_bytes * 8.0 / bdp_bits,
        packet_dropped_bdp=packet.dropped_packets * scenario.packet_bytes * 8.0 / bdp_bits,
        fluid_t=fluid.t,
        fluid_R_over_C=fluid.gamma[:, 0],
        fluid_queue_bdp=fluid.queue[:, 0] / bdp_bits,
        fluid_dropped_bdp=fluid.states["dropped"][:, 0] / bdp_bits,
        packet=_packet_response(packet, scenario, alpha, beta, crowd_s, arrival_s, band),
        fluid=_fluid_response(fluid, scenario, arrival_s, band),
        conservation={k: int(counters[k]) for k in ("sent", "delivered", "dropped", "in_flight")},
        wall_time_s=time.perf_counter() - wall,
    )
