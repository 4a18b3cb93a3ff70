"""Protocol fluid models, each written once as a :class:`~rcpstab.models.spec.ModelSpec`.

Use :func:`get_model` to look one up by the name the command line uses.
"""
from ..errors import InputError
from . import linear, rcp, rcp_router, rcpac, switched, xcp, xcp_router
from .plugins import is_model_path, load_entry_point, load_model_file, plugin_names
from .spec import Clamp, DelayedTerm, ModelSpec, Saturation, t

MODELS = {m.name: m for m in (rcp.MODEL, switched.MODEL, linear.MODEL, rcp_router.MODEL, xcp.MODEL, xcp_router.MODEL,
                                    rcpac.MODEL)}
"""Every model by name."""


def get_model(name) -> ModelSpec:
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
    if isinstance(name, ModelSpec):
        return name
    if not isinstance(name, str):
        raise InputError(f"model {name!r}: give a model name, a protocol file path or a ModelSpec")
    if name in MODELS:
        return MODELS[name]
    if is_model_path(name):
        return load_model_file(name)
    found = load_entry_point(name)
    if found is None:
        installed = plugin_names()
        extra = f"; installed plug-ins: {', '.join(installed)}" if installed else ""
        raise InputError(f"unknown model {name!r} (choose from {', '.join(MODELS)}{extra}, "
                         "or give a protocol file path)")
    return found


__all__ = ["MODELS", "Clamp", "DelayedTerm", "ModelSpec", "Saturation", "get_model", "t"]
