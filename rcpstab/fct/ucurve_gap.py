"""Where App. A's U-curve model and the fixed-rate FCFS queue part (thesis App. A; issue 24, item 4).

App. A reaches the expected flow duration ``E[tau] = E[L]/R + E[Q_l]/C`` (eq. A.1) through a
chain of systems (its Fig. A.1): (a) the packet FCFS link fed by flows paced at ``R = C/K``,
(b) flow-wise FCFS on K servers of rate ``C/K`` with the same paced arrivals, (c) the
M/Pareto/K queue, (b) with each flow arriving whole. Each link of the chain, and what it
assumes, can be measured on one drawn workload:

* ``E[Q_l] ~ E[Q_a]`` (eq. A.11's stated approximation): the work found by the last packet
  of each flow against the time-average work in (a);
* ``E[Q_a] <= E[Q_b]`` (A.6, used as an equality);
* ``E[Q_b] = E[Q_c] - lam E[L^2] / (2R)`` (A.5: exact);
* ``E[Q_c] ~ rho [(E[N]/rho - K) E[L] + K E[L_r]]`` (A.9, with the footnote's (i) P(busy) ~ rho
  and (ii) all K servers busy when busy); (i) and (ii) enter only through their product, the
  mean number of busy servers, which is ``rho K`` exactly, and in FCFS a waiting flow's size
  is independent of its wait: A.9 is exact given E[N];
* ``E[N] = lam E[D]`` with E[D] from A.7 (the M/Pareto/K approximation of App. A's ref. [23]).

Why the last packet finds more than the average: remove the tagged flow (its start is a
point of a Poisson process, so the others stay a stationary Poisson stream); the work it
finds is the others' work ``W(t)`` at an arbitrary time plus ``Delta``, the flow's own work
not absorbed by the link's idle time. ``Delta`` is a reflected walk driven by the others'
idle time: ``D_{k+1} = max(0, D_k + P - C I_k)``, ``I_k`` the idle time of the others between
its packets k and k+1. For ``R >= C`` the flow alone keeps the link busy, so
``E[Delta] = (E[L] - P)(1 - (1 - rho) C / R)`` exactly; below C that is a lower bound.
:func:`tagged_last_waits` computes Delta on the measured idle process for flows placed at
arbitrary times (the second method); :func:`decompose_gap` puts the terms side by side.
"""

from __future__ import annotations

import heapq
import math
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from ..errors import InputError
from .ucurve import BoundedPareto, FcfsTrace, blocking_from_moments, fcfs_trace, paced_packets

__all__ = [
    "MgkStats",
    "app_a_chain",
    "decompose_gap",
    "last_packet_excess_bits",
    "mgk_fcfs",
    "tagged_last_waits",
    "time_average_work_bits",
    "work_at",
]


@dataclass(frozen=True)
class MgkStats:
    """System (c) of App. A measured: whole flows, FCFS on K servers of rate C/K.

    ``wait_s`` per flow (s, before its service starts); ``p_busy`` and ``p_all_busy`` are the
    time fractions with at least one and with all K servers busy; ``mean_jobs`` the
    time-average number of flows present (all over the arrival span).
    """

    wait_s: np.ndarray
    p_busy: float
    p_all_busy: float
    mean_jobs: float


