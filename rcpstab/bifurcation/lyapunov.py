"""Criticality of a Hopf bifurcation of a delay system: the first Lyapunov coefficient.

For a delay system x'(t) = f(x(t), x(t - tau_1), ..., x(t - tau_m)) with an equilibrium at
which a pair of characteristic roots +-i*w crosses the imaginary axis, the restriction to the
two-dimensional center manifold has the normal form::

    z' = lambda(mu) z + c1 z |z|^2 + O(|z|^4),

and the bifurcation is supercritical (a small stable cycle grows out of the equilibrium,
amplitude ~ sqrt(distance)) when Re c1 < 0, subcritical (an unstable cycle shrinks onto it:
the system jumps to a distant attractor, with hysteresis) when Re c1 > 0. The first Lyapunov
coefficient is l1 = Re(c1) / w.

c1 is computed with the standard center-manifold formulas for delay equations with discrete
delays (Kuznetsov's invariant ODE formula with the characteristic matrix Delta(lambda) in place
of lambda*I - A; see e.g. Janssens, *On a normalization technique for codimension two
bifurcations of equilibria of delay differential equations*, 2010, and DDE-BIFTOOL's
normal-form module)::

    Delta(lambda) = lambda I - sum_k A_k exp(-lambda tau_k),   Delta(i w) q = 0,
    p^H Delta(i w) = 0,  p^H Delta'(i w) q = 1,
    phi(theta) = exp(i w theta) q,
    h20 = Delta(2 i w)^-1 B(phi, phi),   h11 = Delta(0)^-1 B(phi, conj(phi)),
    c1 = p^H [C(phi, phi, conj(phi)) + B(conj(phi), h20 e^{2 i w .}) + 2 B(phi, h11)] / 2,

where B and C are the second and third derivatives of f at the equilibrium, acting on the
values of their arguments at 0 and at -tau_k. The derivatives come from the model's SymPy
right-hand sides (:meth:`~rcpstab.models.spec.ModelSpec.plain_rhs`), so nothing is typed in.
With the root's speed Re(dlambda/dmu), the cycle past the boundary has, to leading order::

    abs(z)**2 = -Re(dlambda/dmu) (mu - mu*) / Re(c1),

and each state oscillates as 2 Re(z q_j e^{i w t}): half peak-to-peak amplitude 2 abs(z) abs(q_j).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from functools import cache

import numpy as np
import sympy as sp
from scipy.optimize import brentq

from ..linear.roots import generator_eigenvalues
from ..models.spec import ModelSpec, t

__all__ = ["HopfPoint", "hopf_point", "first_lyapunov", "characteristic_matrix"]


@dataclass(frozen=True)
class _Expansion:
    """Taylor coefficients of a model's right-hand sides at its equilibrium, as functions of the parameters."""

    states: int
    variable_state: tuple  # state index of each variable (current values first, then delayed terms)
    variable_delay: tuple  # f(*params) -> delay (s) of each variable, 0 for current values
    jacobian: callable  # f(*params) -> (n, K)
    hessian: callable  # f(*params) -> (n, K, K)
    third: callable  # f(*params) -> (n, K, K, K)
    gamma_gradient: callable  # f(*params) -> (n,): d(R/C)/dx at equilibrium
    queue_gradient: callable  # f(*params) -> (n,): dq/dx at equilibrium
    equilibrium: callable  # f(*params) -> (n,)


@cache
def _expansion(model: ModelSpec) -> _Expansion:
    """Differentiate the model symbolically (up to third order) at its equilibrium, once per model."""
    # the feedback loop only: a buffer's overflow accumulator (rhs 0, read by nothing) is no state of it
    loop = [i for i, x in enumerate(model.states) if x in model.loop_states]
    where = {model.states[i]: k for k, i in enumerate(loop)}
    terms = [term for term in model.delayed_terms if term.state in where]
    plain = model.plain_rhs()
    rhs = [sp.sympify(plain[i]).subs(model.linearize_at) for i in loop]
    current = [model.current_symbols[i] for i in loop]
    variables = current + [term.symbol for term in terms]
    states = list(range(len(loop))) + [where[term.state] for term in terms]
    delays = [sp.Integer(0)] * len(loop) + [term.delay for term in terms]
    at = {sym: model.equilibrium[x] for x, sym in zip(model.states, model.current_symbols)}
    at.update({term.symbol: model.equilibrium[term.state] for term in model.delayed_terms})
    at = {k: sp.sympify(v).subs(model.linearize_at) for k, v in at.items()}
    n, K = len(rhs), len(variables)
    params = tuple(model.parameters)

    def tensor(order):
        shape = (n,) + (K,) * order
        out = sp.MutableDenseNDimArray.zeros(*shape)
        for i in range(n):
            for idx in itertools.product(range(K), repeat=order):
                out[(i,) + idx] = sp.diff(rhs[i], *[variables[k] for k in idx]).subs(at)
        return sp.lambdify(params, out.tolist(), modules="numpy")

    now = {s(t): sym for s, sym in zip(model.states, model.current_symbols)}

    def gradient(expr):
        expr = sp.sympify(expr).xreplace(now)
        return sp.lambdify(params, [sp.diff(expr, sym).subs(at) for sym in current], modules="numpy")

    eq = sp.lambdify(
        params, [sp.sympify(model.equilibrium[model.states[i]]).subs(model.linearize_at) for i in loop], modules="numpy"
    )
    return _Expansion(
        states=n,
        variable_state=tuple(states),
        variable_delay=tuple(sp.lambdify(params, d, modules="numpy") for d in delays),
        jacobian=tensor(1),
        hessian=tensor(2),
        third=tensor(3),
        gamma_gradient=gradient(model.gamma),
        queue_gradient=gradient(model.queue),
        equilibrium=eq,
    )


