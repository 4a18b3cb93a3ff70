"""A network's control paths run in C (``Simulator.network_intervals``) against the Python loop of
``cosim/network_packet_run.py``: the same run to the bit, every output field compared as raw bytes, for the
exact bundled controller classes only."""

import importlib
import math

import numpy as np
import pytest

from rcpstab.network import fig57
from rcpstab.packet.protocols import get_protocol
from rcpstab.packet.routers.rcp.control import RcpController
from rcpstab.packet.simulator.topofile import parse_topology

npr = importlib.import_module("rcpstab.cosim.network_packet_run")  # rcpstab.cosim is also a function


def parking(capacity_bps=10e6, delay_s=0.01):
    """A three-link parking lot: three flows over all links from t = 0, two per link starting and stopping
    on a schedule, so every port's flow count changes (3 -> 5 -> 3) at its own times."""
    links = [dict(name=f"L{i}", capacity_bps=capacity_bps, delay_s=delay_s, buffer_bytes="bdp") for i in range(1, 4)]
    flows = [dict(name="long", count=3, path=["L1", "L2", "L3"])]
    flows += [dict(name=f"s{i}", count=2, path=[f"L{i}"], start_s=0.8 * i, stop_s=3.0 + 0.7 * i) for i in range(1, 4)]
    return parse_topology(dict(name="parking", links=links, flows=flows))


def run(spec, *, native, monkeypatch, **kwargs):
    """One run of a topology file (None: the Fig. 5.7 network, ``run_network``), the control paths in C
    (``native``) or in Python at every expiry; returns the run and whether it went natively."""
    went = []
    choose = npr._native_network
    with monkeypatch.context() as m:
        m.setattr(npr, "_native_network", lambda *a: went.append(choose(*a) if native else False) or went[-1])
        result = npr.run_topology(spec, **kwargs) if spec is not None else npr.run_network(fig57(), **kwargs)
    return result, went[0]


def assert_same_run(a, b):
    """Every output field, floats as raw bytes (a -0.0 is not a 0.0, NaNs compared by pattern)."""
    assert a.counters == b.counters
    assert list(a.traces) == list(b.traces)
    for link in a.traces:
        assert list(a.traces[link]) == list(npr.TRACE_FIELDS)
        for key in npr.TRACE_FIELDS:
            x, y = a.traces[link][key], b.traces[link][key]
            assert x.dtype == y.dtype == np.float64 and x.shape == y.shape, (link, key)
            assert np.ascontiguousarray(x).tobytes() == np.ascontiguousarray(y).tobytes(), (link, key)
    for name in ("flow_bytes", "flow_t", "flow_delivered_bytes"):
        x, y = getattr(a, name), getattr(b, name)
        assert x.shape == y.shape and x.tobytes() == y.tobytes(), name
    assert a.flow_names == b.flow_names


@pytest.mark.parametrize("protocol", ["rcp", "xcp", "rcpac"])
@pytest.mark.parametrize("capacity_bps", [10e6, 100e6])
def test_a_parking_lot_with_changing_flows_runs_the_same_in_c(protocol, capacity_bps, monkeypatch):
    kwargs = dict(alpha=0.4, beta=0.226, t_end=6.0, protocol=protocol, flow_sample_s=0.35)
    c, native = run(parking(capacity_bps), native=True, monkeypatch=monkeypatch, **kwargs)
    py, went = run(parking(capacity_bps), native=False, monkeypatch=monkeypatch, **kwargs)
    assert native and not went
    assert_same_run(c, py)
    assert all(c.traces[link]["t"].size > 100 for link in c.traces)  # every port ran its control path
    # the flow count changed under the ports: a short flow's delivered bytes stop growing after its stop
    stopped = c.flow_names.index("s1[0]")
    assert c.flow_delivered_bytes[-1, stopped] == c.flow_delivered_bytes[-3, stopped] > 0


