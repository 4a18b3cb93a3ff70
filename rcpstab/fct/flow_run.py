"""Run flow-level traffic through one RCP bottleneck: the C flow simulator (or its Python
twin) between timer expiries, the App. F control path at each expiry: in Python, or on the C
backend in C with the event loop (``FlowSimulator.rcp_intervals``, ``packet/csrc/control.h``'s
expiry, the same bits), so that Python runs once per chunk of arrivals, not once per interval.

The set-up is thesis Ch. 4's single bottleneck: capacity C, round-trip propagation delay
RTPD split evenly between the data and the ACK direction, a drop-tail buffer of
``buffer_bdp`` bandwidth-delay products, flows arriving with sizes from a
:class:`~rcpstab.packet.hosts.flow_traffic.SizeDistribution` at the rate that makes the drawn
workload offer exactly rho (:func:`draw_workload`). Arrivals are drawn up front (16 bytes a
flow) and handed to the simulator in chunks just ahead of its clock, and
finished flows are drained from it at every expiry, so the simulator holds only the
flows in progress and Python holds 40 bytes per finished flow.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field

import numpy as np

from ..errors import InputError
from ..packet.hosts.flow_traffic import ArrivalProcess, SizeDistribution
from ..packet.protocols.base import MAX_NATIVE_SPAN_NS
from ..packet.routers.rcp import control as rcp_control
from ..packet.routers.rcp.control import RcpController, rate_register
from ..packet.simulator.topology import TCP_HEADER_BYTES
from ..runtime.validation import control_interval_ns
from .flows_py import RECORD_FIELDS, PyFlowSimulator

__all__ = [
    "FlowRun",
    "run_flows",
    "check_flow_run",
    "flow_run_cpu_seconds",
    "flow_run_bytes",
    "draw_workload",
    "DATA_PACKET_BYTES",
    "CTRL_PACKET_BYTES",
]

NS_PER_S = 1_000_000_000
NS_PER_MS = 1_000_000
DATA_PACKET_BYTES = 1000  # thesis Ch. 4: "All data packets are 1000 bytes
CTRL_PACKET_BYTES = 40  # and the control packets (SYN, SYN-ACK, FIN) are 40 bytes"
RWND_PACKETS = 1 << 20  # the receiver window never binds; the rate does
CHUNK_FLOWS = 4096  # arrivals drawn per chunk
WARMUP_FRACTION = 0.1  # first arrivals left out of the time averages (empty start)
LITTLE_BATCHES = 20  # batch means for the standard error of the mean number of flows
RECORD_DTYPE = np.dtype([(name, np.int64) for name in RECORD_FIELDS])
SAMPLE_FIELDS = (
    13  # per control interval: its length ns, flows, tx bytes, drops, offered, queue, R/C, input bytes, avg_rtt, census (4)
)


@dataclass
class FlowRun:
    """One flow-level run.

    Attributes
    ----------
    records : ndarray
        One row per finished flow, in completion order, fields ``id`` (arrival order),
        ``size_pkts``, ``start_ns`` (SYN sent), ``fct_ns`` (SYN sent to last data packet
        received), ``drops`` (packets of the flow dropped).
    n_flows : int
        Flows that arrived; ``len(records)`` finished.
    arrival_rate_per_s : float
        The run's arrival rate lambda, flows over the time they arrived in, flows/s: set from
        the drawn sizes so that they offer ``load`` (:func:`draw_workload`).
    window_s : (float, float)
        Measurement window of the time averages: from the arrival of flow
        ``WARMUP_FRACTION * n_flows`` to the last arrival, seconds.
    mean_active, mean_active_stderr : float
        Time-average number of flows in progress (SYN sent, last packet not received) over
        the window, sampled at every timer expiry, and its batch-means standard error.
    window_arrivals : int
        Flows that arrived in the window.
    utilization : float
        Bytes serialised on the bottleneck over C times the window.
    loss_probability : float
        Packets dropped at the bottleneck over packets offered to it, in the window.
    mean_queue_bytes, mean_R_over_C : float
        Time averages over the window of the bottleneck queue and of the router's rate.
    measured_load : float
        Data bytes of the flows that arrived in the window over C times the window: the
        offered load the run actually drew, ``load`` up to the rounding of arrival times to
        nanoseconds (:func:`draw_workload` sets the arrival rate from the drawn sizes).
        ``utilization`` is the load carried by the link in the same window.
    trace : ndarray or None
        With ``keep_trace``: per control interval its end ``t_s``, flows in progress
        ``n_active``, router rate ``R_over_C``, ``queue_bytes``, the ``input_bps`` the
        router measured over it and its RTT average ``avg_rtt_ms`` after the update; and at the
        interval's end the senders' census: flows in the SYN phase ``n_syn``, established with
        data left to send ``n_sending``, of those with a full window ``n_window_full``, and the
        sum of the rates stamped on ``n_sending``'s flows, ``stamped_bps`` (bit/s).
    counters : dict
        Final simulator counters (sent, delivered, dropped, in_flight, ...).
    wall_time_s : float
    """

    records: np.ndarray
    n_flows: int
    capacity_bps: float
    rtt_s: float
    load: float
    sizes: SizeDistribution
    arrivals: ArrivalProcess
    packet_bytes: int
    buffer_bytes: int
    alpha: float
    beta: float
    seed: int
    arrival_rate_per_s: float
    window_s: tuple[float, float]
    mean_active: float
    mean_active_stderr: float
    window_arrivals: int
    utilization: float
    loss_probability: float
    mean_queue_bytes: float
    mean_R_over_C: float
    measured_load: float = float("nan")
    counters: dict = field(default_factory=dict)
    wall_time_s: float = 0.0
    backend: str = "c"
    trace: np.ndarray | None = field(default=None, repr=False)

    @property
    def fct_s(self) -> np.ndarray:
        """Flow completion times of the finished flows, seconds."""
        return self.records["fct_ns"] / NS_PER_S

    @property
    def flows_per_wall_s(self) -> float:
        """Finished flows per wall-clock second."""
        return len(self.records) / self.wall_time_s if self.wall_time_s > 0 else float("nan")

    @property
    def conservation(self) -> dict[str, int]:
        """The packet counts sent, delivered, dropped and in flight; sent = delivered + dropped + in flight."""
        return {k: self.counters[k] for k in ("sent", "delivered", "dropped", "in_flight")}

    def __repr__(self) -> str:
        return (
            f"FlowRun(C={self.capacity_bps:g} b/s, rtt={self.rtt_s:g} s, load={self.load:g}, sizes={self.sizes}, "
            f"flows={len(self.records)}/{self.n_flows}, utilization={self.utilization:.3f}, "
            f"loss={self.loss_probability:.2e})"
        )


# Cost model of one run, per control path: CPU seconds per rate-estimation interval and per event, fitted
# by benchmarks/bench_packet.py --fct-cost on one set of runs and checked on another (docs/performance.md
# gives the figures and the load they were measured under): the largest of three runs' proposals (the fit
# scaled until no calibration run costs more than its estimate), so that an estimate is never far below a run: "c" is App. F in C with the event loop (FlowSimulator.rcp_intervals),
# "python" a Python step per interval (the Python backend, or a fixed rate on the C backend). The
# per-interval figure of 300 us assumed a Python step per interval on every backend and refused C runs
# that would finish ~100 times sooner. Each interval keeps a sample of about 320 bytes; data and control
# packets come to about 2.5 events each (EVENTS_PER_PACKET: a data packet and its ACK).
SECONDS_PER_INTERVAL = {"c": 0.36e-6, "python": 22e-6}
SECONDS_PER_EVENT = {"c": 0.15e-6, "python": 5.9e-6}
BYTES_PER_INTERVAL = 320
EVENTS_PER_PACKET = 5
MIN_WINDOW_INTERVALS = 10  # expected measurement window, in rate-estimation intervals


def check_flow_run(
    alpha,
    beta,
    capacity_bps,
    rtt_s,
    load,
    n_flows,
    buffer_bdp,
    eta,
    packet_bytes,
    backend,
    seed,
    sizes: SizeDistribution | None = None,
    replications: int = 1,
    window: bool = True,
    python_control: bool = False,
) -> None:
    """Refuse, in one line naming the value given, what the flow simulator cannot run or measure.

    Every value is checked against the one domain table (:data:`~rcpstab.runtime.validation.DOMAINS`),
    then what they lead to: the buffer in bytes and the simulated time against the simulator's
    integer table, the measurement window against the control interval (shorter and the time
    averages do not exist), and the estimated CPU time and memory against the limits.

    Parameters
    ----------
    alpha, beta, capacity_bps, rtt_s, load, n_flows, buffer_bdp, eta, packet_bytes, backend, seed
        As :func:`run_flows` takes them (``n_flows``: all replications together).
    sizes : SizeDistribution, optional
        Flow sizes, for the duration and cost estimates.
    replications : int
        Runs the flows are split over (each has its own warm-up and window).
    window : bool
        Whether the time averages are asked for (a study): then each run's flows must arrive over
        at least ``MIN_WINDOW_INTERVALS`` control intervals. A single run may be shorter (one flow's
        FCT is exact); its time averages are then NaN, "does not exist".
    python_control : bool
        Whether the C backend runs a Python step per interval (a fixed rate), for the cost estimate.

    Raises
    ------
    InputError
    """
    from ..runtime.validation import SIMULATOR_INTEGERS, check_integer, check_run_cost, check_value

    if backend not in ("c", "python"):
        raise InputError(f"backend={backend!r} is not c or python")
    check_integer("seed", int(seed) if isinstance(seed, np.integer) else seed, field="seed")
    check_value("alpha", alpha, field="alpha")
    if not (isinstance(beta, (int, float)) and beta == 0):
        check_value("beta", beta, field="beta")  # 0 is allowed here: the rate term alone
    check_value("C", capacity_bps, field="C")
    check_value("rtt", rtt_s, field="rtt")
    check_value("load", load, field="load")
    check_value("buffer_bdp", buffer_bdp, field="buffer_bdp")
    if not (isinstance(eta, (int, float)) and 0 < eta <= 1):
        raise InputError(f"eta={eta!r}: must be in (0, 1]")
    check_integer(
        "packet_bytes", int(packet_bytes) if isinstance(packet_bytes, np.integer) else packet_bytes, field="packet_bytes"
    )
    n_flows = check_integer("flows", int(n_flows) if isinstance(n_flows, np.integer) else n_flows, field="flows")
    replications = check_integer("replications", replications, field="replications")
    if n_flows < replications:
        raise InputError(f"flows={n_flows} must be at least replications={replications}")
    where = f"C = {capacity_bps:g} bit/s, RTPD = {rtt_s:g} s"
    buffer_bytes = buffer_bdp * capacity_bps * rtt_s / 8
    if buffer_bytes > SIMULATOR_INTEGERS["buffer_bytes"][1]:
        raise InputError(
            f"buffer_bdp={buffer_bdp:g} at {where}: a buffer of {buffer_bytes:.3g} bytes, more than "
            f"the flow simulator's {SIMULATOR_INTEGERS['buffer_bytes'][1]:.3g}"
        )
    if sizes is None:
        return
    per_run = n_flows / replications
    gap_s = sizes.mean_packets * packet_bytes * 8 / (load * capacity_bps)  # 1/lambda
    span_s = per_run * gap_s
    duration_s = span_s + 100 * rtt_s
    interval_s = min(rtt_s, 0.01)  # App. F line 13: Tr = min(avg_rtt, 10 ms)
    flows_text = f"flows={n_flows}" + (f" over {replications} replications" if replications > 1 else "")
    if duration_s * NS_PER_S > SIMULATOR_INTEGERS["t_ns"][1]:
        raise InputError(
            f"load={load:g} and {flows_text} at {where}: about {duration_s:.3g} s of simulated time, "
            f"more than the flow simulator's {SIMULATOR_INTEGERS['t_ns'][1] / NS_PER_S:.3g} s"
        )
    window_s = (1 - WARMUP_FRACTION) * span_s
    if window and window_s < MIN_WINDOW_INTERVALS * interval_s:
        raise InputError(
            f"{flows_text} at load={load:g}, {where}: the flows arrive within about {window_s:.3g} s, "
            f"less than {MIN_WINDOW_INTERVALS} rate-estimation intervals ({interval_s:g} s each), too "
            "short for the time averages (utilization, loss, mean flows); give more flows per run"
        )
    cpu_s = flow_run_cpu_seconds(capacity_bps, rtt_s, load, n_flows, packet_bytes, sizes, replications, backend, python_control)
    check_run_cost(
        f"fct with {flows_text}, load={load:g}, mean size {sizes.mean_packets:.3g} packets at {where}",
        cpu_s,
        flow_run_bytes(capacity_bps, rtt_s, load, n_flows, packet_bytes, sizes, replications),
    )


def flow_run_bytes(
    capacity_bps: float,
    rtt_s: float,
    load: float,
    n_flows: int,
    packet_bytes: int,
    sizes: SizeDistribution,
    replications: int = 1,
) -> float:
    """The estimated peak memory of one of the ``replications`` runs of ``n_flows`` flows: the refusal estimate
    of :func:`check_flow_run`.

    Parameters
    ----------
    capacity_bps, rtt_s, load, n_flows, packet_bytes, sizes, replications
        As :func:`flow_run_cpu_seconds` takes them (bit/s, s, -, flows, bytes, sizes, runs).

    Returns
    -------
    float
        Bytes: a sample per rate-estimation interval (:data:`BYTES_PER_INTERVAL`) and three copies of
        each flow's record.

    Examples
    --------
    >>> from rcpstab.packet.hosts.flow_traffic import parse_sizes
    >>> flow_run_bytes(1e6, 0.002, 0.02, 4000, 1000, parse_sizes("fixed:size=4")) > 1e9   # 3.2 million intervals
    True
    """
    per_run = n_flows / replications
    duration_s = per_run * sizes.mean_packets * packet_bytes * 8 / (load * capacity_bps) + 100 * rtt_s
    return float(duration_s / min(rtt_s, 0.01) * BYTES_PER_INTERVAL + per_run * RECORD_DTYPE.itemsize * 3)


def flow_run_cpu_seconds(
    capacity_bps: float,
    rtt_s: float,
    load: float,
    n_flows: int,
    packet_bytes: int,
    sizes: SizeDistribution,
    replications: int = 1,
    backend: str = "c",
    python_control: bool = False,
) -> float:
    """The estimated CPU time of ``n_flows`` flows over ``replications`` runs: the refusal estimate of :func:`check_flow_run`.

    Parameters
    ----------
    capacity_bps : float
        Bottleneck capacity, bit/s.
    rtt_s : float
        Round-trip propagation delay, s.
    load : float
        Offered load.
    n_flows : int
        Flows over all replications.
    packet_bytes : int
        Data packet size, bytes.
    sizes : SizeDistribution
        Flow sizes (its mean in packets).
    replications : int
        Runs the flows are split over.
    backend : {"c", "python"}
        The simulator; ``python_control``: the C backend with a Python control step (a fixed rate).

    Returns
    -------
    float
        CPU seconds: rate-estimation intervals (the arrival span plus 100 RTTs, every ``min(rtt, 10 ms)``)
        times :data:`SECONDS_PER_INTERVAL`, plus events times :data:`SECONDS_PER_EVENT`.

    Examples
    --------
    >>> from rcpstab.packet.hosts.flow_traffic import parse_sizes
    >>> c, py = (flow_run_cpu_seconds(10e6, 0.1, 0.5, 10_000, 1000, parse_sizes("fixed:size=25"), backend=b)
    ...          for b in ("c", "python"))
    >>> bool(py > 10 * c)
    True
    """
    intervals, events = _work(capacity_bps, rtt_s, load, n_flows, packet_bytes, sizes, replications)
    step = "python" if python_control else backend
    return float(intervals * SECONDS_PER_INTERVAL[step] + events * SECONDS_PER_EVENT[backend])


def _work(capacity_bps, rtt_s, load, n_flows, packet_bytes, sizes, replications) -> tuple[float, float]:
    """The estimate's (rate-estimation intervals, events) of the runs (benchmarks/bench_packet.py fits their costs)."""
    gap_s = sizes.mean_packets * packet_bytes * 8 / (load * capacity_bps)  # 1/lambda
    duration_s = n_flows / replications * gap_s + 100 * rtt_s
    intervals = replications * duration_s / min(rtt_s, 0.01)  # App. F line 13: Tr = min(avg_rtt, 10 ms)
    return intervals, n_flows * (sizes.mean_packets + 3) * EVENTS_PER_PACKET


