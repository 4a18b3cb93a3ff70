"""Protocols from outside the package: a user's model file, or an installed package's entry point.

A protocol file is a Python file that defines ``MODEL``, a :class:`~rcpstab.models.spec.ModelSpec`
(``examples/protocols/`` ships one). It may define more for other lenses (a packet protocol,
``PACKET_PROTOCOL``, which the packet lens looks up with :func:`model_file_attribute`). An installed package announces its models under the
entry-point group :data:`ENTRY_POINT_GROUP`, each entry point naming a ``ModelSpec`` object::

    [project.entry-points."rcpstab.protocols"]
    myproto = "mypackage.model:MODEL"

Every command's ``--model`` takes a bundled name, an entry-point name or a file path; a file is
loaded once per process, so the same path always gives the same model object.
"""

from __future__ import annotations

import dataclasses
import importlib.util
from importlib.metadata import entry_points
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import InputError

if TYPE_CHECKING:  # imported where a model is loaded: SymPy is not needed to ask a file for an attribute
    from .spec import ModelSpec

__all__ = ["ENTRY_POINT_GROUP", "is_model_path", "load_entry_point", "load_model_file", "model_file_attribute", "plugin_names"]

ENTRY_POINT_GROUP = "rcpstab.protocols"
_FILES: dict[Path, ModelSpec] = {}
_MODULES: dict[Path, object] = {}  # the loaded files' modules, for what else a file defines


def is_model_path(name: str) -> bool:
    """``name`` names a file rather than a registered model (it ends in ``.py`` or has a folder)."""
    return name.endswith(".py") or "/" in name


def load_model_file(path: str) -> ModelSpec:
    """The ``MODEL`` defined by the Python file at ``path``.

    Raises
    ------
    InputError
        The file is missing, fails to import, or defines no ``MODEL`` ModelSpec.
    """
    file = Path(path).expanduser().resolve()
    if file in _FILES:
        return _FILES[file]
    from .spec import ModelSpec  # a file's model is built with SymPy anyway

    if not file.is_file():
        raise InputError(f"--model {path}: no such protocol file")
    spec = importlib.util.spec_from_file_location(f"rcpstab_protocol_{file.stem}", file)
    if spec is None or spec.loader is None:  # README.md: importlib has no loader for it
        raise InputError(f"--model {path}: not a Python protocol file (expected a .py file defining MODEL)")
    module = importlib.util.module_from_spec(spec)
    try:
        spec.loader.exec_module(module)
    except Exception as exc:  # a user's file may fail in any way; say which file and how, in one line
        raise InputError(f"--model {path}: the protocol file failed to load: {type(exc).__name__}: {exc}") from None
    model = getattr(module, "MODEL", None)
    if not isinstance(model, ModelSpec):
        raise InputError(f"--model {path}: the file defines no MODEL (a rcpstab.models.ModelSpec)")
    # The origin lets worker processes load the same file again (they receive the model by reference).
    _FILES[file] = dataclasses.replace(model, origin=str(file))
    _MODULES[file] = module
    return _FILES[file]


def model_file_attribute(model: ModelSpec, name: str) -> Any:
    """What the protocol file ``model`` was loaded from defines as ``name``; None if nothing (or no file).

    The file is loaded (once per process) if it was not yet, so a worker process that received
    the model by reference finds the same objects.
    """
    if not getattr(model, "origin", ""):
        return None
    file = Path(model.origin)
    if file not in _MODULES:
        load_model_file(str(file))
    return getattr(_MODULES[file], name, None)


def plugin_names() -> list[str]:
    """Names of the models installed packages announce under :data:`ENTRY_POINT_GROUP`."""
    return sorted(ep.name for ep in entry_points(group=ENTRY_POINT_GROUP))


def load_entry_point(name: str) -> ModelSpec | None:
    """The model an installed package announces as ``name``, or None if none does."""
    for ep in entry_points(group=ENTRY_POINT_GROUP, name=name):
        from .spec import ModelSpec  # only once a package announces one (its model is built with SymPy)

        try:
            model = ep.load()
        except Exception as exc:  # a broken plug-in package: one line naming it
            raise InputError(f"--model {name}: the entry point {ep.value} failed to load: {exc}") from None
        if not isinstance(model, ModelSpec):
            raise InputError(f"--model {name}: the entry point {ep.value} is not a rcpstab.models.ModelSpec")
        return model
    return None
