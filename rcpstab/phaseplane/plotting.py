"""Figures of phase-plane results: portraits (thesis Figs. E.1-E.2), verdict maps and convergence maps (Fig. 5.13).

These functions only draw data computed elsewhere (:func:`~rcpstab.phaseplane.simulate`,
:func:`~rcpstab.phaseplane.decide`, :func:`~rcpstab.phaseplane.phaseplane_region`), as
python-control separates ``*_response`` from ``*_plot``.
"""

from __future__ import annotations

import numpy as np

from ..figures import current_axes, grid_extent, network_caption, region_caption, set_title
from ..linear.region_plot import gain_labels
from ..linear.result import RegionMap
from ..verdicts.band import STANDARD, Band
from ..verdicts.judgement import CONVERGED, DIVERGED, LIMIT_CYCLE, UNDECIDED, VERDICTS
from .trajectory import Trajectory

MBIT = 1e6
# One colour per verdict; undecided is grey and hatched: not known, which is not unstable.
VERDICT_STYLE = {
    CONVERGED: {"color": "tab:green", "hatch": None, "label": "converged (stable)"},
    LIMIT_CYCLE: {"color": "tab:orange", "hatch": None, "label": "limit cycle"},
    DIVERGED: {"color": "tab:red", "hatch": None, "label": "diverged"},
    UNDECIDED: {"color": "0.75", "hatch": "xx", "label": "undecided (not known)"},
}
_WORST_FIRST = (DIVERGED, LIMIT_CYCLE, UNDECIDED, CONVERGED)


def point_verdicts(region: RegionMap) -> np.ndarray:
    """Verdict code of each grid point, shape (beta, alpha): the worst over the configurations."""
    names = np.asarray(region.table["verdict"], dtype=object).reshape(-1, region.beta.size, region.alpha.size)
    codes = np.vectorize(VERDICTS.index)(names)
    rank = np.vectorize(_WORST_FIRST.index)(codes)
    worst = np.take_along_axis(codes, rank.argmin(axis=0)[None], axis=0)[0]
    return worst


def verdict_plot(region: RegionMap, ax=None, boundary: bool = True):
    """Map of the four verdicts over (alpha, beta), each drawn distinctly, with a legend.

    Parameters
    ----------
    region : RegionMap
        A phase-plane (or packet) map whose table has a ``verdict`` column.
    ax : matplotlib.axes.Axes, optional
    boundary : bool
        Also draw the exact linear stability boundary (eq. 5.7).

    Returns
    -------
    matplotlib.axes.Axes
    """
    import matplotlib  # here: the portrait's raster PNG uses this module's labels without importing it

    from ..linear.exact import boundary_points, has_linear_boundary

    ax = ax or current_axes()
    codes = point_verdicts(region)
    extent = grid_extent(region.alpha, region.beta)
    da = (extent[1] - extent[0]) / region.alpha.size
    db = (extent[3] - extent[2]) / region.beta.size
    handles = []
    for code, style in VERDICT_STYLE.items():
        cells = np.argwhere(codes == code)
        for j, i in cells:
            ax.add_patch(
                matplotlib.patches.Rectangle(
                    (extent[0] + i * da, extent[2] + j * db),
                    da,
                    db,
                    facecolor=style["color"],
                    alpha=0.6,
                    hatch=style["hatch"],
                    edgecolor="white" if style["hatch"] is None else "0.4",
                    lw=0.3,
                )
            )
        handles.append(
            matplotlib.patches.Patch(
                facecolor=style["color"],
                alpha=0.6,
                hatch=style["hatch"],
                edgecolor="0.4",
                label=f"{style['label']}: {len(cells)}",
            )
        )
    if boundary and has_linear_boundary(region.model):  # else (gains not affine in the loop): the verdicts alone
        a, b = boundary_points(region.model, extent[1], extent[3])
        (line,) = ax.plot(a, b, color="k", lw=1.5, label="exact linear boundary")
        handles.append(line)
    ax.set_xlim(extent[0], extent[1])
    ax.set_ylim(extent[2], extent[3])
    xlabel, ylabel = gain_labels(region.model)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    # what a point's verdict is the worst of: the phase plane's starts, or the packet scenario's flow-count segments
    over = "flow-count segments of the scenario" if region.method == "packet" else "initial conditions"
    set_title(
        ax,
        f"Verdicts of model '{region.model.name}' ({region.method}; a point's verdict is its worst over the {over})",
        region_caption(region),
    )
    ax.legend(handles=handles, loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize="small")
    return ax