def mgk_fcfs(arrival_s: ArrayLike, size_bits: ArrayLike, servers: int, capacity_bps: float) -> MgkStats:
    """FCFS on ``servers`` servers of rate ``capacity_bps / servers`` (Kiefer-Wolfowitz), flows whole.

    Parameters
    ----------
    arrival_s : array_like
        Flow arrival times, s, non-decreasing.
    size_bits : array_like
        Flow sizes, bits.
    servers : int
        K >= 1.
    capacity_bps : float
        C, bit/s (each server serves C/K).

    Returns
    -------
    MgkStats

    Examples
    --------
    Two servers of 1 b/s: the third flow waits for the first server to free at 2 s.

    >>> st = mgk_fcfs([0.0, 0.0, 1.0], [1.0, 3.0, 1.0], 2, 2.0)
    >>> st.wait_s.tolist()
    [0.0, 0.0, 0.0]
    >>> mgk_fcfs([0.0, 0.0, 1.0], [2.0, 3.0, 1.0], 2, 2.0).wait_s.tolist()
    [0.0, 0.0, 1.0]
    """
    a = np.asarray(arrival_s, float)
    service = np.asarray(size_bits, float) * servers / capacity_bps
    if servers < 1 or capacity_bps <= 0 or np.any(service < 0):
        raise InputError(f"servers={servers}, C={capacity_bps:g}: need K >= 1, C > 0 and sizes >= 0")
    free = [float(a[0])] * servers
    wait = np.empty(len(a))
    for i, (ai, si) in enumerate(zip(a.tolist(), service.tolist())):
        f = heapq.heappop(free)
        begin = max(ai, f)
        wait[i] = begin - ai
        heapq.heappush(free, begin + si)
    depart = a + wait + service
    t0, t1 = float(a[0]), float(a[-1])
    times = np.concatenate([a, depart])
    steps = np.concatenate([np.ones(len(a)), -np.ones(len(a))])
    order = np.argsort(times, kind="stable")
    n = np.cumsum(steps[order])
    edges = np.clip(times[order], t0, t1)
    dur = np.diff(edges)  # n[i] holds on [edges[i], edges[i + 1])
    span = t1 - t0
    return MgkStats(
        wait,
        float(dur[n[:-1] >= 1].sum() / span),
        float(dur[n[:-1] >= servers].sum() / span),
        float(np.sum(dur * n[:-1]) / span),
    )


def app_a_chain(
    K: float, arrival_rate: float, mean_bits: float, second_bits2: float, frac_small: float, capacity_bps: float
) -> dict[str, float]:
    """App. A's intermediate quantities at ``R = C/K`` from the sizes' moments (eqs. A.7-A.11).

    Parameters
    ----------
    K : float
        C/R (> 1 for eq. A.11; at K = 1 A.7 is the M/G/1 formula and A.11 is A.12).
    arrival_rate : float
        lambda, flows/s.
    mean_bits, second_bits2 : float
        E[L] (bits) and E[L^2] (bits^2).
    frac_small : float
        A.8's alpha: the fraction of flows between m and M/20.
    capacity_bps : float
        C, bit/s.

    Returns
    -------
    dict
        ``rho``, ``p_block`` (A.8), ``D_s`` (A.7), ``N`` (lambda E[D]), ``Qc_bits`` (A.9),
        ``Qb_bits`` (A.6's right side), ``Qa_bits`` (A.10, the same number), ``tau_s`` (A.11).

    Examples
    --------
    >>> from rcpstab.fct.ucurve import app_a_duration
    >>> d = BoundedPareto.with_mean(25.0, 1.2, 1e3)
    >>> lam = 0.8 * 150e6 / (d.moment(1) * 8000)
    >>> ch = app_a_chain(5.0, lam, d.moment(1) * 8000, d.moment(2) * 64e6, d.cdf(50.0), 150e6)
    >>> abs(ch["tau_s"] - app_a_duration(30e6, 150e6, lam, d)) < 1e-12
    True
    """
    C, lam, L1, L2 = float(capacity_bps), float(arrival_rate), float(mean_bits), float(second_bits2)
    rho = lam * L1 / C
    if not 0 < rho < 1:
        raise InputError(f"load lambda E[L]/C = {rho:.3g} must be in (0, 1)")
    p_block = blocking_from_moments(K, rho, L1, L2 - L1**2, frac_small)
    D = K * L1 / C + rho / (1 - rho) * L2 / (2 * C * L1) * p_block  # A.7
    N = lam * D
    Qc = rho * ((N / rho - K) * L1 + K * L2 / (2 * L1))  # A.9
    Qb = Qc - lam * L2 * K / (2 * C)  # A.6 with R = C/K
    return {
        "rho": rho,
        "p_block": p_block,
        "D_s": D,
        "N": N,
        "Qc_bits": Qc,
        "Qb_bits": Qb,
        "Qa_bits": Qb,
        "tau_s": L1 * K / C + Qb / C,
    }


