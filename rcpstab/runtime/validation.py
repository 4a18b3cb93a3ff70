"""Domains of every user-facing parameter, in one table, checked at the edge before any work.

Each command checks what it was given against :data:`DOMAINS` before computing anything, so a
bad value gets one line naming it (and exit code 2 on the command line) rather than a
traceback, a hang, a NaN or a silently wrapped integer deep inside a lens. The bounds are
physical where physics gives one (a gain is > 0, a load is below 1) and otherwise generous
limits of what the lenses are built and tested for (a 100 s round trip, 10 Tb/s); values
beyond them are refused rather than half-computed. Integers that cross into the C
extension (buffer sizes, seeds) are checked here too, so nothing wraps.

The work a grid asks for is bounded too: :func:`check_grid_size` refuses a grid above
:data:`MAX_GRID_POINTS` points or an estimated :data:`MAX_CPU_HOURS` (the user can raise
them with ``$RCPSTAB_MAX_GRID_POINTS`` and ``$RCPSTAB_MAX_CPU_HOURS``), naming the estimate;
:func:`check_run_cost` does the same for one long run (CPU time and memory, the latter
raisable with ``$RCPSTAB_MAX_MEMORY_GB``).

Examples
--------
>>> check_value("beta", 0.5)
0.5
>>> try:
...     check_value("beta", 0.0)
... except InputError as exc:
...     print(exc)
beta = 0.0: must be in (0, 1000]
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass
from typing import Any, cast

from ..errors import InputError

__all__ = [
    "Domain",
    "DOMAINS",
    "MAX_GRID_POINTS",
    "GRID_ENV",
    "MAX_CPU_HOURS",
    "HOURS_ENV",
    "check_value",
    "check_values",
    "check_integer",
    "check_grid_size",
    "check_run_cost",
    "max_grid_points",
    "max_cpu_hours",
    "max_memory_gb",
    "SIMULATOR_INTEGERS",
    "check_simulator_integer",
    "check_index_range",
    "MIN_CONTROL_INTERVAL_NS",
    "control_interval_ns",
]


@dataclass(frozen=True)
class Domain:
    """The allowed values of one parameter.

    Attributes
    ----------
    label : str
        How messages name it (``update interval T``).
    low, high : float
        Bounds, in the parameter's unit (``-inf``/``inf``: none; values must be finite anyway).
    low_open, high_open : bool
        Whether a bound itself is excluded.
    unit : str
        Unit shown after the value (``s``, ``bit/s``), or empty.
    integer : bool
        Whether only whole numbers are allowed (flows may be fractional in the fluid model).
    unbounded : bool
        Whether ``+inf`` is allowed too, meaning "no limit" (a buffer).

    Examples
    --------
    >>> Domain("round trip tau", 0.0, low_open=True, unit="s").violation([0.1, 0.0])
    'round trip tau = 0.0 s: must be > 0 s'
    """

    label: str = ""
    low: float = -math.inf
    high: float = math.inf
    low_open: bool = False
    high_open: bool = False
    unit: str = ""
    integer: bool = False
    unbounded: bool = False

    def describe(self) -> str:
        unit = f" {self.unit}" if self.unit else ""
        kind = "an integer " if self.integer else ""
        if math.isinf(self.high):
            return f"{kind}{'>' if self.low_open else '>='} {self.low:g}{unit}" if math.isfinite(self.low) else "finite"
        if math.isinf(self.low):
            return f"{kind}{'<' if self.high_open else '<='} {self.high:g}{unit}"
        lo = "(" if self.low_open else "["
        hi = ")" if self.high_open else "]"
        return f"{kind}in {lo}{self.low:g}, {self.high:g}{hi}{unit}" + (" (inf: unbounded)" if self.unbounded else "")

    def contains(self, value: float) -> bool:
        if self.unbounded and value == math.inf:
            return True
        if not math.isfinite(value):
            return False
        if value < self.low or (self.low_open and value == self.low):
            return False
        if value > self.high or (self.high_open and value == self.high):
            return False
        return not self.integer or float(value).is_integer()

    def violation(self, values: Any, name: str = "") -> str | None:
        """One line naming the first of ``values`` (a number or an array) outside the domain, or None."""
        import numpy as np  # here: the command line checks plain numbers before it imports numpy

        flat = np.atleast_1d(np.asarray(values, dtype=float)).ravel()
        _, first = np.unique(flat, return_index=True)  # a sweep repeats few values: each checked once, in order
        for value in flat[np.sort(first)]:
            if not self.contains(float(value)):
                unit = f" {self.unit}" if self.unit else ""
                return f"{self.label or name} = {_fmt(value)}{unit}: must be {self.describe()}"
        return None


# The shortest control-timer interval, ns. A router's interval follows its RTT estimate (App. F line 13:
# Tr = min(avg_rtt, 10 ms); RCP-AC's too; XCP's is at least 100 us) and the native control paths run one
# expiry per interval over spans of up to 2**40 ns, so a topology RTT of 2e-9 s ran one expiry every 2 ns
# (~10**12 per span: a hang) and one of 2e-12 s an interval of 0 ns (an internal error). 1 us is the
# shortest round trip and update interval this table allows anywhere (rtt, d0, T below), so the bound
# refuses nothing the lenses are built for. Users' round trips are refused below it (path_rtt); the C
# entry points refuse a shorter interval_ns (SIMULATOR_INTEGERS); an interval the control path computes
# below it mid-run (ns-2's RTT average decays on sub-ms samples) is held at it, in C and Python alike.
MIN_CONTROL_INTERVAL_NS = 1000

# One table for every command. Gains: the thesis' planes end at 2 and the loop is unstable far
# below 1000; above that the root search and the integrators only spend memory (1e6 used 4.7 GB).
DOMAINS = {
    "alpha": Domain("alpha", 0.0, 1000.0, low_open=True),
    "beta": Domain("beta", 0.0, 1000.0, low_open=True),
    "eta": Domain("eta", 0.0, 1.0, low_open=True),
    "T": Domain("update interval T", 1e-6, 100.0, unit="s"),
    "d0": Domain("propagation delay d0", 1e-6, 100.0, unit="s"),
    "rtt": Domain("round-trip time", 1e-6, 100.0, unit="s"),
    "C": Domain("capacity C", 1.0, 1e13, unit="bit/s"),
    "N": Domain("number of flows N", 1.0, 1e7),
    "MTU": Domain("MTU", 0.0, 1e6, low_open=True, unit="bits"),
    "t_end": Domain("simulated time", 0.0, 1e6, low_open=True, unit="s"),
    "time": Domain("time", 0.0, 1e6, unit="s"),  # a moment in a run (a start, a stop, a jitter)
    # one link's one-way delay (a topology file): 0 is allowed, a path adds them up
    # a flow's round trip (a topology file's path, a scenario's): its routers' first control interval
    "path_rtt": Domain("round trip", MIN_CONTROL_INTERVAL_NS / 1e9, unit="s"),
    "link_delay": Domain("one-way delay", 0.0, 100.0, unit="s"),
    # At least one round trip: 1e-320 RTTs ran and reported "after 9.99989e-321 RTTs".
    "rtts": Domain("duration", 1.0, 1e5, unit="RTTs"),
    # bifurcation measures the last half of each run: fewer than 20 RTTs leave no cycle to measure
    "bifurcation_rtts": Domain("run per gain value", 20.0, 1e5, unit="RTTs"),
    "transient_rtt": Domain("transient", 0.0, 1e4, unit="RTTs"),
    "load": Domain("load", 0.0, 1.0, low_open=True, high_open=True),
    "buffer_bytes": Domain("buffer", 1.0, 1e15, unit="bytes", integer=True),
    "buffer_bdp": Domain("buffer", 0.0, 1e6, low_open=True, unit="BDP"),
    "buffer_bits": Domain("buffer", 0.0, 1e18, low_open=True, unit="bits", unbounded=True),
    "seed": Domain("seed", 0.0, 2.0**32 - 1, integer=True),
    "workers": Domain("workers", 1.0, 4096.0, integer=True),
    "samples": Domain("samples", 0.0, 10_000.0, integer=True),
    "pade": Domain("Pade order", 1.0, 20.0, integer=True),
    # map --method certified-window: round trips of history in the functional (2^window LMIs)
    "window": Domain("window", 1.0, 3.0, integer=True),
    # bifurcation --continuation: pseudo-arclength steps per branch and direction (each one a Newton solve)
    "branch_steps": Domain("continuation steps", 1.0, 500.0, integer=True),
    # linearize: the update interval in round trips, for a model that fixes T before linearizing
    "T_over_d0": Domain("T/d0", 0.0, 10.0, low_open=True),
    # margins --tf: an LTI loop's delay (several add); 1e4 s ran out of memory, 1e9 s raised inside numpy
    "loop_delay": Domain("loop delay", 0.0, 100.0, unit="s"),
    # cosim --seeds: replications of a topology file's packet run (2 at least for a confidence interval)
    "seeds": Domain("seeds", 2.0, 10_000.0, integer=True),
    # fct: flows and replications are bounded again by the run's cost estimate (fct.flow_run).
    "flows": Domain("flows", 1.0, 1e9, integer=True),
    "replications": Domain("replications", 1.0, 1e6, integer=True),
    "packet_bytes": Domain("data packet", 53.0, 2.0**24, unit="bytes", integer=True),  # TCP + RCP + IP headers
}

# The integer arguments of both C simulators, (low, high) inclusive. fct/csrc/flows_module.c and
# packet/csrc/module.c read this table when they are imported (through csrc/domains.h) and their
# Python twins (fct/flows_py.py, packet/simulator/sim_py.py, packet/routers/*/datapath_py.py) check
# with check_simulator_integer, so each C extension and its twin refuse exactly the same values
# (C's format codes used to wrap them: a 1e35-byte buffer became 0). The bounds keep every sum and
# product in int64: simulated times up to 2**60 ns (36 years) leave room for a timeout of twice the
# smoothed RTT; packet sizes are 24-bit; the registers are the port's 32- and 64-bit ones.
SIMULATOR_INTEGERS = {
    "capacity_bps": (1, 10**13),
    "delay_ns": (0, 10**11),
    "buffer_bytes": (0, 1 << 62),
    "data_size": (12, 1 << 24),  # an RCP header (12 bytes) at least
    "ctrl_size": (12, 1 << 24),
    "window_denominator": (1, 1 << 24),
    "rwnd_pkts": (1, 1 << 40),
    "request": (0, 0xFFFFFFFF),
    "start_ns": (0, 1 << 60),
    "size_pkts": (1, 1 << 40),
    "t_ns": (0, 1 << 60),
    "interval_ns": (MIN_CONTROL_INTERVAL_NS, 1 << 60),  # a control-timer interval (the native control paths' timer)
    "rate": (0, 0xFFFFFFFF),
    "input_bytes": (0, (1 << 63) - 1),
    "rtt_sum": (0, (1 << 63) - 1),
    "rtt_count": (0, (1 << 63) - 1),
    # the packet simulator's own: a flow that may stop (-1: never), may be long-lived (0 packets),
    # a path of at most 255 links (a packet's hop counter is 8 bits), the stand-alone ports
    "stop_ns": (-1, 1 << 60),
    "flow_pkts": (0, 1 << 40),
    "path_links": (1, 255),
    "size": (0, 0xFFFFFFFF),  # a datagram's size as the 32-bit port registers count it
    "n_ports": (1, 65536),
}


def control_interval_ns(next_ns: float) -> int:
    """A control timer's next interval as the simulators take it: rounded, at least :data:`MIN_CONTROL_INTERVAL_NS`.

    Parameters
    ----------
    next_ns : float
        The interval the control path computed, ns.

    Returns
    -------
    int
        ns; the C control paths hold it the same way (``packet/csrc/control.h`` ``next_interval``).

    Examples
    --------
    >>> control_interval_ns(2.5e6), control_interval_ns(2.0)
    (2500000, 1000)
    """
    return max(int(round(next_ns)), MIN_CONTROL_INTERVAL_NS)


def check_simulator_integer(name: str, value: Any, where: str = "") -> int:
    """``value`` as an int in :data:`SIMULATOR_INTEGERS` ``[name]``, refused as the C extension refuses it.

    Parameters
    ----------
    name : str
        A key of :data:`SIMULATOR_INTEGERS`.
    value : int
        Any object with ``__index__`` (int, numpy integer); a float is a TypeError, as in C.
    where : str
        Prefix of the name in the message (``forward``).

    Raises
    ------
    TypeError, ValueError
        The same type and message as ``rcpstab.fct._flows``.
    """
    low, high = SIMULATOR_INTEGERS[name]
    return check_index_range(value, name, low, high, where)


def check_index_range(value: Any, name: str, low: int, high: int, where: str = "") -> int:
    """``value`` as an int in ``low..high``, refused as the C extensions' ``int_in_range`` refuses it.

    For the ranges a call sets itself (a path index below the number of paths); the fixed ranges
    are :func:`check_simulator_integer`'s.

    Raises
    ------
    TypeError
        ``value`` has no ``__index__`` (a float, None).
    ValueError
        ``{where} {name}={value} is outside {low}..{high}``.
    """
    import operator

    number = operator.index(value)
    if not low <= number <= high:
        shown = f"{where} {name}" if where else name
        raise ValueError(f"{shown}={number} is outside {low}..{high}")
    return number


MAX_GRID_POINTS = 1_000_000
GRID_ENV = "RCPSTAB_MAX_GRID_POINTS"
MAX_CPU_HOURS = 8.0  # an estimate above this is refused too (a night on one core)
HOURS_ENV = "RCPSTAB_MAX_CPU_HOURS"
MAX_MEMORY_GB = 2.0  # estimated peak memory of a run above this is refused
MEMORY_ENV = "RCPSTAB_MAX_MEMORY_GB"


def _as_float(value: Any, shown: str | None, label: str) -> float:
    if isinstance(value, bool):
        raise InputError(f"{shown or label} = {value!r}: expected a number")
    try:
        return float(value)
    except (TypeError, ValueError, OverflowError):
        raise InputError(f"{shown or label} = {value!r}: not a number") from None


def check_value(name: str, value: Any, option: str | None = None, field: str | None = None) -> float:
    """``value`` as a float if it lies in the domain of ``name``, else :class:`InputError`.

    Parameters
    ----------
    name : str
        A key of :data:`DOMAINS`.
    value : number
    option : str, optional
        How the user gave it (``--rtt``); the message then names the option.
    field : str, optional
        The name of the value in the API (``rtt_s``), shown as ``rtt_s=0.0`` instead of the label.
    """
    domain = DOMAINS[name]
    number = _as_float(value, option, domain.label)
    if not domain.contains(number):
        unit = f" {domain.unit}" if domain.unit else ""
        where = f"{option}: " if option else ""
        shown = f"{field}={_fmt(value)}" if field else f"{domain.label} = {_fmt(value)}{unit}"
        raise InputError(f"{where}{shown}: must be {domain.describe()}")
    return number


def check_integer(name: str, value: Any, option: str | None = None, field: str | None = None) -> int:
    """An integer in the domain of ``name`` (exact: 2**64 + 1500 is refused, never wrapped)."""
    domain = DOMAINS[name]
    if isinstance(value, bool) or not isinstance(value, int):
        if isinstance(value, float) and value.is_integer():
            value = int(value)
        else:
            shown = f"{option} {value!r}" if option else f"{domain.label} = {value!r}"
            raise InputError(f"{shown}: must be an integer")
    if not domain.low <= value <= domain.high:
        unit = f" {domain.unit}" if domain.unit else ""
        where = f"{option}: " if option else ""
        shown = f"{field}={value}" if field else f"{domain.label} = {value}{unit}"
        raise InputError(f"{where}{shown}: must be {domain.describe()}")
    return cast(int, value)


def check_values(**values: Any) -> dict[str, float]:
    """Check several values by name (None: not given, skipped); returns them as floats."""
    return {name: check_value(name, value) for name, value in values.items() if value is not None}


def _fmt(value: Any) -> str:
    """A value as the user would write it: 0.0, not np.float64(0.0); as typed when it remembers its text."""
    if isinstance(getattr(value, "text", None), str):
        return cast(str, value.text)
    try:
        return repr(float(value)) if not isinstance(value, int) or isinstance(value, bool) else str(value)
    except (TypeError, ValueError, OverflowError):
        return repr(value)


def _limit(env: str, default: float, kind: type[int] | type[float]) -> float:
    text = os.environ.get(env)
    if not text:
        return default
    try:
        limit = kind(text)
    except ValueError:
        raise InputError(f"{env}={text!r}: expected a {'whole ' if kind is int else ''}number") from None
    if not (math.isfinite(limit) and limit > 0):
        raise InputError(f"{env}={text!r}: must be > 0")
    return limit


def max_grid_points() -> int:
    """The grid-size limit: :data:`MAX_GRID_POINTS` or ``$RCPSTAB_MAX_GRID_POINTS``."""
    return int(_limit(GRID_ENV, MAX_GRID_POINTS, int))  # an int already: int() only tells the type checker


def max_cpu_hours() -> float:
    """The estimated-cost limit: :data:`MAX_CPU_HOURS` or ``$RCPSTAB_MAX_CPU_HOURS``."""
    return _limit(HOURS_ENV, MAX_CPU_HOURS, float)


def max_memory_gb() -> float:
    """The memory limit: :data:`MAX_MEMORY_GB` or ``$RCPSTAB_MAX_MEMORY_GB``."""
    return _limit(MEMORY_ENV, MAX_MEMORY_GB, float)


def check_run_cost(what: str, cpu_seconds: float, memory_bytes: float = 0.0) -> None:
    """Refuse a single run whose estimated CPU time or memory is above the (raisable) limits.

    Parameters
    ----------
    what : str
        The run and the value that sets its size (``cosim --t-end 100000``).
    cpu_seconds, memory_bytes : float
        Rough estimates (from benchmark runs) for the message and the decision.
    """
    hours = cpu_seconds / 3600
    if hours > max_cpu_hours():
        raise InputError(
            f"{what}: would take about {hours:.3g} CPU-hours, more than the limit "
            f"{max_cpu_hours():g}; shorten the run or set {HOURS_ENV}"
        )
    gigabytes = memory_bytes / 1e9
    if gigabytes > max_memory_gb():
        raise InputError(
            f"{what}: would need about {gigabytes:.3g} GB of memory, more than the limit "
            f"{max_memory_gb():g}; shorten the run or set {MEMORY_ENV}"
        )


def check_grid_size(
    points: int, seconds_per_point: float, what: str, bytes_per_point: float = 0.0, default_limit: int | None = None
) -> None:
    """Refuse a grid of more than :func:`max_grid_points` points, with an estimate of its cost.

    Parameters
    ----------
    points : int
        Grid points times configurations.
    seconds_per_point : float
        Rough single-core cost of one point (for the message).
    what : str
        What is being computed (``phaseplane map``).
    bytes_per_point : float
        Peak memory per point (bytes), where memory rather than time bounds the grid (the exact map).
    default_limit : int, optional
        The point limit unless ``$RCPSTAB_MAX_GRID_POINTS`` is set, for a method whose measured cost
        per point is so small that :data:`MAX_GRID_POINTS` would refuse cheap work (default: that).
    """
    limit = _limit(GRID_ENV, default_limit, int) if default_limit else max_grid_points()
    hours = points * seconds_per_point / 3600
    if points > limit:
        raise InputError(
            f"{what}: {points:.4g} grid points is more than the limit {limit} "
            f"(estimated {hours:.3g} CPU-hours); use a coarser grid or set {GRID_ENV}"
        )
    if hours > max_cpu_hours():
        raise InputError(
            f"{what}: {points:.4g} grid points would take about {hours:.3g} CPU-hours, more than "
            f"the limit {max_cpu_hours():g}; use a coarser grid or set {HOURS_ENV}"
        )
    gigabytes = points * bytes_per_point / 1e9
    if gigabytes > max_memory_gb():
        raise InputError(
            f"{what}: {points:.4g} grid points would need about {gigabytes:.3g} GB of memory, more "
            f"than the limit {max_memory_gb():g}; use a coarser grid or set {MEMORY_ENV}"
        )
