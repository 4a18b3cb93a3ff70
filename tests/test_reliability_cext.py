"""C extension hardening (issue 13 item 6, issue 18 defect 3, issue 27): no silent integer wrap, no SystemError,
no out-of-bounds read from a lying sequence, concurrent use refused; the twins agree on every input, and
refuse the same integers with the same message, at and beyond every bound of the one table both read."""

import threading
import time

import pytest
from conftest import examples
from hypothesis import given, settings
from hypothesis import strategies as st

from rcpstab.packet import _datapath
from rcpstab.packet.routers.rcp.datapath_py import PyDatapath
from rcpstab.packet.routers.xcp.datapath_py import PyXcpDatapath
from rcpstab.packet.simulator.sim_py import PySimulator
from rcpstab.packet.wire.rcp_header import RcpHeader
from rcpstab.runtime.validation import SIMULATOR_INTEGERS

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


@settings(max_examples=examples(200), deadline=None)
@given(
    size=any_size,
    op=st.sampled_from(["arrive", "depart"]),
    proto=st.sampled_from(["rcp", "xcp", "rcpac"]),
    packet=st.binary(max_size=24) | st.just(PACKET),
)
def test_twins_agree_on_every_size_the_api_accepts(size, op, proto, packet):
    if proto == "rcp":
        c, py = _datapath.Datapath(1), PyDatapath(1)
    else:
        c, py = _datapath.XcpDatapath(1, proto), PyXcpDatapath(1, proto)
    for dp in (c, py):
        dp.set_registers(0, buffer_bytes=2**40)
    assert outcome(lambda: getattr(c, op)(0, packet, size)) == outcome(lambda: getattr(py, op)(0, packet, size))
    assert c.registers(0) == py.registers(0)


@settings(max_examples=examples(200), deadline=None)
@given(
    name=st.sampled_from(["rate", "buffer_bytes", "queue_bytes", "bogus"]),
    value=st.integers() | st.sampled_from([-1, 2**32, 2**64, 2**64 - 1]) | st.floats(allow_nan=False),
)
def test_twins_agree_on_every_register_value(name, value):
    c, py = _datapath.Datapath(1), PyDatapath(1)
    assert outcome(lambda: c.set_registers(0, **{name: value})) == outcome(lambda: py.set_registers(0, **{name: value}))
    assert c.registers(0) == py.registers(0)


LINKS = [(10_000_000, 1_000_000, 150_000, 1)]
FLOWS = [(0, -1, 0, 0, 0, 0)]
ARGS = dict(paths=[(0,)], data_size=1500, ctrl_size=52, window_denominator=1480, rwnd_pkts=4096)


@pytest.mark.parametrize(
    "change, error, named",
    [
        ({"links": [(10_000_000, 1_000_000, -1, 1)]}, ValueError, "link 0 buffer_bytes=-1"),  # became 2**64 - 1
        ({"links": [(10_000_000, 1_000_000, 2**64 + 1500, 1)]}, ValueError, "buffer_bytes="),  # became 1500
        ({"flows": [(0, -1, 0, 2**32 + 5, 0, 0)]}, ValueError, "request="),
        ({"flows": [(0, -1, 0, -1, 0, 0)]}, ValueError, "request=-1"),
        ({"data_size": 2**32 + 1500}, ValueError, "data_size="),
        ({"ctrl_size": -1}, ValueError, "ctrl_size=-1"),
        ({"window_denominator": 2**32 + 1}, ValueError, "window_denominator="),
        ({"links": [7]}, TypeError, "link 0"),  # was SystemError
        ({"links": [(10_000_000, 1_000_000)]}, TypeError, "link 0"),
        ({"flows": ["abcdef"]}, TypeError, "flow 0"),
        ({"links": [(10_000_000, 1_000_000, 1.5, 1)]}, TypeError, "float"),
    ],
)
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
    for call in (
        lambda: sim.__init__(**args),
        sim.counters,
        lambda: sim.registers(0),
        lambda: sim.set_registers(0, rate=1),
        lambda: sim.run_until(10**9),
        sim.n_active,
        sim.flow_stats,
        lambda: sim.xcp_intervals(0, 10**9, 10**7, 10**9, 1.25e7, 0.4, 0.226, 0.1, 0.1),
        lambda: sim.rcpac_intervals(0, 10**9, 10**7, 10**9, 1e4, 0.4, 0.2, 1.0, 1e3, 100.0, 1500, False, 0.2, 1.5e5, 0.0),
    ):
        errors.append(outcome(call))
    still_running = runner.is_alive()
    runner.join()
    assert still_running
    assert errors == [("error", RuntimeError)] * len(errors)
    assert sim.counters()["delivered"] > 0  # usable again once the run returned


