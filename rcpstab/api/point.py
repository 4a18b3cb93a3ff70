"""The single-point loop lenses: ``rcpstab.margins``, ``rcpstab.bode``, ``rcpstab.nyquist`` (and their commands)."""

from __future__ import annotations

from typing import Any

import numpy as np

from .common import as_model, single_gain
from .result import Result

__all__ = ["BodeResult", "MarginsResult", "NyquistResult", "bode", "is_loop_model", "margins", "margins_summary", "nyquist"]


def is_loop_model(model) -> bool:
    """Whether ``model`` names one of the delayed fluid loops of :mod:`rcpstab.models.delayloop` (``dcqcn``,
    ``timely``), whose margins take the paper's parameters rather than two gains."""
    from ..models.delayloop import DelayedFluidModel
    from ..models.delayloop import is_loop_model as named

    return named(model) or isinstance(model, DelayedFluidModel)


def margins(model: Any, alpha: Any = None, beta: Any = None, *, delay: Any = None, **parameters: Any) -> Any:
    """Gain, phase and delay margins and the rightmost root of ``model``'s linear loop.

    Parameters
    ----------
    model : str, ModelSpec, control.TransferFunction, control.StateSpace or (num, den)
        A model, or any SISO LTI loop L(s) (closed by unit negative feedback through ``delay``).
    alpha, beta : float or array_like
        The gains (> 0, dimensionless) of a model; arrays broadcast against each other and give
        a :class:`~rcpstab.linear.batch.MarginsBatch` (one result per point).
    delay : float or sequence of float, optional
        An LTI loop's delay(s) in seconds (several add); see :mod:`rcpstab.linear.lti`.
    **parameters : float
        For ``"dcqcn"`` and ``"timely"`` (:mod:`rcpstab.models.delayloop`): parameter values by the
        paper's names, e.g. ``N=10, tau_star=50e-6`` (SI units); arrays give one result per point.

    Returns
    -------
    MarginsResult, MarginsBatch or LoopMargins
        A model at one point: frequencies normalized (w*d0), delay margin in units of d0, the
        fields of :class:`~rcpstab.linear.margins.Margins` read through. Arrays of gains: one
        result per point. An LTI loop's (:class:`~rcpstab.linear.lti.LoopMargins`): rad/s and
        seconds, exact verdict, ``open_loop_rhp_poles`` and ``notes`` where a margin's sign and
        the verdict disagree.

    Examples
    --------
    >>> m = margins("rcp", 0.4, 0.2)
    >>> m.stable, round(m.phase_margin_deg, 2), round(m.rightmost_root[0], 4)
    (True, 16.25, -0.1092)
    >>> margins("rcp", [0.4, 0.5], 0.2).phase_margin_deg.round(2)    # one result per point
    array([16.25, 21.92])
    >>> m = margins(([2.0], [1.0, -1.0]), delay=0.3)         # 2 e^{-0.3 s}/(s - 1)
    >>> m.stable, m.open_loop_rhp_poles, round(m.delay_margin, 6)
    (True, 1, 0.3046)
    """
    from ..errors import InputError
    from ..linear.lti import is_loop

    if is_loop_model(model):
        from ..linear.fluid_loop import model_margins

        if any(np.ndim(v) for v in parameters.values()):  # arrays of parameters: one result per point
            from ..linear.batch import MarginsBatch

            names = list(parameters)
            grid = np.broadcast_arrays(*(np.asarray(parameters[k], float) for k in names))
            points = {k: g.ravel() for k, g in zip(names, grid)}
            size = grid[0].size if grid else 0
            return MarginsBatch(
                model,
                points,
                [
                    model_margins(model, **{k: float(points[k][i]) for k in names})  # type: ignore[arg-type]  # parameter names, never p_star
                    for i in range(size)
                ],
            )
        return model_margins(model, **parameters)
    if delay is not None or is_loop(model):
        from ..linear.lti import loop_margins

        return loop_margins(model, 0.0 if delay is None else delay)
    if parameters:
        raise InputError(f"{', '.join(parameters)}: margins of a model take alpha and beta only")
    if alpha is None or beta is None:
        raise InputError(f"margins of model {getattr(model, 'name', model)!r}: give alpha and beta")
    spec = as_model(model)
    if not isinstance(alpha, str) and not isinstance(beta, str) and (np.ndim(alpha) or np.ndim(beta)):
        from ..linear.batch import margins_many  # one result per point, never the first alone

        return margins_many(spec, alpha, beta)
    from ..linear.margins import margins as compute

    return MarginsResult(compute(spec, single_gain(alpha, "alpha"), single_gain(beta, "beta")), model=spec)


