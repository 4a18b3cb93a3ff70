"""A :class:`~rcpstab.models.spec.ModelSpec` compiled into the pieces the integrator steps.

The spec is symbolic; the integrator needs its stepping loop in C (:attr:`CompiledModel.kernel`),
and, for the NumPy reference and the set-up, per state a vectorized right-hand side and
to know how each state evolves: *continuous* states are integrated (Runge-Kutta),
*sampled* states are held constant and updated every ``interval`` (``spec.sampled``),
*clamped* states stop at their lower bound (and at an upper one, a buffer, their overflow
integrated into a state of its own), *saturated* states are clipped after every update.

Everything SymPy gives here (lambdify's generated source of each function, the kernel's C source,
which states are continuous) is derived once and kept in the derivation cache
(:mod:`rcpstab.runtime.derivation_cache`, keyed by the model's source files for a bundled model):
a cached model is compiled from that text without SymPy, to the same functions and the same kernel.
"""

from __future__ import annotations

import ctypes
from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..runtime.build import load_library
from ..runtime.lambdified import SOURCE as LAMBDIFIED_SOURCE
from ..runtime.lambdified import compile_lambdified, lambdify_source
from ..verdicts.band import STANDARD, Band

if TYPE_CHECKING:
    from ..models.spec import ModelSpec

DERIVING_SOURCES = (
    Path(__file__).resolve(),
    Path(__file__).resolve().parent / "codegen.py",
    Path(__file__).resolve().parent / "csrc" / "kernel.c",
    LAMBDIFIED_SOURCE,
)
"""The files whose code turns a spec into :func:`_derive`'s text (a change to any of them derives afresh)."""


@dataclass(frozen=True)
class DelayedInput:
    """One delayed term as the integrator reads it: which state, and its delay as a function of the parameters."""

    state_index: int
    delay: Callable[..., Any]  # f(*parameters) -> delay in seconds (scalar or per-trajectory array)
    sampled: bool


def _derive(spec) -> dict:
    """The text and facts :class:`CompiledModel` is built from, derived with SymPy (see the module docstring)."""
    import sympy as sp

    from ..models.spec import t

    states, parameters = spec.states, tuple(spec.parameters)
    current = spec.current_symbols
    subs = {s(t): sym for s, sym in zip(states, current)}

    def of_parameters(expr):
        if sp.sympify(expr).free_symbols & {t}:
            raise ValueError(f"model {spec.name!r}: {expr} depends on time")
        return lambdify_source(parameters, expr)

    def of_states(expr):  # spec.lambdify_expr's function: f(*current, *parameters)
        return lambdify_source((*current, *parameters), sp.sympify(expr).xreplace(subs))

    sampled = {states.index(s): interval for s, interval in spec.sampled.items()}
    continuous = tuple(i for i in range(len(states)) if i not in sampled)
    plain = spec.plain_rhs()
    moving = {current[i] for i in continuous}
    moving |= {term.symbol for term in spec.delayed_terms if states.index(term.state) in continuous}
    gamma0, q0 = sp.symbols("gamma_0 q_0", nonnegative=True)
    delay_exprs = [term.delay for term in spec.delayed_terms] + list(spec.sampled.values())
    return {
        "param_names": tuple(sym.name for sym in parameters),
        "n_states": len(states),
        "continuous": continuous,
        "rhs": [
            lambdify_source((*current, *(term.symbol for term in spec.delayed_terms), *parameters), e, cse=True) for e in plain
        ],
        "delayed": [
            (states.index(term.state), of_parameters(term.delay), states.index(term.state) in sampled)
            for term in spec.delayed_terms
        ],
        "interval": {i: of_parameters(v) for i, v in sampled.items()},
        "clamp_lower": {states.index(c.state): float(c.lower) for c in spec.clamps},
        # bounded clamps: state index -> (index of its overflow state, upper bound f(*parameters))
        "clamp_upper": {
            states.index(c.state): (states.index(c.overflow), of_parameters(c.upper)) for c in spec.clamps if c.bounded
        },
        "saturation": {states.index(x.state): (of_states(x.lower), of_states(x.upper)) for x in spec.saturations},
        # A continuous state whose rhs reads only held (sampled) values and parameters has a
        # piecewise-constant derivative: one Euler step per step is then exact, clamp included.
        "piecewise_constant": all(not (plain[i].free_symbols & moving) for i in continuous),
        "equilibrium": [of_states(spec.equilibrium[s]) for s in states],
        "gamma": of_states(spec.gamma),
        "queue": of_states(spec.queue),
        "initial": [lambdify_source((gamma0, q0, *parameters), spec.initial_state[s]) for s in states],
        "time_scale": of_parameters(spec.time_scale),
        # the queue's unit and the capacity are needed only to judge convergence: a model that declares
        # no queue unit is still integrated (asking for them then raises the spec's InputError)
        "queue_scale": of_parameters(spec.queue_scale) if spec.queue_scale is not None else None,
        "rate_scale": of_parameters(spec.rate_unit) if spec.queue_scale is not None or spec.capacity is not None else None,
        "delay_symbols": tuple(sorted({s.name for e in delay_exprs for s in sp.sympify(e).free_symbols})),
    }


