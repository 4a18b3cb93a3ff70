"""The flow simulator's C extension (issue 27 defects 1 and 2): integers range-checked from the one
table both twins read (no wrap), concurrent use refused with RuntimeError, no undefined behaviour
(tests/sanitize_datapath.sh runs this file under ASan + UBSan, see test_sanitizer_run)."""

import os
import shutil
import subprocess
import threading
import time
from pathlib import Path

import numpy as np
import pytest
from conftest import examples
from hypothesis import given, settings
from hypothesis import strategies as st

from rcpstab.fct._flows import FlowSimulator
from rcpstab.fct.flow_run import SAMPLE_FIELDS
from rcpstab.fct.flows_py import RECORD_FIELDS, PyFlowSimulator
from rcpstab.runtime.validation import SIMULATOR_INTEGERS

REPO = Path(__file__).resolve().parents[1]
LINK = (10_000_000, 50_000_000, 150_000)  # 10 Mb/s, 50 ms each way, 150 kB
ARGS = dict(forward=LINK, reverse=LINK, data_size=1000, ctrl_size=40, window_denominator=960, rwnd_pkts=4096, request=0)


def outcome(call):
    """("ok", result) or ("error", type, message): what the twins must agree on."""
    try:
        return ("ok", call())
    except (TypeError, ValueError, BufferError, RuntimeError, OverflowError) as exc:
        return ("error", type(exc), str(exc))


def arrivals(times, sizes):
    return np.asarray(times, np.int64).tobytes(), np.asarray(sizes, np.int64).tobytes()


def run_both(args, times, sizes, until):
    out = []
    for cls in (FlowSimulator, PyFlowSimulator):
        sim = cls(**args)
        sim.set_registers(rate=1250)  # C in bytes/ms: no control path runs, the register holds it
        sim.add_arrivals(*arrivals(times, sizes))
        sim.run_until(until)
        rec = np.frombuffer(sim.take_records(), np.int64).reshape(-1, len(RECORD_FIELDS))
        out.append((rec, sim.counters()))
    return out


# ---- defect 1: a buffer beyond 64 bits wrapped to a small one in C, silently


def test_a_buffer_beyond_the_table_is_refused_by_both_not_wrapped():
    # 2**64 + 24576 bytes used to become 24,576 bytes in C (K format) and stay 1.8e19 in the twin.
    for buffer in (2**64 + 24576, 125 * 10**33, -1, (1 << 62) + 1):
        args = dict(ARGS, forward=(10_000_000, 50_000_000, buffer))
        c = outcome(lambda args=args: FlowSimulator(**args))
        py = outcome(lambda args=args: PyFlowSimulator(**args))
        assert c == py
        assert c[:2] == ("error", ValueError) and f"forward buffer_bytes={buffer} is outside" in c[2]


def test_the_largest_buffer_allowed_runs_the_same_in_both():
    high = SIMULATOR_INTEGERS["buffer_bytes"][1]
    args = dict(ARGS, forward=(10_000_000, 50_000_000, high))
    (rc, cc), (rp, cp) = run_both(args, [0, 10**6, 2 * 10**6], [30, 1, 5], 3 * 10**9)
    assert np.array_equal(rc, rp) and cc == cp
    assert len(rc) == 3 and cc["dropped"] == 0  # nothing is dropped with an unbounded buffer


# ---- the twins refuse exactly the same integers, at and beyond every bound of the one table


def _around(name):
    low, high = SIMULATOR_INTEGERS[name]
    return st.sampled_from([low - 1, low, high, high + 1, 2**63, 2**64 + low, -(2**63) - 1]) | st.integers(low, high)


HOSTILE = st.one_of(st.floats(allow_nan=True), st.none(), st.text(max_size=3), st.booleans(), st.integers(-(2**70), 2**70))
INIT_FIELDS = ["data_size", "ctrl_size", "window_denominator", "rwnd_pkts", "request"]
LINK_FIELDS = ["capacity_bps", "delay_ns", "buffer_bytes"]