def portrait_plot(traj: Trajectory, ax=None, title: str | None = None, verdicts=None, cycles=None):
    """Draw every trajectory of ``traj`` in the (R/C, q) plane with the equilibrium marked.

    Parameters
    ----------
    traj : Trajectory
        A batch (typically App. E's six initial conditions at one (alpha, beta)).
    ax : matplotlib.axes.Axes, optional
    title : str, optional
    verdicts : Judgement, optional
        The judgement of the same trajectories: each one's verdict goes into its label.
    cycles : dict, optional
        Trajectory index to ``(gamma, queue_bits)`` arrays over a few periods of its limit cycle
        (reached after the horizon the judgement needed): drawn as a thick black closed curve.

    Returns
    -------
    matplotlib.axes.Axes
    """
    ax = ax or current_axes()
    for b in range(traj.gamma.shape[1]):
        (line,) = ax.plot(traj.gamma[:, b], traj.queue[:, b] / MBIT, lw=0.9, label=trajectory_label(traj, b, verdicts))
        ax.plot(traj.gamma[0, b], traj.queue[0, b] / MBIT, "o", color=line.get_color(), ms=4)
    for k, (b, (gamma, queue)) in enumerate((cycles or {}).items()):
        text = cycle_label(traj, b, gamma, verdicts)
        ax.plot(gamma, queue / MBIT, color="k", lw=2.5, label=text if k == 0 else None, zorder=5)
    ax.plot(traj.gamma_eq[0], traj.queue_eq[0] / MBIT, "k*", ms=12, label="equilibrium")
    ax.set_xlabel(PORTRAIT_AXES[0])
    ax.set_ylabel(PORTRAIT_AXES[1])
    set_title(ax, *portrait_title(traj, title))
    # below the axes: inside, it hid trajectories and left no room for the cycle's zoom
    legend = ax.legend(fontsize="x-small", loc="upper center", bbox_to_anchor=(0.5, -0.13), ncol=2)
    if cycles:
        _cycle_inset(ax, traj, cycles, legend)
    return ax


PORTRAIT_AXES = ("normalized rate R/C (dimensionless)", "queue q (Mbit)")


def trajectory_label(traj: Trajectory, b: int, verdicts=None) -> str:
    """Start ``b``'s legend entry: its initial R/C and queue, and its verdict when known."""
    label = f"R/C = {traj.gamma[0, b]:.2g}, q = {traj.queue[0, b] / MBIT:.3g} Mbit"
    return label + (f": {verdicts.names[b]}" if verdicts is not None else "")


def cycle_label(traj: Trajectory, b: int, gamma: np.ndarray, verdicts=None) -> str:
    """The limit cycle's legend entry: how far R swings from its equilibrium and the period, when known."""
    text = "limit cycle"
    if verdicts is not None and np.isfinite(verdicts.period_rtt[b]):
        rel = np.max(np.abs(gamma / traj.gamma_eq[b] - 1))
        text += f" (R within {100 * rel:.2g}% of Re, period {verdicts.period_rtt[b]:.3g} RTTs)"
    return text


def portrait_title(traj: Trajectory, title: str | None = None) -> tuple[str, str]:
    """Headline (``title`` or the model and its gains) and caption (the network, the model, the duration)."""
    names = list(traj.model.parameter_table.loop)
    values = [np.atleast_1d(traj.params.get(k, np.nan)) for k in names]
    gains = "".join(f", {k} = {v[0]:g}" for k, v in zip(names, values)) if all(v.size == 1 for v in values) else ""
    return (
        title or f"Phase portrait, model '{traj.model.name}'{gains}",
        f"{network_caption(traj.params)}; nonlinear fluid model, {traj.rtt[-1]:.4g} RTTs",
    )


