"""Multi-link fluid network (thesis Fig. 5.7): the compiled stepping loop against its Python reference.

Both engines run the same batch of (alpha, beta) on Fig. 5.7's network with L2's delay shortened
(so the Python loop finishes quickly), in one process and one run, and the ratio of wall times is
printed with the largest difference between their traces.

    python benchmarks/bench_network.py [--t-end 60] [--json]

``--cost`` instead fits what network runs cost (issue 26 item 2: refuse only what exceeds the limit):
CPU seconds and peak memory (``ru_maxrss`` above the interpreter's, each run in a fresh process) of
packet runs (``run_topology``: the replications' unit) and fluid runs (``simulate_network``) on a
calibration set, against the work each does (``rcpstab.cosim.network_cost``, ``rcpstab.network.fluid``:
packet hops, control intervals, packets in flight, per-flow samples; steps, delayed reads, floats kept),
with ``bench_packet.fit_cost``; then the estimate with the constants in those modules over the measured
figures on a second set of runs that shares no configuration with the first, co-simulations and
``rcpstab network`` runs included (ratios estimate / measured: at least 1 is a safe refusal).

    python benchmarks/bench_network.py --cost
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

from rcpstab.network import fig57, simulate_network

GAINS = ([0.1, 0.5, 1.0, 1.4], [1.0, 0.1, 0.5, 0.8])


def _links(names, capacity_bps, delay_s):
    return [dict(name=n, capacity_bps=capacity_bps, delay_s=delay_s, buffer_bytes="unbounded") for n in names]


def _doc(name, links, flows, t_end, **top):
    return dict(name=name, links=links, flows=flows, t_end_s=t_end, **top)


def _fig57(scale=1.0, l2_delay=10.0, t_end=400.0):
    """Fig. 5.7's file with capacities times ``scale``."""
    links = [
        dict(name=n, capacity_bps=c * scale, delay_s=d, buffer_bytes="unbounded")
        for n, c, d in (("L1", 155e6, 0.001), ("L2", 622e6, l2_delay), ("L3", 100e6, 0.001))
    ]
    flows = [dict(name="short", count=49, path=["L1", "L3"]), dict(name="long", count=1, path=["L1", "L2"])]
    return _doc(f"fig5.7 x{scale:g}", links, flows, t_end)


def _chain(n, capacity_bps, delay_s, long_flows, cross_flows, t_end, stagger_s=0.0):
    """``n`` links in a row: ``long_flows`` over all, ``cross_flows`` on each link (starting ``stagger_s`` apart)."""
    names = [f"L{i}" for i in range(1, n + 1)]
    flows = [dict(name="long", count=long_flows, path=names)]
    flows += [dict(name=f"x{i}", count=cross_flows, path=[m], start_s=stagger_s * i) for i, m in enumerate(names) if cross_flows]
    return _doc(f"chain {n} x {capacity_bps:g} b/s, {delay_s:g} s", _links(names, capacity_bps, delay_s), flows, t_end)


# (what, topology document, simulated s): packet runs fit the packet constants, fluid runs the fluid ones;
# each set varies its work terms apart (packet hops, intervals, packets in flight, flow samples).
NETWORK_COST_RUNS = {
    "calibrate": [
        ("packet", _fig57(1.0, t_end=30.0)),
        (
            "packet",
            _doc("idle ticks", _links(["A", "B"], 1e9, 2e-6), [dict(name="f", count=2, path=["A", "B"], stop_s=0.2)], 10.0),
        ),
        ("packet", _doc("many flows", _links(["A"], 100e6, 0.01), [dict(name="f", count=1000, path=["A"])], 30.0)),
        ("packet", _doc("long pipe", _links(["A"], 200e6, 1.0), [dict(name="f", count=4, path=["A"])], 20.0)),
        ("packet", _fig57(0.5, l2_delay=2.0, t_end=40.0)),
        ("fluid", _fig57(1.0, t_end=200.0)),
        ("fluid", _chain(6, 1e8, 0.002, 5, 3, 60.0)),
    ],
    "check": [
        ("packet", _fig57(10.0, t_end=20.0)),
        ("packet", _chain(3, 1e9, 0.01, 3, 2, 3.0, stagger_s=0.5)),
        ("packet", _chain(4, 50e6, 20e-6, 20, 0, 5.0)),
        ("packet", _fig57(1.0, t_end=120.0)),
        ("fluid", _fig57(1.0, l2_delay=1.0, t_end=400.0)),
        ("cosim", _fig57(1.0, t_end=60.0)),
        ("cosim", _chain(2, 2e9, 0.001, 4, 0, 4.0)),
        ("network", _fig57(1.0, t_end=400.0)),
    ],
}

