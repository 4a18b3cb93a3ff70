"""A passing (alpha, beta) near a failing one, verified by running the same checks on it.

Candidates are a fine grid around the configured gains and, in case nothing near passes, a
coarse grid over the whole recommended-and-beyond plane (:data:`WIDE_ALPHA`, :data:`WIDE_BETA`).
All are screened cheaply first: the linear thresholds (under a criterion that gates them) and
the step responses on the envelope's corners, one batch per corner (with the envelope's
buffer). The survivors are ranked nearest first, then by linear slack, and verified by the
full checks in that order until one passes; when none does, the suggestion says why.
"""

from __future__ import annotations

import math
from typing import Any, cast

import numpy as np

from ..linear.batch import margins_many
from ..linear.margins import Margins, margins
from ..models import get_model
from ..phaseplane import decide
from .checks import CheckReport, linear_findings, run_checks
from .config import CheckConfig, Thresholds
from .envelope import envelope_networks
from .feasibility import feasible
from .nonlinear import FLASH_CROWD, LOAD_DOUBLING, step_horizon_rtt

BATCH_DOUBT = 1e-9
"""Relative distance below which a batched figure (equal to :func:`~rcpstab.linear.margins.margins`'
to rounding, :mod:`rcpstab.linear.batch`) is recomputed one point at a time before it decides a threshold
or an order, so that the candidates are exactly those of the single-point margins."""
RADIUS = 0.3  # search alpha and beta within this distance of the configured point
STEP = 0.05  # grid spacing of the search
WIDE_ALPHA = np.round(np.arange(0.1, 1.0 + 1e-9, 0.1), 6)
WIDE_BETA = np.array([0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.4, 0.5, 0.6])


def linear_slack(m: Margins, th: Thresholds) -> float:
    """How far the linear findings are from their thresholds: the smallest figure/threshold ratio.

    Above 1 every linear threshold is met; larger is more margin.
    """
    re = m.rightmost_root[0]
    gm = math.inf if m.gain_margin is None and m.stable else (m.gain_margin or 0.0)
    decay = re / th.rightmost_real_max if th.rightmost_real_max < 0 else 1.0 + th.rightmost_real_max - re
    assert m.phase_margin_deg is not None  # the rcp loop has a pole at 0: |G| crosses 1 at every gain > 0
    slack: float = min(gm / th.gain_margin_min, m.phase_margin_deg / th.phase_margin_min_deg, decay)
    return slack


def _grid(config: CheckConfig) -> list[tuple[float, float]]:
    a0, b0 = config.router.alpha, config.router.beta
    offsets = np.arange(-RADIUS, RADIUS + STEP / 2, STEP)
    near = [(round(a0 + da, 6), round(b0 + db, 6)) for da in offsets for db in offsets if math.hypot(da, db) <= RADIUS + 1e-9]
    wide = [(float(a), float(b)) for a in WIDE_ALPHA for b in WIDE_BETA]
    return [p for p in dict.fromkeys(near + wide) if p[0] > 0 and p[1] > 0 and p != (a0, b0)]


def steps_pass(config: CheckConfig, points: list[tuple[float, float]]) -> np.ndarray:
    """Whether each point's load doubling and flash crowd meet the thresholds on every envelope corner.

    One batch per corner and step (all points at once), the envelope's buffer included: the
    corners are where the step responses are slowest (the flash crowd at the largest C and the
    fewest flows, where the rate floor is deepest; the doubling at the smallest RTT, where T/d0
    is largest), so a point failing here fails the full check.
    """
    th, eta = config.thresholds, config.router.eta
    horizon = step_horizon_rtt(th.load_doubling_rtt_max, th.flash_crowd_rtt_max)  # the check's own horizon
    alphas, betas = (np.array(axis, dtype=float) for axis in zip(*points))
    ok = np.ones(len(points), dtype=bool)
    for net in envelope_networks(config, 0):
        n = net["N"]
        for step, flows, gamma0, limit in (
            ("doubling", LOAD_DOUBLING * n, eta / n, th.load_doubling_rtt_max),
            ("flash_crowd", FLASH_CROWD * n, eta / n, th.flash_crowd_rtt_max),
        ):
            if not feasible(config, [net], step)[0]:
                continue  # no gains converge there (.feasibility): it screens nothing out
            todo = np.flatnonzero(ok)
            if not todo.size:
                return ok
            params = dict(net, alpha=alphas[todo], beta=betas[todo], N=np.full(todo.size, flows))
            verdicts = decide(
                get_model("rcp"), params, {"gamma0": np.full(todo.size, gamma0), "q0": 0.0}, max_horizon_rtt=horizon
            )
            ok[todo] = (verdicts.names == "converged") & (verdicts.convergence_rtt <= limit)
    return ok


