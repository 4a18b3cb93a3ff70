"""Flow-level fair sharing on thesis Fig. 4.22's chain: the reference a multi-link flow can be held to.

Eq. 4.1 (``1.5 RTPD + L / (C (1 - rho))``) is processor sharing on one link. A flow that crosses
``n`` links, each shared with its own cross traffic, is not served by one PS queue: its rate is
what a bandwidth-sharing rule gives it given the flows on every link. This module computes that
exactly on the same arrivals (:func:`~rcpstab.fct.multilink.chain_workload`), with no packets, no
delays and no control loop, for two rules:

* ``"maxmin"``: max-min fairness, the allocation RCP's rate law converges to with flows held
  fixed (each link offers one rate R_l; a flow takes the smallest on its path; a link whose
  flows are held down elsewhere raises R_l until it is full). On the chain with equal
  capacities: group 0's flows get ``C / (n0 + max_i n_i)`` each (progressive filling: the link
  with the most cross flows fills first) and each cross group the rest of its link;
* ``"proportional"``: proportional fairness (maximise ``sum_r n_r log x_r``), which on the chain
  with equal capacities gives group 0 the aggregate ``C n0 / (n0 + sum_i n_i)`` (the Lagrange
  conditions ``n0 / X0 = sum_i n_i / (C - X0)``); the harsher of the two on long routes.

Rates are recomputed at every arrival and departure; flows of one group share their group's
rate equally (virtual time per group, as :func:`~rcpstab.fct.ps.processor_sharing_sojourn`).
With one link both rules are PS, and the sojourn equals the PS sojourn on the same arrivals.
"""

from __future__ import annotations

import heapq

import numpy as np

from ..errors import InputError

__all__ = ["RULES", "chain_rates", "chain_fair_sojourn"]

RULES = ("maxmin", "proportional")


def chain_rates(counts, capacity_bps: float, rule: str = "maxmin") -> np.ndarray:
    """Per-flow rate of each group on the chain, bit/s.

    Parameters
    ----------
    counts : array_like of int
        Flows in progress per group: group 0 crosses every link, group i (1..n) link i only.
    capacity_bps : float
        Every link's capacity, bit/s.
    rule : {"maxmin", "proportional"}

    Returns
    -------
    ndarray
        Rate per flow of each group (0 where the group is empty), bit/s.

    Examples
    --------
    >>> chain_rates([1, 1, 3], 12.0).tolist()                  # link 2 fills first: 12 / 4
    [3.0, 9.0, 3.0]
    >>> chain_rates([1, 1, 3], 12.0, "proportional").round(9).tolist()  # X0 = 12 * 1 / 5
    [2.4, 9.6, 3.2]
    """
    if rule not in RULES:
        raise InputError(f"rule={rule!r}: one of {', '.join(RULES)}")
    return np.array(_rates([float(c) for c in np.asarray(counts, dtype=float)], capacity_bps, rule))


def _rates(n: list[float], capacity_bps: float, rule: str) -> list[float]:
    """:func:`chain_rates` on Python floats: it runs at every event of :func:`chain_fair_sojourn`,
    where NumPy's per-call cost on a few groups was most of the time (the same operations, the same bits)."""
    cross = n[1:]
    if n[0] == 0:
        return [0.0] + [capacity_bps / max(c, 1.0) if c > 0 else 0.0 for c in cross]
    x0 = capacity_bps / (n[0] + (max(cross) if rule == "maxmin" else sum(cross)))
    rest = capacity_bps - n[0] * x0
    return [x0] + [rest / max(c, 1.0) if c > 0 else 0.0 for c in cross]


def chain_fair_sojourn(arrival_s, size_bits, group, n_links: int, capacity_bps: float, rule: str = "maxmin") -> np.ndarray:
    """Time each flow spends in the chain under ``rule``, rates recomputed at every event, s.

    Parameters
    ----------
    arrival_s, size_bits, group : array_like
        Arrival times (s, non-decreasing), sizes (bits) and groups (0..n_links) of the flows.
    n_links : int
        Links of the chain.
    capacity_bps : float
        Every link's capacity, bit/s.
    rule : {"maxmin", "proportional"}

    Returns
    -------
    ndarray
        Sojourn of each flow, s, in input order. The flow-level FCT adds ``1.5 RTPD`` of its group.

    Examples
    --------
    >>> chain_fair_sojourn([0.0, 0.0], [1e6, 3e6], [0, 1], 1, 1e6).tolist()   # one link: PS
    [2.0, 4.0]
    """
    a = np.asarray(arrival_s, dtype=float)
    size = np.asarray(size_bits, dtype=float)
    g = np.asarray(group, dtype=int)
    if not (len(a) == len(size) == len(g)) or np.any(np.diff(a) < 0) or np.any(size <= 0):
        raise InputError("arrivals non-decreasing, sizes > 0, equal lengths")
    if n_links < 1 or np.any((g < 0) | (g > n_links)):
        raise InputError(f"n_links={n_links}: groups must lie in 0..n_links")
    groups = n_links + 1
    if rule not in RULES:
        raise InputError(f"rule={rule!r}: one of {', '.join(RULES)}")
    tags: list[list[tuple[float, int]]] = [[] for _ in range(groups)]  # (virtual finish, flow) per group
    v = [0.0] * groups  # service each flow of the group has received since time 0
    leave = np.empty(len(a))
    arrivals, sizes, groups_of = a.tolist(), size.tolist(), g.tolist()  # Python scalars: the loop is per event
    t = 0.0
    i = 0
    while i < len(a) or any(tags):
        x = _rates([float(len(q)) for q in tags], capacity_bps, rule)
        # the next departure of each group at the current rates
        t_dep, who = np.inf, -1
        for r in range(groups):
            if tags[r] and x[r] > 0:
                td = t + (tags[r][0][0] - v[r]) / x[r]
                if td < t_dep:
                    t_dep, who = td, r
        t_arr = arrivals[i] if i < len(a) else np.inf
        t_new = min(t_dep, t_arr)
        v = [vr + xr * (t_new - t) for vr, xr in zip(v, x)]
        t = t_new
        if t_dep <= t_arr:
            finish, j = heapq.heappop(tags[who])
            v[who] = finish  # exact: no rounding drift for the departing flow's group
            leave[j] = t
        else:
            heapq.heappush(tags[groups_of[i]], (v[groups_of[i]] + sizes[i], i))
            i += 1
    return leave - a