MEASURABLE_BYTES = 3e6

_SETUP = """
import json
from rcpstab.cosim.network import cosimulate_network
from rcpstab.cosim.network_packet_run import run_topology, spec_network
from rcpstab.network import fig57, simulate_fig57, simulate_network
from rcpstab.packet.simulator.topofile import parse_topology
run_topology(str({example!r}), 0.4, 0.2, 0.5)
simulate_network(fig57(0.05), 0.4, 0.2, 0.5)
spec = parse_topology(json.loads({doc!r}))
"""
_RUN = {
    "packet": "run_topology(spec, 0.4, 0.2, {t_end!r})",
    "fluid": "simulate_network(spec_network(spec), 0.4, 0.2, {t_end!r}, eta=spec.eta)",
    "cosim": "cosimulate_network({path!r}, 0.4, 0.2, t_end={t_end!r})",
    "network": "simulate_fig57(0.4, 0.2, t_end={t_end!r})",
}


def _measure(kind, doc, path):
    from bench_packet import peak_run

    example = Path(__file__).parents[1] / "examples/topologies/fig5.7.toml"
    setup = _SETUP.format(example=str(example), doc=json.dumps(doc))
    return peak_run(
        setup, _RUN[kind].format(t_end=doc["t_end_s"], path=str(path)), "traced" if kind in ("fluid", "network") else "rss"
    )


def _work(kind, doc):
    """(packet work, fluid work) of a run: the terms the constants price."""
    from rcpstab.cosim.network_cost import topology_work
    from rcpstab.cosim.network_packet_run import spec_network
    from rcpstab.network.fluid import fluid_run_work
    from rcpstab.packet.simulator.topofile import parse_topology

    spec = parse_topology(doc)
    return topology_work(spec), fluid_run_work(spec_network(spec), doc["t_end_s"])


def _estimate(kind, doc):
    from rcpstab.cosim.network_cost import network_run_cost, packet_run_cost, topology_work
    from rcpstab.cosim.network_packet_run import spec_network
    from rcpstab.network import fig57
    from rcpstab.network.fluid import fluid_run_cost
    from rcpstab.packet.simulator.topofile import parse_topology

    spec, t_end = parse_topology(doc), doc["t_end_s"]
    if kind == "packet":
        return packet_run_cost(topology_work(spec))
    if kind == "fluid":
        return fluid_run_cost(spec_network(spec), t_end)
    if kind == "network":  # as `rcpstab network` charges it
        return fluid_run_cost(fig57(), t_end)
    return network_run_cost(spec, t_end)


