"""The result every region engine returns: a stability verdict over an (alpha, beta) grid."""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from ..models import as_model
from ..runtime.atomic import atomic_path
from ..runtime.csvtable import write_csv_table

if TYPE_CHECKING:
    from matplotlib.axes import Axes

    from ..models.spec import ModelSpec


@dataclass
class RegionMap:
    """Stability of a model over an (alpha, beta) grid, as one method sees it.

    Attributes
    ----------
    model : ModelSpec
        The model mapped: the object itself, so plotting and saving never look a name up again
        (a name given here is looked up once, now).
    method : str
        Which lens (``exact``, ``bode``, ``nyquist``, ``phaseplane``, ``packet``...).
    alpha, beta : ndarray, shape (na,), (nb,)
        The grid axes (dimensionless gains).
    stable : ndarray of bool, shape (nb, na)
        ``stable[j, i]`` is the verdict at ``(alpha[i], beta[j])``. Where a method sweeps
        several network configurations, this is the region common to all of them.
    table : dict of str to ndarray
        The per-point rows written by :meth:`to_csv`: equal-length 1-D columns, at least
        ``alpha``, ``beta`` and ``stable`` (0/1). Methods add their own (``verdict``,
        ``convergence_rtt``, ``C``, ``d0``, ``N``...).
    meta : dict
        Settings the map was computed with (Pade order, network set-up...), JSON-serializable.
    layers : dict of str to ndarray
        Further per-point quantities shaped like ``stable`` (margins...), NaN where undefined;
        :meth:`to_dict` writes them with null for NaN.
    """

    model: ModelSpec
    method: str
    alpha: np.ndarray
    beta: np.ndarray
    stable: np.ndarray
    table: dict[str, Any] = field(default_factory=dict)
    meta: dict[str, Any] = field(default_factory=dict)
    layers: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.model = as_model(self.model)
        self.alpha = np.asarray(self.alpha, dtype=float)
        self.beta = np.asarray(self.beta, dtype=float)
        self.stable = np.asarray(self.stable, dtype=bool)
        if self.stable.shape != (self.beta.size, self.alpha.size):
            raise ValueError(f"stable has shape {self.stable.shape}, expected {(self.beta.size, self.alpha.size)}")
        if not self.table:
            aa, bb = np.meshgrid(self.alpha, self.beta)
            self.table = {"alpha": aa.ravel(), "beta": bb.ravel(), "stable": self.stable.ravel().astype(int)}

    @property
    def stable_fraction(self) -> float:
        """Fraction of grid points judged stable."""
        return float(self.stable.mean()) if self.stable.size else 0.0

    def agreement(self, other: RegionMap, mask: np.ndarray | None = None) -> float:
        """Fraction of grid points (where ``mask`` is true) on which two maps give the same verdict."""
        if self.stable.shape != other.stable.shape:
            raise ValueError("maps are on different grids")
        same = self.stable == other.stable
        if mask is not None:
            same = same[mask]
        return float(same.mean()) if same.size else 1.0

    def to_csv(self, path: str | os.PathLike[str]) -> None:
        """Write a header row and one row per grid point (and configuration)."""
        with atomic_path(path) as temporary:  # a full disk leaves the old file, not a torn one
            write_csv_table(temporary, self.table)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-serializable summary: axes, the stable mask and the settings."""
        return {
            "model": self.model.name,
            "method": self.method,
            "alpha": self.alpha.tolist(),
            "beta": self.beta.tolist(),
            "stable": self.stable.astype(int).tolist(),
            "stable_fraction": self.stable_fraction,
            "meta": _strict(self.meta),
            **{name: _strict(np.asarray(v, float).tolist()) for name, v in self.layers.items()},
        }

    def to_json(self) -> str:
        """Strict JSON (``allow_nan=False``): NaN and infinities are written as null."""
        return json.dumps(self.to_dict(), allow_nan=False)

    def __repr__(self) -> str:
        # Short: the grids and the count, never the arrays (python-control's response objects do the same).
        return (
            f"RegionMap(model={self.model.name!r}, method={self.method!r}, {_axis_text('alpha', self.alpha)}, "
            f"{_axis_text('beta', self.beta)}, stable: {int(self.stable.sum())} of {self.stable.size} "
            f"({100 * self.stable_fraction:.1f}%))"
        )

    def plot(self, ax: Axes | None = None, **kwargs: Any) -> Axes:
        """Draw the map with :func:`rcpstab.linear.region_plot.region_plot` (matplotlib is loaded only now)."""
        from .region_plot import region_plot

        return region_plot(self, ax=ax, **kwargs)


def _axis_text(name: str, values: np.ndarray) -> str:
    if values.size == 0:
        return f"{name}: empty"
    return f"{name}: {values.size} points {values[0]:g}..{values[-1]:g}"


def _strict(value: Any) -> Any:
    """``value`` with every non-finite float replaced by None, recursively (strict JSON)."""
    if isinstance(value, dict):
        return {k: _strict(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_strict(v) for v in value]
    if isinstance(value, (float, np.floating)):
        return float(value) if np.isfinite(value) else None
    if isinstance(value, np.integer):
        return int(value)
    return value
