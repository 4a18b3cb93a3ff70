"""DCQCN linearized as Zhu et al. (CoNEXT 2016) linearize it: the loop behind their stability figure.

The exact linearization of the paper's fluid model (:mod:`rcpstab.models.dcqcn`, the default)
does not give the paper's phase margins (up to 22, 34 and 70 deg apart in its three panels). The paper's appendix linearizes
after approximations, and its figure (data files ``pm_rai*_delay*.txt``) was computed with a few
more. Each is written here as a change to equations (1)-(5) of :mod:`rcpstab.models.dcqcn`;
the linearization is then derived symbolically as for every delayed model
(:func:`rcpstab.linear.fluid_loop.linearized_loop`), and the loop is broken at tau* as the paper
breaks it. With all of them (``APPROXIMATIONS``, the bundled model ``dcqcn-paper``) the phase
margins are the paper's to within 0.1 deg at every N of its three stability figures (R_AI = 40
and 10 Mb/s, K_max = 200 and 1000 KB, tau* = 0, 50, 100 us). Here p~, R_C~ are p(t - tau*) and
R_C(t - tau*); starred symbols are frozen at the operating point.

``"p_star"`` (paper, Sec. 3.3, eq. 9)
    The operating point at the approximate p* ~ (R_AI N^2/(tau' C^2) (1/B + N/(T C))^2)^(1/3);
    R_T*, alpha* from it by the exact fixed-point relations (R_T* = R_C* (1 + tau R_AI (c+e)/a)).
    The marking slope p_max/(K_max - K_min) is used at every N, also where p* > p_max.
``"taylor"`` (paper, appendix: "Taylor series to simplify a, b, c, d, e")
    To first order in p: 1 - (1 - p)^x ~ x p and p (1-p)^(F x)/((1-p)^-x - 1) ~ 1/x - (F + 1/2 + 1/(2x)) p,
    so the increase terms of (4) and (5) become R_C~ (A - (1 + 2F + A/2) p~) and R_C~ (A - (1 + A/2) p~),
    A = 1/B + 1/(T R_C~).
``"frozen_A"`` (paper, appendix: A = 1/B + 1/(T R_C*) is a constant in its linearization)
    A is held at its operating value A*, so R_C~ A varies as A* dR_C~ (its true variation is dR_C~/B).
    Only together with ``"taylor"`` (without it there is no A).
``"split"`` (paper, appendix: the Laplace transform of dR_C/dt it prints)
    In (5), the rate-increase factor (R_T - R_C) R_C~ enters as (R_T - R_C~) R_C: the printed transform
    puts R_T* dR_C~ on the undelayed side and R_C* dR_C on the delayed one.
``"alpha_filter"`` (the figure's script only; the text's eq. 3 has pole -g/tau')
    alpha follows p~ through g R_C* (p~ - alpha): pole at -g C/N, and no R_C~ term.
``"rt_extra"`` (the figure's script only; no term of eq. 4 gives it)
    dR_T/dt gains A* R_AI (R_C - R_C*): an undelayed A* R_AI dR_C.

None of the pieces is a better model than eqs. (1)-(5); together they are the paper's reading.
The operating point is not a fixed point of the approximated equations (the paper linearizes the
approximated equations at the fixed point of the full model), so this model is for the linear
lens only. :func:`variant` builds the model with any subset (for measuring what each piece does).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from functools import cache
from typing import Any

import sympy as sp

from . import dcqcn
from .dcqcn import (
    DEFAULTS,
    R_C,
    R_T,
    UNITS,
    Bp,
    Cp,
    F,
    Kmax_p,
    Kmin_p,
    N,
    R_C_d,
    Rp,
    T,
    alpha,
    g,
    p_max,
    q,
    q_d,
    tau,
    tau_prime,
    tau_star,
)
from .delayloop import DelayedFluidModel

__all__ = ["APPROXIMATIONS", "MODEL", "variant"]

APPROXIMATIONS = ("p_star", "taylor", "frozen_A", "split", "alpha_filter", "rt_extra")
"""Every approximation the paper's figure makes, in the order of the module docstring."""

