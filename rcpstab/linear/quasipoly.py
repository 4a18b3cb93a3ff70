"""The normalized characteristic quasi-polynomial of a model, compiled for NumPy.

A model's linearization (:mod:`rcpstab.linear.linearization`) gives, in lambda = s*d0,

    Delta(lambda) = sum_k p_k(lambda; alpha, beta) * exp(-theta_k * lambda),

monic in its delay-free principal term. The region engines need it evaluated on whole
grids of (alpha, beta) at once, and D-subdivision needs it split as
``D0(lambda) + alpha*D1(lambda) + beta*D2(lambda)``; :class:`QuasiPolynomial` gives both.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache, cached_property
from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import ArrayLike

from ..errors import InputError
from .tailbound import dominance_frequency

if TYPE_CHECKING:
    from ..models.spec import ModelSpec

ZERO = np.zeros((), dtype=complex)  # the sums' start: what sum()'s 0 becomes added to a complex array


def horner(x: np.ndarray, c: np.ndarray) -> np.ndarray:
    """``sum_p c[p] x**p`` by Horner's rule: :func:`numpy.polynomial.polynomial.polyval`'s operations in
    its order (so the same values to the bit) without its argument handling, which cost more than the
    arithmetic on the short frequency arrays of a root refinement. ``c`` is 1-D and real."""
    c0: np.ndarray = c[-1] + x * 0
    for i in range(2, c.size + 1):
        c0 = c[-i] + c0 * x
    return c0


@dataclass(frozen=True)
class QuasiPolynomial:
    """Delta(lambda; alpha, beta), affine in the loop gains.

    Attributes
    ----------
    thetas : ndarray, shape (K,)
        Normalized delays theta_k = tau_k / d0 (0 for the delay-free part).
    coeffs : ndarray, shape (K, P, 3)
        ``coeffs[k, p] = (c0, c_alpha, c_beta)``: the coefficient of lambda**p in p_k is
        ``c0 + c_alpha*alpha + c_beta*beta``.
    degree : int
        Degree n of the principal (delay-free, monic) term; retarded type means every
        delayed term has a lower degree.
    """

    thetas: np.ndarray
    coeffs: np.ndarray
    degree: int

    def parts(self, lam_values: ArrayLike) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(D0, D1, D2) at ``lam_values``: Delta = D0 + alpha*D1 + beta*D2."""
        return self._three_parts(self.coeffs, lam_values)

    def _three_parts(self, coeffs: np.ndarray, lam_values: ArrayLike) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``sum_k horner(lam, coeffs[k, :, j]) * exp(-theta_k lam)`` for j = 0, 1, 2, in one Horner pass.

        The three parts ride along a leading axis of length 3: each element gets :func:`horner`'s
        operations in its order and the delays' sum starts from :data:`ZERO` as ``sum()`` did, so the values
        are those of three separate passes to the bit, for a third of the NumPy calls (which, on the
        few frequencies of a root refinement, cost more than the arithmetic).
        """
        lam = np.asarray(lam_values, dtype=complex)
        if lam.ndim == 0:  # NumPy's scalar arithmetic rounds apart from its array loops: keep its own path
            delays = [np.exp(-lam * theta) if theta else 1.0 for theta in self.thetas]
            d0, d1, d2 = (
                sum((horner(lam, coeffs[k, :, j]) * delays[k] for k in range(self.thetas.size)), ZERO) for j in range(3)
            )
            return d0, d1, d2
        shape = (3,) + (1,) * lam.ndim
        total: np.ndarray = ZERO
        for k, theta in enumerate(self.thetas):
            c = coeffs[k]  # (P, 3)
            h = c[-1].reshape(shape) + lam * 0
            for i in range(2, c.shape[0] + 1):
                h = c[-i].reshape(shape) + h * lam
            total = total + h * (np.exp(-lam * theta) if theta else 1.0)
        return total[0], total[1], total[2]

    @cached_property
    def _derivative_coeffs(self) -> np.ndarray:
        """Coefficients of d/dlambda [p_k(lambda) e^{-theta_k lambda}] / e^{-theta_k lambda}: p_k' - theta_k p_k."""
        P = self.coeffs.shape[1]
        der = np.zeros_like(self.coeffs)
        der[:, : P - 1, :] = self.coeffs[:, 1:, :] * np.arange(1, P)[None, :, None]
        derivative: np.ndarray = der - self.thetas[:, None, None] * self.coeffs
        return derivative

    def parts_derivative(self, lam_values: ArrayLike) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(D0', D1', D2'): the derivatives of :meth:`parts` with respect to lambda."""
        return self._three_parts(self._derivative_coeffs, lam_values)

    def __call__(self, lam_values: ArrayLike, alpha: ArrayLike, beta: ArrayLike) -> np.ndarray:
        """Delta(lambda; alpha, beta), broadcasting over all three arguments."""
        d0, d1, d2 = self.parts(lam_values)
        value: np.ndarray = d0 + np.asarray(alpha) * d1 + np.asarray(beta) * d2
        return value

    def derivative(self, lam_values: ArrayLike, alpha: ArrayLike, beta: ArrayLike) -> np.ndarray:
        """d Delta / d lambda, broadcasting like :meth:`__call__`."""
        lam = np.asarray(lam_values, dtype=complex)
        P = self.coeffs.shape[1]
        c = (
            self.coeffs[..., 0]
            + np.asarray(alpha)[..., None, None] * self.coeffs[..., 1]
            + np.asarray(beta)[..., None, None] * self.coeffs[..., 2]
        )  # (..., K, P)
        lp = lam[..., None, None]
        p = np.arange(P)
        poly = np.sum(c * lp**p, axis=-1)
        dpoly = np.sum(c[..., 1:] * p[1:] * lp ** (p[1:] - 1), axis=-1)
        e = np.exp(-lam[..., None] * self.thetas)
        slope: np.ndarray = np.sum((dpoly - self.thetas * poly) * e, axis=-1)
        return slope

    def dominance(self, alpha: ArrayLike, beta: ArrayLike, ratio: float = 4.0) -> np.ndarray:
        """A w past which ``|lambda**n|`` >= ``ratio`` x the other terms' moduli on lambda = j w, per (alpha, beta)."""
        c = np.abs(
            self.coeffs[..., 0]
            + np.asarray(alpha)[..., None, None] * self.coeffs[..., 1]
            + np.asarray(beta)[..., None, None] * self.coeffs[..., 2]
        )
        per_power = c.sum(axis=-2)  # delay factors have modulus 1 on the axis
        return dominance_frequency(1.0, ratio * per_power[..., : self.degree])

    def count_unstable(self, alpha: ArrayLike, beta: ArrayLike, step: float = 0.01) -> np.ndarray:
        """Number of roots with Re(lambda) > 0, by the argument principle on the imaginary axis.

        For a retarded quasi-polynomial with monic principal term lambda**n and no root on
        the imaginary axis, the phase of Delta(j w) changes by (n - 2 Z) pi / 2 as w goes
        from 0 to infinity, Z being the number of roots in the right half-plane. Past
        ``W`` = max(2, where ``w**n`` exceeds four times the other terms, :meth:`dominance`) the principal
        term dominates four to one, so the rest of the phase change is the wrap of the phase at W to n*pi/2.

        Returns
        -------
        ndarray of float
            Z for each (alpha, beta); NaN where the count is not near an integer
            (a root on or very near the imaginary axis).
        """
        a, b = np.broadcast_arrays(np.asarray(alpha, float), np.asarray(beta, float))
        W = max(2.0, float(np.max(self.dominance(a, b))))
        # The phase of exp(-j w theta) turns at rate theta, the polynomial part slower:
        # 0.01 rad steps keep consecutive phase differences far below pi.
        w = np.arange(0.0, W + step, step)
        value = self(1j * w, a.reshape(-1, 1), b.reshape(-1, 1))
        phase = np.unwrap(np.angle(value), axis=-1)
        tail = _wrap(self.degree * np.pi / 2 - phase[:, -1])
        change = phase[:, -1] - phase[:, 0] + tail
        z = (self.degree - 2 * change / np.pi) / 2
        z[np.abs(z - np.round(z)) > 0.05] = np.nan
        count: np.ndarray = np.round(z).reshape(a.shape)
        return count


def _wrap(angle: np.ndarray) -> np.ndarray:
    return (angle + np.pi) % (2 * np.pi) - np.pi


@cache
def quasi_polynomial(model: ModelSpec) -> QuasiPolynomial:
    """Compile ``model``'s normalized characteristic quasi-polynomial (cached on disk, :mod:`.diskcache`).

    Parameters other than the two loop gains that survive normalization are at the model's own
    values (:meth:`~.linearization.LinearDelaySystem.at_defaults`). Raises :class:`InputError` if
    the gains do not enter affinely (D-subdivision needs it).
    """
    from ..runtime.derivation_cache import cached
    from .linearization_sources import DERIVING_SOURCES

    def compute() -> dict[str, np.ndarray]:
        qp = _compile(model)
        return {"thetas": qp.thetas, "coeffs": qp.coeffs, "degree": np.array(qp.degree)}

    data = cached("quasipoly", model, (__file__, *DERIVING_SOURCES), compute)
    return QuasiPolynomial(thetas=data["thetas"], coeffs=data["coeffs"], degree=int(data["degree"]))


def _compile(model: ModelSpec) -> QuasiPolynomial:
    # SymPy only here: a cached derivation is read without it
    import sympy as sp

    from .linearization import lam, linearize

    system = linearize(model)
    expr = system.at_defaults(system.normalized_characteristic)
    alpha, beta = model.loop_parameters
    extra = expr.free_symbols - {lam, alpha, beta}
    if extra:
        raise InputError(f"model {model.name!r}: the normalized loop still depends on {', '.join(sorted(map(str, extra)))}")
    groups: dict[sp.Expr, list[sp.Expr]] = {}
    for term in sp.Add.make_args(expr):
        exps = [e for e in term.atoms(sp.exp)]
        theta = sp.Integer(0)
        rest = term
        for e in exps:
            theta += -e.args[0] / lam
            rest = rest / e
        groups.setdefault(sp.nsimplify(sp.simplify(theta)), []).append(rest)
    thetas = sorted(groups, key=float)
    polys = {th: sp.Poly(sp.Add(*groups[th]), lam) for th in thetas}
    P = max(p.degree() for p in polys.values()) + 1
    coeffs = np.zeros((len(thetas), P, 3))
    for k, th in enumerate(thetas):
        for (power,), c in polys[th].terms():
            if sp.diff(c, alpha, 2) != 0 or sp.diff(c, beta, 2) != 0 or sp.diff(c, alpha, beta) != 0:
                raise InputError(f"model {model.name!r}: gains enter the loop nonlinearly ({c})")
            ca, cb = sp.diff(c, alpha), sp.diff(c, beta)
            coeffs[k, power] = [float(c.subs({alpha: 0, beta: 0})), float(ca), float(cb)]
    degree = polys[thetas[0]].degree() if float(thetas[0]) == 0 else -1
    if degree < 1 or any(polys[th].degree() >= degree for th in thetas[1:]):
        raise InputError(f"model {model.name!r}: characteristic equation is not of retarded type")
    return QuasiPolynomial(thetas=np.array([float(th) for th in thetas]), coeffs=coeffs, degree=degree)