HOSTILE = [
    (),
    (None,),
    (-1,),
    (2**64,),
    (0, None),
    (0, b"", -1),
    (0, PACKET, 2**70),
    (0, "text", 1),
    (0, memoryview(PACKET)[::2], 12),
    (10**30, PACKET, 12),
    (0, PACKET, 12, 99),
]
HOSTILE_KWARGS = [
    {},
    {"rate": -1},
    {"rate": 2**40},
    {"buffer_bytes": 2**64},
    {"xi_p": "x"},
    {"sum_deficit": 1e308},
    {"bogus": 1},
    {"avg_rtt": float("nan")},
]
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
    # the native control paths take their arguments by position: hostile values in each (times out of
    # t_ns's and interval_ns's range or over 2^40 ns apart, NaN/inf gains, a zero RTT, a negative buffer)
    times = [(0, -1), (0, 99), (1, -1), (1, 2**61), (2, 0), (2, -5), (2, 2**61), (3, 2**62), (3, 2**45)]
    reals = [float("nan"), float("inf"), float("-inf"), 0.0, -1.0]
    rcp = (0, 0, 1_000_000, 10_000_000, 1e4, 0.4, 0.2, 0.95, 1e3, 100.0, 1500, False)
    good = {
        "rcp_intervals": rcp,
        "xcp_intervals": (0, 0, 1_000_000, 10_000_000, 1.25e6, 0.4, 0.226, 0.1, 0.1),
        "rcpac_intervals": rcp + (0.2, 150_000.0, 0.0),
    }
    ints = {"rcp_intervals": (10,), "xcp_intervals": (), "rcpac_intervals": (10,)}  # mtu
    sim = _instances()["Simulator"]
    for method, args in good.items():
        bad = times + [(j, r) for j in range(4, len(args)) if j not in ints[method] and j != 11 for r in reals]
        bad += [(j, v) for j in ints[method] for v in (0, 11, 2**30, 1.5)] + [(j, "x") for j in range(len(args))]
        for i, value in bad + [(len(args), 0)]:
            hostile = list(args)
            hostile[i : i + 1] = [value]
            try:
                getattr(sim, method)(*hostile)
            except ALLOWED:
                pass
        rows = getattr(sim, method)(*args)[0]  # and a valid one runs: rows up to 10 ms
        assert 1 <= len(rows) <= 10 and all(len(row) == 7 for row in rows)
    # network_intervals: hostile protocol names, limits, port lists and each field of a port (the controller
    # arguments as above, through the same parsers)
    for method, args in good.items():
        protocol = method.split("_")[0]
        port = (0, 0, 1_000_000, 0.1, args[4:])
        bad_ports = [[(0, 0, 1_000_000, 0.1, args[4:])] * 2, [port] * 9, [list(port)], [port[:4]], [port + (1,)]]
        for i, value in times[:6] + [(3, float("nan")), (3, -1.0), (3, "x"), (4, ()), (4, args[4:-1]), (0, -1), (0, 99)]:
            hostile = list(port)
            hostile[i] = value
            bad_ports.append([tuple(hostile)])
        for j in range(len(args) - 4):
            for value in reals + ["x", 2**70]:
                params = list(args[4:])
                params[j] = value
                bad_ports.append([(0, 0, 1_000_000, 0.1, tuple(params))])
        for ports in bad_ports:
            for name, limit in ((protocol, 10_000_000), (protocol, -1), (protocol, 2**45), ("plain", 10_000_000), ("", 0)):
                try:
                    sim.network_intervals(name, limit, ports)
                except ALLOWED:
                    pass
        ((rows, *_),) = sim.network_intervals(protocol, 10_000_000, [port])  # and a valid one runs
        assert 1 <= len(rows) // (7 * 8) <= 10
    covered.add("Simulator.network_intervals")
    for function in ("receiver_echo", "xcp_receiver_echo"):
        for args in HOSTILE + [(b"",), (PACKET,), (bytes(20),)]:
            try:
                getattr(_datapath, function)(*args)
            except ALLOWED:
                pass
        covered.add(function)
    public = {f"{n}.{m}" for n, o in _instances().items() for m in dir(o) if not m.startswith("_")}
    public |= {f"{n}.__init__" for n in ("Datapath", "XcpDatapath", "Simulator")}
    public |= {
        n
        for n in dir(_datapath)
        if callable(getattr(_datapath, n)) and not n.startswith("_") and not isinstance(getattr(_datapath, n), type)
    }
    assert covered == public
    assert len(public) == 27  # a new entry point must get here too (and into the sanitizer run)


