"""The optimal-rate "U" curve (thesis App. A; the M/Pareto report): every flow sent at one fixed rate R.

Flows arrive as a Poisson process with bounded Pareto sizes and each is sent at a fixed rate
``R = C / K`` into a FCFS link of capacity C. Low R stretches every flow (``L / R``); high R
builds a queue (at ``R >= C`` the M/G/1 queue, infinite for an unbounded Pareto of shape
below 2). The expected flow duration ``E[tau] = E[L]/R + E[Q_l]/C`` (eq. A.1) has a minimum.

Three methods:

* :func:`app_a_duration`: App. A's approximation, eq. A.11 (``R < C``, through the
  M/Pareto/K model of its ref. [23], eqs. A.7-A.10) and eq. A.12 (``R >= C``: its queue is
  exact, its duration short by the last packet's excess over the average queue, and A.7 is
  the main error below C: :mod:`rcpstab.fct.ucurve_gap` measures each);
* :func:`fixed_rate_fcfs`: an exact packet-level FCFS queue fed every flow's paced packets
  (Lindley's recursion, vectorised), with or without background flows at another rate;
  ``tau = L / R + W`` with ``W`` the wait of the flow's last packet, App. A's decomposition;
* the packet flow simulator at a fixed router rate
  (:func:`~rcpstab.fct.flow_run.run_flows` with ``fixed_rate_bps``), which adds the handshake
  and the propagation (its FCT minus 1.5 RTPD is comparable, up to a packet time).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from ..errors import InputError

__all__ = [
    "BoundedPareto",
    "app_a_duration",
    "app_a_blocking",
    "blocking_from_moments",
    "FcfsTrace",
    "fcfs_trace",
    "paced_packets",
    "fixed_rate_fcfs",
    "durations_at_rates",
]


@dataclass(frozen=True)
class BoundedPareto:
    """Bounded Pareto law on ``[m, M]`` with shape ``a`` (App. A): ``F(x) = (1 - (m/x)^a) / (1 - (m/M)^a)``.

    Sizes in packets (real-valued); :meth:`sample` rounds up to whole packets for the packet
    simulators and :attr:`mean_packets` is the exact mean of the rounded sizes, so the object
    can stand in for a :class:`~rcpstab.packet.hosts.flow_traffic.SizeDistribution`.

    Examples
    --------
    >>> d = BoundedPareto.with_mean(25.0, 1.2, 1e4)
    >>> round(d.moment(1), 6)
    25.0
    """

    m: float
    M: float
    a: float

    def __post_init__(self) -> None:
        if not (0 < self.m < self.M and math.isfinite(self.M) and 0 < self.a and self.a != 1 and self.a != 2):
            raise InputError(
                f"bounded Pareto m={self.m}, M={self.M}, shape={self.a}: need 0 < m < M < inf, shape > 0, not 1 or 2"
            )

    @classmethod
    def with_mean(cls, mean: float, a: float, M: float) -> BoundedPareto:
        """The law on ``[m, M]`` whose mean is ``mean`` (m found by bisection)."""
        lo, hi = 1e-12, mean
        for _ in range(200):
            mid = 0.5 * (lo + hi)
            if cls(mid, M, a).moment(1) < mean:
                lo = mid
            else:
                hi = mid
        return cls(0.5 * (lo + hi), M, a)

    def moment(self, k: int) -> float:
        """``E[X^k]`` for k = 1, 2, packets^k."""
        m, M, a = self.m, self.M, self.a
        norm = 1.0 - (m / M) ** a
        moment: float = a * m**a * (M ** (k - a) - m ** (k - a)) / ((k - a) * norm)
        return moment

    def cdf(self, x: float) -> float:
        x = min(max(x, self.m), self.M)
        p: float = (1.0 - (self.m / x) ** self.a) / (1.0 - (self.m / self.M) ** self.a)
        return p

    def sample_real(self, rng: np.random.Generator, n: int) -> np.ndarray:
        """Real-valued sizes by inversion, packets."""
        u = rng.random(n)
        m, M, a = self.m, self.M, self.a
        x: np.ndarray = m / (1.0 - u * (1.0 - (m / M) ** a)) ** (1.0 / a)
        return x

    def sample(self, rng: np.random.Generator, n: int) -> np.ndarray:
        """Whole-packet sizes ``max(1, ceil(X))``, int64."""
        packets: np.ndarray = np.maximum(np.ceil(self.sample_real(rng, n)), 1).astype(np.int64)
        return packets

    @property
    def mean_packets(self) -> float:
        """Exact mean of ``max(1, ceil(X))``: ``1 + sum_{k >= 1} P(X > k)``."""
        k = np.arange(1, int(math.ceil(self.M)))
        return float(1.0 + np.sum(1.0 - np.array([self.cdf(float(x)) for x in k]))) if len(k) else 1.0

    def __str__(self) -> str:
        return f"bpareto:m={self.m:.4g},M={self.M:g},shape={self.a:g}"


def app_a_blocking(K: float, load: float, dist: BoundedPareto) -> float:
    """Eq. A.8: P(blocking) of the M/Pareto/K approximation (two-point split of the sizes).

    ``alpha`` is the fraction of flows between m and M/20; the small and the large flows get
    the two sizes A and B with the law's mean and variance (A.8's A, B), loads rho_s, rho_l.
    """
    mean, var = dist.moment(1), dist.moment(2) - dist.moment(1) ** 2
    return blocking_from_moments(K, load, mean, var, dist.cdf(dist.M / 20.0))


def blocking_from_moments(K: float, load: float, mean: float, var: float, frac: float) -> float:
    """Eq. A.8 from the sizes' mean and variance (any unit) and ``frac``, the fraction of flows below M/20.

    Examples
    --------
    >>> d = BoundedPareto.with_mean(25.0, 1.2, 1e3)
    >>> blocking_from_moments(5.0, 0.8, d.moment(1), d.moment(2) - d.moment(1) ** 2, d.cdf(50.0)) == app_a_blocking(5.0, 0.8, d)
    True
    """
    A = mean - math.sqrt(var * (1 - frac) / frac)
    B = mean + math.sqrt(var * frac / (1 - frac))
    rho_s = frac * A / mean * load
    rho_l = (1 - frac) * B / mean * load
    x = K * (1 - rho_s) - 1
    from scipy.stats import poisson  # here, not at import: scipy.stats costs ~0.25 s for every fct process

    return float(1.0 - poisson.cdf(math.floor(x), rho_l * K)) if x >= 0 else 1.0


def app_a_duration(
    rate_bps: ArrayLike, capacity_bps: float, arrival_rate: float, dist: BoundedPareto, packet_bits: float = 8000.0
) -> np.ndarray | float:
    """App. A's expected flow duration E[tau] (s) at fixed rate(s) R: eq. A.11 below C, A.12 from C.

    Parameters
    ----------
    rate_bps : float or array_like
        The fixed rate R, bit/s (K = C/R need not be an integer; A.8's Poisson CDF is taken
        at the floor of its argument).
    capacity_bps : float
        C, bit/s.
    arrival_rate : float
        Poisson flow arrivals lambda, flows/s; the load is ``lambda E[L] / C`` (< 1).
    dist : BoundedPareto
        Flow sizes, packets of ``packet_bits``.

    Examples
    --------
    >>> d = BoundedPareto.with_mean(25.0, 1.2, 1e4)
    >>> C = 150e6
    >>> tau_C = float(app_a_duration(C, C, 600.0, d))   # A.12 at R = C: E[L]/C + M/G/1 wait - lam E[L^2]/(2 C R)
    >>> L1, L2, rho = d.moment(1) * 8000, d.moment(2) * 8000**2, 600 * d.moment(1) * 8000 / C
    >>> abs(tau_C - (L1 / C + 600 * L2 / (2 * C) * (1 / ((1 - rho) * C) - 1 / C))) < 1e-12
    True
    """
    L1, L2 = dist.moment(1) * packet_bits, dist.moment(2) * packet_bits**2
    C, lam = float(capacity_bps), float(arrival_rate)
    rho = lam * L1 / C
    if not 0 < rho < 1:
        raise InputError(f"load lambda E[L]/C = {rho:.3g} must be in (0, 1)")
    rates = np.atleast_1d(np.asarray(rate_bps, dtype=float))
    out = np.empty(len(rates))
    for i, R in enumerate(rates):
        if R >= C:  # eq. A.12
            out[i] = L1 / R + lam * L2 / (2 * C) * (1 / ((1 - rho) * C) - 1 / R)
        else:  # eq. A.11
            K = C / R
            out[i] = L1 * K / C + lam * L2 * rho / (2 * (1 - rho) * C**2) * app_a_blocking(K, rho, dist)
    return out if np.ndim(rate_bps) else float(out[0])


def fixed_rate_fcfs(
    arrival_s: ArrayLike, size_pkts: ArrayLike, rate_bps: float | np.ndarray, capacity_bps: float, packet_bits: float = 8000.0
) -> np.ndarray:
    """Flow durations ``L/R + W_last`` in an exact packet FCFS queue, every flow paced at its rate.

    Flow i sends packet k at ``arrival_s[i] + k * packet_bits / rate_bps[i]``; the link serves
    packets in arrival order, one per ``packet_bits / C`` (Lindley: departure
    ``D_k = max(A_k, D_{k-1}) + s``, vectorised as ``(k+1) s + cummax(A_j - j s)``); ``W_last``
    is the wait in queue of the flow's last packet.

    Parameters
    ----------
    arrival_s : array_like
        Flow start times, s.
    size_pkts : array_like
        Flow sizes, whole packets (>= 1).
    rate_bps : float or array_like
        Sending rate of every flow (or of each), bit/s.
    capacity_bps, packet_bits : float

    Returns
    -------
    ndarray
        Duration of each flow, s (App. A's ``L/R + Q_l/C``).

    Examples
    --------
    Three 1 s packets through a 1 s/packet link from t = 0: the link is busy until 3 s, so the
    two-packet flow (its second packet, sent at 1 s, waits behind the other flow's) ends at 3 s
    and the one-packet flow at 2 s:

    >>> fixed_rate_fcfs([0.0, 0.0], [2, 1], 1e6, 1e6, packet_bits=1e6).tolist()
    [3.0, 2.0]
    """
    trace = fcfs_trace(arrival_s, size_pkts, rate_bps, capacity_bps, packet_bits)
    done: np.ndarray = trace.size * packet_bits / trace.rate + trace.wait[trace.last]
    return done


@dataclass(frozen=True)
class FcfsTrace:
    """Every packet of :func:`fcfs_trace`: the flows' paced packets through one FCFS link.

    ``t`` and ``depart`` are in service order (sorted arrivals, s); ``wait`` (s, time in queue
    before service, the work found divided by C) is in flow order, packet ``first[i]`` ..
    ``last[i]`` of flow i; ``service_s`` is one packet's transmission time.
    """

    t: np.ndarray
    depart: np.ndarray
    wait: np.ndarray
    first: np.ndarray
    last: np.ndarray
    size: np.ndarray
    rate: np.ndarray
    service_s: float


def paced_packets(
    start_s: np.ndarray, size_pkts: np.ndarray, pace_s: float | np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every packet of flows sent at a held rate: its flow, its index in the flow and its send time.

    Parameters
    ----------
    start_s : ndarray
        Each flow's first packet, s.
    size_pkts : ndarray of int
        Each flow's packets (>= 1).
    pace_s : float or ndarray
        The gap between a flow's packets, s (P/R), one for all flows or one per flow.

    Returns
    -------
    flow, k, t : ndarray
        Per packet, in flow order: the flow's index, the packet's index k in its flow, and its
        time ``start_s[flow] + k * pace``.

    Examples
    --------
    >>> [a.tolist() for a in paced_packets(np.array([0.0, 5.0]), np.array([2, 1]), 0.5)]
    [[0, 0, 1], [0, 1, 0], [0.0, 0.5, 5.0]]
    """
    flow = np.repeat(np.arange(len(size_pkts)), size_pkts)
    k = np.arange(len(flow)) - np.repeat(np.cumsum(size_pkts) - size_pkts, size_pkts)
    pace = np.broadcast_to(np.asarray(pace_s, float), np.shape(start_s))
    return flow, k, start_s[flow] + k * pace[flow]


def fcfs_trace(
    arrival_s: ArrayLike, size_pkts: ArrayLike, rate_bps: float | np.ndarray, capacity_bps: float, packet_bits: float = 8000.0
) -> FcfsTrace:
    """The packet FCFS queue of :func:`fixed_rate_fcfs`, every packet kept.

    Parameters and sizes as :func:`fixed_rate_fcfs`.

    Returns
    -------
    FcfsTrace
        Arrivals and departures in service order (s), each packet's wait (s) in flow order.

    Examples
    --------
    >>> tr = fcfs_trace([0.0, 0.0], [2, 1], 1e6, 1e6, packet_bits=1e6)
    >>> tr.depart.tolist(), tr.wait.tolist()
    ([1.0, 2.0, 3.0], [0.0, 1.0, 1.0])
    """
    start = np.asarray(arrival_s, float)
    n = np.asarray(size_pkts, np.int64)
    rate = np.array(np.broadcast_to(np.asarray(rate_bps, float), start.shape))
    if np.any(n < 1) or np.any(rate <= 0) or capacity_bps <= 0:
        raise InputError("sizes must be >= 1 packet, rates and C > 0")
    _, _, t = paced_packets(start, n, packet_bits / rate)
    order = np.argsort(t, kind="stable")
    t_sorted = t[order]
    s = packet_bits / capacity_bps
    idx = np.arange(len(t_sorted))
    depart = (idx + 1) * s + np.maximum.accumulate(t_sorted - idx * s)
    wait = np.empty(len(t))
    wait[order] = depart - s - t_sorted
    last = np.cumsum(n) - 1
    return FcfsTrace(t_sorted, depart, wait, last - n + 1, last, n, rate, s)


def durations_at_rates(
    rates_bps: ArrayLike,
    *,
    capacity_bps: float,
    dist: BoundedPareto,
    n_flows: int,
    load: float,
    seed: int = 0,
    background: tuple[Any, ...] | None = None,
    packet_bits: float = 8000.0,
) -> np.ndarray:
    """Mean duration of the flows of interest at each fixed rate, by :func:`fixed_rate_fcfs`.

    The same Poisson arrivals and sizes at every rate (common random numbers). ``background``
    = (dist, pool, load, rate_bps): Poisson flows of another law at their own fixed rate over
    the same span, at the rate with which ``pool`` sizes drawn offer ``load`` (the M/Pareto
    report's set-up); their durations are not counted.

    Returns
    -------
    ndarray
        Mean duration of the flows of interest, s, one per rate.
    """
    rng = np.random.default_rng(seed)
    size = dist.sample(rng, n_flows)
    lam = load * capacity_bps / (size.mean() * packet_bits)  # the drawn sizes offer exactly ``load``
    start = np.cumsum(rng.exponential(1.0 / lam, n_flows))
    if background is not None:
        # Poisson background over the same span at the rate its drawn sizes need to offer ``bload``
        bdist, bn, bload, brate = background
        bpool = bdist.sample(rng, bn)
        blam = bload * capacity_bps / (bpool.mean() * packet_bits)
        bstart = np.cumsum(rng.exponential(1.0 / blam, 4 * bn + 100))
        bstart = bstart[bstart <= start[-1]]
        bsize = bpool[np.arange(len(bstart)) % bn]
    out = []
    for R in np.atleast_1d(rates_bps):
        if background is None:
            tau = fixed_rate_fcfs(start, size, R, capacity_bps, packet_bits)
        else:
            all_start = np.concatenate([start, bstart])
            all_size = np.concatenate([size, bsize])
            all_rate = np.concatenate([np.full(n_flows, float(R)), np.full(len(bsize), float(brate))])
            tau = fixed_rate_fcfs(all_start, all_size, all_rate, capacity_bps, packet_bits)[:n_flows]
        out.append(tau.mean())
    return np.array(out)