def margins_summary(model_name: str, m) -> str:
    """One line: the verdict, the rightmost root and the margins that exist."""
    gm = "none" if m.gain_margin is None else f"{m.gain_margin:.4g}"
    pm = "none" if m.phase_margin_deg is None else f"{m.phase_margin_deg:.4g} deg"
    dm = "none" if m.delay_margin is None else f"{m.delay_margin:.4g} d0"
    return (
        f"{model_name} at alpha = {m.alpha:g}, beta = {m.beta:g} is {'STABLE' if m.stable else 'UNSTABLE'} "
        f"(linear loop): rightmost root Re(s*d0) = {m.rightmost_root[0]:.3g}, gain margin {gm}, "
        f"phase margin {pm}, delay margin {dm}"
    )


class MarginsResult(Result):
    """Margins of one loop (:class:`~rcpstab.linear.margins.Margins` in ``.value``)."""

    command = "margins"

    def columns(self) -> dict:
        d = self.to_dict()
        return {
            "alpha": [d["alpha"]],
            "beta": [d["beta"]],
            "stable": [d["stable"]],
            "gain_margin": [d["gain_margin"]],
            "phase_margin_deg": [d["phase_margin_deg"]],
            "crossover_w_d0": [d["crossover_w"]],
            "phase_crossover_w_d0": [d["phase_crossover_w"]],
            "delay_margin_d0": [d["delay_margin"]],
            "rightmost_root_re_s_d0": [d["rightmost_root"][0]],
            "rightmost_root_im_s_d0": [d["rightmost_root"][1]],
        }

    def summary(self) -> str:
        return margins_summary(self.inputs["model"].name, self.value)

    def plot(self, ax=None, **kwargs):
        """The Bode diagram with the margins marked."""
        return bode(self.inputs["model"], self.value.alpha, self.value.beta).plot(ax, **kwargs)

    def save(self, path: str) -> None:
        bode(self.inputs["model"], self.value.alpha, self.value.beta).save(path)


def bode(model, alpha=None, beta=None, pade: int | None = None, *, delay=None, w=None):
    """Bode response of the loop at one (alpha, beta), exact delay (or a Pade approximation), with its margins.

    Parameters
    ----------
    model : str, ModelSpec, control.TransferFunction, control.StateSpace or (num, den)
        A bundled model's name (``"rcp"``, ``"xcp"``, ...), a protocol file's path or a
        :class:`~rcpstab.models.ModelSpec`; or any SISO LTI loop L(s), closed through ``delay``.
    alpha, beta : float
        The controller gains (> 0, dimensionless) of a model.
    pade : int, optional
        Order of the Pade approximation of the delay e^{-s d0} (>= 1); ``None`` (default): the exact delay.
    delay : float or sequence of float, optional
        An LTI loop's delay(s) in seconds (several add).
    w : array_like, optional
        The frequencies: a model's normalized ones (w*d0, rad per round trip; default 2000 log-spaced
        points up to 10x past ``|G|`` = 1), an LTI loop's in rad/s (see
        :func:`~rcpstab.linear.lti_response.loop_bode`).

    Returns
    -------
    BodeResult or LoopBode
        A model's: ``.w`` (w*d0), ``.magnitude``, ``.phase_deg``, ``.margins``; ``to_dict()`` is the
        margins' dict. An LTI loop's (:class:`~rcpstab.linear.lti_response.LoopBode`): w in rad/s,
        magnitude, continuous phase (deg), exact margins; ``.plot()`` labelled in those units.

    Examples
    --------
    >>> r = bode("rcp", 0.4, 0.2)
    >>> r.to_dict()["stable"], round(r.to_dict()["phase_margin_deg"], 2)
    (True, 16.25)
    >>> r = bode(([2.0], [1.0, -1.0]), delay=0.3, w=[1.0])       # 2 e^{-0.3 s}/(s - 1) at 1 rad/s
    >>> round(float(r.magnitude[0]), 6), round(float(r.phase_deg[0]), 2)
    (1.414214, -152.19)
    >>> r = bode("rcp", 0.4, 0.2, w=[0.5, 1.0])          # one's own grid of w*d0
    >>> r.magnitude.round(4).tolist()                    # |G| = sqrt(alpha^2 w^2 + beta^2) / w^2
    [1.1314, 0.4472]
    """
    from ..linear.lti import is_loop

    if delay is not None or is_loop(model):
        from ..linear.lti_response import loop_bode

        return loop_bode(model, 0.0 if delay is None else delay, w=w)
    from ..linear.bode_plot import bode_response

    spec, alpha, beta, pade = _model_point("bode", model, alpha, beta, pade)
    if w is not None:
        from ..errors import InputError

        w = np.asarray(w, float)
        if w.ndim != 1 or w.size == 0 or not (np.isfinite(w).all() and (w > 0).all()):
            raise InputError(f"w: frequencies must be a non-empty 1-D array of positive numbers (w*d0), got {w!r:.80}")
    return BodeResult(bode_response(spec, alpha, beta, pade, w=w), model=spec)


