"""One loop's Bode diagram with its margins: data (:func:`bode_response`) and drawing (:func:`bode_plot`).

The look follows python-control's ``bode_plot``: magnitude on log axes, phase in degrees,
frequency on a log axis, the gain and phase crossovers marked by dashed lines and the
margins in the title. Frequencies are normalized (w*d0, rad per round trip).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import ArrayLike

from ..figures import new_figure, save
from ..models.spec import ModelSpec
from .bode_axes import draw_bode, finish_bode
from .margins import Margins, margins
from .nyquist import check_pade, loop_value, tail_frequency
from .openloop import open_loop
from .phasecross import _continuous_phase

if TYPE_CHECKING:
    from matplotlib.axes import Axes

__all__ = ["BodeResponse", "bode_response", "bode_plot", "save_bode_figure"]


@dataclass(frozen=True)
class BodeResponse:
    """Frequency response of one loop.

    Attributes
    ----------
    alpha, beta : float
        The gains.
    pade : int or None
        Pade order of the delay, None for the exact delay.
    w : ndarray
        Normalized frequencies w*d0.
    magnitude : ndarray
        ``|G(j w)|``.
    phase_deg : ndarray
        Continuous phase of G(j w) in degrees, from its w -> 0 value.
    margins : Margins
        Of the exact-delay loop.
    """

    alpha: float
    beta: float
    pade: int | None
    w: np.ndarray
    magnitude: np.ndarray
    phase_deg: np.ndarray
    margins: Margins

    def plot(self, axes: Sequence[Axes] | None = None) -> tuple[Axes, Axes]:
        """:func:`bode_plot` of this response."""
        return bode_plot(self, axes)


def bode_response(
    model: ModelSpec, alpha: float, beta: float, pade: int | None = None, w: ArrayLike | None = None
) -> BodeResponse:
    """G(j w) of one loop on ``w`` (default: 2000 log-spaced points up to 10x past ``|G|`` = 1).

    Examples
    --------
    >>> from rcpstab.models import get_model
    >>> r = bode_response(get_model("rcp"), 0.4, 0.2)
    >>> round(float(r.phase_deg[0]))          # starts near -180 deg (double integrator)
    -180
    """
    pade = check_pade(pade)
    m = margins(model, alpha, beta)
    ol = open_loop(model)
    if w is None:
        top = 10 * max(float(tail_frequency(ol, alpha, beta)), 1.0)
        w = np.geomspace(1e-3 * min(1.0, m.crossover_w or 1.0), top, 2000)
    w = np.asarray(w, float)
    G = loop_value(ol, 1j * w, alpha, beta, pade)
    k0 = ol.rational(np.zeros(1), alpha, beta).real[0]
    arg_k = np.pi if k0 < 0 else 0.0
    if pade is None:
        phase = _continuous_phase(ol, w, np.array([[alpha]]), np.array([[beta]]), np.array([[arg_k]]))[0]
    else:
        # The Pade loop is rational: unwrap its sampled phase and start it where the exact one starts.
        phase = np.unwrap(np.angle(G))
        start = arg_k - ol.integrators * np.pi / 2
        phase += 2 * np.pi * np.round((start - phase[0]) / (2 * np.pi))
    return BodeResponse(
        alpha=float(alpha), beta=float(beta), pade=pade, w=w, magnitude=np.abs(G), phase_deg=np.degrees(phase), margins=m
    )


def bode_plot(response: BodeResponse, axes: Sequence[Axes] | None = None) -> tuple[Axes, Axes]:
    """Magnitude and phase panels, crossovers and margins marked (python-control's layout).

    Parameters
    ----------
    response : BodeResponse
    axes : sequence of two Axes, optional
        Magnitude and phase axes; a new figure's if None.

    Returns
    -------
    (Axes, Axes)
    """
    if axes is None:
        fig = new_figure((6.4, 6.0))
        axes = fig.subplots(2, 1, sharex=True)
    mag_ax, phase_ax = axes
    m = response.margins
    delay = "exact delay" if response.pade is None else f"Pade-{response.pade} delay"
    draw_bode(axes, response.w, response.magnitude, response.phase_deg, f"G(j w), {delay}", m.crossover_w, m.phase_crossover_w)
    gm = "none" if m.gain_margin is None else f"{m.gain_margin:.3g}"
    pm = "none" if m.phase_margin_deg is None else f"{m.phase_margin_deg:.3g} deg"
    wz = "-" if m.crossover_w is None else f"{m.crossover_w:.3g}"
    wc = "-" if m.phase_crossover_w is None else f"{m.phase_crossover_w:.3g}"
    mag_ax.set_title(
        f"alpha = {response.alpha:g}, beta = {response.beta:g}: "
        f"{'stable' if m.stable else 'UNSTABLE'}\nGm = {gm} (at w d0 = {wc}), "
        f"Pm = {pm} (at w d0 = {wz})",
        fontsize="medium",
    )
    mag_ax.set_ylabel("|G(j w)|")
    phase_ax.set_ylabel("phase (deg)")
    phase_ax.set_xlabel("w d0 (rad per round trip)")
    finish_bode(axes)
    return mag_ax, phase_ax


def save_bode_figure(response: BodeResponse, path: str) -> None:
    """:func:`bode_plot` in a new figure, written to ``path``."""
    fig = new_figure((6.4, 6.0))
    bode_plot(response, fig.subplots(2, 1, sharex=True))
    save(fig, path)
