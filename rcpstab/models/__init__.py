"""Protocol fluid models, each written once as a :class:`~rcpstab.models.spec.ModelSpec`.

Use :func:`get_model` to look one up by the name the command line uses.
"""
from ..errors import InputError
from . import linear, rcp, rcpac, switched, xcp
from .spec import Clamp, DelayedTerm, ModelSpec, Saturation, t

MODELS = {m.name: m for m in (rcp.MODEL, switched.MODEL, linear.MODEL, xcp.MODEL, rcpac.MODEL)}
"""Every model by name."""


def get_model(name: str) -> ModelSpec:
    """The model called ``name``; :class:`~rcpstab.errors.InputError` if there is none."""
    try:
        return MODELS[name]
    except KeyError:
        raise InputError(f"unknown model {name!r} (choose from {', '.join(MODELS)})") from None


def as_model(model) -> ModelSpec:
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
    rcpstab.errors.InputError: model 42: expected a model name (rcp, ...) or a ModelSpec
    """
    if isinstance(model, ModelSpec):
        return model
    if isinstance(model, str):
        return get_model(model)
    raise InputError(f"model {model!r}: expected a model name ({', '.join(MODELS)}) or a ModelSpec")


__all__ = ["MODELS", "Clamp", "DelayedTerm", "ModelSpec", "Saturation", "as_model", "get_model", "t"]
