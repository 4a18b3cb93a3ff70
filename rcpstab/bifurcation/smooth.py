"""Smooth variants of the RCP fluid model, where Hopf normal-form theory applies.

The bundled ``rcp`` model is not smooth at its equilibrium: the queue sits on its clamp
(q = 0), the rate is sampled every T and saturated. Hopf theory needs a smooth vector field,
so the criticality of RCP's boundary is computed on

- ``rcp-unclamped``: eqs. 5.1-5.3 with the rate law continuous in time (R(t-T) a genuine delay),
  no queue clamp (q may go negative, d = d0 + q/C), no saturation;
- ``rcp-rate``: the same without the queue term (beta = 0) and with the RTT at its equilibrium
  d = d0, so the queue does not act on the rate at all. In R/C units it is
  rho' = (alpha/d0) rho(t-T) (1 - rho(t-d0)): with T = 0 exactly the delayed logistic
  (Hutchinson) equation, whose Hopf point alpha = pi/2 is supercritical
  (:mod:`.textbook`).

The ``linear`` model (eq. 5.15) is linear: its Hopf point is degenerate (l1 = 0; at the
boundary a continuum of cycles, past it unbounded growth).
"""

from __future__ import annotations

import dataclasses

import sympy as sp

from ..models import rcp
from ..models.spec import ModelSpec, t
from ..models.symbols import DEFAULTS, FAMILY, C, N, T, alpha, d0, eta, gamma0

__all__ = ["RCP_UNCLAMPED", "RCP_RATE", "SMOOTH_MODELS"]

_LOOP = [i for i, x in enumerate(rcp.MODEL.states) if x in rcp.MODEL.loop_states]  # no buffer, so no drop count
RCP_UNCLAMPED = dataclasses.replace(
    rcp.MODEL,
    name="rcp-unclamped",
    title="RCP eqs. 5.1-5.3, continuous rate law, queue not clamped (smooth; for Hopf analysis)",
    states=tuple(rcp.MODEL.states[i] for i in _LOOP),
    rhs=tuple(rcp.MODEL.rhs[i] for i in _LOOP),
    equilibrium={x: rcp.MODEL.equilibrium[x] for x in rcp.MODEL.loop_states},
    initial_state={x: rcp.MODEL.initial_state[x] for x in rcp.MODEL.loop_states},
    clamps=(),
    saturations=(),
    sampled={},
)

R = sp.Function("R")

RCP_RATE = ModelSpec(
    name="rcp-rate",
    title="RCP without the queue term (beta = 0, d = d0): delayed logistic rate law",
    states=(R,),
    rhs=(R(t - T) * alpha * (eta * C - N * R(t - d0)) / (eta * C * d0),),
    parameters=dict(DEFAULTS),
    equilibrium={R: eta * C / N},
    loop_parameters=rcp.MODEL.loop_parameters,
    time_scale=d0,
    gamma=R(t) / C,
    queue=sp.Integer(0),
    initial_state={R: gamma0 * C},
    linearize_at={eta: 1},
    **FAMILY,
)

SMOOTH_MODELS = {m.name: m for m in (RCP_UNCLAMPED, RCP_RATE)}
