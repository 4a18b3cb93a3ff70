"""Fluid models whose linear analysis is a loop with fixed delays, written once symbolically.

A :class:`DelayedFluidModel` holds the nonlinear delay-differential equations of a protocol
(states, parameters with units, the delayed terms and their delays) and a function giving its
operating point. The linear lens (:mod:`rcpstab.linear.fluid_loop`) linearizes it with SymPy
and breaks the loop at the delays, as the data-center papers do: the characteristic function
det(sI - A0 - sum_k A_k e^{-s tau_k}) = P0(s) + sum_m P_m(s) e^{-s tau_m} gives the open loop
L(s) = sum_m P_m(s)/P0(s) e^{-s tau_m} (every delayed feedback in the loop, the delay-free
dynamics as its open-loop part, which may be unstable).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..errors import InputError

if TYPE_CHECKING:
    import sympy as sp

__all__ = ["DelayedFluidModel", "LOOP_MODELS", "get_loop_model", "is_loop_model"]


@dataclass(frozen=True, eq=False)  # hashed by identity: compiled forms are cached per model
class DelayedFluidModel:
    """A nonlinear fluid model with delays, as SymPy expressions.

    Attributes
    ----------
    name, title : str
        Registry name and one line with the source (paper, equation numbers).
    states : tuple of sympy.Symbol
        The states at time t.
    rhs : tuple of sympy.Expr
        d state/dt, in the states, the delayed symbols and the parameters.
    delayed : dict
        Delayed symbol -> (state symbol, delay expression in the parameters and the operating point).
    parameters : dict
        Parameter symbol -> default value (SI units unless ``units`` says otherwise).
    units : dict
        Parameter or state name -> its unit and meaning (for help and the docs).
    operating_point : callable
        ``f(values) -> {state symbol: value}`` for ``values`` {parameter name: value}: the fixed point.
    derived : dict
        Symbol -> expression in the parameters and states (e.g. a delay fixed at the operating
        point), substituted after the operating point is known.
    """

    name: str
    title: str
    states: tuple[Any, ...]
    rhs: tuple[Any, ...]
    delayed: dict[Any, Any]
    parameters: dict[Any, Any]
    units: dict[str, str]
    operating_point: Callable[..., dict[Any, float]]
    derived: dict[Any, Any] = field(default_factory=dict)

    def values(self, **overrides: Any) -> dict[str, float]:
        """{parameter name: float}: the defaults with ``overrides``; unknown or non-finite names are InputErrors."""
        out = {s.name: float(v) for s, v in self.parameters.items()}
        for key, value in overrides.items():
            if key not in out:
                raise InputError(f"model {self.name!r} has no parameter {key!r} (it has: {', '.join(out)})")
            try:
                value = float(value)
            except (TypeError, ValueError):
                raise InputError(f"{key} = {value!r}: expected a number") from None
            if value != value or value in (float("inf"), float("-inf")):
                raise InputError(f"{key} = {value!r}: must be finite")
            out[key] = value
        return out

    def symbol(self, name: str) -> sp.Symbol:
        """The parameter symbol called ``name``."""
        for s in self.parameters:
            if s.name == name:
                return s
        raise InputError(f"model {self.name!r} has no parameter {name!r}")


LOOP_MODELS = {"dcqcn": "dcqcn", "dcqcn-paper": "dcqcn_paper", "timely": "timely"}
"""Model name -> module of this package defining it as ``MODEL``."""


def is_loop_model(name: object) -> bool:
    """Whether ``name`` names a bundled :class:`DelayedFluidModel`."""
    return isinstance(name, str) and name in LOOP_MODELS


def get_loop_model(name: str | DelayedFluidModel) -> DelayedFluidModel:
    """The bundled delayed-loop model called ``name`` (or ``name`` itself if it is one)."""
    if isinstance(name, DelayedFluidModel):
        return name
    if not is_loop_model(name):
        raise InputError(f"model {name!r}: expected one of {', '.join(LOOP_MODELS)}")
    model: DelayedFluidModel = importlib.import_module(f"{__package__}.{LOOP_MODELS[name]}").MODEL
    return model
