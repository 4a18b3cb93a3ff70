"""XCP's Theorem 1 against the exact region: where its curve leaves it, and drawing it on a map.

Theorem 1 (xcp-katabi.txt lines 238-260) claims stability on beta = sqrt(2) alpha**2 for
0 < alpha < pi/(4 sqrt 2). Being sufficient, the curve must stay inside the exact region
of the delayed linear loop at least that far; :func:`theorem1_exit` finds where it leaves,
from the rightmost characteristic root (no use of the theorem's own argument).
"""

from __future__ import annotations

from functools import cache
from typing import TYPE_CHECKING, Any, cast

import numpy as np

from .linear.roots import rightmost_root
from .models.spec import ModelSpec
from .models.xcp import ALPHA_MAX, theorem1_beta, theorem1_curve

if TYPE_CHECKING:
    from matplotlib.axes import Axes

SCAN_POINTS = 200  # coarse scan of the curve before bisection
BISECTIONS = 60  # halvings of the bracket: below double precision for alpha < 4


def curve_growth_rate(model: ModelSpec, alpha: float) -> float:
    """Real part of the rightmost root (normalized, per d0) at (alpha, sqrt(2) alpha**2)."""
    return rightmost_root(model, alpha, float(theorem1_beta(alpha))).real


@cache  # the exit depends on the model and the range only: a session asking again (a notebook, the command's modes) scans once
def theorem1_exit(model: ModelSpec, alpha_max: float = 2.0) -> float:
    """First alpha at which Theorem 1's curve leaves the exact stable region of ``model``.

    Parameters
    ----------
    model : ModelSpec
        A model whose normalized loop depends on (alpha, beta) only (``xcp``, ``rcp``...).
    alpha_max : float
        End of the scanned stretch of the curve.

    Returns
    -------
    float
        The exit alpha (dimensionless), to about 1e-12; NaN if the curve stays inside
        up to ``alpha_max``.
    """
    alphas = np.linspace(alpha_max / SCAN_POINTS, alpha_max, SCAN_POINTS)
    # The scan stops at the first unstable point (only it is used), the bisection once the bracket is two
    # adjacent floats (a midpoint equal to an end changes nothing): the same answer as the full counts.
    k = next((i for i, alpha in enumerate(alphas) if curve_growth_rate(model, alpha) >= 0), None)
    if k is None:
        return float("nan")
    lo, hi = (alphas[k - 1] if k else 0.0), alphas[k]
    for _ in range(BISECTIONS):
        mid = 0.5 * (lo + hi)
        if mid == lo or mid == hi:
            break
        lo, hi = (lo, mid) if curve_growth_rate(model, mid) >= 0 else (mid, hi)
    return cast(float, 0.5 * (lo + hi))  # a NumPy float64 (a float subclass)


def theorem1_plot(ax: Axes, alpha_max: float | None = None, color: str = "tab:red") -> Axes:
    """Draw Theorem 1's curve on an (alpha, beta) region figure (e.g. from :func:`rcpstab.plotting.region_plot`).

    Parameters
    ----------
    ax : matplotlib.axes.Axes
        The region figure's axes; its limits are kept.
    alpha_max : float, optional
        Draw the curve dashed beyond the theorem's bound, up to this alpha.
    color : str
        Line colour.

    Returns
    -------
    ax
    """
    xlim, ylim = ax.get_xlim(), ax.get_ylim()
    a, b = theorem1_curve()
    ax.plot(a, b, color=color, lw=2, label=r"XCP Theorem 1: $\beta=\sqrt{2}\alpha^2$, $\alpha<\pi/(4\sqrt{2})$")
    if alpha_max is not None and alpha_max > float(ALPHA_MAX):
        a, b = theorem1_curve(alpha_max=alpha_max)
        beyond = a >= float(ALPHA_MAX)
        ax.plot(a[beyond], b[beyond], color=color, lw=1, ls="--", label="same curve, no guarantee")
    ax.plot([float(ALPHA_MAX)], [float(theorem1_beta(float(ALPHA_MAX)))], "o", color=color)
    ax.set_xlim(xlim)
    ax.set_ylim(ylim)
    ax.legend(loc="upper right", fontsize="small")
    return ax


def theorem1_report(model: ModelSpec, alpha_max: float = 2.0) -> dict[str, Any]:
    """Theorem 1's bound against the exact region of ``model``: the numbers ``rcpstab theorem1`` prints.

    Returns
    -------
    dict
        ``bound`` (pi/(4 sqrt 2)), ``exit_alpha`` and ``exit_beta`` (where the curve
        beta = sqrt(2) alpha**2 leaves the exact region, None if it stays inside up to
        ``alpha_max``), ``exit_w`` (w*d0 of the root then on the axis), ``tightness``
        (exit/bound: 1 means the theorem gives exactly the linear region along its curve).

    Examples
    --------
    >>> from rcpstab.models import get_model
    >>> r = theorem1_report(get_model("xcp"))
    >>> round(r["tightness"], 9)
    1.0
    """
    bound = float(ALPHA_MAX)
    exit_alpha = theorem1_exit(model, alpha_max)
    if not np.isfinite(exit_alpha):
        return {
            "model": model.name,
            "bound": bound,
            "exit_alpha": None,
            "exit_beta": None,
            "exit_w": None,
            "tightness": None,
            "notes": {"exit_alpha": f"the curve stays inside up to alpha = {alpha_max:g}"},
        }
    root = rightmost_root(model, exit_alpha, float(theorem1_beta(exit_alpha)))
    return {
        "model": model.name,
        "bound": bound,
        "exit_alpha": float(exit_alpha),
        "exit_beta": float(theorem1_beta(exit_alpha)),
        "exit_w": float(abs(root.imag)),
        "tightness": float(exit_alpha / bound),
        "notes": {},
    }