@pytest.mark.parametrize("protocol", ["rcp", "xcp", "rcpac"])
def test_fig57_runs_the_same_in_c(protocol, monkeypatch):
    """Fig. 5.7's network (the preset, equal to examples/topologies/fig5.7.toml): three ports on different
    timers (XCP's L2 on a 20 s one: no expiry in the run)."""
    kwargs = dict(alpha=0.4, beta=0.226, t_end=3.0, protocol=protocol)
    c, native = run(None, native=True, monkeypatch=monkeypatch, **kwargs)
    py, _ = run(None, native=False, monkeypatch=monkeypatch, **kwargs)
    assert native
    assert_same_run(c, py)


def test_the_c_control_paths_give_the_python_twins_run(monkeypatch):
    """The C simulator with the control paths in C against the pure-Python simulator with them in Python."""
    spec = parking(2e6, delay_s=0.005)
    kwargs = dict(alpha=0.4, beta=0.226, t_end=2.5, flow_sample_s=0.5)
    c, native = run(spec, native=True, monkeypatch=monkeypatch, **kwargs)
    py, went = run(spec, native=True, monkeypatch=monkeypatch, backend="python", **kwargs)
    assert native and not went
    assert_same_run(c, py)


def random_spec(rng):
    """2-4 links of random capacity, delay and buffer; groups of flows on random contiguous paths with random
    starts, stops and jitter."""
    n = int(rng.integers(2, 5))
    links = [
        dict(
            name=f"L{i}",
            capacity_bps=float(10 ** rng.uniform(6.3, 7.7)),
            delay_s=float(rng.uniform(0.001, 0.04)),
            buffer_bytes=str(rng.choice(["bdp", "unbounded"])) if rng.random() < 0.7 else int(rng.integers(3000, 60000)),
        )
        for i in range(n)
    ]
    flows = [dict(name="all", count=int(rng.integers(1, 4)), path=[f"L{i}" for i in range(n)])]  # every link crossed
    for g in range(int(rng.integers(1, 5))):
        a = int(rng.integers(0, n))
        b = int(rng.integers(a, n))
        flow = dict(name=f"g{g}", count=int(rng.integers(1, 5)), path=[f"L{i}" for i in range(a, b + 1)])
        flow["start_s"] = round(float(rng.uniform(0, 1.5)), 3)
        if rng.random() < 0.5:
            flow["stop_s"] = round(flow["start_s"] + float(rng.uniform(0.3, 2.0)), 3)
        if rng.random() < 0.3:
            flow["start_jitter_s"] = 0.05
        flows.append(flow)
    return parse_topology(dict(name="random", packet_bytes=int(rng.choice([576, 1000, 1500])), links=links, flows=flows))


@pytest.mark.parametrize("case", range(9))
def test_random_networks_run_the_same_in_c_and_in_python(case, monkeypatch):
    rng = np.random.default_rng(7100 + case)
    spec = random_spec(rng)
    kwargs = dict(
        alpha=float(rng.uniform(0.05, 1.2)),
        beta=float(rng.uniform(0.0, 1.0)),
        t_end=float(rng.uniform(1.5, 3.5)),
        protocol=["rcp", "xcp", "rcpac"][case % 3],
        flow_sample_s=float(rng.choice([0.1, 0.25, 1.0])),
        seed=case,
    )
    c, native = run(spec, native=True, monkeypatch=monkeypatch, **kwargs)
    py, went = run(spec, native=False, monkeypatch=monkeypatch, **kwargs)
    assert native and not went
    assert_same_run(c, py)


class HalvedRtt(RcpController):
    """A user's App. F variant: the header RTTs count half."""

    calls = 0

    def update(self, input_bytes, rtt_sum, rtt_count, queue_bytes, tr):
        HalvedRtt.calls += 1
        return super().update(input_bytes, rtt_sum / 2, rtt_count, queue_bytes, tr)


