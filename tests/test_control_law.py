"""App. F's control law (lines 1-13), written three times, stepped side by side on the same inputs.

1. the packet router's control path, :class:`rcpstab.packet.routers.rcp.control.RcpController`
   (Python, bytes/ms and ms: the executable specification);
2. ``control_update`` in the network kernel's C template (``rcpstab/network/kernel.c``), compiled
   here with a small exported wrapper;
3. the SymPy model ``rcp-router`` (:mod:`rcpstab.models.rcp_router`): one sampled update of its
   rate R and RTT average D (``x <- x + T rhs``), then its saturation, in bit/s and s.

Each interval gets the same measured input rate y, RTT samples, queue and interval length; the
three must agree to rounding on the new rate, the new RTT average and the next interval. The
inputs cover both branches of the RTT average (sample above and below it, lines 3-6) and both
clamps (lines 9-12).
"""

import ctypes
import shutil
import subprocess

import numpy as np
import pytest
import sympy as sp

from rcpstab.models.rcp_router import MODEL
from rcpstab.models.spec import t
from rcpstab.network.kernel import source
from rcpstab.packet.routers.rcp.control import MAX_RATE_ESTIMATION_INTERVAL_MS, RcpController

MTU_BYTES = 1500
WRAPPER = """
double control_step(double *rate, double *avg, double link_rate, double alpha, double beta, double eta, double mtu,
                    double in_bytes, double rtt_sum, double rtt_count, double queue_bytes, double tr)
{
    return control_update(rate, avg, link_rate, alpha, beta, eta, mtu, in_bytes, rtt_sum, rtt_count, queue_bytes, tr);
}
"""


def cases(n=400, seed=7):
    """Random intervals: rates up to 1.5 C measured, samples 0.5-2 x the average, queues up to 2 BDP."""
    rng = np.random.default_rng(seed)
    for i in range(n):
        capacity_bps = 10 ** rng.uniform(7, 10)
        avg_s = rng.uniform(0.01, 0.5)
        eta = rng.uniform(0.9, 1.0)
        min_rate = 0.01 * 8.0 * MTU_BYTES / avg_s
        # a third anywhere, a third at the target with an idle link (the upper clamp), a third near the
        # floor MIN_RATE with an overloaded link and a queue (the lower clamp)
        rate = (
            capacity_bps * 10 ** rng.uniform(-4, 0),
            eta * capacity_bps * rng.uniform(0.95, 1.0),
            min_rate * rng.uniform(1.0, 1.5),
        )[i % 3]
        load = (rng.uniform(0.0, 1.5), rng.uniform(0.0, 0.5), rng.uniform(1.2, 2.0))[i % 3]
        yield {
            "capacity_bps": capacity_bps,
            "alpha": rng.uniform(0.05, 1.5),
            "beta": rng.uniform(0.0, 1.0),
            "eta": eta,
            "rate_bps": rate,
            "avg_s": avg_s,
            "input_bps": capacity_bps * load,
            "sample_s": avg_s * rng.uniform(0.5, 2.0),
            "queue_bits": capacity_bps * avg_s * rng.uniform(0.0, 2.0),
            "interval_s": min(avg_s, 0.01) * rng.uniform(0.5, 1.0),
        }


def python_step(c, count=1000):
    """The packet router's control path, in its own units (bytes/ms, ms). ``count``: RTT samples
    in the interval (only their mean matters; 0: none)."""
    tr = c["interval_s"] * 1e3
    ctl = RcpController(
        link_rate=c["capacity_bps"] / 8e3,
        alpha=c["alpha"],
        beta=c["beta"],
        eta=c["eta"],
        rate=c["rate_bps"] / 8e3,
        avg_rtt=c["avg_s"] * 1e3,
        mtu=MTU_BYTES,
    )
    nxt = ctl.update(c["input_bps"] / 8e3 * tr, c["sample_s"] * 1e3 * count, count, c["queue_bits"] / 8.0, tr)
    return ctl.rate * 8e3, ctl.avg_rtt / 1e3, nxt / 1e3