def _check(
    alpha,
    beta,
    capacity_bps,
    rtt_s,
    load,
    n_flows,
    buffer_bdp,
    eta,
    packet_bytes,
    backend,
    seed,
    sizes=None,
    python_control=False,
) -> None:
    check_flow_run(
        alpha,
        beta,
        capacity_bps,
        rtt_s,
        load,
        n_flows,
        buffer_bdp,
        eta,
        packet_bytes,
        backend,
        seed,
        sizes,
        window=False,
        python_control=python_control,
    )


def make_flow_simulator(
    capacity_bps: float,
    rtt_s: float,
    buffer_bytes: int,
    packet_bytes: int,
    backend: str,
    rate_refresh: bool = True,
    sender_window: bool = True,
    window_scale: float = 1.0,
):
    """The C ``FlowSimulator`` or ``PyFlowSimulator`` on the thesis' single bottleneck.

    ``sender_window=False`` divides the R-TCP window by one byte instead of the MSS: a window a
    thousand times the rate times the RTT, which never binds (a counterfactual, issue 24).
    ``window_scale`` divides the MSS by that factor (rounded to whole bytes): a window about
    ``window_scale`` times the thesis' (a counterfactual dose, issue 24).
    """
    delay_ns = int(round(rtt_s * NS_PER_S / 2))
    cap = int(round(capacity_bps))
    # The ACK direction carries 40-byte packets only; its buffer never overflows in practice.
    reverse_buffer = max(int(capacity_bps * rtt_s / 8), 64 * CTRL_PACKET_BYTES)
    args = dict(
        forward=(cap, delay_ns, buffer_bytes),
        reverse=(cap, delay_ns, reverse_buffer),
        data_size=packet_bytes,
        ctrl_size=CTRL_PACKET_BYTES,
        # MSS + RCP + IP headers
        window_denominator=max(int(round((packet_bytes - TCP_HEADER_BYTES) / window_scale)), 1) if sender_window else 1,
        rwnd_pkts=RWND_PACKETS,
        request=0,
        rate_refresh=rate_refresh,
    )
    if backend == "c":
        from ._flows import FlowSimulator

        return FlowSimulator(**args)
    return PyFlowSimulator(**args)


