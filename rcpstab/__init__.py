"""rcpstab: stability analysis of explicit congestion control (RCP, XCP, RCP-AC).

Several independent lenses map the stable region of the router gains (alpha, beta):
the exact region of the delayed linear loop, the Bode and Nyquist criteria, margins,
phase-plane integration of the nonlinear model, and a packet-level reference
implementation. See :mod:`rcpstab.models` for the models they share.

The main entry points are at the top level, one per command (:mod:`rcpstab.api`: :func:`region`,
:func:`margins`, :func:`bode`, :func:`nyquist`, :func:`linearize`, :func:`theorem1`, :func:`portrait`,
:func:`convergence`, :func:`bifurcation`, :func:`cosim`, :func:`network`, :func:`check`, :func:`fct`, and
:func:`simulate`), and the entry points beneath them that the tutorials use (:func:`boundary`,
:func:`crossovers`, :func:`hopf`, :func:`orbit`, :func:`dataset`, :func:`fct_study`, :func:`packet_run`,
:func:`router`); they accept a model name or a :class:`~rcpstab.models.ModelSpec`. They are loaded on first use (PEP 562), so that
``import rcpstab`` and the command line start without SymPy, SciPy or matplotlib; no
import cycle hides behind this (the submodules import each other at module level).
"""

from __future__ import annotations

import importlib
import sys
import types
from typing import Any

from .errors import InputError

__version__ = "0.1.0"

# Public name -> module that defines it, imported when the name is first used.
_LAZY = {
    "MODELS": "rcpstab.models",
    "ModelSpec": "rcpstab.models",
    "get_model": "rcpstab.models",
    # one function per command (rcpstab.api), and simulate (one fluid run)
    **{
        name: "rcpstab.api"
        for name in (
            "region",
            "margins",
            "bode",
            "nyquist",
            "linearize",
            "theorem1",
            "simulate",
            "portrait",
            "convergence",
            "bifurcation",
            "cosim",
            "network",
            "check",
            "fct",
            "boundary",
            "crossovers",
            "hopf",
            "orbit",
            "dataset",
            "fct_study",
            "packet_run",
            "router",
        )
    },
}

__all__ = ["InputError", "__version__", *_LAZY]


class _TopLevel(types.ModuleType):
    """The package's module type: an API function named like a subpackage (``cosim``, ``network``,
    ``check``, ``fct``, ``bifurcation``, ``theorem1``) stays the function when that subpackage is
    imported. The import system binds ``rcpstab.cosim`` to the package on ``import rcpstab.cosim.x``;
    here that binding is skipped, so ``rcpstab.cosim(...)`` always runs the co-simulation while
    ``from rcpstab.cosim.x import y`` and ``importlib.import_module("rcpstab.cosim")`` reach the code."""

    def __setattr__(self, name: str, value: object) -> None:
        if name in _LAZY and isinstance(value, types.ModuleType) and value.__name__ == f"{__name__}.{name}":
            return
        super().__setattr__(name, value)


def __getattr__(name: str) -> Any:
    if name not in _LAZY:
        raise AttributeError(f"module 'rcpstab' has no attribute {name!r}")
    value = getattr(importlib.import_module(_LAZY[name]), name)
    globals()[name] = value  # later look-ups skip this function
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_LAZY})


sys.modules[__name__].__class__ = _TopLevel
