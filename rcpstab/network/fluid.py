"""Fluid model of RCP on a multi-link network, with App. F's router control path on every link.

Each flow sends at the smallest rate stamped along its path (App. F lines 22-23), read
when the stamp was made: router k's rate reaches link l of a flow's path after
rtt - offset_k + offset_l (back to the sender, then forward to l). Each link's queue is
the fluid dq/dt = y - C clamped at 0 (thesis eq. 5.4). Every link runs App. F's control
path, :class:`~rcpstab.packet.routers.rcp.control.RcpController`, on its own timer
Tr = min(avg_rtt, 10 ms) (line 13), fed with what its data path would have counted over
the interval: input bytes (line 18) and the RTTs carried by the packets (lines 19-21),
every packet carrying its flow's current RTT (propagation plus queueing delays). This is
the estimator of thesis eqs. 5.16-5.17: d_T is the packet average over the interval and
the smoothed d ages slowly when d_T is below it. Every flow's RTT is counted: Fig. 5.7's
long flow (20.002 s) is just past App. F's MAX_ALLOWABLE_RTT of 20 s, and dropping it
would leave L1 blind to the only flow its rate controls, which is not what Sec. 5.3 studies.
Timers fire on the first step at or after Tr, and the interval actually elapsed is used.

Time advances in fixed steps of ``dt``; within a step every rate is constant, so the
queue's Euler step is exact. The delay line is the phase plane's
:class:`~rcpstab.phaseplane.history.History` (held values, read by step index).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from ..errors import InputError
from ..packet.routers.rcp.control import RcpController
from ..phaseplane.history import History
from .kernel import step_compiled
from .topology import Network

BITS_PER_BYTE = 8
MS = 1e3  # App. F works in ms and bytes/ms: 1 bit/s = 1/8000 bytes/ms
DEFAULT_DT = 1e-3  # s: Fig. 5.7's shortest link delay, so every delay is a whole number of steps
RECORD_DT = 0.05  # s between recorded samples
INITIAL_LOAD = 0.1  # R/C at t = 0 on every link: App. E's middle initial condition
MTU_BYTES = 1500  # App. F's MTU (RcpController's default)


@dataclass
class NetworkRun:
    """Time series of a batch of fluid runs (one per (alpha, beta)).

    Attributes
    ----------
    t : ndarray, shape (n,)
        Sample times, s.
    rate : ndarray, shape (n, links, B)
        Each router's rate R, bit/s.
    avg_rtt : ndarray, shape (n, links, B)
        Smoothed RTT estimate d (eq. 5.17), s.
    rtt_sample : ndarray, shape (n, links, B)
        Last interval average d_T (eq. 5.16), s.
    queue : ndarray, shape (n, links, B)
        Queue, bits.
    link_names : tuple of str
    alpha, beta : ndarray, shape (B,)
    target_rate : ndarray, shape (links,)
        The max-min rate each router should settle at, bit/s.
    target_rtt : ndarray, shape (links,)
        The packet-average RTT each router should then see, s.
    """

    t: np.ndarray
    rate: np.ndarray
    avg_rtt: np.ndarray
    rtt_sample: np.ndarray
    queue: np.ndarray
    link_names: tuple[str, ...]
    alpha: np.ndarray
    beta: np.ndarray
    target_rate: np.ndarray
    target_rtt: np.ndarray

    def link(self, name: str) -> int:
        return self.link_names.index(name)


StepResult = tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]
"""The stepping loops' records: times (s), rates (bit/s), RTT estimates and samples (s), queues (bits)."""