def draw_workload(
    sizes: SizeDistribution,
    arrivals: ArrivalProcess,
    n_flows: int,
    load: float,
    capacity_bps: float,
    packet_bytes: int,
    seed: int,
) -> tuple[np.ndarray, np.ndarray, int]:
    """Arrival times (s) and sizes (packets) of a run whose drawn workload offers exactly ``load``.

    Sizes and gaps are drawn i.i.d. (gaps at the nominal rate), then the gaps are scaled so that
    the data of the drawn flows over C times the time they arrive in is ``load``: separately for
    the warm-up (flows before ``WARMUP_FRACTION * n_flows``; the first arrival is at the end of
    its gap) and for the measurement window (from that flow's arrival to the last), so both the
    whole run and the window offer ``load``. For Poisson arrivals this is the Poisson process
    conditioned on its span (the scaled gaps are the spacings of uniform order statistics), so
    arrivals stay Poisson; only the rate is taken from the drawn sizes rather than from the
    distribution's mean. Heavy-tailed sizes (Pareto shape near 1) otherwise offer far less than
    ``load`` in any finite run (issue 24).

    Returns
    -------
    start_s, size_pkts, warm_index
    """
    rng = np.random.default_rng(seed)
    size = sizes.sample(rng, n_flows)
    nominal_rate = load * capacity_bps / (sizes.mean_packets * packet_bytes * 8)
    gaps = arrivals.gaps(rng, n_flows, nominal_rate)
    warm = int(WARMUP_FRACTION * n_flows)
    bits_per_s = load * capacity_bps
    seconds = size * (packet_bytes * 8.0) / bits_per_s  # time each flow's data takes at the offered load
    for seg_gaps, target in ((gaps[: warm + 1], seconds[:warm].sum()), (gaps[warm + 1 :], seconds[warm:].sum())):
        total = seg_gaps.sum()
        if len(seg_gaps) and total > 0:
            seg_gaps *= target / total
    return np.cumsum(gaps), size, warm


