"""Figure plumbing shared by every plotting module, without touching matplotlib's backend.

Library code never calls ``matplotlib.use``: a figure written to a file is a plain
:class:`matplotlib.figure.Figure` (no pyplot, no GUI), and a plot drawn without axes in a
notebook goes to pyplot's current axes, so Jupyter's inline backend keeps working.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, cast

import numpy as np

from .runtime.atomic import atomic_path
from .units import rate_text

if TYPE_CHECKING:  # matplotlib's figure machinery is imported only by what draws (a summary line needs none of it)
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure


def new_figure(figsize: tuple[float, float] = (6.4, 4.8)) -> Figure:
    """A figure detached from pyplot, with constrained layout."""
    from matplotlib.figure import Figure

    return Figure(figsize=figsize, layout="constrained")


def current_axes() -> Axes:
    """pyplot's current axes: where a plot goes when the caller gives none."""
    import matplotlib.pyplot as plt

    return plt.gca()


def grid_extent(alpha: np.ndarray, beta: np.ndarray, single_step: float = 0.05) -> tuple[float, float, float, float]:
    """``imshow`` extent that centres each cell of an (alpha, beta) grid on its point.

    A one-point axis gets cells ``single_step`` wide.
    """
    da = np.diff(alpha).min() if alpha.size > 1 else single_step
    db = np.diff(beta).min() if beta.size > 1 else single_step
    return (alpha[0] - da / 2, alpha[-1] + da / 2, beta[0] - db / 2, beta[-1] + db / 2)


def save(fig: Figure, path: str, dpi: int = 150) -> None:
    """Write ``fig`` to ``path``; the format follows the suffix (.png, .svg, .pdf).

    A PNG is drawn once, by the Agg canvas at the saved resolution: the layout engine (run by the
    figure's own draw) places the axes and that same draw renders them. matplotlib's ``savefig``
    draws a figure with a layout engine twice (once with rendering disabled to place the axes, once
    to render), and the first pass still resamples every image and lays out every text (a third of a
    large map's figure). The pixels and the file are the same; ``savefig`` is still used whenever
    the user's ``savefig.*`` settings would change the result (:func:`_plain_png`). Vector formats
    lay out at their own 72 dpi inside ``savefig``, so they keep its two passes.
    """
    with atomic_path(path) as temporary:  # a full disk leaves the old figure, not a torn one
        if not (str(path).lower().endswith(".png") and _plain_png()):
            fig.savefig(temporary, dpi=dpi)
            return
        from matplotlib.backends.backend_agg import FigureCanvasAgg

        original_dpi, original_canvas = fig.dpi, fig.canvas
        fig.set_dpi(dpi)
        try:
            FigureCanvasAgg(fig).print_png(temporary)  # type: ignore[no-untyped-call]  # matplotlib leaves it unannotated
        finally:
            fig.set_canvas(original_canvas)
            fig.set_dpi(original_dpi)


def _plain_png() -> bool:
    """Whether ``savefig`` would write a PNG as the canvas draws it: no tight bounding box, the
    figure's own colours, no transparency (matplotlib's defaults)."""
    import matplotlib

    rc = matplotlib.rcParams
    return (
        rc["savefig.bbox"] in (None, "standard")
        and rc["savefig.facecolor"] == "auto"
        and rc["savefig.edgecolor"] == "auto"
        and not rc["savefig.transparent"]
    )


def draw_and_save(
    draw: Callable[..., Any], data: Any, path: str, figsize: tuple[float, float] = (6.4, 4.8), **kwargs: Any
) -> None:
    """Call ``draw(data, ax=..., **kwargs)`` on a new figure's axes and write it to ``path``."""
    fig = new_figure(figsize)
    draw(data, ax=fig.subplots(), **kwargs)
    save(fig, path)


def buffer_summary(traj: Any) -> str:
    """``; buffer 1 C·d0, dropped up to 0.52 C·d0 per start`` for a trajectory run with a buffer, else ``""``.

    The dropped volume is the model's ``dropped`` state at the end, in the model's queue unit
    (C*d0 for RCP); summaries append it so that a user reads which buffer ran and what it cost.
    """
    params = getattr(traj, "params", {}) or {}
    if params.get("buffer") is None or not np.all(np.isfinite(np.asarray(params["buffer"], float))):
        return ""
    scale = np.asarray(traj.capacity * traj.d0, float)
    size = np.asarray(params["buffer"], float) / scale
    dropped = np.asarray(traj.states["dropped"][-1], float) / scale if "dropped" in traj.states else np.zeros(1)
    size_text = f"{float(size.min()):.3g}" if np.ptp(size) == 0 else f"{float(size.min()):.3g}-{float(size.max()):.3g}"
    return f"; buffer {size_text} C·d0, dropped {float(dropped.min()):.3g}-{float(dropped.max()):.3g} C·d0 over the starts"


