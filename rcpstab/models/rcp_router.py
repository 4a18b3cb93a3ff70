"""RCP's fluid model with the router's own timing (thesis App. F lines 1-17, eqs. 5.16-5.17).

The ``rcp`` model (eqs. 5.1-5.4) lets the rate law read the instantaneous input rate
y(t) = N R(t - d0). The router of App. F does not see y(t): at the end of each rate-estimation
interval T it reads the bytes that arrived *during* that interval (line 1), its RTT samples
(line 2, eq. 5.16) and its queue, updates its RTT average (lines 3-7, eq. 5.17) and then the
rate (line 8), which stays constant until the next expiry. Written as a fluid model::

    dY/dt = N R(t - d0) - eta C                  cumulative arrivals minus the target
    dq/dt = N R(t - d0) - C,   q >= 0
    y_T   = eta C + (Y(t) - Y(t - T)) / T        line 1: arrivals over the last interval
    d_T   = d0 + q(t - d0) / C                   line 2: the RTT the arriving packets carry
    theta = T/D if d_T >= D else (R/C)(d_T/D)(T/D)          lines 3-6
    D    <- D + theta (d_T - D)                               line 7 (every T)
    R    <- R (1 + (T/D') (alpha (eta C - y_T) - beta q / D') / (eta C))   line 8 (every T),
            D' the updated D, then R kept in [0.01 MTU / D', eta C]  (lines 9-12)

Y counts arrivals *minus* eta*C*t so that it stays bounded (its level is arbitrary: only the
difference Y(t) - Y(t - T) is ever read; the model declares it a counter, and the
linearization drops the neutral mode of that level). T is a parameter: the router's
T = min(avg RTT, 10 ms) is min(d0, 10 ms) at equilibrium, which is how the co-simulation and
the packet map set it.

**The linear loop of the sampled, averaged controller.**
About the equilibrium (R = eta C/N, q = 0, D = d0, eta = 1), with the sampling ignored (R
continuous, as :func:`rcpstab.linear.linearization.linearize` treats every model), the average
enters as ``(1 - exp(-sT)) / (sT)`` on the alpha term only (the queue is read at the
instant), and the RTT average decouples (the rate law's bracket vanishes at equilibrium)::

    G(s) = exp(-s d0) [alpha d0 s (1 - exp(-sT))/(sT) + beta] / (s d0)**2.

In lambda = s d0 and tau = T/d0: G = exp(-lambda) (alpha (1 - exp(-lambda tau))/tau + beta) /
lambda**2, which tends to the thesis' eq. 5.7 as tau -> 0. Unlike eq. 5.7 it depends on
T/d0, so the registered model is linearized at App. E's tau = 0.05 (T = 10 ms, d0 = 0.2 s;
:func:`at_interval_ratio` gives another).

The *hold* (R constant for T after each update) is not in that continuous G. The exact
linear loop of the sampled system, for d0 = m T (m whole): with u_k the rate held on
[kT, (k+1)T), the arrivals over [kT, (k+1)T) are N u_{k-m}, so::

    q_{k+1} = q_k + T N u_{k-m},
    u_{k+1} = u_k - (alpha T/d0) u_{k-m} - (beta T/(N d0**2)) q_{k+1},

whose characteristic polynomial in z is (:func:`sampled_characteristic`)::

    (z - 1)**2 z**m + tau alpha (z - 1) + tau**2 beta z = 0,   tau = 1/m,

stable when every root has ``|z| < 1``. With z = exp(sT) and T -> 0 it becomes eq. 5.7's
s**2 d0**2 exp(s d0) + alpha s d0 + beta = 0. The ``rcp`` model, read at the update instant,
sees N u_{k+1-m} instead of N u_{k-m} (one interval less delay: alpha's term gets a factor z).
"""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np
import sympy as sp

from .spec import Clamp, ModelSpec, Saturation, t
from .symbols import BUFFERED, DOMAINS, FAMILY, C, N, T, alpha, beta, buffer, d0, dropped, eta, gamma0, mtu, q0

R = sp.Function("R")
Y = sp.Function("Y")
q = sp.Function("q")
D = sp.Function("D")

