"""The flow simulator's App. F control path in C (``FlowSimulator.rcp_intervals``) against the Python loop of
``fct/flow_run.py`` and against the Python twin (flows_py.py): the same run to the bit, every output field
compared as raw bytes, for the exact bundled controller class only."""

import dataclasses
import importlib
import math

import numpy as np
import pytest

from rcpstab.fct._flows import FlowSimulator
from rcpstab.fct.flow_run import SAMPLE_FIELDS
from rcpstab.packet.hosts.flow_traffic import ArrivalProcess, parse_sizes
from rcpstab.packet.routers.rcp.control import RcpController

fr = importlib.import_module("rcpstab.fct.flow_run")  # rcpstab.fct is also a function


def run(*, native, monkeypatch, **kwargs):
    """One run, the control path in C (``native``) or in Python at every expiry; returns the run and whether
    it went natively."""
    went = []
    choose = fr._native
    with monkeypatch.context() as m:
        m.setattr(fr, "_native", lambda *a: went.append(choose(*a) if native else False) or went[-1])
        result = fr.run_flows(keep_trace=True, **kwargs)
    return result, went[0]


def raw(value):
    """A field's bytes: arrays and floats bit for bit (NaN by pattern), the rest as it is."""
    if isinstance(value, np.ndarray):
        return value.dtype.descr, value.shape, value.tobytes()
    if isinstance(value, (float, tuple)):
        return np.array(value, dtype=float).tobytes()
    return value


def assert_same_run(a, b):
    for f in dataclasses.fields(a):
        if f.name not in ("wall_time_s", "backend"):
            assert raw(getattr(a, f.name)) == raw(getattr(b, f.name)), f.name


CASES = {
    "10 Mb/s, Pareto": dict(capacity_bps=10e6, rtt_s=0.1, load=0.8, sizes=parse_sizes("pareto:mean=25,shape=1.2"), n_flows=1500),
    "1 Gb/s, Pareto": dict(capacity_bps=1e9, rtt_s=0.1, load=0.9, sizes=parse_sizes("pareto:mean=25,shape=1.2"), n_flows=5000),
    "4 ms RTT (Tr = avg_rtt)": dict(capacity_bps=20e6, rtt_s=0.004, load=0.7, sizes=parse_sizes("fixed:size=10"), n_flows=800),
    "held RTT": dict(
        capacity_bps=5e6, rtt_s=0.05, load=0.9, sizes=parse_sizes("fixed:size=8"), n_flows=400, router_rtt="propagation"
    ),
    "drain cut short": dict(
        capacity_bps=20e6, rtt_s=0.05, load=0.95, sizes=parse_sizes("fixed:size=40"), n_flows=300, drain_s=0.02
    ),
    "Pareto gaps, small buffer": dict(
        capacity_bps=8e6,
        rtt_s=0.08,
        load=0.85,
        sizes=parse_sizes("pareto:mean=12,shape=1.5"),
        n_flows=9000,  # more than two chunks of arrivals
        buffer_bdp=0.2,
        arrivals=ArrivalProcess("pareto", 1.5),
    ),
}


@pytest.mark.parametrize("case", list(CASES))
def test_the_c_control_path_gives_the_python_loops_run_to_the_bit(case, monkeypatch):
    kwargs = dict(CASES[case], alpha=0.4, beta=0.226, seed=11)
    c, native = run(native=True, monkeypatch=monkeypatch, **kwargs)
    py, went = run(native=False, monkeypatch=monkeypatch, **kwargs)
    assert native and not went
    assert_same_run(c, py)
    assert len(c.trace) > 40 and c.counters["sent"] == c.counters["delivered"] + c.counters["dropped"] + c.counters["in_flight"]


SLOW_ARRIVALS = dict(capacity_bps=1e5, rtt_s=0.1, load=0.5, sizes=parse_sizes("fixed:size=10"), n_flows=800, alpha=0.4, beta=0.2)


def test_arrivals_over_more_than_one_calls_span_are_split_over_calls(monkeypatch):
    """A chunk of arrivals spread over more than 2**40 ns (18 minutes; 0.1 Mb/s, a flow every 1.6 s): the native
    path splits it over several calls (one call would be refused)."""
    monkeypatch.setattr(fr, "CHUNK_FLOWS", 700)  # the first chunk's arrivals span 1,100 s
    c, native = run(native=True, monkeypatch=monkeypatch, **SLOW_ARRIVALS)
    assert native and c.window_s[1] - c.window_s[0] > 2**40 / 1e9 and len(c.records) == 800


