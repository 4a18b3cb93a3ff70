"""The result of a continuation sweep: one row per gain value, branch and direction."""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..models.spec import ModelSpec

if TYPE_CHECKING:
    from matplotlib.axes import Axes

Row = dict[str, Any]
"""One run of the sweep: JSON values (floats, strings, booleans) by column name."""

__all__ = ["BifurcationDiagram"]

# Why a number is missing, for strict JSON (null plus a reason).
_REASONS = {
    "period_rtt": "no sustained oscillation (fewer than 3 crossings in the measured window)",
    "growth_rtt": "envelope not measurable (constant or too few windows)",
    "amplitude": "diverged",
    "amplitude_relative": "diverged",
    "amplitude_queue_bdp": "diverged",
}


@dataclass
class BifurcationDiagram:
    """Attractors of a model along one gain, continued up and down.

    Attributes
    ----------
    model : ModelSpec
        The model continued (the object: plotting never looks a name up again).
    parameter, fixed_parameter : str
        The swept gain and the gain held at each of the branches' values.
    rows : list of dict
        One per (gain value, fixed value, direction), in integration order: ``alpha``, ``beta``,
        ``direction`` (up/down), ``state`` (equilibrium, decaying, cycle, growing, diverged),
        ``amplitude`` (half peak-to-peak R/C), ``amplitude_relative`` (over the equilibrium
        R/C), ``amplitude_queue_bdp`` (half peak-to-peak q/(C d0)), ``period_rtt``,
        ``growth_rtt`` (envelope rate per RTT), ``rightmost_real_rtt`` (the linear loop's
        rightmost root, per RTT), ``hysteresis``. NaN where a number does not exist.
    boundaries : dict
        Fixed value to the exact linear boundary's swept-gain values inside the range.
    gamma_eq : float
        Equilibrium R/C.
    settings : dict
        Run length per point, network, step, kick, start.
    """

    model: ModelSpec
    parameter: str
    fixed_parameter: str
    rows: list[Row]
    boundaries: dict[float, list[float]]
    gamma_eq: float
    settings: dict[str, Any] = field(default_factory=dict)

    @property
    def points(self) -> list[Row]:
        """The rows (the JSON ``points``)."""
        return self.rows

    @property
    def hysteresis(self) -> bool:
        """Whether any gain point has two coexisting attractors."""
        return any(r["hysteresis"] for r in self.rows)

    def branch(self, fixed: float, direction: str) -> list[Row]:
        """Rows of one branch, ordered by the swept gain."""
        rows = [r for r in self.rows if r[self.fixed_parameter] == fixed and r["direction"] == direction]
        return sorted(rows, key=lambda r: r[self.parameter])

    def to_dict(self) -> dict[str, Any]:
        points = []
        for row in self.rows:
            point: Row = {}
            reasons: dict[str, str] = {}
            for key, value in row.items():
                if isinstance(value, float) and not math.isfinite(value):
                    point[key] = None
                    reasons[key] = _REASONS.get(key, "not finite")
                else:
                    point[key] = value
            if reasons:
                point["null_reasons"] = reasons
            points.append(point)
        return {
            "model": self.model.name,
            "parameter": self.parameter,
            "fixed_parameter": self.fixed_parameter,
            "gamma_eq": self.gamma_eq,
            "hysteresis": self.hysteresis,
            "boundaries": [{self.fixed_parameter: k, self.parameter: v} for k, v in self.boundaries.items()],
            "settings": self.settings,
            "points": points,
        }

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), allow_nan=False)

    def summary(self) -> str:
        """One line: cycles found, the largest, hysteresis."""
        cycles = [r for r in self.rows if r["state"] == "cycle"]
        biggest = max((r["amplitude_relative"] for r in cycles), default=0.0)
        bound = "; ".join(
            f"{self.fixed_parameter}={k:g}: " + (", ".join(f"{v:.4g}" for v in b) or "none") for k, b in self.boundaries.items()
        )
        return (
            f"{self.model.name}: {len(cycles)} of {len(self.rows)} runs on a limit cycle "
            f"(largest +/-{100 * biggest:.3g}% of R/C), hysteresis {'found' if self.hysteresis else 'none'}; "
            f"linear boundary in {self.parameter} at {bound}"
        )

    def plot(self, ax: Axes | None = None, **kwargs: Any) -> Axes:
        """Draw the diagram (:func:`~rcpstab.bifurcation.plotting.bifurcation_plot`)."""
        from .plotting import bifurcation_plot

        return bifurcation_plot(self, ax=ax, **kwargs)

    def __repr__(self) -> str:
        n = len({r[self.parameter] for r in self.rows})
        return (
            f"BifurcationDiagram({self.model.name}, {self.parameter} x {n} values, "
            f"{self.fixed_parameter} in {sorted(self.boundaries)}, hysteresis={self.hysteresis})"
        )
