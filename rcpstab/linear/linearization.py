"""Symbolic linearization of a model spec about its equilibrium (thesis App. B).

:func:`linearize` differentiates the model's right-hand sides with respect to the
current and every delayed state, giving the linear delay system

    d(dx)/dt = A0 dx(t) + sum_k A_k dx(t - tau_k),

its characteristic quasi-polynomial det(s I - A0 - sum_k A_k exp(-s tau_k)) and the
open-loop transfer function G(s) (the delayed part of the characteristic function over
its delay-free part, so that the closed loop is 1 + G(s) = 0). Nothing here is typed in:
change the model and the linearization changes with it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING

import sympy as sp

from ..models import as_model
from ..models import spec as spec_module
from ..models.spec import ModelSpec
from ..runtime.derivation_cache import cached

if TYPE_CHECKING:
    from control import TransferFunction  # python-control ships no type hints: an alias of Any to mypy

s = sp.Symbol("s")
"""Laplace variable (1/s)."""
lam = sp.Symbol("lambda")
"""Normalized Laplace variable, lambda = s * d0 (dimensionless)."""


@dataclass(frozen=True)
class LinearDelaySystem:
    """A model linearized about its equilibrium.

    Attributes
    ----------
    model : ModelSpec
        The model it came from.
    A0 : sympy.Matrix
        Coefficients of the current perturbations dx(t).
    delayed : dict
        ``{tau: A_tau}``: coefficients of dx(t - tau), for every delay whose matrix is
        not zero at the equilibrium (the rcp model's R(t-T) drops out here).
    """

    model: ModelSpec
    A0: sp.Matrix
    delayed: dict[sp.Expr, sp.Matrix]

    def __repr__(self) -> str:
        return (
            f"LinearDelaySystem(model={self.model.name!r}, {self.A0.shape[0]} states, "
            f"delays {', '.join(map(str, self.delayed)) or 'none'}, G(s) = {self.open_loop})"
        )

    @cached_property
    def characteristic(self) -> sp.Expr:
        """det(s I - A0 - sum_k A_k exp(-s tau_k)), in the Laplace variable :data:`s`."""
        n = self.A0.shape[0]
        M = s * sp.eye(n) - self.A0
        for tau, A in self.delayed.items():
            M -= A * sp.exp(-s * tau)
        char = sp.expand(M.det())
        if self.model.counters:  # each counter's level is a neutral mode: a factor s, dropped
            char = sp.expand(char / s ** len(self.model.counters))
            if any(term.as_powers_dict().get(s, 0) < 0 for term in sp.Add.make_args(char)):
                raise ValueError(f"model {self.model.name!r}: counters do not factor out of the characteristic")
        return char

    @cached_property
    def normalized_characteristic(self) -> sp.Expr:
        """The characteristic function in lambda = s*d0, scaled to be monic.

        For a protocol with the thesis' scaling only the loop gains and numbers remain:
        :meth:`free_parameters` checks that N, C and d0 cancel.
        """
        d0 = self.model.time_scale
        expr = sp.expand(self.characteristic.subs(s, lam / d0))
        expr = sp.expand(sp.powsimp(sp.expand(expr), combine="exp"))
        lead = sp.Poly(expr.subs({sp.exp(a): 0 for a in _exponents(expr)}), lam).LC()
        return sp.expand(sp.powsimp(sp.simplify(expr / lead), combine="exp"))

    def at_defaults(self, expr: sp.Expr) -> sp.Expr:
        """``expr`` with every parameter but the loop gains at the model's own value.

        What the linear lenses map when the normalized loop still depends on a parameter (a
        second delay's ratio to the time scale, say): the model's declared default, as
        ``linearize_at`` would fix it. The bundled models normalize to the gains alone.
        """
        rest = expr.free_symbols & set(self.model.parameters) - set(self.model.loop_parameters)
        return expr.xreplace({sym: sp.nsimplify(self.model.parameters[sym]) for sym in rest}) if rest else expr

    def free_parameters(self) -> set[sp.Symbol]:
        """Symbols other than lambda left in :attr:`normalized_characteristic`."""
        free: set[sp.Symbol] = self.normalized_characteristic.free_symbols - {lam}
        return free

    @cached_property
    def open_loop(self) -> sp.Expr:
        """G(s) with 1 + G(s) = 0 the closed loop: the delayed terms over the delay-free part."""
        char = self.characteristic
        delay_free = char.subs({sp.exp(a): 0 for a in _exponents(char)})
        return sp.simplify((char - delay_free) / delay_free)

    @cached_property
    def normalized_open_loop(self) -> sp.Expr:
        """G as a function of lambda = s*d0 (the d0 dependence cancels)."""
        return sp.simplify(self.open_loop.subs(s, lam / self.model.time_scale))

    def to_control(self, pade: int | None = None, **parameter_values: float) -> TransferFunction:
        """The open loop as a ``control.TransferFunction``, each delay a Pade approximant of order ``pade``
        (see :func:`rcpstab.linear.export.to_control`)."""
        from .export import to_control

        return to_control(self, pade, **parameter_values)

    def latex(self) -> str:
        """The linear system and G(s) as LaTeX."""
        names = [sp.Symbol(rf"\delta {sp.latex(x)}") for x in self.model.loop_states]
        x = sp.Matrix(names)
        terms = [sp.latex(self.A0) + sp.latex(x) + "(t)"] if self.A0 != sp.zeros(*self.A0.shape) else []
        for tau, A in self.delayed.items():
            terms.append(sp.latex(A) + sp.latex(x) + rf"(t - {sp.latex(tau)})")
        return rf"\frac{{d}}{{dt}} {sp.latex(x)}(t) = " + " + ".join(terms) + rf", \qquad G(s) = {sp.latex(self.open_loop)}"


def _exponents(expr: sp.Expr) -> list[sp.Expr]:
    return [e.args[0] for e in expr.atoms(sp.exp)]


def linearize(model: ModelSpec) -> LinearDelaySystem:
    """Linearize ``model`` about its equilibrium (thesis App. B, eqs. B.1-B.3).

    Parameters
    ----------
    model : ModelSpec
        Its ``linearize_at`` substitutions (eta = 1) are applied first, delays included; clamps,
        saturations and sampling are ignored, as the linear analysis of Sec. 5.1 does.

    Returns
    -------
    LinearDelaySystem

    Notes
    -----
    The derivation is cached on disk (:mod:`rcpstab.runtime.derivation_cache`), keyed by the
    model and this module's source: SymPy's simplifications would otherwise dominate
    ``rcpstab margins``' run time.
    """
    model = as_model(model)  # a name works too; anything else is an InputError
    A0, delayed, derived = cached("linearization", model, (__file__, spec_module.__file__), lambda: _derive(model))
    system = LinearDelaySystem(model=model, A0=A0, delayed=delayed)
    system.__dict__.update(derived)  # the cached_property values, as if computed here
    return system


DERIVED = ("characteristic", "normalized_characteristic", "open_loop", "normalized_open_loop")
"""The :class:`LinearDelaySystem` properties stored with the cached derivation."""


def _derive(model: ModelSpec) -> tuple[sp.Matrix, dict[sp.Expr, sp.Matrix], dict[str, sp.Expr]]:
    """The Jacobians (and :data:`DERIVED`) of :func:`linearize`, computed with SymPy."""
    # the overflow accumulators (dropped volume) are outputs, not part of the loop: left out
    loop = [i for i, x in enumerate(model.states) if x in model.loop_states]
    plain = model.plain_rhs()
    rhs = [plain[i].subs(model.linearize_at) for i in loop]
    current = [model.current_symbols[i] for i in loop]
    at = {sym: model.equilibrium[x] for x, sym in zip(model.states, model.current_symbols)}
    at.update({term.symbol: model.equilibrium[term.state] for term in model.delayed_terms})
    at = {k: sp.sympify(v).subs(model.linearize_at) for k, v in at.items()}

    def jacobian(symbols: Sequence[sp.Symbol]) -> sp.Matrix:
        return sp.Matrix([[sp.simplify(sp.diff(f, v).subs(at)) for v in symbols] for f in rhs])

    A0 = jacobian(current)
    delayed: dict[sp.Expr, sp.Matrix] = {}
    for tau in model.delays:
        columns = [
            next((term.symbol for term in model.delayed_terms if term.state == x and term.delay == tau), None)
            for x in model.loop_states
        ]
        A = sp.Matrix([[sp.simplify(sp.diff(f, v).subs(at)) if v is not None else 0 for v in columns] for f in rhs])
        if A != sp.zeros(*A.shape):
            key = sp.sympify(tau).subs(model.linearize_at)
            delayed[key] = delayed.get(key, sp.zeros(*A.shape)) + A
    system = LinearDelaySystem(model=model, A0=A0, delayed=delayed)
    return A0, delayed, {name: getattr(system, name) for name in DERIVED}
