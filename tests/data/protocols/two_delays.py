"""A loop with two distinct delays: eq. 5.15's rate law with the backlog reported after its own delay.

A test protocol file (``tests/test_generic_models.py``). The rate sees its own effect after the
round trip ``lag`` but the backlog after ``qlag`` (a faster queue report):

    dw/dt = -(k_r/lag) * (w(t - lag) - cap) - (k_q/lag**2) * b(t - qlag)
    db/dt = w - cap        (unclamped: a linear system)

In lambda = s*lag the characteristic equation is lambda**2 + k_r*lambda*exp(-lambda) +
k_q*exp(-theta*lambda) = 0 with theta = qlag/lag (1/2 at the defaults): the linear lenses take
theta at the model's own values.
"""

import sympy as sp

from rcpstab.models.spec import ModelSpec, t
from rcpstab.models.symbols import gamma0, q0
from rcpstab.runtime.validation import Domain

k_r, k_q = sp.symbols("k_r k_q", positive=True)
cap = sp.Symbol("cap", positive=True)  # link capacity, bit/s
lag = sp.Symbol("lag", positive=True)  # round trip of the rate, s
qlag = sp.Symbol("qlag", positive=True)  # delay of the backlog report, s
users = sp.Symbol("users", positive=True)  # flows sharing the link

w = sp.Function("w")
b = sp.Function("b")

MODEL = ModelSpec(
    name="two-delays",
    title="eq. 5.15 with the backlog on a second delay (a test protocol file)",
    states=(w, b),
    rhs=(
        -(k_r / lag) * (w(t - lag) - cap) - (k_q / lag**2) * b(t - qlag),
        w(t) - cap,
    ),
    parameters={k_r: 0.4, k_q: 0.2, cap: 0.15e9, users: 10, lag: 0.2, qlag: 0.1},
    equilibrium={w: cap, b: sp.Integer(0)},
    loop_parameters=(k_r, k_q),
    time_scale=lag,
    gamma=w(t) / (users * cap),
    queue=b(t),
    initial_state={w: users * gamma0 * cap, b: q0},
    queue_scale=cap * lag,
    domains={
        lag: Domain("round trip lag", 0.0, low_open=True, unit="s"),
        qlag: Domain("backlog report delay qlag", 0.0, low_open=True, unit="s"),
    },
)
