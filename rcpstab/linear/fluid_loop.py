"""A :class:`~rcpstab.models.delayloop.DelayedFluidModel` linearized at its operating point, as a loop.

The Jacobians of the right-hand sides with respect to the states now (A0) and to each delayed
state (A_k, grouped by delay) are taken symbolically, then evaluated at the fixed point. The
characteristic function ``det(sI - A0 - sum_k A_k z_k)``, z_k = exp(-s tau_k), is expanded as a
polynomial in s and the z_k: its z-free part is P0, and each monomial prod z_k^(m_k) is a delay
sum_k m_k tau_k. The loop is broken at the delays (every delayed feedback in it), as Zhu et al.
break DCQCN's and TIMELY's:

    L(s) = sum_m P_m(s)/P0(s) exp(-s tau_m),    1 + L = Delta/P0.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from typing import TYPE_CHECKING, Any, TypedDict

import numpy as np
import sympy as sp

from ..errors import InputError
from ..models.delayloop import DelayedFluidModel, get_loop_model
from .lti import DelayedLoop

if TYPE_CHECKING:
    from .lti import LoopMargins

NumericFunction = Callable[..., Any]  # lambdify's function: arrays or floats, as its expression gives


class _Compiled(TypedDict):
    params: tuple[sp.Symbol, ...]
    derived: tuple[tuple[sp.Symbol, NumericFunction], ...]
    A0: NumericFunction
    columns: list[NumericFunction]
    delays: list[NumericFunction]


__all__ = ["linearized_loop", "loop_matrices", "model_margins"]

s_ = sp.Symbol("s")


def _plain_conditions(expr: sp.Basic) -> sp.Basic:
    """``expr`` with each if-then-else condition ``ITE(c, a, b)`` written as ``(c & a) | (~c & b)``.

    Differentiating a Piecewise leaves ITE inside its conditions; SymPy's NumPy printer then runs
    ``simplify_logic`` on each of them, which dominated a DCQCN ``margins`` run. The rewritten
    condition has the same truth value at every point, so the same branch is taken.
    """

    def plain(e: sp.Basic) -> sp.Basic:
        return e.replace(
            lambda x: isinstance(x, sp.ITE), lambda x: sp.Or(sp.And(x.args[0], x.args[1]), sp.And(sp.Not(x.args[0]), x.args[2]))
        )

    return expr.applyfunc(plain) if isinstance(expr, sp.MatrixBase) else plain(expr)


@cache
def _compiled(model: DelayedFluidModel) -> _Compiled:
    """The Jacobians, delays and derived symbols of ``model`` as NumPy functions (derived once)."""
    rhs = sp.Matrix([sp.sympify(f) for f in model.rhs])
    params = tuple(model.parameters)
    derived = tuple(model.derived)
    args = (*params, *model.states, *model.delayed, *derived)
    columns = [rhs.diff(sym) for sym in model.delayed]

    def compile_(expr: sp.Basic) -> NumericFunction:
        function: NumericFunction = sp.lambdify(args, _plain_conditions(expr), modules=np)
        return function

    return {
        "params": params,
        "derived": tuple((sym, sp.lambdify((*params, *model.states), expr, modules=np)) for sym, expr in model.derived.items()),
        "A0": compile_(rhs.jacobian(sp.Matrix(model.states))),
        "columns": [compile_(c) for c in columns],
        "delays": [compile_(sp.sympify(delay)) for _, delay in model.delayed.values()],
    }


def loop_matrices(
    model: DelayedFluidModel, values: dict[str, float], **options: str
) -> tuple[np.ndarray, dict[float, np.ndarray], dict[Any, float]]:
    """(A0, {tau (s): A_tau}, operating point) of ``model`` at parameter ``values`` (name -> float)."""
    try:
        point = model.operating_point(values, **options)
    except ValueError as exc:
        raise InputError(f"model {model.name!r}: {exc}") from None
    compiled = _compiled(model)
    p = [values[sym.name] for sym in compiled["params"]]
    x = [point[state] for state in model.states]
    d = [point[state] for state, _ in model.delayed.values()]
    extra = [float(fn(*p, *x)) for _, fn in compiled["derived"]]
    args = (*p, *x, *d, *extra)

    def evaluate(fn: NumericFunction) -> np.ndarray:
        out = np.array(fn(*args), dtype=float)
        if not np.all(np.isfinite(out)):
            raise InputError(f"model {model.name!r}: the linearization is not finite at {values}")
        return out

    A0 = evaluate(compiled["A0"])
    delayed: dict[float, np.ndarray] = {}
    for (state, _), column, delay in zip(model.delayed.values(), compiled["columns"], compiled["delays"]):
        tau = float(delay(*args))
        block = np.zeros_like(A0)
        block[:, model.states.index(state)] = evaluate(column).ravel()
        delayed[tau] = delayed.get(tau, 0) + block
    return A0, delayed, point


def linearized_loop(model: str | DelayedFluidModel, p_star: str | None = None, **values: float) -> DelayedLoop:
    """``model``'s loop L(s) at parameter ``values`` (names as the model's, SI units; see the module docstring).

    Parameters
    ----------
    model : str or DelayedFluidModel
        ``"dcqcn"``, ``"timely"`` or a model object.
    p_star : {"exact", "paper"}, optional
        DCQCN only: the operating point's marking probability (see :mod:`rcpstab.models.dcqcn`).
    **values : float
        Parameters overriding the model's defaults, e.g. ``N=10, tau_star=50e-6``.

    Returns
    -------
    DelayedLoop
        With one term per delay sum (s), in rad/s.
    """
    loop_model = get_loop_model(model)
    options = {} if p_star is None else {"p_star": p_star}
    A0, delayed, _ = loop_matrices(loop_model, loop_model.values(**values), **options)
    n = A0.shape[0]
    taus = sorted(delayed)
    zs = sp.symbols(f"z0:{len(taus)}")
    # exact rationals (each float exactly): a structural zero (an integrator) stays exactly zero
    M = sp.Matrix(
        n,
        n,
        lambda i, j: (
            (s_ if i == j else 0) - sp.Rational(A0[i, j]) - sum(sp.Rational(delayed[tau][i, j]) * z for tau, z in zip(taus, zs))
        ),
    )
    poly = sp.Poly(sp.expand(M.det(method="berkowitz")), s_, *zs)
    terms: dict[tuple[float, bool], dict[int, float]] = {}
    for monom, coeff in poly.terms():
        power, zpow = monom[0], monom[1:]
        delay = float(sum(m * tau for m, tau in zip(zpow, taus)))
        key = (delay, sum(zpow) > 0)  # a zero delay still marks a delayed path
        terms.setdefault(key, {})[power] = float(coeff)

    def coefficients(d: dict[int, float]) -> np.ndarray:
        out = np.zeros(max(d) + 1)
        for power, c in d.items():
            out[power] = c
        return out[::-1]  # highest power first

    p0_key = (0.0, False)
    if p0_key not in terms:
        raise InputError(f"model {loop_model.name!r}: no delay-free dynamics to break the loop at")
    den = coefficients(terms.pop(p0_key))
    parts = sorted(((d, coefficients(c)) for (d, _), c in terms.items()), key=lambda x: x[0])
    if not parts:
        raise InputError(f"model {loop_model.name!r}: the linearization has no delayed feedback")
    (d1, n1), rest = parts[0], parts[1:]
    return DelayedLoop(n1, den, d1, extra=tuple((n, d) for d, n in rest))


def model_margins(model: str | DelayedFluidModel, p_star: str | None = None, **values: float) -> LoopMargins:
    """:func:`~rcpstab.linear.lti.loop_margins` of ``model``'s loop at ``values`` (see :func:`linearized_loop`).

    Examples
    --------
    >>> m = model_margins("timely", N=20, D_prop=100e-6)
    >>> m.stable, round(m.phase_margin_deg, 1)
    (True, 35.3)
    """
    from .lti import loop_margins

    return loop_margins(linearized_loop(model, p_star=p_star, **values))
