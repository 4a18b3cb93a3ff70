"""Packet-level map vs the fluid model with the router's timing (rcp-router), fig5.3 set-up (run by hand).

``python experiments/packet_region.py [--workers 2] [--grid thesis|offset|calibration] [--capacity BPS] [--explain]``

Runs the fig5.3 scenario packet by packet on a grid (``thesis``: alpha 0.1..2.0 x beta 0.1..1.0
by 0.1; ``offset``: alpha 0.15..1.95 x beta 0.15..0.95 by 0.1; ``calibration``: alpha 0.12..1.92 x
beta 0.12..0.92 by 0.2, where rules are checked before a report; no two share a point), judges each
run and the rcp-router fluid run of the same scenario with the same function
(:func:`rcpstab.packet.lens.region.trace_verdict`, the shared judgement with a measured noise
floor; no threshold of it was fitted to any map), and prints the wall time of the packet map, the
agreement with rcp-router (stable or not, and verdict for verdict) and with the phase-plane map of
``rcp`` (for reference), the
beta = 0.6 rows (thesis Fig. 5.3), then one JSON line. ``--explain`` reruns every disagreement
with ten times the link rate (ten times as many packets per control interval, towards the
fluid limit) and as one 600 s segment of 10 flows (ten times the scenario's N = 10 segment: a
marginal point's slow growth or decay shows), and reports the verdicts there.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import math
import time

import numpy as np

from rcpstab.models import get_model
from rcpstab.packet.lens.region import (
    compare_maps,
    fig53_claim,
    fluid_verdicts,
    packet_region,
    phaseplane_counterpart,
    run_verdict,
)
from rcpstab.packet.simulator.run import run_scenario
from rcpstab.packet.simulator.scenarios import get_scenario
from rcpstab.phaseplane.verdicts import VERDICTS

GRIDS = {
    "thesis": (np.round(np.arange(0.1, 2.01, 0.1), 10), np.round(np.arange(0.1, 1.01, 0.1), 10)),
    "offset": (np.round(np.arange(0.15, 1.96, 0.1), 10), np.round(np.arange(0.15, 0.96, 0.1), 10)),
    # where the judgement's rules are checked before any report (no point in common with the two above)
    "calibration": (np.round(np.arange(0.12, 1.93, 0.2), 10), np.round(np.arange(0.12, 0.93, 0.2), 10)),
}


LONG_RUN_S = 600.0  # ten times the fig5.3 N = 10 segment


def long_run(scenario, alpha: float, beta: float) -> dict:
    """Packet and rcp-router verdicts of one 600 s segment of 10 flows: does a marginal point settle or cycle?"""
    long = dataclasses.replace(scenario, name=scenario.name + "-long", long_flows=((0.0, math.inf),) * 10, t_end_s=LONG_RUN_S)
    fluid = VERDICTS[fluid_verdicts(long, [alpha], [beta])[0][0]]
    return {"packet_600s": VERDICTS[run_verdict(run_scenario(long, alpha, beta))[0]], "rcp_router_600s": fluid}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--grid", choices=GRIDS, default="thesis")
    parser.add_argument("--capacity", type=float, default=None, help="link rate, bit/s (default: fig5.3's 10 Mb/s)")
    parser.add_argument("--explain", action="store_true", help="rerun each disagreement at 10x the link rate")
    args = parser.parse_args()
    alphas, betas = GRIDS[args.grid]
    scenario = get_scenario("fig5.3")
    if args.capacity:
        scenario = dataclasses.replace(scenario, name=f"fig5.3@{args.capacity:g}", capacity_bps=args.capacity)
    model = get_model("rcp")
    start = time.perf_counter()
    packet = packet_region(model, alphas, betas, scenario=scenario, workers=args.workers)
    packet_wall = time.perf_counter() - start
    start = time.perf_counter()
    phase = phaseplane_counterpart(model, alphas, betas, scenario=scenario, workers=args.workers)
    phase_wall = time.perf_counter() - start
    versus_phase = compare_maps(packet, phase)
    print(f"{scenario.name} {args.grid} grid {alphas.size} x {betas.size}, {args.workers} workers")
    print(
        f"packet map (with the rcp-router fluid runs): {packet_wall:.1f} s, {packet.stable.sum()} stable, "
        f"verdicts {packet.meta['verdict_counts']}"
    )
    print(
        f"agreement with rcp-router: {100 * packet.meta['fluid_agreement']:.1f}%; "
        f"with the phase plane of rcp: {100 * versus_phase['agreement']:.1f}% ({phase_wall:.1f} s)"
    )
    verdict_same = packet.table["verdict"] == packet.table["fluid_verdict"]
    print(f"same verdict as rcp-router (converged / limit_cycle / diverged / undecided): {100 * verdict_same.mean():.1f}%")
    explained = []
    for row in packet.meta["fluid_disagreements"]:
        line = f"  disagreement ({row['alpha']:g}, {row['beta']:g}): packet {row['packet']}, rcp-router {row['fluid']}"
        if args.explain:
            faster = dataclasses.replace(scenario, capacity_bps=10 * scenario.capacity_bps)
            verdict = VERDICTS[run_verdict(run_scenario(faster, row["alpha"], row["beta"]))[0]]
            longer = long_run(scenario, row["alpha"], row["beta"])
            explained.append({**row, "packet_at_10x_capacity": verdict, **longer})
            line += (
                f"; packet at {faster.capacity_bps / 1e6:g} Mb/s: {verdict}; 600 s of 10 flows: packet "
                f"{longer['packet_600s']}, rcp-router {longer['rcp_router_600s']}"
            )
        print(line)
    if np.isclose(betas, 0.6).any():
        for name, claim in {"packet": fig53_claim(packet), "rcp phase plane": fig53_claim(phase)}.items():
            cells = " ".join(f"{r['alpha']:g}:{r['verdict'][:4]}" for r in claim["rows"])
            print(f"beta = 0.6, {name}: {cells}")
        row = np.isclose(packet.table["beta"], 0.6)
        cells = " ".join(f"{a:g}:{v[:4]}" for a, v in zip(packet.table["alpha"][row], packet.table["fluid_verdict"][row]))
        print(f"beta = 0.6, rcp-router: {cells}")
    print(
        json.dumps(
            {
                "scenario": scenario.name,
                "grid": args.grid,
                "workers": args.workers,
                "packet_wall_s": packet_wall,
                "points": int(packet.stable.size),
                "agreement_rcp_router": packet.meta["fluid_agreement"],
                "agreement_rcp_phaseplane": versus_phase["agreement"],
                "verdict_agreement_rcp_router": float(verdict_same.mean()),
                "verdict_counts": packet.meta["verdict_counts"],
                "disagreements": explained or packet.meta["fluid_disagreements"],
            }
        )
    )


if __name__ == "__main__":
    main()
