"""RCP-AC: RCP's rate controller plus an acceleration controller (rcp-ac.txt lines 110-210).

States: the router's rate R (bit/s, updated every T as in :mod:`rcpstab.models.rcp`), the aggregate
input rate y (bit/s, now a state: flows no longer jump to R) and the queue q (bits).

    dR/dt = R(t-T) * (alpha*(eta*C - y) - beta*q/d) / (eta*C*d)        eq. 1 (rcp's rate law, y measured)
    phi   = alpha*(C - y)*d + gamma_AC*B - beta*q                      eq. 2, B = C*d0
    dy/dt = [ e - max(0, e - max(0, phi)/d) ] / d,   e = N*R - y       eq. 4 (derived below)
    dq/dt = y - C,   0 <= q <= buffer, y >= 0

with d = d0 + q/C in the rate law (rcp's), and every term of dy/dt read one feedback
delay d0 earlier (the router stamps feedback at t - d0; the senders' new rates reach it
at t), with d = d0 there: XCP's fluid convention (xcp-katabi.txt eq. 16, common delay d).
Using d0 + q/C in dy/dt as well makes a flow's response slow down as the queue grows,
and from App. E's start R/C = 0.5 the queue then climbs past 100 C*d0 before draining.

The buffer (``buffer`` bits, unbounded by default) holds the queue below B, the overflow
dropped and integrated in the state ``dropped``; the B of eq. 2 (the acceleration budget
gamma_AC*B) stays one bandwidth-delay product C*d0, the paper's buffer (Fig. 1), so that the
controller is the same whether or not the fluid buffer is bounded. On loss the senders change
nothing: they are XCP-style window senders driven by the router's feedback (eqs. 3-4), so y is
unchanged by a drop.

Eq. 4, missing from the extraction (line 186; its description is at lines 186-193),
derived from eqs. 2-3 and the text:

- Eq. 3 (lines 172-180): a flow above R gets, over one control interval d, a window
  change of -(r_i - R) * rtt_i split over its r_i*d/s packets: its rate falls to R within
  an interval, so in the fluid limit dr_i/dt = -(r_i - R)/d.
- Positive feedback (lines 162-167): phi, the largest permitted increase of the aggregate
  volume in the next interval, is shared among flows below R "in proportion to how far
  away their flow-rates are below R(t)"; and no flow is raised above R. For packet i of
  flow i, with K the packets seen in an interval,

      feedback+_i = min( (R - r_i)^+ * rtt_i ,  max(0, phi) * (R - r_i)^+ / sum_j (R - r_j)^+ )
                    / (r_i * d / s)                                            (eq. 4)

  where sum_j runs over flows; per packet it is sum over the K packets of
  (R - r_k)^+ * s / (r_k * d), which is where K enters. The first term of the min is the
  Rate Controller's demand (move to R in one interval: RCP's behaviour, large phi), the
  second the Acceleration Controller's budget (small phi), as lines 188-193 describe.
- Fluid limit for N flows sharing one rate (y = N*r): below R the aggregate rises by
  min(N*R - y, max(0, phi)/d) per interval, above R it falls by y - N*R; both cases are
  dy/dt = [e - max(0, e - max(0, phi)/d)] / d with e = N*R - y.

Near equilibrium (y = N*R = C, q = 0) phi = gamma_AC*B > 0, so the budget does not bind:
the linear loop is lambda**3 + (lambda**2 + alpha*lambda + beta)*exp(-lambda) = 0 in
lambda = s*d0, affine in (alpha, beta) with no other parameter, and the exact, Bode,
Nyquist and margin lenses apply; gamma_AC acts only on large transients (a flash crowd:
:func:`rcpstab.phaseplane.flash_crowd.flash_crowd_peak_queue`), which only the phase plane sees.
"""

from __future__ import annotations

import sympy as sp

from ..runtime.validation import Domain
from . import rcp
from .spec import Clamp, ModelSpec, t
from .symbols import BUFFERED, DOMAINS, FAMILY, C, N, T, alpha, beta, buffer, d0, dropped, eta, gamma0, q0

gamma_ac = sp.Symbol("gamma_AC", positive=True)
"""Acceleration gain gamma of eq. 2 (dimensionless: the budget is gamma*B, B in bits)."""

R, q = rcp.R, rcp.q
y = sp.Function("y")

B = C * d0  # buffer = one bandwidth-delay product (rcp-ac.txt Fig. 1)
d_fb = d0  # the common round trip of the fluid model (XCP eq. 16)
e = N * R(t - d0) - y(t - d0)  # aggregate distance from the target rate (bit/s)
phi = alpha * (C - y(t - d0)) * d_fb + gamma_ac * B - beta * q(t - d0)

MODEL = ModelSpec(
    name="rcpac",
    title="RCP-AC fluid model, rcp-ac.txt eqs. 1-2 and derived eq. 4 (queue in [0, buffer], rate clamped at 0)",
    states=(R, y, q),
    rhs=(
        rcp.MODEL.rhs[0].subs(rcp.y, y(t)),  # "The Rate Controller uses the same equation as RCP"
        (e - sp.Max(0, e - sp.Max(0, phi) / d_fb)) / d_fb,
        y(t) - C,
    ),
    parameters={**BUFFERED, gamma_ac: 0.2},
    equilibrium={R: eta * C / N, y: eta * C, q: sp.Integer(0)},
    loop_parameters=(alpha, beta),
    time_scale=d0,
    gamma=R(t) / C,
    queue=q(t),
    initial_state={R: gamma0 * C, y: N * gamma0 * C, q: q0},
    clamps=(Clamp(q, upper=buffer, overflow=dropped), Clamp(y)),
    saturations=rcp.MODEL.saturations,
    sampled={R: T},
    linearize_at={eta: 1},
    **FAMILY,
    domains={**DOMAINS, gamma_ac: Domain("acceleration gain gamma_AC", 0.0, 1e6)},
)
