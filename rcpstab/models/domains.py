"""Allowed values of model parameters, declared with the model, checked before any work."""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

__all__ = ["Domain"]


@dataclass(frozen=True)
class Domain:
    """The values a parameter may take: finite, between ``low`` and ``high``, with its unit.

    Parameters
    ----------
    low, high : float
        Bounds (``-inf``/``inf``: none).
    closed_low, closed_high : bool
        Whether a bound itself is allowed.
    unit : str
        Unit named in messages (``"s"``, ``"bit/s"``; empty for dimensionless).
    label : str
        What the parameter is, named in messages (``"update interval T"``); default its name.

    Examples
    --------
    >>> Domain(low=0, unit="s", label="update interval T").violation("T", [0.01, 0.0])
    'update interval T = 0.0 s: must be > 0'
    """

    low: float = -math.inf
    high: float = math.inf
    closed_low: bool = False
    closed_high: bool = False
    unit: str = ""
    label: str = ""

    def violation(self, name: str, values) -> str | None:
        """One line naming the first value of ``values`` outside the domain, or None if all are inside."""
        arr = np.atleast_1d(np.asarray(values, dtype=float))
        ok = np.isfinite(arr)
        if self.low > -math.inf:
            ok &= arr >= self.low if self.closed_low else arr > self.low
        if self.high < math.inf:
            ok &= arr <= self.high if self.closed_high else arr < self.high
        if ok.all():
            return None
        bad = float(arr[~ok][0])
        rules = []
        if self.low > -math.inf:
            rules.append(f"{'>=' if self.closed_low else '>'} {self.low:g}")
        if self.high < math.inf:
            rules.append(f"{'<=' if self.closed_high else '<'} {self.high:g}")
        rule = " and ".join(rules) if rules else "finite"
        unit = f" {self.unit}" if self.unit else ""
        return f"{self.label or name} = {bad}{unit}: must be {rule}"