INSET_SIZE = (0.4, 0.33)  # axes fraction; the inset's title takes about 0.06 more above it
INSET_CELLS = 60  # grid over the axes on which the free space is counted


def inset_place(ax, curves, avoid=(), size=INSET_SIZE) -> list:
    """``[x, y, w, h]`` (axes fraction) of the candidate inset box that covers the fewest drawn samples.

    ``curves`` are (x, y) arrays in data coordinates; ``avoid`` boxes (axes fraction ``(x0, y0, x1, y1)``,
    e.g. the legend's) count as fully covered. Candidates are a 6 x 6 grid of positions inside the axes.
    """
    ax.relim()
    ax.autoscale_view()
    to_axes = ax.transData + ax.transAxes.inverted()
    return least_covered([to_axes.transform(np.column_stack([np.ravel(x), np.ravel(y)])) for x, y in curves], avoid, size)


def least_covered(curves, avoid=(), size=INSET_SIZE) -> list:
    """:func:`inset_place` for ``curves`` already in axes fractions: (n, 2) arrays of points."""
    covered = np.zeros((INSET_CELLS, INSET_CELLS), bool)
    for xy in curves:
        xy = xy[np.all(np.isfinite(xy), axis=1)]
        # the lines between samples hide what is under them too: fill them in at half a cell
        steps = np.maximum(1, np.ceil(np.hypot(*np.diff(xy, axis=0).T) * 2 * INSET_CELLS)).astype(int)
        xy = np.concatenate([_segment_points(xy, steps), xy[-1:]]) if len(xy) > 1 else xy
        xy = xy[np.all((xy >= 0) & (xy < 1), axis=1)]
        cells = (xy * INSET_CELLS).astype(int)
        covered[cells[:, 1], cells[:, 0]] = True
    for x0, y0, x1, y1 in avoid:
        i0, i1 = (int(np.clip(v * INSET_CELLS, 0, INSET_CELLS)) for v in (y0, y1))
        j0, j1 = (int(np.clip(v * INSET_CELLS, 0, INSET_CELLS)) for v in (x0, x1))
        covered[i0 : i1 + 1, j0 : j1 + 1] = True
    w, h = size
    best = None
    for y in np.linspace(0.06, 0.92 - h, 6):  # leave room for the inset's title above
        for x in np.linspace(0.1, 0.98 - w, 6):  # and its tick labels on the left
            i0, i1 = int(y * INSET_CELLS), int(min(1.0, y + h + 0.06) * INSET_CELLS)
            j0, j1 = int((x - 0.06) * INSET_CELLS), int((x + w) * INSET_CELLS)
            score = int(covered[i0 : i1 + 1, max(j0, 0) : j1 + 1].sum())
            if best is None or score < best[0]:
                best = (score, [x, y, w, h])
    return best[1]


def _segment_points(xy, steps):
    """``np.linspace(xy[i], xy[i + 1], steps[i], endpoint=False)`` for every segment i, concatenated.

    One vectorised pass (a per-segment ``linspace`` made the portrait's figure cost a second) with
    linspace's own arithmetic, so the points are the same to the bit: ``start + k * step`` with
    ``step = delta / n``, or ``start + k / n * delta`` for a segment where a component of the step is 0.
    """
    start, delta = xy[:-1], np.diff(xy, axis=0)
    segment = np.repeat(np.arange(len(steps)), steps)
    k = (np.arange(segment.size) - np.repeat(np.cumsum(steps) - steps, steps)).astype(float)[:, None]
    n = steps[segment].astype(float)[:, None]
    step = delta / steps[:, None]
    flat = np.any(step == 0, axis=1)[segment][:, None]
    return np.where(flat, k / n * delta[segment], k * step[segment]) + start[segment]


