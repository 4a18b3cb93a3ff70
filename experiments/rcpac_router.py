"""Packet RCP-AC map vs the fluid models rcpac and rcpac-router (router-timed), fig5.3 set-up (run by hand).

``python experiments/rcpac_router.py [--workers 2] [--grid small|offset] [--capacity BPS]``

Runs the fig5.3 scenario with the RCP-AC router and XCP window senders at every grid point, judges
each run (:func:`rcpstab.packet.lens.region.trace_verdict`, the shared judgement with the
trace's measured noise floor) and each fluid run of the same scenario and initial conditions
(``rcpac``: eqs. 1-2 and derived eq. 4; ``rcpac-router``: the same with the packet router's timing)
with the same function, and prints the verdict counts, the agreements (stable vs not), each
disagreement, then one JSON line.

A third fluid column is an experiment, not a registered model: ``rcpac-router`` whose senders are
ack-clocked windows, as the packet run's XCP window senders are: the state is the aggregate window
W (bits), changed by the same feedback (dW/dt = the rate model's dy/dt times the router's RTT
average), and the arrival rate is y = W / (d0 + q/C), so a growing queue slows the senders at
once. ``rcpac`` (derived eq. 4) and ``rcpac-router`` treat y itself as the state, which no window
sender does.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import time

import numpy as np
import sympy as sp

from rcpstab.models import get_model
from rcpstab.models import rcpac_router as acr
from rcpstab.models.spec import Clamp, ModelSpec, t
from rcpstab.models.symbols import C, N, buffer, d0, dropped, eta, gamma0
from rcpstab.packet.lens.region import fluid_verdicts, packet_region
from rcpstab.packet.simulator.scenarios import get_scenario
from rcpstab.phaseplane.verdicts import CONVERGED, VERDICTS

GRIDS = {
    "small": (np.round(np.arange(0.2, 2.01, 0.3), 10), np.round(np.arange(0.2, 1.01, 0.2), 10)),
    "offset": (np.round(np.arange(0.35, 1.86, 0.3), 10), np.round(np.arange(0.3, 0.91, 0.2), 10)),
}


def window_variant() -> ModelSpec:
    """``rcpac-router`` with ack-clocked window senders: y(t') -> W(t') / (d0 + q(t')/C) everywhere."""
    base = get_model("rcpac-router")
    W = sp.Function("W")

    def clocked(expr):
        return expr.xreplace(
            {
                app: W(app.args[0]) / (d0 + acr.q(app.args[0]) / C)
                for app in expr.atoms(sp.core.function.AppliedUndef)
                if app.func == acr.y
            }
        )

    keep = [x for x in base.states if x not in (acr.y, *base.overflow_states)]
    rhs = [clocked(f) for x, f in zip(base.states, base.rhs) if x in keep]
    rhs.append(clocked(base.rhs[base.states.index(acr.y)]) * acr.D(t - d0))
    return ModelSpec(
        name="rcpac-router-window",
        title="rcpac-router with ack-clocked window senders (experiment)",
        states=(*keep, W),
        rhs=tuple(rhs),
        parameters=base.parameters,
        equilibrium={**{x: v for x, v in base.equilibrium.items() if x in keep}, W: eta * C * d0},
        loop_parameters=base.loop_parameters,
        time_scale=d0,
        gamma=base.gamma,
        queue=base.queue,
        initial_state={**{x: v for x, v in base.initial_state.items() if x in keep}, W: N * gamma0 * C * d0},
        clamps=(Clamp(acr.q, upper=buffer, overflow=dropped), Clamp(W)),
        saturations=base.saturations,
        sampled=base.sampled,
        linearize_at=base.linearize_at,
        counters=base.counters,
        domains=base.domains,
        queue_scale=base.queue_scale,
        capacity=base.capacity,
        flows=base.flows,
        configuration=base.configuration,
        aliases=base.aliases,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--grid", choices=GRIDS, default="small")
    parser.add_argument("--capacity", type=float, default=None, help="link rate, bit/s (default: fig5.3's 10 Mb/s)")
    args = parser.parse_args()
    alphas, betas = GRIDS[args.grid]
    scenario = get_scenario("fig5.3")
    if args.capacity:
        scenario = dataclasses.replace(scenario, name=f"fig5.3@{args.capacity:g}", capacity_bps=args.capacity)
    start = time.perf_counter()
    packet = packet_region(get_model("rcpac"), alphas, betas, scenario=scenario, workers=args.workers)
    wall = time.perf_counter() - start
    aa, bb = packet.table["alpha"], packet.table["beta"]
    codes = {"packet": np.array([VERDICTS.index(v) for v in packet.table["verdict"]])}
    for name in ("rcpac", "rcpac-router"):
        codes[name] = fluid_verdicts(scenario, aa, bb, name)[0]
    codes["window"] = fluid_verdicts(scenario, aa, bb, window_variant())[0]
    stable = {name: c == CONVERGED for name, c in codes.items()}
    report = {
        "scenario": scenario.name,
        "grid": args.grid,
        "points": int(aa.size),
        "packet_wall_s": wall,
        "verdict_counts": {name: {v: int((c == i).sum()) for i, v in enumerate(VERDICTS)} for name, c in codes.items()},
    }
    print(f"{scenario.name} {args.grid} grid {alphas.size} x {betas.size}: packet RCP-AC map {wall:.1f} s")
    for name in ("rcpac", "rcpac-router", "window"):
        same = stable["packet"] == stable[name]
        report[f"agreement_{name}"] = float(same.mean())
        print(f"agreement with {name}: {100 * same.mean():.1f}%  verdicts {report['verdict_counts'][name]}")
    print(f"packet verdicts {report['verdict_counts']['packet']}")
    rows = []
    for i in range(aa.size):
        if len({stable[name][i] for name in stable}) > 1:
            row = {"alpha": float(aa[i]), "beta": float(bb[i]), **{name: VERDICTS[c[i]] for name, c in codes.items()}}
            rows.append(row)
            print("  ", row)
    report["disagreements"] = rows
    print(json.dumps(report))


if __name__ == "__main__":
    main()
