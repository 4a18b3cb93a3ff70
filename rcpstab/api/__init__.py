"""The Python entry points of rcpstab, one per command, in python-control's style.

Each function takes a *system* (a model name such as ``"rcp"``, a protocol file or a
:class:`~rcpstab.models.ModelSpec`) and returns a result object (:class:`~rcpstab.api.result.Result`)
with a short repr, ``.plot()``, ``to_dict()``/``to_json()`` (strict JSON: exactly what the command
prints with ``--json``), ``to_pandas()`` (long format, units in the column names) and ``summary()``
(the command's one-line summary). The command line (:mod:`rcpstab.commands`) only parses arguments,
calls these and formats their output, so both give the same numbers for the same call.

==============  ====================  =====================================================
command         function              module
==============  ====================  =====================================================
map             :func:`region`        :mod:`~rcpstab.api.regions` (methods: :mod:`~rcpstab.api.methods`)
margins         :func:`margins`       :mod:`~rcpstab.api.point`
bode            :func:`bode`          :mod:`~rcpstab.api.point`
nyquist         :func:`nyquist`       :mod:`~rcpstab.api.point`
linearize       :func:`linearize`     :mod:`~rcpstab.api.linear`
theorem1        :func:`theorem1`      :mod:`~rcpstab.api.linear`
portrait        :func:`portrait`      :mod:`~rcpstab.api.trajectories` (and :func:`simulate`: one run)
convergence     :func:`convergence`   :mod:`~rcpstab.api.sweeps`
bifurcation     :func:`bifurcation`   :mod:`~rcpstab.api.sweeps`
cosim           :func:`cosim`         :mod:`~rcpstab.api.runs`
network         :func:`network`       :mod:`~rcpstab.api.runs`
check           :func:`check`         :mod:`~rcpstab.api.checker`
fct             :func:`fct`           :mod:`~rcpstab.api.flows`
==============  ====================  =====================================================

The functions are loaded on first use (PEP 562), and each imports its engine only when called,
so that ``import rcpstab.api`` (and the command line's start) stays light.

Units: gains are dimensionless; frequencies and roots normalized by d0 (w*d0, s*d0);
network parameters in SI units (C in bit/s, d0 and T in s, queues in bits).

Examples
--------
>>> import rcpstab
>>> m = rcpstab.margins("rcp", 0.4, 0.2)
>>> m
MarginsResult(rcp at alpha = 0.4, beta = 0.2 is STABLE (linear loop): rightmost root Re(s*d0) = -0.109, gain margin 2.678, phase margin 16.25 deg, delay margin 0.5217 d0)
>>> m.to_dict()["stable"]
True
"""

from __future__ import annotations

import importlib

__all__ = [
    "METHODS",
    "bifurcation",
    "bode",
    "boundary",
    "check",
    "convergence",
    "cosim",
    "crossovers",
    "dataset",
    "fct",
    "fct_study",
    "hopf",
    "linearize",
    "margins",
    "network",
    "nyquist",
    "orbit",
    "packet_run",
    "portrait",
    "region",
    "router",
    "simulate",
    "theorem1",
]

_LAZY = {
    "METHODS": "methods",
    "region": "regions",
    "margins": "point",
    "bode": "point",
    "nyquist": "point",
    "linearize": "linear",
    "theorem1": "linear",
    "simulate": "trajectories",
    "portrait": "trajectories",
    "convergence": "sweeps",
    "bifurcation": "sweeps",
    "cosim": "runs",
    "network": "runs",
    "check": "checker",
    "fct": "flows",
    "boundary": "curves",
    "crossovers": "curves",
    "packet_run": "packet_runs",
    "router": "packet_runs",
    "fct_study": "fct_studies",
    "hopf": "orbits",
    "orbit": "orbits",
    "dataset": "orbits",
}
"""Public name -> module of this package that defines it."""


def __getattr__(name: str):
    if name not in _LAZY:
        raise AttributeError(f"module 'rcpstab.api' has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{_LAZY[name]}"), name)
    globals()[name] = value
    return value


def __dir__():
    return sorted({*globals(), *_LAZY})
