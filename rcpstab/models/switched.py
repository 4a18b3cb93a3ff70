"""The switched RCP system of thesis eq. 5.14 ("SYSTEM 1") in the aggregate rate y.

    dy/dt = -(alpha/d0)*(y(t-d0) - C) - (beta/d0**2)*q(t-d0)
    dq/dt = y - C,  clamped so that 0 <= q <= buffer

The queue clamp is the switch: q' = max(0, y - C) when q = 0. The buffer (bits, unbounded by
default as in the thesis' eqs.) holds q below B; the overflow is dropped and integrated in the
state ``dropped``. On loss the senders change nothing: as in :mod:`rcpstab.models.rcp`, the aggregate rate is
set by the router's feedback (eq. 5.14 has no loss term), so a drop only removes volume.
"""

from typing import Any

import sympy as sp

from .spec import Clamp, ModelSpec, t
from .symbols import BUFFERED, DEFAULTS, DOMAINS, FAMILY, C, N, alpha, beta, buffer, d0, dropped, gamma0, q0

y = sp.Function("y")
q = sp.Function("q")


def aggregate_rate_model(name: str, title: str, clamps: tuple[Any, ...]) -> ModelSpec:
    """Eq. 5.14/5.15's dynamics in (y, q); ``clamps`` decides switched or linear.

    A model whose clamps include a bounded one gets the ``buffer`` parameter (unbounded by default).
    """
    return ModelSpec(
        name=name,
        title=title,
        states=(y, q),
        rhs=(
            -(alpha / d0) * (y(t - d0) - C) - (beta / d0**2) * q(t - d0),
            y(t) - C,
        ),
        parameters=dict(BUFFERED if any(c.bounded for c in clamps) else DEFAULTS),
        equilibrium={y: C, q: sp.Integer(0)},
        loop_parameters=(alpha, beta),
        time_scale=d0,
        gamma=y(t) / (N * C),
        queue=q(t),
        initial_state={y: N * gamma0 * C, q: q0},
        clamps=clamps,
        **FAMILY,
        domains=DOMAINS,
    )


MODEL = aggregate_rate_model(
    "switched",
    "switched RCP system, thesis eq. 5.14 (queue held in [0, buffer])",
    clamps=(Clamp(q, upper=buffer, overflow=dropped),),
)
