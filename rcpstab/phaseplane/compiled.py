"""A :class:`~rcpstab.models.spec.ModelSpec` compiled into the pieces the integrator steps.

The spec is symbolic; the integrator needs its stepping loop in C (:attr:`CompiledModel.kernel`),
and, for the NumPy reference and the set-up, per state a vectorized right-hand side and
to know how each state evolves: *continuous* states are integrated (Runge-Kutta),
*sampled* states are held constant and updated every ``interval`` (``spec.sampled``),
*clamped* states stop at their lower bound (and at an upper one, a buffer, their overflow
integrated into a state of its own), *saturated* states are clipped after every update.
"""
from __future__ import annotations

import ctypes
from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property
from typing import Any

import sympy as sp

from ..models.spec import ModelSpec, t
from ..runtime.build import load_library
from ..verdicts.band import STANDARD, Band
from .codegen import c_source


@dataclass(frozen=True)
class DelayedInput:
    """One delayed term as the integrator reads it: which state, and its delay as a function of the parameters."""

    state_index: int
    delay: Callable[..., Any]  # f(*parameters) -> delay in seconds (scalar or per-trajectory array)
    sampled: bool


class CompiledModel:
    """Numeric form of a model spec (built once per model and cached by :func:`compile_model`).

    Parameters
    ----------
    spec : ModelSpec
        The symbolic model.
    """

    def __init__(self, spec: ModelSpec):
        self.spec = spec
        self.param_names = tuple(sym.name for sym in spec.parameters)
        self.n_states = len(spec.states)
        self.sampled_interval = {spec.states.index(s): interval for s, interval in spec.sampled.items()}
        self.continuous = tuple(i for i in range(self.n_states) if i not in self.sampled_interval)
        args = (*spec.current_symbols, *(term.symbol for term in spec.delayed_terms), *spec.parameters)
        plain = spec.plain_rhs()
        self.rhs = tuple(sp.lambdify(args, expr, modules="numpy", cse=True) for expr in plain)
        self.delayed = tuple(
            DelayedInput(spec.states.index(term.state), self._param_function(term.delay),
                         spec.states.index(term.state) in self.sampled_interval)
            for term in spec.delayed_terms
        )
        self.interval = {i: self._param_function(v) for i, v in self.sampled_interval.items()}
        self.clamp_lower = {spec.states.index(c.state): float(c.lower) for c in spec.clamps}
        # bounded clamps: state index -> (index of its overflow state, upper bound f(*parameters))
        self.clamp_upper = {spec.states.index(c.state): (spec.states.index(c.overflow), self._param_function(c.upper))
                            for c in spec.clamps if c.bounded}
        self.saturation = {
            spec.states.index(s.state): (spec.lambdify_expr(s.lower), spec.lambdify_expr(s.upper))
            for s in spec.saturations
        }
        moving = {spec.current_symbols[i] for i in self.continuous}
        moving |= {term.symbol for term in spec.delayed_terms
                   if spec.states.index(term.state) in self.continuous}
        # A continuous state whose rhs reads only held (sampled) values and parameters has a
        # piecewise-constant derivative: one Euler step per step is then exact, clamp included.
        self.piecewise_constant = all(not (plain[i].free_symbols & moving) for i in self.continuous)
        # Without sampled states the history is smooth between the delays' breakpoints, so delayed
        # values may be read with the wide stencil (.history); a sampled state makes every update a kink.
        self.wide_history = not self.sampled_interval
        self.equilibrium = tuple(spec.lambdify_expr(spec.equilibrium[s]) for s in spec.states)
        self.gamma = spec.lambdify_expr(spec.gamma)
        self.queue = spec.lambdify_expr(spec.queue)
        gamma0, q0 = sp.symbols("gamma_0 q_0", nonnegative=True)
        self.initial = tuple(
            sp.lambdify((gamma0, q0, *spec.parameters), spec.initial_state[s], modules="numpy")
            for s in spec.states
        )
        self.time_scale = self._param_function(spec.time_scale)
        self._kernels: dict = {}

    def _param_function(self, expr):
        """Compile a parameter expression (a delay, an interval) into ``f(*parameters)``."""
        if sp.sympify(expr).free_symbols & {t}:
            raise ValueError(f"model {self.spec.name!r}: {expr} depends on time")
        return sp.lambdify(tuple(self.spec.parameters), expr, modules="numpy")

    @cached_property
    def queue_scale(self):
        """The queue's unit as ``f(*parameters)`` (C*d0 for RCP): needed only to judge convergence,
        so a model that declares none can still be integrated."""
        return self._param_function(self.spec.queue_unit)

    @cached_property
    def rate_scale(self):
        """The link capacity as ``f(*parameters)`` (the model's declared ``capacity``, C for RCP)."""
        return self._param_function(self.spec.rate_unit)

    @property
    def judged(self) -> bool:
        """Whether the model declares the queue's unit, without which convergence cannot be judged."""
        return self.spec.queue_scale is not None

    @property
    def kernel(self) -> ctypes.CDLL:
        """The model's stepping loop in C (:mod:`.codegen`) with the standard band."""
        return self.kernel_for(STANDARD)

    def kernel_for(self, band: Band) -> ctypes.CDLL:
        """The stepping loop whose envelope monitor measures in ``band``: compiled on first use, then
        loaded from the disk cache (keyed by the source, so each band is a kernel of its own)."""
        if band not in self._kernels:
            library = load_library(self.spec.name, c_source(self.spec, self.continuous, self.piecewise_constant,
                                                            self.wide_history, band))
            library.rcpstab_run.restype = ctypes.c_int
            self._kernels[band] = library
        return self._kernels[band]

    @cached_property
    def delay_symbols(self) -> tuple[str, ...]:
        """Names of the parameters any delay or sampling interval depends on (must be uniform in a batch)."""
        exprs = [term.delay for term in self.spec.delayed_terms] + list(self.spec.sampled.values())
        return tuple(sorted({s.name for e in exprs for s in sp.sympify(e).free_symbols}))


_CACHE: dict = {}


def compile_model(spec: ModelSpec) -> CompiledModel:
    """The compiled form of ``spec``, built on first use (lambdify takes ~0.1 s per model)."""
    key = id(spec)
    if key not in _CACHE:
        _CACHE[key] = CompiledModel(spec)
    return _CACHE[key]