@pytest.mark.parametrize(
    "change",
    [
        {"links": [(10_000_000, 1_000_000, -1, 1)]},
        {"links": [(10_000_000, 1_000_000, 2**64 + 1500, 1)]},
        {"flows": [(0, -1, 0, 2**32 + 5, 0, 0)]},
        {"flows": [(0, -1, 0, -1, 0, 0)]},
        {"data_size": 2**32 + 1500},
        {"ctrl_size": -1},
        {"window_denominator": 2**32 + 1},
        {"links": [(10_000_000, 1_000_000, 1.5, 1)]},
    ],
)
def test_the_simulator_twin_refuses_the_same_integers(change):
    args = {**ARGS, "links": LINKS, "flows": FLOWS, **change}
    assert outcome(lambda: _datapath.Simulator(**args)) == outcome(lambda: PySimulator(**args))
    assert outcome(lambda: PySimulator(**args))[0] == "error"


# ---- issue 27: the packet extension reads the one table of integer ranges, as its twins do


def said(call):
    """("ok",) or ("error", type, message): the twins must agree on the message too."""
    try:
        call()
        return ("ok",)
    except (TypeError, ValueError, OverflowError, IndexError) as exc:
        return ("error", type(exc), str(exc))


def _around(low, high):
    return st.sampled_from([low - 1, low, high, high + 1, 2**63, 2**64 + low, -(2**63) - 1]) | st.integers(low, high)


NOT_INTEGERS = st.one_of(st.floats(allow_nan=True), st.none(), st.text(max_size=3), st.booleans())
TWO_LINKS = [(10_000_000, 1_000_000, 150_000, 1), (10_000_000, 1_000_000, 150_000, 0)]
TWO_PATHS = [(0,), (1,)]
BASE = dict(
    links=TWO_LINKS,
    paths=TWO_PATHS,
    flows=[(0, -1, 0, 0, 0, 1)],
    data_size=1500,
    ctrl_size=52,
    window_denominator=1480,
    rwnd_pkts=4096,
    sender=0,
)
# field -> (where in the arguments, the range a value is accepted in)
SCALARS = {k: SIMULATOR_INTEGERS[k] for k in ("data_size", "ctrl_size", "window_denominator", "rwnd_pkts")}
SCALARS["sender"] = (0, 1)
LINK_FIELDS = {
    "capacity_bps": SIMULATOR_INTEGERS["capacity_bps"],
    "delay_ns": SIMULATOR_INTEGERS["delay_ns"],
    "buffer_bytes": SIMULATOR_INTEGERS["buffer_bytes"],
    "protocol": (0, 3),
}
FLOW_FIELDS = {k: SIMULATOR_INTEGERS[k] for k in ("start_ns", "stop_ns", "flow_pkts", "request")}
FLOW_FIELDS.update(fwd_path=(0, 1), rev_path=(0, 1))


