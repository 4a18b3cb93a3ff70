"""A model's parameters and states by name: what the phase-plane set-up reads of a model, without SymPy.

A :class:`~rcpstab.models.spec.ModelSpec` keys its parameters by SymPy symbols; the numeric lenses
only need their names, defaults, aliases, domains and which are the loop gains. A
:class:`ParameterTable` holds exactly that in plain Python, so a bundled model that is not built yet
(:class:`~rcpstab.models.lazy.BundledModel`) answers it from the derivation cache and a cached
``rcpstab portrait`` never imports SymPy.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..runtime.validation import Domain

__all__ = ["ParameterTable"]


@dataclass(frozen=True)
class ParameterTable:
    """A model's parameters and states by name.

    Attributes
    ----------
    defaults : dict
        Parameter name -> default value (the model's units), in the model's parameter order.
    loop : tuple of str
        The loop gains' names (``alpha``, ``beta`` for RCP).
    aliases : dict
        Other name -> the parameter's own name (``d0`` -> ``d_0``).
    configuration : tuple of str
        The configuration parameters' names (C, d_0, N, T for RCP).
    domains : dict
        Parameter name -> its declared :class:`~rcpstab.runtime.validation.Domain`.
    states : tuple of str
        The states' names, in order.
    flows : str or None
        The name of the number of flows (the parameter a flow schedule sets); None if the model declares none.
    """

    defaults: dict
    loop: tuple
    aliases: dict
    configuration: tuple
    domains: dict
    states: tuple
    flows: str | None = None

    @classmethod
    def of(cls, spec) -> ParameterTable:
        """The table of a :class:`~rcpstab.models.spec.ModelSpec`."""
        return cls(
            defaults={sym.name: value for sym, value in spec.parameters.items()},
            loop=tuple(sym.name for sym in spec.loop_parameters),
            aliases={alias: sym.name for alias, sym in spec.aliases.items()},
            configuration=tuple(sym.name for sym in spec.configuration_parameters),
            domains={sym.name: domain for sym, domain in spec.domains.items()},
            states=tuple(s.__name__ for s in spec.states),
            flows=None if spec.flows is None else spec.flows.name,
        )

    @property
    def names(self) -> tuple:
        """Every parameter's name, in the model's order."""
        return tuple(self.defaults)

    def own(self, name: str) -> str | None:
        """The own name of the parameter called ``name`` or given by an alias; None if none is
        (:meth:`ModelSpec.parameter <rcpstab.models.spec.ModelSpec.parameter>` by name)."""
        found = self.aliases.get(name)
        if found is not None:
            return found
        return name if name in self.defaults else None

    def public_name(self, name: str) -> str:
        """The name results report parameter ``name`` under: its first alias, else its own name."""
        return next((alias for alias, target in self.aliases.items() if target == name), name)

    def domain(self, name: str) -> Domain:
        """The declared domain of parameter ``name`` (finite values only if none is declared)."""
        return self.domains.get(name) or Domain(name)
