"""DCQCN's fluid model (Zhu, Ghobadi, Misra, Padhye, "ECN or Delay", CoNEXT 2016, Fig. 2 / eqs. 1-5).

N identical flows through one bottleneck (the paper's per-flow model with every flow alike, as
at its fixed point, Theorem 1), quantities in packets as the paper's (marking probabilities
are per packet; one packet = ``packet`` bytes)::

    p(t)      = 0 for q <= K_min, p_max (q - K_min)/(K_max - K_min) up to K_max, 1 above    (1)
    dq/dt     = N R_C(t) - C                                                                (2)
    dalpha/dt = g/tau' ((1 - (1 - p~)^(tau' R_C~)) - alpha(t))                              (3)
    dR_T/dt   = -(R_T - R_C)/tau (1 - (1 - p~)^(tau R_C~))
                + R_AI R_C~ (1 - p~)^(F B) p~ / ((1 - p~)^-B - 1)
                + R_AI R_C~ (1 - p~)^(F T R_C~) p~ / ((1 - p~)^(-T R_C~) - 1)               (4)
    dR_C/dt   = -R_C alpha/(2 tau) (1 - (1 - p~)^(tau R_C~))
                + (R_T - R_C)/2 R_C~ p~ / ((1 - p~)^-B - 1)
                + (R_T - R_C)/2 R_C~ p~ / ((1 - p~)^(-T R_C~) - 1)                          (5)

with x~ = x(t - tau*), tau* the control-loop (feedback) delay. The fixed point (Theorem 1):
R_C* = C/N, alpha* = 1 - (1 - p*)^(tau' R_C*), and p* the root in (0, 1) of

    alpha* a^2 = tau^2 R_AI R_C* (b + d)(c + e)

(a, b, c, d, e as in the paper; its eq. 7 prints the left side divided by (b + d)(c + e), a
misprint: eliminating R_T from (4) and (5) multiplies, and only the product gives the paper's
own approximation, its eq. 9, p* ~ (R_AI N^2/(tau' C^2) (1/B + N/(T C))^2)^(1/3)). The paper
evaluates its margins at that approximate p*; ``p_star="paper"`` in :func:`operating_point`
does the same, the default solves the fixed point exactly.

With the default parameters the fixed point leaves the RED ramp (p* > p_max, q* > K_max) from
N = 16 flows on (from N = 12 with the paper's approximate p*): eq. (1) then has no fixed point
with a marking slope, the queue is pinned at K_max. The paper's figures still use the ramp's
slope there; ``extend_ramp=1`` does the same (the ramp continued up to p = 1).
"""

from __future__ import annotations

import math
from typing import Any

import sympy as sp

from .delayloop import DelayedFluidModel

__all__ = ["MODEL", "operating_point", "paper_p_star"]

# parameters, named as in the paper (tau_star for tau*, tau_prime for tau')
C, N, tau_star, tau, tau_prime, T, B, F, R_AI, K_min, K_max, p_max, g, packet = sp.symbols(
    "C N tau_star tau tau_prime T B F R_AI K_min K_max p_max g packet", positive=True
)
extend_ramp = sp.Symbol("extend_ramp", nonnegative=True)
alpha, R_T, R_C, q = sp.symbols("alpha R_T R_C q")
p_d, R_C_d = sp.symbols("p_delayed R_C_delayed")  # p(t - tau*), R_C(t - tau*)
q_d = sp.Symbol("q_delayed")

DEFAULTS = {
    C: 40e9,
    N: 10,
    tau_star: 50e-6,
    tau: 50e-6,
    tau_prime: 55e-6,
    T: 55e-6,
    B: 10e6,
    F: 5,
    R_AI: 40e6,
    K_min: 5e3,
    K_max: 200e3,
    p_max: 0.01,
    g: 1 / 256,
    packet: 1000,
    extend_ramp: 0,
}
"""The paper's defaults (Table 2 and Sec. 3.3: 40 Gb/s, R_AI = 40 Mb/s, K_max = 200 KB)."""

UNITS = {
    "C": "bottleneck capacity, bit/s",
    "N": "number of flows",
    "tau_star": "control-loop (feedback) delay tau*, s",
    "tau": "CNP generation timer, s",
    "tau_prime": "alpha update interval tau', s",
    "T": "rate increase timer, s",
    "B": "byte counter for rate increase, bytes",
    "F": "fast recovery steps",
    "R_AI": "additive rate increase step, bit/s",
    "K_min": "RED marking threshold K_min, bytes",
    "K_max": "RED marking threshold K_max, bytes",
    "p_max": "marking probability at K_max",
    "g": "alpha EWMA gain",
    "packet": "packet size, bytes (the unit of rates and queues below)",
    "alpha": "alpha (dimensionless)",
    "R_T": "target rate, packets/s",
    "R_C": "current rate, packets/s",
    "q": "queue, packets",
    "extend_ramp": "1: the RED ramp goes on past K_max up to p = 1 (how the paper's figures treat a fixed point "
    "above K_max); 0: eq. (1), p jumps to 1",
}

PKT_BITS = 8 * packet
Cp, Rp, Bp = C / PKT_BITS, R_AI / PKT_BITS, B / packet  # in packets (per second)
Kmin_p, Kmax_p = K_min / packet, K_max / packet