def candidates(config: CheckConfig, criterion: str) -> tuple[list[tuple[float, float, float]], dict[str, int]]:
    """Screened grid points, nearest first, then largest linear slack, and what the screens removed.

    Under a criterion that includes the linear findings, points failing them are dropped;
    under one that includes the nonlinear findings, points whose step responses fail on an
    envelope corner are dropped too. The rest of the checks is left to the verification.

    Returns
    -------
    list of (alpha, beta, distance)
    dict
        ``grid`` (points tried), ``linear`` (removed by the linear thresholds), ``steps``
        (removed by the step responses on the corners).
    """
    a0, b0 = config.router.alpha, config.router.beta
    grid = _grid(config)
    model, th = get_model("rcp"), config.thresholds
    # one batched computation for the grid; a point near a threshold is recomputed exactly (_near_threshold)
    found = cast(list[Margins], margins_many(model, *zip(*grid)).results if grid else [])
    for i, (a, b) in enumerate(grid):
        if _near_threshold(found[i], th):
            found[i] = margins(model, a, b)
    ranked = []
    for (a, b), m in zip(grid, found):
        trial = config.with_gains(a, b)
        if criterion != "nonlinear" and not all(f.passed for f in linear_findings(m, trial)):
            continue
        distance = math.hypot(a - a0, b - b0)
        ranked.append([round(distance / STEP), -linear_slack(m, th), a, b, distance])
    # the order among equally near points is the slack's: where two batched slacks are within rounding of
    # each other, both are recomputed exactly
    order = sorted(range(len(ranked)), key=ranked.__getitem__)
    tied = [(i, j) for i, j in zip(order, order[1:]) if ranked[i][0] == ranked[j][0] and _close(ranked[i][1], ranked[j][1])]
    for i in {i for pair in tied for i in pair}:
        ranked[i][1] = -linear_slack(margins(model, ranked[i][2], ranked[i][3]), th)
    screened = {"grid": len(grid), "linear": len(grid) - len(ranked), "steps": 0}
    if criterion != "linear" and ranked:
        keep = steps_pass(config, [(a, b) for _, _, a, b, _ in ranked])
        screened["steps"] = int((~keep).sum())
        ranked = [r for r, k in zip(ranked, keep) if k]
    return [(a, b, d) for _, _, a, b, d in sorted(ranked)], screened


def _close(x: float, y: float) -> bool:
    """Within :data:`BATCH_DOUBT` of each other, relative to the larger of 1 and their sizes (inf: only itself)."""
    if math.isinf(x) or math.isinf(y):
        return x == y
    return abs(x - y) <= BATCH_DOUBT * max(1.0, abs(x), abs(y))


def _near_threshold(m: Margins, th: Thresholds) -> bool:
    """Whether a linear finding of ``m`` is within rounding of its threshold (or of the stability boundary)."""
    pairs = [(m.rightmost_root[0], 0.0), (m.rightmost_root[0], th.rightmost_real_max)]
    if m.gain_margin is not None:
        pairs.append((m.gain_margin, th.gain_margin_min))
    if m.phase_margin_deg is not None:
        pairs.append((m.phase_margin_deg, th.phase_margin_min_deg))
    return any(_close(x, y) for x, y in pairs)


PACKET_POOL = 12  # under --packet, fluid-verified candidates gathered (nearest first) before any packet run
PACKET_TRIES = 4  # of those, how many also run packet by packet (each a few seconds)


def step_load(report: CheckReport) -> float:
    """The slower of the fluid load-doubling and flash-crowd times over their thresholds (inf: not converged)."""
    loads = [
        f.figure / f.threshold if f.figure is not None and f.threshold else math.inf
        for f in report.findings
        if f.name in ("load_doubling", "flash_crowd")
    ]
    return max(loads, default=0.0)


PACKET_NAMES = ("packet_confirmation", "packet_flash_crowd")


def _excluded(config: CheckConfig, samples: int) -> tuple[int, str]:
    """How many envelope networks no gains can serve, and the clause saying they were left out."""
    nets = envelope_networks(config, samples)
    bad = sum(not ok for ok in feasible(config, nets, "flash_crowd"))
    return bad, (
        f"; {bad} of the {len(nets)} envelope networks cannot be served by any gains at some step "
        f"(envelope_feasible) and were left out of the search: no suggestion fixes them"
        if bad
        else ""
    )


