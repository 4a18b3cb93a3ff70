"""Margins at many points at once: one :class:`~rcpstab.linear.margins.Margins` per point.

The expensive parts run for all points together: the rightmost roots (batched collocation and
Newton, :func:`~rcpstab.linear.roots.rightmost_roots_many`), the -180 deg crossings and the gain
crossovers (one frequency sweep of all loops, :func:`.phasecross.sweep`). The single-point function's reading rules
then run on all points together (:mod:`.gainrules`, the same floating-point operations as
:func:`~rcpstab.linear.margins._gain_margin` and :func:`~rcpstab.linear.margins._assemble`), so
a point's numbers are those of :func:`~rcpstab.linear.margins.margins` to rounding.

The collocation uses :data:`BATCH_NODES` nodes rather than 24: Newton's method then lands on
the same root, and every point whose root disagrees with the exact Bode count of unstable roots,
or oscillates faster than those nodes resolve (:data:`BATCH_RESOLVED`), is recomputed with the
full 24 nodes.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import ArrayLike

from ..models.spec import ModelSpec
from .gainrules import read_margins
from .grid import check_gains
from .margins import GAIN_LIMITS, Margins
from .openloop import OpenLoop, open_loop
from .phasecross import sweep
from .roots import COLLOCATION_NODES, _normalized_matrices, rightmost_roots_many

if TYPE_CHECKING:
    import pandas
    import xarray
    from matplotlib.axes import Axes

    from .lti import LoopMargins

__all__ = ["BATCH_NODES", "MarginsBatch", "margins_many"]

BATCH_NODES = 4
"""Collocation nodes of the batched roots (calibrated on 2,000 random points of the thesis plane and
3,000 log-uniform points, gains 1e-3..30, of each of rcp, xcp and rcpac: after Newton every root
equal to the 24-node one to 1e-15; checked per point against Z). An n-state loop's eigenproblem is
n*(nodes+1) wide, and its cost grows as the cube of that."""

BATCH_RESOLVED = 2.5
"""Largest ``|Im|`` * tau (tau: the longest normalized delay) of a root the batched collocation is
trusted with; a root beyond is recomputed with 24 nodes. Over the calibration points the largest
was 2.34 (every root right); few nodes resolve slow oscillations only."""

FIELDS = (
    "stable",
    "gain_margin",
    "gain_margin_lower",
    "phase_margin_deg",
    "crossover_w",
    "phase_crossover_w",
    "delay_margin",
    "unstable_roots",
)


class MarginsBatch:
    """Margins at N points: arrays of every field, the per-point results, ``to_dict`` and ``plot``.

    Attributes
    ----------
    points : dict of str to ndarray
        The parameters of each point (``alpha``, ``beta``; or a model's parameters), shape (N,).
    results : list
        One :class:`~rcpstab.linear.margins.Margins` (or :class:`~rcpstab.linear.lti.LoopMargins`) per point.
    model : object
        The model the margins are of.
    """

    def __init__(self, model: object, points: Mapping[str, ArrayLike], results: Iterable[Margins | LoopMargins]):
        self.model = model
        self.points: dict[str, np.ndarray] = {k: np.asarray(v) for k, v in points.items()}
        self.results: list[Margins | LoopMargins] = list(results)

    def __len__(self) -> int:
        return len(self.results)

    def __getitem__(self, i: int) -> Margins | LoopMargins:
        return self.results[i]

    def __iter__(self) -> Iterator[Margins | LoopMargins]:
        return iter(self.results)

    def __getattr__(self, name: str) -> Any:  # an array per field, or the list of notes: any field name
        # a field of every point as an array (None -> NaN); rightmost_root as complex
        if name.startswith("_") or name in ("model", "points", "results"):
            raise AttributeError(name)
        if name in self.points:
            return self.points[name]
        if not self.results or not hasattr(self.results[0], name):
            raise AttributeError(name)
        if name == "rightmost_root":
            return np.array([complex(*r.rightmost_root) for r in self.results])
        if name == "notes":
            return [r.notes for r in self.results]
        values = [getattr(r, name) for r in self.results]
        if all(isinstance(v, bool | np.bool_) for v in values):
            return np.array(values, dtype=bool)
        return np.array([np.nan if v is None else float(v) for v in values])

    def to_dict(self) -> dict[str, Any]:
        """Strict-JSON-ready: the points and one dict per point (:meth:`Margins.to_dict`)."""
        return {"points": {k: v.tolist() for k, v in self.points.items()}, "results": [r.to_dict() for r in self.results]}

    def _fields(self) -> tuple[dict[str, np.ndarray], dict[str, str]]:
        """Every per-point field as an array (bare names, as a margin map's layers) and its unit."""
        si = bool(self.results) and hasattr(self.results[0], "open_loop_rhp_poles")  # an LTI loop: SI units
        w, t, s = ("rad/s", "s", "1/s") if si else ("rad/d0", "d0", "1/d0")
        root = self.rightmost_root
        values = {
            "stable": self.stable,
            "unstable_roots": self.unstable_roots,
            "gain_margin": self.gain_margin,
            "gain_margin_lower": self.gain_margin_lower,
            "phase_margin_deg": self.phase_margin_deg,
            "crossover_w": self.crossover_w,
            "phase_crossover_w": self.phase_crossover_w,
            "delay_margin": self.delay_margin,
            "rightmost_real": root.real,
            "rightmost_imag": root.imag,
        }
        units = {
            "stable": "1",
            "unstable_roots": "1",
            "gain_margin": "1",
            "gain_margin_lower": "1",
            "phase_margin_deg": "deg",
            "crossover_w": w,
            "phase_crossover_w": w,
            "delay_margin": t,
            "rightmost_real": s,
            "rightmost_imag": w,
        }
        return values, units

    def columns(self) -> dict[str, np.ndarray]:
        """The long table: one row per point, the unit in each column's name (``_d0``: normalized by d0;
        ``_s``, ``_rad_s``, ``_per_s``: SI, for an LTI loop's or a delayed fluid loop's margins)."""
        values, units = self._fields()
        si = units["delay_margin"] == "s"
        named = {
            "crossover_w": "crossover_w_rad_s" if si else "crossover_w_d0",
            "phase_crossover_w": "phase_crossover_w_rad_s" if si else "phase_crossover_w_d0",
            "delay_margin": "delay_margin_s" if si else "delay_margin_d0",
            "rightmost_real": "rightmost_root_re_per_s" if si else "rightmost_root_re_s_d0",
            "rightmost_imag": "rightmost_root_im_rad_s" if si else "rightmost_root_im_s_d0",
        }
        return {**self.points, **{named.get(k, k): v for k, v in values.items()}}

    def to_pandas(self) -> pandas.DataFrame:
        """:meth:`columns` as a :class:`pandas.DataFrame` (one row per point)."""
        from ..runtime.frames import data_frame

        return data_frame(self.columns())

    def to_xarray(self) -> xarray.Dataset:
        """The points as an :class:`xarray.Dataset` over the parameters that vary (needs ``rcpstab[xarray]``).

        Dimensions: each varying parameter, values in order of first appearance (``beta`` before ``alpha``,
        as a region map); a parameter with one value is a scalar coordinate (all are dimensions if none varies). One variable per margin field
        (the names of a margin map's layers), its unit in ``attrs["units"]``; a combination of parameters
        that is not among the points is NaN.
        """
        from ..runtime.frames import grid_dataset

        values, units = self._fields()
        varying = [k for k, v in self.points.items() if np.unique(v).size > 1] or list(self.points)
        if {"alpha", "beta"} <= set(varying):
            varying = ["beta", "alpha"] + [k for k in varying if k not in ("alpha", "beta")]
        axes = {k: self.points[k][np.sort(np.unique(self.points[k], return_index=True)[1])] for k in varying}
        fixed = [k for k in self.points if k not in varying]
        return grid_dataset(
            {**self.points, **values},
            axes,
            {k: "1" for k in self.points} | units,
            {"model": getattr(self.model, "name", str(self.model)), "command": "margins"},
            configuration=fixed,
        )

    def __repr__(self) -> str:
        stable = int(np.sum(self.stable))
        return f"MarginsBatch({len(self)} points, stable at {stable})"

    def plot(self, field: str = "phase_margin_deg", x: str | None = None, y: str | None = None, ax: Axes | None = None) -> Axes:
        """A margin map: ``field`` over two parameters (scatter), or against one (line).

        Parameters
        ----------
        field : str
            Any numeric field (``phase_margin_deg``, ``gain_margin``, ``delay_margin``...).
        x, y : str, optional
            Parameters for the axes (default: the first two that vary; one: a line plot).
        ax : matplotlib Axes, optional

        Returns
        -------
        matplotlib Axes
        """
        from ..figures import new_figure

        varying = [k for k, v in self.points.items() if np.unique(v).size > 1] or list(self.points)
        x = x or varying[0]
        y = y if y is not None else (varying[1] if len(varying) > 1 else None)
        ax = ax or new_figure((6, 4.5)).subplots()
        values = getattr(self, field)
        if y is None:
            order = np.argsort(self.points[x])
            ax.plot(self.points[x][order], values[order], marker=".")
            stable = self.stable[order]
            ax.plot(self.points[x][order][~stable], values[order][~stable], "x", color="tab:red", label="unstable (roots)")
            ax.set_xlabel(x)
            ax.set_ylabel(field)
            ax.axhline(0.0, color="k", lw=0.5)
            ax.legend(fontsize="small")
        else:
            sc = ax.scatter(self.points[x], self.points[y], c=values, s=12, cmap="viridis")
            ax.figure.colorbar(sc, ax=ax, label=field)
            ax.scatter(
                self.points[x][~self.stable],
                self.points[y][~self.stable],
                marker="x",
                s=10,
                color="tab:red",
                label="unstable (roots)",
            )
            ax.set_xlabel(x)
            ax.set_ylabel(y)
            ax.legend(fontsize="small")
        return ax


def _margins(model: ModelSpec, ol: OpenLoop, a: np.ndarray, b: np.ndarray) -> list[Margins]:
    """Margins of the points (a[i], b[i]) by the batched engines, assembled per point."""
    first, crossovers = sweep(ol, a, b, gain_limit=GAIN_LIMITS[0])
    z = first.unstable()  # its band holds every crossing that matters at K = 1 too
    roots = rightmost_roots_many(model, a, b, nodes=BATCH_NODES)
    tau = max(_normalized_matrices(model)[1])  # the collocation's interval, normalized
    doubt = np.nonzero(((roots.real < 0) != (z == 0)) | ~np.isfinite(roots) | (np.abs(roots.imag) * tau > BATCH_RESOLVED))[0]
    if doubt.size:
        roots[doubt] = rightmost_roots_many(model, a[doubt], b[doubt], nodes=COLLOCATION_NODES)
    return read_margins(ol, a, b, roots, first, z, crossovers)


def margins_many(model: ModelSpec, alphas: ArrayLike, betas: ArrayLike) -> MarginsBatch:
    """:func:`~rcpstab.linear.margins.margins` at every point of the broadcast ``alphas``, ``betas``.

    Examples
    --------
    >>> from rcpstab.models import get_model
    >>> batch = margins_many(get_model("rcp"), [0.4, 0.5], 0.2)
    >>> len(batch), [round(float(x), 2) for x in batch.phase_margin_deg]
    (2, [16.25, 21.92])
    """
    a, b = np.broadcast_arrays(np.asarray(alphas, float), np.asarray(betas, float))
    a = check_gains(a.ravel(), "alpha")
    b = check_gains(b.ravel(), "beta")
    results = _margins(model, open_loop(model), a, b)
    return MarginsBatch(model, {"alpha": a, "beta": b}, results)
