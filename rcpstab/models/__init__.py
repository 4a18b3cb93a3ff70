"""Protocol fluid models, each written once as a :class:`~rcpstab.models.spec.ModelSpec`.

Use :func:`get_model` to look one up by the name the command line uses.
"""
from ..errors import InputError
from . import linear, rcp, rcp_router, rcpac, switched, xcp, xcp_router
from .spec import Clamp, DelayedTerm, ModelSpec, Saturation, t

MODELS = {m.name: m for m in (rcp.MODEL, switched.MODEL, linear.MODEL, rcp_router.MODEL, xcp.MODEL, xcp_router.MODEL,
                                    rcpac.MODEL)}
"""Every model by name."""


def get_model(name: str) -> ModelSpec:
    """The model called ``name``; :class:`~rcpstab.errors.InputError` if there is none."""
    try:
        return MODELS[name]
    except KeyError:
        raise InputError(f"unknown model {name!r} (choose from {', '.join(MODELS)})") from None


__all__ = ["MODELS", "Clamp", "DelayedTerm", "ModelSpec", "Saturation", "get_model", "t"]
