"""Packet protocols are plug-ins: a protocol registered from outside the package runs through
run_scenario, and the C function table and its Python twin name the same data paths."""

import ast
import math
from types import SimpleNamespace

import numpy as np
import pytest

from rcpstab.errors import InputError
from rcpstab.packet import _datapath
from rcpstab.packet.protocols import (
    PACKET_PROTOCOLS,
    PacketProtocol,
    PortService,
    get_protocol,
    register_protocol,
    unregister_protocol,
)
from rcpstab.packet.routers.port_ops import DATAPATH_CODES, PORT_OPS
from rcpstab.packet.simulator import run
from rcpstab.packet.simulator.run import run_scenario
from rcpstab.packet.simulator.scenarios import Scenario

NS_PER_MS = 1_000_000
N_FLOWS = 2
ETA = 0.9
GAIN = 0.5
CAPACITY_BPS = 10e6
# 2 long-lived flows over 10 Mb/s, 20 ms: about 800 packets/s, a fraction of a second of C loop.
TWO_FLOWS = Scenario(
    name="two-flows", capacity_bps=CAPACITY_BPS, rtt_s=0.02, eta=ETA, long_flows=((0.0, math.inf),) * N_FLOWS, t_end_s=6.0
)


class IntegralRate(PacketProtocol):
    """A test protocol: RCP's data path and R-TCP senders, its own controller.

    Once per RTT the controller moves the stamped rate by R <- R (1 + g (eta - y/C)), y the
    measured input rate. With N paced flows y = N R, so its only fixed point is R = eta C / N
    (stable for g eta < 1: the loop is z^2 - z + g eta with one RTT of delay). It ignores the
    queue, the RTT field and beta: nothing of RCP's App. F control path is used.
    """

    name = "test-integral"
    sender = "rtcp"
    header_bytes = 12
    datapath = "rcp"

    def make_controller(self, link, alpha, beta, eta, initial_R_over_C, avg_rtt_s, mtu):
        capacity = link.capacity_bps / 8000  # bytes/ms, the rate register's unit
        return SimpleNamespace(
            capacity=capacity,
            eta=eta,
            gain=alpha,
            rate=initial_R_over_C * eta * capacity,
            interval_ns=int(round(avg_rtt_s * 1e9)),
        )

    def initial_writes(self, sim, li, ctrl):
        sim.set_registers(li, rate=int(round(ctrl.rate)))

    def service(self, sim, li, ctrl, tr_ns):
        registers = sim.registers(li)
        y = registers["input_bytes"] * NS_PER_MS / tr_ns  # bytes/ms
        ctrl.rate = min(max(ctrl.rate * (1 + ctrl.gain * (ctrl.eta - y / ctrl.capacity)), 1.0), ctrl.capacity)
        sim.set_registers(li, rate=int(round(ctrl.rate)), input_bytes=0, rtt_sum=0, rtt_count=0)
        return PortService(ctrl.interval_ns, ctrl.rate / ctrl.capacity, y / ctrl.capacity, registers)

    def initial_interval_ns(self, ctrl):
        return ctrl.interval_ns


@pytest.fixture
def integral():
    protocol = register_protocol(IntegralRate())
    yield protocol
    unregister_protocol(protocol.name)


def test_a_protocol_registered_from_outside_runs_and_reaches_its_own_fixed_point(integral):
    run = run_scenario(TWO_FLOWS, GAIN, 0.0, protocol=integral.name)
    assert run.protocol == "test-integral"
    settled = run.t > 2.0
    share = ETA / N_FLOWS  # the controller's fixed point, R/C = eta/N
    # the control path's state: its own law, not RCP's
    assert np.mean(run.R_over_C[settled]) == pytest.approx(share, rel=0.02)
    # independent of the controller: what the receivers got (paced senders at the stamped rate)
    late = run.throughput_t > 2.0
    per_flow = run.flow_throughput_bps[late].mean(axis=0) / CAPACITY_BPS
    assert per_flow == pytest.approx([share] * N_FLOWS, rel=0.03)
    # and what the port counted: y = N R, no drops, no standing queue (y < C)
    assert np.mean(run.utilization[settled]) == pytest.approx(ETA, rel=0.03)
    assert run.counters["dropped"] == 0 and run.queue_bytes[settled].max() < 10 * 1500
    # the default readers: no RTT estimate kept by this protocol
    assert np.all(np.isnan(run.avg_rtt_s))


def test_a_registered_protocol_runs_identically_on_the_c_loop_and_its_python_twin(integral):
    c = run_scenario(TWO_FLOWS, GAIN, 0.0, protocol=integral.name, backend="c", t_end=1.0)
    py = run_scenario(TWO_FLOWS, GAIN, 0.0, protocol=integral.name, backend="python", t_end=1.0)
    assert c.counters == py.counters and c.counters["events"] > 1000
    assert np.array_equal(c.R_over_C, py.R_over_C) and np.array_equal(c.queue_bytes, py.queue_bytes)


def test_an_unregistered_protocol_is_an_input_error_naming_the_registered_ones(integral):
    with pytest.raises(InputError, match="test-integral"):
        run_scenario(TWO_FLOWS, GAIN, 0.0, protocol="nope", t_end=0.1)
    unregister_protocol(integral.name)
    try:
        with pytest.raises(InputError, match="rcp, xcp, rcpac"):
            run_scenario(TWO_FLOWS, GAIN, 0.0, protocol="test-integral", t_end=0.1)
    finally:
        register_protocol(integral)


