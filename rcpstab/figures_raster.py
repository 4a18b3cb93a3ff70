"""PNG figures drawn with Pillow, for the command line's ``map`` and ``portrait`` figures.

matplotlib's figure machinery costs a plotting command more than its computation (importing
:mod:`matplotlib.figure` alone takes longer than an exact 500x500 map). A PNG of one pair of axes
needs little of it: this module draws one on a Pillow image with matplotlib's own DejaVu Sans
(antialiased text, Unicode Greek letters), matplotlib's default look (10 pt labels, outward ticks
at "nice" steps, tab10 colours) and matplotlib's size (6.4 x 4.8 in at 150 dpi). Grid cells are
painted cell for cell from the data; lines and markers are drawn at :data:`SUPERSAMPLE` times the
resolution and averaged down, which antialiases them.

Only what those figures use is here: one main axes with an optional inset, filled cells, lines,
markers, a legend and a wrapped title. SVG, PDF, notebooks and every ``.plot()`` keep matplotlib.
"""

from __future__ import annotations

import functools
import math
import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from .runtime.atomic import atomic_path

if TYPE_CHECKING:
    from PIL import Image as PILImage
    from PIL import ImageFont

__all__ = [
    "SUPERSAMPLE",
    "TAB10",
    "LegendEntry",
    "RasterAxes",
    "RasterFigure",
    "font_path",
    "is_png",
    "nice_ticks",
    "rgb",
    "tick_labels",
]

SUPERSAMPLE = 4  # lines and markers are drawn at 4x and averaged down: 16 grey levels of coverage
TAB10 = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf")
NAMED = {"k": "#000000", "black": "#000000", "white": "#ffffff", "w": "#ffffff"} | {
    f"tab:{n}": c
    for n, c in zip(("blue", "orange", "green", "red", "purple", "brown", "pink", "gray", "olive", "cyan"), TAB10, strict=True)
}
FONT_PT = 10.0  # matplotlib's font.size
SMALL_PT, X_SMALL_PT = FONT_PT / 1.2, FONT_PT / 1.44  # "small", "x-small"
TICK_PT, TICK_PAD_PT, FRAME_PT = 3.5, 3.5, 0.8  # tick length, gap to its label, axes frame width
LABEL_PAD_PT = 4.0  # axis label to tick labels
TITLE_PAD_PT = 6.0
EDGE_PT = 3.0  # figure edge to the outermost text
MINUS = "\u2212"  # matplotlib's tick labels use the Unicode minus


def is_png(path: str) -> bool:
    """Whether ``path`` names a PNG file (the format follows the suffix, as matplotlib's ``savefig``)."""
    return str(path).lower().endswith(".png")


def rgb(color: str) -> tuple[int, int, int]:
    """``(r, g, b)`` 0-255 of a colour given as ``#rrggbb``, ``k``, ``tab:blue`` or a grey level ``"0.75"``."""
    text = NAMED.get(color, color)
    if text.startswith("#") and len(text) == 7:
        return (int(text[1:3], 16), int(text[3:5], 16), int(text[5:7], 16))
    level = round(255 * float(text))  # matplotlib's grey: a number 0 (black) to 1 (white) as a string
    return (level, level, level)


def nice_ticks(lo: float, hi: float, max_bins: int) -> np.ndarray:
    """Tick values inside ``[lo, hi]``: multiples of the smallest step of 1, 2, 2.5, 5 or 10 times a power
    of ten that splits the range into at most ``max_bins`` intervals, or a smaller one where that shows
    fewer than two ticks (matplotlib's default locator, ``MaxNLocator`` with those steps).

    Examples
    --------
    >>> nice_ticks(0.002, 2.002, 9).tolist()
    [0.25, 0.5, 0.75, 1.0, 1.25, 1.5, 1.75, 2.0]
    """
    raw = (hi - lo) / max(1, max_bins)
    scale = 10.0 ** math.floor(math.log10(raw))
    steps = [m * scale * f for f in (0.1, 1.0) for m in (1, 2, 2.5, 5)] + [10 * scale, 20 * scale]
    k = next(i for i, step in enumerate(steps) if step >= raw * (1 - 1e-9))
    for step in steps[k::-1]:  # the smallest step above the raw one; smaller ones until two ticks show
        first, last = math.ceil(lo / step - 1e-9), math.floor(hi / step + 1e-9)
        if last - first >= 1:
            break
    return np.arange(first, last + 1) * step


