"""Thesis eq. 5.14 (the switched RCP system, bundled as ``switched``) under names of its own.

A test protocol file (``tests/test_generic_models.py``): an aggregate sending rate ``w`` and a
backlog ``b`` at one link, none of RCP's parameter names:

    dw/dt = -(g_p/lag) * (w(t - lag) - cap) - (g_i/lag**2) * b(t - lag)
    db/dt = w - cap,   0 <= b <= limit  (what the full buffer turns away integrates into ``spilled``)

g_p, g_i (gains, dimensionless) play alpha and beta, cap (bit/s) C, lag (s) d0, users N and
limit (bits, unbounded by default) the buffer. Fluid only: no packet router.
"""

import sympy as sp

from rcpstab.models.spec import Clamp, ModelSpec, t
from rcpstab.models.symbols import gamma0, q0
from rcpstab.runtime.validation import Domain

g_p, g_i = sp.symbols("g_p g_i", positive=True)
cap = sp.Symbol("cap", positive=True)  # link capacity, bit/s
lag = sp.Symbol("lag", positive=True)  # round trip, s
users = sp.Symbol("users", positive=True)  # flows sharing the link
limit = sp.Symbol("limit", positive=True)  # buffer, bits

w = sp.Function("w")
b = sp.Function("b")
spilled = sp.Function("spilled")

MODEL = ModelSpec(
    name="aimd-backlog",
    title="eq. 5.14 renamed (a test protocol file)",
    states=(w, b),
    rhs=(
        -(g_p / lag) * (w(t - lag) - cap) - (g_i / lag**2) * b(t - lag),
        w(t) - cap,
    ),
    parameters={g_p: 0.4, g_i: 0.2, cap: 0.15e9, users: 10, lag: 0.2, limit: float("inf")},
    equilibrium={w: cap, b: sp.Integer(0)},
    loop_parameters=(g_p, g_i),
    time_scale=lag,
    gamma=w(t) / (users * cap),
    queue=b(t),
    initial_state={w: users * gamma0 * cap, b: q0},
    clamps=(Clamp(b, upper=limit, overflow=spilled),),
    queue_scale=cap * lag,
    capacity=cap,
    flows=users,
    domains={
        g_p: Domain("gain g_p", 0.0, 1000.0, low_open=True),
        g_i: Domain("gain g_i", 0.0, 1000.0, low_open=True),
        cap: Domain("capacity cap", 1.0, 1e13, unit="bit/s"),
        lag: Domain("round trip lag", 1e-6, 100.0, unit="s"),
        users: Domain("flows users", 1.0, 1e7),
        limit: Domain("buffer limit", 0.0, low_open=True, unit="bits", unbounded=True),
    },
)
