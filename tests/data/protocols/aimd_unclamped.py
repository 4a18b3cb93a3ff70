"""Thesis eq. 5.15 (the linearized RCP system, bundled as ``linear``) under names of its own.

A test protocol file (``tests/test_generic_models.py``): eq. 5.14 of ``aimd_backlog.py`` without
the backlog's clamp (the backlog may go negative, as the linear analysis assumes), so no buffer:

    dw/dt = -(g_p/lag) * (w(t - lag) - cap) - (g_i/lag**2) * b(t - lag)
    db/dt = w - cap

Only the parameters the equations use, none of RCP's names, and no declarations beyond the
required ones: the time scale ``lag`` is the whole configuration, the queue unit cap*lag.
"""

import sympy as sp

from rcpstab.models.spec import ModelSpec, t
from rcpstab.models.symbols import gamma0, q0

g_p, g_i = sp.symbols("g_p g_i", positive=True)
cap = sp.Symbol("cap", positive=True)  # link capacity, bit/s
lag = sp.Symbol("lag", positive=True)  # round trip, s
users = sp.Symbol("users", positive=True)  # flows sharing the link

w = sp.Function("w")
b = sp.Function("b")

MODEL = ModelSpec(
    name="aimd-unclamped",
    title="eq. 5.15 renamed (a test protocol file)",
    states=(w, b),
    rhs=(
        -(g_p / lag) * (w(t - lag) - cap) - (g_i / lag**2) * b(t - lag),
        w(t) - cap,
    ),
    parameters={g_p: 0.4, g_i: 0.2, cap: 0.15e9, users: 10, lag: 0.2},
    equilibrium={w: cap, b: sp.Integer(0)},
    loop_parameters=(g_p, g_i),
    time_scale=lag,
    gamma=w(t) / (users * cap),
    queue=b(t),
    initial_state={w: users * gamma0 * cap, b: q0},
    queue_scale=cap * lag,
)