class _ArrivalFeed:
    """Hands the drawn arrivals to the simulator chunk by chunk, ahead of its clock."""

    def __init__(self, sim, start_s: np.ndarray, size: np.ndarray, warm_index: int) -> None:
        self.sim = sim
        self.start_ns = np.round(start_s * NS_PER_S).astype(np.int64)
        self.size = size.astype(np.int64)
        self.index = 0
        self.last_ns = -1
        self.warm_index = warm_index
        self.warm_ns = int(self.start_ns[warm_index])
        self.largest = int(size.max())
        self.window_pkts = int(size[warm_index:].sum())  # data packets of the arrivals from warm_index on

    def cover(self, t_ns: int) -> None:
        """Hand over arrivals until one lies at or beyond ``t_ns`` (or none are left)."""
        while not self.done and self.last_ns < t_ns:
            a, b = self.index, min(self.index + CHUNK_FLOWS, len(self.size))
            self.sim.add_arrivals(self.start_ns[a:b].tobytes(), self.size[a:b].tobytes())
            self.index = b
            self.last_ns = int(self.start_ns[b - 1])

    @property
    def done(self) -> bool:
        return self.index == len(self.size)


def _batch_stderr(values: np.ndarray, weights: np.ndarray) -> float:
    if len(values) < 2 * LITTLE_BATCHES:
        return float("nan")
    edges = np.linspace(0, len(values), LITTLE_BATCHES + 1).astype(int)
    means = [np.average(values[a:b], weights=weights[a:b]) for a, b in zip(edges[:-1], edges[1:])]
    return float(np.std(means, ddof=1) / math.sqrt(LITTLE_BATCHES))