@settings(max_examples=examples(300), deadline=None)
@given(field=st.sampled_from(INIT_FIELDS + [f"{d}.{f}" for d in ("forward", "reverse") for f in LINK_FIELDS]), data=st.data())
def test_twins_refuse_the_same_constructor_arguments(field, data):
    name = field.split(".")[-1]
    value = data.draw(_around(name) | HOSTILE)
    args = dict(ARGS)
    if "." in field:
        direction = field.split(".")[0]
        link = list(args[direction])
        link[LINK_FIELDS.index(name)] = value
        args[direction] = tuple(link)
    else:
        args[name] = value
    c, py = outcome(lambda: FlowSimulator(**args)), outcome(lambda: PyFlowSimulator(**args))
    assert c[0] == py[0] and c[1:] == py[1:] if c[0] == "error" else c[0] == py[0] == "ok"
    low, high = SIMULATOR_INTEGERS[name]
    in_range = type(value) in (int, bool) and low <= value <= high
    assert (c[0] == "ok") == in_range


@settings(max_examples=examples(200), deadline=None)
@given(name=st.sampled_from(["rate", "input_bytes", "rtt_sum", "rtt_count"]), data=st.data())
def test_twins_refuse_the_same_register_values(name, data):
    value = data.draw(_around(name) | HOSTILE)
    c, py = FlowSimulator(**ARGS), PyFlowSimulator(**ARGS)
    oc, op = outcome(lambda: c.set_registers(**{name: value})), outcome(lambda: py.set_registers(**{name: value}))
    assert oc == op
    assert c.registers() == py.registers()
    low, high = SIMULATOR_INTEGERS[name]
    assert (oc[0] == "ok") == (value is None or (type(value) in (int, bool) and low <= value <= high))


def _int64_around(name):
    low, high = SIMULATOR_INTEGERS[name]
    return st.sampled_from([low - 1, low, high, high + 1, -(2**63), 2**63 - 1]) | st.integers(low, high)


@settings(max_examples=examples(200), deadline=None)
@given(start=_int64_around("start_ns"), size=_int64_around("size_pkts"), t=_around("t_ns") | HOSTILE, earlier=st.booleans())
def test_twins_refuse_the_same_arrivals_and_times(start, size, t, earlier):
    c, py = FlowSimulator(**ARGS), PyFlowSimulator(**ARGS)
    for sim in (c, py):
        sim.add_arrivals(*arrivals([5], [1]))
    times, sizes = ([start, 4], [size, 1]) if earlier else ([start], [size])
    assert outcome(lambda: c.add_arrivals(*arrivals(times, sizes))) == outcome(lambda: py.add_arrivals(*arrivals(times, sizes)))
    # the accepted arrivals run 100 ms in both (a flow of 2**62 packets run to t = 2**62 ns would
    # keep the Python twin busy for hours), and the twins agree on what that run did
    assert outcome(lambda: c.run_until(100_000_000)) == outcome(lambda: py.run_until(100_000_000))
    assert c.counters() == py.counters()
    # the refusal of a time is checked on a pair holding only the one-packet flow, which ends by itself
    c, py = FlowSimulator(**ARGS), PyFlowSimulator(**ARGS)
    for sim in (c, py):
        sim.add_arrivals(*arrivals([5], [1]))
    assert outcome(lambda: c.run_until(t)) == outcome(lambda: py.run_until(t))
    assert c.counters() == py.counters()


def test_an_empty_add_arrivals_is_a_no_op_in_both():
    # C handed memcpy a NULL buffer (undefined behaviour; UBSan flags it in the sanitizer run).
    for cls in (FlowSimulator, PyFlowSimulator):
        sim = cls(**ARGS)
        sim.set_registers(rate=1250)
        sim.add_arrivals(b"", b"")
        sim.add_arrivals(*arrivals([0], [3]))
        sim.add_arrivals(b"", b"")
        sim.run_until(2 * 10**9)
        assert sim.counters()["completed"] == 1