def _model_point(command: str, model, alpha, beta, pade):
    """A model's arguments of :func:`bode` or :func:`nyquist`, checked: (spec, alpha, beta, pade)."""
    from ..linear.nyquist import check_pade

    if alpha is None or beta is None:
        from ..errors import InputError

        raise InputError(f"{command} of model {getattr(model, 'name', model)!r}: give alpha and beta")
    return as_model(model), single_gain(alpha, "alpha"), single_gain(beta, "beta"), check_pade(pade)


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


def nyquist(model, alpha=None, beta=None, pade: int | None = None, *, delay=None):
    """The Nyquist curve of the loop at one (alpha, beta) and its count N, P, Z = N + P.

    Parameters
    ----------
    model : str, ModelSpec, control.TransferFunction, control.StateSpace or (num, den)
        A bundled model's name (``"rcp"``, ``"xcp"``, ...), a protocol file's path or a
        :class:`~rcpstab.models.ModelSpec`; or any strictly proper SISO LTI loop L(s), closed
        through ``delay``.
    alpha, beta : float
        The controller gains (> 0, dimensionless) of a model.
    pade : int, optional
        Order of the Pade approximation of the delay e^{-s d0} (>= 1); ``None`` (default): the exact delay.
    delay : float or sequence of float, optional
        An LTI loop's delay(s) in seconds (several add).

    Returns
    -------
    NyquistResult or LoopNyquist
        ``.N``, ``.P``, ``.Z``, ``.stable``; a model's ``.curve`` (G(j w)) and ``.margins``; an LTI
        loop's (:class:`~rcpstab.linear.lti_response.LoopNyquist`) ``.w`` (rad/s), ``.L``, ``.margins``.

    Examples
    --------
    >>> r = nyquist("rcp", 0.4, 0.2)
    >>> r.N, r.P, r.Z, r.stable
    (0, 0, 0, True)
    >>> r = nyquist(([2.0], [1.0, -1.0]), delay=0.3)       # one counter-clockwise turn around -1
    >>> r.N, r.P, r.Z, r.stable
    (-1, 1, 0, True)
    """
    from ..linear.lti import is_loop

    if delay is not None or is_loop(model):
        from ..linear.lti_response import loop_nyquist

        return loop_nyquist(model, 0.0 if delay is None else delay)
    from ..linear.margins import margins as compute
    from ..linear.nyquist import nyquist_curve

    spec, alpha, beta, pade = _model_point("nyquist", model, alpha, beta, pade)
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
        return strict(
            {
                "model": self.inputs["model"].name,
                "alpha": c.alpha,
                "beta": c.beta,
                "pade": c.pade,
                "N": self.N,
                "P": self.P,
                "Z": self.Z,
                "stable": self.stable,
                "margins": self.margins.to_dict(),
            }
        )

    def columns(self) -> dict:
        return {"w_d0": self.value.w, "G_real": np.real(self.value.G), "G_imag": np.imag(self.value.G)}

    def summary(self) -> str:
        c = self.value
        delay = "exact delay" if c.pade is None else f"Pade-{c.pade} delay"
        return (
            f"{self.inputs['model'].name} at alpha = {c.alpha:g}, beta = {c.beta:g} ({delay}): N = {self.N}, "
            f"P = {self.P}, Z = {self.Z}: {'STABLE' if self.stable else 'UNSTABLE'}"
        )

    def plot(self, ax=None, **kwargs):
        from ..linear.nyquist_plot import nyquist_plot

        return nyquist_plot(self.value, ax=ax, margins=self.margins, **kwargs)

    def save(self, path: str) -> None:
        from ..figures import new_figure, save

        fig = new_figure((6.4, 6.4))
        self.plot(ax=fig.subplots())
        save(fig, path)
