"""A bundled model before its SymPy expressions are built (so a cached derivation needs no SymPy).

Importing SymPy and building a model's expressions cost more than most commands' computation
(``rcpstab margins``, the exact map): what those commands need of a bundled model is its name and
its derivations (open loop, quasi-polynomial, root matrices), which the disk cache
(:mod:`rcpstab.runtime.derivation_cache`) holds as NumPy arrays and generated source. A
:class:`BundledModel` stands in the registry for a bundled model until something asks for more
than its name: it then imports the model's module and *becomes* its
:class:`~rcpstab.models.spec.ModelSpec` (same object, same identity: its class and attributes
are replaced by the spec's), so code holding it sees a ModelSpec from then on.

The cache keys such a model by the source of the files its expressions are built from
(:data:`MODEL_SOURCES`) instead of by its ``repr`` (which needs the expressions).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

__all__ = ["MODEL_SOURCES", "BundledModel", "is_unbuilt", "realized"]

_PACKAGE = Path(__file__).resolve().parent

MODEL_SOURCES = (*sorted(_PACKAGE.glob("*.py")), _PACKAGE.parent / "runtime" / "validation.py", _PACKAGE.parent / "errors.py")
"""Every file a bundled model's expressions (hence its ``repr``) are built from: this package's
modules and the one table of domains they declare (a test checks that importing any bundled
model loads no other rcpstab module)."""


class BundledModel:
    """A bundled model by name; becomes its :class:`~rcpstab.models.spec.ModelSpec` on first real use.

    Parameters
    ----------
    name : str
        The registry name (``rcp``, ...).
    module : str
        The module (absolute name) that defines it as ``MODEL``.
    """

    def __init__(self, name: str, module: str):
        self.__dict__.update(name=name, _module=module)

    name: str  # set by __init__ (in __dict__, so that building the model can replace it)

    # what is answered without building the expressions
    origin = ""

    @property
    def reference(self) -> str:
        return self.name

    @property
    def bundled_sources(self) -> tuple[Path, ...]:
        """The files the model is built from (:data:`MODEL_SOURCES`): the derivation cache's key."""
        return MODEL_SOURCES

    @property
    def parameter_table(self) -> Any:
        """The parameters and states by name, from the derivation cache (built from the model once)."""
        table = self.__dict__.get("_parameter_table")
        if table is None:  # read once per model (the key hashes the model's source files)
            from ..runtime.derivation_cache import cached
            from .table import ParameterTable

            table = cached("parameters", self, (), lambda: ParameterTable.of(self._build()))
            if isinstance(self, BundledModel):  # still unbuilt (a derivation builds it into its spec)
                self.__dict__["_parameter_table"] = table
        return table

    def flow_parameter(self) -> str:
        """The name of the number of flows, from :attr:`parameter_table` (the built model says why if there is none)."""
        name: str | None = self.parameter_table.flows
        return name if name is not None else self._build().flow_parameter()

    def with_values(self, values: dict[Any, Any] | None) -> Any:
        if not values:
            return self
        return self._build().with_values(values)

    def _build(self) -> Any:
        """Import the model's module and turn this object into its ModelSpec (returned)."""
        if isinstance(self, BundledModel):
            module: Any = importlib.import_module(self._module)  # a model module (defines MODEL)
            model = module.MODEL
            if model.name != self.name:
                raise ValueError(f"module {self._module} defines model {model.name!r}, registered as {self.name!r}")
            if model is not self:
                state = dict(model.__dict__)
                self.__dict__.clear()
                state["bundled_sources"] = MODEL_SOURCES  # still keyed by its sources (not a changed copy)
                self.__dict__.update(state)
                object.__setattr__(self, "__class__", type(model))
                module.MODEL = self  # the module's MODEL and the registry's are one object, as before
        return self

    def __getattr__(self, attr: str) -> Any:
        # only called for what this class does not answer: everything the expressions give
        if attr.startswith("__") or attr == "_module":
            raise AttributeError(attr)
        return getattr(self._build(), attr)

    def __repr__(self) -> str:
        return repr(self._build())

    def __reduce__(self) -> tuple[Callable[[str], Any], tuple[str]]:
        from . import get_model

        return get_model, (self.name,)


def is_unbuilt(model: object) -> bool:
    """Whether ``model`` is a :class:`BundledModel` whose expressions are not built yet."""
    return isinstance(model, BundledModel)


def realized(model: Any) -> Any:
    """``model`` as a :class:`~rcpstab.models.spec.ModelSpec` (a :class:`BundledModel` is built)."""
    return model._build() if isinstance(model, BundledModel) else model
