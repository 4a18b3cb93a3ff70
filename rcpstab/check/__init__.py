"""``rcpstab check``: verify a router's RCP constants over the networks it will see.

- :func:`load_config` / :func:`parse_config` read and validate the TOML file (:mod:`.config`).
- :func:`run_checks` runs the linear, nonlinear and configuration checks into a :class:`CheckReport`.
- :func:`suggest` finds a nearby (alpha, beta) that passes, verified by the same checks.

The names are loaded from their modules on first use: the checks pull in the lenses (SciPy,
the compiled integrators, matplotlib through the FCT study, about a second and a half), which
``rcpstab check --example`` and ``--schema`` do not need.
"""

import importlib
from typing import Any

from .finding import CRITERIA, Finding

__all__ = [
    "CRITERIA",
    "CheckConfig",
    "CheckReport",
    "Envelope",
    "Finding",
    "Router",
    "Thresholds",
    "load_config",
    "parse_config",
    "run_checks",
    "suggest",
]

_HOME = {
    "CheckReport": "checks",
    "run_checks": "checks",
    "suggest": "suggestion",
    **{name: "config" for name in ("CheckConfig", "Envelope", "Router", "Thresholds", "load_config", "parse_config")},
}


def __getattr__(name: str) -> Any:
    if name in _HOME:
        value = globals()[name] = getattr(importlib.import_module(f".{_HOME[name]}", __name__), name)
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