@pytest.mark.slow
def test_arrivals_over_more_than_one_calls_span_run_the_same(monkeypatch):
    monkeypatch.setattr(fr, "CHUNK_FLOWS", 700)
    c, _ = run(native=True, monkeypatch=monkeypatch, **SLOW_ARRIVALS)
    py, _ = run(native=False, monkeypatch=monkeypatch, **SLOW_ARRIVALS)
    assert_same_run(c, py)


def test_a_cut_short_drain_leaves_flows_unfinished_in_both(monkeypatch):
    """The stop rule at the drain's end, not only at the last completion, runs in C."""
    kwargs = dict(CASES["drain cut short"], alpha=0.4, beta=0.226, seed=11)
    c, _ = run(native=True, monkeypatch=monkeypatch, **kwargs)
    assert len(c.records) < c.n_flows
    assert c.trace["t_s"][-1] >= c.window_s[1] + 0.02 > c.trace["t_s"][-2]  # the first expiry at or after the cap


def test_the_c_control_path_gives_the_python_twins_run(monkeypatch):
    kwargs = dict(
        capacity_bps=4e6, rtt_s=0.06, load=0.8, sizes=parse_sizes("fixed:size=6"), n_flows=120, alpha=0.4, beta=0.2, seed=3
    )
    c, native = run(native=True, monkeypatch=monkeypatch, **kwargs)
    py, went = run(native=True, monkeypatch=monkeypatch, backend="python", **kwargs)
    assert native and not went
    assert_same_run(c, py)


@pytest.mark.parametrize("case", range(6))
def test_random_runs_are_the_same_in_c_and_in_python(case, monkeypatch):
    rng = np.random.default_rng(5300 + case)
    kwargs = dict(
        alpha=float(rng.uniform(0.05, 1.2)),
        beta=float(rng.uniform(0.0, 1.0)),
        capacity_bps=float(10 ** rng.uniform(6.3, 8.0)),
        rtt_s=float(rng.uniform(0.002, 0.2)),
        load=float(rng.uniform(0.3, 0.95)),
        sizes=parse_sizes(str(rng.choice(["fixed:size=7", "pareto:mean=20,shape=1.3", "exponential:mean=15"]))),
        n_flows=int(rng.integers(200, 1200)),
        buffer_bdp=float(rng.uniform(0.1, 2.0)),
        eta=float(rng.uniform(0.85, 1.0)),
        packet_bytes=int(rng.choice([576, 1000, 1500])),
        rate_refresh=bool(rng.random() < 0.7),
        sender_window=bool(rng.random() < 0.7),
        seed=case,
    )
    c, native = run(native=True, monkeypatch=monkeypatch, **kwargs)
    py, went = run(native=False, monkeypatch=monkeypatch, **kwargs)
    assert native and not went
    assert_same_run(c, py)


class HalvedRtt(RcpController):
    """A user's App. F variant: the header RTTs count half."""

    calls = 0

    def update(self, input_bytes, rtt_sum, rtt_count, queue_bytes, tr):
        HalvedRtt.calls += 1
        return super().update(input_bytes, rtt_sum / 2, rtt_count, queue_bytes, tr)


def test_a_subclassed_controller_and_a_fixed_rate_keep_python(monkeypatch):
    kwargs = dict(CASES["10 Mb/s, Pareto"], alpha=0.4, beta=0.226, seed=11, n_flows=300)
    plain, native = run(native=True, monkeypatch=monkeypatch, **kwargs)
    HalvedRtt.calls = 0
    monkeypatch.setattr(fr, "RcpController", HalvedRtt)
    changed, went = run(native=True, monkeypatch=monkeypatch, **kwargs)
    assert native and not went
    assert HalvedRtt.calls == len(changed.trace) > 100  # its update at every expiry
    assert raw(changed.trace["avg_rtt_ms"]) != raw(plain.trace["avg_rtt_ms"])
    monkeypatch.undo()
    _, went = run(native=True, monkeypatch=monkeypatch, fixed_rate_bps=5e6, **kwargs)
    assert not went and not fr._native("python", RcpController(1250.0, 0.4, 0.2, 1.0, 1250.0, 100.0), None)


# ---- the entry point's arguments