def _parameter_values(model: ModelSpec, values: dict) -> list:
    """Model parameters in order, defaults filled in, ``linearize_at`` (eta = 1) applied."""
    by_name = {sym.name: sym for sym in model.parameters}
    unknown = set(values) - set(by_name)
    if unknown:
        raise KeyError(f"model {model.name!r} has no parameter {sorted(unknown)[0]!r}")
    out = []
    for sym, default in model.parameters.items():
        value = values.get(sym.name, default)
        if sym in model.linearize_at:
            value = float(model.linearize_at[sym])
        out.append(float(value))
    return out


class _Numeric:
    """The expansion evaluated at one parameter point: Delta(lambda), B and C as NumPy callables."""

    def __init__(self, model: ModelSpec, values: dict):
        e = _expansion(model)
        p = _parameter_values(model, values)
        self.n = e.states
        self.var_state = np.array(e.variable_state)
        self.var_delay = np.array([float(np.asarray(f(*p))) for f in e.variable_delay])
        self.J = np.asarray(e.jacobian(*p), dtype=float)
        self.H = np.asarray(e.hessian(*p), dtype=float)
        self.T = np.asarray(e.third(*p), dtype=float)
        self.gamma_gradient = np.asarray(e.gamma_gradient(*p), dtype=float)
        self.queue_gradient = np.asarray(e.queue_gradient(*p), dtype=float)
        self.equilibrium = np.asarray(e.equilibrium(*p), dtype=float)
        # column selector: variable k reads state var_state[k]
        self.E = np.zeros((len(self.var_state), self.n))
        self.E[np.arange(len(self.var_state)), self.var_state] = 1.0

    def delta(self, lam):
        """Characteristic matrix Delta(lambda) = lambda I - sum_k J_k exp(-lambda tau_k) (SI, lambda in 1/s)."""
        return lam * np.eye(self.n) - (self.J * np.exp(-lam * self.var_delay)) @ self.E

    def delta_prime(self, lam):
        return np.eye(self.n) + (self.J * (self.var_delay * np.exp(-lam * self.var_delay))) @ self.E

    def arguments(self, mu, u):
        """Values of the variables for the function theta -> exp(mu theta) u."""
        return u[self.var_state] * np.exp(-mu * self.var_delay)

    def B(self, a, b):
        return np.einsum("ikl,k,l->i", self.H, a, b)

    def C(self, a, b, c):
        return np.einsum("iklm,k,l,m->i", self.T, a, b, c)


def characteristic_matrix(model: ModelSpec, lam: complex, **values) -> np.ndarray:
    """Delta(lambda) of ``model`` at its equilibrium, lambda in 1/s, parameters by name (SI).

    Examples
    --------
    >>> from rcpstab.models import get_model
    >>> D = characteristic_matrix(get_model("linear"), 0j, alpha=0.4, beta=0.2)
    >>> D.shape
    (2, 2)
    """
    return _Numeric(model, values).delta(complex(lam))


def _full(model: ModelSpec, values: dict) -> dict:
    """Every parameter by name: the model's defaults updated with ``values``."""
    return {**{s.name: v for s, v in model.parameters.items()}, **values}


def _time_scale(model: ModelSpec, values: dict) -> float:
    """The model's time unit (one RTT d0) in seconds at ``values``."""
    f = sp.lambdify(tuple(model.parameters), model.time_scale, modules="numpy")
    return float(f(*_parameter_values(model, values)))