def time_average_work_bits(trace: FcfsTrace, packet_bits: float, t0: float, t1: float) -> float:
    """Time-average unfinished work (bits) of an FCFS trace over ``[t0, t1]``: App. A's E[Q_a].

    Each packet holds ``P`` bits from its arrival to the start of its service, then drains
    linearly to 0 at its departure; the integral is exact.

    Parameters
    ----------
    trace : FcfsTrace
        The queue's packets (:func:`~rcpstab.fct.ucurve.fcfs_trace`).
    packet_bits : float
        P, bits per packet.
    t0, t1 : float
        The window, s.

    Returns
    -------
    float
        Mean unfinished work over the window, bits.

    Examples
    --------
    One 1-bit packet at 1 b/s arriving at 0, seen over [0, 2]: 1/2 bit-second over 2 s.

    >>> time_average_work_bits(fcfs_trace([0.0], [1], 1.0, 1.0, 1.0), 1.0, 0.0, 2.0)
    0.25
    """
    s = trace.service_s
    t = np.clip(trace.t, t0, t1)
    begin = np.clip(trace.depart - s, t0, t1)
    end = np.clip(trace.depart, t0, t1)
    waiting = begin - t
    # linear part: integral of P (dep - x) / s over [begin, end]
    draining = ((trace.depart - begin) ** 2 - (trace.depart - end) ** 2) / (2 * s)
    return float(packet_bits * np.sum(waiting + draining) / (t1 - t0))


def work_at(trace: FcfsTrace, times: ArrayLike, capacity_bps: float) -> np.ndarray:
    """Unfinished work (bits) at the given times: ``C (D_j - t)^+``, j the last packet arrived by t.

    Parameters
    ----------
    trace : FcfsTrace
        The queue's packets.
    times : array_like
        Instants, s.
    capacity_bps : float
        C, bit/s.

    Returns
    -------
    ndarray
        Work in the queue (including the packet in service) at each instant, bits.

    Examples
    --------
    >>> work_at(fcfs_trace([0.0], [2], 2.0, 1.0, 1.0), [0.0, 0.75, 2.5], 1.0).tolist()
    [1.0, 1.25, 0.0]
    """
    x = np.asarray(times, float)
    j = np.searchsorted(trace.t, x, side="right") - 1
    dep = np.where(j >= 0, trace.depart[np.maximum(j, 0)], -np.inf)
    out: np.ndarray = capacity_bps * np.maximum(dep - x, 0.0)
    return out


def _idle_before(trace: FcfsTrace, x: np.ndarray) -> np.ndarray:
    """Cumulative idle time of the link in ``[trace.t[0], x]`` (x >= trace.t[0]), s."""
    new = np.concatenate([[False], trace.t[1:] > trace.depart[:-1]])
    gap_start = np.append(trace.depart[:-1][new[1:]], trace.depart[-1])  # idle for good after the last packet
    gap_end = np.append(trace.t[new], np.inf)
    cum = np.concatenate([[0.0], np.cumsum(gap_end - gap_start)])
    k = np.searchsorted(gap_start, x, side="right")  # gaps started by x
    partial = np.where(k > 0, np.minimum(x - gap_start[np.maximum(k - 1, 0)], (gap_end - gap_start)[np.maximum(k - 1, 0)]), 0.0)
    idle: np.ndarray = cum[np.maximum(k - 1, 0)] * (k > 0) + np.maximum(partial, 0.0)
    return idle


def tagged_last_waits(
    trace: FcfsTrace, start_s: ArrayLike, size_pkts: ArrayLike, rate_bps: float, capacity_bps: float, packet_bits: float
) -> tuple[np.ndarray, np.ndarray]:
    """The work the last packet of a tagged flow would find, from a trace the flow is not in.

    A flow of ``L`` packets paced at R from ``start``: its last packet finds the trace's work
    at that time plus ``Delta``, the flow's own first ``L - 1`` packets not absorbed by the
    trace's idle time (a Lindley walk on its packet times; see the module text).

    Parameters
    ----------
    trace : FcfsTrace
        A run the tagged flows are not part of.
    start_s : array_like
        Tagged flows' starts, s (inside the trace's span).
    size_pkts : array_like
        Their sizes, packets.
    rate_bps, capacity_bps, packet_bits : float
        R and C (bit/s), P (bits).

    Returns
    -------
    (others_bits, delta_bits) : tuple of ndarray
        Per tagged flow: the trace's work at its last packet's arrival and Delta, bits.

    Examples
    --------
    An idle trace: a lone flow at R = C finds its own ``L - 1`` packets drained, nothing else.

    >>> tr = fcfs_trace([0.0], [1], 1.0, 1.0, 1.0)
    >>> [v.tolist() for v in tagged_last_waits(tr, [10.0], [3], 1.0, 1.0, 1.0)]
    [[0.0], [0.0]]
    """
    u = np.asarray(start_s, float)
    n = np.asarray(size_pkts, np.int64)
    _, k, t = paced_packets(u, n, packet_bits / rate_bps)
    idle = _idle_before(trace, t)
    step = packet_bits - capacity_bps * np.diff(idle, prepend=0.0)  # own packet k-1 in, idle since it drains
    step[k == 0] = 0.0
    first = np.cumsum(n) - n
    walk = np.cumsum(step)
    walk = walk - np.repeat(walk[first], n)  # U_k per flow, U_0 = 0
    last = np.cumsum(n) - 1
    delta = walk[last] - np.minimum.reduceat(walk, first)  # D = U_last - min_j U_j (Lindley)
    return work_at(trace, t[last], capacity_bps), delta


