"""The control paths run in C with the event loop (``Simulator.rcp_intervals``, ``xcp_intervals``,
``rcpac_intervals``) against the Python control path: the same run to the bit, for the exact controller
classes only."""

import dataclasses
import math
import struct

import numpy as np
import pytest

from rcpstab.packet.protocols import get_protocol
from rcpstab.packet.protocols.rcpac import RcpAcProtocol
from rcpstab.packet.protocols.xcp import XcpProtocol
from rcpstab.packet.routers.rcp.control import RcpController
from rcpstab.packet.routers.rcpac.control import RcpAcController
from rcpstab.packet.routers.xcp.control import XcpController
from rcpstab.packet.simulator import run as runner
from rcpstab.packet.simulator.run import run_scenario
from rcpstab.packet.simulator.scenarios import FIG5_3, PoissonArrivals
from rcpstab.runtime.validation import MIN_CONTROL_INTERVAL_NS

FIELDS = (
    "t",
    "R_over_C",
    "queue_bytes",
    "n_active",
    "utilization",
    "dropped_packets",
    "avg_rtt_s",
    "throughput_t",
    "flow_throughput_bps",
    "flow_completion_s",
)


def bits(array):
    """The array's bytes: equal arrays of floats are equal bit for bit (a -0.0 is not a 0.0)."""
    return np.ascontiguousarray(array).tobytes()


def state(ctrl):
    """A controller's fields, floats as their bit patterns (a wrapped controller's too)."""

    def value(v):
        if isinstance(v, float):
            return struct.pack("<d", v)
        return state(v) if dataclasses.is_dataclass(v) else v

    return {k: value(v) for k, v in vars(ctrl).items()}


def run(scenario, *, native, monkeypatch, **kwargs):
    """One run, the control path in C (``native``) or in Python; returns the run, whether the run went
    natively, and the controllers in their final state."""
    made, went = [], []
    make, choose = runner.make_controller, runner._native_control
    with monkeypatch.context() as m:
        m.setattr(runner, "make_controller", lambda *a, **k: made.append(make(*a, **k)) or made[-1])
        m.setattr(runner, "_native_control", lambda *a: went.append(choose(*a) if native else None) or went[-1])
        result = run_scenario(scenario, **kwargs)
    return result, went[0] is not None, made


def assert_same_run(a, b):
    assert a.counters == b.counters
    for name in FIELDS:
        x, y = getattr(a, name), getattr(b, name)
        assert x.shape == y.shape and x.dtype == y.dtype, name
        assert bits(x) == bits(y), name


def random_scenario(rng):
    """A dumbbell with random capacity, delay, buffer, flow schedule, short flows and packet size."""
    capacity = float(10 ** rng.uniform(6.5, 8.0))  # 3-100 Mb/s
    rtt = float(rng.uniform(0.004, 0.25))
    packet = int(rng.choice([576, 1000, 1500]))
    flows = tuple(
        (round(float(rng.uniform(0, 1.0)), 3), math.inf if rng.random() < 0.6 else round(float(rng.uniform(1.2, 2.5)), 3))
        for _ in range(int(rng.integers(1, 13)))
    )
    buffer = None if rng.random() < 0.4 else max(int(rng.uniform(0.1, 2.0) * capacity * rtt / 8), packet)
    poisson = (
        PoissonArrivals(rate_per_s=float(rng.uniform(5, 60)), mean_size_bytes=float(rng.uniform(4e3, 8e4)))
        if rng.random() < 0.5
        else None
    )
    return dataclasses.replace(
        FIG5_3,
        name="random",
        capacity_bps=capacity,
        rtt_s=rtt,
        long_flows=flows,
        buffer_bytes=buffer,
        poisson=poisson,
        packet_bytes=packet,
        eta=float(rng.uniform(0.8, 1.0)),
        initial_R_over_C=float(rng.uniform(0.01, 1.0)),
        forward_delay_share=float(rng.uniform(0.2, 0.8)),
        start_jitter_s=float(rng.choice([0.0, 0.05])),
    )


