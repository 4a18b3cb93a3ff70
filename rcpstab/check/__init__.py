"""``rcpstab check``: verify a router's RCP constants over the networks it will see.

- :func:`load_config` / :func:`parse_config` read and validate the TOML file (:mod:`.config`).
- :func:`run_checks` runs the linear, nonlinear and configuration checks into a :class:`CheckReport`.
- :func:`suggest` finds a nearby (alpha, beta) that passes, verified by the same checks.
"""
from .checks import CRITERIA, CheckReport, Finding, run_checks
from .config import CheckConfig, Envelope, Router, Thresholds, load_config, parse_config
from .suggest import suggest

__all__ = ["CRITERIA", "CheckConfig", "CheckReport", "Envelope", "Finding", "Router", "Thresholds",
           "load_config", "parse_config", "run_checks", "suggest"]
