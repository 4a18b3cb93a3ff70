"""The command line's Pillow PNGs (``map``, ``portrait``): every cell, tick and trajectory where its data says.

The figures are read back as pixels and checked against the CSV the same command wrote, through a
transform the test builds itself: the axes frame found in the image (its black edges) and the data
limits matplotlib would show (the grid's cells for a map, the data range with 5% margins for a portrait).
"""

import csv
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from conftest import subprocess_env
from matplotlib.ticker import MaxNLocator
from PIL import Image

from rcpstab.figures_raster import TAB10, nice_ticks, rgb, tick_labels
from rcpstab.linear.exact import boundary_points
from rcpstab.models import get_model

TESTS = Path(__file__).resolve().parent
WHITE = np.array([255.0, 255.0, 255.0])
STABLE = 0.45 * np.array(rgb("tab:blue"), float) + 0.55 * WHITE  # tab:blue at opacity 0.45 over white


def _pixels(path):
    return np.asarray(Image.open(path).convert("RGB"), dtype=float)


def _runs(mask):
    """Length of the longest run of True in each row of ``mask``."""
    edges = np.diff(np.pad(mask.astype(np.int8), ((0, 0), (1, 1))), axis=1)
    rows, starts = np.nonzero(edges == 1)  # row-major: each row's starts and ends pair up in order
    _, ends = np.nonzero(edges == -1)
    best = np.zeros(mask.shape[0], int)
    np.maximum.at(best, rows, ends - starts)
    return best


def _nearest(points, to):
    """Distance from each of ``points`` (n, 2) to the nearest of ``to`` (m, 2), in pixels."""
    from scipy.spatial import cKDTree

    return cKDTree(to).query(points)[0]


def _frame(image):
    """(left, top, right, bottom) of the axes frame: the outermost rows and columns that are black for most
    of the figure's width or height, taken at their inner edge (the data area's pixel boundaries)."""
    black = np.all(image < 40, axis=2)
    rows = np.flatnonzero(_runs(black) > 0.5 * image.shape[1])
    cols = np.flatnonzero(_runs(black.T) > 0.4 * image.shape[0])
    return cols.min() + 1, rows.min() + 1, cols.max(), rows.max()


def _read_csv(path):
    with open(path, newline="") as fh:
        rows = list(csv.DictReader(fh))
    return {k: np.array([r[k] for r in rows]) for k in rows[0]}


def _tick_columns(image, frame):
    """Pixel columns of the x tick marks: black just below the frame's bottom edge."""
    left, _, right, bottom = frame
    band = np.all(image[bottom + 3 : bottom + 6, left - 2 : right + 2] < 60, axis=2).all(axis=0)
    cols = np.flatnonzero(band) + left - 2
    groups = np.split(cols, np.flatnonzero(np.diff(cols) > 1) + 1)
    return np.array([g.mean() for g in groups if g.size])


@pytest.fixture(scope="module")
def map_files(tmp_path_factory):
    from rcpstab.cli import main

    folder = tmp_path_factory.mktemp("map")
    code = main(
        [
            "map",
            "--method",
            "exact",
            "--alpha",
            "0.02:2:0.02",
            "--beta",
            "0.01:1:0.01",
            "--out",
            str(folder / "m.png"),
            "--csv",
            str(folder / "m.csv"),
            "-q",
        ]
    )
    assert code == 0
    return _pixels(folder / "m.png"), _read_csv(folder / "m.csv")


def test_every_map_cell_has_the_colour_of_its_verdict_in_the_csv(map_files):
    image, table = map_files
    assert image.shape == (720, 960, 3)  # 6.4 x 4.8 in at 150 dpi, as the matplotlib figure
    left, top, right, bottom = _frame(image)
    alpha, beta = table["alpha"].astype(float), table["beta"].astype(float)
    stable = table["stable"].astype(int) == 1
    # the data area spans the grid's cells: half a step beyond the first and last points (0.02 and 0.01 steps)
    x0, x1, y0, y1 = 0.01, 2.01, 0.005, 1.005
    px = left + (alpha - x0) / (x1 - x0) * (right - left)
    py = bottom - (beta - y0) / (y1 - y0) * (bottom - top)
    # away from the boundary's black line (1.5 pt wide, antialiased), where a cell's centre may be under it
    a, b = boundary_points(get_model("rcp"), x1, y1)
    bx, by = left + (a - x0) / (x1 - x0) * (right - left), bottom - (b - y0) / (y1 - y0) * (bottom - top)
    near = _nearest(np.column_stack([px, py]), np.column_stack([bx, by])) < 5
    # and off the legend: its box's light grey edge, in the upper right
    grey = np.all(np.abs(image - 204) < 3, axis=2)
    grey[: top + 1], grey[bottom:], grey[:, :left] = False, False, False
    gy, gx = np.nonzero(grey)
    legend = (px >= gx.min() - 1) & (px <= gx.max() + 1) & (py >= gy.min() - 1) & (py <= gy.max() + 1)
    checked = ~near & ~legend
    assert checked.sum() > 0.9 * alpha.size and stable[checked].sum() > 2000  # nearly every cell, many stable ones
    colours = image[np.floor(py).astype(int), np.floor(px).astype(int)]
    expected = np.where(stable[:, None], STABLE, WHITE)
    wrong = np.flatnonzero(checked & (np.abs(colours - expected).max(axis=1) > 2))
    assert wrong.size == 0, [(alpha[k], beta[k], stable[k], colours[k].tolist()) for k in wrong[:5]]


