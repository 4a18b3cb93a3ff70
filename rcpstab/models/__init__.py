"""Protocol fluid models, each written once as a :class:`~rcpstab.models.spec.ModelSpec`.

Use :func:`get_model` to look one up by the name the command line uses.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, Any, cast

from ..errors import InputError
from .lazy import BundledModel

if TYPE_CHECKING:
    from .spec import ModelSpec

MODULES = {
    "rcp": "rcp",
    "switched": "switched",
    "linear": "linear",
    "rcp-router": "rcp_router",
    "xcp": "xcp",
    "xcp-router": "xcp_router",
    "rcpac": "rcpac",
    "rcpac-router": "rcpac_router",
}
"""Model name -> the module of this package that defines it as ``MODEL`` (one line per model)."""


class _Registry(Mapping[str, "ModelSpec"]):
    """Every model by name, each module imported on first real use.

    Building a model's SymPy expressions takes a good part of a second for some (rcpac's
    nested Max, the switched family's aggregate), and a command needs one model: loading
    them all would double ``rcpstab margins``' start-up. A model is a
    :class:`~rcpstab.models.lazy.BundledModel` until more than its name and its cached
    derivations is asked of it: a command whose derivation is cached imports no SymPy.
    """

    def __init__(self, modules: dict[str, str]) -> None:
        self._modules = modules
        self._loaded: dict[str, ModelSpec] = {}

    def __getitem__(self, name: str) -> ModelSpec:
        if name not in self._loaded:
            # a BundledModel stands in for its ModelSpec (answers every attribute, built on first use)
            self._loaded[name] = cast("ModelSpec", BundledModel(name, f"{__name__}.{self._modules[name]}"))
        return self._loaded[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._modules)

    def __len__(self) -> int:
        return len(self._modules)

    def __repr__(self) -> str:
        return f"<models: {', '.join(self._modules)}>"


MODELS = _Registry(MODULES)
"""Every model by name (a read-only mapping; a model's module is imported when it is first looked up)."""


def get_model(name: Any) -> ModelSpec:
    """The model called ``name``: a bundled one, an installed package's, or a protocol file's.

    Parameters
    ----------
    name : str or ModelSpec
        A name of :data:`MODELS`, an entry-point name (group ``rcpstab.protocols``), or a path to
        a Python file defining ``MODEL`` (see :mod:`rcpstab.models.plugins`). A ModelSpec is
        returned as it is.

    Raises
    ------
    InputError
        If there is no such model.

    Examples
    --------
    >>> get_model("rcp").loop_parameters
    (alpha, beta)
    """
    spec = sys.modules.get(f"{__name__}.spec")
    if isinstance(name, BundledModel) or (spec is not None and isinstance(name, spec.ModelSpec)):
        return cast("ModelSpec", name)  # a BundledModel stands in for its ModelSpec (same attributes, built on first use)
    if not isinstance(name, str):
        raise InputError(f"model {name!r}: expected a model name ({', '.join(MODELS)}), a protocol file or a ModelSpec")
    if name in MODELS:
        return MODELS[name]
    from .plugins import is_model_path, load_entry_point, load_model_file, plugin_names

    if is_model_path(name):
        return load_model_file(name)
    found = load_entry_point(name)
    if found is None:
        import difflib

        installed = plugin_names()
        extra = f"; installed plug-ins: {', '.join(installed)}" if installed else ""
        close = difflib.get_close_matches(name, list(MODELS) + list(installed), n=1, cutoff=0.5)
        hint = f"did you mean {close[0]!r}? " if close else ""
        raise InputError(f"unknown model {name!r} ({hint}choose from {', '.join(MODELS)}{extra}, or give a protocol file path)")
    return found


def as_model(model: Any) -> ModelSpec:
    """``model`` if it is a :class:`ModelSpec`, else the registered model of that name.

    Every public engine starts with this, so a name where a spec is expected works and
    anything else is an :class:`~rcpstab.errors.InputError` naming the value, not an AttributeError.

    Examples
    --------
    >>> as_model("rcp") is MODELS["rcp"]
    True
    >>> as_model(42)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    rcpstab.errors.InputError: model 42: expected a model name (rcp, ...), a protocol file or a ModelSpec
    """
    return get_model(model)


_SPEC_NAMES = ("Clamp", "DelayedTerm", "ModelSpec", "Saturation", "t")
_PLUGIN_NAMES = ("is_model_path", "load_entry_point", "load_model_file", "plugin_names")


def __getattr__(name: str) -> Any:
    # the spec's names load SymPy: imported when first asked for, not with the registry
    if name in _SPEC_NAMES:
        from . import spec

        return getattr(spec, name)
    if name in _PLUGIN_NAMES:
        from . import plugins

        return getattr(plugins, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["MODELS", "Clamp", "DelayedTerm", "ModelSpec", "Saturation", "as_model", "get_model", "t"]