def _cycle_inset(ax, traj: Trajectory, cycles: dict, legend=None) -> None:
    """A zoom on the limit cycles (a cycle inside the convergence band is invisible at the portrait's scale),
    placed where it hides the fewest trajectory samples and not on the legend."""
    avoid = []
    if legend is not None:
        box = legend.get_window_extent().transformed(ax.transAxes.inverted())
        avoid.append((box.x0, box.y0, box.x1, box.y1))
    curves = [(traj.gamma[:, b], traj.queue[:, b] / MBIT) for b in range(traj.gamma.shape[1])]
    curves += [(g, q / MBIT) for g, q in cycles.values()]
    inset = ax.inset_axes(inset_place(ax, curves, avoid))
    for g, q in cycles.values():
        inset.plot(g, q / MBIT, color="k", lw=1.5)
    inset.plot(traj.gamma_eq[0], traj.queue_eq[0] / MBIT, "k*", ms=8)
    xlim, ylim = cycle_limits(traj, cycles)
    inset.set_xlim(*xlim)
    inset.set_ylim(*ylim)
    inset.tick_params(labelsize="x-small")
    inset.set_title("limit cycle (zoom)", fontsize="x-small")


def cycle_limits(traj: Trajectory, cycles: dict) -> tuple[tuple[float, float], tuple[float, float]]:
    """The zoom's x (R/C) and y (Mbit) limits: the cycles and the equilibrium with 10% to spare."""
    gamma = np.concatenate([g for g, _ in cycles.values()] + [traj.gamma_eq[:1]])
    queue = np.concatenate([q for _, q in cycles.values()] + [traj.queue_eq[:1]]) / MBIT
    pad_g, pad_q = 0.1 * np.ptp(gamma) or 1e-3, 0.1 * np.ptp(queue) or 1e-3
    return (gamma.min() - pad_g, gamma.max() + pad_g), (queue.min() - pad_q, queue.max() + pad_q)


def convergence_plot(region: RegionMap, ax=None):
    """Colour map of the measured convergence time (RTTs) over (alpha, beta).

    Points that do not converge are drawn in their verdict's colour (:data:`VERDICT_STYLE`),
    points whose time was not observed (only estimated) are left blank. With several
    configurations, the slowest over them is shown.
    """
    import matplotlib

    ax = ax or current_axes()
    table = region.table
    times = np.asarray(table["convergence_rtt"], dtype=float).reshape(-1, region.beta.size, region.alpha.size)
    worst = np.where(np.isnan(times).any(axis=0), np.nan, np.nanmax(np.where(np.isnan(times), -1, times), axis=0))
    extent = grid_extent(region.alpha, region.beta)
    image = ax.imshow(worst, origin="lower", extent=extent, aspect="auto", cmap="viridis", interpolation="nearest")
    ax.figure.colorbar(image, ax=ax, label="convergence time (RTTs, last band exit)")
    codes = point_verdicts(region)
    handles = []
    for code in (LIMIT_CYCLE, DIVERGED, UNDECIDED):
        mask = codes == code
        if mask.any():
            style = VERDICT_STYLE[code]
            ax.imshow(
                np.where(mask, 1.0, np.nan),
                origin="lower",
                extent=extent,
                aspect="auto",
                cmap=matplotlib.colors.ListedColormap([style["color"]]),
                interpolation="nearest",
            )
            handles.append(matplotlib.patches.Patch(color=style["color"], label=style["label"]))
    if handles:
        ax.legend(handles=handles, loc="upper right", fontsize="small")
    xlabel, ylabel = gain_labels(region.model)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    band = Band(region.meta["band"]["band_rate"], region.meta["band"]["band_queue"]) if "band" in region.meta else STANDARD
    set_title(
        ax,
        f"Convergence time of model '{region.model.name}' ({band.describe('its queue unit')})",
        f"{region_caption(region)}; blank: does not converge",
    )
    return ax
