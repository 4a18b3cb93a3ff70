"""C extension hardening (issue 13 item 6, issue 18 defect 3): no silent integer wrap, no SystemError,
no out-of-bounds read from a lying sequence, concurrent use refused; the twins agree on every input."""
import threading
import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rcpstab.packet import _datapath
from rcpstab.packet.routers.rcp.datapath_py import PyDatapath
from rcpstab.packet.routers.xcp.datapath_py import PyXcpDatapath
from rcpstab.packet.wire.rcp_header import RcpHeader

PACKET = RcpHeader(rate=1000, rtt=100).pack() + bytes(8)
any_size = st.integers() | st.sampled_from([2**32 + 12, -1, 2**64, 2**32 - 1, 0]) | st.floats(allow_nan=False)


def outcome(call):
    try:
        return "ok", call()
    except Exception as exc:  # noqa: BLE001 - the type is what is compared
        return "error", type(exc)


def test_size_above_32_bits_is_refused_by_both_not_wrapped():
    # C used to count 12 bytes, the twin 4294967308
    for dp in (_datapath.Datapath(1), PyDatapath(1)):
        with pytest.raises(ValueError, match="4294967308"):
            dp.arrive(0, PACKET, 2**32 + 12)
        assert dp.registers(0)["input_bytes"] == 0


@settings(max_examples=200, deadline=None)
@given(size=any_size, op=st.sampled_from(["arrive", "depart"]), proto=st.sampled_from(["rcp", "xcp", "rcpac"]),
       packet=st.binary(max_size=24) | st.just(PACKET))
def test_twins_agree_on_every_size_the_api_accepts(size, op, proto, packet):
    if proto == "rcp":
        c, py = _datapath.Datapath(1), PyDatapath(1)
    else:
        c, py = _datapath.XcpDatapath(1, proto), PyXcpDatapath(1, proto)
    for dp in (c, py):
        dp.set_registers(0, buffer_bytes=2**40)
    assert outcome(lambda: getattr(c, op)(0, packet, size)) == outcome(lambda: getattr(py, op)(0, packet, size))
    assert c.registers(0) == py.registers(0)


@settings(max_examples=200, deadline=None)
@given(name=st.sampled_from(["rate", "buffer_bytes", "queue_bytes", "bogus"]),
       value=st.integers() | st.sampled_from([-1, 2**32, 2**64, 2**64 - 1]) | st.floats(allow_nan=False))
def test_twins_agree_on_every_register_value(name, value):
    c, py = _datapath.Datapath(1), PyDatapath(1)
    assert outcome(lambda: c.set_registers(0, **{name: value})) == outcome(lambda: py.set_registers(0, **{name: value}))
    assert c.registers(0) == py.registers(0)


LINKS = [(10_000_000, 1_000_000, 150_000, 1)]
FLOWS = [(0, -1, 0, 0, 0, 0)]
ARGS = dict(paths=[(0,)], data_size=1500, ctrl_size=52, window_denominator=1480, rwnd_pkts=4096)


@pytest.mark.parametrize("change, error, named", [
    ({"links": [(10_000_000, 1_000_000, -1, 1)]}, ValueError, "buffer=-1"),          # became 2**64 - 1
    ({"links": [(10_000_000, 1_000_000, 2**64 + 1500, 1)]}, ValueError, "buffer="),   # became 1500
    ({"flows": [(0, -1, 0, 2**32 + 5, 0, 0)]}, ValueError, "request="),
    ({"flows": [(0, -1, 0, -1, 0, 0)]}, ValueError, "request=-1"),
    ({"data_size": 2**32 + 1500}, ValueError, "data_size="),
    ({"ctrl_size": -1}, ValueError, "ctrl_size=-1"),
    ({"window_denominator": 2**32 + 1}, ValueError, "window_denominator="),
    ({"links": [7]}, TypeError, "link 0"),                                          # was SystemError
    ({"links": [(10_000_000, 1_000_000)]}, TypeError, "link 0"),
    ({"flows": ["abcdef"]}, TypeError, "flow 0"),
    ({"links": [(10_000_000, 1_000_000, 1.5, 1)]}, TypeError, "float"),
])
def test_hostile_constructor_arguments_are_errors(change, error, named):
    args = {**ARGS, "links": LINKS, "flows": FLOWS, **change}
    with pytest.raises(error, match=named):
        _datapath.Simulator(**args)


def test_list_items_are_accepted_like_tuples():
    sim = _datapath.Simulator(**dict(ARGS, links=[list(LINKS[0])], flows=[list(FLOWS[0])]))
    sim.run_until(1_000_000_000)
    assert sim.counters()["delivered"] > 0


