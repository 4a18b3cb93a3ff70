"""Figure of a region map: the stable set shaded, the exact linear boundary drawn as a curve.

Lives beside the engines (the lens layer) so that :meth:`RegionMap.plot` can call it without
reaching up into the applications; :mod:`rcpstab.plotting` adds the verdict maps.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, cast

import numpy as np

from ..figures import current_axes, grid_extent, region_caption, set_title
from .result import RegionMap

if TYPE_CHECKING:
    from matplotlib.artist import Artist
    from matplotlib.axes import Axes
    from matplotlib.patches import Polygon

__all__ = [
    "INSIDE_EXACT",
    "METHOD_LABELS",
    "exact_region_outline",
    "exact_region_patch",
    "gain_labels",
    "method_label",
    "region_plot",
    "region_title",
]

METHOD_LABELS = {
    "exact": "exact (D-subdivision)",
    "bode": "Bode criterion (eqs. 5.8-5.12)",
    "nyquist": "Nyquist criterion",
    "phaseplane": "phase plane (nonlinear model)",
    "packet": "packet-level simulation",
}


def _latex_gains(model: Any) -> tuple[str, str]:
    """The LaTeX of the model's two loop gains; a bundled model's from the derivation cache (no SymPy)."""

    def derive() -> tuple[str, str]:
        import sympy as sp

        return cast("tuple[str, str]", tuple(sp.latex(sym) for sym in model.loop_parameters))  # its two loop gains

    if getattr(model, "bundled_sources", None):
        from ..runtime.derivation_cache import cached

        return cached("gainlabels", model, (__file__,), derive)
    return derive()


GREEK = (
    "alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu xi omicron pi rho sigma tau upsilon phi chi psi omega"
)


def _unicode(latex: str) -> str:
    """A loop gain's LaTeX as plain Unicode text (``\\alpha`` -> α, ``K_{p}`` -> K_p) for a figure without mathtext."""
    import re

    letters = {name: chr(0x3B1 + k + (k > 16)) for k, name in enumerate(GREEK.split())}  # no final sigma
    text = re.sub(r"\\([A-Za-z]+)\s*", lambda m: letters.get(m.group(1), m.group(1)), latex)
    return text.replace("{", "").replace("}", "")


def gain_labels(model: Any, short: bool = False, unicode: bool = False) -> tuple[str, str]:
    """Axis labels of the grid: the model's own two loop gains (RCP's: alpha, the rate gain; beta, the queue gain).

    ``unicode`` gives them as plain text (α, β) instead of mathtext (``$\\alpha$``).
    """
    first, second = _latex_gains(model)
    if unicode:
        x, y = gain_labels(model, short)
        return x.replace(f"${first}$", _unicode(first)), y.replace(f"${second}$", _unicode(second))
    if short:
        return f"${first}$", f"${second}$"
    if (first, second) == (r"\alpha", r"\beta"):
        return r"$\alpha$ (rate gain, dimensionless)", r"$\beta$ (queue gain, dimensionless)"
    return f"${first}$ (first loop gain)", f"${second}$ (second loop gain)"


INSIDE_EXACT = ("exact", "certified")
"""Methods whose stable points lie inside the exact region by construction (the certificate is
sufficient): their cells are clipped to the exact boundary, which a cell centred on an inside
point would otherwise cross."""


def exact_region_patch(ax: Axes, a: np.ndarray, b: np.ndarray, beta_min: float) -> Polygon | None:
    """The stable region under a one-piece exact boundary (``a``, ``b`` from
    :func:`~rcpstab.linear.exact.boundary_points`) as a clip patch; None for a boundary in pieces."""
    from matplotlib.patches import Polygon

    points = exact_region_outline(a, b, beta_min)
    return None if points is None else Polygon(points, closed=True, transform=ax.transData)


def exact_region_outline(a: np.ndarray, b: np.ndarray, beta_min: float) -> np.ndarray | None:
    """The polygon (n, 2) of (alpha, beta) under a one-piece exact boundary, closed below ``beta_min``;
    None for a boundary in pieces.

    A piece that ends (or starts) at its highest point left the view through its top (the view holds
    only a flank of the region): the region under it reaches past the view's top and side, so the polygon
    runs on above the view and sideways before it closes (closing straight down left a view inside the region
    unshaded, e.g. a one-point map at alpha = 0.5, beta = 0.2).
    """
    if a.size < 3 or np.isnan(a).any() or np.isnan(b).any():
        return None
    floor, span = beta_min - 1.0, float(np.ptp(a)) + 1.0
    top = float(b.max())
    high = top + float(np.ptp(b)) + 1.0  # above the view
    x, y = ([float(a.min()) - span, float(a[0])], [high, high]) if b[0] == top else ([], [])
    x_end, y_end = ([float(a[-1]), float(a.max()) + span], [high, high]) if b[-1] == top else ([], [])
    xs = np.concatenate([x, a, x_end])
    ys = np.concatenate([y, b, y_end])
    return np.column_stack([np.concatenate([xs, [xs[-1], xs[0]]]), np.concatenate([ys, [floor, floor]])])


def method_label(region: RegionMap) -> str:
    """How the region was computed, as its legend says it (``exact (D-subdivision)``, ``..., Pade order 4``)."""
    label = METHOD_LABELS.get(region.method, region.method)
    if region.meta.get("pade"):
        label += f", Pade order {region.meta['pade']}"
    return label


def region_title(region: RegionMap) -> str:
    """The figure's headline: model, method and the stable share of the grid."""
    return f"Stable region of model '{region.model.name}', {method_label(region)} ({100 * region.stable_fraction:.1f}% of grid)"


def region_plot(region: RegionMap, ax: Axes | None = None, boundary: bool = True, color: str = "tab:blue") -> Axes:
    """Shade the stable grid points of ``region`` on ``ax``; draw the exact linear boundary.

    Returns the axes.
    """
    import matplotlib  # here: the raster PNG (region_raster) draws from this module's labels without it

    from .exact import boundary_points, has_linear_boundary

    ax = ax or current_axes()
    extent = grid_extent(region.alpha, region.beta)
    image = ax.imshow(
        np.where(region.stable, 1.0, np.nan),
        origin="lower",
        extent=extent,
        aspect="auto",
        cmap=matplotlib.colors.ListedColormap([color]),
        alpha=0.45,
        interpolation="nearest",
    )
    label = method_label(region)
    handles: list[Artist] = [matplotlib.patches.Patch(color=color, alpha=0.45, label=f"stable: {label}")]
    if boundary and has_linear_boundary(region.model):
        a, b = boundary_points(region.model, extent[1], extent[3])
        (line,) = ax.plot(a, b, color="k", lw=1.5, label="exact linear boundary")
        handles.append(line)
        clip = exact_region_patch(ax, a, b, extent[2]) if region.method in INSIDE_EXACT else None
        if clip is not None:
            image.set_clip_path(clip)
            if region.stable.size <= 2500:  # show which points were decided (cells end at the boundary)
                alphas, betas = np.meshgrid(region.alpha, region.beta)
                ax.plot(alphas[region.stable], betas[region.stable], ".", color=color, ms=3)
    ax.set_xlim(extent[0], extent[1])
    ax.set_ylim(extent[2], extent[3])
    xlabel, ylabel = gain_labels(region.model)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    set_title(ax, region_title(region), region_caption(region))
    ax.legend(handles=handles, loc="upper right", fontsize="small")
    return ax