y_T = eta * C + (Y(t) - Y(t - T)) / T  # App. F line 1
d_T = d0 + q(t - d0) / C  # line 2, eq. 5.16 (RTT carried in headers)
theta = sp.Piecewise(
    (T / D(t), d_T >= D(t)),  # lines 3-6, eq. 5.17's gain
    (R(t) / C * (d_T / D(t)) * (T / D(t)), True),
)
D_new = D(t) + theta * (d_T - D(t))  # line 7
rate_law = R(t) * (alpha * (eta * C - y_T) - beta * q(t) / D_new) / (eta * C * D_new)  # line 8 over T

APP_E_RATIO = sp.Rational(1, 20)  # App. E: T = 0.01 s, d0 = 0.2 s

MODEL = ModelSpec(
    name="rcp-router",
    title="RCP fluid model with App. F's timing (rate measured over the last interval T, "
    "updated every T, the router's RTT average)",
    states=(R, Y, q, D),
    rhs=(
        rate_law,
        N * R(t - d0) - eta * C,
        N * R(t - d0) - C,
        (D_new - D(t)) / T,  # sampled: D <- D + T * rhs = D_new
    ),
    parameters=dict(BUFFERED),
    equilibrium={R: eta * C / N, Y: sp.Integer(0), q: sp.Integer(0), D: d0},
    loop_parameters=(alpha, beta),
    time_scale=d0,
    gamma=R(t) / C,
    queue=q(t),
    initial_state={R: gamma0 * C, Y: sp.Integer(0), q: q0, D: d0 + q0 / C},
    clamps=(Clamp(q, upper=buffer, overflow=dropped),),
    saturations=(Saturation(R, lower=sp.Rational(1, 100) * mtu / D(t), upper=eta * C),),
    sampled={R: T, D: T},
    linearize_at={eta: 1, T: APP_E_RATIO * d0},
    counters=(Y,),
    **FAMILY,
    domains=DOMAINS,
)


def at_interval_ratio(ratio: Any) -> ModelSpec:
    """The model with its linear lenses at T/d0 = ``ratio`` (the phase plane takes T and d0 as given).

    Parameters
    ----------
    ratio : float or sympy.Rational
        T/d0 (> 0), dimensionless.

    Examples
    --------
    >>> from rcpstab.linear.linearization import linearize
    >>> str(linearize(at_interval_ratio(sp.Rational(1, 10))).free_parameters() - {alpha, beta})
    'set()'
    """
    ratio = sp.nsimplify(ratio)
    if not ratio > 0:
        raise ValueError(f"T/d0 = {ratio}: must be > 0")
    return dataclasses.replace(MODEL, linearize_at={eta: 1, T: ratio * d0})


def sampled_characteristic(alpha_value: float, beta_value: float, m: int, instantaneous: bool = False) -> Any:
    """Coefficients (highest power first) of the sampled loop's characteristic polynomial in z.

    ``(z - 1)**2 z**m + (alpha/m) (z - 1) + (beta/m**2) z`` for the router (d0 = m T, the rate
    measured over the last interval); with ``instantaneous=True`` the ``rcp`` model's reading of
    y at the update instant, whose alpha term carries one factor z more.

    Parameters
    ----------
    alpha_value, beta_value : float
        Gains.
    m : int
        d0/T, a whole number >= 1.

    Examples
    --------
    >>> np.round(sampled_characteristic(0.4, 0.2, 1), 3).tolist()
    [1.0, -2.0, 1.6, -0.4]
    """
    if int(m) != m or m < 1:
        raise ValueError(f"m = d0/T = {m}: must be a whole number >= 1")
    m = int(m)
    poly = np.polymul(np.polymul([1.0, -1.0], [1.0, -1.0]), np.r_[1.0, np.zeros(m)])
    a_term: np.ndarray = np.array([1.0, -1.0]) * alpha_value / m
    if instantaneous:
        a_term = np.polymul(a_term, [1.0, 0.0])
    b_term = np.array([1.0, 0.0]) * beta_value / m**2
    return np.polyadd(np.polyadd(poly, a_term), b_term)


def sampled_spectral_radius(alpha_value: float, beta_value: float, m: int, instantaneous: bool = False) -> float:
    """Largest ``|z|`` of :func:`sampled_characteristic`: the sampled linear loop is stable when < 1.

    Examples
    --------
    >>> sampled_spectral_radius(0.4, 0.2, 20) < 1 and sampled_spectral_radius(2.0, 0.1, 20) > 1
    True
    """
    return float(np.max(np.abs(np.roots(sampled_characteristic(alpha_value, beta_value, m, instantaneous)))))


__all__ = ["MODEL", "at_interval_ratio", "sampled_characteristic", "sampled_spectral_radius"]
