"""Where RCP follows processor sharing and where it does not (issue 24, item 2).

Two independent methods on the same arrivals (:func:`~rcpstab.fct.flow_run.draw_workload`):
the packet flow simulator (:func:`~rcpstab.fct.flow_run.run_flows`, App. F router, R-TCP
hosts) and the flow-level fluid model (:func:`~rcpstab.fct.fluid_flows.fluid_flow_run`),
with and without the packet-scale queue, each against an exact PS queue fed the same flows.

Two mechanisms separate RCP from PS at high load (notebook 07):

* **rate lag** (in both methods): a finishing flow's share is handed out again only as fast
  as the rate law raises R (``alpha (C - y) / d`` per unit time), and a flow sends at the rate
  stamped one round trip earlier; the link idles while flows wait. It grows with the flow
  size against the bandwidth-delay product and with the load.
* **packet-scale queue** (packets only): paced packets from many flows queue like M/D/1
  below capacity; the rate law's ``beta q / d`` cuts the rate for it, so the controller
  settles at a utilisation :func:`~rcpstab.fct.fluid_flows.rho_star` below C. An offered
  load above it cannot be carried at equilibrium: flows pile up until the rate register's
  floor. Small bandwidth-delay products (in packets) and a large beta / alpha lower it.

In the rate-lag regime the fluid model's FCTs run above the packet simulator's: it leaves out
the R-TCP sender's window and App. F's RTT average, which includes the queueing delay. The
window does not slow senders on average (they send at their stamped rate); after a rate cut
it shrinks below the packets already in flight and holds the sender, so a cut reaches the
router's input at once. The rate law pins the mean queue (``alpha (1 - u) C d / beta``), so the
router settles at a higher rate. ``run_flows(sender_window=False, router_rtt="propagation")``
and ``fluid_flow_run(window_mss_bits=..., window="in_flight", rtt="with_queue")`` switch them
(notebook 07).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..packet.hosts.flow_traffic import ArrivalProcess, SizeDistribution
from .flow_run import NS_PER_S, draw_workload, run_flows
from .fluid_flows import fluid_flow_run, rho_star, time_average_in_progress
from .ps import processor_sharing_sojourn

__all__ = ["REGIME_RATIO", "START_UP_QUEUE_RATIO", "compare_methods", "regime_note"]

REGIME_RATIO = 1.5  # "does not follow PS": a bin's AFCT above 1.5 times PS (fixed a priori, not fitted)
START_UP_QUEUE_RATIO = 2.0  # "not settled": a mean queue above twice the pinned one (fixed a priori, not fitted)


def _summary(
    arrival_s: np.ndarray, size_pkts: np.ndarray, fct_s: np.ndarray, ps_s: np.ndarray, warm: Any, packet_bytes: int
) -> dict[str, Any]:
    t0, t1 = arrival_s[warm], arrival_s[-1]
    big = size_pkts >= np.median(size_pkts)
    return {
        "afct_over_ps": float(np.nanmean(fct_s) / ps_s.mean()),
        "large_half_afct_over_ps": float(np.nanmean(fct_s[big]) / ps_s[big].mean()),
        "small_afct_over_ps": float(np.nanmean(fct_s[size_pkts == size_pkts.min()]) / ps_s[size_pkts == size_pkts.min()].mean()),
        "mean_in_progress": time_average_in_progress(arrival_s, fct_s, t0, t1),
        "unfinished": int(np.isnan(fct_s).sum()),
    }


def compare_methods(
    alpha: float,
    beta: float,
    *,
    capacity_bps: float,
    rtt_s: float,
    load: float,
    sizes: SizeDistribution,
    n_flows: int,
    seed: int = 0,
    packet_bytes: int = 1000,
    fluid_dt_s: float | None = None,
) -> dict[str, Any]:
    """AFCT over same-arrivals PS and mean flows in progress by the packet simulator and the
    fluid model (without and with the packet-scale queue), all on one drawn workload.

    Returns
    -------
    dict
        ``packet``, ``fluid``, ``fluid_packet_queue`` and ``ps``: each with ``afct_over_ps``,
        ``large_half_afct_over_ps`` (flows at or above the median size), ``small_afct_over_ps``
        (the smallest size drawn), ``mean_in_progress`` (time average over the measurement
        window) and ``unfinished``; ``rho_star`` and ``bdp_packets``.
    """
    arrival_s, size, warm = draw_workload(sizes, ArrivalProcess(), n_flows, load, capacity_bps, packet_bytes, seed)
    bits = size * (packet_bytes * 8.0)
    ps = 1.5 * rtt_s + processor_sharing_sojourn(arrival_s, bits, capacity_bps)
    run = run_flows(
        alpha,
        beta,
        capacity_bps=capacity_bps,
        rtt_s=rtt_s,
        load=load,
        sizes=sizes,
        n_flows=n_flows,
        seed=seed,
        packet_bytes=packet_bytes,
    )
    pkt = np.full(n_flows, np.nan)
    pkt[run.records["id"]] = run.records["fct_ns"] / NS_PER_S
    out: dict[str, Any] = {
        "packet": _summary(arrival_s, size, pkt, ps, warm, packet_bytes),
        "ps": _summary(arrival_s, size, ps, ps, warm, packet_bytes),
    }
    for name, pb in (("fluid", 0.0), ("fluid_packet_queue", packet_bytes * 8.0)):
        fl = fluid_flow_run(
            alpha,
            beta,
            capacity_bps=capacity_bps,
            rtt_s=rtt_s,
            arrival_s=arrival_s,
            size_bits=bits,
            packet_bits=pb,
            dt_s=fluid_dt_s,
        )
        out[name] = _summary(arrival_s, size, fl.fct_s, ps, warm, packet_bytes)
    bdp = capacity_bps * rtt_s / (8 * packet_bytes)
    out.update(rho_star=rho_star(alpha, beta, bdp), bdp_packets=bdp, mean_size_over_bdp=float(size.mean() / bdp))
    return out


def regime_note(result: Any) -> str | None:
    """One sentence naming the high-load regime an :class:`~rcpstab.fct.study.FctResult` is in, or None.

    Above :func:`rho_star` the packet-scale queue regime (not stationary); otherwise the
    start-up regime when the window's mean queue is over :data:`START_UP_QUEUE_RATIO` times the
    one the rate law pins a settled router to (plus a packet); otherwise the rate-lag regime
    when some bin with 20 flows or more is over :data:`REGIME_RATIO` times PS.
    """
    s = result.setup
    bdp = s.capacity_bps * s.rtt_s / (8 * s.packet_bytes)
    u_star = rho_star(s.alpha, s.beta, bdp)
    mean_over_bdp = float(result.runs[0].records["size_pkts"].mean() / bdp) if len(result.runs[0].records) else 0.0
    if s.load > u_star:
        return (
            f"regime: offered load {s.load:g} is above u* = {u_star:.3f}, where the rate law's beta q/d "
            f"balances the packet-scale queue of a {bdp:.0f}-packet BDP: flows accumulate (not stationary; "
            f"FCTs grow with the run); a larger C x RTPD or beta/alpha nearer 1 raises u*"
        )
    # The rate law pins a settled router's mean queue to alpha (1 - u) C d / beta (its budget of
    # ln R over a window); a window still in the descent from R = C holds far more (issue 24, B).
    queue = float(np.mean([r.mean_queue_bytes for r in result.runs])) / s.packet_bytes
    pinned = s.alpha * (1 - float(np.mean([r.utilization for r in result.runs]))) * bdp / s.beta
    if queue > START_UP_QUEUE_RATIO * pinned + 1:
        return (
            f"regime: start-up: the router had not settled in the measurement window (mean queue {queue:.1f} "
            f"packets against the {pinned:.1f} its rate law holds once settled, alpha (1 - u) C d / beta): it "
            f"starts at R = C and comes down at the pace of beta q/d, so these FCTs are the descent's; give more flows"
        )
    worst = result.worst_ratio(min_flows=20)
    if worst is not None and worst > REGIME_RATIO:
        return (
            f"regime: rate lag (flows of mean {mean_over_bdp:.2g} BDP at load {s.load:g}): when flows finish the "
            f"others keep the old rate until the rate law raises it (at alpha's pace, one RTPD late), so "
            f"capacity goes unused while flows wait; AFCT up to {worst:.2f}x PS"
        )
    return None