def tick_labels(values: np.ndarray) -> list[str]:
    """Labels of evenly spaced ticks, all with the fewest decimals that show each value exactly
    (``0.25, 0.50, ... 2.00``; ``0.2, 0.4``; ``0, 50, 100``), a Unicode minus for negatives.

    Examples
    --------
    >>> tick_labels(np.array([0.25, 0.5, 2.0]))
    ['0.25', '0.50', '2.00']
    """
    if values.size == 0:
        return []
    big = float(np.max(np.abs(values)))
    step = float(np.min(np.diff(values))) if values.size > 1 else big or 1.0
    if big >= 1e5 or step < 1e-4:
        texts = [f"{v:.3g}" for v in values]
    else:
        digits = next(d for d in range(9) if np.allclose(np.round(values, d), values, rtol=0, atol=1e-9 * step))
        texts = [f"{v + 0.0:.{digits}f}" for v in values]  # + 0.0: no "-0.0"
    return [t.replace("-", MINUS) for t in texts]


@functools.cache
def font_path() -> str:
    """matplotlib's bundled DejaVu Sans, found without importing matplotlib (its ``mpl-data`` beside its
    package; a distribution that moves the data elsewhere is asked through ``matplotlib.get_data_path``)."""
    import importlib.util

    spec = importlib.util.find_spec("matplotlib")
    for folder in (spec.submodule_search_locations or []) if spec else []:
        path = os.path.join(folder, "mpl-data", "fonts", "ttf", "DejaVuSans.ttf")
        if os.path.exists(path):
            return path
    import matplotlib

    return os.path.join(matplotlib.get_data_path(), "fonts", "ttf", "DejaVuSans.ttf")


@functools.cache
def _font(size_px: float) -> ImageFont.FreeTypeFont:
    """DejaVu Sans (:func:`font_path`) at ``size_px`` pixels."""
    from PIL import ImageFont

    return ImageFont.truetype(font_path(), size_px)


@dataclass
class LegendEntry:
    """One legend row: a filled ``patch``, a ``line`` sample or a ``marker`` ("o" or "*"), and its label."""

    kind: str
    label: str
    color: str
    alpha: float = 1.0
    width_pt: float = 1.5
    marker: str = "o"
    size_pt: float = 6.0


@dataclass
class _Op:
    kind: str  # "cells", "line" or "marker"
    color: str
    data: tuple[Any, ...]
    width_pt: float = 1.0


