"""A model's linearized loop as a python-control object, the delay as a Pade approximant.

python-control (0.10) has no exact time delay, so the loop G(s) = sum_k R_k(s) exp(-s tau_k) is
returned as sum_k R_k(s) P_N,tau_k(s), P the Pade approximant of order N of exp(-s tau)
(:func:`control.pade`). Use it for what python-control does that rcpstab does not (root locus,
step responses, controller design); rcpstab's own margins are exact.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import sympy as sp

from ..errors import InputError

__all__ = ["to_control", "loop_to_control"]


def _require_pade(pade: object) -> Any:
    import control

    if pade is None:
        raise InputError(
            f"python-control {control.__version__} cannot hold an exact time delay: "
            "pass pade=N (a Pade approximant of order N, e.g. 10)"
        )
    if isinstance(pade, bool) or not isinstance(pade, int | np.integer) or pade < 1:
        raise InputError(f"pade = {pade!r}: expected an order N >= 1")
    return control


def to_control(system: Any, pade: int | None = None, **parameter_values: float) -> Any:
    """``system``'s open loop G(s) (1 + G = 0 closes it) as a ``control.TransferFunction``.

    Parameters
    ----------
    system : LinearDelaySystem
        From :func:`rcpstab.linearize`.
    pade : int
        Order of the Pade approximant of each delay (required: python-control has no exact delay).
    **parameter_values : float
        Model parameters by name (SI units), overriding the model's defaults, e.g. ``alpha=0.4``.

    Returns
    -------
    control.TransferFunction
        In the Laplace variable s (rad/s).

    Examples
    --------
    >>> import rcpstab
    >>> G = rcpstab.linearize("rcp").to_control(pade=10, alpha=0.4, beta=0.2)
    >>> G.ninputs, G.noutputs
    (1, 1)
    """
    control = _require_pade(pade)
    from .linearization import s

    model = system.model
    values = dict(model.parameters)
    for name, value in parameter_values.items():
        try:
            sym = model.symbol(name)
        except KeyError:
            raise InputError(f"model {model.name!r} has no parameter {name!r}") from None
        values[sym] = float(value)
    G = sp.expand(system.open_loop.subs(values))
    groups: dict[Any, Any] = {}
    for term in sp.Add.make_args(G):
        exps = term.atoms(sp.exp)
        tau = sum((-e.args[0] / s for e in exps), sp.Integer(0))
        rest = term / sp.Mul(*exps)
        groups[float(tau)] = groups.get(float(tau), 0) + rest
    total = None
    for tau, rational in sorted(groups.items()):
        num, den = sp.fraction(sp.cancel(sp.together(rational)))
        try:
            tf = control.tf([float(c) for c in sp.Poly(num, s).all_coeffs()], [float(c) for c in sp.Poly(den, s).all_coeffs()])
        except (sp.PolynomialError, TypeError):
            raise InputError(
                f"model {model.name!r}: the loop still depends on {', '.join(sorted(map(str, rational.free_symbols - {s})))}"
            ) from None
        if tau > 0:
            tf = tf * control.tf(*control.pade(tau, pade))
        total = tf if total is None else total + tf
    return control.minreal(total, verbose=False) if total is not None else None


def loop_to_control(loop: Any, pade: int | None = None) -> Any:
    """A :class:`~rcpstab.linear.lti.DelayedLoop` (e.g. DCQCN's) as a ``control.TransferFunction`` (Pade delays)."""
    control = _require_pade(pade)
    total = None
    for num, tau in loop.terms:
        tf = control.tf(num, loop.den)
        if tau > 0:
            tf = tf * control.tf(*control.pade(tau, pade))
        total = tf if total is None else total + tf
    return total