def test_a_subclassed_controller_keeps_its_python_update(monkeypatch):
    """The C path computes the bundled update only: a subclass runs its own at every expiry of every port."""
    kwargs = dict(alpha=0.4, beta=0.226, t_end=4.0)
    plain, native = run(parking(), native=True, monkeypatch=monkeypatch, **kwargs)
    make = npr.make_controller

    def halved(*args, **kw):
        ctrl = make(*args, **kw)
        twin = HalvedRtt.__new__(HalvedRtt)
        twin.__dict__.update(vars(ctrl))
        return twin

    HalvedRtt.calls = 0
    monkeypatch.setattr(npr, "make_controller", halved)
    changed, went = run(parking(), native=True, monkeypatch=monkeypatch, **kwargs)
    assert native and not went
    assert HalvedRtt.calls == sum(tr["t"].size for tr in changed.traces.values()) > 300
    assert changed.traces["L1"]["avg_rtt_s"].tobytes() != plain.traces["L1"]["avg_rtt_s"].tobytes()


def test_only_the_exact_classes_choose_the_native_path():
    proto = get_protocol("rcp")
    ctrl = RcpController(link_rate=1250.0, alpha=0.4, beta=0.2, eta=1.0, rate=600.0, avg_rtt=40.0)
    twin = HalvedRtt.__new__(HalvedRtt)
    twin.__dict__.update(vars(ctrl))

    class MyRcp(type(proto)):
        pass

    assert npr._native_network("c", proto, {0: ctrl, 1: ctrl})
    assert not npr._native_network("python", proto, {0: ctrl})
    assert not npr._native_network("c", proto, {0: ctrl, 1: twin})  # one subclass: all ports in Python
    assert not npr._native_network("c", MyRcp(), {0: ctrl})


# ---- the entry point's arguments


def _network_sim(n_links=2):
    from rcpstab.packet._datapath import Simulator

    proto = get_protocol("rcp")
    return Simulator(
        links=[(10_000_000, 1_000_000, 150_000, proto.datapath_code)] * n_links,
        paths=[(0,)],
        flows=[],
        data_size=1500,
        ctrl_size=60,
        window_denominator=1480,
        rwnd_pkts=4096,
        sender=proto.sender_code,
    )


RCP_ARGS = (1250.0, 0.4, 0.2, 1.0, 100.0, 100.0, 1500, False)


def test_an_idle_network_port_follows_app_f_in_closed_form():
    """No traffic: App. F line 8 gives R <- R (1 + (T/d) alpha (C - 0)/C) each 10 ms, capped at C, and the
    interval is min(d, 10 ms); the RTT sample stays at its prior."""
    sim = _network_sim()
    ((rows, tick, interval, sample, state),) = sim.network_intervals("rcp", 10**8, [(1, 10**7, 10**7, 0.25, RCP_ARGS)])
    table = np.frombuffer(rows).reshape(-1, 7)
    assert table.shape == (10, 7) and tick == 11 * 10**7 and interval == 10**7
    rate = 100.0
    for k in range(10):
        rate = min(rate * (1 + 0.1 * 0.4), 1250.0)
        assert table[k, 1] == rate / 1250.0 and table[k, 0] == (k + 1) * 0.01
    assert np.all(table[:, 4] == 0.25) and np.all(table[:, 2] == 0) and np.all(table[:, 6] == 0)
    assert sample == 0.25 and state == (rate, 100.0)