A_star, R_C_star = sp.symbols("A_at_fixed_point R_C_at_fixed_point", positive=True)


def _rhs(used: frozenset[str]) -> tuple[Any, ...]:
    """Eqs. (2)-(5) with the approximations in ``used`` applied (see the module docstring)."""
    pd, rcd = p_max * (q_d - Kmin_p) / (Kmax_p - Kmin_p), R_C_d  # the ramp's slope at every N
    taylor = "taylor" in used

    def cut(x: Any) -> Any:  # 1 - (1 - p~)^x: a marked packet among x
        return x * pd if taylor else 1 - (1 - pd) ** x

    def increase(f: Any) -> Any:  # sum over x = B, T R_C~ of p (1-p)^(f x)/((1-p)^-x - 1)
        if taylor:
            a = A_star if "frozen_A" in used else 1 / Bp + 1 / (T * rcd)
            return a - (2 * f + 1 + a / 2) * pd
        keep = 1 - pd
        return sum(pd * keep ** (f * x) * keep**x / (1 - keep**x) for x in (Bp, T * rcd))

    if "alpha_filter" in used:
        dalpha = g * R_C_star * (pd - alpha)
    else:
        dalpha = g / tau_prime * (cut(tau_prime * rcd) - alpha)
    gap, rate = (R_T - rcd, R_C) if "split" in used else (R_T - R_C, rcd)
    drt = -(R_T - R_C) / tau * cut(tau * rcd) + Rp * rcd * increase(F)
    if "rt_extra" in used:
        drt += A_star * Rp * (R_C - R_C_star)
    drc = -R_C * alpha / (2 * tau) * cut(tau * rcd) + gap / 2 * rate * increase(0)
    return dalpha, drt, drc, N * R_C - Cp


def _operating_point(used: frozenset[str]) -> Callable[..., dict[Any, float]]:
    def point(v: dict[str, float], p_star: str | None = None) -> dict[Any, float]:
        """The full model's fixed point, at the paper's p* unless ``p_star`` says otherwise."""
        kind = p_star or ("paper" if "p_star" in used else "exact")
        return dcqcn.operating_point({**v, "extend_ramp": 1}, p_star=kind)

    return point


def variant(used: Iterable[str] = APPROXIMATIONS) -> DelayedFluidModel:
    """DCQCN's equations with the approximations ``used`` (a subset of :data:`APPROXIMATIONS`).

    Parameters
    ----------
    used : iterable of str
        Which approximations to apply; all of them give the paper's loop (the model ``dcqcn-paper``).

    Returns
    -------
    DelayedFluidModel
        The same parameters (names, units, defaults) as ``dcqcn``; one object per subset (its
        compiled linearization is cached by identity).
    """
    return _build(frozenset(used))


@cache
def _build(used: frozenset[str]) -> DelayedFluidModel:
    unknown = used - set(APPROXIMATIONS)
    if unknown:
        raise ValueError(f"unknown approximation(s) {sorted(unknown)}: expected some of {APPROXIMATIONS}")
    params = {s: v for s, v in DEFAULTS.items() if s.name != "extend_ramp"}
    label = "all" if used == set(APPROXIMATIONS) else (", ".join(a for a in APPROXIMATIONS if a in used) or "none")
    return DelayedFluidModel(
        name="dcqcn-paper" if used == set(APPROXIMATIONS) else f"dcqcn-paper[{label}]",
        title=f"DCQCN as linearized for Zhu et al. CoNEXT 2016 Fig. 5 (approximations: {label}); linear lens only",
        states=(alpha, R_T, R_C, q),
        rhs=_rhs(used),
        delayed={q_d: (q, tau_star), R_C_d: (R_C, tau_star)},
        parameters=params,
        units={k: u for k, u in UNITS.items() if k != "extend_ramp"},
        operating_point=_operating_point(used),
        derived={A_star: 1 / Bp + 1 / (T * R_C), R_C_star: R_C},
    )


MODEL = variant()
