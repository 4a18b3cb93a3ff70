"""Which envelope networks RCP can serve at all: feasibility, told apart from tuning.

Some networks no (alpha, beta) can make converge. The checker classifies each envelope
network before it judges the gains, leaves the infeasible ones out of the gain findings and
of the suggestion search, and reports them in one finding of their own naming the network,
the bound it breaks and what would fix it. The classes, each from App. F or the router's code:

- **Fair share below the rate floor** (App. F lines 9-10): the router never offers less than
  MIN_RATE = MIN_RATE_MTU_FRACTION * MTU / avg_rtt. When the equilibrium rate eta*C/N is
  below it, N senders at the floor alone send N*MIN_RATE > eta*C: the rate law pushes down and
  the floor holds, so neither R nor the queue settles. Judged with the floor at the
  propagation RTT d0 (the largest the floor gets: queueing only lengthens avg_rtt).
- **The same after a load step**: the load doubling (2 N flows) and the flash crowd (10 N)
  of the step findings need eta*C/(2 N) and eta*C/(10 N) above the floor; a network that fails
  only these is left out of those steps alone.
- **Fair share below the header's rate unit**: the RCP header carries rates in whole bytes/ms
  and the data path stamps at least 1 byte/ms = 8 kb/s (0 means "unspecified",
  :func:`~rcpstab.packet.routers.rcp.control.rate_register`): a fair share below it is
  overridden on the wire whatever MIN_RATE says (so lowering MIN_RATE does not help).
- **An RTT at or above MAX_ALLOWABLE_RTT** (App. F lines 19-21; or above the header's 16-bit
  field of ms, 65.534 s): the router drops every RTT sample, so its avg_rtt (the rate law's d,
  its interval and its floor) never learns the network's RTT.
- **An RTT below 1 ms**: the header carries the RTT in whole ms (App. F's time unit) and the
  sender truncates, so the router averages 0 ms samples: avg_rtt falls towards 0 and with it
  the interval, while the rate law's T/avg_rtt and the floor blow up.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from ..packet.wire.rcp_header import RTT_UNKNOWN
from .config import CheckConfig
from .envelope import MTU_BITS
from .finding import Finding
from .nonlinear import FLASH_CROWD, LOAD_DOUBLING

__all__ = [
    "STEPS",
    "WIRE_RATE_FLOOR_BPS",
    "HEADER_RTT_RESOLUTION_S",
    "Infeasibility",
    "classify",
    "feasible",
    "feasibility_finding",
    "is_corner",
]

WIRE_RATE_FLOOR_BPS = 8000.0  # 1 byte/ms: the smallest rate the header's rate field carries
HEADER_RTT_RESOLUTION_S = 1e-3  # the header's RTT field counts whole ms
HEADER_RTT_MAX_MS = RTT_UNKNOWN - 1  # all ones means "unknown"
STEPS = {"steady": 1.0, "doubling": LOAD_DOUBLING, "flash_crowd": FLASH_CROWD}
"""Judgements of a network and the flows each faces: N (App. E's conditions), 2 N, 10 N."""

_EVENT = {"steady": "", "doubling": " after the load doubles", "flash_crowd": " after a 10x flash crowd"}


@dataclass(frozen=True)
class Infeasibility:
    """One bound a network breaks, whatever the gains.

    Attributes
    ----------
    network : dict
        The network's model parameters (:func:`~rcpstab.check.envelope.network`).
    step : str
        The first judgement of :data:`STEPS` it rules out (``steady`` rules out all three).
    bound : str
        Identifier of the bound: ``min_rate``, ``wire_rate``, ``max_allowable_rtt``, ``rtt_resolution``.
    text : str
        The network, the bound with its numbers and what would fix it.
    """

    network: dict[str, float]
    step: str
    bound: str
    text: str

    def to_dict(self) -> dict[str, Any]:
        net = self.network
        return {"C_bps": net["C"], "d0_s": net["d0"], "N": net["N"], "step": self.step, "bound": self.bound, "text": self.text}


def min_rate_bps(config: CheckConfig, d0_s: float) -> float:
    """App. F's MIN_RATE at avg_rtt = d0 (bit/s): MIN_RATE_MTU_FRACTION * MTU / d0."""
    return config.router.min_rate_mtu_fraction * MTU_BITS / d0_s


def _where(net: dict[str, float]) -> str:
    return f"C = {net['C'] / 1e6:.4g} Mb/s, d0 = {net['d0'] * 1000:.4g} ms, N = {net['N']:g}"


def _rate_bound(config: CheckConfig, net: dict[str, float]) -> Infeasibility | None:
    """The first step whose fair share is below the rate floor (MIN_RATE or the header's 1 byte/ms)."""
    eta, c, n, d0 = config.router.eta, net["C"], net["N"], net["d0"]
    floor_min = min_rate_bps(config, d0)
    for step, factor in STEPS.items():
        share = eta * c / (factor * n)
        flows = factor * n
        if share < floor_min:
            frac = config.router.min_rate_mtu_fraction * share / floor_min
            return Infeasibility(
                net,
                step,
                "min_rate",
                (
                    f"{_where(net)}{_EVENT[step]}: the fair share eta*C/{flows:g} = {share / 1e3:.4g} kb/s is below "
                    f"MIN_RATE = {config.router.min_rate_mtu_fraction:g} MTU/d0 = {floor_min / 1e3:.4g} kb/s, so "
                    f"{flows:g} senders at the floor send {flows * floor_min / 1e6:.4g} Mb/s > eta*C: no gains converge. "
                    f"Fix: at most {math.floor(eta * c / (factor * floor_min)):g} flows there, a link of at least "
                    f"{factor * n * floor_min / eta / 1e6:.4g} Mb/s, or MIN_RATE_MTU_FRACTION below {frac:.3g}."
                ),
            )
        if share < WIRE_RATE_FLOOR_BPS:
            return Infeasibility(
                net,
                step,
                "wire_rate",
                (
                    f"{_where(net)}{_EVENT[step]}: the fair share eta*C/{flows:g} = {share / 1e3:.4g} kb/s is below the "
                    f"header's rate unit, 1 byte/ms = 8 kb/s, the least the router stamps: the senders are told more "
                    f"than their share and no gains converge (lowering MIN_RATE does not help). Fix: at most "
                    f"{math.floor(eta * c / (factor * WIRE_RATE_FLOOR_BPS)):g} flows there or a link of at least "
                    f"{factor * n * WIRE_RATE_FLOOR_BPS / eta / 1e6:.4g} Mb/s."
                ),
            )
    return None


def _rtt_bound(config: CheckConfig, net: dict[str, float]) -> Infeasibility | None:
    d_ms = net["d0"] * 1000.0
    limit = min(config.router.max_rtt_ms, HEADER_RTT_MAX_MS)
    if d_ms >= limit:
        what = (
            f"MAX_ALLOWABLE_RTT = {config.router.max_rtt_ms:g} ms"
            if limit == config.router.max_rtt_ms
            else f"the header's largest RTT, {HEADER_RTT_MAX_MS} ms"
        )
        fix = (
            "raise MAX_ALLOWABLE_RTT_MS above it or narrow rtt_ms below it"
            if limit == config.router.max_rtt_ms
            else "narrow rtt_ms below it"
        )
        return Infeasibility(
            net,
            "steady",
            "max_allowable_rtt",
            (
                f"{_where(net)}: the RTT {d_ms:.4g} ms is at or above {what}, so the router drops every RTT sample "
                f"(App. F lines 19-21) and its avg_rtt never learns the network's RTT. Fix: {fix}."
            ),
        )
    if net["d0"] < HEADER_RTT_RESOLUTION_S:
        return Infeasibility(
            net,
            "steady",
            "rtt_resolution",
            (
                f"{_where(net)}: the RTT {d_ms:.4g} ms is below the header's 1 ms unit; the sender truncates it to 0 ms, "
                f"so the router's avg_rtt falls towards 0 and its rate law's T/avg_rtt and MIN_RATE blow up. "
                f"Fix: narrow rtt_ms to 1 ms or more."
            ),
        )
    return None


def classify(config: CheckConfig, net: dict[str, float]) -> Infeasibility | None:
    """The most basic bound ``net`` breaks whatever the gains (RTT bounds first), or None."""
    return _rtt_bound(config, net) or _rate_bound(config, net)


def feasible(config: CheckConfig, nets: list[dict[str, float]], step: str) -> list[bool]:
    """For each network, whether some gains could pass judgement ``step`` there (a key of :data:`STEPS`)."""
    order = list(STEPS)
    out = []
    for net in nets:
        found = classify(config, net)
        out.append(found is None or order.index(found.step) > order.index(step))
    return out


def is_corner(config: CheckConfig, net: dict[str, float]) -> bool:
    """Whether ``net`` sits on a corner of the envelope (else it is a sample inside)."""
    env = config.envelope
    return (
        net["C"] in (env.link_mbps[0] * 1e6, env.link_mbps[1] * 1e6)
        and net["d0"] in (env.rtt_ms[0] / 1000.0, env.rtt_ms[1] / 1000.0)
        and net["N"] in env.flows
    )


def feasibility_finding(config: CheckConfig, nets: list[dict[str, float]]) -> Finding:
    """Every envelope network can be served by some gains; else which cannot, why and what would fix it."""
    found = [(net, classify(config, net)) for net in nets]
    bad = [(net, f) for net, f in found if f is not None]
    if not bad:
        env, eta = config.envelope, config.router.eta
        share = eta * env.link_mbps[0] * 1e6 / (FLASH_CROWD * env.flows[1])
        floor = max(min_rate_bps(config, env.rtt_ms[0] / 1000.0), WIRE_RATE_FLOOR_BPS)
        return Finding(
            "envelope_feasible",
            "config",
            True,
            0.0,
            0.0,
            "networks",
            (
                f"every one of the {len(nets)} envelope networks can converge for suitable gains: even after a 10x flash "
                f"crowd the smallest fair share ({share / 1e3:.4g} kb/s) is at least the largest rate floor "
                f"(max(MIN_RATE, 1 byte/ms) = {floor / 1e3:.4g} kb/s), and every RTT is within [1 ms, "
                f"MAX_ALLOWABLE_RTT = {config.router.max_rtt_ms:g} ms)."
            ),
        )
    corners = [f for net, f in bad if is_corner(config, net)]
    inside = len(bad) - len(corners)
    listed = corners if corners else [f for _, f in bad]
    text = (
        f"{len(bad)} of {len(nets)} envelope networks cannot be served by any (alpha, beta) "
        f"({len(corners)} corners{f', {inside} samples inside' if inside else ''}); they are left out of the gain "
        f"findings and of the suggestion search, which judge the gains on the rest. "
        + " ".join(f.text for f in listed[:4])
        + (f" (and {len(listed) - 4} more, in details)" if len(listed) > 4 else "")
    )
    return Finding(
        "envelope_feasible",
        "config",
        False,
        float(len(bad)),
        0.0,
        "networks",
        text,
        {"infeasible": [f.to_dict() for _, f in bad]},
    )