def test_map_ticks_sit_at_their_values_with_their_labels_under_them(map_files):
    image, _ = map_files
    left, top, right, bottom = _frame(image)
    x0, x1 = 0.01, 2.01
    values = np.arange(1, 9) * 0.25  # matplotlib's own ticks for this range: 0.25 ... 2.00 (as its figure shows)
    expected = left + (values - x0) / (x1 - x0) * (right - left)
    found = _tick_columns(image, (left, top, right, bottom))
    assert found.size == values.size
    assert np.max(np.abs(found + 0.5 - expected)) <= 1.0  # the tick's pixel column holds its value
    # each label's ink is centred under its tick
    band = np.all(image[bottom + 10 : bottom + 32] < 128, axis=2).any(axis=0)
    cols = np.flatnonzero(band)
    groups = [g for g in np.split(cols, np.flatnonzero(np.diff(cols) > 15) + 1) if g.size]  # gaps between glyphs are narrower
    centres = np.array([(g.min() + g.max() + 1) / 2 for g in groups])
    assert centres.size == values.size
    assert np.max(np.abs(centres - expected)) < 2.0


def test_nice_ticks_are_matplotlibs_default_ticks():
    rng = np.random.default_rng(3)
    for _ in range(300):
        lo = float(rng.uniform(-5, 5) * 10.0 ** rng.integers(-3, 4))
        hi = lo + float(rng.uniform(0.01, 10) * 10.0 ** rng.integers(-3, 4))
        bins = int(rng.integers(1, 10))
        reference = MaxNLocator(nbins=bins, steps=[1, 2, 2.5, 5, 10]).tick_values(lo, hi)
        reference = reference[(reference >= lo - 1e-9 * (hi - lo)) & (reference <= hi + 1e-9 * (hi - lo))]
        np.testing.assert_allclose(
            nice_ticks(lo, hi, bins), reference, rtol=0, atol=1e-9 * (hi - lo), err_msg=f"{lo} {hi} {bins}"
        )


def test_tick_labels_show_each_value_at_one_precision():
    assert tick_labels(np.array([0.0, 0.1, 0.2])) == ["0.0", "0.1", "0.2"]
    assert tick_labels(np.array([-50.0, 0.0, 50.0])) == ["\u221250", "0", "50"]
    assert tick_labels(np.arange(1, 5) * 0.25) == ["0.25", "0.50", "0.75", "1.00"]


@pytest.fixture(scope="module")
def portrait_files(tmp_path_factory):
    from rcpstab.cli import main

    folder = tmp_path_factory.mktemp("portrait")
    code = main(
        [
            "portrait",
            "--alpha",
            "0.4",
            "--beta",
            "0.2",
            "--rtts",
            "30",
            "--out",
            str(folder / "p.png"),
            "--csv",
            str(folder / "p.csv"),
            "-q",
        ]
    )
    assert code == 0
    return _pixels(folder / "p.png"), _read_csv(folder / "p.csv")


