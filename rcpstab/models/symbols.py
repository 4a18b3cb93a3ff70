"""Parameter symbols shared by the RCP-family models, with the thesis' defaults.

Defaults are App. E's phase-plane set-up (C = 0.15 Gb/s, d0 = 0.2 s, T = 0.01 s,
N = 10) with eta = 1 as in the analysis (thesis Sec. 5.1, footnote 1).
"""
import sympy as sp

from .domains import Domain

alpha, beta = sp.symbols("alpha beta", positive=True)
C = sp.Symbol("C", positive=True)          # link capacity, bit/s
N = sp.Symbol("N", positive=True)          # number of long-lived flows
d0 = sp.Symbol("d_0", positive=True)       # round-trip propagation delay, s
T = sp.Symbol("T", positive=True)          # rate update interval, s
eta = sp.Symbol("eta", positive=True)      # target utilization
mtu = sp.Symbol("MTU", positive=True)      # maximum transmission unit, bits
gamma0, q0 = sp.symbols("gamma_0 q_0", nonnegative=True)  # initial R/C and queue (bits)

DEFAULTS = {alpha: 0.4, beta: 0.2, C: 0.15e9, N: 10, d0: 0.2, T: 0.01, eta: 1.0, mtu: 1500 * 8}
"""App. E set-up; (alpha, beta) = (0.4, 0.2) lies inside every region of the thesis."""

DOMAINS = {
    alpha: Domain(low=0, label="alpha"),
    beta: Domain(low=0, label="beta"),
    C: Domain(low=0, unit="bit/s", label="capacity C"),
    N: Domain(low=1, closed_low=True, label="number of flows N"),
    d0: Domain(low=0, unit="s", label="propagation delay d0"),
    T: Domain(low=0, unit="s", label="update interval T"),
    eta: Domain(low=0, label="eta"),
    mtu: Domain(low=0, unit="bits", label="MTU"),
}
"""What each parameter of the RCP family may be (checked before any integration)."""
