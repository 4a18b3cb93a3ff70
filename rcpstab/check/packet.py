"""``--packet``: confirm the fluid verdict with the reference implementation on one envelope corner.

Which corner: the fluid model's worst (worst verdict, then slowest convergence from App. E's
conditions) among the corners where each flow's bandwidth-delay product C*d0/N is at least
:data:`MIN_PACKETS_PER_FLOW` packets. Below that the window floor of one packet makes every
flow overload the link and flows stall in timeouts: the packet run then measures overload,
not RCP's control loop, and says nothing about the gains.

The run is bounded: C is capped at :data:`MAX_CAPACITY_BPS`, and raised if needed so that each
flow keeps :data:`SIM_PACKETS_PER_FLOW` packets after the doubling (with fewer, the standing
queue's packet noise leaves the verdict undecided); both are sound because the loop
is C-independent in normalized units (thesis Fig. 5.10). Each segment lasts
:data:`SEGMENT_RTT` round trips. N flows start at t = 0 against a router at half their fair
share, R/C = 0.5*eta/N (the reference implementation's own start, R/C = 0.05, overloads 100
flows fivefold), and N more join halfway: the load doubles.
Each segment is judged by :func:`~rcpstab.packet.lens.region.run_verdict`; the run confirms
stability only if every segment settles within the run. A decay whose settling is extrapolated
past the end is no confirmation: an oscillation bounded by its own packet losses can look
like a slow decay (the measurements behind these choices are in ``examples/README.md``).

The flash crowd is confirmed the same way (:func:`packet_flash_crowd_finding`): on the corner
whose fluid recovery is slowest among those with :data:`MIN_PACKETS_PER_FLOW` packets per flow
*after* the crowd (10 N flows), the same capacity cap and floor, and the envelope's buffer in
both runs (:func:`~rcpstab.cosim.flash_crowd.flash_crowd_cosim`, against the
``rcp-router`` fluid model: the router's timing and RTT average, the fluid model the packet run
should match; the finding's differences name the measured cause of any gap). Capping C is not
neutral here: the rate floor MIN_RATE = 0.01 MTU/d is absolute, so at a lower C the rate law
has less room to fall and the climb back is shorter; the finding says when C was capped.
"""

from __future__ import annotations

import math
from typing import Any

from ..cosim.flash_crowd import flash_crowd_cosim
from ..packet.lens.region import run_verdict
from ..packet.simulator.run import run_scenario
from ..packet.simulator.scenarios import CROWD_FACTOR, Scenario, flash_crowd
from ..phaseplane.verdicts import CONVERGED, VERDICTS
from .finding import Finding
from .nonlinear import WORST_FIRST, NetworkResult

PACKET_BYTES = 1500
MIN_PACKETS_PER_FLOW = 4.0
SIM_PACKETS_PER_FLOW = 8.0
MAX_CAPACITY_BPS = 100e6  # 8 300 packets/s: a 500 ms corner's 300 RTTs take about a second of C loop
SEGMENT_RTT = 150.0  # room for the verdict's trend fit (>= 40 RTTs) and a slow settle


def packets_per_flow(network: dict[str, float]) -> float:
    """Bandwidth-delay product per flow, in packets of :data:`PACKET_BYTES`."""
    packets: float = network["C"] * network["d0"] / (network["N"] * PACKET_BYTES * 8)
    return packets


def worst_corner(results: list[NetworkResult]) -> NetworkResult | None:
    """The fluid model's worst corner among those with enough packets per flow (None if none)."""
    eligible = [r for r in results if packets_per_flow(r.network) >= MIN_PACKETS_PER_FLOW]
    if not eligible:
        return None

    def badness(r: NetworkResult) -> tuple[int, float]:
        time = -1.0 if math.isnan(r.convergence_rtt) else r.convergence_rtt
        return (-WORST_FIRST.index(r.verdict), time)

    return max(eligible, key=badness)


def corner_scenario(network: dict[str, float]) -> Scenario:
    """The corner as a packet scenario: N flows, N more halfway, C capped or raised (module docstring)."""
    n, d0 = int(round(network["N"])), network["d0"]
    floor_bps = SIM_PACKETS_PER_FLOW * 2 * n * PACKET_BYTES * 8 / d0  # 2N flows after the doubling
    capacity = max(min(network["C"], MAX_CAPACITY_BPS), floor_bps)
    half = SEGMENT_RTT * d0
    return Scenario(
        name="check-corner",
        capacity_bps=capacity,
        rtt_s=d0,
        eta=network["eta"],
        long_flows=((0.0, math.inf),) * n + ((half, math.inf),) * n,
        t_end_s=2 * half,
        initial_R_over_C=0.5 * network["eta"] / n,
        packet_bytes=PACKET_BYTES,
    )


