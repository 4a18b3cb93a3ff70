"""The RCP fluid model of thesis eqs. 5.1-5.4 (and App. B eq. B.1, App. F line 8).

    dR/dt = R(t-T) * (alpha*(eta*C - y) - beta*q/d) / (eta*C*d)
    y     = N*R(t-d0)
    d     = d0 + q/C
    dq/dt = y - C,  clamped so that 0 <= q <= buffer (the overflow is dropped and counted)

R is updated every T from R(t-T), as the thesis' phase-plane C program does (App. F line 8 with
Tr = T and avg_rtt = d), and kept inside [MIN_RATE, eta*C] with MIN_RATE = 0.01*MTU/d (App. F
lines 9-12).

**Which input rate the update reads.** With u_k the rate held on [kT, (k+1)T) and d0 = m T, the
update at t = (k+1)T reads y = N R(t - d0) = N u_{k+1-m}: the rate *arriving at the update
instant*. App. F line 1 measures the bytes that arrived over the last interval, N u_{k-m}: one
interval older. This model keeps eqs. 5.1-5.4's instantaneous y; ``rcp-router``
(:mod:`rcpstab.models.rcp_router`) has App. F's reading (and its RTT average). The difference
is one interval of delay on alpha's term only, so it matters where T/d0 is large; the measured
consequence is in the documentation's page on the models (docs/models.md), and
:func:`rcpstab.models.rcp_router.sampled_characteristic` gives both sampled loops.

The buffer (bits, ``buffer``; unbounded by default, as the thesis' eqs.) holds the queue below
B: what arrives at a full buffer is dropped and integrated in the state ``dropped``. What the
senders do on loss: nothing that changes the rate. R-TCP senders take their window from the
router's rate (thesis Sec. 6.1.1: "the retransmission mechanisms of TCP are left unchanged")
and RCP does not read loss as congestion (Sec. 6.3.1), so y = N*R(t - d0) is unchanged by a
drop; retransmissions of long-lived flows only change which bytes are sent, not how many.
"""

import sympy as sp

from .spec import Clamp, ModelSpec, Saturation, t
from .symbols import BUFFERED, DOMAINS, FAMILY, C, N, T, alpha, beta, buffer, d0, dropped, eta, gamma0, mtu, q0

R = sp.Function("R")
q = sp.Function("q")

d = d0 + q(t) / C
y = N * R(t - d0)

MODEL = ModelSpec(
    name="rcp",
    title="RCP fluid model, thesis eqs. 5.1-5.4 (rate updated every T, queue held in [0, buffer])",
    states=(R, q),
    rhs=(
        R(t - T) * (alpha * (eta * C - y) - beta * q(t) / d) / (eta * C * d),
        y - C,
    ),
    parameters=dict(BUFFERED),
    equilibrium={R: eta * C / N, q: sp.Integer(0)},
    loop_parameters=(alpha, beta),
    time_scale=d0,
    gamma=R(t) / C,
    queue=q(t),
    initial_state={R: gamma0 * C, q: q0},
    clamps=(Clamp(q, upper=buffer, overflow=dropped),),
    saturations=(Saturation(R, lower=sp.Rational(1, 100) * mtu / d, upper=eta * C),),
    sampled={R: T},
    linearize_at={eta: 1},
    **FAMILY,
    domains=DOMAINS,
)