def test_the_window_of_a_fast_long_path_does_not_overflow():
    # rate 2**32 - 2 bytes/ms times a smoothed RTT near 100 s overflowed int64 in rtcp_take_rate.
    link = (10**13, 50 * 10**9, 10**9)
    args = dict(ARGS, forward=link, reverse=link, rwnd_pkts=SIMULATOR_INTEGERS["rwnd_pkts"][1])
    out = []
    for cls in (FlowSimulator, PyFlowSimulator):
        sim = cls(**args)
        sim.set_registers(rate=2**32 - 2)
        sim.add_arrivals(*arrivals([0], [50]))
        sim.run_until(400 * 10**9)
        out.append((sim.take_records(), sim.counters()))
    assert out[0] == out[1]
    assert out[0][1]["completed"] == 1


# ---- defect 2: two threads on one simulator crashed the interpreter


def _busy_simulator():
    """Every flow sends at the link's rate at once (no control path): heavy loss, about 0.5 s of C on an idle machine."""
    sim = FlowSimulator(**dict(ARGS, forward=(10**9, 10**6, 10**7), reverse=(10**9, 10**6, 10**7)))
    sim.set_registers(rate=125_000)
    n = 300
    sim.add_arrivals(*arrivals(np.arange(n) * 1000, np.full(n, 800)))
    return sim


def test_concurrent_use_while_running_is_refused():
    sim = _busy_simulator()
    runner = threading.Thread(target=sim.run_until, args=(10**11,))
    runner.start()
    time.sleep(0.05)
    assert runner.is_alive(), "the run finished too soon to test concurrency"
    calls = (
        lambda: sim.__init__(**ARGS),
        sim.counters,
        sim.registers,
        lambda: sim.set_registers(rate=1),
        lambda: sim.run_until(10**9),
        sim.n_active,
        sim.take_records,
        lambda: sim.add_arrivals(b"", b""),
    )
    errors = [outcome(call)[:2] for call in calls]
    still_running = runner.is_alive()
    runner.join()
    assert still_running
    assert errors == [("error", RuntimeError)] * len(calls)
    assert sim.counters()["delivered"] > 0  # usable again once the run returned


def test_a_failed_reinitialisation_keeps_the_old_simulator():
    sim = FlowSimulator(**ARGS)
    sim.set_registers(rate=1250)
    sim.add_arrivals(*arrivals([0], [3]))
    with pytest.raises(ValueError, match="buffer_bytes"):
        sim.__init__(**dict(ARGS, forward=(1, 1, -1)))
    sim.run_until(2 * 10**9)
    assert sim.counters()["completed"] == 1


HOSTILE_CALLS = [
    (),
    (None,),
    (-1,),
    (2**64,),
    (1.5,),
    (b"", b""),
    (b"x", b"x"),
    (bytes(8), bytes(16)),
    (memoryview(bytes(17))[1:], memoryview(bytes(17))[1:]),
    ("ab", "ab"),
    (0, 0, 0),
]
HOSTILE_KWARGS = [{}, {"rate": -1}, {"rate": 2**40}, {"input_bytes": 2**64}, {"rtt_sum": 1e308}, {"bogus": 1}]


