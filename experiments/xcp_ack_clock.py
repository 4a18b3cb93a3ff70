"""Experiment (not a registered model): XCP's router loop closed by the exact fluid ack clock.

``python experiments/xcp_ack_clock.py [--grid calibration|report] [--capacity BPS]``

The router is ``xcp-router``'s: every interval d0 it reads the input averaged over the interval and
the queue, sets phi = alpha d0 (C - y_d) - beta q and spreads it over the next interval. The hosts
differ. ``xcp-router`` (and eq. 16) make the aggregate rate a state, dy/dt = phi/d0**2 one round trip
later. Window senders instead are clocked by their ACKs: what arrives at the router is what left
it one propagation round trip earlier plus the window change, ``y(t) = out(t - d0) + phi/d0``
(stamped one round trip earlier), with ``out = C`` while the queue is not empty and ``out = y`` when
it is. That is a neutral delay equation (y repeats itself one round trip later), which the
ModelSpec machinery (states with right-hand sides) cannot hold; it is integrated directly
(:func:`rcpstab.packet.lens.ack_clock.xcp_loop`: fixed step d0/100, every grid point at once) from y = 0.8 C, q = 0, and judged by the shared
judgement (:func:`rcpstab.verdicts.judgement.judge_trace`) on the per-interval mean of y, as the router
sees it. The same loop with the rate state is integrated alongside as a check: it reproduces
``xcp-router``'s map. Then the packet XCP map of fig5.3 (at ``--capacity``) is judged as the packet
map judges it, and the stable-vs-not agreement of each with it is printed, with ``xcp``'s.
"""

from __future__ import annotations

import argparse
import dataclasses
import json

import numpy as np

from rcpstab.packet.lens.ack_clock import verdicts
from rcpstab.packet.lens.region import fluid_verdicts, run_verdict
from rcpstab.packet.simulator.run import run_scenario
from rcpstab.packet.simulator.scenarios import get_scenario
from rcpstab.verdicts.judgement import CONVERGED, VERDICTS

GRIDS = {
    "calibration": (np.round(np.arange(0.1, 1.31, 0.2), 10), np.round(np.arange(0.1, 1.01, 0.15), 10)),
    "report": (np.round(np.arange(0.2, 1.41, 0.2), 10), np.round(np.arange(0.175, 0.93, 0.125), 10)),
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--grid", choices=GRIDS, default="report")
    parser.add_argument("--capacity", type=float, default=10e6, help="packet runs' link rate, bit/s")
    args = parser.parse_args()
    alphas, betas = GRIDS[args.grid]
    aa, bb = (m.ravel() for m in np.meshgrid(alphas, betas))
    scenario = dataclasses.replace(get_scenario("fig5.3"), capacity_bps=args.capacity)
    packet = np.array([run_verdict(run_scenario(scenario, a, b, protocol="xcp"))[0] for a, b in zip(aa, bb)])
    report = {"grid": args.grid, "capacity_bps": args.capacity}
    print(f"{args.grid} grid, packet runs at {args.capacity / 1e6:g} Mb/s; packet map (S: converged):")
    for b in betas:
        print(f"  beta {b:5.3f}: " + " ".join("S" if c == CONVERGED else "." for c in packet[bb == b]))
    for name, codes in (
        ("rate state", verdicts(aa, bb, False)),
        ("ack clock", verdicts(aa, bb, True)),
        ("xcp", fluid_verdicts(scenario, aa, bb, "xcp")[0]),
    ):
        same = (packet == CONVERGED) == (codes == CONVERGED)
        report[f"agreement {name}"] = float(same.mean())
        print(
            f"{name}: packet agreement {100 * same.mean():.1f}%; disagreements (alpha, beta, packet, model):",
            [(float(a), float(b), VERDICTS[p], VERDICTS[c]) for a, b, p, c, ok in zip(aa, bb, packet, codes, same) if not ok],
        )
        report[name] = {f"{a:g},{b:g}": VERDICTS[c] for a, b, c in zip(aa, bb, codes)}
        print(f"{name}: { ({v: int((codes == i).sum()) for i, v in enumerate(VERDICTS)}) }")
        for b in betas:
            row = codes[bb == b]
            print(
                f"  beta {b:5.3f}: "
                + " ".join("S" if c == CONVERGED else "." for c in row)
                + f"   (alpha {alphas[0]:g}..{alphas[-1]:g})"
            )
    print(json.dumps(report))


if __name__ == "__main__":
    main()
