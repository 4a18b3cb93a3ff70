"""Patched TIMELY's fluid model (Zhu, Ghobadi, Misra, Padhye, "ECN or Delay", CoNEXT 2016, Sec. 4.4).

N identical flows through one bottleneck (the patch makes every flow converge to C/N,
the paper's Theorem 4); rates, queue and burst in bits::

    dq/dt = N R(t) - C                                                       (eq. 10)
    dR/dt = delta/tau*                                   if q~ < C T_low
          = ((1 - w(g)) delta - w(g) beta R (q~ - q')/q') / tau*   otherwise (patched rate law)
          = -beta/tau* (1 - C T_high/q~) R               if q~ > C T_high
    dg/dt = alpha/tau* (-g + (q~ - q(t - tau' - tau*))/(C D_minRTT))          (eq. 12)
    w(g)  = w_slope g + 1/2, held in [0, 1]
    tau*  = max(Seg/R, D_minRTT),  tau' = q/C + MTU/C + D_prop               (eqs. 13, 14)

with q~ = q(t - tau') and the reference queue q' = C T_low. The fixed point (Theorem 4):
R* = C/N, g* = 0, q* = N delta q'/(beta C) + q'. The delays tau' and tau* depend on the state;
as the paper does, the linearization takes them at the fixed point. ``tau_star`` = 0 (default)
means tau* = max(Seg/R*, D_minRTT); a positive value fixes it.

The weight's slope: the paper's text gives w = 2 g + 1/2 (w_slope = 2), but its margin figure
(Fig. 17, data file pm_timely_delay*_fixed.txt) is reproduced to 0.04 deg only with slope 1/2,
and missed by tens of degrees with slope 2: the figure was computed with w = g/2 + 1/2. The
default is the figure's, ``w_slope=2`` gives the text's.
"""

from __future__ import annotations

from typing import Any

import sympy as sp

from .delayloop import DelayedFluidModel

__all__ = ["MODEL", "operating_point"]

C, N, delta, beta, alpha, T_low, T_high, D_minRTT, D_prop, Seg, MTU = sp.symbols(
    "C N delta beta alpha T_low T_high D_minRTT D_prop Seg MTU", positive=True
)
tau_star = sp.Symbol("tau_star", nonnegative=True)
w_slope = sp.Symbol("w_slope", positive=True)
R, g, q = sp.symbols("R g q")
q_d1, q_d2 = sp.symbols("q_delayed q_delayed_more")  # q(t - tau'), q(t - tau' - tau*)
tau_p_star, tau_star_star = sp.symbols("tau_prime_at_fixed_point tau_star_at_fixed_point", positive=True)

DEFAULTS = {
    C: 10e9,
    N: 10,
    tau_star: 0.0,
    delta: 10e6,
    beta: 0.008,
    alpha: 0.875,
    T_low: 50e-6,
    T_high: 500e-6,
    D_minRTT: 20e-6,
    D_prop: 100e-6,
    Seg: 16 * 8e3,
    MTU: 8e3,
    w_slope: 0.5,
}
"""The paper's values for patched TIMELY (Sec. 4.1 footnote, Sec. 4.4: beta = 0.008, Seg = 16 KB)."""

UNITS = {
    "C": "bottleneck capacity, bit/s",
    "N": "number of flows",
    "tau_star": "rate update interval tau*, s (0: max(Seg/R*, D_minRTT) at the fixed point)",
    "delta": "additive increase step, bit/s",
    "beta": "multiplicative decrease factor",
    "alpha": "EWMA smoothing factor",
    "T_low": "low RTT threshold, s",
    "T_high": "high RTT threshold, s",
    "D_minRTT": "minimum RTT for normalization, s",
    "D_prop": "propagation delay, s",
    "Seg": "burst size, bits",
    "MTU": "maximum transmission unit, bits",
    "w_slope": "slope of the decrease weight w(g) = w_slope g + 1/2 (the figure's 1/2; the text's 2)",
    "R": "rate, bit/s",
    "g": "RTT gradient (dimensionless)",
    "q": "queue, bits",
}

q_ref = C * T_low
weight = sp.Min(1, sp.Max(0, w_slope * g + sp.Rational(1, 2)))
rate_law = sp.Piecewise(
    (delta / tau_star_star, q_d1 < C * T_low),
    (-beta / tau_star_star * (1 - C * T_high / q_d1) * R, q_d1 > C * T_high),
    (((1 - weight) * delta - weight * beta * R * (q_d1 - q_ref) / q_ref) / tau_star_star, True),
)


def operating_point(v: dict[str, float]) -> dict[Any, float]:
    """Theorem 4's fixed point {state: value} for parameter values ``v`` (names -> floats)."""
    r = v["C"] / v["N"]
    qref = v["C"] * v["T_low"]
    return {R: r, g: 0.0, q: v["N"] * v["delta"] * qref / (v["beta"] * v["C"]) + qref}


MODEL = DelayedFluidModel(
    name="timely",
    title="patched TIMELY fluid model, Zhu et al. CoNEXT 2016 Sec. 4.4 (N identical flows, one bottleneck)",
    states=(R, g, q),
    rhs=(rate_law, alpha / tau_star_star * (-g + (q_d1 - q_d2) / (C * D_minRTT)), N * R - C),
    delayed={q_d1: (q, tau_p_star), q_d2: (q, tau_p_star + tau_star_star)},
    parameters=DEFAULTS,
    units=UNITS,
    operating_point=operating_point,
    derived={
        tau_p_star: q / C + MTU / C + D_prop,
        tau_star_star: sp.Piecewise((sp.Max(Seg / R, D_minRTT), sp.Eq(tau_star, 0)), (tau_star, True)),
    },
)