@pytest.mark.parametrize(
    "capacity_bps, estimator",
    [
        (10e6, "appf"),
        (10e6, "ns2"),
        (100e6, "appf"),
        # the quick run keeps RCP with ns-2's estimator at a high rate in random case 9 (66 Mb/s)
        pytest.param(100e6, "ns2", marks=pytest.mark.slow),
    ],
)
def test_the_c_control_path_gives_the_python_twins_run_to_the_bit(capacity_bps, estimator, monkeypatch):
    scenario = dataclasses.replace(FIG5_3, capacity_bps=capacity_bps)
    c, native, _ = run(
        scenario, native=True, monkeypatch=monkeypatch, alpha=0.4, beta=0.2, backend="c", t_end=4.0, rtt_estimator=estimator
    )
    py, went, _ = run(
        scenario, native=True, monkeypatch=monkeypatch, alpha=0.4, beta=0.2, backend="python", t_end=4.0, rtt_estimator=estimator
    )
    assert native and not went  # C ran the control path natively, Python in Python
    assert c.t.size > 300  # one row per expiry (Tr = 10 ms)
    assert_same_run(c, py)


# Flows come and go within the run, so the controllers meet a change of N (5 -> 8 -> 3 flows).
CHANGING = dataclasses.replace(FIG5_3, long_flows=((0.0, 4.0),) * 5 + ((2.0, math.inf),) * 3)


@pytest.mark.parametrize("protocol, estimator", [("xcp", "appf"), ("rcpac", "appf"), ("rcpac", "ns2")])
def test_xcp_and_rcpac_in_c_give_the_python_twins_run_to_the_bit(protocol, estimator, monkeypatch):
    kwargs = dict(alpha=0.4, beta=0.226, t_end=6.0, protocol=protocol, rtt_estimator=estimator)
    c, native, c_ctrl = run(CHANGING, native=True, monkeypatch=monkeypatch, backend="c", **kwargs)
    py, went, py_ctrl = run(CHANGING, native=True, monkeypatch=monkeypatch, backend="python", **kwargs)
    assert native and not went
    assert c.t.size >= (50 if protocol == "xcp" else 550)  # every expiry traced (XCP: d ~ 0.1 s, RCP-AC: 10 ms)
    assert np.isfinite(c.R_over_C).all() and (c.R_over_C > 0).any()
    assert_same_run(c, py)
    assert state(c_ctrl[0]) == state(py_ctrl[0])  # and the controllers end in the same state


@pytest.mark.parametrize("case", range(12))
def test_random_scenarios_run_the_same_in_c_and_in_python(case, monkeypatch):
    rng = np.random.default_rng(2600 + case)
    scenario = random_scenario(rng)
    protocol = ("rcp", "xcp", "rcpac")[case % 3]
    kwargs = dict(
        alpha=float(rng.uniform(0.1, 1.0)),
        beta=float(rng.uniform(0.0, 1.0)),
        seed=int(rng.integers(1000)),
        backend="c",
        t_end=min(3.0, 2e8 / scenario.capacity_bps),
        protocol=protocol,
        rtt_estimator=str(rng.choice(["appf", "ns2"])) if protocol != "xcp" else "appf",
    )
    c, native, c_ctrl = run(scenario, native=True, monkeypatch=monkeypatch, **kwargs)
    py, went, py_ctrl = run(scenario, native=False, monkeypatch=monkeypatch, **kwargs)
    assert native and not went
    assert c.t.size > 5 and c.counters["delivered"] > 100
    assert_same_run(c, py)
    assert state(c_ctrl[0]) == state(py_ctrl[0])


class NoShuffling(XcpController):
    """XCP without the shuffling term: a subclass that changes the update."""

    calls = 0

    def service(self, registers, xregs, tr):
        NoShuffling.calls += 1
        gamma, self.gamma = self.gamma, 0.0
        try:
            return super().service(registers, xregs, tr)
        finally:
            self.gamma = gamma


class NoAcceleration(RcpAcController):
    """RCP-AC with eq. 2's budget off: a subclass that changes the update."""

    calls = 0

    def service(self, registers, xregs, tr):
        NoAcceleration.calls += 1
        next_s, writes, xwrites = super().service(registers, xregs, tr)
        return next_s, writes, {**xwrites, "xi_ac": 0.0}


class HalvedRtt(RcpController):
    """App. F's rate controller with a counterfactual RTT estimate, inside RCP-AC."""

    calls = 0

    def update(self, input_bytes, rtt_sum, rtt_count, queue_bytes, tr):
        HalvedRtt.calls += 1
        return super().update(input_bytes, rtt_sum / 2, rtt_count, queue_bytes, tr)


def _as(subclass, ctrl):
    """``ctrl`` turned into an instance of ``subclass`` with the same fields."""
    twin = subclass.__new__(subclass)
    twin.__dict__.update(vars(ctrl))
    return twin


