"""Network runs' cost estimates follow their work (issue 26 item 2): capacity, round trips, flows, not t_end alone.

The estimates are priced by constants that benchmarks/bench_network.py --cost fits and checks (estimate over
measured CPU and memory on runs it did not fit); here, the work counts against closed forms and the refusals,
which need no run.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from conftest import run_cli

import rcpstab
from rcpstab.cosim.network_cost import (
    SECONDS_PER_INTERVAL,
    SECONDS_PER_PACKET_HOP,
    PacketRunWork,
    network_run_cost,
    packet_run_cost,
    packet_run_work,
    topology_work,
)
from rcpstab.errors import InputError
from rcpstab.network import FlowGroup, Link, Network, fig57
from rcpstab.packet.simulator.topofile import load_topology, parse_topology

FIG57 = Path(__file__).resolve().parents[1] / "examples" / "topologies" / "fig5.7.toml"


def _fig57_doc(capacity_scale=1.0, delay_s=0.001, t_end=400.0):
    doc = {
        "name": "scaled",
        "t_end_s": t_end,
        "links": [
            {"name": n, "capacity_bps": c * capacity_scale, "delay_s": d, "buffer_bytes": "unbounded"}
            for n, c, d in (("L1", 155e6, delay_s), ("L2", 622e6, 10.0), ("L3", 100e6, delay_s))
        ],
        "flows": [{"name": "short", "count": 49, "path": ["L1", "L3"]}, {"name": "long", "count": 1, "path": ["L1", "L2"]}],
    }
    return doc


def test_packet_hops_scale_with_capacity_not_with_time_alone():
    # x10 capacity: ten times the packets (the short flows' probes go: a packet every 0.59 ms < 4 ms)
    one, ten = (topology_work(parse_topology(_fig57_doc(k)), 20.0) for k in (1.0, 10.0))
    assert one.packet_hops == pytest.approx(2 * 2 * 100e6 * (20 - 0.004) / 12000)  # data + one probe a packet
    assert ten.packet_hops == pytest.approx(2 * 1e9 * (20 - 0.004) / 12000)
    # the old charge was 0.03 CPU-s per simulated second whatever the capacity
    extra = packet_run_cost(ten)[0] - packet_run_cost(one)[0]
    more = (ten.packet_hops - one.packet_hops) * SECONDS_PER_PACKET_HOP + (ten.intervals - one.intervals) * SECONDS_PER_INTERVAL
    assert extra == pytest.approx(more) and extra > 3 * packet_run_cost(one)[0]


def test_intervals_follow_the_round_trips():
    # 1 ms links: L1 and L3 tick at the short flows' round trip, 4 ms and a data packet's and an ACK's
    # serialization on both links; L2 at App. F's 10 ms cap; 10 us links: every 40 us (the 0.2 ms of
    # serialization would make 0.24 ms, which the RCP header's whole ms cannot carry), 100 times as many
    slow, fast = (topology_work(parse_topology(_fig57_doc(1.0, d)), 10.0) for d in (1e-3, 1e-5))
    short_rtt = 0.004 + (1500 + 52) * 8 * (1 / 155e6 + 1 / 100e6)
    assert slow.intervals == pytest.approx(2 * 10 / short_rtt + 10 / 0.01, rel=1e-3)
    assert fast.intervals == pytest.approx(2 * 10 / 4e-5 + 10 / 0.01, rel=1e-3)


def test_groups_share_links_as_they_start_and_stop():
    # two groups on one 12 Mb/s link: alone from 0.2 s to 1 s, shared from 1 s (both at 6 Mb/s), the first
    # stops at 3 s; a packet every ms (alone) or 2 ms (shared), far below their 0.2 s round trip: no probes
    net = Network((Link("A", 12e6, 0.1),), (FlowGroup("a", 1, ("A",), 0.2), FlowGroup("b", 1, ("A",), 0.2)))
    work = packet_run_work(net, 5.0, windows=[(0.0, 3.0), (0.8, math.inf)])
    assert work.packet_hops == pytest.approx(12e6 * (5.0 - 0.2) / 12000)  # the link full from 0.2 s on
    assert work.in_flight == pytest.approx(12e6 * 0.2 / 12000)
    assert work.flow_samples == 2 * 5


def test_replications_charge_every_seed(monkeypatch):
    cpu, memory = network_run_cost(load_topology(FIG57), 400.0, fluid=False)
    monkeypatch.setenv("RCPSTAB_MAX_CPU_HOURS", f"{2.5 * cpu / 3600:.6g}")  # two runs fit, three do not
    with pytest.raises(InputError, match=r"--seeds 3 .*CPU-hours"):
        rcpstab.cosim(0.4, 0.2, str(FIG57), seeds=3)


def test_faster_links_are_refused_before_any_run(capsys, tmp_path):
    path = tmp_path / "fast.json"
    path.write_text(json.dumps(_fig57_doc(1e4)))  # 1.55 Tb/s: ~1e11 packet hops in 400 s
    code, out, err = run_cli(capsys, "cosim", "--alpha", "0.4", "--beta", "0.2", "--scenario", str(path))
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1, err
    assert f"--scenario {path} --t-end 400" in err and "CPU-hours" in err
    with pytest.raises(InputError, match="CPU-hours"):
        rcpstab.cosim(0.4, 0.2, str(path))
    # the x1 file is far below the limit (about four CPU-seconds)
    assert network_run_cost(load_topology(FIG57), 400.0)[0] < 0.01 * 3600


def test_long_fluid_network_run_is_refused_for_its_memory(capsys):
    # 1e6 s recorded every 50 ms: 2e7 samples of four series on three links, ~2 GB and its copies
    code, _, err = run_cli(capsys, "network", "--alpha", "0.4", "--beta", "0.2", "--t-end", "1e6")
    assert code == 2 and len(err.strip().splitlines()) == 1 and "--t-end 1e+06" in err and "GB of memory" in err, err
    with pytest.raises(InputError, match="GB of memory"):
        rcpstab.network(0.4, 0.2, t_end=1e6)


def test_the_cost_is_the_work_priced():
    work = PacketRunWork(packet_hops=2e6, intervals=0.0, in_flight=0.0, flow_samples=0.0)
    assert packet_run_cost(work) == (2e6 * SECONDS_PER_PACKET_HOP, 0.0)
    # the preset and its file are the same run
    assert network_run_cost(fig57(), 60.0) == pytest.approx(network_run_cost(load_topology(FIG57), 60.0))


def test_delays_the_fluid_cannot_step_are_refused_before_the_packet_run(tmp_path, monkeypatch):
    import importlib

    path = tmp_path / "tiny.json"
    path.write_text(json.dumps(_fig57_doc(1.0, 1e-5, t_end=1.0)))
    module = importlib.import_module("rcpstab.cosim.network")
    monkeypatch.setattr(module, "run_topology", lambda *a, **k: pytest.fail("the packet run ran"))
    with pytest.raises(InputError, match="whole number"):
        rcpstab.cosim(0.4, 0.2, str(path))


class _PastTheCheck(Exception):
    pass


def test_fluid_flow_rings_are_refused_past_the_memory_limit(monkeypatch):
    # window="in_flight" keeps each flow's sent bits over the last (d + 1 s) / (d / 200) steps: at d = 1 ms,
    # 200,202 steps x 20,000 flows x 8 bytes = 32 GB, refused before the ring is allocated
    import numpy as np

    from rcpstab.fct.fluid_flows import fluid_flow_run, fluid_flow_run_bytes

    n = 20_000
    run = dict(capacity_bps=1e9, rtt_s=0.001, arrival_s=np.linspace(0.0, 1.0, n), size_bits=np.full(n, 8e4))
    window = dict(packet_bits=8000.0, window_mss_bits=8000.0, window="in_flight")
    with pytest.raises(InputError, match=r"20000 flows, RTPD 0.001 s.*in_flight.*GB of memory"):
        fluid_flow_run(0.4, 0.2, **run, **window)
    ring, steps = 200_202, math.ceil((1.0 + 100 * 0.001 + 8e4 / 1e7) / 5e-6) + 1
    assert fluid_flow_run_bytes(steps, n, ring, True) == pytest.approx(8 * n * ring, rel=0.01)
    # the limit is every run's: raised, the same run passes the check (stopped where it would allocate)
    monkeypatch.setenv("RCPSTAB_MAX_MEMORY_GB", "40")
    monkeypatch.setattr(np, "empty", lambda *a, **k: (_ for _ in ()).throw(_PastTheCheck()))
    with pytest.raises(_PastTheCheck):
        fluid_flow_run(0.4, 0.2, **run, **window)
