"""Criticality along a model's whole linear boundary: the first Lyapunov coefficient per Hopf point."""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike
from scipy.optimize import brentq

from ..models.spec import ModelSpec
from .boundary import linear_boundary
from .lyapunov import HopfPoint, hopf_point

__all__ = ["boundary_criticality", "criticality_switch"]

ALPHA_GRID = np.linspace(0.005, 2.5, 200)  # where boundary crossings in alpha are looked for
BRACKET = 1e-3  # half-width of the bracket refined around each crossing


def boundary_criticality(model: ModelSpec, betas: ArrayLike, alphas: ArrayLike = ALPHA_GRID, **values: float) -> list[HopfPoint]:
    """Every Hopf point crossed along alpha at each beta of ``betas``, with its normal form.

    Parameters
    ----------
    model : ModelSpec
        A smooth model (:mod:`.smooth`, ``linear``).
    betas : array_like
        Queue gains (held); the boundary is searched in alpha over ``alphas``.
    **values
        Other parameters (SI units).

    Returns
    -------
    list of HopfPoint
        Ordered by beta, then alpha.
    """
    points = []
    for beta in np.atleast_1d(betas):
        for critical in linear_boundary(model, "alpha", alphas, beta=float(beta)):
            points.append(hopf_point(model, (critical - BRACKET, critical + BRACKET), beta=float(beta), **values))  # type: ignore[arg-type]  # parameter values by name, never `parameter`
    return points


def criticality_switch(model: ModelSpec, beta_bracket: tuple[float, float], branch: str = "high", **values: float) -> float:
    """The beta at which l1 changes sign on one branch (``low`` or ``high`` alpha) of the boundary.

    The bracket must hold a sign change of l1 (see :func:`boundary_criticality`).
    """
    pick = min if branch == "low" else max

    def l1(beta: float) -> float:
        crossings = linear_boundary(model, "alpha", ALPHA_GRID, beta=beta)
        critical = pick(crossings)
        return hopf_point(model, (critical - BRACKET, critical + BRACKET), beta=beta, **values).l1  # type: ignore[arg-type]  # parameter values by name, never `parameter`

    return float(brentq(l1, *beta_bracket, xtol=1e-8))