def suggest(
    config: CheckConfig, criterion: str, samples: int, workers: int, packet: bool = False, report: CheckReport | None = None
) -> dict[str, Any]:
    """The nearest passing (alpha, beta), largest margin first among equally near ones; or why there is none.

    Every screened candidate is verified with :func:`~rcpstab.check.checks.run_checks` (same
    criterion, envelope sample and thresholds), nearest first, until one passes every finding the
    gains can change (:attr:`CheckReport.gains_passed`: networks no gains can serve are left out,
    :mod:`.feasibility`). With ``packet``, a fluid-verified candidate is run packet by packet too
    and kept only if it passes those findings: the :data:`PACKET_POOL` nearest fluid-verified
    candidates are gathered, the :data:`PACKET_TRIES` of them with the fastest fluid step responses
    run packet by packet; when none passes, the nearest untried one is returned with the packet
    findings named as not checked.

    Parameters
    ----------
    packet : bool
        The user asked for the packet findings (``--packet``).
    report : CheckReport, optional
        The configured gains' own report: when their only failures are findings no gains change
        (the envelope's feasibility, MAX_ALLOWABLE_RTT), no search is run and the reason says so.

    Returns
    -------
    dict
        ``alpha``, ``beta``, ``distance``, ``report`` (CheckReport), ``checked`` (the finding
        groups the suggestion was verified against), ``not_checked`` (finding names it was not),
        ``excluded_networks``, ``reason`` (None when found) and ``text`` (one sentence for
        the user). Alpha, beta, distance and report are None when nothing passes.
    """
    n_bad, excluded = _excluded(config, samples)
    base: dict[str, Any] = {
        "alpha": None,
        "beta": None,
        "distance": None,
        "report": None,
        "checked": [],
        "not_checked": [],
        "excluded_networks": n_bad,
    }

    def answer(**fields: Any) -> dict[str, Any]:
        out = dict(base, **fields)
        if out["alpha"] is None:
            out["text"] = (
                f"no other gains suggested: {out['reason']}"
                if out.pop("gains_fine", False)
                else f"no passing (alpha, beta): {out['reason']}"
            )
        else:
            verified = (
                "verified: passes the same checks" + (", packet runs included" if packet else "")
                if not out["not_checked"]
                else f"verified against the fluid findings only: NOT checked against {', '.join(out['not_checked'])}"
                f"{out['why_not_checked']}"
            )
            out["text"] = f"suggestion: ALPHA = {out['alpha']:g}, BETA = {out['beta']:g} ({verified}{excluded})"
        out.pop("why_not_checked", None)
        out["verified_with_packet"] = "packet" in out["checked"]
        return out

    if report is not None and report.gains_passed:
        config_failing = [f.name for f in report.findings if f.gates(criterion) and not f.passed]
        return answer(
            gains_fine=True,
            reason=f"the gains ({config.router.alpha:g}, {config.router.beta:g}) pass every finding gains "
            f"can change; what fails ({', '.join(config_failing)}) depends on the envelope and the "
            f"router's constants, not on alpha and beta, and no search was run{excluded}.",
        )
    found, screened = candidates(config, criterion)
    failing: dict[str, Any] = {}
    pool, packet_failed = [], []
    checked = ["linear", "nonlinear (fluid)"] if criterion == "all" else [criterion]
    for a, b, distance in found:
        trial: CheckReport = run_checks(config.with_gains(a, b), criterion, samples, workers)
        if not trial.gains_passed:
            for f in trial.findings:
                if f.gates(criterion) and f.kind != "config" and not f.passed:
                    failing[f.name] = failing.get(f.name, 0) + 1
            continue
        if not packet or criterion == "linear":
            return answer(alpha=a, beta=b, distance=round(distance, 6), report=trial, checked=checked, reason=None)
        pool.append((a, b, distance, trial))
        if len(pool) == PACKET_POOL:
            break
    # Packet runs are the expensive part: try the fluid-verified candidates whose fluid step responses
    # have the most slack first (the packet findings time the same steps, and fail mostly where they are slow).
    pool.sort(key=lambda c: (step_load(c[3]), c[2]))
    for a, b, distance, _ in pool[:PACKET_TRIES]:
        full: CheckReport = run_checks(config.with_gains(a, b), criterion, samples, workers, packet=True)
        if full.gains_passed:
            return answer(alpha=a, beta=b, distance=round(distance, 6), report=full, checked=checked + ["packet"], reason=None)
        packet_failed.append(
            f"({a:g}, {b:g}) fails " + ", ".join(f.name for f in full.findings if f.name in PACKET_NAMES and not f.passed)
        )
    untested = sorted(pool[PACKET_TRIES:], key=lambda c: c[2])
    if untested:
        a, b, distance, trial = untested[0]
        return answer(
            alpha=a,
            beta=b,
            distance=round(distance, 6),
            report=trial,
            checked=checked,
            not_checked=list(PACKET_NAMES),
            reason=None,
            why_not_checked=f" (the {len(packet_failed)} fluid-verified gains tried packet by packet failed "
            f"them: {'; '.join(packet_failed)})",
        )
    parts = [
        f"none of the {screened['grid']} grid points (within {RADIUS:g} of the gains by {STEP:g}, and alpha "
        f"{WIDE_ALPHA[0]:g}-{WIDE_ALPHA[-1]:g} x beta {WIDE_BETA[0]:g}-{WIDE_BETA[-1]:g}) passes --criterion "
        f"{criterion} on this envelope"
    ]
    if screened["linear"]:
        parts.append(f"{screened['linear']} miss a linear threshold (stability, Re, gain or phase margin)")
    if screened["steps"]:
        parts.append(f"{screened['steps']} are too slow after a load doubling or a flash crowd on an envelope corner")
    if found:
        parts.append(
            f"the {len(found)} left fail the full check on: "
            + ", ".join(f"{name} ({count})" for name, count in sorted(failing.items()))
        )
    if packet_failed:
        parts.append(f"{len(packet_failed)} pass the fluid findings but fail packet ones: {'; '.join(packet_failed)}")
    return answer(reason="; ".join(parts) + excluded + ".")
