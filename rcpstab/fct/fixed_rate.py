"""`rcpstab fct --fixed-rate`: the U curve on one workload (thesis App. A; issue 24, item 3).

Every flow is sent at one fixed rate R (the router's rate register held at R); the expected
flow duration against R is measured three ways on the same drawn arrivals
(:func:`~rcpstab.fct.flow_run.draw_workload`): the packet flow simulator (FCT minus 1.5 RTPD,
the propagation of SYN, SYN-ACK and the last packet), the exact packet FCFS queue of
:func:`~rcpstab.fct.ucurve.fixed_rate_fcfs`, and App. A's model where the sizes are a bounded
Pareto. The first two do not measure the same thing: the flow simulator's duration also holds
its SYN's wait in the same queue (``E[Q]/C`` by PASTA, as large as the last packet's at high
rates) and its data start when the SYN has left it. The FCFS queue with the SYNs in it
(:func:`~rcpstab.fct.syn_wait.fcfs_with_syn`) is the flow simulator's duration; it is given
beside them. For reference it adds where processor sharing and RCP sit: PS's mean duration
``E[L] / (C (1 - rho))`` is that of a fixed rate ``C (1 - rho)`` with no queue; RCP's point is
its time-average rate and mean duration on the same arrivals.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from ..errors import InputError
from ..packet.hosts.flow_traffic import ArrivalProcess
from ..packet.routers.rcp.control import rate_register
from .flow_run import CTRL_PACKET_BYTES, DATA_PACKET_BYTES, NS_PER_S, draw_workload, run_flows
from .syn_wait import fcfs_with_syn
from .ucurve import BoundedPareto, app_a_duration, fixed_rate_fcfs
from .ucurve_gap import last_packet_excess_bits

__all__ = ["fixed_rate_study", "parse_bounded_pareto"]


def parse_bounded_pareto(text: str) -> BoundedPareto:
    """``bpareto:mean=M,shape=S,max=X`` (packets) -> :class:`BoundedPareto` with that mean."""
    kind, _, rest = text.partition(":")
    params = {}
    for item in filter(None, rest.split(",")):
        key, _, value = item.partition("=")
        try:
            params[key.strip()] = float(value)
        except ValueError:
            raise InputError(f"--sizes {text!r}: {item!r} is not key=number") from None
    if kind.strip() != "bpareto" or set(params) != {"mean", "shape", "max"}:
        raise InputError(f"--sizes {text!r}: expected bpareto:mean=M,shape=S,max=X")
    mean, shape, top = params["mean"], params["shape"], params["max"]
    if not (0 < mean < top and math.isfinite(top) and 0 < shape < 2 and shape != 1):
        raise InputError(f"--sizes {text!r}: need 0 < mean < max (finite) and shape in (0, 2), not 1")
    return BoundedPareto.with_mean(mean, shape, top)


def fixed_rate_study(
    rates_bps: Sequence[float] | np.ndarray,
    *,
    capacity_bps: float,
    rtt_s: float,
    load: float,
    sizes: Any,
    n_flows: int,
    seed: int = 0,
    alpha: float = 0.1,
    beta: float = 1.0,
    buffer_bdp: float = 1000.0,
    packet_bytes: int = DATA_PACKET_BYTES,
) -> dict[str, Any]:
    """Mean flow duration at each fixed rate by the flow simulator, the FCFS queue and App. A.

    Parameters
    ----------
    rates_bps : sequence of float
        Fixed rates R, bit/s, each in (0, C].
    capacity_bps, rtt_s, load : float
        C (bit/s), RTPD (s), offered load in (0, 1).
    sizes : SizeDistribution or BoundedPareto
        Flow sizes (App. A's model only for a bounded Pareto).
    n_flows, seed : int
    alpha, beta : float
        Gains of the RCP run that gives RCP's point on the curve.
    buffer_bdp : float
        Buffer of the flow simulator in BDPs: large, as App. A's queue is unbounded.

    Returns
    -------
    dict
        ``rows`` (one per rate: ``rate_bps``, ``rate_over_C``, ``flowsim_duration_s``,
        ``fcfs_duration_s``, ``fcfs_syn_duration_s`` and ``fcfs_syn_wait_s`` (the FCFS queue with
        every flow's SYN in it and its data sent once the SYN has left: the flow simulator's
        duration and the SYN's mean wait in it, at the rate the router's register holds: integer
        bytes/ms), ``app_a_duration_s``, ``flowsim_dropped``), ``ps`` and ``rcp``
        (``rate_over_C`` and ``duration_s``), ``mean_size_pkts``, ``offered_load``,
        ``app_a_excess_at_C_s`` (the last packet's queue above the average at R = C, which App. A's
        duration leaves out, s; None unless the sizes are a bounded Pareto).
    """
    rates = [float(r) for r in rates_bps]
    bad = [r for r in rates if not (math.isfinite(r) and 0 < r <= capacity_bps)]
    if bad:
        raise InputError(f"--fixed-rate {bad[0]:g}: each rate must be in (0, C = {capacity_bps:g}] b/s")
    start_s, size, _ = draw_workload(sizes, ArrivalProcess(), n_flows, load, capacity_bps, packet_bytes, seed)
    pbits = packet_bytes * 8.0
    mean_bits = float(size.mean()) * pbits
    rows = []
    for R in rates:
        run = run_flows(
            alpha,
            beta,
            capacity_bps=capacity_bps,
            rtt_s=rtt_s,
            load=load,
            sizes=sizes,
            n_flows=n_flows,
            seed=seed,
            fixed_rate_bps=R,
            buffer_bdp=buffer_bdp,
            packet_bytes=packet_bytes,
        )
        fct = run.records["fct_ns"] / NS_PER_S
        # App. A's lambda gives the same load on the real-valued law the model integrates
        model = (
            float(app_a_duration(R, capacity_bps, load * capacity_bps / (sizes.moment(1) * pbits), sizes, pbits))
            if isinstance(sizes, BoundedPareto)
            else None
        )
        # at the rate the flow simulator's register holds (integer bytes/ms: 7.5 Mb/s is held as 7.504)
        held = rate_register(R / 8000) * 8000.0
        syn = fcfs_with_syn(start_s, size, held, capacity_bps, rtt_s, pbits, CTRL_PACKET_BYTES * 8.0)
        rows.append(
            {
                "rate_bps": R,
                "rate_over_C": R / capacity_bps,
                "flowsim_duration_s": float(fct.mean() - 1.5 * rtt_s) if len(fct) == n_flows else None,
                "fcfs_duration_s": float(fixed_rate_fcfs(start_s, size, R, capacity_bps, pbits).mean()),
                "fcfs_syn_duration_s": float(syn.duration.mean()),
                "fcfs_syn_wait_s": float(syn.syn_wait.mean()),
                "app_a_duration_s": model,
                "flowsim_dropped": int(run.counters["dropped"]),
            }
        )
    offered = float(size.sum() * pbits / (capacity_bps * start_s[-1]))
    rcp = run_flows(
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
    return {
        "rows": rows,
        "ps": {"rate_over_C": 1 - load, "duration_s": mean_bits / (capacity_bps * (1 - load))},
        "rcp": {
            "rate_over_C": float(rcp.mean_R_over_C),
            "alpha": alpha,
            "beta": beta,
            "duration_s": float(np.mean(rcp.records["fct_ns"]) / NS_PER_S - 1.5 * rtt_s),
        },
        "mean_size_pkts": float(size.mean()),
        "offered_load": offered,
        "app_a_excess_at_C_s": (
            last_packet_excess_bits(capacity_bps, capacity_bps, offered, mean_bits, pbits) / capacity_bps
            if isinstance(sizes, BoundedPareto)
            else None
        ),
    }
