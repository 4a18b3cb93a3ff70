"""The XCP fluid model (Katabi et al., xcp-katabi.txt App. B eqs. 15-16) and Theorem 1.

    dq/dt = y(t) - c                                              (15)
    dy/dt = -(alpha/d)*(y(t-d) - c) - (beta/d**2)*q(t-d)          (16)

with y the aggregate input rate (bit/s), q the queue (bits), c the capacity and d the
common round-trip delay. The paper's analysis "neglects boundary conditions (queues are
bounded, rates cannot be negative)" (lines 231-233); here they are kept, as clamps at 0
on q and on y, so the phase plane sees the switched system, and the queue is held below the
buffer (``buffer`` bits, unbounded by default) with the overflow dropped and integrated in the
state ``dropped``. On loss, XCP senders "respond in a similar manner to TCP" (line 130): a
real sender would cut its window. Eqs. 15-16 have no loss term, so in this model a drop only
removes volume and y keeps following the router's feedback: an omission (XCP "almost never
drops", lines 264, 291), which makes the model optimistic about recovery once drops happen. Eqs. 15-16 are, term by term,
the thesis' switched RCP system (eq. 5.14) with c = C and d = d0, so the model is built
by the same factory; only the clamps and the name differ. The fairness controller
(eq. 17) only splits y among flows and does not enter the aggregate loop.

Theorem 1 (lines 238-260, proof lines 585-651): beta = sqrt(2)*alpha**2 with
0 < alpha < pi/(4*sqrt(2)) is a *sufficient* condition for stability at any delay.
:func:`theorem1_curve` gives the curve for drawing it on an (alpha, beta) map.
"""

from __future__ import annotations

import numpy as np
import sympy as sp
from numpy.typing import ArrayLike

from .spec import Clamp
from .switched import aggregate_rate_model, q, y
from .symbols import buffer, dropped

ALPHA_MAX = sp.pi / (4 * sp.sqrt(2))
"""Theorem 1's upper bound on alpha, pi/(4 sqrt 2) ~ 0.5554."""

MODEL = aggregate_rate_model(
    "xcp",
    "XCP fluid model, Katabi et al. eqs. 15-16 (queue held in [0, buffer], rate clamped at 0)",
    clamps=(Clamp(q, upper=buffer, overflow=dropped), Clamp(y)),
)

PAPER_POINT = (0.4, 0.226)
"""XCP's published gains (xcp-katabi.txt line 143): a point of the (alpha, beta) plane."""


def theorem1_beta(alpha: ArrayLike) -> np.ndarray:
    """Theorem 1's beta = sqrt(2) * alpha**2 (dimensionless), elementwise."""
    beta: np.ndarray = np.sqrt(2.0) * np.asarray(alpha, dtype=float) ** 2
    return beta


def theorem1_curve(n: int = 200, alpha_max: float | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Theorem 1's curve, sampled for plotting.

    Parameters
    ----------
    n : int
        Number of samples.
    alpha_max : float, optional
        Last alpha; default Theorem 1's bound pi/(4 sqrt 2) (the sampled interval is
        open at 0 and closed at the bound, which the theorem excludes, so the drawn end
        marks where the guarantee stops).

    Returns
    -------
    alpha, beta : ndarray, shape (n,)
        Points of beta = sqrt(2) alpha**2, 0 < alpha <= alpha_max.
    """
    top = float(ALPHA_MAX) if alpha_max is None else float(alpha_max)
    alpha = np.linspace(top / n, top, n)
    return alpha, theorem1_beta(alpha)
