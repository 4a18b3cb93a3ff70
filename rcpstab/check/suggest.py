"""A passing (alpha, beta) near a failing one, verified by running the same checks on it."""
from __future__ import annotations

import math

import numpy as np

from ..models import get_model
from ..regions.margins import Margins, margins
from .checks import CheckReport, linear_findings, run_checks
from .config import CheckConfig, Thresholds

RADIUS = 0.3    # search alpha and beta within this distance of the configured point
STEP = 0.05     # grid spacing of the search
ATTEMPTS = 3    # candidates verified with the full checks, best first


def linear_slack(m: Margins, th: Thresholds) -> float:
    """How far the linear findings are from their thresholds: the smallest figure/threshold ratio.

    Above 1 every linear threshold is met; larger is more margin.
    """
    re = m.rightmost_root[0]
    gm = math.inf if m.gain_margin is None and m.stable else (m.gain_margin or 0.0)
    decay = re / th.rightmost_real_max if th.rightmost_real_max < 0 else 1.0 + th.rightmost_real_max - re
    return min(gm / th.gain_margin_min, m.phase_margin_deg / th.phase_margin_min_deg, decay)


def candidates(config: CheckConfig, criterion: str) -> list[tuple[float, float, float]]:
    """Grid points around the configured gains, nearest first, then largest linear slack.

    Under a criterion that includes the linear findings, points failing them are dropped
    (they cannot pass); the nonlinear findings are left to the verification.

    Returns
    -------
    list of (alpha, beta, distance)
    """
    a0, b0 = config.router.alpha, config.router.beta
    offsets = np.arange(-RADIUS, RADIUS + STEP / 2, STEP)
    ranked = []
    for da in offsets:
        for db in offsets:
            a, b = round(a0 + da, 6), round(b0 + db, 6)
            distance = math.hypot(da, db)
            if a <= 0 or b <= 0 or distance == 0 or distance > RADIUS + 1e-9:
                continue
            trial = config.with_gains(a, b)
            m = margins(get_model("rcp"), a, b)
            if criterion != "nonlinear" and not all(f.passed for f in linear_findings(m, trial)):
                continue
            ranked.append((round(distance / STEP), -linear_slack(m, trial.thresholds), a, b, distance))
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