@pytest.mark.parametrize(
    "protocol, rewrap, subclass",
    [
        ("xcp", lambda c: _as(NoShuffling, c), NoShuffling),
        ("rcpac", lambda c: _as(NoAcceleration, c), NoAcceleration),
        ("rcpac", lambda c: dataclasses.replace(c, rcp=_as(HalvedRtt, c.rcp)), HalvedRtt),
    ],
)
def test_a_subclassed_controller_keeps_its_python_update(protocol, rewrap, subclass, monkeypatch):
    """The C path computes the bundled update only: a subclass must run its own, every interval."""
    subclass.calls = 0
    kwargs = dict(alpha=0.4, beta=0.226, backend="c", t_end=6.0, protocol=protocol)
    plain, native, _ = run(CHANGING, native=True, monkeypatch=monkeypatch, **kwargs)
    make = runner.make_controller
    monkeypatch.setattr(runner, "make_controller", lambda *a, **k: rewrap(make(*a, **k)))
    changed, went, made = run(CHANGING, native=True, monkeypatch=monkeypatch, **kwargs)
    assert native and not went  # the plain run in C, the subclass in Python
    assert isinstance(made[0] if protocol == "xcp" or subclass is NoAcceleration else made[0].rcp, subclass)
    assert subclass.calls == changed.t.size > 50  # its update at every expiry
    assert bits(changed.queue_bytes) != bits(plain.queue_bytes)  # and it changed the run


def _controller_args(protocol):
    from rcpstab.packet.simulator.topology import dumbbell

    link = dumbbell(CHANGING, protocol).links[dumbbell(CHANGING, protocol).monitored_link]
    return link, 0.4, 0.226, 1.0, 0.05, 0.1, 1500


def test_only_the_exact_protocol_classes_run_natively():
    class MyXcp(XcpProtocol):
        pass

    class MyRcpAc(RcpAcProtocol):
        pass

    xcp, rcpac = get_protocol("xcp"), get_protocol("rcpac")
    x_ctrl = xcp.make_controller(*_controller_args("xcp"))
    a_ctrl = rcpac.make_controller(*_controller_args("rcpac"))
    assert xcp.runs_natively(x_ctrl) and rcpac.runs_natively(a_ctrl)
    assert not MyXcp().runs_natively(x_ctrl) and not MyRcpAc().runs_natively(a_ctrl)
    assert not xcp.runs_natively(_as(NoShuffling, x_ctrl)) and not rcpac.runs_natively(_as(NoAcceleration, a_ctrl))


# ---- one expiry on random registers: every register the control path writes, to the bit


def _idle_port(protocol):
    """A C simulator with one port of ``protocol`` and no traffic: the registers stay as they are set."""
    from rcpstab.packet._datapath import Simulator

    proto = get_protocol(protocol)
    return Simulator(
        links=[(10_000_000, 1_000_000, 150_000, proto.datapath_code)],
        paths=[(0,)],
        flows=[],
        data_size=1500,
        ctrl_size=60,
        window_denominator=1480,
        rwnd_pkts=4096,
        sender=proto.sender_code,
    )


def _random_registers(rng):
    """Registers as an interval may leave them, with the boundary cases (no input, no RTT, no queue, no
    persistent-queue sample, no window weight) often."""
    some = lambda high: 0 if rng.random() < 0.25 else int(rng.integers(1, high))  # noqa: E731
    registers = dict(
        input_bytes=some(10**7), rtt_sum=some(10**6), rtt_count=some(5000), queue_bytes=some(10**6), dropped=some(100)
    )
    weight = 0.0 if rng.random() < 0.25 else float(rng.uniform(1e-3, 50.0))
    xregs = dict(
        sum_rtt_by_cwnd=weight,
        sum_rtt_square_by_cwnd=weight * float(rng.uniform(1e-3, 0.5)),
        sum_deficit=0.0 if rng.random() < 0.25 else float(10 ** rng.uniform(0, 8)),
        min_queue=math.inf if rng.random() < 0.3 else float(rng.integers(0, 10**6)),
        xi_p=float(rng.uniform(-1, 1)),
        xi_n=float(rng.uniform(-1, 1)),
        residue_pos=float(rng.normal()),
        residue_neg=float(rng.normal()),
        rate=float(rng.uniform(0, 1e7)),
        avg_rtt=float(rng.uniform(0, 1)),
        xi_ac=float(rng.uniform(0, 1)),
    )
    return registers, xregs