def run_flows(
    alpha: float,
    beta: float,
    *,
    capacity_bps: float,
    rtt_s: float,
    load: float,
    sizes: SizeDistribution,
    n_flows: int,
    buffer_bdp: float = 1.0,
    arrivals: ArrivalProcess | None = None,
    seed: int = 0,
    eta: float = 1.0,
    packet_bytes: int = DATA_PACKET_BYTES,
    backend: str = "c",
    drain_s: float | None = None,
    rate_refresh: bool = True,
    fixed_rate_bps: float | None = None,
    keep_trace: bool = False,
    sender_window: bool = True,
    router_rtt: str = "measured",
    window_scale: float = 1.0,
    initial_rate_bps: float | None = None,
) -> FlowRun:
    """Simulate ``n_flows`` flows arriving at offered load ``load`` on one RCP bottleneck.

    Parameters
    ----------
    alpha, beta : float
        Router gains (App. F line 8).
    capacity_bps : float
        Bottleneck capacity C, bit/s.
    rtt_s : float
        Round-trip propagation delay RTPD, seconds.
    load : float
        Offered load rho = lambda E[L] / C, in (0, 1).
    sizes : SizeDistribution
        Flow sizes (whole data packets of ``packet_bytes``).
    n_flows : int
        Flows to simulate.
    buffer_bdp : float
        Drop-tail buffer in bandwidth-delay products C * RTPD (thesis Ch. 4: 1).
    arrivals : ArrivalProcess, optional
        Poisson (default) or Pareto gaps.
    seed : int
        Seed of arrival times and sizes; everything else is deterministic.
    eta : float
        Target utilisation of the router (App. F; 1 in the analysis).
    packet_bytes : int
        IP datagram bytes of a data packet (thesis Ch. 4: 1000).
    backend : {"c", "python"}
        The C simulator or its Python twin (identical runs, far slower).
    drain_s : float, optional
        Simulated seconds allowed after the last arrival for flows to finish; by default
        100 RTPD plus the largest flow drawn at C/100. Flows unfinished then are missing
        from ``records`` (``len(records) < n_flows``).
    rate_refresh : bool
        Senders re-pace their next packet when an ACK brings a new rate and probe for the rate
        while their next packet is over a minimum RTT away (ns-2's RCP host, as the packet
        simulator's R-TCP sender); False: the old pacing (next packet one old-rate interval
        after the last, a new rate heard from ACKs only), kept for comparison.
    fixed_rate_bps : float, optional
        Hold the router's rate at this value (bit/s, at most C) instead of running the
        control path: every flow is sent at this fixed rate (thesis App. A's set-up).
    keep_trace : bool
        Attach :attr:`FlowRun.trace`, one row per control interval.
    sender_window : bool
        The R-TCP sender keeps at most ``ceil(rate * srtt / MSS)`` packets in flight (True, the
        host's behaviour); False lifts the window (a counterfactual that isolates what it does).
    router_rtt : {"measured", "propagation"}
        The router's ``avg_rtt``: App. F's average of the header RTTs, or held at ``rtt_s`` (a
        counterfactual: the RTT a fluid model with the propagation delay uses).
    window_scale : float
        With ``sender_window``: the window is about this many times R-TCP's (its MSS
        denominator divided by it; a counterfactual dose between the window and none), >= 1.
    initial_rate_bps : float, optional
        The router's rate at time 0, bit/s in (0, eta C]; by default eta C, where an idle
        router settles (a lower start is a counterfactual that skips the descent from C).

    Returns
    -------
    FlowRun

    Examples
    --------
    >>> from rcpstab.packet.hosts.flow_traffic import parse_sizes
    >>> run = run_flows(0.4, 0.2, capacity_bps=10e6, rtt_s=0.1, load=0.5,
    ...                 sizes=parse_sizes("fixed:size=10"), n_flows=50)
    >>> c = run.counters
    >>> len(run.records), c["sent"] == c["delivered"] + c["dropped"] + c["in_flight"]
    (50, True)
    """
    arrivals = arrivals or ArrivalProcess()
    if router_rtt not in ("measured", "propagation"):
        raise InputError(f"router_rtt={router_rtt!r}: measured or propagation")
    if not (isinstance(window_scale, (int, float)) and math.isfinite(window_scale) and window_scale >= 1):
        raise InputError(f"window_scale={window_scale!r}: must be a finite number >= 1")
    _check(
        alpha,
        beta,
        capacity_bps,
        rtt_s,
        load,
        n_flows,
        buffer_bdp,
        eta,
        packet_bytes,
        backend,
        seed,
        sizes,
        fixed_rate_bps is not None,
    )
    wall_start = time.perf_counter()
    buffer_bytes = max(int(buffer_bdp * capacity_bps * rtt_s / 8), packet_bytes)
    sim = make_flow_simulator(capacity_bps, rtt_s, buffer_bytes, packet_bytes, backend, rate_refresh, sender_window, window_scale)
    link_rate = capacity_bps / 8000  # bytes/ms
    # An empty link: the router starts where an idle App. F router settles, at eta * C.
    if initial_rate_bps is not None and not (
        isinstance(initial_rate_bps, (int, float)) and 0 < initial_rate_bps <= eta * capacity_bps
    ):
        raise InputError(f"initial_rate_bps={initial_rate_bps!r}: must be in (0, eta C = {eta * capacity_bps:g}]")
    start_rate = eta * link_rate if initial_rate_bps is None else initial_rate_bps / 8000
    ctrl = RcpController(
        link_rate=link_rate, alpha=alpha, beta=beta, eta=eta, rate=start_rate, avg_rtt=rtt_s * 1000, mtu=packet_bytes
    )
    if fixed_rate_bps is not None:
        if not (math.isfinite(fixed_rate_bps) and 0 < fixed_rate_bps <= capacity_bps):
            raise InputError(f"fixed rate {fixed_rate_bps:g} b/s must be in (0, C = {capacity_bps:g}]")
        ctrl.rate = fixed_rate_bps / 8000
    sim.set_registers(rate=rate_register(ctrl.rate))
    start_s, size_pkts, warm_index = draw_workload(sizes, arrivals, n_flows, load, capacity_bps, packet_bytes, seed)
    # The run's own arrival rate: flows over the time they arrive in (the drawn mean size sets it).
    rate_per_s = n_flows / start_s[-1] if start_s[-1] > 0 else float("nan")
    feed = _ArrivalFeed(sim, start_s, size_pkts, warm_index)
    chunks: list[np.ndarray] = []
    samples: list[tuple] = []  # dt, n, tx, drops, offered, queue, R/C, input bytes of the interval, avg_rtt, census
    tables: list[np.ndarray] = []  # the same, as the native control path returns them
    interval_ns = control_interval_ns(ctrl.interval * NS_PER_MS)
    t_ns, t_cap_ns = 0, None
    native = _native(backend, ctrl, fixed_rate_bps)
    while True:
        t_next = t_ns + interval_ns
        feed.cover(t_next)
        if feed.done and t_cap_ns is None:
            t_cap_ns = feed.last_ns + int(
                NS_PER_S * (drain_s if drain_s is not None else _default_drain_s(feed.largest, packet_bytes, capacity_bps, rtt_s))
            )
        if native:  # App. F in C at every expiry the arrivals handed over cover (the same bits), then back here
            limit = min(feed.last_ns, t_ns + MAX_NATIVE_SPAN_NS) if not feed.done else t_ns + MAX_NATIVE_SPAN_NS
            table, t_ns, interval_ns, ctrl.rate, ctrl.avg_rtt, stopped = sim.rcp_intervals(
                t_ns,
                interval_ns,
                limit,
                feed.done,
                n_flows,
                t_cap_ns or 0,
                ctrl.link_rate,
                ctrl.alpha,
                ctrl.beta,
                ctrl.eta,
                ctrl.rate,
                ctrl.avg_rtt,
                ctrl.mtu,
                router_rtt == "measured",
            )
            tables.append(np.frombuffer(table, dtype=float).reshape(-1, SAMPLE_FIELDS))
            records = sim.take_records()
            if records:
                chunks.append(np.frombuffer(records, dtype=RECORD_DTYPE))
            if stopped:
                break
            continue
        sim.run_until(t_next)
        registers = sim.registers()
        if fixed_rate_bps is None:
            # no RTT samples: App. F leaves avg_rtt at its prior, the RTPD
            seen = registers if router_rtt == "measured" else dict(registers, rtt_sum=0, rtt_count=0)
            next_tr, writes = ctrl.service(seen, interval_ns / NS_PER_MS)
            sim.set_registers(**writes)
        else:  # the rate register keeps the fixed rate; the interval counters are still cleared
            next_tr = ctrl.interval
            sim.set_registers(input_bytes=0, rtt_sum=0, rtt_count=0)
        c = sim.counters()
        k = sim.census()  # as the native path records it at every expiry
        samples.append(
            (
                interval_ns,
                c["n_active"],
                c["fwd_tx_bytes"],
                c["fwd_dropped"],
                c["fwd_arrivals"],
                registers["queue_bytes"],
                ctrl.rate / link_rate,
                registers["input_bytes"],
                ctrl.avg_rtt,
                k["syn"],
                k["sending"],
                k["window_full"],
                k["rate_sum"],
            )
        )
        records = sim.take_records()
        if records:
            chunks.append(np.frombuffer(records, dtype=RECORD_DTYPE))
        t_ns, interval_ns = t_next, control_interval_ns(next_tr * NS_PER_MS)
        if feed.done and (c["completed"] == n_flows or t_ns >= t_cap_ns):
            break
    sampled = np.concatenate(tables) if native else np.array(samples, dtype=float).reshape(-1, SAMPLE_FIELDS)
    records = np.concatenate(chunks) if chunks else np.empty(0, dtype=RECORD_DTYPE)
    window = _window_stats(sampled, feed.warm_ns, feed.last_ns, capacity_bps)
    span_s = (feed.last_ns - feed.warm_ns) / NS_PER_S
    measured_load = feed.window_pkts * packet_bytes * 8 / (capacity_bps * span_s) if span_s > 0 else float("nan")
    return FlowRun(
        records=records,
        n_flows=n_flows,
        capacity_bps=capacity_bps,
        rtt_s=rtt_s,
        load=load,
        sizes=sizes,
        arrivals=arrivals,
        packet_bytes=packet_bytes,
        buffer_bytes=buffer_bytes,
        alpha=alpha,
        beta=beta,
        seed=seed,
        arrival_rate_per_s=rate_per_s,
        window_s=(feed.warm_ns / NS_PER_S, feed.last_ns / NS_PER_S),
        window_arrivals=n_flows - feed.warm_index,  # ids follow arrival order
        measured_load=measured_load,
        counters=sim.counters(),
        wall_time_s=time.perf_counter() - wall_start,
        backend=backend,
        **window,
        trace=_trace(sampled) if keep_trace else None,
    )