def _with(field, value):
    args = dict(BASE)
    if field in SCALARS:
        args[field] = value
    elif field in LINK_FIELDS:
        link = list(TWO_LINKS[1])
        link[list(LINK_FIELDS).index(field)] = value
        args["links"] = [TWO_LINKS[0], tuple(link)]
    elif field in FLOW_FIELDS:
        flow = list(BASE["flows"][0])
        flow[list(FLOW_FIELDS).index(field)] = value
        args["flows"] = [BASE["flows"][0], tuple(flow)]
    else:  # "link": an index into the links, in a path
        args["paths"] = [TWO_PATHS[0], (1, value)]
    return args


@settings(max_examples=examples(400), deadline=None)
@given(field=st.sampled_from([*SCALARS, *LINK_FIELDS, *FLOW_FIELDS, "link"]), data=st.data())
def test_simulator_twins_refuse_the_same_integers_at_and_beyond_every_bound(field, data):
    low, high = {**SCALARS, **LINK_FIELDS, **FLOW_FIELDS, "link": (0, 1)}[field]
    value = data.draw(_around(low, high) | NOT_INTEGERS)
    args = _with(field, value)
    c, py = said(lambda: _datapath.Simulator(**args)), said(lambda: PySimulator(**args))
    assert c == py
    in_range = type(value) in (int, bool) and low <= value <= high
    assert (c[0] == "ok") == in_range, c
    if not in_range and type(value) is int:
        assert c[1] is ValueError and f"{field}={value} is outside {low}..{high}" in c[2]


@pytest.mark.parametrize("length", [0, 1, 255, 256, 10_000])
def test_simulator_twins_refuse_the_same_path_lengths(length):
    args = dict(BASE, paths=[(0,) * length, (1,)])
    c, py = said(lambda: _datapath.Simulator(**args)), said(lambda: PySimulator(**args))
    assert c == py
    low, high = SIMULATOR_INTEGERS["path_links"]
    assert (c == ("ok",)) == (low <= length <= high)
    if c[0] == "error":
        assert c[2] == f"path 0 path_links={length} is outside {low}..{high}"


@settings(max_examples=examples(100), deadline=None)
@given(t=_around(*SIMULATOR_INTEGERS["t_ns"]) | NOT_INTEGERS)
def test_simulator_twins_refuse_the_same_run_until_times(t):
    sims = [cls(**dict(BASE, flows=[])) for cls in (_datapath.Simulator, PySimulator)]  # nothing to run: instant
    c, py = (said(lambda sim=sim: sim.run_until(t)) for sim in sims)
    assert c == py
    assert sims[0].counters() == sims[1].counters()
    low, high = SIMULATOR_INTEGERS["t_ns"]
    assert (c == ("ok",)) == (type(value := t) in (int, bool) and low <= value <= high)


@settings(max_examples=examples(150), deadline=None)
@given(which=st.sampled_from(["n_ports", "size", "rate"]), proto=st.sampled_from(["rcp", "xcp"]), data=st.data())
def test_port_twins_refuse_the_same_integers_at_and_beyond_every_bound(which, proto, data):
    low, high = SIMULATOR_INTEGERS[which]
    value = data.draw(
        _around(low, high) if which != "n_ports" else st.sampled_from([low - 1, low, 7, high, high + 1, 2**63, -(2**63) - 1])
    )
    pair = (_datapath.Datapath, PyDatapath) if proto == "rcp" else (_datapath.XcpDatapath, PyXcpDatapath)
    extra = () if proto == "rcp" else ("xcp",)
    if which == "n_ports":
        c, py = (said(lambda cls=cls: cls(value, *extra)) for cls in pair)
    else:
        c_dp, py_dp = (cls(1, *extra) for cls in pair)
        call = {"size": lambda dp: dp.arrive(0, PACKET, value), "rate": lambda dp: dp.set_registers(0, rate=value)}
        c, py = said(lambda: call[which](c_dp)), said(lambda: call[which](py_dp))
        assert c_dp.registers(0) == py_dp.registers(0)
    assert c == py
    assert (c == ("ok",)) == (low <= value <= high)


