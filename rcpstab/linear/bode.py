"""The Bode criterion of thesis eqs. 5.8-5.12 and App. C, and its general form for any loop.

:func:`bode_region` decides by :mod:`.phasecross`: the crossings of -180 + k*360 deg where
``|G|`` > 1, counted with their direction, plus the w -> 0 end. For loops whose phase starts
above -180 deg (RCP) that is the thesis' rule below; for RCP-AC, whose phase starts at
-270 deg, the thesis' rule is wrong and this one is not. :func:`crossovers` keeps the
thesis' first gain and phase crossovers (eqs. 5.10-5.11).

Thesis' rule:

The closed loop is stable when ``|G(j w)|`` < 1 where the phase of G crosses -pi, i.e. the
gain crossover w_z (``|G|`` = 1) comes before the phase crossover w_c (phase = -pi). For a
loop with a double integrator the phase starts at -pi; it only comes back to -pi at a
positive frequency if it first rises, which needs alpha/beta > 1 (App. C). Without a
phase crossover the loop is unstable. The thesis notes the criterion holds when ``|G|``
crosses 1 once, as it does for RCP; points where it crosses more often are reported in
``meta['multiple_gain_crossovers']``.

Frequencies are normalized (w*d0).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from ..models import as_model
from ..models.spec import ModelSpec
from .bisection import bisect_brackets
from .grid import check_gains
from .openloop import OpenLoop, open_loop
from .phasecross import phase_crossings
from .result import RegionMap

COARSE_STEP = 0.02  # the rational part's phase turns far less than pi per step
CHUNK = 4000


@dataclass(frozen=True)
class Crossovers:
    """Gain and phase crossover frequencies (normalized w*d0) of a set of loops.

    ``phase_w`` is NaN where the phase never returns to -pi (App. C's alpha/beta <= 1).
    ``gain_count`` is how many times ``|G|`` crosses 1.
    """

    gain_w: np.ndarray
    phase_w: np.ndarray
    gain_count: np.ndarray


def _band(ol: OpenLoop, alpha: np.ndarray, beta: np.ndarray, gain: bool) -> np.ndarray:
    """A frequency band that contains every phase crossover (and, with ``gain``, gain crossover).

    The rational part's phase stays within (deg num + deg den) * pi/2 of its start while the
    delay subtracts theta*w, so no phase crossover lies beyond ``phase_limit``. A gain
    crossover beyond it cannot make a loop stable (the phase crossed first, or never), so the
    region needs only that band; margins want the gain crossover wherever it is.
    """
    order = ol.num.shape[0] - 1 + ol.den.size - 1
    top = np.pi * (order + 2) / (2 * max(ol.theta, 1e-9)) + 1.0
    if gain:
        big = np.max(np.abs(ol.num[:, 0]) + np.abs(ol.num[:, 1]) * np.max(alpha) + np.abs(ol.num[:, 2]) * np.max(beta))
        top = max(top, 4.0 + 4.0 * big / max(np.min(np.abs(ol.den)), 1e-9))
    return np.arange(1e-4, top + COARSE_STEP, COARSE_STEP)


def crossovers(model: ModelSpec, alpha: ArrayLike, beta: ArrayLike, gain_band: bool = True) -> Crossovers:
    """Gain and phase crossovers of the loops at the points (alpha[i], beta[i]).

    With ``gain_band=False`` gain crossovers past the last possible phase crossover are
    not searched for (NaN): enough for the Bode verdict, and faster.
    """
    ol = open_loop(model)
    alpha = np.atleast_1d(np.asarray(alpha, float)).ravel()
    beta = np.atleast_1d(np.asarray(beta, float)).ravel()
    gain_w = np.full(alpha.size, np.nan)
    phase_w = np.full(alpha.size, np.nan)
    gain_count = np.zeros(alpha.size, dtype=int)
    w = _band(ol, alpha, beta, gain_band)
    for start in range(0, alpha.size, CHUNK):
        sl = slice(start, start + CHUNK)
        a, b = alpha[sl, None], beta[sl, None]
        mag, phase = ol.magnitude_phase(w, a, b)
        rows = np.arange(mag.shape[0])

        above = mag > 1
        flips = above[:, :-1] != above[:, 1:]
        gain_count[sl] = flips.sum(axis=1)
        first = np.where(flips.any(axis=1), flips.argmax(axis=1), -1)
        has = first >= 0
        k = first[has]
        gain_w[sl][has] = bisect_brackets(lambda x, i: np.abs(ol(1j * x, a[has][i, 0], b[has][i, 0])) - 1, w[k], w[k + 1])

        # Phase crossover: the first return to -pi from above after the initial bump.
        rel = phase + np.pi
        down = (rel[:, :-1] > 0) & (rel[:, 1:] <= 0)
        first = np.where(down.any(axis=1), down.argmax(axis=1), -1)
        has = first >= 0
        k = first[has]
        base_phase = phase[rows[has], k]
        base_w = w[k]
        base_angle = np.angle(ol.rational(1j * base_w, a[has][:, 0], b[has][:, 0]))

        def phase_plus_pi(x: np.ndarray, i: np.ndarray) -> np.ndarray:
            # Continue the phase from the bracket's left end: the rational part moves by
            # far less than pi inside one coarse step, so wrapping its change is exact.
            r = np.angle(ol.rational(1j * x, a[has][i, 0], b[has][i, 0]))
            step = (r - base_angle[i] + np.pi) % (2 * np.pi) - np.pi
            continued: np.ndarray = base_phase[i] + step - ol.theta * (x - base_w[i]) + np.pi
            return continued

        phase_w[sl][has] = bisect_brackets(phase_plus_pi, w[k], w[k + 1])
    return Crossovers(gain_w=gain_w, phase_w=phase_w, gain_count=gain_count)


def bode_region(model: ModelSpec, alphas: ArrayLike, betas: ArrayLike, params: dict[str, float] | None = None) -> RegionMap:
    """Stable points by the Bode diagram: no net crossing of -180 + k*360 deg where ``|G|`` > 1.

    Parameters
    ----------
    model : ModelSpec
    alphas, betas : array_like
        Grid axes (positive gains).
    params : dict, optional
        Any other parameter the model declares, by name, one value each (the model's own
        values otherwise): the linear loop at those values.

    Returns
    -------
    RegionMap
        ``table['unstable_roots']`` is Z from the count; ``meta['multiple_gain_crossovers']``
        the number of points where ``|G|`` crosses 1 more than once.

    Examples
    --------
    >>> from rcpstab.models import get_model
    >>> bode_region(get_model("rcpac"), [0.4, 1.6], [0.1]).stable.astype(int).tolist()
    [[1, 0]]
    """
    model = as_model(model).with_values(params)  # a name works too; anything else is an InputError
    alphas = check_gains(alphas, "alpha")
    betas = check_gains(betas, "beta")
    A, B = np.meshgrid(alphas, betas)
    pc = phase_crossings(open_loop(model), A.ravel(), B.ravel())
    z = pc.unstable()
    table = {"alpha": A.ravel(), "beta": B.ravel(), "stable": (z == 0).astype(int), "unstable_roots": z}
    return RegionMap(
        model=model,
        method="bode",
        alpha=alphas,
        beta=betas,
        stable=(z == 0).reshape(A.shape),
        table=table,
        meta={"multiple_gain_crossovers": int((pc.gain_count > 1).sum())},
    )
