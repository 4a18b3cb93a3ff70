"""Packet simulator speed: the C event loop vs its pure-Python twin vs ns-3.

All three simulate the same dumbbell: a 100 Mb/s bottleneck with 50 ms of propagation
delay each way (100 ms RTT) and 10 long-lived flows starting at t = 0. rcpstab runs RCP
(alpha 0.4, beta 0.2) with the App. F control path in Python every Tr; ns-3 has no RCP, so
its flows run ns-3's default TCP with BulkSend applications.

Events are not the same unit in both simulators (ns-3 schedules several events per packet
hop), so the output also gives simulated seconds per wall-clock second, a unit-free figure.

``--flows-scaling`` instead compares C events per wall second at 10 and 1000 flows (interleaved medians).
``--low-speed`` measures the C backend at 10 Mb/s, where few packets pass per control interval: events per
wall second and the share of the wall time spent in C (``run_until``, and ``*_intervals``, the control path
run in C with the event loop), the rest being Python per interval or per window and the run's set-up
(issue 26 item 6: the control path out of the per-event cost); ``--protocol`` picks rcp, xcp or rcpac.
``--control-path`` compares, in one run, the control path in Python at every expiry with the native one,
for RCP, XCP and RCP-AC at 10 Mb/s and 1 Gb/s (three interleaved repeats, medians).

``--network-control-path`` does the same for multi-link runs (a three-link parking lot at 10 Mb/s and 1 Gb/s,
and Fig. 5.7's topology file; RCP, the control path of every port) and for the flow simulator of ``rcpstab fct``
(App. F every Tr, at 10 Mb/s and 2.4 Gb/s): Python at every expiry against C, three interleaved repeats, medians.

``--fct-cost`` measures what one run of the flow simulator (``rcpstab fct``) costs per rate-estimation interval
and per event, per backend: CPU seconds of runs on a calibration set fitted (least squares on relative error,
non-negative) to the refusal estimate's own interval and event counts (``fct.flow_run._work``), then the
estimate with the constants in ``fct.flow_run`` (``SECONDS_PER_INTERVAL``, ``SECONDS_PER_EVENT``) against
measured CPU and wall seconds on a second, disjoint set of runs (ratios estimate / measured).

Usage: python benchmarks/bench_packet.py [--json] [--t-end SECONDS] [--ns3-t-end SECONDS] [--no-ns3] [--flows-scaling]
                                         [--low-speed [--protocol NAME]] [--control-path] [--network-control-path]
                                         [--fct-cost] [--memory]

``--memory`` measures peak memory (``ru_maxrss`` above the interpreter's; ``tracemalloc`` for the NumPy fluid flow
model) of flow-simulator runs and fluid flow runs, ``window="in_flight"`` among them, each in a fresh process,
against the refusal estimates (``fct.flow_run.flow_run_bytes``, ``fct.fluid_flows.fluid_flow_run_bytes``).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import math
import os
import subprocess
import sys
import time

from rcpstab.packet.simulator.run import run_scenario
from rcpstab.packet.simulator.scenarios import FIG5_3

N_FLOWS = 10
CAPACITY_BPS = 100e6
ONE_WAY_DELAY_S = 0.05
GAINS = dict(alpha=0.4, beta=0.2)
C_REPEATS = 3

BENCH = dataclasses.replace(
    FIG5_3,
    name="bench-dumbbell",
    capacity_bps=CAPACITY_BPS,
    rtt_s=2 * ONE_WAY_DELAY_S,
    long_flows=((0.0, math.inf),) * N_FLOWS,
)


def measure_rcpstab(t_end: float) -> dict:
    """Best of C_REPEATS C runs and one Python-twin run of the same scenario."""
    c_runs = [run_scenario(BENCH, **GAINS, backend="c", t_end=t_end) for _ in range(C_REPEATS)]
    c = min(c_runs, key=lambda r: r.wall_time_s)
    py = run_scenario(BENCH, **GAINS, backend="python", t_end=t_end)
    assert c.counters == py.counters, "C and Python twins disagree"
    return {
        "scenario": f"{BENCH.name}: {CAPACITY_BPS / 1e6:g} Mb/s, RTT {BENCH.rtt_s * 1e3:g} ms, {N_FLOWS} flows",
        "t_end_s": t_end,
        "events": c.counters["events"],
        "c_wall_s": c.wall_time_s,
        "py_wall_s": py.wall_time_s,
        "c_events_per_s": c.events_per_s,
        "py_events_per_s": py.events_per_s,
        "ratio": py.wall_time_s / c.wall_time_s,
        "c_sim_s_per_wall_s": t_end / c.wall_time_s,
    }


def flows_scaling(t_end: float, flows=(10, 1000), repeat: int = 3) -> dict:
    """C events per wall second of the same dumbbell with 10 and with 1000 long flows: medians of interleaved
    runs (issue 26: flat in N means the 1000-flow figure within 1.5x of the 10-flow one). The wall time is
    the whole run, the router's Python control path every interval included."""
    rates: dict = {n: [] for n in flows}
    for _ in range(repeat):
        for n in flows:
            scenario = dataclasses.replace(BENCH, long_flows=((0.0, math.inf),) * n)
            rates[n].append(run_scenario(scenario, **GAINS, backend="c", t_end=t_end).events_per_s)
    median = {n: sorted(r)[len(r) // 2] for n, r in rates.items()}
    return {
        "t_end_s": t_end,
        **{f"events_per_s_{n}_flows": round(v) for n, v in median.items()},
        "ratio_first_to_last": round(median[flows[0]] / median[flows[-1]], 2),
    }


class _TimedSimulator:
    """The simulator with the time inside its C calls counted in ``inside[0]``: the event loop (``run_until``)
    and the native control paths run with it (``*_intervals``); every other call passed through."""

    def __init__(self, sim, inside):
        self._sim, self._inside = sim, inside

    def __getattr__(self, name):
        method = getattr(self._sim, name)
        if name != "run_until" and not name.endswith("_intervals"):
            return method

        def timed(*args):
            start = time.perf_counter()
            try:
                return method(*args)
            finally:
                self._inside[0] += time.perf_counter() - start

        return timed


def _timed_run(scenario, t_end: float, protocol: str, native: bool = True) -> tuple[float, float, int]:
    """(events per wall second, share of the wall time inside C, events) of one C-backend run; ``native``
    False keeps the control path in Python at every expiry (as before issue 26 item 6)."""
    from rcpstab.packet.simulator import run as runner

    inside = [0.0]
    build, choose = runner.build_simulator, runner._native_control
    runner.build_simulator = lambda *a, **k: _TimedSimulator(build(*a, **k), inside)
    if not native:
        runner._native_control = lambda *a: None
    try:
        run = run_scenario(scenario, **GAINS, backend="c", t_end=t_end, protocol=protocol)
    finally:
        runner.build_simulator, runner._native_control = build, choose
    return run.events_per_s, inside[0] / run.wall_time_s, run.counters["events"]


def _median(values):
    return sorted(values)[len(values) // 2]


def low_speed(t_end: float, capacity_bps: float = 10e6, repeat: int = 3, protocol: str = "rcp") -> dict:
    """C events per wall second at ``capacity_bps`` and the share of the wall time inside C (the event loop
    and a native control path), medians of ``repeat`` runs: what is not in C is Python per interval or per
    window and the run's set-up."""
    scenario = dataclasses.replace(BENCH, capacity_bps=capacity_bps)
    runs = [_timed_run(scenario, t_end, protocol) for _ in range(repeat)]
    rate = _median([r[0] for r in runs])
    return {
        "protocol": protocol,
        "capacity_bps": capacity_bps,
        "t_end_s": t_end,
        "events": runs[-1][2],
        "events_per_s": round(rate),
        "ns_per_event": round(1e9 / rate, 1),
        "c_share": round(_median([r[1] for r in runs]), 3),
    }


CONTROL_PATH_RUNS = ((10e6, 120.0), (1e9, 2.0))  # (capacity, simulated seconds): ~0.4-0.7M events each


def control_path(protocols=("rcp", "xcp", "rcpac"), runs=CONTROL_PATH_RUNS, repeat: int = 3) -> list[dict]:
    """The control path in Python at every expiry (before) against in C with the event loop (after), on the
    bench dumbbell at a low and a high link speed: events per wall second, ns per event and the share of the
    wall time inside C, medians of ``repeat`` interleaved repeats (before and after side by side, so load
    on a shared machine touches both)."""
    cases = [(p, c, t) for p in protocols for c, t in runs]
    samples: dict = {(case, native): [] for case in cases for native in (False, True)}
    for _ in range(repeat):
        for case in cases:
            scenario = dataclasses.replace(BENCH, capacity_bps=case[1])
            for native in (False, True):
                samples[case, native].append(_timed_run(scenario, case[2], case[0], native))
    rows = []
    for case in cases:
        row = {"protocol": case[0], "capacity_bps": case[1], "t_end_s": case[2], "events": samples[case, True][0][2]}
        for native, label in ((False, "python"), (True, "c")):
            rate = _median([r[0] for r in samples[case, native]])
            row.update(
                {
                    f"{label}_events_per_s": round(rate),
                    f"{label}_ns_per_event": round(1e9 / rate, 1),
                    f"{label}_c_share": round(_median([r[1] for r in samples[case, native]]), 3),
                }
            )
        row["speed_up"] = round(row["c_events_per_s"] / row["python_events_per_s"], 2)
        rows.append(row)
    return rows


def _parking(capacity_bps: float):
    """Three links of ``capacity_bps``, 10 ms each; three flows over all of them and two per link that start and stop."""
    from rcpstab.packet.simulator.topofile import parse_topology

    links = [dict(name=f"L{i}", capacity_bps=capacity_bps, delay_s=0.01, buffer_bytes="bdp") for i in range(1, 4)]
    flows = [dict(name="long", count=3, path=["L1", "L2", "L3"])]
    flows += [dict(name=f"s{i}", count=2, path=[f"L{i}"], start_s=1.0 * i, stop_s=6.0 + i) for i in range(1, 4)]
    return parse_topology(dict(name=f"parking lot {capacity_bps:g} b/s", links=links, flows=flows))


def _network_case(case):
    """(run, the module with the native switch and the simulator factory, the switch's name, the factory's name)
    of a network or fct case."""
    import importlib
    from pathlib import Path

    if case[0] == "fct":
        from rcpstab.packet.hosts.flow_traffic import parse_sizes

        module = importlib.import_module("rcpstab.fct.flow_run")
        sizes = parse_sizes("pareto:mean=25,shape=1.2")
        return (
            lambda: module.run_flows(0.4, 0.2, capacity_bps=case[1], rtt_s=0.1, load=0.8, sizes=sizes, n_flows=case[2], seed=1),
            module,
            "_native",
            "make_flow_simulator",
        )
    module = importlib.import_module("rcpstab.cosim.network_packet_run")
    spec = _parking(case[1]) if case[0] == "parking" else str(Path(__file__).parents[1] / "examples/topologies/fig5.7.toml")
    return (lambda: module.run_topology(spec, 0.4, 0.2, case[2])), module, "_native_network", "build_simulator"


# (kind, capacity b/s, simulated seconds or flows): ~0.2-2M events each
NETWORK_CONTROL_PATH_RUNS = (
    ("parking", 10e6, 30.0),
    ("parking", 1e9, 1.0),
    ("fig5.7", 0.0, 20.0),
    ("fct", 10e6, 4000),
    ("fct", 2.4e9, 20000),
)


def network_control_path(runs=NETWORK_CONTROL_PATH_RUNS, repeat: int = 3) -> list[dict]:
    """Multi-link packet runs and flow-simulator runs with the control path in Python at every expiry (before)
    and in C (after): wall seconds, ns per event, the share of the wall time inside C (the event loop and the
    native control path) and the speed-up, medians of ``repeat`` interleaved repeats."""
    samples: dict = {(case, native): [] for case in runs for native in (False, True)}
    for _ in range(repeat):
        for case in runs:
            go, module, switch, factory = _network_case(case)
            choose, make = getattr(module, switch), getattr(module, factory)
            for native in (False, True):
                inside = [0.0]
                setattr(module, switch, choose if native else (lambda *a: False))
                setattr(module, factory, lambda *a, _make=make, _inside=inside, **k: _TimedSimulator(_make(*a, **k), _inside))
                try:
                    run = go()
                finally:
                    setattr(module, switch, choose)
                    setattr(module, factory, make)
                samples[case, native].append((run.wall_time_s, run.counters["events"], inside[0] / run.wall_time_s))
    rows = []
    for case in runs:
        name = {"parking": "parking lot", "fig5.7": "fig5.7.toml", "fct": "fct"}[case[0]]
        row = {"run": name, "capacity_bps": case[1] or None, "size": case[2], "events": samples[case, True][0][1]}
        for native, label in ((False, "python"), (True, "c")):
            wall = _median([w for w, _, _ in samples[case, native]])
            row[f"{label}_wall_s"] = round(wall, 3)
            row[f"{label}_ns_per_event"] = round(1e9 * wall / row["events"], 1)
            row[f"{label}_c_share"] = round(_median([c for _, _, c in samples[case, native]]), 3)
        row["speed_up"] = round(row["python_wall_s"] / row["c_wall_s"], 2)
        rows.append(row)
    return rows


# (C bit/s, RTPD s, load, sizes, flows): interval-heavy (slow links, low load), event-heavy (fast links, high
# load) and mixed runs; the check set shares no configuration with the calibration set.
FCT_COST_RUNS = {
    "c": {
        "calibrate": [
            (1e6, 0.002, 0.02, "fixed:size=4", 4000),
            (2.4e9, 0.1, 0.9, "pareto:mean=25,shape=1.2", 20000),
            (10e6, 0.1, 0.5, "pareto:mean=25,shape=1.2", 12000),
        ],
        "check": [
            (5e6, 0.005, 0.05, "fixed:size=8", 4000),
            (1e9, 0.05, 0.7, "pareto:mean=50,shape=1.2", 10000),
            (1e8, 0.02, 0.3, "fixed:size=20", 12000),
            (1e5, 0.1, 0.5, "fixed:size=2", 2000),
        ],
    },
    "python": {
        "calibrate": [(10e6, 0.1, 0.5, "pareto:mean=25,shape=1.2", 600), (1e6, 0.01, 0.05, "fixed:size=4", 200)],
        "check": [(2.4e8, 0.05, 0.8, "pareto:mean=25,shape=1.2", 600), (1e6, 0.002, 0.1, "fixed:size=4", 150)],
    },
}


def _fct_run(backend, case):
    """CPU and wall seconds of one ``run_flows`` (after a warm-up run in the same process), and the estimate's counts."""
    from rcpstab.fct.flow_run import DATA_PACKET_BYTES, _work, run_flows
    from rcpstab.packet.hosts.flow_traffic import parse_sizes

    capacity, rtt, load, sizes, flows = case
    sizes = parse_sizes(sizes)
    cpu, wall = time.process_time(), time.perf_counter()
    run_flows(0.1, 1.0, capacity_bps=capacity, rtt_s=rtt, load=load, sizes=sizes, n_flows=flows, backend=backend)
    cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    intervals, events = _work(capacity, rtt, load, flows, DATA_PACKET_BYTES, sizes, 1)
    return cpu, wall, intervals, events


def _round_up(x: float, digits: int = 2) -> float:
    """``x`` rounded up to ``digits`` significant digits (0 stays 0)."""
    if x <= 0:
        return 0.0
    unit = 10.0 ** (math.floor(math.log10(x)) - digits + 1)
    return float(f"{math.ceil(x / unit - 1e-9) * unit:.{digits}g}")  # 1e-9: 1.5e-5 / 1e-6 is 15.000000000000002


_PEAK_WORKER = """
import json, os, resource, sys, time
exec(sys.argv[1])  # imports and a warm-up run: the interpreter's share, not the run's
resident = os.sysconf("SC_PAGE_SIZE") * int(open("/proc/self/statm").read().split()[1])
cpu = time.process_time()
exec(sys.argv[2])
cpu = time.process_time() - cpu
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024 - resident
if sys.argv[3] == "traced":  # again, counting Python's and NumPy's allocations (too small for ru_maxrss to see)
    import tracemalloc
    tracemalloc.start()
    exec(sys.argv[2])
    peak = tracemalloc.get_traced_memory()[1]
print(json.dumps(dict(cpu_s=cpu, peak_bytes=max(peak, 0))))
"""


def peak_run(setup: str, run: str, memory: str = "rss") -> dict:
    """CPU seconds and peak memory (bytes) of the statements ``run`` in a fresh interpreter, after ``setup``
    (imports, a warm-up run): with ``memory="rss"``, resident memory above what ``setup`` left (``ru_maxrss``,
    C allocations included); ``"traced"``, the peak of a second run under :mod:`tracemalloc` (Python and NumPy)."""
    out = subprocess.run([sys.executable, "-c", _PEAK_WORKER, setup, run, memory], capture_output=True, text=True)
    if out.returncode:
        raise RuntimeError(out.stderr[-2000:])
    return json.loads(out.stdout.splitlines()[-1])  # type: ignore[no-any-return]


def fit_cost(calibration) -> tuple[list[float], float, list[float]]:
    """Cost per unit of work from runs ``(measured, (work_1, work_2, ...))``: the non-negative least-squares
    fit of ``measured = sum(c_k work_k)`` on relative error, the factor that lifts it until no run measures
    more than its estimate, and the proposed constants (the fit times that factor, rounded up to two digits)."""
    import numpy as np
    from scipy.optimize import nnls

    a = np.array([[w / measured for w in work] for measured, work in calibration])
    fitted, _ = nnls(a, np.ones(len(calibration)))
    scale = max(measured / float(np.dot(fitted, work)) for measured, work in calibration)
    return [float(x) for x in fitted], scale, [_round_up(x * scale) for x in fitted]


def fct_cost(runs=FCT_COST_RUNS, repeat: int = 3) -> dict:
    """Per backend: the fitted CPU seconds per interval and per event (calibration set) and, on the check set,
    the estimate of ``fct.flow_run.flow_run_cpu_seconds`` over measured CPU and wall seconds (medians of
    ``repeat`` interleaved repeats)."""
    from rcpstab.fct.flow_run import DATA_PACKET_BYTES, SECONDS_PER_EVENT, SECONDS_PER_INTERVAL, flow_run_cpu_seconds
    from rcpstab.packet.hosts.flow_traffic import parse_sizes

    _fct_run("c", (10e6, 0.1, 0.5, "fixed:size=4", 50))  # imports and the compiled extension
    out: dict = {"load_1min": round(os.getloadavg()[0], 2)}
    for backend, sets in runs.items():
        cases = [(kind, case) for kind in ("calibrate", "check") for case in sets[kind]]
        samples: dict = {case: [] for _, case in cases}
        for _ in range(repeat):
            for _, case in cases:
                samples[case].append(_fct_run(backend, case))
        med = {case: [_median([s[k] for s in samples[case]]) for k in range(4)] for _, case in cases}
        (per_interval, per_event), scale, proposed = fit_cost([(c, (i, e)) for c, _, i, e in (med[x] for x in sets["calibrate"])])
        rows = []
        for kind, case in cases:
            cpu, wall, intervals, events = med[case]
            estimate = flow_run_cpu_seconds(
                case[0], case[1], case[2], case[4], DATA_PACKET_BYTES, parse_sizes(case[3]), 1, backend
            )
            rows.append(
                dict(
                    set=kind,
                    run=dict(zip(("C", "rtt", "load", "sizes", "flows"), case)),
                    cpu_s=round(cpu, 4),
                    wall_s=round(wall, 4),
                    est_intervals=round(intervals),
                    est_events=round(events),
                    estimate_s=round(estimate, 4),
                    estimate_over_cpu=round(estimate / cpu, 2),
                    estimate_over_wall=round(estimate / wall, 2),
                )
            )
        out[backend] = dict(
            fitted_s_per_interval=float(f"{per_interval:.3g}"),
            fitted_s_per_event=float(f"{per_event:.3g}"),
            scale=round(scale, 3),
            proposed=dict(s_per_interval=proposed[0], s_per_event=proposed[1]),
            constants=dict(s_per_interval=SECONDS_PER_INTERVAL[backend], s_per_event=SECONDS_PER_EVENT[backend]),
            runs=rows,
        )
    return out


# (C bit/s, RTPD s, load, sizes, flows) of the flow simulator; (C, RTPD, load, flows, window) of the
# fluid flow model (Pareto sizes, mean 25 packets): interval-heavy, flow-heavy and ring-heavy runs.
MEMORY_RUNS = {
    "fct": [
        (1e6, 0.002, 0.02, "fixed:size=4", 4000),
        (5e6, 0.005, 0.05, "fixed:size=8", 4000),
        (1e5, 0.002, 0.05, "fixed:size=2", 800),
        (1e8, 0.02, 0.3, "fixed:size=20", 12000),
    ],
    "fluid_flows": [(1e7, 0.1, 0.5, 2000, True), (1e8, 0.05, 0.8, 3000, True), (1e7, 0.1, 0.5, 2000, False)],
}
_FCT_SETUP = """
from rcpstab.fct.flow_run import draw_workload, run_flows
from rcpstab.fct.fluid_flows import fluid_flow_run
from rcpstab.packet.hosts.flow_traffic import ArrivalProcess, parse_sizes
def fluid(C, d, load, n, window):
    a, size, _ = draw_workload(parse_sizes("pareto:mean=25,shape=1.2"), ArrivalProcess(), n, load, C, 1000, 1)
    return fluid_flow_run(0.4, 0.2, capacity_bps=C, rtt_s=d, arrival_s=a, size_bits=size * 8000.0, packet_bits=8000.0,
                          window_mss_bits=8000.0 if window else 0.0, window="in_flight", rtt="with_queue")
run_flows(0.1, 1.0, capacity_bps=10e6, rtt_s=0.1, load=0.5, sizes=parse_sizes("fixed:size=4"), n_flows=50)
fluid(1e7, 0.1, 0.5, 20, True)
"""


def memory_checks(runs=MEMORY_RUNS) -> list[dict]:
    """Peak memory of flow-simulator runs (``ru_maxrss``) and fluid flow runs (``tracemalloc``), each in a fresh
    process, against the refusal estimates (``fct.flow_run.flow_run_bytes``, ``fct.fluid_flows.fluid_flow_run_bytes``)."""
    import numpy as np

    from rcpstab.fct.flow_run import DATA_PACKET_BYTES, draw_workload, flow_run_bytes
    from rcpstab.fct.fluid_flows import fluid_flow_run_bytes
    from rcpstab.packet.hosts.flow_traffic import ArrivalProcess, parse_sizes

    rows = []
    for c, rtt, load, sizes, flows in runs["fct"]:
        run = f"run_flows(0.1, 1.0, capacity_bps={c!r}, rtt_s={rtt!r}, load={load!r}, sizes=parse_sizes({sizes!r}), n_flows={flows})"
        m = peak_run(_FCT_SETUP, run)
        estimate = flow_run_bytes(c, rtt, load, flows, DATA_PACKET_BYTES, parse_sizes(sizes))
        rows.append(
            dict(
                run="fct",
                C=c,
                rtt=rtt,
                load=load,
                sizes=sizes,
                flows=flows,
                cpu_s=round(m["cpu_s"], 3),
                peak_mb=round(m["peak_bytes"] / 1e6, 1),
                estimate_mb=round(estimate / 1e6, 1),
                estimate_over_measured=round(estimate / m["peak_bytes"], 2),
            )
        )
    for c, d, load, flows, window in runs["fluid_flows"]:
        m = peak_run(_FCT_SETUP, f"fluid({c!r}, {d!r}, {load!r}, {flows}, {window})", "traced")
        a, size, _ = draw_workload(parse_sizes("pareto:mean=25,shape=1.2"), ArrivalProcess(), flows, load, c, 1000, 1)
        dt = d / 200  # as fluid_flow_run sizes its histories and ring
        steps = int(math.ceil((a[-1] + 100 * d + float(np.max(size)) * 8000.0 / (0.01 * c)) / dt)) + 1
        ring = int(math.ceil((d + 1.0) / dt)) + 2 if window else 0
        estimate = fluid_flow_run_bytes(steps, flows, ring, True)
        rows.append(
            dict(
                run="fluid_flow_run",
                C=c,
                rtt=d,
                load=load,
                flows=flows,
                in_flight=window,
                cpu_s=round(m["cpu_s"], 3),
                peak_mb=round(m["peak_bytes"] / 1e6, 1),
                estimate_mb=round(estimate / 1e6, 1),
                estimate_over_measured=round(estimate / m["peak_bytes"], 2),
            )
        )
    return rows


def ns3_worker(t_end: float) -> None:
    """Run the ns-3 dumbbell and print its figures as JSON (called in a subprocess)."""
    from ns import ns

    leaf = ns.PointToPointHelper()
    leaf.SetDeviceAttribute("DataRate", ns.StringValue("1Gbps"))
    leaf.SetChannelAttribute("Delay", ns.StringValue("0ms"))
    bottleneck = ns.PointToPointHelper()
    bottleneck.SetDeviceAttribute("DataRate", ns.StringValue(f"{int(CAPACITY_BPS)}bps"))
    bottleneck.SetChannelAttribute("Delay", ns.StringValue(f"{int(ONE_WAY_DELAY_S * 1000)}ms"))
    dumbbell = ns.PointToPointDumbbellHelper(N_FLOWS, leaf, N_FLOWS, leaf, bottleneck)
    dumbbell.InstallStack(ns.InternetStackHelper())
    mask = ns.Ipv4Mask("255.255.255.0")
    dumbbell.AssignIpv4Addresses(
        ns.Ipv4AddressHelper(ns.Ipv4Address("10.1.1.0"), mask),
        ns.Ipv4AddressHelper(ns.Ipv4Address("10.2.1.0"), mask),
        ns.Ipv4AddressHelper(ns.Ipv4Address("10.3.1.0"), mask),
    )
    ns.Ipv4GlobalRoutingHelper.PopulateRoutingTables()
    port = 5000
    for i in range(N_FLOWS):
        any_address = ns.InetSocketAddress(ns.Ipv4Address.GetAny(), port).ConvertTo()
        ns.PacketSinkHelper("ns3::TcpSocketFactory", any_address).Install(dumbbell.GetRight(i)).Start(ns.Seconds(0))
        target = ns.InetSocketAddress(dumbbell.GetRightIpv4Address(i), port).ConvertTo()
        source = ns.BulkSendHelper("ns3::TcpSocketFactory", target)
        source.SetAttribute("MaxBytes", ns.UintegerValue(0))
        source.Install(dumbbell.GetLeft(i)).Start(ns.Seconds(0))
    ns.Simulator.Stop(ns.Seconds(t_end))
    start = time.perf_counter()
    ns.Simulator.Run()
    wall = time.perf_counter() - start
    events = int(ns.Simulator.GetEventCount())
    ns.Simulator.Destroy()
    print(json.dumps({"events": events, "wall_s": wall, "t_end_s": t_end, "version": _ns3_version()}))


def _ns3_version() -> str:
    from importlib.metadata import version

    return version("ns3")


def measure_ns3(t_end: float) -> dict:
    """ns-3 figures, or a null figure and the reason it is missing."""
    try:
        import importlib.util

        if importlib.util.find_spec("ns") is None:
            return {"ns3_events_per_s": None, "ns3_note": "ns3 is not installed (pip install 'rcpstab[bench]')"}
    except ImportError as exc:
        return {"ns3_events_per_s": None, "ns3_note": f"ns3 is not importable: {exc}"}
    # A subprocess keeps ns-3's cling start-up chatter off this process's stdout.
    proc = subprocess.run([sys.executable, __file__, "--ns3-worker", "--ns3-t-end", str(t_end)], capture_output=True, text=True)
    lines = [line for line in proc.stdout.splitlines() if line.startswith("{")]
    if proc.returncode != 0 or not lines:
        tail = (proc.stderr.strip().splitlines() or ["no output"])[-1]
        return {"ns3_events_per_s": None, "ns3_note": f"ns-3 run failed: {tail}"}
    ns3 = json.loads(lines[-1])
    return {
        "ns3_version": ns3["version"],
        "ns3_t_end_s": ns3["t_end_s"],
        "ns3_events": ns3["events"],
        "ns3_events_per_s": ns3["events"] / ns3["wall_s"],
        "ns3_sim_s_per_wall_s": ns3["t_end_s"] / ns3["wall_s"],
        "ns3_note": "ns-3 default TCP (no RCP) with BulkSend on the same dumbbell",
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true", help="print one JSON line")
    parser.add_argument("--t-end", type=float, default=20.0, help="simulated seconds for rcpstab (default 20)")
    parser.add_argument("--ns3-t-end", type=float, default=5.0, help="simulated seconds for ns-3 (default 5)")
    parser.add_argument("--no-ns3", action="store_true", help="skip the ns-3 comparison")
    parser.add_argument("--ns3-worker", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--flows-scaling", action="store_true", help="only events/s at 10 vs 1000 flows")
    parser.add_argument("--low-speed", action="store_true", help="only events/s at 10 Mb/s and the C loop's share")
    parser.add_argument("--protocol", default="rcp", help="the protocol of --low-speed (rcp, xcp, rcpac)")
    parser.add_argument(
        "--control-path",
        action="store_true",
        help="only the control path in Python vs in C, at 10 Mb/s and 1 Gb/s (one JSON line per case)",
    )
    parser.add_argument(
        "--network-control-path",
        action="store_true",
        help="only multi-link and flow-simulator runs with the control path in Python vs in C (one JSON line per case)",
    )
    parser.add_argument(
        "--fct-cost", action="store_true", help="only the flow simulator's cost per interval and per event, fitted and checked"
    )
    parser.add_argument(
        "--memory", action="store_true", help="only peak memory of flow-simulator and fluid flow runs against their estimates"
    )
    args = parser.parse_args(argv)
    if args.memory:
        for row in memory_checks():
            print(json.dumps(row))
        return 0
    if args.fct_cost:
        print(json.dumps(fct_cost(), indent=1))
        return 0
    if args.network_control_path:
        for row in network_control_path():
            print(json.dumps(row))
        return 0
    if args.control_path:
        for row in control_path():
            print(json.dumps(row))
        return 0
    if args.flows_scaling:
        print(json.dumps(flows_scaling(min(args.t_end, 5.0))))
        return 0
    if args.low_speed:
        print(json.dumps(low_speed(args.t_end, protocol=args.protocol)))
        return 0
    if args.ns3_worker:
        ns3_worker(args.ns3_t_end)
        return 0
    result = measure_rcpstab(args.t_end)
    if args.no_ns3:
        result.update(ns3_events_per_s=None, ns3_note="skipped (--no-ns3)")
    else:
        result.update(measure_ns3(args.ns3_t_end))
    if result["ns3_events_per_s"]:
        result["c_over_ns3_events"] = result["c_events_per_s"] / result["ns3_events_per_s"]
        result["c_over_ns3_sim_speed"] = result["c_sim_s_per_wall_s"] / result["ns3_sim_s_per_wall_s"]
    if args.json:
        print(json.dumps(result))
    else:
        for key, value in result.items():
            print(f"{key:24s} {value:.4g}" if isinstance(value, float) else f"{key:24s} {value}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
