"""The exact linear stability boundary along one gain, from the regions lens' rightmost roots."""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike
from scipy.optimize import brentq

from ..errors import InputError
from ..linear.roots import rightmost_root, rightmost_roots_many
from ..models.spec import ModelSpec
from .lyapunov import _rightmost, _time_scale

__all__ = ["linear_boundary", "rightmost_real"]


def rightmost_real(model: ModelSpec, alpha: float, beta: float) -> float:
    """Real part of the rightmost characteristic root, per RTT (Re(s) * d0).

    Examples
    --------
    >>> from rcpstab.models import get_model
    >>> abs(rightmost_real(get_model("linear"), 1.40611, 0.3)) < 1e-5   # on the boundary
    True
    """
    try:
        return float(rightmost_root(model, alpha, beta).real)
    except InputError:
        # a model whose loop the regions lens cannot normalize (e.g. no d0 scaling): the same
        # collocation estimate, polished on det Delta(lambda) at the model's own parameter values
        first, second = (sym.name for sym in model.loop_parameters)
        values = {**{s.name: v for s, v in model.parameters.items()}, first: alpha, second: beta}
        return float(_rightmost(model, values).real * _time_scale(model, values))


def linear_boundary(model: ModelSpec, parameter: str, values: ArrayLike, **fixed: float) -> list[float]:
    """Gains in ``[values[0], values[-1]]`` where the rightmost root crosses the imaginary axis.

    Sign changes of Re(rightmost root) between consecutive ``values`` are refined with brentq
    (a crossing and its return between two grid values are missed: the grid sets the resolution).
    """
    values = np.asarray(values, dtype=float)

    def real(gain: float) -> float:
        gains = {**fixed, parameter: gain}
        return rightmost_real(model, gains["alpha"], gains["beta"])

    try:  # the grid only gives signs: one batched eigenvalue call (brentq refines per point, as before)
        gains = {**fixed, parameter: values}
        alphas, betas = np.broadcast_arrays(np.asarray(gains["alpha"], float), np.asarray(gains["beta"], float))
        reals = list(rightmost_roots_many(model, alphas, betas).real)
    except InputError:  # a loop the regions lens cannot normalize: rightmost_real's own fallback, per point
        reals = [real(v) for v in values]
    return [
        float(brentq(real, a, b, xtol=1e-12))
        for a, b, ra, rb in zip(values[:-1], values[1:], reals[:-1], reals[1:])
        if np.sign(ra) != np.sign(rb) and ra != 0
    ]