def test_portrait_trajectories_are_drawn_where_their_csv_points_map(portrait_files):
    image, table = portrait_files
    left, top, right, bottom = _frame(image)
    ic = table["ic"].astype(int)
    x, y = table["R_over_C"].astype(float), table["queue_bits"].astype(float) / 1e6
    (x0, x1), (y0, y1) = ((v.min() - 0.05 * np.ptp(v), v.max() + 0.05 * np.ptp(v)) for v in (x, y))  # 5% margins
    px = left + (x - x0) / (x1 - x0) * (right - left)
    py = bottom - (y - y0) / (y1 - y0) * (bottom - top)
    # densify every trajectory to half-pixel steps, to measure distances to its drawn line
    dense = {}
    for k in np.unique(ic):
        xs, ys = px[ic == k], py[ic == k]
        steps = np.maximum(1, np.ceil(np.hypot(np.diff(xs), np.diff(ys)) * 2)).astype(int)
        t = np.concatenate([np.arange(n) / n for n in steps])
        seg = np.repeat(np.arange(steps.size), steps)
        dense[k] = np.column_stack([xs[seg] + t * np.diff(xs)[seg], ys[seg] + t * np.diff(ys)[seg]])
    inside = (np.arange(image.shape[1])[None, :] > left + 2) & (np.arange(image.shape[1])[None, :] < right - 2)
    inside = inside & (np.arange(image.shape[0])[:, None] > top + 2) & (np.arange(image.shape[0])[:, None] < bottom - 2)
    hit = 0
    for k, points in dense.items():
        colour = np.array(rgb(TAB10[k]), float)
        # every pixel drawn in this start's colour lies on its CSV path (lines 0.9 pt and start markers 4 pt)
        mine = inside & (np.abs(image - colour).max(axis=2) < 12)
        ys_, xs_ = np.nonzero(mine)
        if xs_.size:
            d = _nearest(np.column_stack([xs_ + 0.5, ys_ + 0.5]), points)
            assert d.max() < 5.0, (k, d.max())
        # and where no other start's path comes near, its path is drawn in its colour
        others = np.concatenate([p for j, p in dense.items() if j != k])
        sample = points[:: max(1, len(points) // 300)]
        sample = sample[
            (sample[:, 0] > left + 3) & (sample[:, 0] < right - 3) & (sample[:, 1] > top + 3) & (sample[:, 1] < bottom - 3)
        ]
        alone = _nearest(sample, others) > 6
        for sx, sy in sample[alone]:
            patch = image[int(sy) - 1 : int(sy) + 2, int(sx) - 1 : int(sx) + 2]
            assert np.abs(patch - colour).max(axis=2).min() < 60, (k, sx, sy)
            hit += 1
    assert hit > 100


def test_the_command_lines_png_imports_no_matplotlib_figure(tmp_path):
    code = f"""
import sys
from rcpstab.cli import main
assert main(["map", "--alpha", "0.1:1:0.1", "--beta", "0.1:1:0.1", "--out", {str(tmp_path / "m.png")!r}, "-q"]) == 0
assert main(["portrait", "--alpha", "0.4", "--beta", "0.2", "--rtts", "5", "--out", {str(tmp_path / "p.png")!r}, "-q"]) == 0
print(sorted(m for m in ("matplotlib.figure", "matplotlib.pyplot", "matplotlib.backends.backend_agg") if m in sys.modules))
"""
    env = subprocess_env(MPLBACKEND="agg")
    out = subprocess.run([sys.executable, "-c", code], env=env, cwd=TESTS, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
    assert Image.open(tmp_path / "m.png").size == Image.open(tmp_path / "p.png").size == (960, 720)


def test_svg_still_goes_through_matplotlib(tmp_path):
    from rcpstab.cli import main

    assert main(["map", "--alpha", "0.2:1:0.2", "--beta", "0.2:1:0.2", "--out", str(tmp_path / "m.svg"), "-q"]) == 0
    text = (tmp_path / "m.svg").read_text()
    assert "<svg" in text and "matplotlib" in text.lower()


@pytest.mark.parametrize(("alpha", "beta", "stable"), [("0.5", "0.2", True), ("1.9", "0.9", False)])
def test_a_view_inside_or_outside_the_region_is_shaded_by_its_verdict(tmp_path, alpha, beta, stable):
    # a one-point map: the exact boundary leaves the view through its top, the clip must still hold the cell
    from rcpstab.cli import main

    assert (
        main(["map", "--alpha", alpha, "--beta", beta, "--out", str(tmp_path / "m.png"), "--csv", str(tmp_path / "m.csv"), "-q"])
        == 0
    )
    assert (_read_csv(tmp_path / "m.csv")["stable"] == "1").all() == stable
    image = _pixels(tmp_path / "m.png")
    left, top, right, bottom = _frame(image)
    corner = image[top + 5, (left + right) // 2]  # below the title, left of the legend: the cell itself
    assert np.abs(corner - (STABLE if stable else WHITE)).max() <= 2
