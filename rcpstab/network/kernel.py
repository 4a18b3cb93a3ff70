"""The multi-link fluid network's stepping loop in C: the twin of :func:`rcpstab.network.fluid.step_python`.

The loop of :func:`~rcpstab.network.fluid.simulate_network` (delayed path-minimum rates,
per-link queues clamped at 0, App. F's control path on its own timer per link) runs here for
the whole batch, step after step, without returning to Python. It is built and cached like
the phase plane's kernels (:func:`rcpstab.runtime.build.load_library`). The control-path
update (App. F lines 1-13, bytes/ms and ms) is written out in C once more because it runs per
link per interval inside the loop; the Python loop, which calls
:class:`~rcpstab.packet.routers.rcp.control.RcpController` itself, is kept as the reference and the
tests hold the two to rounding.
"""

from __future__ import annotations

import ctypes
from collections.abc import Callable
from importlib import resources
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import ArrayLike

from ..packet.routers.rcp.control import MAX_RATE_ESTIMATION_INTERVAL_MS, MIN_RATE_MTU_FRACTION
from ..runtime.build import load_library

if TYPE_CHECKING:
    from .fluid import StepResult, _Wiring

__all__ = ["TEMPLATE", "source", "step_compiled"]

TEMPLATE = "kernel.c"  # package data beside this module: the loop, without the constants below


def source() -> str:
    """The complete C translation unit: App. F's constants (from the control path's module, so they
    are written once) as ``#define`` lines, then the template :data:`TEMPLATE`."""
    defines = (
        f"#define MIN_RATE_FRACTION {MIN_RATE_MTU_FRACTION!r}\n#define MAX_INTERVAL_MS {MAX_RATE_ESTIMATION_INTERVAL_MS!r}\n"
    )
    return defines + resources.files(__package__).joinpath(TEMPLATE).read_text(encoding="utf-8")


def _library() -> ctypes.CDLL:
    lib = load_library("network", source())
    lib.network_run.restype = ctypes.c_int
    return lib


def _ptr(array: np.ndarray, ctype: Any) -> Any:
    return array.ctypes.data_as(ctypes.POINTER(ctype))


def step_compiled(
    wiring: _Wiring,
    capacity: np.ndarray,
    alpha: np.ndarray,
    beta: np.ndarray,
    eta: float,
    mtu: int,
    dt: float,
    n_steps: int,
    every: int,
    rate0: np.ndarray,
    avg0: np.ndarray,
    sample0: np.ndarray,
    length: int,
) -> StepResult:
    """Run the loop in C; same arguments and results as :func:`rcpstab.network.fluid.step_python`."""
    n_links, size = capacity.size, alpha.size
    n_arrivals, n_groups = wiring.group.size, wiring.prop_rtt.size
    i32: Callable[[ArrayLike], np.ndarray] = lambda v: np.ascontiguousarray(v, dtype=np.int32)  # noqa: E731
    f64: Callable[[ArrayLike], np.ndarray] = lambda v: np.ascontiguousarray(v, dtype=float)  # noqa: E731
    read_start = i32(np.append(wiring.starts, wiring.read_link.size))
    weight = f64(wiring.to_links[wiring.arrival_link, np.arange(n_arrivals)])
    hist = f64(np.repeat(np.repeat(rate0[:, None, None], length, axis=1), size, axis=2))
    rate = f64(np.repeat(rate0[:, None], size, axis=1))
    queue = np.zeros((n_links, size))
    ctl_rate = f64(rate / 8.0 / 1e3)
    avg = f64(np.repeat(avg0[:, None] * 1e3, size, axis=1))
    interval = f64(np.minimum(avg, MAX_RATE_ESTIMATION_INTERVAL_MS) / 1e3)
    sample = f64(np.repeat(sample0[:, None], size, axis=1))
    work = np.zeros((n_arrivals + n_groups + 5 * n_links) * size)
    records = (n_steps + every - 1) // every
    outs = [np.zeros((records, n_links, size)) for _ in range(4)]
    d, i = ctypes.c_double, ctypes.c_int
    count = _library().network_run(
        i(n_links),
        i(size),
        i(n_arrivals),
        i(n_groups),
        i(length),
        ctypes.c_long(n_steps),
        i(every),
        d(dt),
        d(eta),
        d(mtu),
        _ptr(i32(wiring.arrival_link), ctypes.c_int),
        _ptr(i32(wiring.group), ctypes.c_int),
        _ptr(weight, d),
        _ptr(read_start, ctypes.c_int),
        _ptr(i32(wiring.read_link), ctypes.c_int),
        _ptr(i32(wiring.read_steps), ctypes.c_int),
        _ptr(f64(wiring.path), d),
        _ptr(f64(wiring.prop_rtt), d),
        _ptr(f64(capacity), d),
        _ptr(f64(alpha), d),
        _ptr(f64(beta), d),
        _ptr(hist, d),
        _ptr(rate, d),
        _ptr(queue, d),
        _ptr(ctl_rate, d),
        _ptr(avg, d),
        _ptr(interval, d),
        _ptr(sample, d),
        _ptr(work, d),
        *(_ptr(o, d) for o in outs),
    )
    assert count == records, (count, records)
    t = (np.arange(records) * every + 1) * dt
    rates, avgs, samples, queues = outs
    return t, rates, avgs, samples, queues
