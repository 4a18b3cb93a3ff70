"""Textbook delay equations with a known Hopf bifurcation, to validate :mod:`.lyapunov`.

Wright's form of Hutchinson's delayed logistic equation::

    x'(t) = -a x(t - 1) (1 + x(t)),

(N = K (1 + x) in Hutchinson's N' = r N (1 - N(t - 1)/K), with a = r) loses stability at
a = pi/2 with the pair +-i pi/2, and the bifurcation is supercritical: the periodic solutions
are x(t) = eps sin(pi t / 2) + O(eps^2) with a - pi/2 = eps^2 (3 pi - 2) / 40 + O(eps^3)
(Chow and Mallet-Paret 1977; Hassard, Kazarinoff and Wan, *Theory and Applications of Hopf
Bifurcation*, 1981, on Wright's equation). So the amplitude law is
eps = sqrt(40 (a - pi/2) / (3 pi - 2)).
"""

from __future__ import annotations

import math

import sympy as sp

from ..models.spec import ModelSpec, t

__all__ = ["HUTCHINSON_CRITICAL", "HUTCHINSON_AMPLITUDE", "bistable_model", "hutchinson_model"]

HUTCHINSON_CRITICAL = math.pi / 2
"""Hopf point of Wright's equation (a*, and w* = pi/2 rad per unit delay)."""
HUTCHINSON_AMPLITUDE = math.sqrt(40 / (3 * math.pi - 2))
"""Amplitude of the bifurcating cycle per sqrt(a - pi/2) (Chow and Mallet-Paret)."""


def hutchinson_model() -> ModelSpec:
    """Wright's equation x' = -a x(t-1)(1+x) as a :class:`ModelSpec` (gain ``alpha`` = a, delay ``d_0`` = 1).

    Examples
    --------
    >>> from rcpstab.bifurcation.lyapunov import hopf_point
    >>> point = hopf_point(hutchinson_model(), (1.4, 1.7))
    >>> round(point.critical, 9), point.criticality
    (1.570796327, 'supercritical')
    """
    x = sp.Function("x")
    a, b = sp.symbols("alpha beta", positive=True)
    tau = sp.Symbol("d_0", positive=True)
    g0, q0 = sp.symbols("gamma_0 q_0", nonnegative=True)
    return ModelSpec(
        name="hutchinson",
        title="Wright's form of Hutchinson's delayed logistic equation",
        states=(x,),
        rhs=(-a * x(t - tau) * (1 + x(t)),),
        parameters={a: math.pi / 2, b: 1.0, tau: 1.0},  # b unused (the gain pair needs a second gain)
        equilibrium={x: sp.Integer(0)},
        loop_parameters=(a, b),
        time_scale=tau,
        gamma=x(t),
        queue=sp.Integer(0),
        initial_state={x: g0},
    )


def bistable_model() -> ModelSpec:
    """A delay equation with a subcritical Hopf point and a stable large cycle (two attractors).

    ``y' = -alpha u - beta u**3 + u**5`` with ``u = y(t - 1) - 1``: the linear part is Wright's
    (Hopf point at alpha = pi/2); the cubic raises the loop gain with the amplitude (subcritical),
    the quintic lowers it again (bounded cycles), so just below pi/2 the equilibrium and a large cycle coexist and a
    continuation sweep must show hysteresis. (Written about y = 1 so that the rate-like
    measurements of the sweep, relative to the equilibrium, are defined.)
    """
    y = sp.Function("y")
    a, b = sp.symbols("alpha beta", positive=True)
    tau = sp.Symbol("d_0", positive=True)
    g0, q0 = sp.symbols("gamma_0 q_0", nonnegative=True)
    u = y(t - tau) - 1
    return ModelSpec(
        name="bistable",
        title="delayed Bautin-type equation: subcritical Hopf point, stable large cycle",
        states=(y,),
        rhs=(-a * u - b * u**3 + u**5,),
        parameters={a: math.pi / 2, b: 1.0, tau: 1.0},
        equilibrium={y: sp.Integer(1)},
        loop_parameters=(a, b),
        time_scale=tau,
        gamma=y(t),
        queue=sp.Integer(0),
        initial_state={y: g0},
    )
