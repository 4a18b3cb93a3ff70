"""A model's open-loop transfer function G(lambda), compiled for NumPy.

From the symbolic linearization, G = exp(-theta*lambda) * num(lambda) / (lambda**k * den(lambda))
with num affine in the loop gains (RCP: (alpha*lambda + beta) e^{-lambda} / lambda**2).
Magnitude and a *continuous* phase along the positive imaginary axis are what the Bode
criterion needs: the phase is built from its pieces (delay -theta*w exactly, each
integrator -pi/2 exactly, the rational rest unwrapped on a fine grid) so that no
2*pi ambiguity can creep in.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import ArrayLike

from ..errors import InputError

if TYPE_CHECKING:
    from ..models.spec import ModelSpec


@dataclass(frozen=True)
class OpenLoop:
    """G(lambda) = exp(-theta*lambda) * num(lambda) / (lambda**integrators * den(lambda)).

    Attributes
    ----------
    theta : float
        Normalized loop delay tau/d0.
    num : ndarray, shape (P, 3)
        ``num[p] = (c0, c_alpha, c_beta)``, the coefficient of lambda**p.
    den : ndarray
        Coefficients of den(lambda), lowest power first (no root at 0).
    integrators : int
        Number of poles at lambda = 0.
    """

    theta: float
    num: np.ndarray
    den: np.ndarray
    integrators: int

    def rational(self, lam_values: ArrayLike, alpha: ArrayLike, beta: ArrayLike) -> np.ndarray:
        """num/den (no delay, no integrators) at ``lam_values``, broadcasting with the gains."""
        lam_values = np.asarray(lam_values, dtype=complex)
        polyval = np.polynomial.polynomial.polyval  # Horner: complex powers are slow
        n = (
            polyval(lam_values, self.num[:, 0])
            + np.asarray(alpha) * polyval(lam_values, self.num[:, 1])
            + np.asarray(beta) * polyval(lam_values, self.num[:, 2])
        )
        ratio: np.ndarray = n / polyval(lam_values, self.den)
        return ratio

    def __call__(self, lam_values: ArrayLike, alpha: ArrayLike, beta: ArrayLike) -> np.ndarray:
        lam_values = np.asarray(lam_values, dtype=complex)
        loop: np.ndarray = (
            np.exp(-self.theta * lam_values) * self.rational(lam_values, alpha, beta) / lam_values**self.integrators
        )
        return loop

    def magnitude_phase(self, w: np.ndarray, alpha: ArrayLike, beta: ArrayLike) -> tuple[np.ndarray, np.ndarray]:
        """``|G(j w)|`` and its continuous phase (rad) for w > 0 on an increasing grid ``w``.

        ``w`` is the last axis; gains broadcast against it (shape (..., 1)).
        """
        r = self.rational(1j * w, alpha, beta)
        rational_phase = np.unwrap(np.angle(r), axis=-1)
        phase = rational_phase - self.theta * w - self.integrators * np.pi / 2
        return np.abs(r) / w**self.integrators, phase


@cache
def open_loop(model: ModelSpec) -> OpenLoop:
    """Compile ``model``'s normalized open loop (cached on disk); InputError if it is not of the form above.

    The refusal is cached too: it depends on the same model and code as a loop, and a model with two
    delays (the router-timed ones) would otherwise be derived with SymPy again at every call.
    """
    from ..runtime.derivation_cache import cached
    from .linearization_sources import DERIVING_SOURCES

    def compute() -> dict[str, Any]:
        try:
            ol = _compile(model)
        except InputError as exc:
            return {"refusal": str(exc)}
        return {"theta": np.array(ol.theta), "num": ol.num, "den": ol.den, "integrators": np.array(ol.integrators)}

    data = cached("openloop", model, (__file__, *DERIVING_SOURCES), compute)
    if "refusal" in data:
        raise InputError(data["refusal"])
    return OpenLoop(theta=float(data["theta"]), num=data["num"], den=data["den"], integrators=int(data["integrators"]))


def _compile(model: ModelSpec) -> OpenLoop:
    # SymPy only here: a cached derivation is read without it
    import sympy as sp

    from .linearization import lam, linearize

    system = linearize(model)
    G = system.at_defaults(system.normalized_open_loop)  # a parameter left in the loop: the model's own value
    alpha, beta = model.loop_parameters
    exps = list(G.atoms(sp.exp))
    theta = sum((-e.args[0] / lam for e in exps), sp.Integer(0))
    rational = sp.cancel(G / sp.Mul(*exps))
    numer, denom = sp.fraction(rational)
    if len(exps) > 1 or rational.has(sp.exp):
        raise InputError(
            f"model {model.name!r}: the open loop has more than one delay "
            f"({', '.join(map(str, exps))}); the exact method applies, Bode and margins do not"
        )
    den_poly = sp.Poly(denom, lam)
    k = min(m[0] for m in den_poly.monoms())
    den_poly = sp.Poly(sp.cancel(denom / lam**k), lam)
    if den_poly.free_symbols - {lam} or not theta.is_number:
        raise InputError(f"model {model.name!r}: open loop denominator depends on the gains")
    lead = den_poly.all_coeffs()[-1]  # constant term, nonzero
    num_poly = sp.Poly(sp.expand(numer / lead), lam)
    num = np.zeros((num_poly.degree() + 1, 3))
    for (power,), c in num_poly.terms():
        if sp.diff(c, alpha, 2) != 0 or sp.diff(c, beta, 2) != 0 or sp.diff(c, alpha, beta) != 0:
            raise InputError(f"model {model.name!r}: gains enter the open loop nonlinearly")
        num[power] = [float(c.subs({alpha: 0, beta: 0})), float(sp.diff(c, alpha)), float(sp.diff(c, beta))]
    den = np.array([float(c / lead) for c in reversed(den_poly.all_coeffs())])
    return OpenLoop(theta=float(theta), num=num, den=den, integrators=int(k))
