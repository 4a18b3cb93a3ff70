"""Packet-level map vs phase-plane map of thesis Fig. 5.3's set-up (run by hand, not a timed test).

``python benchmarks/bench_packet_region.py [--workers 2]``: the fig5.3 scenario packet by
packet on the thesis grid (alpha 0.1..2.0, beta 0.1..1.0 by 0.1) and the phase-plane map of
the same set-up (C, d0, T of the scenario, N in {5, 10}); prints the agreement percentage,
both wall times and the beta = 0.6 row of each, then one JSON line.

Measured (2 workers, shared 2-core machine): packet map 9.6 s, agreement 82.5% (165 of 200;
67.5% before the packet verdicts of :mod:`rcpstab.reference_impl.packet_verdicts`); beta = 0.6
packet row stable for alpha <= 1.0, a limit cycle from 1.1 (phase plane: stable to 1.3).
"""
from __future__ import annotations

import argparse
import json
import time

import numpy as np

from rcpstab.models import get_model
from rcpstab.reference_impl.region import compare_maps, fig53_claim, packet_region, phaseplane_counterpart

ALPHAS = np.round(np.arange(0.1, 2.01, 0.1), 10)
BETAS = np.round(np.arange(0.1, 1.01, 0.1), 10)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    model = get_model("rcp")
    start = time.perf_counter()
    packet = packet_region(model, ALPHAS, BETAS, scenario="fig5.3", workers=args.workers)
    packet_wall = time.perf_counter() - start
    start = time.perf_counter()
    phase = phaseplane_counterpart(model, ALPHAS, BETAS, scenario="fig5.3", workers=args.workers)
    phase_wall = time.perf_counter() - start
    agreement = compare_maps(packet, phase)
    rows = {"packet": fig53_claim(packet), "phaseplane": fig53_claim(phase)}
    print(f"fig5.3 grid {ALPHAS.size} x {BETAS.size}, {args.workers} workers")
    print(f"packet map: {packet_wall:.1f} s, {packet.stable.sum()} stable, verdicts {packet.meta['verdict_counts']}")
    print(f"phase-plane map: {phase_wall:.1f} s, {phase.stable.sum()} stable")
    print(f"agreement: {100 * agreement['agreement']:.1f}% ({agreement['agree']} of {agreement['points']})")
    print(f"stable in the phase plane only: {agreement['stable_phaseplane_only']}")
    print(f"stable in the packet map only: {agreement['stable_packet_only']}")
    for name, claim in rows.items():
        cells = " ".join(f"{r['alpha']:g}:{r['verdict'][:4]}" for r in claim["rows"])
        print(f"beta = 0.6, {name}: {cells}  (thesis claim matched at {claim['matches']} of {claim['points']})")
    print(json.dumps({"packet_wall_s": packet_wall, "phaseplane_wall_s": phase_wall,
                      "agreement": agreement["agreement"], "packet_stable": int(packet.stable.sum()),
                      "phaseplane_stable": int(phase.stable.sum()),
                      "beta_0.6_packet": [r["verdict"] for r in rows["packet"]["rows"]],
                      "beta_0.6_phaseplane": [r["verdict"] for r in rows["phaseplane"]["rows"]]}))


if __name__ == "__main__":
    main()