SIM = dict(
    forward=(10_000_000, 50_000_000, 125_000),
    reverse=(10_000_000, 50_000_000, 125_000),
    data_size=1000,
    ctrl_size=40,
    window_denominator=960,
    rwnd_pkts=1 << 20,
    request=0,
)
NAMES = (
    "t",
    "interval",
    "limit",
    "stop",
    "done_flows",
    "done_ns",
    "link_rate",
    "alpha",
    "beta",
    "eta",
    "rate",
    "avg_rtt",
    "mtu",
    "measured",
)
GOOD = (0, 10**7, 10**8, False, 0, 0, 1250.0, 0.4, 0.2, 1.0, 100.0, 100.0, 1000, True)


def call(sim=None, **change):
    return (sim or FlowSimulator(**SIM)).rcp_intervals(*[change.get(n, v) for n, v in zip(NAMES, GOOD)])


def test_an_idle_bottleneck_follows_app_f_in_closed_form():
    """No flows: R <- R (1 + (T/d) alpha) every 10 ms up to C; every sample in the Python loop's layout."""
    samples, t, interval, rate, avg_rtt, stopped = call()
    table = np.frombuffer(samples).reshape(-1, SAMPLE_FIELDS)
    assert table.shape == (10, 13) and t == 10**8 and interval == 10**7 and not stopped
    r = 100.0
    for k in range(10):
        r = min(r * (1 + 0.1 * 0.4), 1250.0)
        assert table[k, 6] == r / 1250.0
    idle = [1, 2, 3, 4, 5, 7, 9, 10, 11, 12]  # no flows: nothing sent, queued or in the census
    assert rate == r and avg_rtt == 100.0 and np.all(table[:, 0] == 1e7) and np.all(table[:, idle] == 0)
    one = call(stop=True, done_flows=0)
    assert one[5] and len(one[0]) == SAMPLE_FIELDS * 8  # one expiry, then stop
    assert len(call(stop=True, done_flows=5, done_ns=3 * 10**7)[0]) == 3 * SAMPLE_FIELDS * 8


def test_rcp_intervals_refuses_values_outside_their_domains():
    for name in ("link_rate", "alpha", "beta", "eta", "rate", "avg_rtt"):
        positive = name in ("link_rate", "eta", "avg_rtt")
        for value in [math.nan, math.inf, -math.inf] + ([-1.0] if positive or name == "rate" else []):
            with pytest.raises(ValueError, match=f"rcp_intervals {name}={value!r} must be finite"):
                call(**{name: value})
    for name, value, message in [
        ("t", -1, "t_ns=-1 is outside 0..1152921504606846976"),
        ("limit", 2**60 + 1, "t_ns=1152921504606846977 is outside"),
        ("interval", 999, "interval_ns=999 is outside 1000..1152921504606846976"),  # MIN_CONTROL_INTERVAL_NS
        ("limit", 2**40 + 1, "limit_ns - t_ns = 1099511627777 ns is over 2[*][*]40"),
        ("done_flows", -1, "done_flows=-1 is outside 0.."),
        ("done_ns", -5, "t_ns=-5 is outside"),
        ("mtu", 11, "rcp_intervals mtu data_size=11 is outside 12.."),
    ]:
        with pytest.raises(ValueError, match=message):
            call(**{name: value})
    with pytest.raises(TypeError):
        call(interval=1e7)
    sim = FlowSimulator(**SIM)
    sim.run_until(10**9)
    with pytest.raises(ValueError, match="t_ns=0 is before the clock"):
        call(sim)
    with pytest.raises(RuntimeError, match="not initialised"):
        call(FlowSimulator.__new__(FlowSimulator))
    rows = call(limit=2**40)[0]  # the longest span runs
    assert len(rows) == SAMPLE_FIELDS * 8 * (2**40 // 10**7)


def test_a_tiny_rtt_average_is_held_at_the_shortest_control_interval():
    """avg_rtt = 1e-9 ms asks for Tr = 0 ns: held at MIN_CONTROL_INTERVAL_NS, 1000 expiries per ms (not 10**6)."""
    from rcpstab.runtime.validation import MIN_CONTROL_INTERVAL_NS

    samples, t, interval, *_ = call(interval=MIN_CONTROL_INTERVAL_NS, limit=10**6, avg_rtt=1e-9)
    table = np.frombuffer(samples).reshape(-1, SAMPLE_FIELDS)
    assert interval == MIN_CONTROL_INTERVAL_NS and t == 10**6
    assert table.shape[0] == 10**6 // MIN_CONTROL_INTERVAL_NS and np.all(table[:, 0] == MIN_CONTROL_INTERVAL_NS)