def last_packet_excess_bits(rate_bps: float, capacity_bps: float, load: float, mean_bits: float, packet_bits: float) -> float:
    """``(E[L] - P)(1 - (1 - rho) C / R)^+``: E[Q_l] - E[Q_a], exact for R >= C, a lower bound below.

    Parameters
    ----------
    rate_bps, capacity_bps : float
        R and C, bit/s.
    load : float
        rho.
    mean_bits, packet_bits : float
        E[L] and P, bits.

    Returns
    -------
    float
        The last packet's mean excess over the time-average queue, bits.

    Examples
    --------
    At R = C the flow's own first ``L - 1`` packets stay except what the others' idle time
    (a fraction 1 - rho) drains:

    >>> last_packet_excess_bits(1.0, 1.0, 0.8, 26.0, 1.0)
    20.0
    """
    return max(0.0, (mean_bits - packet_bits) * (1.0 - (1.0 - load) * capacity_bps / rate_bps))


def decompose_gap(
    rate_bps: float,
    *,
    capacity_bps: float,
    dist: BoundedPareto,
    n_flows: int,
    load: float,
    seed: int = 0,
    packet_bits: float = 8000.0,
) -> dict[str, Any]:
    """App. A's duration against the FCFS queue's at one fixed rate, the gap split by approximation.

    The workload is :func:`~rcpstab.fct.ucurve.durations_at_rates`' (same seed, same flows).
    Terms in seconds of E[tau]; they add up to the measured gap (a telescoping sum of measured
    queues); the checks are the independent estimates beside them. System (c) is measured only where
    ``C / R`` is an integer (or R >= C, one server of rate C).

    Parameters
    ----------
    rate_bps, capacity_bps : float
        R and C, bit/s.
    dist : BoundedPareto
        Flow sizes, packets.
    n_flows, seed : int
        The workload.
    load : float
        rho of the drawn sizes.
    packet_bits : float
        P, bits.

    Returns
    -------
    dict
        ``tau_sim_s``, ``tau_model_s`` (A.11/A.12 on the law), ``terms_s`` {``sampling``
        (A.11 on the drawn sizes minus on the law), ``a7`` (E[Q_b] measured minus A.7's),
        ``a6`` (E[Q_a] - E[Q_b]), ``last_packet`` (E[Q_l] - E[Q_a])}, ``tau_a1_Qa_s`` and
        ``tau_a1_Ql_tagged_s`` (A.1 with the measured queue, with the tagged flows' one), the
        measured queues (bits) ``Qa``, ``Qa_pasta`` (first packets' found work), ``Ql``,
        ``Qb``, ``Qc``, ``Qc_a9_measured_N``, the last-packet excess by the tagged-flow
        method and its closed form, the footnote's ``p_busy_c``, ``p_all_busy_c`` against
        ``rho``, ``D_s`` measured against ``D_a7_s``.

    Examples
    --------
    >>> d = BoundedPareto.with_mean(25.0, 1.2, 300.0)
    >>> g = decompose_gap(50e6, capacity_bps=150e6, dist=d, n_flows=3000, load=0.8, seed=5)
    >>> abs(g["tau_a1_Ql_tagged_s"] / g["tau_sim_s"] - 1) < 0.03, g["Ql_bits"] > g["Qa_bits"]
    (True, True)
    """
    C, P, R = float(capacity_bps), float(packet_bits), float(rate_bps)
    rng = np.random.default_rng(seed)
    size = dist.sample(rng, n_flows)
    lam_nominal = load * C / (size.mean() * P)
    start = np.cumsum(rng.exponential(1.0 / lam_nominal, n_flows))
    span = float(start[-1] - start[0])
    trace = fcfs_trace(start, size, R, C, P)
    tau = size * P / R + trace.wait[trace.last]
    L = size * P
    lam = (n_flows - 1) / span
    L1, L2 = float(L.mean()), float(np.mean(L**2))
    rho = lam * L1 / C
    frac = float(np.mean(size <= dist.M / 20.0))
    K = C / R
    law_lam = load * C / (dist.moment(1) * P)
    from .ucurve import app_a_duration

    tau_law = float(app_a_duration(R, C, law_lam, dist, P))
    if R >= C:  # A.12 on the drawn sizes
        Qa_model = lam * L2 / 2 * (1 / ((1 - rho) * C) - 1 / R)
        tau_sample = L1 / R + Qa_model / C
        servers, server_rate = 1, C
    else:
        chain = app_a_chain(K, lam, L1, L2, frac, C)
        Qa_model, tau_sample = chain["Qb_bits"], chain["tau_s"]
        servers, server_rate = (round(K), C / round(K)) if abs(K - round(K)) < 1e-9 else (0, 0.0)
    Qa = time_average_work_bits(trace, P, float(start[0]), float(start[-1]))
    Ql = C * float(trace.wait[trace.last].mean())
    out: dict[str, Any] = {
        "rate_over_C": R / C,
        "rho": rho,
        "L1_bits": L1,
        "L2_bits2": L2,
        "tau_sim_s": float(tau.mean()),
        "tau_model_s": tau_law,
        "tau_model_sample_s": tau_sample,
        "Qa_model_bits": Qa_model,
        "Qa_bits": Qa,
        "Qa_pasta_bits": C * float(trace.wait[trace.first].mean()),
        "Ql_bits": Ql,
        "busy_a": 1.0 - float(_idle_before(trace, np.array([start[-1]]))[0]) / span,
    }
    # the tagged-flow method: the same sizes at arbitrary times inside the run
    hold = (size - 1) * P / R
    ok = hold < 0.5 * span
    u = start[0] + rng.random(int(ok.sum())) * (span - hold[ok])
    others, delta = tagged_last_waits(trace, u, size[ok], R, C, P)
    out["tagged_fraction"] = float(ok.mean())
    out["Ql_tagged_bits"] = float(np.mean(others + delta))
    out["excess_tagged_bits"] = float(delta.mean())
    out["excess_measured_bits"] = Ql - Qa
    out["excess_closed_form_bits"] = last_packet_excess_bits(R, C, rho, L1, P)
    terms = {"sampling": tau_sample - tau_law, "last_packet": (Ql - Qa) / C}
    if servers:
        mgk = mgk_fcfs(start, L, servers, C)
        Qc = lam * float(np.mean(L * mgk.wait_s + L**2 / (2 * server_rate)))
        Qb = Qc - lam * L2 / (2 * R)
        N = lam * float(np.mean(mgk.wait_s + L / server_rate))
        a9 = rho * ((N / rho - servers) * L1 + servers * L2 / (2 * L1)) if R <= C else Qc
        out.update(
            Qb_bits=Qb,
            Qc_bits=Qc,
            Qc_a9_measured_N_bits=a9,
            N=N,
            N_time_average=mgk.mean_jobs,
            p_busy_c=mgk.p_busy,
            p_all_busy_c=mgk.p_all_busy,
            D_s=N / lam,
            D_a7_s=chain["D_s"] if R < C else float(np.mean(L)) / C + rho / (1 - rho) * L2 / (2 * C * L1),
        )
        terms.update(a7=(Qb - Qa_model) / C, a6=(Qa - Qb) / C)
    else:
        terms["a7_and_a6"] = (Qa - Qa_model) / C
    out["terms_s"] = terms
    out["tau_a1_Qa_s"] = L1 / R + Qa / C  # A.1 with the measured average queue: App. A's queue made right
    # A.1 with E[Q_l] = E[Q_a] + E[Delta], Delta by the tagged-flow method (the others' work at arbitrary
    # times is E[Q_a] by stationarity; its sample over the tagged times is noisier than the time average)
    out["tau_a1_Ql_tagged_s"] = L1 / R + (Qa + out["excess_tagged_bits"]) / C
    if not all(math.isfinite(v) for v in terms.values()):
        raise InputError(f"fixed rate {R:g} b/s: the run did not settle (non-finite terms)")
    return out