class _Wiring:
    """Index arrays that turn the network into a few vectorized operations per step.

    An *arrival* is (group, link on its path): the flow's traffic arriving at that link.
    A *read* is (arrival, link on the same path): the delayed router rate whose minimum
    over the path gives the arrival rate.
    """

    def __init__(self, net: Network, dt: float):
        arrivals: list[Any] = []
        reads_link: list[int] = []
        reads_delay: list[int] = []
        starts: list[int] = []
        for g, group in enumerate(net.groups):
            offsets = net.offsets(group)
            for name, offset in zip(group.path, offsets):
                arrivals.append((g, net.link_index(name)))
                starts.append(len(reads_link))
                for other, other_offset in zip(group.path, offsets):
                    reads_link.append(net.link_index(other))
                    reads_delay.append(group.rtt - other_offset + offset)
        self.group = np.array([a[0] for a in arrivals])
        self.arrival_link = np.array([a[1] for a in arrivals])
        self.starts = np.array(starts)
        self.read_link = np.array(reads_link)
        steps = np.array(reads_delay) / dt
        if np.any(np.abs(steps - np.round(steps)) > 1e-6) or np.any(np.round(steps) < 1):
            raise InputError(f"dt = {dt} s: every delay of the network must be a whole number (>= 1) of steps")
        self.read_steps = np.round(steps).astype(int)
        counts = np.array([g.count for g in net.groups], dtype=float)
        # y_l = sum over arrivals at l of count * rate: one matrix product per step.
        self.to_links = np.zeros((len(net.links), len(arrivals)))
        self.to_links[self.arrival_link, np.arange(len(arrivals))] = counts[self.group]
        self.path = np.array([[link.name in g.path for link in net.links] for g in net.groups], dtype=float)
        self.prop_rtt = np.array([g.rtt for g in net.groups])


ENGINES = ("c", "python")

# Cost of the compiled loop (benchmarks/bench_network.py --cost fits them on some runs and checks
# them on others; docs/performance.md has the figures): CPU per step and per delayed read (a flow's path
# link times the links it reads, times the batch), bytes per float of the delay line and per recorded
# sample of a link (four series and the copies the run's result makes of them).
SECONDS_PER_STEP = 0.078e-6
SECONDS_PER_READ = 0.0085e-6
BYTES_PER_RECORD_FLOAT = 42
BYTES_PER_HISTORY_FLOAT = 8.3


def check_whole_steps(net: Network, dt: float = DEFAULT_DT) -> None:
    """Refuse (:class:`~rcpstab.errors.InputError`) a network whose delays are not whole steps of ``dt`` (s),
    before a co-simulation spends its packet run on it."""
    _Wiring(net, dt)


def fluid_run_work(
    net: Network, t_end: float, dt: float = DEFAULT_DT, record_dt: float = RECORD_DT, batch: int = 1
) -> dict[str, float]:
    """What :func:`simulate_network` does: ``steps``, ``reads`` (delayed rates read, all steps), ``history``
    and ``records`` (floats of the delay line and of each recorded series).

    Parameters
    ----------
    net : Network
    t_end, dt, record_dt : float
        As :func:`simulate_network` takes them, s.
    batch : int
        Number of (alpha, beta) pairs.

    Returns
    -------
    dict of str to float

    Examples
    --------
    Fig. 5.7's two groups of two-link paths read 2 x 2 + 2 x 2 delayed rates a step; its delay line
    spans the long flow's round trip (20.002 s) in 1 ms steps.

    >>> from rcpstab.network import fig57
    >>> w = fluid_run_work(fig57(), 10.0)
    >>> w["steps"], w["reads"], w["history"], w["records"]
    (10000.0, 80000.0, 60018.0, 600.0)
    """
    steps = float(round(t_end / dt))
    per_step = sum(len(g.path) ** 2 for g in net.groups)
    length = max(g.rtt for g in net.groups) / dt + 4  # the longest read (rtt - offset + offset' <= rtt + one link) and 2
    return {
        "steps": steps,
        "reads": steps * per_step * batch,
        "history": float(round(length)) * len(net.links) * batch,
        "records": float(math.ceil(steps / max(1, round(record_dt / dt)))) * len(net.links) * batch,
    }