TRACE_DTYPE = np.dtype(
    [
        ("t_s", float),
        ("n_active", float),
        ("R_over_C", float),
        ("queue_bytes", float),
        ("input_bps", float),
        ("avg_rtt_ms", float),
        ("n_syn", float),
        ("n_sending", float),
        ("n_window_full", float),
        ("stamped_bps", float),
    ]
)


def _trace(a: np.ndarray) -> np.ndarray:
    out = np.empty(len(a), dtype=TRACE_DTYPE)
    out["t_s"] = np.cumsum(a[:, 0]) / NS_PER_S
    out["n_active"], out["queue_bytes"], out["R_over_C"] = a[:, 1], a[:, 5], a[:, 6]
    out["input_bps"] = a[:, 7] * 8 / (a[:, 0] / NS_PER_S)
    out["avg_rtt_ms"] = a[:, 8]
    out["n_syn"], out["n_sending"], out["n_window_full"] = a[:, 9], a[:, 10], a[:, 11]
    out["stamped_bps"] = a[:, 12] * 8000.0
    return out


def _native(backend: str, ctrl: RcpController, fixed_rate_bps: float | None) -> bool:
    """Whether the run's control path goes in C (``FlowSimulator.rcp_intervals``, the same bits): the C backend,
    App. F's exact controller class (a subclass runs its own Python update), and no fixed rate."""
    return backend == "c" and fixed_rate_bps is None and type(ctrl) is rcp_control.RcpController


