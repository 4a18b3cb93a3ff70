"""Packet XCP map vs the fluid models xcp and xcp-router, fig5.3 set-up (run by hand).

``python experiments/xcp_region.py [--grid calibration|report] [--capacity BPS] [--packet BYTES]``

Runs the fig5.3 scenario with the XCP router and window senders at every grid point (one run is
a fraction of a second: no workers), judges each run three ways and prints, per point, the
packet verdict with the reason of the shared judgement for every flow-count segment:

- ``old``: as the packet map judged XCP before: one-RTT means taken over 10 samples (RCP's
  10 ms interval), which at XCP's one sample per control interval (the average RTT) are 10-RTT
  means, and the floor from the band and the measured noise only;
- ``rtt``: one-RTT means from the trace's own sampling interval;
- ``window``: that, and the window quantum as a floor (one packet per flow per RTT,
  :func:`rcpstab.packet.lens.verdicts.judge_segment`): what the packet map does now.

and the fluid verdicts of ``xcp`` and ``xcp-router`` on the same scenario and initial state
(:func:`rcpstab.packet.lens.region.fluid_verdicts`), and an experiment column that is not a
registered model: ``xcp-router`` with ack-clocked window senders (y = W / (d0 + q/C), W driven by
the same feedback, dW/dt = d0 dy/dt), as ``experiments/rcpac_router.py`` does for RCP-AC. Then the cycle size of the N = 10
segment against the packets a window holds (the targeted experiment: 10 Mb/s with 1500 and 500
byte packets, 100 Mb/s), and one JSON line.

Grids: ``calibration`` was used to find the causes; ``report`` (offset) was used for nothing.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import time
from collections import Counter

import numpy as np
import sympy as sp

from rcpstab.models import get_model
from rcpstab.models import xcp_router as xr
from rcpstab.models.spec import Clamp, ModelSpec, t
from rcpstab.models.symbols import C, N, buffer, d0, dropped, gamma0
from rcpstab.packet.lens.fluid_twin import fluid_run
from rcpstab.packet.lens.region import fluid_verdicts, trace_verdict
from rcpstab.packet.lens.verdicts import judgement_of_segment
from rcpstab.packet.simulator.run import run_scenario
from rcpstab.packet.simulator.scenarios import get_scenario
from rcpstab.packet.simulator.segments import control_interval_s, flow_segments, rtt_average
from rcpstab.phaseplane.verdicts import CONVERGED, VERDICTS

GRIDS = {
    "calibration": (np.round(np.arange(0.1, 1.31, 0.2), 10), np.round(np.arange(0.1, 1.01, 0.15), 10)),
    "report": (np.round(np.arange(0.2, 1.41, 0.2), 10), np.round(np.arange(0.175, 0.93, 0.125), 10)),
}
SEVERITY = {CONVERGED: 0, 3: 1, 1: 2, 2: 3}  # converged < undecided < limit_cycle < diverged
JUDGES = ("old", "rtt", "window")


def judge_run(run, how: str):
    """Worst verdict over the run's segments, and (n_flows, verdict, reason) per segment."""
    sc = run.scenario
    segs = []
    for seg in flow_segments(sc, float(run.t[-1]) + 1e-9):
        m = (run.t >= seg.start_s) & (run.t < seg.stop_s)
        t, g, qb = run.t[m] - seg.start_s, run.R_over_C[m], run.queue_bytes[m] * 8.0
        per = (
            max(int(round(sc.rtt_s / control_interval_s(sc))), 1)
            if how == "old"
            else max(int(round(sc.rtt_s / float(np.median(np.diff(t))))), 1)
        )
        qeq = float(rtt_average(qb, per)[qb.size // 2 :].mean())
        j = judgement_of_segment(
            t,
            g,
            qb,
            sc.eta / seg.n_flows,
            qeq,
            sc.rtt_s,
            sc.capacity_bps,
            per,
            8.0 * sc.packet_bytes,
            True,
            seg.n_flows if how == "window" else 0,
        )
        segs.append((seg.n_flows, int(j.codes[0]), str(j.reason[0])))
    return max((c for _, c, _ in segs), key=SEVERITY.get), segs


def window_variant() -> ModelSpec:
    """``xcp-router`` with ack-clocked window senders: y(t') -> W(t') / (d0 + q(t')/C) everywhere."""
    base = get_model("xcp-router")
    W = sp.Function("W")

    def clocked(expr):
        return expr.xreplace(
            {a: W(a.args[0]) / (d0 + xr.q(a.args[0]) / C) for a in expr.atoms(sp.core.function.AppliedUndef) if a.func == xr.y}
        )

    keep = [x for x in base.states if x not in (xr.y, *base.overflow_states)]
    rhs = [clocked(f) for x, f in zip(base.states, base.rhs) if x in keep]
    rhs.append(clocked(base.rhs[base.states.index(xr.y)]) * d0)
    return ModelSpec(
        name="xcp-router-window",
        title="xcp-router with ack-clocked window senders (experiment)",
        states=(*keep, W),
        rhs=tuple(rhs),
        parameters=base.parameters,
        equilibrium={**{x: v for x, v in base.equilibrium.items() if x in keep}, W: C * d0},
        loop_parameters=base.loop_parameters,
        time_scale=d0,
        gamma=W(t) / (d0 + xr.q(t) / C) / (N * C),
        queue=xr.q(t),
        initial_state={**{x: v for x, v in base.initial_state.items() if x in keep}, W: N * gamma0 * C * d0},
        clamps=(Clamp(xr.q, upper=buffer, overflow=dropped), Clamp(W)),
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


def window_verdicts(scenario, aa, bb):
    """Verdicts of :func:`window_variant` judged like ``fluid_verdicts`` judges xcp (y/(N(t) C), no noise)."""
    traj = fluid_run(scenario, aa, bb, scenario.t_end_s, window_variant())
    every = max(int(round(control_interval_s(scenario) / traj.dt)), 1)
    ts = traj.t[every::every]
    flows = np.maximum([scenario.n_flows(x) for x in ts], 1)
    q = traj.queue[every::every]
    gamma = (
        traj.states["W"][every::every] / (scenario.rtt_s + q / scenario.capacity_bps) / (flows[:, None] * scenario.capacity_bps)
    )
    return np.array(
        [trace_verdict(scenario, a, b, ts, gamma[:, i], q[:, i], noisy=False)[0] for i, (a, b) in enumerate(zip(aa, bb))]
    )


def cycle_size(scenario, alpha, beta):
    """Half the 1st-99th percentile spread of y/C and the largest queue (C*d0) over 70-100 s (N = 10)."""
    run = run_scenario(scenario, alpha, beta, protocol="xcp")
    m = (run.t > 70.0) & (run.t < 100.0)
    y = run.R_over_C[m] * 10
    return float((np.percentile(y, 99) - np.percentile(y, 1)) / 2), float(
        run.queue_bytes[m].max() * 8 / (scenario.capacity_bps * scenario.rtt_s)
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--grid", choices=GRIDS, default="report")
    parser.add_argument("--capacity", type=float, default=None, help="link rate, bit/s (default 10 Mb/s)")
    parser.add_argument("--packet", type=int, default=None, help="data packet, bytes (default 1500)")
    parser.add_argument("--no-quantum", action="store_true", help="skip the cycle-size experiment")
    args = parser.parse_args()
    alphas, betas = GRIDS[args.grid]
    scenario = get_scenario("fig5.3")
    changes = {k: v for k, v in (("capacity_bps", args.capacity), ("packet_bytes", args.packet)) if v}
    if changes:
        scenario = dataclasses.replace(scenario, name="fig5.3*", **changes)
    aa, bb = (m.ravel() for m in np.meshgrid(alphas, betas))
    start = time.perf_counter()
    codes = {how: [] for how in JUDGES}
    reasons = Counter()
    print(
        f"{scenario.name} ({scenario.capacity_bps / 1e6:g} Mb/s, {scenario.packet_bytes} B) {args.grid} grid "
        f"{alphas.size} x {betas.size}"
    )
    per_point = []
    for a, b in zip(aa, bb):
        run = run_scenario(scenario, a, b, protocol="xcp")
        line = []
        for how in JUDGES:
            code, segs = judge_run(run, how)
            codes[how].append(code)
            for n, c, why in segs:
                if c != CONVERGED:
                    reasons[(how, n, VERDICTS[c], why)] += 1
            line.append(f"{how}={VERDICTS[code]}")
        per_point.append((a, b, line, segs))
    wall = time.perf_counter() - start
    codes = {how: np.array(c) for how, c in codes.items()}
    for name in ("xcp", "xcp-router"):
        codes[name] = fluid_verdicts(scenario, aa, bb, name)[0]
    codes["xcp-router-window"] = window_verdicts(scenario, aa, bb)
    report = {
        "scenario": scenario.name,
        "capacity_bps": scenario.capacity_bps,
        "packet_bytes": scenario.packet_bytes,
        "grid": args.grid,
        "points": int(aa.size),
        "packet_wall_s": wall,
        "verdict_counts": {k: {v: int((c == i).sum()) for i, v in enumerate(VERDICTS)} for k, c in codes.items()},
    }
    for k, c in report["verdict_counts"].items():
        print(f"  {k:10s} {c}")
    print("non-converged segments (judge, N, verdict, reason): count")
    for key, count in sorted(reasons.items()):
        print(f"  {count:3d} {key}")
    for how in JUDGES:
        for name in ("xcp", "xcp-router", "xcp-router-window"):
            same = (codes[how] == CONVERGED) == (codes[name] == CONVERGED)
            report[f"agreement_{how}_{name}"] = float(same.mean())
            print(f"agreement packet[{how}] vs {name}: {100 * same.mean():.1f}%")
    rows = []
    for i, (a, b, _line, segs) in enumerate(per_point):
        stab = {k: bool(c[i] == CONVERGED) for k, c in codes.items()}
        if len({stab["window"], stab["xcp"], stab["xcp-router"]}) > 1:
            row = {
                "alpha": float(a),
                "beta": float(b),
                "packet": VERDICTS[codes["window"][i]],
                "xcp": VERDICTS[codes["xcp"][i]],
                "xcp-router": VERDICTS[codes["xcp-router"][i]],
                "xcp-router-window": VERDICTS[codes["xcp-router-window"][i]],
                "segments": [f"N={n}: {VERDICTS[c]} ({why})" for n, c, why in segs if c != CONVERGED],
            }
            rows.append(row)
            print("  disagreement", row)
    report["disagreements"] = rows
    if not args.no_quantum:
        base = get_scenario("fig5.3")
        sizes = []
        for cap, pkt in ((10e6, 1500), (10e6, 500), (100e6, 1500)):
            sc = dataclasses.replace(base, capacity_bps=cap, packet_bytes=pkt)
            per_flow = cap * sc.rtt_s / (8 * pkt) / 10
            for a, b in ((0.4, 0.226), (0.9, 0.7), (1.3, 0.4)):
                amp, qmax = cycle_size(sc, a, b)
                sizes.append(
                    {
                        "capacity_bps": cap,
                        "packet_bytes": pkt,
                        "alpha": a,
                        "beta": b,
                        "packets_per_window": per_flow,
                        "y_half_spread": amp,
                        "quantum": 1 / per_flow,
                        "queue_max_Cd0": qmax,
                    }
                )
                print(
                    f"N=10 cycle at {cap / 1e6:g} Mb/s, {pkt} B ({per_flow:.1f} packets per window), ({a}, {b}): "
                    f"y/C +-{100 * amp:.2f}% = {amp * per_flow:.2f} quanta, queue max {qmax:.3f} C*d0"
                )
        report["cycle_vs_quantum"] = sizes
    print(json.dumps(report))


if __name__ == "__main__":
    main()