def fluid_run_cost(
    net: Network, t_end: float, dt: float = DEFAULT_DT, record_dt: float = RECORD_DT, batch: int = 1
) -> tuple[float, float]:
    """CPU seconds and peak bytes of :func:`simulate_network` on the compiled loop (the module's constants).

    Parameters
    ----------
    net : Network
    t_end, dt, record_dt : float
        As :func:`simulate_network` takes them, s.
    batch : int
        Number of (alpha, beta) pairs.

    Returns
    -------
    cpu_s, memory_bytes : float
        CPU time (s) and memory above the interpreter's (bytes).

    Examples
    --------
    >>> from rcpstab.network import fig57
    >>> cpu, memory = fluid_run_cost(fig57(), 400.0)
    >>> cpu < 1.0, memory < 1e8
    (True, True)
    """
    w = fluid_run_work(net, t_end, dt, record_dt, batch)
    cpu = w["steps"] * SECONDS_PER_STEP + w["reads"] * SECONDS_PER_READ
    return cpu, w["history"] * BYTES_PER_HISTORY_FLOAT + w["records"] * BYTES_PER_RECORD_FLOAT


def simulate_network(
    net: Network,
    alpha: ArrayLike,
    beta: ArrayLike,
    t_end: float,
    dt: float = DEFAULT_DT,
    eta: float = 1.0,
    initial_rate: ArrayLike | None = None,
    record_dt: float = RECORD_DT,
    engine: str = "c",
) -> NetworkRun:
    """Integrate RCP's fluid model on ``net`` for a batch of (alpha, beta).

    Parameters
    ----------
    net : Network
    alpha, beta : float or array_like, shape (B,)
        Gains of App. F line 8.
    t_end : float
        Duration, s.
    dt : float
        Step, s; every path delay must be a whole number of steps.
    eta : float
        Target utilization.
    initial_rate : array_like, shape (links,), optional
        R at t = 0 (and before), bit/s; default :data:`INITIAL_LOAD` * eta*C.
        The initial avg_rtt is the flows' mean propagation RTT weighted by their initial rates.
    record_dt : float
        Interval between recorded samples, s.
    engine : {"c", "python"}
        The compiled loop (:mod:`rcpstab.network.kernel`) or its Python reference
        (:func:`step_python`), which calls App. F's control path object itself.

    Returns
    -------
    NetworkRun
    """
    if not (math.isfinite(t_end) and t_end > 0):
        raise InputError(f"t_end = {t_end} s: must be > 0")
    if not (math.isfinite(dt) and dt > 0):
        raise InputError(f"dt = {dt} s: must be > 0")
    if engine not in ENGINES:
        raise InputError(f"engine {engine!r}: choose from {', '.join(ENGINES)}")
    alpha, beta = np.broadcast_arrays(np.atleast_1d(np.asarray(alpha, float)), np.atleast_1d(np.asarray(beta, float)))
    wiring = _Wiring(net, dt)
    capacity = np.array([link.capacity for link in net.links])
    rate0 = INITIAL_LOAD * eta * capacity if initial_rate is None else np.asarray(initial_rate, float)
    rtt0 = net.packet_average_rtt(net.path_min(rate0))
    # checks the gains and rates the way the control path object does, before any work
    for a, b in zip(alpha, beta):
        RcpController(
            link_rate=float(capacity.min()) / BITS_PER_BYTE / MS,
            alpha=float(a),
            beta=float(b),
            eta=eta,
            rate=float(rate0.min()) / BITS_PER_BYTE / MS,
            avg_rtt=float(rtt0.min()) * MS,
        )
    step: Callable[..., StepResult] = step_python if engine == "python" else step_compiled
    t, rates, avgs, samples, queues = step(
        wiring,
        capacity,
        alpha,
        beta,
        eta,
        MTU_BYTES,
        dt,
        int(round(t_end / dt)),
        max(1, int(round(record_dt / dt))),
        rate0,
        rtt0,
        rtt0,
        int(wiring.read_steps.max()) + 2,
    )
    return NetworkRun(
        t=t,
        rate=rates,
        avg_rtt=avgs,
        rtt_sample=samples,
        queue=queues,
        link_names=tuple(link.name for link in net.links),
        alpha=alpha,
        beta=beta,
        target_rate=net.max_min_rates(eta)[1],
        target_rtt=net.equilibrium_rtt(eta),
    )