def _queue_scale(model: ModelSpec, values: dict) -> float:
    """The model's declared queue unit at ``values`` (C*d0 for RCP), or its time unit if it declares none."""
    if model.queue_scale is None:
        return _time_scale(model, values)
    f = sp.lambdify(tuple(model.parameters), model.queue_scale, modules="numpy")
    return float(f(*_parameter_values(model, values)))


def _newton_root(num: _Numeric, lam: complex, iterations: int = 60) -> complex:
    """Newton's method on det Delta(lambda), with d det/d lambda = det * tr(Delta^-1 Delta')."""
    for _ in range(iterations):
        D = num.delta(lam)
        det = np.linalg.det(D)
        trace = np.trace(np.linalg.solve(D, num.delta_prime(lam))) if abs(det) > 0 else np.inf
        step = 1.0 / trace
        lam = lam - step
        if abs(step) < 1e-13 * (1 + abs(lam)):
            break
    return lam


def _rightmost(model: ModelSpec, values: dict) -> complex:
    """Rightmost root (1/s, Im >= 0): collocation estimate of the regions lens, polished on det Delta here."""
    d0 = _time_scale(model, values)
    alpha, beta = (values.get(s.name, model.parameters[s]) for s in model.loop_parameters)
    eig = generator_eigenvalues(model, alpha, beta) / d0
    eig = eig[eig.imag >= -1e-9]
    num = _Numeric(model, values)
    polished = [_newton_root(num, complex(z)) for z in eig[np.argsort(-eig.real)][:4]]
    polished = [z for z in polished if np.isfinite(z)]
    best = max(polished, key=lambda z: z.real)
    return complex(best.real, abs(best.imag))


@dataclass(frozen=True)
class HopfPoint:
    """A Hopf point of a delay model on its linear stability boundary, with its normal form.

    Attributes
    ----------
    model : str
    parameter : str
        The swept gain (``alpha`` or ``beta``); the other parameters are in ``values``.
    critical : float
        Its value on the boundary.
    values : dict
        Every other parameter (SI units).
    omega_rtt : float
        Frequency of the crossing pair, rad per round trip (w * d0); period 2 pi / omega_rtt RTTs.
    c1 : complex
        Normal-form coefficient (1/s, for z scaled so that x = 2 Re(z q e^{i w t})).
    l1 : float
        First Lyapunov coefficient Re(c1)/w, with z measured in R/C (half peak-to-peak R/C of the
        cycle = 2 abs(z)): < 0 supercritical, > 0 subcritical.
    speed : float
        Re(dlambda/dgain) at the boundary (1/s per unit gain): > 0 when the root moves right.
    gamma_coefficient, queue_coefficient : float or None
        Predicted half peak-to-peak amplitude of R/C (absolute) and of q/(C d0) per
        sqrt(abs(gain - critical)) on the side where the cycle exists (None when l1 is 0:
        a linear or degenerate system has no amplitude law).
    """

    model: str
    parameter: str
    critical: float
    values: dict
    omega_rtt: float
    c1: complex
    l1: float
    speed: float
    gamma_coefficient: float | None
    queue_coefficient: float | None

    @property
    def criticality(self) -> str:
        """``supercritical``, ``subcritical`` or ``degenerate`` (l1 zero to rounding)."""
        if self.gamma_coefficient is None:
            return "degenerate"
        return "supercritical" if self.l1 < 0 else "subcritical"

    def predicted_amplitude(self, gain) -> np.ndarray:
        """Half peak-to-peak R/C of the small cycle at ``gain`` (0 on the side without a cycle)."""
        if self.gamma_coefficient is None:
            raise ValueError(f"{self.model}: degenerate Hopf point (l1 = {self.l1:g}): no amplitude law")
        side = -np.sign(self.l1) * np.sign(self.speed)  # cycle where Re(lambda') dmu / (-Re c1) > 0
        distance = (np.asarray(gain, dtype=float) - self.critical) * side
        return self.gamma_coefficient * np.sqrt(np.clip(distance, 0.0, None))

    def __repr__(self):
        return (
            f"HopfPoint({self.model}, {self.parameter}={self.critical:.6g}, w*d0={self.omega_rtt:.4g}, "
            f"l1={self.l1:.4g}, {self.criticality})"
        )


DEGENERATE = 1e-9  # |Re c1| below this fraction of the scale of c1's terms: a linear system