class LyingPath:
    """len() says 200 links, iteration yields one: the C code indexed 200 entries of a 1-tuple."""

    def __len__(self):
        return 200

    def __iter__(self):
        return iter([0])


def test_a_path_whose_length_lies_is_refused():
    with pytest.raises(ValueError, match="len"):
        _datapath.Simulator(**dict(ARGS, links=LINKS, flows=FLOWS, paths=[LyingPath()]))


def test_concurrent_use_while_running_is_refused():
    flows = [(0, -1, 0, 0, 0, 0)] * 20
    args = dict(ARGS, links=[(100_000_000, 1_000_000, 10**6, 1)], flows=flows)
    sim = _datapath.Simulator(**args)
    runner = threading.Thread(target=sim.run_until, args=(400 * 10**9,))
    runner.start()
    time.sleep(0.05)
    assert runner.is_alive(), "the run finished too soon to test concurrency"
    errors = []
    for call in (lambda: sim.__init__(**args), sim.counters, lambda: sim.registers(0),
                 lambda: sim.set_registers(0, rate=1), lambda: sim.run_until(10**9), sim.n_active, sim.flow_stats):
        errors.append(outcome(call))
    still_running = runner.is_alive()
    runner.join()
    assert still_running
    assert errors == [("error", RuntimeError)] * len(errors)
    assert sim.counters()["delivered"] > 0  # usable again once the run returned


HOSTILE = [(), (None,), (-1,), (2**64,), (0, None), (0, b"", -1), (0, PACKET, 2**70), (0, "text", 1),
           (0, memoryview(PACKET)[::2], 12), (10**30, PACKET, 12), (0, PACKET, 12, 99)]
HOSTILE_KWARGS = [{}, {"rate": -1}, {"rate": 2**40}, {"buffer_bytes": 2**64}, {"xi_p": "x"}, {"sum_deficit": 1e308},
                  {"bogus": 1}, {"avg_rtt": float("nan")}]
ALLOWED = (TypeError, ValueError, IndexError, OverflowError, RuntimeError, BufferError)


def _instances():
    sim = _datapath.Simulator(**{**ARGS, "links": LINKS, "flows": FLOWS})
    return {"Datapath": _datapath.Datapath(2), "XcpDatapath": _datapath.XcpDatapath(2, "rcpac"), "Simulator": sim}


def test_every_entry_point_survives_hostile_arguments():
    """Under tests/sanitize_datapath.sh this walks every C entry point with AddressSanitizer on."""
    covered = set()
    for name, obj in _instances().items():
        methods = [m for m in dir(obj) if not m.startswith("_")]
        for method in methods:
            for args in HOSTILE:
                for kwargs in HOSTILE_KWARGS:
                    try:
                        getattr(obj, method)(*args, **kwargs)
                    except ALLOWED:
                        pass
            covered.add(f"{name}.{method}")
        for args in HOSTILE:  # the constructors, again and again on a live object
            try:
                type(obj).__init__(obj, *args)
            except ALLOWED:
                pass
            covered.add(f"{name}.__init__")
    for function in ("receiver_echo", "xcp_receiver_echo"):
        for args in HOSTILE + [(b"",), (PACKET,), (bytes(20),)]:
            try:
                getattr(_datapath, function)(*args)
            except ALLOWED:
                pass
        covered.add(function)
    public = {f"{n}.{m}" for n, o in _instances().items() for m in dir(o) if not m.startswith("_")}
    public |= {f"{n}.__init__" for n in ("Datapath", "XcpDatapath", "Simulator")}
    public |= {n for n in dir(_datapath) if callable(getattr(_datapath, n)) and not n.startswith("_")
               and not isinstance(getattr(_datapath, n), type)}
    assert covered == public
    assert len(public) == 23  # a new entry point must get here too (and into the sanitizer run)


@pytest.mark.parametrize("change", [
    {"links": [(10_000_000, 1_000_000, -1, 1)]}, {"links": [(10_000_000, 1_000_000, 2**64 + 1500, 1)]},
    {"flows": [(0, -1, 0, 2**32 + 5, 0, 0)]}, {"flows": [(0, -1, 0, -1, 0, 0)]}, {"data_size": 2**32 + 1500},
    {"ctrl_size": -1}, {"window_denominator": 2**32 + 1}, {"links": [(10_000_000, 1_000_000, 1.5, 1)]},
])
def test_the_simulator_twin_refuses_the_same_integers(change):
    from rcpstab.packet.simulator.sim_py import PySimulator
    args = {**ARGS, "links": LINKS, "flows": FLOWS, **change}
    assert outcome(lambda: _datapath.Simulator(**args)) == outcome(lambda: PySimulator(**args))
    assert outcome(lambda: PySimulator(**args))[0] == "error"
