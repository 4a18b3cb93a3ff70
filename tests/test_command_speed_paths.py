"""The shortcuts that make commands cost their work give the results the long ways give."""

import csv
import subprocess
import sys
from pathlib import Path

import matplotlib
import numpy as np
import pytest
from conftest import subprocess_env
from matplotlib.backends.backend_agg import FigureCanvasAgg

from rcpstab.api.trajectories import portrait
from rcpstab.figures import new_figure, save
from rcpstab.phaseplane.plotting import _segment_points
from rcpstab.runtime.csvtable import cell

TESTS = Path(__file__).resolve().parent


def _figure():
    # a constrained layout, an image resampled at the saved size, mathtext, a legend: what savefig drew twice
    fig = new_figure()
    ax = fig.subplots()
    data = np.where(np.add.outer(np.arange(120), np.arange(90)) % 7 < 3, 1.0, np.nan)
    ax.imshow(data, origin="lower", aspect="auto", alpha=0.45, interpolation="nearest")
    ax.plot([0, 80], [0, 110], "k", label="line")
    ax.set_xlabel(r"$\alpha$ (rate gain)")
    ax.set_title("a title\nof two lines", fontsize="small")
    ax.legend(loc="upper right")
    return fig


def _pixels(path):
    return matplotlib.image.imread(path)


def test_a_png_drawn_once_has_the_pixels_savefig_draws(tmp_path):
    save(_figure(), tmp_path / "once.png")
    fig = _figure()
    fig.savefig(tmp_path / "savefig.png", dpi=150)  # layout pass + render pass
    once, reference = _pixels(tmp_path / "once.png"), _pixels(tmp_path / "savefig.png")
    assert once.shape == reference.shape == (720, 960, 4)
    assert np.array_equal(once, reference)


def test_save_leaves_the_figure_as_it_found_it(tmp_path):
    fig = _figure()
    canvas, dpi = fig.canvas, fig.dpi
    save(fig, tmp_path / "x.png")
    assert fig.canvas is canvas and fig.dpi == dpi and not isinstance(canvas, FigureCanvasAgg)


def test_a_tight_bounding_box_asked_in_rc_still_goes_through_savefig(tmp_path):
    with matplotlib.rc_context({"savefig.bbox": "tight"}):
        save(_figure(), tmp_path / "tight.png")
        _figure().savefig(tmp_path / "savefig.png", dpi=150)
    tight = _pixels(tmp_path / "tight.png")
    assert tight.shape != (720, 960, 4)  # cropped: the rc setting was honoured
    assert np.array_equal(tight, _pixels(tmp_path / "savefig.png"))


def test_the_vectorised_segments_are_linspace_to_the_bit():
    rng = np.random.default_rng(7)
    for trial in range(100):
        m = int(rng.integers(2, 40))
        xy = rng.normal(size=(m, 2)) * rng.choice([1e-3, 1.0, 50.0])
        if trial % 3 == 0:  # zero steps in one component: linspace's other branch
            xy[1::3, 0] = xy[0, 0]
        steps = rng.integers(1, 30, size=m - 1)
        expected = np.concatenate([np.linspace(a, b, n, endpoint=False) for a, b, n in zip(xy[:-1], xy[1:], steps)])
        assert np.array_equal(_segment_points(xy, steps), expected), trial


def test_a_results_csv_is_the_file_csv_writer_writes(tmp_path):
    result = portrait("rcp", 1.4, 0.8, rtts=5)
    result.to_csv(tmp_path / "columnar.csv")
    columns = result.columns()
    with open(tmp_path / "writer.csv", "w", newline="") as fh:  # the former Result.to_csv, cell by cell
        writer = csv.writer(fh)
        writer.writerow(list(columns))
        for row in zip(*columns.values()):
            writer.writerow([cell(v) for v in row])
    assert (tmp_path / "columnar.csv").read_bytes() == (tmp_path / "writer.csv").read_bytes()


def test_the_command_lines_figure_import_keeps_matplotlib_whole():
    code = """
import matplotlib.artist as artist
kwdoc = artist.kwdoc
from rcpstab.cli import import_figure_without_property_tables
import_figure_without_property_tables()
import inspect
from matplotlib.lines import Line2D
assert artist.kwdoc is kwdoc                                       # put back at once
assert "linewidth" in inspect.signature(Line2D.set).parameters     # set() still takes every property
assert "Properties:" in artist.kwdoc(Line2D)                        # and the docs work for whoever asks
print("ok")
"""
    env = subprocess_env(MPLBACKEND="agg")
    out = subprocess.run([sys.executable, "-c", code], env=env, cwd=TESTS, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "ok"


# modules imported in place of matplotlib.figure, each standing for a matplotlib the stand-in must survive;
# each appends a line to RUNS when it runs, so the test sees whether it was imported again
FAKE_MATPLOTLIBS = {
    # a later matplotlib calling kwdoc with more arguments: the stand-in takes them
    "signature": "TEXT = artist.kwdoc(Line2D, 'an argument matplotlib may add', flag=True)",
    # a matplotlib that needs the table's text: imported again with the original kwdoc
    "needs_table": "TABLE = artist.kwdoc(Line2D)\nif 'Properties:' not in TABLE:\n    raise ValueError('no table')",
    "broken": "raise RuntimeError('broken matplotlib')",
    "interrupted": "raise KeyboardInterrupt",
}


@pytest.mark.parametrize("kind", sorted(FAKE_MATPLOTLIBS))
def test_the_figure_import_survives_any_kwdoc_use_and_always_restores_it(tmp_path, monkeypatch, kind):
    import matplotlib.artist as artist
    from matplotlib.lines import Line2D

    from rcpstab.cli import import_figure_without_property_tables

    runs = tmp_path / "runs"
    name = f"rcpstab_fake_matplotlib_{kind}"
    header = f"import matplotlib.artist as artist\nfrom matplotlib.lines import Line2D\nopen({str(runs)!r}, 'a').write('x')\n"
    (tmp_path / f"{name}.py").write_text(header + FAKE_MATPLOTLIBS[kind] + "\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    kwdoc = artist.kwdoc
    try:
        if kind == "broken":
            with pytest.raises(RuntimeError, match="broken matplotlib"):
                import_figure_without_property_tables(name)
        elif kind == "interrupted":
            with pytest.raises(KeyboardInterrupt):
                import_figure_without_property_tables(name)
        else:
            import_figure_without_property_tables(name)
        assert artist.kwdoc is kwdoc
        assert "Properties:" in artist.kwdoc(Line2D)
        # tried with the stand-in, then (failing with it) once with the original; never after an interrupt
        assert runs.read_text() == {"signature": "x", "needs_table": "xx", "broken": "xx", "interrupted": "x"}[kind]
        if kind == "signature":
            assert sys.modules[name].TEXT == ""  # the stand-in answered
        if kind == "needs_table":
            assert "Properties:" in sys.modules[name].TABLE
    finally:
        artist.kwdoc = kwdoc
        sys.modules.pop(name, None)