def _default_drain_s(largest_pkts, packet_bytes, capacity_bps, rtt_s) -> float:
    # A safety net against a flow that never finishes, not a measurement horizon: the
    # largest flow drawn at a hundredth of C (heavy loss, timeouts) plus 100 RTPDs. After
    # the last arrival the load decays, so this time is cheap to simulate.
    return 100 * rtt_s + largest_pkts * packet_bytes * 8 / (0.01 * capacity_bps)


def _window_stats(a: np.ndarray, warm_ns, last_ns, capacity_bps) -> dict:
    ends = np.cumsum(a[:, 0])
    inside = (ends > warm_ns) & (ends <= last_ns)
    idx = np.flatnonzero(inside)
    if len(idx) < 2:
        nan = float("nan")
        return dict(
            mean_active=nan,
            mean_active_stderr=nan,
            utilization=nan,
            loss_probability=nan,
            mean_queue_bytes=nan,
            mean_R_over_C=nan,
        )
    first, last = idx[0], idx[-1]
    dt = a[first + 1 : last + 1, 0]
    span_s = (ends[last] - ends[first]) / NS_PER_S
    n = a[first + 1 : last + 1, 1]
    offered = a[last, 4] - a[first, 4]
    return dict(
        mean_active=float(np.average(n, weights=dt)),
        mean_active_stderr=_batch_stderr(n, dt),
        utilization=float((a[last, 2] - a[first, 2]) * 8 / (capacity_bps * span_s)),
        loss_probability=float((a[last, 3] - a[first, 3]) / offered) if offered > 0 else 0.0,
        mean_queue_bytes=float(np.average(a[first + 1 : last + 1, 5], weights=dt)),
        mean_R_over_C=float(np.average(a[first + 1 : last + 1, 6], weights=dt)),
    )