@pytest.fixture(scope="module")
def c_step(tmp_path_factory):
    if shutil.which("gcc") is None:
        pytest.skip("no gcc")
    folder = tmp_path_factory.mktemp("control")
    unit = folder / "control.c"
    unit.write_text(source() + WRAPPER)
    subprocess.run(
        [
            "gcc",
            "-O3",
            "-fPIC",
            "-shared",
            "-ffp-contract=off",
            "-fno-math-errno",
            str(unit),
            "-o",
            str(folder / "control.so"),
            "-lm",
        ],
        check=True,
        timeout=300,
    )
    lib = ctypes.CDLL(str(folder / "control.so"))
    lib.control_step.restype = ctypes.c_double
    lib.control_step.argtypes = [ctypes.POINTER(ctypes.c_double)] * 2 + [ctypes.c_double] * 10

    def step(c, count=1000.0):
        tr = c["interval_s"] * 1e3
        rate, avg = ctypes.c_double(c["rate_bps"] / 8e3), ctypes.c_double(c["avg_s"] * 1e3)
        nxt = lib.control_step(
            ctypes.byref(rate),
            ctypes.byref(avg),
            c["capacity_bps"] / 8e3,
            c["alpha"],
            c["beta"],
            c["eta"],
            float(MTU_BYTES),
            c["input_bps"] / 8e3 * tr,
            c["sample_s"] * 1e3 * count,
            count,
            c["queue_bits"] / 8.0,
            tr,
        )
        return rate.value * 8e3, avg.value / 1e3, nxt / 1e3

    return step


@pytest.fixture(scope="module")
def sympy_step():
    """One sampled update of the model's R and D from its own right-hand sides and saturation."""
    state = {str(s): s for s in MODEL.states}
    R, Y, q, D = (state[k] for k in ("R", "Y", "q", "D"))
    names = {s.name: s for s in MODEL.parameters}
    C, d0, T, alpha, beta, eta, mtu = (names[k] for k in ("C", "d_0", "T", "alpha", "beta", "eta", "MTU"))
    r, ycount, qnow, qlate, dnow = sp.symbols("r ycount qnow qlate dnow")
    # the measured inputs enter the model through its delayed states: Y(t) - Y(t - T) is the
    # arrivals over the last interval minus eta C T (line 1), q(t - d0) the queue the RTT samples saw (line 2)
    at = {R(t): r, Y(t): ycount, Y(t - T): 0, q(t): qnow, q(t - d0): qlate, D(t): dnow}
    rhs = dict(zip(MODEL.states, MODEL.rhs))
    new_r = r + T * rhs[R].xreplace(at)
    new_d = dnow + T * rhs[D].xreplace(at)
    sat = MODEL.saturations[0]
    lower, upper = (e.xreplace({D(t): new_d}) for e in (sat.lower, sat.upper))
    args = (r, ycount, qnow, qlate, dnow, C, d0, T, alpha, beta, eta, mtu)
    f = sp.lambdify(args, (new_r, new_d, lower, upper), modules="math")

    def step(c):
        d0_value = 0.001  # any propagation RTT below the samples: q(t - d0) carries the rest
        ycount_value = (c["input_bps"] - c["eta"] * c["capacity_bps"]) * c["interval_s"]
        qlate_value = (c["sample_s"] - d0_value) * c["capacity_bps"]
        rate, avg, lo, hi = f(
            c["rate_bps"],
            ycount_value,
            c["queue_bits"],
            qlate_value,
            c["avg_s"],
            c["capacity_bps"],
            d0_value,
            c["interval_s"],
            c["alpha"],
            c["beta"],
            c["eta"],
            8.0 * MTU_BYTES,
        )
        # the router's next interval is line 13's min(avg RTT, 10 ms); the model takes T as given
        return min(max(rate, lo), hi), avg, min(avg, MAX_RATE_ESTIMATION_INTERVAL_MS / 1e3)

    return step


def test_the_three_control_laws_agree_to_rounding(c_step, sympy_step):
    branches = {"sample_above": 0, "sample_below": 0, "min_clamp": 0, "target_clamp": 0}
    for c in cases():
        py = python_step(c)
        assert c_step(c) == pytest.approx(py, rel=1e-12, abs=0), c
        assert sympy_step(c) == pytest.approx(py, rel=1e-11, abs=0), c
        branches["sample_above" if c["sample_s"] >= c["avg_s"] else "sample_below"] += 1
        min_rate = 0.01 * 8.0 * MTU_BYTES / py[1]
        branches["min_clamp"] += py[0] == pytest.approx(min_rate, rel=1e-15)
        branches["target_clamp"] += py[0] == pytest.approx(c["eta"] * c["capacity_bps"], rel=1e-15)
    assert min(branches.values()) >= 10, branches  # every branch of lines 3-12 was exercised


def test_an_interval_without_rtt_samples_keeps_the_average(c_step):
    """Line 2 needs a sample: with none, Python and C both keep avg_rtt and still update the rate
    (the fluid model always has one)."""
    for c in cases(50, seed=3):
        py = python_step(c, count=0)
        assert py[1] == c["avg_s"]
        assert c_step(c, count=0.0) == pytest.approx(py, rel=1e-12, abs=0)