def marking(queue: Any) -> Any:
    """RED marking probability of eq. (1) for a queue in packets."""
    ramp = p_max * (queue - Kmin_p) / (Kmax_p - Kmin_p)
    return sp.Piecewise((0, queue <= Kmin_p), (ramp, queue <= Kmax_p), (ramp, (extend_ramp > 0) & (ramp < 1)), (1, True))


def _rhs(pd: Any, rcd: Any) -> tuple[Any, ...]:
    """Eqs. (2)-(5) with p~ = ``pd`` and R_C~ = ``rcd``.

    p/((1 - p)^-x - 1) is written p (1 - p)^x / (1 - (1 - p)^x): the same function, without the
    overflow of (1 - p)^-x for the byte counter's x = B (1e4 packets).
    """
    keep = 1 - pd
    cut = 1 - keep ** (tau * rcd)

    def ratio(x: Any) -> Any:  # -> 1/x as p -> 0 (an increase every x packets when nothing is marked)
        return sp.Piecewise((1 / x, pd <= 0), (pd * keep**x / (1 - keep**x), True))

    return (
        g / tau_prime * ((1 - keep ** (tau_prime * rcd)) - alpha),
        -(R_T - R_C) / tau * cut + Rp * rcd * keep ** (F * Bp) * ratio(Bp) + Rp * rcd * keep ** (F * T * rcd) * ratio(T * rcd),
        -R_C * alpha / (2 * tau) * cut + (R_T - R_C) / 2 * rcd * ratio(Bp) + (R_T - R_C) / 2 * rcd * ratio(T * rcd),
        N * R_C - Cp,
    )


def paper_p_star(v: dict[str, float]) -> float:
    """The paper's approximate fixed point, eq. 9: p* ~ (R_AI N^2/(tau' C^2) (1/B + N/(T C))^2)^(1/3)."""
    cp, rp, bp = v["C"] / (8 * v["packet"]), v["R_AI"] / (8 * v["packet"]), v["B"] / v["packet"]
    n = v["N"]
    p: float = (rp * n * n / v["tau_prime"] / cp**2 * (1 / bp + n / cp / v["T"]) ** 2) ** (1 / 3)
    return p


def _pieces(p: float, r: float, v: dict[str, float]) -> tuple[float, float, float, float, float]:
    """a, b, c, d, e of the paper's Theorem 1 at marking probability p and rate r (packets/s)."""
    bp = v["B"] / v["packet"]
    log_keep = math.log1p(-p)

    def ratio(x: float) -> float:  # p / ((1 - p)^-x - 1), without overflow for large x p
        y = -x * log_keep
        return p * math.exp(-y) / -math.expm1(-y)

    a = -math.expm1(v["tau"] * r * log_keep)
    b = ratio(bp)
    c = math.exp(v["F"] * bp * log_keep) * b
    d = ratio(v["T"] * r)
    e = math.exp(v["F"] * v["T"] * r * log_keep) * d
    return a, b, c, d, e


def operating_point(v: dict[str, float], p_star: str = "exact") -> dict[Any, float]:
    """The fixed point {state: value} for parameter values ``v`` (names -> floats).

    ``p_star="exact"`` solves Theorem 1's equation for p* (bisection on log p, to rounding);
    ``"paper"`` takes the paper's eq. 9 approximation, as its stability figures do.
    """
    r = v["C"] / (8 * v["packet"]) / v["N"]
    rp = v["R_AI"] / (8 * v["packet"])

    def excess(p: float) -> float:
        a, b, c, d, e = _pieces(p, r, v)
        alpha_star = -math.expm1(v["tau_prime"] * r * math.log1p(-p))
        return alpha_star * a * a - v["tau"] ** 2 * rp * r * (b + d) * (c + e)

    if p_star == "paper":
        p = paper_p_star(v)
    else:
        lo, hi = math.log(1e-15), math.log(0.999999)
        if excess(math.exp(lo)) > 0 or excess(math.exp(hi)) < 0:
            raise ValueError("DCQCN: no fixed point in p in (1e-15, 1)")
        for _ in range(200):
            mid = 0.5 * (lo + hi)
            lo, hi = (mid, hi) if excess(math.exp(mid)) < 0 else (lo, mid)
            if hi - lo < 1e-15:
                break
        p = math.exp(0.5 * (lo + hi))
    a, b, c, d, e = _pieces(p, r, v)
    kmin, kmax = v["K_min"] / v["packet"], v["K_max"] / v["packet"]
    if p > v["p_max"] and not v["extend_ramp"]:
        raise ValueError(
            f"DCQCN: p* = {p:.3g} exceeds p_max = {v['p_max']:g}: the queue sits above K_max "
            "(eq. 1 has no fixed point on its ramp; extend_ramp=1 continues the ramp, as the paper's figures do)"
        )
    return {
        alpha: -math.expm1(v["tau_prime"] * r * math.log1p(-p)),
        R_T: r + v["tau"] * rp * r * (c + e) / a,
        R_C: r,
        q: kmin + p / v["p_max"] * (kmax - kmin),
    }


MODEL = DelayedFluidModel(
    name="dcqcn",
    title="DCQCN fluid model, Zhu et al. CoNEXT 2016 Fig. 2 (N identical flows, one bottleneck)",
    states=(alpha, R_T, R_C, q),
    rhs=_rhs(marking(q_d), R_C_d),
    delayed={q_d: (q, tau_star), R_C_d: (R_C, tau_star)},
    parameters=DEFAULTS,
    units=UNITS,
    operating_point=operating_point,
)
