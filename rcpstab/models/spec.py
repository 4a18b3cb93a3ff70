"""The model-spec abstraction: a protocol's fluid model written once, symbolically.

A :class:`ModelSpec` holds the right-hand sides of a delay-differential system as
SymPy expressions in the states (undefined functions of time ``t``) evaluated at
``t`` or at ``t - tau``. Everything else is derived from it: the delayed terms
(:attr:`ModelSpec.delayed_terms`), the linearization (:mod:`rcpstab.linear.linearization`),
the numeric right-hand side for the integrator (:meth:`ModelSpec.lambdify_rhs`)
and the LaTeX shown in the documentation (:meth:`ModelSpec.latex`).

Units follow the thesis: time in seconds, rates in bit/s, queues in bits.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Any, cast

import sympy as sp

from ..errors import InputError
from ..runtime.validation import Domain

if TYPE_CHECKING:
    from .table import ParameterTable

t = sp.Symbol("t", real=True)
"""Time (s), the independent variable of every model."""


@dataclass(frozen=True)
class Clamp:
    """A state held in ``[lower, upper]``: at a bound its derivative is cut to point inside.

    At ``lower`` the derivative is ``max(0, rhs)``: the switching rule of thesis eq. 5.4 (the
    queue cannot go below zero). At ``upper`` (a finite buffer, bits) it is ``min(0, rhs)``,
    and what the cut removes is not lost from the books: it is integrated into the
    ``overflow`` state, the volume the full buffer turned away (dropped), so that
    ``state + overflow`` grows by exactly the unclamped integral of ``rhs`` while the state
    sits at its upper bound. ``upper`` is an expression of the parameters; with its value
    infinite (the default of every bundled model's ``buffer``) the clamp is the lower one only,
    bit for bit.

    Examples
    --------
    >>> import sympy as sp
    >>> q, D = sp.Function("q"), sp.Function("dropped")
    >>> Clamp(q, upper=sp.Symbol("buffer"), overflow=D).bounded
    True
    """

    state: sp.Function
    lower: sp.Expr = sp.Integer(0)
    upper: sp.Expr = sp.oo
    overflow: sp.Function | None = None

    @property
    def bounded(self) -> bool:
        """Whether the clamp has an upper bound (and so an overflow state)."""
        return self.overflow is not None


@dataclass(frozen=True)
class Saturation:
    """A state kept inside ``[lower, upper]`` after every update (App. F lines 9-12)."""

    state: sp.Function
    lower: sp.Expr
    upper: sp.Expr


@dataclass(frozen=True)
class DelayedTerm:
    """One occurrence ``state(t - delay)`` in the right-hand sides."""

    state: sp.Function
    delay: sp.Expr
    symbol: sp.Symbol

    @property
    def applied(self) -> sp.Expr:
        return self.state(t - self.delay)


@dataclass(frozen=True, eq=False)  # compared and hashed by identity: models are registry singletons
class ModelSpec:
    """A delay-differential fluid model of one congestion-control protocol.

    Parameters
    ----------
    name : str
        Registry name (``rcp``, ``switched``, ...).
    title : str
        One-line human description with its source (thesis equation numbers).
    states : tuple of sympy.Function
        The state variables, as undefined functions of :data:`t`.
    rhs : tuple of sympy.Expr
        ``d state / dt`` for each state, in terms of ``state(t)``, ``state(t - tau)``
        and parameters. Delays ``tau`` must be parameter expressions (not state dependent).
    parameters : dict
        Every parameter symbol mapped to its default value (SI units), so a model is
        runnable as given. Keys are symbols; :meth:`symbol` looks them up by name.
    equilibrium : dict
        ``{state: expr}``, the operating point the protocol is designed to reach.
    clamps : tuple of Clamp
        States with a hard lower bound (the switching surface) and optionally an upper one
        (a finite buffer). The overflow state of a bounded clamp is appended to ``states``
        (right-hand side 0: the clamp fills it; equilibrium and initial value 0) unless the
        model lists it already; it is left out of the linearization (:attr:`loop_states`).
    saturations : tuple of Saturation
        States kept inside bounds after every update.
    sampled : dict
        ``{state: interval}``: the state is not integrated continuously but updated
        every ``interval`` by a forward step of its right-hand side, as the router's
        control path does (thesis App. E's C program, App. F line 8).
    linearize_at : dict
        Parameter values substituted before linearizing (the linear analysis
        ignores eta: thesis Sec. 5.1 footnote 1).
    queue_scale : sympy.Expr, optional
        The queue's unit for judging convergence (one bandwidth-delay product, C*d0 for the RCP
        family): the band's queue half-width is a fraction of it (:class:`~rcpstab.verdicts.band.Band`). A model without one can be integrated and linearized, but
        not judged.
    capacity : sympy.Expr, optional
        The link capacity (bit/s): the rate that ``gamma`` is a share of (C for the RCP family).
        Default ``queue_scale / time_scale``.
    flows : sympy.Symbol, optional
        The parameter that counts the flows (N for the RCP family): what a flow schedule sets.
    configuration : tuple of sympy.Symbol, optional
        The parameters that describe the network a result was computed for, reported with every
        configuration of a sweep in this order (C, d0, N, T for the RCP family). Default: the
        parameters of :attr:`time_scale`.
    aliases : dict, optional
        ``{name: parameter}``: other names a parameter may be given by (``d0`` for ``d_0``); the
        first alias of a parameter is the name results report it under (:meth:`public_name`).
    domains : dict
        ``{parameter: Domain}``: allowed values, checked before any work; a parameter without
        one must only be finite.
    origin : str
        Where the model came from when it is not bundled: the protocol file's path (set by
        :func:`rcpstab.models.plugins.load_model_file`), so worker processes can load it again.
    counters : tuple of sympy.Function
        Cumulative counters read only through differences such as ``Y(t) - Y(t - T)``
        (``rcp-router``'s arrivals): their level is arbitrary, so the linearization drops
        the neutral root s = 0 that each contributes.
    loop_parameters : tuple of sympy.Symbol
        The two controller gains mapped over, ``(alpha, beta)``.
    time_scale : sympy.Expr
        Time is normalized by it (one round-trip propagation delay d0): the linear
        analysis works in ``s * d0``.
    gamma, queue : sympy.Expr
        The normalized per-flow rate R/C and the queue (bits), as expressions of the
        states at ``t``: what the phase plane draws.
    initial_state : dict
        ``{state: expr}`` in the symbols ``gamma0`` and ``q0`` (App. E's initial conditions).
    """

    name: str
    title: str
    states: tuple[Any, ...]
    rhs: tuple[Any, ...]
    parameters: dict[Any, Any]
    equilibrium: dict[Any, Any]
    loop_parameters: tuple[Any, ...]
    time_scale: sp.Expr
    gamma: sp.Expr
    queue: sp.Expr
    initial_state: dict[Any, Any]
    clamps: tuple[Clamp, ...] = ()
    saturations: tuple[Saturation, ...] = ()
    sampled: dict[Any, Any] = field(default_factory=dict)
    linearize_at: dict[Any, Any] = field(default_factory=dict)
    counters: tuple[Any, ...] = ()
    queue_scale: sp.Expr | None = None
    domains: dict[Any, Any] = field(default_factory=dict)
    origin: str = ""
    capacity: sp.Expr | None = None
    flows: sp.Symbol | None = None
    configuration: tuple[Any, ...] | None = None
    aliases: dict[str, Any] = field(default_factory=dict)

    @property
    def queue_unit(self) -> sp.Expr:
        """:attr:`queue_scale`; an :class:`InputError` if the model declares none."""
        if self.queue_scale is not None:
            return self.queue_scale
        raise InputError(
            f"model {self.name!r} declares no queue_scale (the queue's unit, e.g. capacity * RTT), "
            "which the nonlinear lenses need to judge convergence"
        )

    @property
    def rate_unit(self) -> sp.Expr:
        """:attr:`capacity`, or :attr:`queue_unit` per :attr:`time_scale` if the model declares none."""
        return self.capacity if self.capacity is not None else self.queue_unit / self.time_scale

    @cached_property
    def configuration_parameters(self) -> tuple[Any, ...]:
        """:attr:`configuration`, or the parameters of :attr:`time_scale` (in the order of :attr:`parameters`)."""
        if self.configuration is not None:
            return tuple(self.configuration)
        used = sp.sympify(self.time_scale).free_symbols
        return tuple(sym for sym in self.parameters if sym in used)

    @cached_property
    def buffer(self) -> sp.Symbol | None:
        """The parameter that bounds the queue (the upper bound of a bounded clamp, ``buffer`` for
        RCP), or None if the model has no such single parameter."""
        bounds = {c.upper for c in self.clamps if c.bounded}
        return next(iter(bounds)) if len(bounds) == 1 and next(iter(bounds)) in self.parameters else None

    def parameter(self, name: str) -> sp.Symbol | None:
        """The parameter called ``name`` or given by an alias of :attr:`aliases`; None if none is."""
        found = self.aliases.get(name)
        if found is not None:
            return found
        return next((sym for sym in self.parameters if sym.name == name), None)

    def with_values(self, values: dict[Any, Any] | None) -> ModelSpec:
        """This model with other defaults: ``values`` maps parameters (by name or declared alias) to numbers.

        What a lens that maps one set of parameter values (the linear ones) takes a user's
        ``--param NAME=VALUE`` through. The loop gains are the grid, not values here. The model
        itself when ``values`` is empty.

        Raises
        ------
        InputError
            A name the model does not declare, a loop gain, or a value outside its domain.
        """
        if not values:
            return self
        updated = dict(self.parameters)
        for name, value in values.items():
            sym = self.parameter(name)
            if sym is None or sym in self.loop_parameters:
                what = "is a loop gain (the grid) of" if sym is not None else "is not a parameter of the model"
                raise InputError(f"--param {name}: {what} {self.name!r}")
            if isinstance(value, (list, tuple)):
                if len(value) != 1:
                    raise InputError(f"--param {name}: give one value (this lens maps one set of parameter values)")
                value = value[0]
            number = float(value)
            problem = self.domain(sym).violation(number, sym.name)
            if problem:
                raise InputError(problem)
            updated[sym] = number
        return dataclasses.replace(self, parameters=updated)

    def public_name(self, sym: sp.Symbol) -> str:
        """The name results report ``sym`` under: its first alias, else its own name."""
        return cast(str, next((alias for alias, target in self.aliases.items() if target == sym), sym.name))

    def flow_parameter(self) -> str:
        """Name of :attr:`flows`; an :class:`InputError` if the model declares none (no flow schedule then)."""
        if self.flows is None:
            raise InputError(
                f"model {self.name!r} declares no flows parameter (the number of flows), "
                "which a change in the number of flows needs"
            )
        return cast(str, self.flows.name)  # SymPy is untyped: a Symbol's name is a str

    @cached_property
    def parameter_table(self) -> ParameterTable:
        """The parameters and states by name (:class:`~rcpstab.models.table.ParameterTable`)."""
        from .table import ParameterTable

        if getattr(self, "bundled_sources", None):  # written to the cache, where the unbuilt model reads it
            from ..runtime.derivation_cache import cached

            return cached("parameters", self, (), lambda: ParameterTable.of(self))
        return ParameterTable.of(self)

    def domain(self, sym: sp.Symbol) -> Domain:
        """The declared :class:`Domain` of parameter ``sym`` (finite values only if none is declared)."""
        return self.domains.get(sym) or Domain(sym.name)

    @property
    def reference(self) -> str:
        """What :func:`rcpstab.models.get_model` takes to give this model back (in another process too)."""
        return self.origin or self.name

    def __post_init__(self) -> None:
        # the overflow accumulators of bounded clamps are states of their own (recorded, checkpointed)
        extra = [c.overflow for c in self.clamps if c.bounded and c.overflow not in self.states]
        if extra:
            object.__setattr__(self, "states", tuple(self.states) + tuple(extra))
        missing = len(self.states) - len(self.rhs)  # right-hand sides may stop before the accumulators
        if 0 < missing <= len(self.overflow_states) and set(self.states[-missing:]) <= set(self.overflow_states):
            object.__setattr__(self, "rhs", tuple(self.rhs) + (sp.Integer(0),) * missing)
        if extra:
            object.__setattr__(self, "equilibrium", {**self.equilibrium, **{x: sp.Integer(0) for x in extra}})
            object.__setattr__(self, "initial_state", {**self.initial_state, **{x: sp.Integer(0) for x in extra}})
        for c in self.clamps:
            if c.bounded != (c.upper != sp.oo):
                raise ValueError(f"model {self.name!r}: clamp of {c.state} needs both an upper bound and an overflow state")
            if c.bounded and not sp.sympify(c.upper).free_symbols <= set(self.parameters):
                raise ValueError(f"model {self.name!r}: upper bound {c.upper} is not a parameter expression")
        if len(self.states) != len(self.rhs):
            raise ValueError(f"model {self.name!r}: {len(self.states)} states but {len(self.rhs)} right-hand sides")
        declared = [*(self.configuration or ()), *self.aliases.values(), *([self.flows] if self.flows is not None else [])]
        for sym in declared:
            if sym not in self.parameters:
                raise ValueError(f"model {self.name!r}: {sym} is declared (configuration, aliases, flows) but is not a parameter")
        for term in self.delayed_terms:
            if term.delay.free_symbols & {t}:
                raise ValueError(f"model {self.name!r}: delay {term.delay} depends on time")

    def symbol(self, name: str) -> sp.Symbol:
        """The parameter symbol called ``name``."""
        for sym in self.parameters:
            if sym.name == name:
                return sym
        raise KeyError(f"model {self.name!r} has no parameter {name!r}")

    @cached_property
    def overflow_states(self) -> tuple[Any, ...]:
        """The overflow accumulators of the bounded clamps (dropped volume, bits)."""
        return tuple(c.overflow for c in self.clamps if c.bounded)

    @cached_property
    def loop_states(self) -> tuple[Any, ...]:
        """The states of the feedback loop: every state but the overflow accumulators."""
        return tuple(x for x in self.states if x not in self.overflow_states)

    @cached_property
    def delayed_terms(self) -> tuple[DelayedTerm, ...]:
        """Every ``state(t - tau)`` with ``tau != 0`` in the right-hand sides, in a fixed order."""
        found = {}
        for expr in self.rhs:
            for app in expr.atoms(sp.core.function.AppliedUndef):
                if app.func not in self.states:
                    raise ValueError(f"model {self.name!r}: {app} is not a state")
                delay = sp.simplify(t - app.args[0])
                if delay != 0:
                    found[(self.states.index(app.func), sp.srepr(delay))] = (app.func, delay)
        terms = []
        for key in sorted(found):
            state, delay = found[key]
            label = str(delay).replace(" ", "").replace("*", "").replace("/", "_")
            label = re.sub(r"\W", "_", label)  # a sum of delays (T + d_0) must still name a C variable
            terms.append(DelayedTerm(state, delay, sp.Symbol(f"{state.__name__}__{label}")))
        return tuple(terms)

    @cached_property
    def delays(self) -> tuple[sp.Expr, ...]:
        """The distinct delays of the model, in order of first appearance in :attr:`delayed_terms`."""
        return tuple(dict.fromkeys(term.delay for term in self.delayed_terms))

    @cached_property
    def current_symbols(self) -> tuple[sp.Symbol, ...]:
        """Plain symbols standing for ``state(t)``."""
        return tuple(sp.Symbol(f"{s.__name__}__now") for s in self.states)

    def plain_rhs(self) -> tuple[sp.Expr, ...]:
        """The right-hand sides with every ``state(t)`` and ``state(t - tau)`` replaced by a symbol."""
        subs = {s(t): sym for s, sym in zip(self.states, self.current_symbols)}
        subs.update({term.applied: term.symbol for term in self.delayed_terms})
        return tuple(expr.xreplace(subs) for expr in self.rhs)

    def lambdify_rhs(self) -> Callable[..., tuple[Any, ...]]:
        """Compile the right-hand sides into a NumPy function.

        Returns
        -------
        callable
            ``f(*current, *delayed, *parameters)`` returning a tuple of derivatives, one per
            state. ``current`` follows :attr:`states`, ``delayed`` follows
            :attr:`delayed_terms` and ``parameters`` follows :attr:`parameters`.
            Every argument may be a NumPy array; they broadcast (batches of trajectories).
        """
        args = (*self.current_symbols, *(term.symbol for term in self.delayed_terms), *self.parameters)
        return cast("Callable[..., tuple[Any, ...]]", sp.lambdify(args, self.plain_rhs(), modules="numpy", cse=True))

    def lambdify_expr(self, expr: sp.Expr) -> Callable[..., Any]:
        """Compile an expression of the states at ``t`` and the parameters: ``f(*current, *parameters)``."""
        subs = {s(t): sym for s, sym in zip(self.states, self.current_symbols)}
        return cast(
            "Callable[..., Any]", sp.lambdify((*self.current_symbols, *self.parameters), expr.xreplace(subs), modules="numpy")
        )

    def latex(self) -> str:
        """The model's equations as a LaTeX ``aligned`` block."""
        lines = [
            rf"\frac{{d}}{{dt}} {sp.latex(s(t))} &= {sp.latex(f)}"
            for s, f in zip(self.states, self.rhs)
            if s not in self.overflow_states
        ]
        lines += [
            rf"{sp.latex(c.state(t))} &\ge {sp.latex(c.lower)}"
            if not c.bounded
            else rf"{sp.latex(c.lower)} \le {sp.latex(c.state(t))} &\le {sp.latex(c.upper)}"
            rf"\ \text{{(overflow into }} {sp.latex(c.overflow(t))}\text{{)}}"  # type: ignore[misc]  # a bounded clamp has its overflow state (Clamp.__post_init__)
            for c in self.clamps
        ]
        return r"\begin{aligned}" + r" \\ ".join(lines) + r"\end{aligned}"
