"""The RCP fluid model of thesis eqs. 5.1-5.4 (and App. B eq. B.1, App. F line 8).

    dR/dt = R(t-T) * (alpha*(eta*C - y) - beta*q/d) / (eta*C*d)
    y     = N*R(t-d0)
    d     = d0 + q/C
    dq/dt = y - C,  clamped so that 0 <= q <= buffer (the overflow is dropped and counted)

R is updated every T from R(t-T), as the thesis' phase-plane C program and the router's
control path do (App. F line 8 with Tr = T and avg_rtt = d), and kept inside
[MIN_RATE, eta*C] with MIN_RATE = 0.01*MTU/d (App. F lines 9-12).

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