def step_python(
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
    """The stepping loop in Python with App. F's control path objects: the reference for the C kernel.

    Parameters
    ----------
    wiring : _Wiring
    capacity : ndarray, shape (links,)
        bit/s.
    alpha, beta : ndarray, shape (B,)
    eta, mtu : float
        Target utilization; MTU in bytes (MIN_RATE = 0.01 * MTU / avg_rtt).
    dt : float
        Step, s.
    n_steps, every : int
        Steps to take; record after every ``every``-th.
    rate0, avg0, sample0 : ndarray, shape (links,)
        Initial rate (bit/s), smoothed RTT estimate and last interval average (s).
    length : int
        Delay-line length in steps.

    Returns
    -------
    t : ndarray, shape (n,)
    rate, avg_rtt, rtt_sample, queue : ndarray, shape (n, links, B)
    """
    n_links, size = capacity.size, alpha.size
    capacity = capacity[:, None]
    controllers = [
        [
            RcpController(
                link_rate=capacity[l, 0] / BITS_PER_BYTE / MS,
                alpha=float(alpha[b]),
                beta=float(beta[b]),
                eta=eta,
                rate=rate0[l] / BITS_PER_BYTE / MS,
                avg_rtt=avg0[l] * MS,
                mtu=mtu,
            )
            for b in range(size)
        ]
        for l in range(n_links)
    ]
    history = History([np.full(size, r) for r in rate0], length)
    rate = np.repeat(rate0[:, None], size, axis=1)
    queue = np.zeros((n_links, size))
    counted = np.zeros((2, n_links, size))  # input bits, bits * rtt (bit s), since the last update
    elapsed = np.zeros((n_links, size))
    interval = np.array([[c.interval / MS for c in row] for row in controllers])
    sample = np.repeat(np.asarray(sample0, float)[:, None], size, axis=1)
    records = []
    for k in range(n_steps):
        history.store(k, rate, {})
        delayed = history.values[wiring.read_link, (k - wiring.read_steps) % history.length]
        arriving = np.minimum.reduceat(delayed, wiring.starts, axis=0)  # (arrivals, B)
        rtt = wiring.prop_rtt[:, None] + wiring.path @ (queue / capacity)  # (groups, B)
        y = wiring.to_links @ arriving
        counted[0] += y * dt
        counted[1] += (wiring.to_links @ (arriving * rtt[wiring.group])) * dt
        queue = np.maximum(queue + (y - capacity) * dt, 0.0)
        elapsed += dt
        for l, b in zip(*np.nonzero(elapsed >= interval - 1e-9 * dt)):
            c = controllers[l][b]
            bits, rtt_bits = counted[0, l, b], counted[1, l, b]
            if bits > 0:
                sample[l, b] = rtt_bits / bits
            # Packets have one size, so the byte-weighted RTT is eq. 5.16's packet average.
            interval[l, b] = (
                c.update(
                    bits / BITS_PER_BYTE,
                    rtt_bits * MS / BITS_PER_BYTE,
                    bits / BITS_PER_BYTE,
                    queue[l, b] / BITS_PER_BYTE,
                    elapsed[l, b] * MS,
                )
                / MS
            )
            rate[l, b] = c.rate * BITS_PER_BYTE * MS
            counted[:, l, b] = 0.0
            elapsed[l, b] = 0.0
        if k % every == 0:
            avg = np.array([[c.avg_rtt / MS for c in row] for row in controllers])
            records.append(((k + 1) * dt, rate.copy(), avg, sample.copy(), queue.copy()))
    t, rates, avgs, samples, queues = (np.array(v) for v in zip(*records))
    return t, rates, avgs, samples, queues