def packet_finding(results: list[NetworkResult], alpha: float, beta: float) -> Finding:
    """Run the reference router on the worst eligible corner and compare with the fluid verdict there."""
    corner = worst_corner(results)
    if corner is None:
        return Finding(
            "packet_confirmation",
            "nonlinear",
            True,
            None,
            MIN_PACKETS_PER_FLOW,
            "packets/flow",
            f"no envelope corner has {MIN_PACKETS_PER_FLOW:g} or more packets of C*d0 per flow: "
            f"packet runs would only measure overload (window floor of one packet), not run.",
        )
    sc = corner_scenario(corner.network)
    code, convergence = run_verdict(run_scenario(sc, alpha, beta))
    net = corner.network
    where = (
        f"C = {net['C'] / 1e6:.4g} Mb/s, d0 = {net['d0'] * 1000:.4g} ms, N = {net['N']:g} "
        f"({packets_per_flow(net):.3g} packets of C*d0 per flow)"
    )
    capped = (
        f", simulated at C = {sc.capacity_bps / 1e6:.4g} Mb/s (the loop does not depend on C)"
        if sc.capacity_bps != net["C"]
        else ""
    )
    settled = code == CONVERGED and convergence <= SEGMENT_RTT
    measured = VERDICTS[code] + (
        f", slowest segment settles in {convergence:.3g} RTTs"
        + ("" if settled else " (extrapolated past the run: not confirmed)")
        if code == CONVERGED
        else ""
    )
    agree = settled == (corner.verdict == "converged")
    return Finding(
        "packet_confirmation",
        "nonlinear",
        settled,
        convergence if code == CONVERGED else math.inf,
        SEGMENT_RTT,
        "RTT",
        f"reference implementation on the fluid model's worst corner with >= {MIN_PACKETS_PER_FLOW:g} packets "
        f"per flow, {where}{capped}: {int(net['N'])} flows from half their fair share, {int(net['N'])} more after "
        f"{SEGMENT_RTT:g} RTTs, each segment judged like the phase plane: {measured}. Fluid verdict there: "
        f"{corner.verdict}; the packet run {'agrees' if agree else 'DISAGREES'}.",
    )


def packet_flash_crowd_finding(
    results: list[NetworkResult], alpha: float, beta: float, buffer_bdp: float, limit_rtt: float
) -> Finding:
    """The flash crowd packet by packet on the fluid model's slowest eligible corner, with the same buffer."""
    eligible = [r for r in results if packets_per_flow(r.network) / CROWD_FACTOR >= MIN_PACKETS_PER_FLOW]
    if not eligible:
        return Finding(
            "packet_flash_crowd",
            "nonlinear",
            True,
            None,
            limit_rtt,
            "RTT",
            f"no envelope network keeps {MIN_PACKETS_PER_FLOW:g} packets of C*d0 per flow after a "
            f"{CROWD_FACTOR}x crowd: a packet run would only measure overload; not run.",
        )

    def slowness(r: NetworkResult) -> float:
        crowd: Any = r.flash_crowd  # set on every result this finding is given (None only without the flash crowd step)
        return crowd.convergence_rtt if crowd.verdict == "converged" else math.inf

    corner = max(eligible, key=slowness)
    net = corner.network
    n, d0 = int(round(net["N"])), net["d0"]
    floor_bps = SIM_PACKETS_PER_FLOW * CROWD_FACTOR * n * PACKET_BYTES * 8 / d0
    capacity = max(min(net["C"], MAX_CAPACITY_BPS), floor_bps)
    result = flash_crowd_cosim(
        flash_crowd(capacity, d0, n, buffer_bdp=buffer_bdp, eta=net["eta"]), alpha, beta, model="rcp-router"
    )  # the fluid model with the packet router's timing
    f, p = result.fluid, result.packet
    passed = math.isfinite(p.recovery_rtt) and p.recovery_rtt <= limit_rtt and p.peak_queue_bdp <= buffer_bdp
    where = f"C = {net['C'] / 1e6:.4g} Mb/s, d0 = {d0 * 1000:.4g} ms, N = {n} -> {CROWD_FACTOR * n}" + (
        f", simulated at C = {capacity / 1e6:.4g} Mb/s" if capacity != net["C"] else ""
    )

    def rec(r: Any) -> str:
        return f"{r.recovery_rtt:.3g} RTTs" if math.isfinite(r.recovery_rtt) else f"not recovered ({r.reason})"

    text = (
        f"reference implementation, flash crowd on the fluid model's slowest eligible corner ({where}), buffer "
        f"{buffer_bdp:g} C*d0 in both runs: packet/fluid peak queue {p.peak_queue_bdp:.3g}/{f.peak_queue_bdp:.3g} "
        f"C*d0, dropped {p.dropped_bdp:.3g}/{f.dropped_bdp:.3g} C*d0, recovery {rec(p)} / {rec(f)} "
        f"(threshold {limit_rtt:g} RTTs). " + " ".join(result.differences())
    )
    details = {
        "fluid": f.to_dict(),
        "packet": p.to_dict(),
        "simulated_C_bps": capacity,
        "network": dict(net),
        "buffer_bdp": buffer_bdp,
    }
    return Finding(
        "packet_flash_crowd",
        "nonlinear",
        passed,
        p.recovery_rtt if math.isfinite(p.recovery_rtt) else math.inf,
        limit_rtt,
        "RTT",
        text,
        details,
    )
