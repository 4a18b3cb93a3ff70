"""A passing (alpha, beta) near a failing one, verified by running the same checks on it.

Candidates are a fine grid around the configured gains and, in case nothing near passes, a
coarse grid over the whole recommended-and-beyond plane (:data:`WIDE_ALPHA`, :data:`WIDE_BETA`).
All are screened cheaply first: the linear thresholds (under a criterion that gates them) and
the step responses at the envelope's smallest and largest RTT, one batch per RTT (in normalized
units they depend on T/d0, not on C or N: thesis Figs. 5.10-5.12). The survivors are ranked
nearest first, then by linear slack, and at most :data:`ATTEMPTS` are verified by the full checks.
"""
from __future__ import annotations

import math

import numpy as np

from ..models import get_model
from ..phaseplane import decide
from ..regions.margins import Margins, margins
from .checks import CheckReport, linear_findings, run_checks
from .config import CheckConfig, Thresholds
from .envelope import network
from .nonlinear import FLASH_CROWD, LOAD_DOUBLING, step_horizon_rtt

RADIUS = 0.3    # search alpha and beta within this distance of the configured point
STEP = 0.05     # grid spacing of the search
WIDE_ALPHA = np.round(np.arange(0.1, 1.0 + 1e-9, 0.1), 6)
WIDE_BETA = np.array([0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.4, 0.5, 0.6])
ATTEMPTS = 4    # candidates verified with the full checks, best first


def linear_slack(m: Margins, th: Thresholds) -> float:
    """How far the linear findings are from their thresholds: the smallest figure/threshold ratio.

    Above 1 every linear threshold is met; larger is more margin.
    """
    re = m.rightmost_root[0]
    gm = math.inf if m.gain_margin is None and m.stable else (m.gain_margin or 0.0)
    decay = re / th.rightmost_real_max if th.rightmost_real_max < 0 else 1.0 + th.rightmost_real_max - re
    return min(gm / th.gain_margin_min, m.phase_margin_deg / th.phase_margin_min_deg, decay)


def _grid(config: CheckConfig) -> list[tuple[float, float]]:
    a0, b0 = config.router.alpha, config.router.beta
    offsets = np.arange(-RADIUS, RADIUS + STEP / 2, STEP)
    near = [(round(a0 + da, 6), round(b0 + db, 6)) for da in offsets for db in offsets
            if math.hypot(da, db) <= RADIUS + 1e-9]
    wide = [(float(a), float(b)) for a in WIDE_ALPHA for b in WIDE_BETA]
    return [p for p in dict.fromkeys(near + wide) if p[0] > 0 and p[1] > 0 and p != (a0, b0)]


def steps_pass(config: CheckConfig, points: list[tuple[float, float]]) -> np.ndarray:
    """Whether each point's load doubling and flash crowd meet the thresholds at both RTT extremes."""
    th, env, eta = config.thresholds, config.envelope, config.router.eta
    alphas, betas = (np.array(axis, dtype=float) for axis in zip(*points))
    ok = np.ones(len(points), dtype=bool)
    n = env.flows[0]
    for d0 in {env.rtt_ms[0] / 1000.0, env.rtt_ms[1] / 1000.0}:
        net = network(config, env.link_mbps[1] * 1e6, d0, n)
        for flows, gamma0, limit in ((LOAD_DOUBLING * n, eta / n, th.load_doubling_rtt_max),
                                     (FLASH_CROWD * n, eta / n, th.flash_crowd_rtt_max)):
            params = dict(net, alpha=alphas, beta=betas, N=np.full(len(points), flows))
            verdicts = decide(get_model("rcp"), params, {"gamma0": np.full(len(points), gamma0), "q0": 0.0},
                              max_horizon_rtt=step_horizon_rtt(limit))
            ok &= (verdicts.names == "converged") & (verdicts.convergence_rtt <= limit)
    return ok


def candidates(config: CheckConfig, criterion: str) -> list[tuple[float, float, float]]:
    """Screened grid points, nearest first, then largest linear slack.

    Under a criterion that includes the linear findings, points failing them are dropped;
    under one that includes the nonlinear findings, points whose step responses fail at the
    envelope's RTT extremes are dropped too. The rest of the checks is left to the verification.

    Returns
    -------
    list of (alpha, beta, distance)
    """
    a0, b0 = config.router.alpha, config.router.beta
    ranked = []
    for a, b in _grid(config):
        trial = config.with_gains(a, b)
        m = margins(get_model("rcp"), a, b)
        if criterion != "nonlinear" and not all(f.passed for f in linear_findings(m, trial)):
            continue
        distance = math.hypot(a - a0, b - b0)
        ranked.append((round(distance / STEP), -linear_slack(m, trial.thresholds), a, b, distance))
    if criterion != "linear" and ranked:
        keep = steps_pass(config, [(a, b) for _, _, a, b, _ in ranked])
        ranked = [r for r, k in zip(ranked, keep) if k]
    return [(a, b, d) for _, _, a, b, d in sorted(ranked)]


def suggest(config: CheckConfig, criterion: str, samples: int, workers: int) -> dict | None:
    """The nearest passing (alpha, beta), largest margin first among equally near ones.

    Each candidate is verified with :func:`~rcpstab.check.checks.run_checks` (same criterion,
    envelope sample and thresholds); at most :data:`ATTEMPTS` are tried.

    Returns
    -------
    dict or None
        ``{"alpha", "beta", "distance", "report": CheckReport}``, or None if no candidate passed.
    """
    for a, b, distance in candidates(config, criterion)[:ATTEMPTS]:
        report: CheckReport = run_checks(config.with_gains(a, b), criterion, samples, workers)
        if report.passed:
            return {"alpha": a, "beta": b, "distance": round(distance, 6), "report": report}
    return None