class CompiledModel:
    """Numeric form of a model spec (built once per model and cached by :func:`compile_model`).

    Parameters
    ----------
    spec : ModelSpec
        The symbolic model (a bundled model whose derivation is cached is never built).
    """

    def __init__(self, spec):
        from ..runtime.derivation_cache import cached

        self.spec = spec
        data = cached("phaseplane", spec, DERIVING_SOURCES, lambda: _derive(spec))
        self.param_names = data["param_names"]
        self.n_states = data["n_states"]
        self.continuous = data["continuous"]
        self.rhs = tuple(compile_lambdified(text) for text in data["rhs"])
        self.delayed = tuple(DelayedInput(i, compile_lambdified(text), held) for i, text, held in data["delayed"])
        self.interval = {i: compile_lambdified(text) for i, text in data["interval"].items()}
        self.clamp_lower = data["clamp_lower"]
        self.clamp_upper = {i: (overflow, compile_lambdified(text)) for i, (overflow, text) in data["clamp_upper"].items()}
        self.saturation = {i: (compile_lambdified(lo), compile_lambdified(hi)) for i, (lo, hi) in data["saturation"].items()}
        self.piecewise_constant = data["piecewise_constant"]
        # Without sampled states the history is smooth between the delays' breakpoints, so delayed
        # values may be read with the wide stencil (.history); a sampled state makes every update a kink.
        self.wide_history = not self.interval
        self.equilibrium = tuple(compile_lambdified(text) for text in data["equilibrium"])
        self.gamma = compile_lambdified(data["gamma"])
        self.queue = compile_lambdified(data["queue"])
        self.initial = tuple(compile_lambdified(text) for text in data["initial"])
        self.time_scale = compile_lambdified(data["time_scale"])
        self._scales = {k: data[k] for k in ("queue_scale", "rate_scale")}
        self.delay_symbols = data["delay_symbols"]
        """Names of the parameters any delay or sampling interval depends on (must be uniform in a batch)."""
        self._kernels: dict = {}

    def _scale(self, name: str):
        if self._scales[name] is None:
            _ = self.spec.queue_unit  # raises the spec's InputError: the model declares no queue unit
        return compile_lambdified(self._scales[name])

    @cached_property
    def queue_scale(self):
        """The queue's unit as ``f(*parameters)`` (C*d0 for RCP): needed only to judge convergence,
        so a model that declares none can still be integrated."""
        return self._scale("queue_scale")

    @cached_property
    def rate_scale(self):
        """The link capacity as ``f(*parameters)`` (the model's declared ``capacity``, C for RCP)."""
        return self._scale("rate_scale")

    @property
    def judged(self) -> bool:
        """Whether the model declares the queue's unit, without which convergence cannot be judged."""
        return self._scales["queue_scale"] is not None

    @property
    def kernel(self) -> ctypes.CDLL:
        """The model's stepping loop in C (:mod:`.codegen`) with the standard band."""
        return self.kernel_for(STANDARD)

    def kernel_for(self, band: Band) -> ctypes.CDLL:
        """The stepping loop whose envelope monitor measures in ``band``: compiled on first use, then
        loaded from the disk cache (keyed by the source, so each band is a kernel of its own). The
        source itself is generated once per band and kept in the derivation cache."""
        from ..runtime.derivation_cache import cached

        if band not in self._kernels:

            def generate():
                from .codegen import c_source

                return c_source(self.spec, self.continuous, self.piecewise_constant, self.wide_history, band)

            source = cached(f"kernel-{float(band.rate)!r}-{float(band.queue)!r}", self.spec, DERIVING_SOURCES, generate)
            library = load_library(self.spec.name, source)
            library.rcpstab_run.restype = ctypes.c_int
            self._kernels[band] = library
        return self._kernels[band]


_CACHE: dict = {}


def compile_model(spec: ModelSpec) -> CompiledModel:
    """The compiled form of ``spec``, built on first use (deriving it takes ~0.3 s of SymPy per model, reading
    the derivation cache a few milliseconds)."""
    key = id(spec)
    if key not in _CACHE:
        _CACHE[key] = CompiledModel(spec)
    return _CACHE[key]
