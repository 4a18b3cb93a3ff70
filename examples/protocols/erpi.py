"""ER-PI: a user's own protocol for rcpstab, in one file (``rcpstab map --model examples/protocols/erpi.py``).

An explicit-rate router that stamps one rate r for its n_src flows, moved by a proportional term on
the rate mismatch and an integral term on the queue b, with no multiplicative gain (unlike RCP's
rate law, which scales its step by R):

    dr/dt = (kappa_r * (mu - n_src * r(t - tau)) - kappa_q * b / tau) / (n_src * tau),   r >= 0
    db/dt = n_src * r(t - tau) - mu,                                                     b >= 0

Parameters (its own names, none of RCP's): gains kappa_r and kappa_q (dimensionless), capacity mu
(bit/s), round trip tau (s), flows n_src, each with its domain; the queue is judged in units of
mu*tau. Any of them can be swept by the phase plane: ``--param tau=0.05,0.2``. Linearized about r = mu/n_src, b = 0 and written in
lambda = s*tau, the loop is lambda**2 + (kappa_r*lambda + kappa_q)*exp(-lambda) = 0: the same
characteristic equation as RCP's, so its exact region is thesis Fig. 5.2's bell
(kappa_r = w sin w, kappa_q = w**2 cos w), which the tests use as an independent check.
"""
import sympy as sp

from rcpstab.core.validation import Domain
from rcpstab.models.spec import Clamp, ModelSpec, t
from rcpstab.models.symbols import gamma0, q0

kappa_r, kappa_q = sp.symbols("kappa_r kappa_q", positive=True)
mu = sp.Symbol("mu", positive=True)        # link capacity, bit/s
tau = sp.Symbol("tau", positive=True)      # round-trip time, s
n_src = sp.Symbol("n_src", positive=True)  # flows sharing the link

r = sp.Function("r")
b = sp.Function("b")

MODEL = ModelSpec(
    name="erpi",
    title="ER-PI explicit-rate controller (a user protocol: examples/protocols/erpi.py)",
    states=(r, b),
    rhs=(
        (kappa_r * (mu - n_src * r(t - tau)) - kappa_q * b(t) / tau) / (n_src * tau),
        n_src * r(t - tau) - mu,
    ),
    parameters={kappa_r: 0.4, kappa_q: 0.2, mu: 100e6, tau: 0.1, n_src: 20},
    equilibrium={r: mu / n_src, b: sp.Integer(0)},
    loop_parameters=(kappa_r, kappa_q),
    time_scale=tau,
    gamma=r(t) / mu,
    queue=b(t),
    initial_state={r: gamma0 * mu, b: q0},
    clamps=(Clamp(r), Clamp(b)),
    queue_scale=mu * tau,  # the queue is judged in bandwidth-delay products
    domains={
        kappa_r: Domain("kappa_r", 0.0, low_open=True),
        kappa_q: Domain("kappa_q", 0.0, low_open=True),
        mu: Domain("capacity mu", 0.0, low_open=True, unit="bit/s"),
        tau: Domain("round trip tau", 0.0, low_open=True, unit="s"),
        n_src: Domain("flows n_src", 1.0),
    },
)
