"""One check's outcome, as every check of ``rcpstab check`` reports it."""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from typing import Any

CRITERIA = ("linear", "nonlinear", "all")
"""Which findings may decide the verdict (``--criterion``); ``config`` findings always do."""


@dataclass(frozen=True)
class Finding:
    """One check's outcome.

    Attributes
    ----------
    name : str
        Identifier of the check.
    kind : str
        ``linear``, ``nonlinear`` (gated by ``--criterion``), ``config`` (always gated) or
        ``info`` (reported, never gated: a fact about the network the gains cannot change).
    passed : bool
    figure : float or None
        The measured value, in ``unit``.
    threshold : float or None
        The pass mark, in ``unit``.
    unit : str
    explanation : str
        What was measured, what it means, and why it passed or failed.
    details : dict or None
        Named figures behind the explanation (e.g. the flash crowd's ``peak_queue_bdp``,
        ``dropped_bdp``, ``recovery_rtt``), for scripts; non-finite values become null in JSON.
    """

    name: str
    kind: str
    passed: bool
    figure: float | None
    threshold: float | None
    unit: str
    explanation: str
    details: dict[str, Any] | None = None

    def gates(self, criterion: str) -> bool:
        """Whether this finding decides the verdict under ``criterion``."""
        return self.kind == "config" or (self.kind != "info" and criterion in ("all", self.kind))

    def to_dict(self) -> dict[str, Any]:
        out = asdict(self)
        for key in ("figure", "threshold"):  # JSON has no NaN or infinity
            if out[key] is not None and not math.isfinite(out[key]):
                out[key] = None
        if out["details"] is not None:
            out["details"] = {
                k: (None if isinstance(v, float) and not math.isfinite(v) else v) for k, v in out["details"].items()
            }
        return out
