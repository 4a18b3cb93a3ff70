"""Gain, phase and delay margins of a model's loop at one (alpha, beta).

All frequencies are normalized (w*d0, rad per round trip) and the delay margin is in
units of d0: multiply by d0 for seconds. Stability itself comes from the rightmost
characteristic root (:mod:`.roots`), not from the margins, so the two can be compared.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass

import numpy as np

from ..models import as_model
from ..models.spec import ModelSpec
from .bode import crossovers
from .grid import check_gains
from .openloop import open_loop
from .roots import rightmost_root


@dataclass(frozen=True)
class Margins:
    """Stability margins of the loop G at one (alpha, beta).

    Attributes
    ----------
    stable : bool
        Every characteristic root has a negative real part.
    gain_margin : float or None
        ``1/|G(j w_c)|``: the factor by which both gains may grow before instability.
        None when the phase never returns to -pi (alpha/beta <= 1, App. C).
    phase_margin_deg : float
        180 + phase of G at the gain crossover, degrees.
    crossover_w : float
        Gain crossover w_z*d0 (``|G|`` = 1).
    phase_crossover_w : float or None
        Phase crossover w_c*d0 (phase = -pi after the initial bump).
    delay_margin : float
        Extra loop delay, in units of d0, that removes the phase margin: PM/w_z.
        Negative when the loop is already unstable.
    rightmost_root : tuple of float
        (Re, Im) of the rightmost characteristic root, normalized (s*d0).
    """

    alpha: float
    beta: float
    stable: bool
    gain_margin: float | None
    phase_margin_deg: float
    crossover_w: float
    phase_crossover_w: float | None
    delay_margin: float
    rightmost_root: tuple

    def __repr__(self) -> str:
        def num(x):
            return "None" if x is None else f"{x:.4g}"
        re, im = self.rightmost_root
        return (f"Margins(alpha={self.alpha:g}, beta={self.beta:g}, stable={self.stable}, gain_margin={num(self.gain_margin)}, "
                f"phase_margin_deg={num(self.phase_margin_deg)}, delay_margin={num(self.delay_margin)}, "
                f"rightmost_root=({re:.4g}{im:+.4g}j))")

    def to_dict(self) -> dict:
        out = asdict(self)
        out["rightmost_root"] = list(self.rightmost_root)
        return out


def margins(model: ModelSpec, alpha: float, beta: float) -> Margins:
    """Compute :class:`Margins` for ``model`` at (``alpha``, ``beta``)."""
    model = as_model(model)  # a name works too; anything else is an InputError
    alpha = float(check_gains(alpha, "alpha")[0])
    beta = float(check_gains(beta, "beta")[0])
    ol = open_loop(model)
    c = crossovers(model, alpha, beta)
    wz = float(c.gain_w[0])
    wc = float(c.phase_w[0])
    # Phase at w_z, continued from w -> 0+ on a fine grid (no 2*pi ambiguity).
    _, phase = ol.magnitude_phase(np.linspace(1e-6, wz, 20001), alpha, beta)
    pm = float(phase[-1] + np.pi)
    gm = None if np.isnan(wc) else float(1.0 / abs(ol(1j * wc, alpha, beta)))
    root = rightmost_root(model, alpha, beta)
    return Margins(alpha=alpha, beta=beta, stable=bool(root.real < 0), gain_margin=gm,
                   phase_margin_deg=float(np.degrees(pm)), crossover_w=wz,
                   phase_crossover_w=None if np.isnan(wc) else wc, delay_margin=pm / wz,
                   rightmost_root=(root.real, root.imag))
