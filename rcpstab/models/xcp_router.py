"""XCP's fluid model with its router's timing (xcp-katabi.txt App. A; :mod:`rcpstab.packet.routers.xcp.control`).

The ``xcp`` model (eqs. 15-16) lets the aggregate feedback act on the instantaneous input rate
and queue one delay earlier. The XCP router computes it once per control interval d (the
average RTT): from the bytes that arrived during the interval and the queue, it sets
phi = alpha d (c - y_d) - beta Q, and stamps phi on the packets of the next interval, spread
evenly; the senders' answers reach the router one round trip after each stamp. Written as a
fluid model with the interval d = d0 (and Q the queue at the timeout, where the router takes
the smallest queue of the interval)::

    dY/dt = y - c                                   counter of the arrivals (minus c t)
    y_d   = c + (Y(t) - Y(t - d0)) / d0              arrivals over the last interval
    F    <- (alpha d0 (c - y_d) - beta q) / d0**2    every d0: the feedback rate stamped next
    dy/dt = F(t - d0),   y >= 0
    dq/dt = y - c,       0 <= q <= buffer (the overflow dropped, as in ``xcp``)

Linearized (:func:`rcpstab.linear.linearization.linearize` treats F as continuous: its update becomes
a first-order lag of time constant d0, a stand-in for the hold, whose delay is d0/2), with
lambda = s d0: ``lambda**2 (lambda + 1) + exp(-lambda) (alpha (1 - exp(-lambda)) + beta) = 0``.
The average puts ``(1 - exp(-lambda)) / lambda`` on the alpha term of eq. 16's loop. The packet
map compares XCP runs with ``xcp``, which they match more often: this model's hosts are a rate
state, the packet hosts ack-clocked windows (reference_impl README; experiments/xcp_ack_clock.py).
"""

from __future__ import annotations

import sympy as sp

from .spec import Clamp, ModelSpec, t
from .switched import q, y
from .symbols import BUFFERED, DOMAINS, FAMILY, C, N, alpha, beta, buffer, d0, dropped, gamma0, q0

Y = sp.Function("Y")
F = sp.Function("F")

y_d = C + (Y(t) - Y(t - d0)) / d0
feedback = (alpha * d0 * (C - y_d) - beta * q(t)) / d0**2

MODEL = ModelSpec(
    name="xcp-router",
    title="XCP fluid model with the router's timing (input rate over the last control interval, feedback held for an interval)",
    states=(y, Y, q, F),
    rhs=(
        F(t - d0),
        y(t) - C,
        y(t) - C,
        (feedback - F(t)) / d0,  # sampled every d0: F <- feedback
    ),
    parameters=dict(BUFFERED),
    equilibrium={y: C, Y: sp.Integer(0), q: sp.Integer(0), F: sp.Integer(0)},
    loop_parameters=(alpha, beta),
    time_scale=d0,
    gamma=y(t) / (N * C),
    queue=q(t),
    initial_state={y: N * gamma0 * C, Y: sp.Integer(0), q: q0, F: sp.Integer(0)},
    clamps=(Clamp(q, upper=buffer, overflow=dropped), Clamp(y)),  # the drop-tail buffer, as in xcp
    sampled={F: d0},
    counters=(Y,),
    **FAMILY,
    domains=DOMAINS,
)

__all__ = ["MODEL"]