@pytest.mark.parametrize(
    "change, message",
    [
        (dict(name="rcp"), "already registered"),
        (dict(name="plain"), "other than 'plain'"),
        (dict(name=""), "non-empty"),
        (dict(sender="tcp"), "sender 'tcp'"),
        (dict(datapath="red"), "data path 'red'"),
        (dict(sender="xcp"), "shorter than the xcp sender's 20-byte header"),
    ],
)
def test_registration_refuses_an_inconsistent_protocol(change, message):
    protocol = IntegralRate()
    for attribute, value in change.items():
        setattr(protocol, attribute, value)
    before = set(PACKET_PROTOCOLS)  # the bundled three, and any a protocol file registered earlier in the run
    assert before >= {"rcp", "xcp", "rcpac"}
    with pytest.raises(ValueError, match=message):
        register_protocol(protocol)
    assert set(PACKET_PROTOCOLS) == before  # a refused registration leaves the registry as it was
    with pytest.raises(ValueError, match="not a PacketProtocol"):
        register_protocol(object())


def test_c_function_table_and_python_twin_name_the_same_data_paths():
    assert _datapath.DATAPATHS == tuple(ops.name for ops in PORT_OPS) == tuple(DATAPATH_CODES)
    # every bundled protocol's links run the data path its registry entry names
    for name in ("rcp", "xcp", "rcpac"):
        assert _datapath.DATAPATHS[get_protocol(name).datapath_code] == name


def test_c_function_table_and_python_twin_name_the_same_sender_kinds():
    from pathlib import Path

    from rcpstab.packet.hosts.senders import SENDER_HEADER_BYTES, SENDER_OPS, SENDERS
    from rcpstab.packet.simulator import sim_py

    assert _datapath.SENDERS == tuple(ops.name for ops in SENDER_OPS) == tuple(SENDERS)
    assert SENDER_HEADER_BYTES == {"rtcp": 12, "xcp": 20}
    # the sender kind is chosen once from the table: neither simulator compares it with a kind again
    csrc = Path(_datapath.__file__).parent / "csrc" / "sim.c"
    for source in (csrc.read_text(), Path(sim_py.__file__).read_text()):
        assert "== SENDER_" not in source and "sender ==" not in source


@pytest.mark.parametrize("sender", [0, 1])
def test_both_twins_refuse_the_same_sender_parameters(sender):
    from rcpstab.packet.simulator.sim_py import PySimulator

    links, paths, flows = [(10**8, 10**6, 10**6, 1)], [(0,)], [(0, -1, 0, 0, 0, 0)]
    too_big = dict(rwnd_pkts=(1 << 24) + 1)  # only the XCP sender's window arithmetic refuses it
    messages = []
    for simulator in (_datapath.Simulator, PySimulator):
        try:
            simulator(links, paths, flows, 1040, 60, 1040, too_big["rwnd_pkts"], sender)
            messages.append(None)
        except ValueError as exc:
            messages.append(str(exc))
    assert messages[0] == messages[1]
    assert (messages[0] is None) == (sender == 0)


def test_the_run_loop_names_no_protocol():
    # what the registry replaced: isinstance chains on controllers and comparisons with protocol names
    tree = ast.parse(open(run.__file__).read())
    calls = {node.func.id for node in ast.walk(tree) if isinstance(node, ast.Call) and isinstance(node.func, ast.Name)}
    assert "isinstance" not in calls
    compared = {
        c.value
        for node in ast.walk(tree)
        if isinstance(node, ast.Compare)
        for c in [node.left, *node.comparators]
        if isinstance(c, ast.Constant)
    }
    assert not compared & {"rcp", "xcp", "rcpac"}


class Installed(IntegralRate):
    name = "test-installed"


def fake_entry_points(objects):
    """``importlib.metadata.entry_points`` as an installed package announcing ``objects`` by name."""

    def entry_points(group, name):
        assert group == "rcpstab.packet_protocols"
        if name not in objects:
            return []
        return [SimpleNamespace(value=f"fakepkg.packet:{name}", load=lambda: objects[name])]

    return entry_points


def test_an_installed_entry_point_is_registered_on_first_use(monkeypatch):
    from rcpstab.packet.protocols import registry

    monkeypatch.setattr(
        registry, "entry_points", fake_entry_points({"test-installed": Installed(), "test-misnamed": Installed()})
    )
    try:
        run = run_scenario(TWO_FLOWS, GAIN, 0.0, protocol="test-installed", t_end=3.0)
        assert "test-installed" in PACKET_PROTOCOLS
        late = run.throughput_t > 2.0
        assert run.flow_throughput_bps[late].mean() / CAPACITY_BPS == pytest.approx(ETA / N_FLOWS, rel=0.03)
    finally:
        PACKET_PROTOCOLS.pop("test-installed", None)
    with pytest.raises(InputError, match="not a PacketProtocol named 'test-misnamed'"):
        get_protocol("test-misnamed")
    with pytest.raises(InputError, match="the packet simulator runs rcp, xcp, rcpac"):
        get_protocol("test-absent")
