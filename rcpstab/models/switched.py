"""The switched RCP system of thesis eq. 5.14 ("SYSTEM 1") in the aggregate rate y.

    dy/dt = -(alpha/d0)*(y(t-d0) - C) - (beta/d0**2)*q(t-d0)
    dq/dt = y - C,  clamped so that q >= 0

The queue clamp is the switch: q' = max(0, y - C) when q = 0.
"""
import sympy as sp

from .spec import Clamp, ModelSpec, t
from .symbols import DEFAULTS, DOMAINS, C, N, alpha, beta, d0, gamma0, q0

y = sp.Function("y")
q = sp.Function("q")


def aggregate_rate_model(name: str, title: str, clamps: tuple) -> ModelSpec:
    """Eq. 5.14/5.15's dynamics in (y, q); ``clamps`` decides switched or linear."""
    return ModelSpec(
        name=name,
        title=title,
        states=(y, q),
        rhs=(
            -(alpha / d0) * (y(t - d0) - C) - (beta / d0**2) * q(t - d0),
            y(t) - C,
        ),
        parameters=dict(DEFAULTS),
        equilibrium={y: C, q: sp.Integer(0)},
        loop_parameters=(alpha, beta),
        time_scale=d0,
        gamma=y(t) / (N * C),
        queue=q(t),
        initial_state={y: N * gamma0 * C, q: q0},
        clamps=clamps,
        domains=DOMAINS,
    )


MODEL = aggregate_rate_model(
    "switched",
    "switched RCP system, thesis eq. 5.14 (queue clamped at 0)",
    clamps=(Clamp(q),),
)
