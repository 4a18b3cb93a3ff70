"""RCP-AC's fluid model with its packet router's timing (:mod:`rcpstab.packet.routers.rcpac.control`).

The ``rcpac`` model (rcp-ac.txt eqs. 1-2, derived eq. 4) lets the rate law and the acceleration
budget phi read the instantaneous input rate y(t), and feeds the budget back in one smooth step.
The packet RCP-AC router (``routers/rcpac/control.py``, ``csrc/rcpac_port.h``) differs in the ways App. F's
RCP router differs from eqs. 5.1-5.4 (:mod:`rcpstab.models.rcp_router`), plus two of its own:

- at the end of each interval T it reads the bytes that arrived *during* it, updates its RTT
  average D and its rate R (App. F lines 1-12, exactly ``rcp-router``'s rate law, held for T), and
  computes eq. 2's budget from the same measurements, ``phi = alpha (C - y_T) D' + gamma_AC B - beta q``
  (B = C d0, ``rcpac``'s convention);
- the budget is shared out as ``xi = phi^+ / E`` seconds, E the sum of the flows' deficits
  ``(R - r_j)^+`` seen on arrival, averaged over one RTT average (``E <- (1 - T/D) E + (T/D) e^+``);
- a packet's feedback moves its flow's rate by ``(R - r) min(xi, rtt) / (D rtt)`` per second,
  D the router's RTT average (the per-packet share of an interval of D), rtt the sender's (d0).

As a fluid model, with e = N R - y and every term of the feedback read one feedback delay d0
earlier (the router stamps at t - d0, the answers arrive at t)::

    dR/dt = rcp-router's rate law                              (sampled every T)
    dY/dt = y - eta C                                          counter of the arrivals
    dq/dt = y - C,   0 <= q <= buffer
    dD/dt = rcp-router's RTT average                           (sampled every T)
    dE/dt = (max(0, N R - y) - E) / D                          (sampled every T)
    phi   = alpha (C - y_T) D' + gamma_AC C d0 - beta q        (y_T, D' as in rcp-router)
    dy/dt = (e - max(0, e (1 - k))) / D   at t - d0,   k = phi / max(E d0, phi) if phi > 0 else 0,   y >= 0

k is the budget's share of the demand, min(1, xi/rtt): 1 when the budget does not bind, 0 when
there is none (no positive feedback before a deficit has been seen: E = 0 and phi <= 0 give 0).
e - max(0, e (1 - k)) is e above R (eq. 3: no budget on a decrease) and e k below it.
phi is measured like the router's (input over the last interval, the updated RTT average) but
not held between expiries: a held copy is one more sampled state whose first-order stand-in
(pole at lambda = -d0/T) pushes the exact lens' frequency bound past its cap, and the budget
only acts where it binds, far from the equilibrium (an O(T) difference there).

**The linear loop.** About the equilibrium (y = C, R = C/N, q = 0, D = d0, E = 0, eta = 1;
phi = gamma_AC C d0 > 0) the budget does not bind (k = 1 in a neighbourhood), so E decouples;
with R continuous (as :func:`rcpstab.linear.linearization.linearize` treats every sampled state) and
the input rate averaged over T, in lambda = s d0 and tau = T/d0::

    lambda**3 + exp(-lambda) (lambda**2 + alpha lambda (1 - exp(-lambda tau))/(lambda tau) + beta) = 0,

``rcpac``'s loop with rcp-router's averaging factor on the alpha term, times the decoupled modes
of D and E (lambda + 1 each; E's max(0, e) has a kink at the equilibrium, where the linearization
takes the mean 1/2 of its one-sided slopes: E feeds nothing back there, so nothing depends on it).
As tau -> 0 it is ``rcpac``'s
lambda**3 + (lambda**2 + alpha lambda + beta) exp(-lambda). T is linearized at App. E's d0/20
(:func:`at_interval_ratio` gives another ratio).
"""