@pytest.mark.parametrize(
    "ports, error, message",
    [
        ([(0, -1, 10**7, 0.1, RCP_ARGS)], ValueError, "t_ns=-1 is outside"),
        ([(0, 0, 999, 0.1, RCP_ARGS)], ValueError, "interval_ns=999 is outside 1000.."),  # MIN_CONTROL_INTERVAL_NS
        ([(0, 0, 10**7, math.nan, RCP_ARGS)], ValueError, "sample_s=nan must be finite"),
        ([(0, 0, 10**7, -1.0, RCP_ARGS)], ValueError, "sample_s=-1.0 must be finite and >= 0.0"),
        ([(0, 0, 10**7, 0.1, RCP_ARGS[:4] + (math.inf,) + RCP_ARGS[5:])], ValueError, "rate=inf must be finite"),
        ([(0, 0, 10**7, 0.1, RCP_ARGS[:5] + (0.0,) + RCP_ARGS[6:])], ValueError, "avg_rtt=0.0 must be finite and > 0"),
        ([(0, 0, 10**7, 0.1, RCP_ARGS[:6] + (11, False))], ValueError, "mtu data_size=11 is outside 12.."),
        ([(0, 0, 10**7, 0.1, RCP_ARGS[:7])], TypeError, None),
        ([(0, 0, 10.0**7, 0.1, RCP_ARGS)], TypeError, None),
        ([(2, 0, 10**7, 0.1, RCP_ARGS)], IndexError, "link 2 does not exist"),
        ([(0, 0, 10**7, 0.1, RCP_ARGS)] * 2, ValueError, "link 0 is given twice"),
        ([(0, 0, 10**7, 0.1, RCP_ARGS), (1, 0, 10**7, 0.1, RCP_ARGS), (1, 0, 1, 0.1, RCP_ARGS)], ValueError, "3 ports on"),
        ([[0, 0, 10**7, 0.1, RCP_ARGS]], TypeError, "a port is a tuple"),
        ([(0, 0, 10**7, 0.1, list(RCP_ARGS))], TypeError, None),
    ],
)
def test_network_intervals_refuses_values_outside_their_domains(ports, error, message):
    sim = _network_sim()
    with pytest.raises(error, match=message):
        sim.network_intervals("rcp", 10**8, ports)
    assert sim.counters()["now_ns"] == 0  # refused before anything ran


def test_network_intervals_refuses_a_bad_protocol_limit_or_span():
    sim = _network_sim()
    port = [(0, 0, 10**7, 0.1, RCP_ARGS)]
    with pytest.raises(ValueError, match="no native control path for protocol 'plain'"):
        sim.network_intervals("plain", 10**8, port)
    with pytest.raises(ValueError, match="t_ns=1152921504606846977 is outside"):
        sim.network_intervals("rcp", 2**60 + 1, port)
    with pytest.raises(ValueError, match="limit_ns - tick_ns = 1099511627777 ns is over 2[*][*]40"):
        sim.network_intervals("rcp", 2**40 + 1, port)
    with pytest.raises(TypeError):
        sim.network_intervals("rcp", 10**8, tuple(port))
    assert sim.network_intervals("rcp", 10**8, []) == []
    with pytest.raises(RuntimeError, match="not initialised"):
        type(sim).__new__(type(sim)).network_intervals("rcp", 10**8, port)


def test_a_tiny_rtt_average_is_held_at_the_shortest_control_interval():
    """avg_rtt = 1e-9 ms asks for Tr = 0 ns (App. F line 13): held at MIN_CONTROL_INTERVAL_NS, one expiry per
    microsecond (it was one per ns: 10**12 expiries over a 2**40 ns span, a hang)."""
    from rcpstab.runtime.validation import MIN_CONTROL_INTERVAL_NS

    args = RCP_ARGS[:5] + (1e-9,) + RCP_ARGS[6:]
    ((rows, tick, interval, _, _),) = _network_sim().network_intervals(
        "rcp", 10**6, [(1, MIN_CONTROL_INTERVAL_NS, MIN_CONTROL_INTERVAL_NS, 0.25, args)]
    )
    table = np.frombuffer(rows).reshape(-1, 7)
    assert interval == MIN_CONTROL_INTERVAL_NS and tick == 10**6 + MIN_CONTROL_INTERVAL_NS
    assert table.shape[0] == 10**6 // MIN_CONTROL_INTERVAL_NS and np.all(table[:, 5] == MIN_CONTROL_INTERVAL_NS / 1e9)