def first_lyapunov(model: ModelSpec, parameter: str = "alpha", **values) -> HopfPoint:
    """Normal form of ``model`` at a Hopf point given by all its parameter values (SI, by name).

    ``values[parameter]`` must be on the boundary (the rightmost root on the imaginary axis, see
    :func:`hopf_point` to find it); the other gain sets the direction of the speed.

    Examples
    --------
    The delayed logistic (Hutchinson/Wright) equation x' = -a x(t-1) (1 + x) has its Hopf point
    at a = pi/2, supercritical: see :func:`rcpstab.bifurcation.textbook.hutchinson_model`.
    """
    values = _full(model, values)
    num = _Numeric(model, values)
    d0 = _time_scale(model, values)
    lam = _newton_root(num, complex(0.0, float(np.abs(_rightmost(model, values).imag))))
    omega = abs(lam.imag)
    lam = complex(0.0, omega)
    D = num.delta(lam)
    # kernel vectors: singular vectors of the smallest singular value (Delta is only singular to rounding)
    U, sigma, Vh = np.linalg.svd(D)
    size = omega + np.abs(num.J).sum()
    if sigma[-1] > 1e-8 * size or (sigma.size > 1 and sigma[-2] < 1e-6 * size):
        raise ValueError(
            f"{model.name}: Delta(i w) at w = {omega:g} 1/s has no simple kernel (singular values {sigma}): not on the boundary?"
        )
    q = Vh[-1].conj()
    p = U[:, -1]
    # measure z in units of R/C: q scaled so that R/C oscillates as 2 Re(z e^{i w t}); then l1 is
    # dimensionless per (R/C)^2 and comparable across models and units
    if abs(num.gamma_gradient @ q) > 1e-300:
        q = q / (num.gamma_gradient @ q)
    p = p / np.conj(p.conj() @ num.delta_prime(lam) @ q)  # p^H Delta'(i w) q = 1
    phi = num.arguments(lam, q)
    phibar = num.arguments(np.conj(lam), q.conj())
    h20 = np.linalg.solve(num.delta(2 * lam), num.B(phi, phi))
    h11 = np.linalg.solve(num.delta(0.0), num.B(phi, phibar))
    terms = [num.C(phi, phi, phibar), num.B(phibar, num.arguments(2 * lam, h20)), 2 * num.B(phi, num.arguments(0.0, h11))]
    c1 = 0.5 * complex(p.conj() @ sum(terms))
    scale = sum(abs(complex(p.conj() @ term)) for term in terms) + abs(c1)
    # speed of the root: dlambda/dmu = -p^H dDelta/dmu q, dDelta/dmu by a central difference in the gain
    h = 1e-6 * max(1.0, abs(values[parameter]))
    up = _Numeric(model, {**values, parameter: values[parameter] + h}).delta(lam)
    down = _Numeric(model, {**values, parameter: values[parameter] - h}).delta(lam)
    speed = float(np.real(-(p.conj() @ ((up - down) / (2 * h)) @ q)))
    degenerate = scale == 0 or abs(c1.real) <= DEGENERATE * scale
    if degenerate:
        gamma_coefficient = queue_coefficient = None
    else:
        radius = np.sqrt(abs(speed / c1.real))  # |z| per sqrt(|mu - mu*|)
        gamma_coefficient = float(2 * radius * abs(num.gamma_gradient @ q))
        queue_scale = _queue_scale(model, values)  # q in the model's queue unit (C*d0 for RCP; else d0)
        queue_coefficient = float(2 * radius * abs(num.queue_gradient @ q) / queue_scale)
    return HopfPoint(
        model=model.name,
        parameter=parameter,
        critical=float(values[parameter]),
        values={k: v for k, v in values.items() if k != parameter},
        omega_rtt=float(omega * d0),
        c1=c1,
        l1=float(c1.real / omega) if not degenerate else 0.0,
        speed=speed,
        gamma_coefficient=gamma_coefficient,
        queue_coefficient=queue_coefficient,
    )


def hopf_point(model: ModelSpec, bracket: tuple[float, float], parameter: str = "alpha", **values: float) -> HopfPoint:
    """Find the linear boundary in ``parameter`` inside ``bracket`` and return its normal form.

    Parameters
    ----------
    model : ModelSpec
    bracket : (float, float)
        Gains on either side of the boundary (the rightmost root changes side between them).
    parameter : str
        The gain varied (``alpha`` or ``beta``).
    **values
        Every other parameter by name (SI units); defaults from the model.

    Returns
    -------
    HopfPoint
    """
    full = _full(model, values)

    def real_part(gain):
        return _rightmost(model, {**full, parameter: gain}).real

    critical = brentq(real_part, *bracket, xtol=1e-13, rtol=1e-13)
    return first_lyapunov(model, parameter, **{**full, parameter: critical})