def test_every_entry_point_survives_hostile_arguments_initialised_or_not():
    """Under the sanitizer run this walks every method of FlowSimulator, on a live and on a bare object."""
    public = {m for m in dir(FlowSimulator) if not m.startswith("_")} | {"__init__"}
    assert public == {
        "add_arrivals",
        "run_until",
        "registers",
        "set_registers",
        "take_records",
        "counters",
        "census",
        "n_active",
        "rcp_intervals",
        "__init__",
    }  # a new entry point must get here too
    live = FlowSimulator(**ARGS)
    for sim in (live, FlowSimulator.__new__(FlowSimulator)):
        for method in sorted(public):
            for args in HOSTILE_CALLS:
                for kwargs in HOSTILE_KWARGS:
                    try:
                        getattr(sim, method)(*args, **kwargs)
                    except (TypeError, ValueError, RuntimeError, BufferError):
                        pass
    # the hostile calls (the unaligned views hold size-0 arrivals) were all refused: nothing was queued
    assert live.counters()["pending_arrivals"] == 0 and live.counters()["started"] == 0
    live.set_registers(rate=1250)
    live.add_arrivals(*arrivals([10**9], [3]))
    live.run_until(4 * 10**9)
    assert live.counters()["completed"] == 1
    # rcp_intervals takes its arguments by position: hostile values in each (times out of t_ns's and interval_ns's
    # range or over 2^40 ns apart, a negative flow count, NaN/inf gains, a zero RTT, a bad mtu), on a fresh
    # simulator and on a bare one
    good = (0, 10**7, 10**8, False, 0, 0, 1250.0, 0.4, 0.2, 1.0, 100.0, 100.0, 1000, True)
    bad = [(0, -1), (0, 2**61), (1, 0), (1, -5), (1, 2**61), (2, -1), (2, 2**45), (4, -1), (4, 2**70), (5, -1), (5, 2**61)]
    bad += [(j, r) for j in range(6, 12) for r in (float("nan"), float("inf"), float("-inf"), 0.0, -1.0)]
    bad += [(12, v) for v in (0, 11, 2**30, 1.5)] + [(j, "x") for j in range(len(good))] + [(len(good), 0)]
    for sim in (FlowSimulator(**ARGS), FlowSimulator.__new__(FlowSimulator)):
        for i, value in bad:
            hostile = list(good)
            hostile[i : i + 1] = [value]
            try:
                sim.rcp_intervals(*hostile)
            except (TypeError, ValueError, RuntimeError):
                pass
    samples = FlowSimulator(**ARGS).rcp_intervals(*good)[0]  # and a valid one runs: ten 10 ms intervals
    assert len(samples) == 10 * SAMPLE_FIELDS * 8  # float64 fields per expiry


def hammer(seconds=1.0, seed=0):
    """Two threads call random entry points of one simulator; returns the exception types seen."""
    from conftest import hammer_two_threads

    sim = _busy_simulator()

    def calls_for(rng):
        return [
            lambda: sim.run_until(sim.counters()["now_ns"] + rng.randrange(10**7)),
            sim.counters,
            sim.registers,
            lambda: sim.set_registers(rate=rng.randrange(1, 10**6)),
            sim.take_records,
            sim.census,
            sim.n_active,
            lambda: sim.__init__(**ARGS) if rng.random() < 0.02 else None,
            lambda: sim.add_arrivals(*arrivals([sim.counters()["now_ns"] + 10**9], [rng.randrange(1, 50)])),
            lambda: sim.add_arrivals(b"", b""),
        ]

    # ValueError: an arrival raced behind the other thread's clock
    return hammer_two_threads(sim, calls_for, seconds, (RuntimeError, ValueError), seed)


def test_two_threads_hammering_one_simulator_get_runtime_errors_not_a_crash():
    assert RuntimeError in hammer(seconds=float(os.environ.get("RCPSTAB_HAMMER_S", "1.0")))


@pytest.mark.slow
def test_sanitizer_run():
    """Both C extensions built with ASan + UBSan run their hostile-input, twin and hammering tests: no report."""
    if shutil.which("gcc") is None:
        pytest.skip("no gcc")
    proc = subprocess.run(
        ["bash", str(REPO / "tests" / "sanitize_datapath.sh"), "-x"], capture_output=True, text=True, timeout=1200
    )
    out = proc.stdout + proc.stderr
    assert proc.returncode == 0, out[-3000:]
    assert "ERROR: AddressSanitizer" not in out and "runtime error:" not in out
    assert "sanitized build:" in out and " passed" in out