from __future__ import annotations

import dataclasses
from typing import Any

import sympy as sp

from ..runtime.validation import Domain
from . import rcp_router
from .rcpac import gamma_ac, y
from .spec import Clamp, ModelSpec, t
from .symbols import BUFFERED, DOMAINS, FAMILY, C, N, T, alpha, beta, buffer, d0, dropped, eta, gamma0, q0

R, Y, q, D = rcp_router.R, rcp_router.Y, rcp_router.q, rcp_router.D
E = sp.Function("E")  # the deficits sum_j (R - r_j)^+ averaged over one RTT average, bit/s

y_T = eta * C + (Y(t) - Y(t - T)) / T  # input over the last interval (App. F line 1)
D_new = rcp_router.D_new  # the updated RTT average (lines 2-7)
rate_law = rcp_router.rate_law  # line 8, read from the counter Y of this model
phi_new = alpha * (C - y_T) * D_new + gamma_ac * C * d0 - beta * q(t)  # as routers/rcpac/control.py computes it


def _delayed(expr: Any) -> Any:
    """``expr``, read one feedback delay earlier (the router stamps at t - d0, the answers arrive at t)."""
    return expr.subs(t, t - d0)


e_stamp = _delayed(N * R(t) - y(t))
phi_stamp = _delayed(phi_new)
# min(1, xi / rtt); no budget, no positive feedback (also with no deficit seen: 0/0)
share = sp.Piecewise((phi_stamp / sp.Max(E(t - d0) * d0, phi_stamp), phi_stamp > 0), (0, True))
APP_E_RATIO = rcp_router.APP_E_RATIO

MODEL = ModelSpec(
    name="rcpac-router",
    title="RCP-AC fluid model with its packet router's timing (input over the last interval T, rate "
    "held for T, the router's RTT average, deficits averaged over one RTT)",
    states=(R, Y, q, D, E, y),
    rhs=(
        rate_law,
        y(t) - eta * C,
        y(t) - C,
        (D_new - D(t)) / T,
        (sp.Max(0, N * R(t) - y(t)) - E(t)) / D(t),
        (e_stamp - sp.Max(0, e_stamp * (1 - share))) / D(t - d0),
    ),
    parameters={**BUFFERED, gamma_ac: 0.2},
    equilibrium={R: eta * C / N, Y: sp.Integer(0), q: sp.Integer(0), D: d0, E: sp.Integer(0), y: eta * C},
    loop_parameters=(alpha, beta),
    time_scale=d0,
    gamma=R(t) / C,
    queue=q(t),
    initial_state={R: gamma0 * C, Y: sp.Integer(0), q: q0, D: d0 + q0 / C, E: sp.Integer(0), y: N * gamma0 * C},
    clamps=(Clamp(q, upper=buffer, overflow=dropped), Clamp(y)),
    saturations=rcp_router.MODEL.saturations,
    sampled={R: T, D: T, E: T},
    linearize_at={eta: 1, T: APP_E_RATIO * d0},
    counters=(Y,),
    **FAMILY,
    domains={**DOMAINS, gamma_ac: Domain("acceleration gain gamma_AC", 0.0, 1e6)},
)


def at_interval_ratio(ratio: Any) -> ModelSpec:
    """The model with its linear lenses at T/d0 = ``ratio`` (> 0; the phase plane takes T and d0 as given).

    Examples
    --------
    >>> from rcpstab.linear.linearization import linearize
    >>> sorted(map(str, linearize(at_interval_ratio(sp.Rational(1, 10))).free_parameters()))
    ['alpha', 'beta']
    """
    ratio = sp.nsimplify(ratio)
    if not ratio > 0:
        raise ValueError(f"T/d0 = {ratio}: must be > 0")
    return dataclasses.replace(MODEL, linearize_at={eta: 1, T: ratio * d0})


__all__ = ["MODEL", "at_interval_ratio"]