def _random_controller(protocol, rng):
    link = dataclasses.replace(
        _controller_args(protocol)[0], capacity_bps=float(10 ** rng.uniform(5, 10)), buffer_bytes=int(rng.integers(1500, 10**7))
    )
    ctrl = get_protocol(protocol).make_controller(
        link,
        float(rng.uniform(0.05, 2.0)),
        float(rng.uniform(0.0, 2.0)),
        float(rng.uniform(0.5, 1.0)),
        float(rng.uniform(1e-3, 1.0)),
        float(10 ** rng.uniform(-4, 0)),
        int(rng.integers(64, 9000)),
        **({} if protocol == "xcp" else {"rtt_estimator": str(rng.choice(["appf", "ns2"]))}),
    )
    if protocol == "rcpac":
        ctrl.deficit = 0.0 if rng.random() < 0.3 else float(10 ** rng.uniform(0, 8))
    return ctrl


def _double_bits(values: dict) -> dict:
    return {k: struct.pack("<d", v) if isinstance(v, float) else v for k, v in values.items()}


@pytest.mark.parametrize("protocol", ["rcp", "xcp", "rcpac"])
def test_one_expiry_writes_the_python_controllers_registers_to_the_bit(protocol):
    """On random registers and controller states, one expiry in C (``native_intervals``) against the Python
    service step: every integer and real register written, the controller's state, the next interval and
    the trace row, bit for bit. (A whole run hides a last-bit change of a feedback share: the packet's
    feedback field is quantised.)"""
    proto, rng = get_protocol(protocol), np.random.default_rng(26 + len(protocol))
    for case in range(300):
        registers, xregs = _random_registers(rng)
        ctrl = _random_controller(protocol, rng)
        twin = dataclasses.replace(ctrl, rcp=dataclasses.replace(ctrl.rcp)) if protocol == "rcpac" else dataclasses.replace(ctrl)
        for name in ("utilization", "deficit"):
            if hasattr(ctrl, name):
                setattr(twin, name, getattr(ctrl, name))
        low = MIN_CONTROL_INTERVAL_NS  # the shortest interval the entry points take
        tick, interval = 10**9, int(rng.choice([low, 10**7, int(rng.integers(low + 1, 10**9))]))
        c_sim, py_sim = _idle_port(protocol), _idle_port(protocol)
        for sim in (c_sim, py_sim):
            sim.set_registers(0, **registers)
            sim.set_xcp_registers(0, **xregs)
        rows, next_tick, next_interval = proto.native_intervals(c_sim, 0, ctrl, tick, interval, tick, lambda t: 3)
        py_sim.run_until(tick)
        service = proto.service(py_sim, 0, twin, interval)
        assert (next_tick, next_interval) == (tick + service.next_ns, service.next_ns), case
        expected_row = (
            tick / 1e9,
            proto.monitored_rate(service.rate_over_c, service.utilization, 3),
            registers["queue_bytes"],
            0,
            service.utilization,
            registers["dropped"],
            proto.avg_rtt_s(twin),
        )
        assert [struct.pack("<d", v) if isinstance(v, float) else v for v in rows[0]] == [
            struct.pack("<d", v) if isinstance(v, float) else v for v in expected_row
        ], case
        assert len(rows) == 1
        assert c_sim.registers(0) == py_sim.registers(0), case
        assert _double_bits(c_sim.xcp_registers(0)) == _double_bits(py_sim.xcp_registers(0)), case
        assert state(ctrl) == state(twin), case


# ---- the entry points refuse what the domain table and their real domains exclude, by name

NAMES = {
    "rcp_intervals": ("link", "tick", "interval", "limit", "link_rate", "alpha", "beta", "eta", "rate", "avg_rtt", "mtu", "ns2"),
    "xcp_intervals": ("link", "tick", "interval", "limit", "capacity", "alpha", "beta", "gamma", "avg_rtt"),
    "rcpac_intervals": (
        "link",
        "tick",
        "interval",
        "limit",
        "link_rate",
        "alpha",
        "beta",
        "eta",
        "rate",
        "avg_rtt",
        "mtu",
        "ns2",
        "gamma_ac",
        "buffer_bytes",
        "deficit",
    ),
}
GOOD = {
    "rcp_intervals": (0, 0, 10**6, 10**8, 1250.0, 0.4, 0.2, 1.0, 100.0, 100.0, 1500, False),
    "xcp_intervals": (0, 0, 10**6, 10**8, 1.25e6, 0.4, 0.226, 0.1, 0.1),
    "rcpac_intervals": (0, 0, 10**6, 10**8, 1250.0, 0.4, 0.2, 1.0, 100.0, 100.0, 1500, False, 0.2, 1.5e5, 0.0),
}
POSITIVE = {"link_rate", "capacity", "eta", "avg_rtt"}  # > 0; rate and buffer_bytes >= 0; the rest finite