TABLE_EDITS = [
    (
        "rcpstab.packet._datapath",
        "v.SIMULATOR_INTEGERS['size'] = (0, 1000)",
        "m.Datapath(1).arrive(0, bytes(12), 1001)",
        "size=1001 is outside 0..1000",
    ),
    ("rcpstab.packet._datapath", "v.SIMULATOR_INTEGERS['path_links'] = (1, 256)", "", "path_links"),  # hop is 8 bits
    (
        "rcpstab.fct._flows",
        "v.SIMULATOR_INTEGERS['rwnd_pkts'] = (1, 7)",
        "m.FlowSimulator((1, 1, 1), (1, 1, 1), 40, 40, 40, 8, 0)",
        "rwnd_pkts=8 is outside 1..7",
    ),
    ("rcpstab.fct._flows", "v.SIMULATOR_INTEGERS['data_size'] = (11, 1500)", "", "data_size"),  # < an RCP header
]

# Each case in a fresh fork of one process that has imported no rcpstab module, only the third-party
# package the extensions' packages import (NumPy; SciPy and matplotlib are not loaded by them, and
# importing those here cost 1.4 s of CPU). A child never returns to the loop.
FORK_PER_EDIT = """
import json, os, sys
import numpy
assert not any(k.startswith("rcpstab") for k in sys.modules)
for code in json.loads(sys.argv[1]):
    sys.stdout.flush()
    pid = os.fork()
    if pid == 0:
        try:
            exec(code, {})
        except BaseException as exc:
            print("crashed", repr(exc), flush=True)
            os._exit(1)
        print("\\0", flush=True)
        os._exit(0)
    os.waitpid(pid, 0)
"""


@pytest.fixture(scope="module")
def after_table_edits():
    """What each of TABLE_EDITS prints, in a new process: the edit, then the import and the call."""
    import json
    import subprocess
    import sys
    from pathlib import Path

    codes = [
        (
            f"import importlib, rcpstab.runtime.validation as v\n{setup}\n"
            f"try:\n    m = importlib.import_module({module!r})\n    {call or 'pass'}\n"
            f"except (ImportError, ValueError) as exc:\n    print(type(exc).__name__, exc)\n"
        )
        for module, setup, call, _ in TABLE_EDITS
    ]
    out = subprocess.run(
        [sys.executable, "-c", FORK_PER_EDIT, json.dumps(codes)],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=Path(__file__).parent,
    ).stdout
    printed = out.split("\0\n")
    assert len(printed) == len(TABLE_EDITS) + 1 and printed[-1] == "", out
    return dict(zip(TABLE_EDITS, printed))


@pytest.mark.parametrize("module, setup, call, expected", TABLE_EDITS)
def test_each_extension_reads_the_table_when_imported(module, setup, call, expected, after_table_edits):
    """A bound changed in validation.py changes what C refuses; one beyond what C is written for refuses the import."""
    out = after_table_edits[(module, setup, call, expected)]
    assert expected in out and (("ImportError" in out) == (not call)), out


def _busy_packet_simulator():
    flows = [(0, -1, 0, 0, 0, 0)] * 20
    return _datapath.Simulator(**dict(ARGS, links=[(100_000_000, 1_000_000, 10**6, 1)], flows=flows))


def test_two_threads_hammering_one_packet_simulator_get_runtime_errors_not_a_crash():
    import os

    from conftest import hammer_two_threads

    sim = _busy_packet_simulator()

    def calls_for(rng):
        return [
            lambda: sim.run_until(sim.counters()["now_ns"] + rng.randrange(10**8)),
            sim.counters,
            lambda: sim.registers(0),
            lambda: sim.set_registers(0, rate=rng.randrange(1, 10**6)),
            lambda: sim.xcp_registers(0),
            sim.n_active,
            sim.flow_stats,
            lambda: sim.__init__(**dict(ARGS, links=LINKS, flows=FLOWS)) if rng.random() < 0.02 else None,
        ]

    seen = hammer_two_threads(sim, calls_for, float(os.environ.get("RCPSTAB_HAMMER_S", "1.0")))
    assert RuntimeError in seen