def network_cost(runs=NETWORK_COST_RUNS, repeat: int = 3) -> dict:
    """The fitted constants (calibration set) and, on the check set, estimate over measured CPU and memory
    (medians of ``repeat`` interleaved fresh-process runs)."""
    import os
    import tempfile

    from bench_packet import _median, fit_cost

    cases = [(kind, run) for kind in ("calibrate", "check") for run in runs[kind]]
    samples: dict = {i: [] for i in range(len(cases))}
    with tempfile.TemporaryDirectory() as tmp:
        for i, (_, (_kind, doc)) in enumerate(cases):
            with open(Path(tmp) / f"{i}.json", "w") as fh:
                json.dump(doc, fh)
        for _ in range(repeat):
            for i, (_, (kind, doc)) in enumerate(cases):
                samples[i].append(_measure(kind, doc, Path(tmp) / f"{i}.json"))
    measured = {i: {k: _median([s[k] for s in samples[i]]) for k in ("cpu_s", "peak_bytes")} for i in samples}
    print(
        json.dumps([(cases[i][1][1]["name"], cases[i][1][0], measured[i], _work(*cases[i][1])) for i in samples], default=str),
        file=sys.stderr,
    )
    out: dict = {"load_1min": round(os.getloadavg()[0], 2)}
    cal = [(i, kind, _work(kind, doc)) for i, (set_, (kind, doc)) in enumerate(cases) if set_ == "calibrate"]
    packet = [(measured[i], w) for i, kind, (w, _) in cal if kind == "packet"]
    fluid = [(measured[i], f) for i, kind, (_, f) in cal if kind == "fluid"]
    fits = {
        "packet_cpu": (
            fit_cost([(m["cpu_s"], (w.packet_hops, w.intervals, w.flow_samples)) for m, w in packet]),
            ("s_per_packet_hop", "s_per_interval", "s_per_flow_sample"),
        ),
        # memory below a few MB is the allocator's noise (arenas, pools), not the run's
        "packet_memory": (
            fit_cost(
                [
                    (m["peak_bytes"], (w.intervals, w.in_flight, w.flow_samples))
                    for m, w in packet
                    if m["peak_bytes"] > MEASURABLE_BYTES
                ]
            ),
            ("bytes_per_interval", "bytes_per_packet_in_flight", "bytes_per_flow_sample"),
        ),
        "fluid_cpu": (fit_cost([(m["cpu_s"], (f["steps"], f["reads"])) for m, f in fluid]), ("s_per_step", "s_per_read")),
        "fluid_memory": (
            fit_cost([(m["peak_bytes"], (f["history"], f["records"])) for m, f in fluid]),
            ("bytes_per_history_float", "bytes_per_record_float"),
        ),
    }
    for name, ((fitted, scale, proposed), labels) in fits.items():
        out[name] = dict(
            fitted=dict(zip(labels, (float(f"{x:.3g}") for x in fitted))),
            scale=round(scale, 3),
            proposed=dict(zip(labels, proposed)),
        )
    rows = []
    for i, (set_, (kind, doc)) in enumerate(cases):
        cpu_est, mem_est = _estimate(kind, doc)
        m = measured[i]
        rows.append(
            dict(
                set=set_,
                kind=kind,
                run=doc["name"],
                t_end_s=doc["t_end_s"],
                cpu_s=round(m["cpu_s"], 3),
                estimate_cpu_s=round(cpu_est, 3),
                cpu_estimate_over_measured=round(cpu_est / m["cpu_s"], 2),
                peak_mb=round(m["peak_bytes"] / 1e6, 1),
                estimate_mb=round(mem_est / 1e6, 1),
                memory_estimate_over_measured=round(mem_est / m["peak_bytes"], 2) if m["peak_bytes"] else None,
            )
        )
    out["runs"] = rows
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--t-end", type=float, default=60.0, help="simulated time, s")
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--cost", action="store_true", help="only the cost constants of network runs, fitted and checked")
    args = ap.parse_args()
    if args.cost:
        sys.path.insert(0, str(Path(__file__).parent))  # bench_packet's fit
        print(json.dumps(network_cost(), indent=1))
        return
    net = fig57(l2_delay=0.05)
    simulate_network(net, 0.1, 1.0, 0.01)  # compile (or load) the kernel outside the timing
    runs, seconds = {}, {}
    for engine in ("python", "c"):
        start = time.perf_counter()
        runs[engine] = simulate_network(net, *GAINS, args.t_end, engine=engine)
        seconds[engine] = time.perf_counter() - start
    worst = max(
        float(np.max(np.abs(getattr(runs["python"], f) - getattr(runs["c"], f))) / np.max(np.abs(getattr(runs["python"], f))))
        for f in ("rate", "avg_rtt", "rtt_sample", "queue")
    )
    steps = int(round(args.t_end / 1e-3))
    out = {
        "simulated_s": args.t_end,
        "batch": len(GAINS[0]),
        "python_s": seconds["python"],
        "c_s": seconds["c"],
        "speedup": seconds["python"] / seconds["c"],
        "python_us_per_step": 1e6 * seconds["python"] / steps,
        "c_us_per_step": 1e6 * seconds["c"] / steps,
        "max_relative_difference": worst,
    }
    print(json.dumps(out) if args.json else "\n".join(f"{k}: {v:.4g}" for k, v in out.items()))


if __name__ == "__main__":
    main()