def network_caption(params: Mapping[str, Any]) -> str:
    """``C = 150 Mb/s, d0 = 200 ms, N = 10, T = 10 ms, buffer: none`` from SI-unit parameters.

    Accepts the keys the lenses use: ``C`` (bit/s), ``d0`` or ``d_0`` (s), ``N``, ``T`` (s), and
    ``buffer_bytes``, ``buffer_bdp`` or the models' ``buffer`` (bits, shown in C·d0 when C and d0
    are given); a missing buffer is stated as none (the fluid queue only has its floor at 0).
    Array values (a batch) show their range.
    """

    def value(*keys: str) -> tuple[float, float] | None:
        for key in keys:
            if key in params and params[key] is not None:
                v = np.asarray(params[key], dtype=float)
                return (float(v.min()), float(v.max()))
        return None

    def text(name: str, pair: tuple[float, float] | None, scale: float, unit: str) -> str | None:
        if pair is None:
            return None
        lo, hi = (x / scale for x in pair)
        return f"{name} = {lo:.4g}{unit}" if lo == hi else f"{name} = {lo:.4g}-{hi:.4g}{unit}"

    capacity = value("C", "capacity_bps")
    c_text = None if capacity is None else "C = " + "-".join(dict.fromkeys(rate_text(c) for c in capacity))
    parts = [
        c_text,
        text("d0", value("d0", "d_0", "rtt_s"), 1e-3, " ms"),
        text("N", value("N"), 1, ""),
        text("T", value("T"), 1e-3, " ms"),
    ]
    bits = value("buffer")
    if bits is not None and not np.isfinite(bits[0]):  # the models' "no buffer" is an infinite one
        bits = None
    if value("buffer_bdp") is not None:
        parts.append(text("buffer", value("buffer_bdp"), 1, " C·d0"))
    elif bits is not None and capacity is not None and value("d0", "d_0") is not None:
        # the lenses' parameter: bits, one model queue unit (C*d0 for RCP) times the buffer in BDP
        bdp = np.asarray(params["buffer"], float) / (
            np.asarray(params["C"], float) * np.asarray(params.get("d0", params.get("d_0")), float)
        )
        parts.append(text("buffer", (float(bdp.min()), float(bdp.max())), 1, " C·d0"))
    elif bits is not None:
        parts.append(text("buffer", bits, 8e3, " kB"))
    elif value("buffer_bytes") is not None:
        parts.append(text("buffer", value("buffer_bytes"), 1e3, " kB"))
    else:
        parts.append("buffer: none")
    return ", ".join(p for p in parts if p)


CHARS_PER_INCH = 14  # of a "small" title line: wrap captions to the figure's width


def title_lines(headline: str, caption: str | None, width_in: float) -> list[str]:
    """``headline`` then ``caption``, each wrapped to a figure ``width_in`` inches wide (small title font)."""
    import textwrap

    width = int(width_in * CHARS_PER_INCH)
    return textwrap.wrap(headline, width) + (textwrap.wrap(caption, width) if caption else [])


def set_title(ax: Axes, headline: str, caption: str | None = None) -> None:
    """Title ``headline`` followed by ``caption`` (the network and the method), wrapped to the axes' figure."""
    width_in = cast("Figure", ax.figure).get_figwidth()  # rcpstab draws in no SubFigure
    ax.set_title("\n".join(title_lines(headline, caption, width_in)), fontsize="small")


LINEAR_CAPTION = "linear loop in normalized time s·d0: the region holds for every C, d0, N"


def region_caption(region: Any) -> str:
    """The networks a region map holds for: every one (linear methods), its configurations, or its scenario."""
    meta = region.meta
    if region.method in ("exact", "bode", "nyquist", "margins", "certified"):
        return LINEAR_CAPTION
    configs = meta.get("configurations") or []
    buffer = {"buffer_bdp": meta["buffer_bdp"]} if meta.get("buffer_bdp") is not None else {}
    if len(configs) == 1:
        return network_caption(dict(configs[0], **buffer))
    if configs:
        keys = [k for k in ("C", "d0", "N", "T") if k in configs[0]]
        ranges = network_caption(dict({k: [c[k] for c in configs] for k in keys}, **buffer))
        lost = len(meta.get("unreachable_configurations") or [])
        left_out = f"; {lost} unreachable left out" if lost else ""
        return f"common to {len(configs)} configurations ({ranges}){left_out}"
    if "scenario" in meta:
        return f"scenario {meta['scenario']} (packet simulator, reference router)"
    return ""