@pytest.mark.parametrize("method", list(NAMES))
def test_the_native_entry_points_refuse_values_outside_their_domains(method):
    protocol = {"rcp_intervals": "rcp", "xcp_intervals": "xcp", "rcpac_intervals": "rcpac"}[method]

    def call(**change):
        args = [change.get(name, value) for name, value in zip(NAMES[method], GOOD[method])]
        return getattr(_idle_port(protocol), method)(*args)

    for name in NAMES[method][4:]:
        if name in ("mtu", "ns2"):
            continue
        bounded = name in POSITIVE or name in ("rate", "buffer_bytes")
        for value in [math.nan, math.inf, -math.inf] + ([-1.0] if bounded else []) + ([0.0] if name in POSITIVE else []):
            with pytest.raises(ValueError, match=f"{method} {name}={value!r} must be finite"):
                call(**{name: value})
        if name in ("rate", "buffer_bytes"):
            call(**{name: 0.0})  # the bound itself is in the domain
    for name, value, message in [
        ("tick", -1, "t_ns=-1 is outside 0..1152921504606846976"),
        ("limit", 2**60 + 1, "t_ns=1152921504606846977 is outside"),
        ("interval", 999, "interval_ns=999 is outside 1000..1152921504606846976"),  # MIN_CONTROL_INTERVAL_NS
        ("limit", 2**40 + 1, "limit_ns - tick_ns = 1099511627777 ns is over 2[*][*]40"),
    ]:
        with pytest.raises(ValueError, match=message):
            call(**{name: value})
    if "mtu" in NAMES[method]:
        with pytest.raises(ValueError, match="mtu data_size=11 is outside 12.."):
            call(mtu=11)
    with pytest.raises(TypeError):
        call(interval=10.0**6)  # a float time, as run_until refuses it
    with pytest.raises(IndexError):
        call(link=1)
    rows = call(limit=2**40)[0]  # the longest span runs (an idle port: a row per interval)
    assert len(rows) > 1 and rows[-1][0] <= 2**40 / 1e9


@pytest.mark.parametrize("method", ["rcp_intervals", "rcpac_intervals"])
def test_a_tiny_rtt_average_is_held_at_the_shortest_control_interval(method):
    """avg_rtt = 1e-9 ms asks for Tr = 0 ns (App. F line 13): held at MIN_CONTROL_INTERVAL_NS, one expiry per
    microsecond (it was one per ns: 10**12 expiries over a 2**40 ns span, a hang)."""
    protocol = {"rcp_intervals": "rcp", "rcpac_intervals": "rcpac"}[method]
    args = dict(zip(NAMES[method], GOOD[method]), interval=MIN_CONTROL_INTERVAL_NS, limit=10**6, avg_rtt=1e-9)
    rows, tick, interval, *_ = getattr(_idle_port(protocol), method)(*args.values())
    assert interval == MIN_CONTROL_INTERVAL_NS and tick == 10**6 + MIN_CONTROL_INTERVAL_NS
    assert len(rows) == 10**6 // MIN_CONTROL_INTERVAL_NS + 1 and rows[-1][0] == 1e-3  # expiries at 0, 1 us, ..., 1 ms


def test_ns2_average_on_sub_ms_round_trips_is_refused(tmp_path):
    """RCP's header RTT is whole ms: below 1 ms every sample is 0 and ns-2's average decayed to 0 (it ran at the
    shortest interval until avg_rtt underflowed, then ended in NaN rates, an internal error); App. F's runs."""
    import rcpstab
    from rcpstab.errors import InputError

    path = tmp_path / "short.toml"
    path.write_text(
        't_end_s = 0.5\n[[links]]\nname = "b"\ncapacity_bps = 1e9\ndelay_s = 5e-5\nbuffer_bytes = "bdp"\n'
        '[[flows]]\ncount = 2\npath = ["b"]\n'
    )
    with pytest.raises(InputError, match="rtt_estimator='ns2' with rtt_s=0.0001: below 0.001 s the rcp data path"):
        rcpstab.packet_run(str(path), 0.4, 0.2, rtt_estimator="ns2")
    assert np.isfinite(rcpstab.packet_run(str(path), 0.4, 0.2).R_over_C).all()
