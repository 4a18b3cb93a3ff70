"""Parameter symbols shared by the RCP-family models, with the thesis' defaults.

Defaults are App. E's phase-plane set-up (C = 0.15 Gb/s, d0 = 0.2 s, T = 0.01 s,
N = 10) with eta = 1 as in the analysis (thesis Sec. 5.1, footnote 1).
"""

import sympy as sp

from ..runtime.validation import DOMAINS as _TABLE

alpha, beta = sp.symbols("alpha beta", positive=True)
C = sp.Symbol("C", positive=True)  # link capacity, bit/s
N = sp.Symbol("N", positive=True)  # number of long-lived flows
d0 = sp.Symbol("d_0", positive=True)  # round-trip propagation delay, s
T = sp.Symbol("T", positive=True)  # rate update interval, s
eta = sp.Symbol("eta", positive=True)  # target utilization
mtu = sp.Symbol("MTU", positive=True)  # maximum transmission unit, bits
gamma0, q0 = sp.symbols("gamma_0 q_0", nonnegative=True)  # initial R/C and queue (bits)
buffer = sp.Symbol("buffer", positive=True)  # bottleneck buffer B: the queue is held in [0, B], bits
dropped = sp.Function("dropped")  # volume the full buffer turned away (bits), a state
UNBOUNDED = float("inf")  # buffer default: the thesis' fluid model has no buffer limit

DEFAULTS = {alpha: 0.4, beta: 0.2, C: 0.15e9, N: 10, d0: 0.2, T: 0.01, eta: 1.0, mtu: 1500 * 8}
"""App. E set-up; (alpha, beta) = (0.4, 0.2) lies inside every region of the thesis."""

BUFFERED = {**DEFAULTS, buffer: UNBOUNDED}
"""The defaults of a model with a queue: its buffer unbounded unless set (eqs. 5.1-5.4 have no
limit; every experiment of the thesis has one, usually one bandwidth-delay product, Ch. 4)."""

DOMAINS = {
    alpha: _TABLE["alpha"],
    beta: _TABLE["beta"],
    C: _TABLE["C"],
    N: _TABLE["N"],
    d0: _TABLE["d0"],
    T: _TABLE["T"],
    eta: _TABLE["eta"],
    mtu: _TABLE["MTU"],
    buffer: _TABLE["buffer_bits"],
}
"""What each parameter of the RCP family may be: its entry in the one table of domains
(:data:`rcpstab.runtime.validation.DOMAINS`), checked before any integration."""

FAMILY = {"capacity": C, "queue_scale": C * d0, "flows": N, "configuration": (C, d0, N, T), "aliases": {"d0": d0, "mtu": mtu}}
"""What every RCP-family model declares about its parameters (:class:`~rcpstab.models.spec.ModelSpec`):
the link capacity C, the queue judged in bandwidth-delay products C*d0, N counting the flows, the
network configuration (C, d0, N, T) reported with every sweep, and the short names d0 and mtu."""