@dataclass
class RasterAxes:
    """One pair of axes: data limits, what is drawn in them (in call order), labels and a legend.

    ``box`` (left, top, right, bottom, in pixels of the image) is set by :meth:`RasterFigure.layout`.
    """

    xlim: tuple[float, float]
    ylim: tuple[float, float]
    dpi: float
    fontsize_pt: float = FONT_PT
    xlabel: str = ""
    ylabel: str = ""
    title: list[str] = field(default_factory=list)
    title_pt: float = SMALL_PT
    ops: list[_Op] = field(default_factory=list)
    legend: tuple[list[LegendEntry], str, int, float] | None = None
    insets: list[tuple[tuple[float, float, float, float], RasterAxes]] = field(default_factory=list)
    box: tuple[float, float, float, float] = (0.0, 0.0, 1.0, 1.0)

    def px(self, points: float) -> float:
        """``points`` (1/72 in) in pixels."""
        return points * self.dpi / 72.0

    def to_pixels(self, x: Any, y: Any) -> tuple[np.ndarray, np.ndarray]:
        """Image pixel coordinates (x right, y down; pixel i spans [i, i + 1)) of data points."""
        left, top, right, bottom = self.box
        (x0, x1), (y0, y1) = self.xlim, self.ylim
        px = left + (np.asarray(x, float) - x0) / (x1 - x0) * (right - left)
        py = bottom - (np.asarray(y, float) - y0) / (y1 - y0) * (bottom - top)
        return px, py

    def cells(self, values: np.ndarray, extent: Sequence[float], color: str, alpha: float, clip: Any = None) -> None:
        """Paint every cell ``values[j, i]`` that is True (cell i of ``extent``'s x range, j of its y range)
        in ``color`` at opacity ``alpha``; ``clip``, an (n, 2) polygon in data coordinates, keeps only what
        lies inside it."""
        self.ops.append(_Op("cells", color, (np.asarray(values, bool), tuple(extent), alpha, clip)))

    def line(self, x: Any, y: Any, color: str, width_pt: float = 1.5) -> None:
        """A polyline through the data points (x, y), ``width_pt`` wide."""
        self.ops.append(_Op("line", color, (np.ravel(x), np.ravel(y)), width_pt))

    def marker(self, x: Any, y: Any, color: str, shape: str = "o", size_pt: float = 6.0) -> None:
        """A filled circle ("o") or five-pointed star ("*") of diameter ``size_pt`` at each data point."""
        self.ops.append(_Op("marker", color, (np.ravel(x), np.ravel(y), shape), size_pt))

    def set_legend(
        self, entries: list[LegendEntry], loc: str = "upper right", ncol: int = 1, fontsize_pt: float = SMALL_PT
    ) -> None:
        """A legend inside the axes (``loc`` "upper right") or centred below them ("below")."""
        self.legend = (entries, loc, ncol, fontsize_pt)

    def inset(self, rect: tuple[float, float, float, float], xlim: tuple[float, float], ylim: tuple[float, float]) -> RasterAxes:
        """Axes at ``rect`` = (x, y, width, height) in fractions of these axes, with x-small tick labels."""
        child = RasterAxes(xlim, ylim, self.dpi, fontsize_pt=X_SMALL_PT, title_pt=X_SMALL_PT)
        self.insets.append((rect, child))
        return child

    # --- sizes the layout needs -------------------------------------------------------------------------------

    def ticks(self) -> tuple[np.ndarray, np.ndarray]:
        """x and y tick values for the current box (matplotlib's tick space: 3 label heights per x tick, 2 per y)."""
        left, top, right, bottom = self.box
        to_pt = 72.0 / self.dpi
        nx = max(1, min(9, int((right - left) * to_pt // (3 * self.fontsize_pt))))
        ny = max(1, min(9, int((bottom - top) * to_pt // (2 * self.fontsize_pt))))
        return nice_ticks(*self.xlim, nx), nice_ticks(*self.ylim, ny)

    def legend_size(self) -> tuple[float, float]:
        """Width and height of the legend box in pixels ((0, 0) without a legend)."""
        if self.legend is None:
            return (0.0, 0.0)
        entries, _, ncol, size = self.legend
        font, em = _font(self.px(size)), self.px(size)
        rows = math.ceil(len(entries) / ncol)
        widths = [max((font.getlength(e.label) for e in entries[c * rows : (c + 1) * rows]), default=0.0) for c in range(ncol)]
        column = 2.8 * em  # handle (2 em) and the gap to the text (0.8 em)
        return (sum(w + column for w in widths) + 2 * (ncol - 1) * em + 0.8 * em, rows * 1.3 * em + 0.6 * em)


class RasterFigure:
    """A figure of ``figsize`` inches at ``dpi``: one main axes (from :meth:`axes`), laid out so that its
    title, labels, tick labels and a legend below it fit, then drawn by :meth:`save`."""

    def __init__(self, figsize: tuple[float, float] = (6.4, 4.8), dpi: float = 150.0) -> None:
        self.size = (round(figsize[0] * dpi), round(figsize[1] * dpi))
        self.dpi = dpi
        self.main: RasterAxes | None = None

    def axes(self, xlim: tuple[float, float], ylim: tuple[float, float]) -> RasterAxes:
        """The figure's main axes, showing ``xlim`` x ``ylim`` (data units)."""
        self.main = RasterAxes((float(xlim[0]), float(xlim[1])), (float(ylim[0]), float(ylim[1])), self.dpi)
        return self.main

    def layout(self) -> RasterAxes:
        """Place the main axes: the space the texts around them need is taken from the figure's edges."""
        ax = self.main
        if ax is None:
            raise ValueError("the figure has no axes")
        width, height = self.size
        font, title_font = _font(ax.px(ax.fontsize_pt)), _font(ax.px(ax.title_pt))
        edge, line = ax.px(EDGE_PT), ax.px(ax.fontsize_pt) * 1.2
        top = edge + len(ax.title) * ax.px(ax.title_pt) * 1.2 + ax.px(TITLE_PAD_PT)
        # a row of tick labels is one font size high (digits have no descenders); a label line 1.2
        below = ax.px(TICK_PT + TICK_PAD_PT + ax.fontsize_pt + LABEL_PAD_PT) + (line if ax.xlabel else 0.0)
        legend_w, legend_h = ax.legend_size()
        if ax.legend is not None and ax.legend[1] == "below":
            below += ax.px(LABEL_PAD_PT) + legend_h
        ax.box = (0.0, top, float(width), height - edge - below)  # a first guess, to choose the ticks
        for _ in range(2):  # the y tick labels' width depends on the ticks, which depend on the box
            xt, yt = ax.ticks()
            label_w = max((font.getlength(t) for t in tick_labels(yt)), default=0.0)
            left = edge + (line + ax.px(LABEL_PAD_PT) if ax.ylabel else 0.0) + label_w + ax.px(TICK_PT + TICK_PAD_PT)
            right = width - edge - font.getlength(tick_labels(xt)[-1]) / 2 if xt.size else width - edge
            ax.box = (left, top, right, height - edge - below)
        del title_font, legend_w
        return ax

    def render(self) -> PILImage.Image:
        """The figure as an RGB image."""
        from PIL import Image

        ax = self.layout()
        image = Image.new("RGB", self.size, "white")
        _draw_axes(image, ax, self.size[0] / 2)
        return image

    def save(self, path: str) -> None:
        """Write the figure to ``path`` as PNG (atomically: a failed write leaves the old file)."""
        image = self.render()
        with atomic_path(path) as temporary:
            image.save(temporary, format="PNG", dpi=(self.dpi, self.dpi))


# --- drawing -------------------------------------------------------------------------------------------------


def _int_box(ax: RasterAxes) -> tuple[int, int, int, int]:
    left, top, right, bottom = ax.box
    return (math.floor(left), math.floor(top), math.ceil(right), math.ceil(bottom))


def _draw_axes(image: PILImage.Image, ax: RasterAxes, centre: float) -> None:
    """Everything of ``ax`` (and its insets) onto ``image``: contents clipped to the box, frame, ticks, texts."""
    from PIL import ImageDraw

    box = _int_box(ax)
    for op in ax.ops:
        if op.kind == "cells":
            _paint_cells(image, ax, box, op)
        else:
            _paint_strokes(image, ax, box, op)
    draw = ImageDraw.Draw(image)
    black = (0, 0, 0)
    frame = max(1, round(ax.px(FRAME_PT)))
    left, top, right, bottom = ax.box
    draw.rectangle((round(left) - frame // 2, round(top) - frame // 2, round(right), round(bottom)), outline=black, width=frame)
    font = _font(ax.px(ax.fontsize_pt))
    tick, pad = ax.px(TICK_PT), ax.px(TICK_PAD_PT)
    xt, yt = ax.ticks()
    px, _ = ax.to_pixels(xt, np.full(xt.shape, ax.ylim[0]))
    for x, text in zip(px, tick_labels(xt), strict=True):
        column = math.floor(x)  # the pixel column whose span holds the tick's value
        draw.line((column, round(bottom), column, round(bottom + tick)), fill=black, width=frame)
        draw.text((x, bottom + tick + pad), text, font=font, fill=black, anchor="mt")
    _, py = ax.to_pixels(np.full(yt.shape, ax.xlim[0]), yt)
    for y, text in zip(py, tick_labels(yt), strict=True):
        row = math.floor(y)
        draw.line((round(left - tick), row, round(left), row), fill=black, width=frame)
        draw.text((left - tick - pad, y), text, font=font, fill=black, anchor="rm")
    line = ax.px(ax.fontsize_pt) * 1.2
    label_top = bottom + tick + pad + ax.px(ax.fontsize_pt + LABEL_PAD_PT)
    if ax.xlabel:
        draw.text(((left + right) / 2, label_top), ax.xlabel, font=font, fill=black, anchor="mt")
    if ax.ylabel:
        label_w = max((font.getlength(t) for t in tick_labels(yt)), default=0.0)
        _vertical_text(image, ax.ylabel, font, left - tick - pad - label_w - ax.px(LABEL_PAD_PT), (top + bottom) / 2)
    title_font, title_line = _font(ax.px(ax.title_pt)), ax.px(ax.title_pt) * 1.2
    middle = centre if ax.fontsize_pt == FONT_PT else (left + right) / 2  # the main title centres on the figure
    for k, text in enumerate(reversed(ax.title)):
        draw.text((middle, top - ax.px(TITLE_PAD_PT) - k * title_line), text, font=title_font, fill=black, anchor="md")
    if ax.legend is not None:
        below = label_top + (line if ax.xlabel else 0.0) + ax.px(LABEL_PAD_PT)
        _draw_legend(image, ax, below)
    for rect, child in ax.insets:
        x, y, w, h = rect
        child.box = (
            left + x * (right - left),
            bottom - (y + h) * (bottom - top),
            left + (x + w) * (right - left),
            bottom - y * (bottom - top),
        )
        draw.rectangle(_int_box(child), fill="white")
        _draw_axes(image, child, centre)


def _vertical_text(image: PILImage.Image, text: str, font: ImageFont.FreeTypeFont, right: float, middle: float) -> None:
    """``text`` turned 90 degrees counter-clockwise, its baseline side ending at x = ``right``, centred on y = ``middle``."""
    from PIL import Image

    x0, y0, x1, y1 = font.getbbox(text, anchor="ls")
    ascent, descent = font.getmetrics()
    strip = Image.new("L", (math.ceil(x1 - x0) + 2, ascent + descent))
    from PIL import ImageDraw

    ImageDraw.Draw(strip).text((1 - x0, ascent), text, font=font, fill=255, anchor="ls")
    turned = strip.rotate(90, expand=True)
    image.paste((0, 0, 0), (round(right - turned.width), round(middle - turned.height / 2)), turned)


def _paint_cells(image: PILImage.Image, ax: RasterAxes, box: tuple[int, int, int, int], op: _Op) -> None:
    """Each pixel of the box takes the cell its centre falls in; True cells get the colour over what is there."""
    from PIL import Image, ImageDraw

    values, extent, alpha, clip = op.data
    left, top, right, bottom = box
    columns, rows = np.arange(left, right) + 0.5, np.arange(top, bottom) + 0.5
    (x0, x1), (y0, y1) = ax.xlim, ax.ylim
    data_x = x0 + (columns - ax.box[0]) / (ax.box[2] - ax.box[0]) * (x1 - x0)
    data_y = y0 + (ax.box[3] - rows) / (ax.box[3] - ax.box[1]) * (y1 - y0)
    ny, nx = values.shape
    i = np.floor((data_x - extent[0]) / (extent[1] - extent[0]) * nx).astype(int)
    j = np.floor((data_y - extent[2]) / (extent[3] - extent[2]) * ny).astype(int)
    inside_x, inside_y = (i >= 0) & (i < nx), (j >= 0) & (j < ny)
    cover = values[np.clip(j, 0, ny - 1)[:, None], np.clip(i, 0, nx - 1)[None, :]]
    cover &= inside_y[:, None] & inside_x[None, :]
    weight = cover.astype(np.uint16) * round(255 * alpha)  # the colour's opacity per pixel, 0-255
    if clip is not None:
        s = SUPERSAMPLE
        mask = Image.new("L", ((right - left) * s, (bottom - top) * s))
        cx, cy = ax.to_pixels(clip[:, 0], clip[:, 1])
        points = np.column_stack([(cx - left) * s, (cy - top) * s]).clip(-1e6, 1e6)
        ImageDraw.Draw(mask).polygon([tuple(p) for p in points.tolist()], fill=255)
        weight = (weight * np.asarray(mask.reduce(s), np.uint16) + 127) // 255  # the polygon's coverage of each pixel
    image.paste(rgb(op.color), box[:2], Image.fromarray(weight.astype(np.uint8)))  # Pillow blends by the mask


def _paint_strokes(image: PILImage.Image, ax: RasterAxes, box: tuple[int, int, int, int], op: _Op) -> None:
    """A line or markers, drawn on a coverage mask at :data:`SUPERSAMPLE` times the resolution, averaged down and
    painted in the op's colour (clipped to the box)."""
    from PIL import Image, ImageDraw

    s = SUPERSAMPLE
    px, py = ax.to_pixels(op.data[0], op.data[1])
    keep = np.isfinite(px) & np.isfinite(py)
    px, py = px[keep], py[keep]
    reach = ax.px(op.width_pt) / 2 + 1  # half the line's width or the marker's size, and a pixel of blur
    # the mask covers only what the stroke can touch inside the box: markers and short curves cost little
    if px.size == 0:  # e.g. a boundary that does not enter the view
        return
    low_x, low_y = (float(np.clip(v.min() - reach, -1e6, 1e6)) for v in (px, py))
    high_x, high_y = (float(np.clip(v.max() + reach, -1e6, 1e6)) for v in (px, py))
    left, top = max(box[0], math.floor(low_x)), max(box[1], math.floor(low_y))
    right, bottom = min(box[2], math.ceil(high_x)), min(box[3], math.ceil(high_y))
    if right <= left or bottom <= top:
        return
    mask = Image.new("L", ((right - left) * s, (bottom - top) * s))
    draw = ImageDraw.Draw(mask)
    xy = np.column_stack([(px - left) * s, (py - top) * s]).clip(-1e6, 1e6)
    if op.kind == "line":
        width = ax.px(op.width_pt) * s
        xy = _thin(xy, width / 4)
        # round joins cost Pillow an ellipse per vertex: only for a few long segments, where a join would show
        draw.line([tuple(p) for p in xy.tolist()], fill=255, width=max(1, round(width)), joint="curve" if len(xy) < 100 else None)
    else:
        radius = ax.px(op.width_pt) * s / 2
        for x, y in xy.tolist():
            if op.data[2] == "*":
                angles = np.pi / 2 + np.arange(10) * np.pi / 5
                r = np.where(np.arange(10) % 2 == 0, radius, radius * 0.382)  # a regular star's inner radius
                draw.polygon(
                    list(zip((x + r * np.cos(angles)).tolist(), (y - r * np.sin(angles)).tolist(), strict=True)), fill=255
                )
            else:
                draw.ellipse((x - radius, y - radius, x + radius, y + radius), fill=255)
    image.paste(rgb(op.color), (left, top), mask.reduce(s))


def _thin(xy: np.ndarray, spacing: float) -> np.ndarray:
    """The vertices of a polyline, keeping one per run of consecutive vertices in the same ``spacing``-pixel
    square, and both ends (consecutive samples of a slow trajectory pile up on one pixel; the line looks
    the same without them)."""
    if len(xy) < 3:
        return xy
    cell = np.floor(xy / spacing)
    moved = np.any(cell[1:] != cell[:-1], axis=1)
    kept: np.ndarray = xy[np.concatenate([[True], moved[:-1], [True]])]
    return kept


def _draw_legend(image: PILImage.Image, ax: RasterAxes, below: float) -> None:
    """The legend: a white box with a light grey edge, each entry's handle and label, in columns."""
    from PIL import Image, ImageDraw

    assert ax.legend is not None
    entries, loc, ncol, size = ax.legend
    em = ax.px(size)
    font = _font(em)
    width, height = ax.legend_size()
    left, top, right, bottom = ax.box
    if loc == "below":
        x0, y0 = (left + right) / 2 - width / 2, below
    else:  # upper right, inside the axes
        x0, y0 = right - 0.5 * em - width, top + 0.5 * em
    draw = ImageDraw.Draw(image)
    draw.rounded_rectangle((x0, y0, x0 + width, y0 + height), radius=0.2 * em, fill="white", outline=rgb("0.8"), width=1)
    rows = math.ceil(len(entries) / ncol)
    x = x0 + 0.4 * em
    for c in range(ncol):
        column = entries[c * rows : (c + 1) * rows]
        for r, entry in enumerate(column):
            middle = y0 + 0.3 * em + (r + 0.5) * 1.3 * em
            handle = (round(x), round(middle - 0.35 * em), round(x + 2 * em), round(middle + 0.35 * em))
            if entry.kind == "patch":
                swatch = Image.new("RGB", (handle[2] - handle[0], handle[3] - handle[1]), rgb(entry.color))
                base = image.crop(handle)
                image.paste(Image.blend(base, swatch, entry.alpha), handle[:2])
                edge = min(1.0, 2 * entry.alpha)  # the face's colour, a little stronger: matplotlib's translucent edge
                draw.rectangle(handle, outline=tuple(round(255 + edge * (c - 255)) for c in rgb(entry.color)), width=1)
            else:
                sample = RasterAxes((0.0, 1.0), (0.0, 1.0), ax.dpi)
                sample.box = (x, middle - 0.5 * em, x + 2 * em, middle + 0.5 * em)
                if entry.kind == "line":
                    sample.line([0.0, 1.0], [0.5, 0.5], entry.color, entry.width_pt)
                else:
                    sample.marker([0.5], [0.5], entry.color, entry.marker, entry.size_pt)
                _paint_strokes(image, sample, _int_box(sample), sample.ops[0])
            draw.text((x + 2.8 * em, middle), entry.label, font=font, fill=(0, 0, 0), anchor="lm")
        x += max((font.getlength(e.label) for e in column), default=0.0) + 2.8 * em + 2 * em
