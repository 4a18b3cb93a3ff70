"""The measured branches, onsets and criticality map of ``experiments/cycles_clamped.py`` (notebook 08 draws them).

The computation takes ~10 minutes on two shared cores, so the notebook reads its stored output
(``data/cycles_clamped.json``, package data) instead of repeating it; rerun the script to refresh.
"""

from __future__ import annotations

import json
from importlib import resources
from typing import Any

__all__ = ["stored_cycles"]


def stored_cycles() -> dict[str, Any]:
    """The stored results: ``criticality`` (l1 per Hopf point), ``smooth_beta_0.1``, ``clamped``
    (branches per beta, simulation checks), ``probes`` (small and large starts), ``switched`` (onsets)."""
    cycles: dict[str, Any] = json.loads((resources.files(__package__) / "data" / "cycles_clamped.json").read_text())
    return cycles
