"""Packet simulator speed: the C event loop vs its pure-Python twin vs ns-3.

All three simulate the same dumbbell: a 100 Mb/s bottleneck with 50 ms of propagation
delay each way (100 ms RTT) and 10 long-lived flows starting at t = 0. rcpstab runs RCP
(alpha 0.4, beta 0.2) with the App. F control path in Python every Tr; ns-3 has no RCP, so
its flows run ns-3's default TCP with BulkSend applications.

Events are not the same unit in both simulators (ns-3 schedules several events per packet
hop), so the output also gives simulated seconds per wall-clock second, a unit-free figure.

``--flows-scaling`` instead compares C events per wall second at 10 and 1000 flows (interleaved medians).
``--low-speed`` measures the C backend at 10 Mb/s, where few packets pass per control interval: events per
wall second and the share of the wall time spent in C (``run_until``, and ``rcp_intervals``, RCP's control
path run in C with the event loop), the rest being Python per interval or per window and the run's set-up
(issue 26 item 6: the control path out of the per-event cost). Run it from two checkouts (PYTHONPATH) for
before/after.

Usage: python benchmarks/bench_packet.py [--json] [--t-end SECONDS] [--ns3-t-end SECONDS] [--no-ns3] [--flows-scaling] [--low-speed]
"""
from __future__ import annotations

import argparse
import dataclasses
import json
import math
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
    return {"t_end_s": t_end, **{f"events_per_s_{n}_flows": round(v) for n, v in median.items()},
            "ratio_first_to_last": round(median[flows[0]] / median[flows[-1]], 2)}


def low_speed(t_end: float, capacity_bps: float = 10e6, repeat: int = 3) -> dict:
    """C events per wall second at ``capacity_bps`` and the share of the wall time inside the C event loop
    (medians of ``repeat`` runs): what is not in ``run_until`` is the per-interval Python path."""
    from rcpstab.packet.simulator import run as runner

    scenario = dataclasses.replace(BENCH, capacity_bps=capacity_bps)
    inside = [0.0]

    class Timed:
        """The simulator with its event loop timed (every other call passed through)."""

        def __init__(self, sim):
            self._sim = sim

        def run_until(self, t):
            start = time.perf_counter()
            try:
                return self._sim.run_until(t)
            finally:
                inside[0] += time.perf_counter() - start

        def rcp_intervals(self, *args):   # RCP's control path in C with the event loop (when the run uses it)
            start = time.perf_counter()
            try:
                return self._sim.rcp_intervals(*args)
            finally:
                inside[0] += time.perf_counter() - start

        def __getattr__(self, name):
            return getattr(self._sim, name)

    build = runner.build_simulator
    rates, shares = [], []
    runner.build_simulator = lambda *a, **k: Timed(build(*a, **k))
    try:
        for _ in range(repeat):
            inside[0] = 0.0
            run = run_scenario(scenario, **GAINS, backend="c", t_end=t_end)
            rates.append(run.events_per_s)
            shares.append(inside[0] / run.wall_time_s)
    finally:
        runner.build_simulator = build
    events = run.counters["events"]
    return {"capacity_bps": capacity_bps, "t_end_s": t_end, "events": events,
            "events_per_s": round(sorted(rates)[len(rates) // 2]),
            "ns_per_event": round(1e9 / sorted(rates)[len(rates) // 2], 1),
            "c_event_loop_share": round(sorted(shares)[len(shares) // 2], 3)}


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
    proc = subprocess.run(
        [sys.executable, __file__, "--ns3-worker", "--ns3-t-end", str(t_end)], capture_output=True, text=True
    )
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
    args = parser.parse_args(argv)
    if args.flows_scaling:
        print(json.dumps(flows_scaling(min(args.t_end, 5.0))))
        return 0
    if args.low_speed:
        print(json.dumps(low_speed(args.t_end)))
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
