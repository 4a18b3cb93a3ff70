"""The single-point loop lenses: ``rcpstab.margins``, ``rcpstab.bode``, ``rcpstab.nyquist`` (and their commands)."""
from __future__ import annotations

import numpy as np

from .common import as_model, single_gain
from .result import Result

__all__ = ["BodeResult", "MarginsResult", "NyquistResult", "bode", "margins", "margins_summary", "nyquist"]


def margins(model, alpha, beta):
    """Gain, phase and delay margins and the rightmost root of ``model``'s linear loop.

    Parameters
    ----------
    model : str or ModelSpec
    alpha, beta : float
        The gains (> 0, dimensionless).

    Returns
    -------
    MarginsResult
        Frequencies normalized (w*d0), delay margin in units of d0; the fields of
        :class:`~rcpstab.linear.margins.Margins` read through.

    Examples
    --------
    >>> m = margins("rcp", 0.4, 0.2)
    >>> m.stable, round(m.phase_margin_deg, 2), round(m.rightmost_root[0], 4)
    (True, 16.25, -0.1092)
    """
    from ..linear.margins import margins as compute

    spec = as_model(model)
    return MarginsResult(compute(spec, single_gain(alpha, "alpha"), single_gain(beta, "beta")), model=spec)


def margins_summary(model_name: str, m) -> str:
    """One line: the verdict, the rightmost root and the margins that exist."""
    gm = "none" if m.gain_margin is None else f"{m.gain_margin:.4g}"
    pm = "none" if m.phase_margin_deg is None else f"{m.phase_margin_deg:.4g} deg"
    dm = "none" if m.delay_margin is None else f"{m.delay_margin:.4g} d0"
    return (f"{model_name} at alpha = {m.alpha:g}, beta = {m.beta:g} is {'STABLE' if m.stable else 'UNSTABLE'} "
            f"(linear loop): rightmost root Re(s*d0) = {m.rightmost_root[0]:.3g}, gain margin {gm}, "
            f"phase margin {pm}, delay margin {dm}")


class MarginsResult(Result):
    """Margins of one loop (:class:`~rcpstab.linear.margins.Margins` in ``.value``)."""

    command = "margins"

    def columns(self) -> dict:
        d = self.to_dict()
        return {"alpha": [d["alpha"]], "beta": [d["beta"]], "stable": [d["stable"]],
                "gain_margin": [d["gain_margin"]], "phase_margin_deg": [d["phase_margin_deg"]],
                "crossover_w_d0": [d["crossover_w"]], "phase_crossover_w_d0": [d["phase_crossover_w"]],
                "delay_margin_d0": [d["delay_margin"]], "rightmost_root_re_s_d0": [d["rightmost_root"][0]],
                "rightmost_root_im_s_d0": [d["rightmost_root"][1]]}

    def summary(self) -> str:
        return margins_summary(self.inputs["model"].name, self.value)

    def plot(self, ax=None, **kwargs):
        """The Bode diagram with the margins marked."""
        return bode(self.inputs["model"], self.value.alpha, self.value.beta).plot(ax, **kwargs)

    def save(self, path: str) -> None:
        bode(self.inputs["model"], self.value.alpha, self.value.beta).save(path)


def bode(model, alpha, beta, pade: int | None = None):
    """Bode response of the loop at one (alpha, beta), exact delay (or a Pade approximation), with its margins.

    Returns
    -------
    BodeResult
        ``.w`` (w*d0), ``.magnitude``, ``.phase_deg``, ``.margins``; ``to_dict()`` is the margins' dict.

    Examples
    --------
    >>> r = bode("rcp", 0.4, 0.2)
    >>> r.to_dict()["stable"], round(r.to_dict()["phase_margin_deg"], 2)
    (True, 16.25)
    """
    from ..linear.bode_plot import bode_response
    from ..linear.nyquist import check_pade

    spec = as_model(model)
    alpha, beta = single_gain(alpha, "alpha"), single_gain(beta, "beta")
    return BodeResult(bode_response(spec, alpha, beta, check_pade(pade)), model=spec)


class BodeResult(Result):
    """A Bode response (:class:`~rcpstab.linear.bode_plot.BodeResponse` in ``.value``)."""

    command = "bode"

    def to_dict(self) -> dict:
        from .result import strict

        return strict(self.value.margins.to_dict())

    def columns(self) -> dict:
        return {"w_d0": self.value.w, "magnitude": self.value.magnitude, "phase_deg": self.value.phase_deg}

    def summary(self) -> str:
        return margins_summary(self.inputs["model"].name, self.value.margins)

    def plot(self, ax=None, **kwargs):
        return self.value.plot(ax)

    def save(self, path: str) -> None:
        from ..linear.bode_plot import save_bode_figure

        save_bode_figure(self.value, path)


def nyquist(model, alpha, beta, pade: int | None = None):
    """The Nyquist curve of the loop at one (alpha, beta) and its count N, P, Z = N + P.

    Returns
    -------
    NyquistResult
        ``.N``, ``.P``, ``.Z``, ``.stable``; ``.curve`` (G(j w)) and ``.margins``.

    Examples
    --------
    >>> r = nyquist("rcp", 0.4, 0.2)
    >>> r.N, r.P, r.Z, r.stable
    (0, 0, 0, True)
    """
    from ..linear.margins import margins as compute
    from ..linear.nyquist import check_pade, nyquist_curve

    spec = as_model(model)
    alpha, beta = single_gain(alpha, "alpha"), single_gain(beta, "beta")
    pade = check_pade(pade)
    curve = nyquist_curve(spec, alpha, beta, pade)
    return NyquistResult(curve, model=spec, margins=compute(spec, alpha, beta), pade=pade)


class NyquistResult(Result):
    """A Nyquist curve (:class:`~rcpstab.linear.nyquist.NyquistCurve` in ``.value``) with its count and margins."""

    command = "nyquist"

    @property
    def N(self) -> int:
        return int(self.value.count.clockwise)

    @property
    def P(self) -> int:
        return int(self.value.count.rhp_poles)

    @property
    def Z(self) -> int:
        return int(self.value.count.unstable)

    @property
    def stable(self) -> bool:
        return self.Z == 0

    @property
    def margins(self):
        return self.inputs["margins"]

    def to_dict(self) -> dict:
        from .result import strict

        c = self.value
        return strict({"model": self.inputs["model"].name, "alpha": c.alpha, "beta": c.beta, "pade": c.pade,
                       "N": self.N, "P": self.P, "Z": self.Z, "stable": self.stable, "margins": self.margins.to_dict()})

    def columns(self) -> dict:
        return {"w_d0": self.value.w, "G_real": np.real(self.value.G), "G_imag": np.imag(self.value.G)}

    def summary(self) -> str:
        c = self.value
        delay = "exact delay" if c.pade is None else f"Pade-{c.pade} delay"
        return (f"{self.inputs['model'].name} at alpha = {c.alpha:g}, beta = {c.beta:g} ({delay}): N = {self.N}, "
                f"P = {self.P}, Z = {self.Z}: {'STABLE' if self.stable else 'UNSTABLE'}")

    def plot(self, ax=None, **kwargs):
        from ..linear.nyquist_plot import nyquist_plot

        return nyquist_plot(self.value, ax=ax, margins=self.margins, **kwargs)

    def save(self, path: str) -> None:
        from ..figures import new_figure, save

        fig = new_figure((6.4, 6.4))
        self.plot(ax=fig.subplots())
        save(fig, path)
