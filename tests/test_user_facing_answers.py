"""What the user reads is what was computed (issue 23): captions, summaries, figures, errors, docs."""

import json
import subprocess
import sys

import numpy as np
import pytest

from rcpstab.cli import main
from rcpstab.errors import InputError
from rcpstab.figures import buffer_summary, network_caption


def test_caption_names_the_models_buffer_in_bits():
    """The lenses carry ``buffer`` in bits; the caption used to look for ``buffer_bdp`` only and said none."""
    c, d0 = 150e6, 0.2
    assert "buffer = 1 C·d0" in network_caption({"C": c, "d0": d0, "N": 10, "buffer": 1.0 * c * d0})
    assert "buffer: none" in network_caption({"C": c, "d0": d0, "N": 10, "buffer": np.inf})
    assert "buffer: none" in network_caption({"C": c, "d0": d0, "N": 10})


def test_portrait_summary_names_the_buffer_and_what_it_dropped(capsys):
    from rcpstab.api import simulate

    assert main(["portrait", "--alpha", "1.4", "--beta", "0.8", "--buffer", "1"]) == 0
    out = capsys.readouterr().out
    assert "buffer 1 C·d0, dropped 0-" in out
    # the dropped figure is the model's own account of the overflow: App. E's start with a 2 C*d0 queue
    # held to 1 C*d0 and R/C = 0.5 (5x the equilibrium) overflows; compare with the same run through the API
    traj = simulate("rcp", 1.4, 0.8, rtts=100, gamma0=[0.5], q0=[0.0])
    assert buffer_summary(traj) == ""  # no buffer given: nothing to say
    high = float(out.split("dropped 0-")[1].split(" ")[0])
    assert high > 1.0  # 5x overload for about an RTT drops several C*d0


def test_region_summary_names_the_buffer(capsys):
    assert main(["map", "--method", "phaseplane", "--alpha", "0.4:0.4:0.1", "--beta", "0.2:0.2:0.1", "--buffer", "1"]) == 0
    assert "buffer 1 C*d0 (the overflow dropped)" in capsys.readouterr().out


def test_resumed_sweep_says_it_resumed(tmp_path, capsys):
    args = [
        "map",
        "--method",
        "phaseplane",
        "--alpha",
        "0.4:0.5:0.1",
        "--beta",
        "0.2:0.2:0.1",
        "--checkpoint",
        str(tmp_path / "ck.jsonl"),
    ]
    assert main(args) == 0
    assert "resumed" not in capsys.readouterr().out
    assert main(args) == 0
    assert "resumed: 1 of 1 chunks read from the checkpoint, 0 computed" in capsys.readouterr().out


def test_inset_goes_where_nothing_is_drawn():
    from rcpstab.figures import new_figure
    from rcpstab.phaseplane.plotting import inset_place

    ax = new_figure().subplots()
    x = np.linspace(0, 1, 200)
    ax.plot(x, x)  # the diagonal
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1)
    box = inset_place(ax, [(x, x)], avoid=[(0.5, 0.0, 1.0, 0.5)])  # and the lower right taken
    x0, y0, w, h = box
    assert x0 + w <= 0.5 + 1e-9 or y0 >= x0 + w  # left of the legend, above the diagonal
    corners = [(x0, y0), (x0 + w, y0), (x0, y0 + h), (x0 + w, y0 + h)]
    assert all(cy > cx for cx, cy in corners)  # the whole box above the line y = x


def test_margin_map_fill_ends_on_the_exact_boundary():
    """Each margin reaches its lowest level on the boundary; the panels' lowest contour must lie on it
    (it stopped at the last stable cell, up to one grid step below)."""
    import contourpy

    from rcpstab.linear.exact import boundary_points
    from rcpstab.linear.marginmap import margin_map
    from rcpstab.linear.marginmap_plot import PANELS, _layer
    from rcpstab.models import get_model

    alphas, betas = np.arange(0.05, 2.0001, 0.05), np.arange(0.025, 1.0001, 0.025)
    region = margin_map(get_model("rcp"), alphas, betas)
    a, b = boundary_points(get_model("rcp"), 2.0, 1.0)
    curve = np.column_stack([a, b])[np.isfinite(a)]
    for name, _, levels in PANELS:
        if name == "gain_margin":
            continue  # its lowest level is reached on the right boundary only (see _layer)
        z = np.minimum(_layer(region, name, levels), 1e6)
        lines = contourpy.contour_generator(alphas, betas, z).lines(levels[0])
        vertices = np.concatenate(lines)
        inside = (vertices[:, 1] > betas[0] + 1e-9) & (vertices[:, 0] < alphas[-1] - 1e-9)
        distance = np.min(np.hypot(*(vertices[inside, None, :] - curve[None, :, :]).transpose(2, 0, 1)), axis=1)
        assert distance.max() < 0.012, name  # a quarter of the grid step: interpolation, not a staircase


def test_certified_cells_do_not_cross_the_exact_boundary():
    """A certified point is inside the exact region; its cell, centred on it, used to be drawn across the
    boundary. Pixel check at the corner of the stable cell of (1.5, 0.1) that lies outside the region."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    from rcpstab.figures import new_figure
    from rcpstab.linear.exact import boundary_points, exact_region
    from rcpstab.linear.region_plot import region_plot
    from rcpstab.linear.result import RegionMap
    from rcpstab.models import get_model

    rcp = get_model("rcp")
    exact = exact_region(rcp, np.round(np.arange(0.1, 1.61, 0.1), 6), np.round(np.arange(0.05, 0.56, 0.05), 6))
    assert exact.stable[1, 14]  # (alpha, beta) = (1.5, 0.1)
    a, b = boundary_points(rcp, 1.65, 0.6)
    right = np.isfinite(a) & (a > 1.2)
    probe = (1.545, 0.12)  # inside (1.5, 0.1)'s cell ...
    assert probe[1] > np.interp(probe[0], a[right], b[right])  # ... and outside the region
    for method, crossed in (("certified", False),):
        region = RegionMap(model=exact.model, method=method, alpha=exact.alpha, beta=exact.beta, stable=exact.stable, meta={})
        fig = new_figure()
        canvas = FigureCanvasAgg(fig)
        ax = fig.subplots()
        region_plot(region, ax=ax)
        canvas.draw()
        rgba = np.asarray(canvas.buffer_rgba())
        px, py = ax.transData.transform(probe)
        r, g, bl, _ = rgba[int(round(rgba.shape[0] - py)), int(round(px))]
        assert ((r, g, bl) != (255, 255, 255)) == crossed


def test_did_you_mean_for_models_and_scenarios():
    from rcpstab.models import get_model
    from rcpstab.packet.simulator.scenarios import get_scenario

    with pytest.raises(InputError, match="did you mean 'rcp-router'"):
        get_model("rcp-routr")
    with pytest.raises(InputError, match=r"did you mean 'fig5\.7'.*fig5\.7"):
        get_scenario("fig57", also=("fig5.7",))


def test_cosim_unknown_scenario_lists_fig57(capsys):
    assert main(["cosim", "--alpha", "0.4", "--beta", "0.2", "--scenario", "nope"]) == 2
    assert "fig5.7" in capsys.readouterr().err


def test_boundary_file_named_in_summary(tmp_path, capsys):
    path = tmp_path / "b.csv"
    assert main(["map", "--alpha", "0.1:1.6:0.5", "--beta", "0.1:0.5:0.2", "--boundary", str(path)]) == 0
    assert f"boundary curve in {path}" in capsys.readouterr().out and path.exists()


def test_theorem1_prints_its_summary_last(capsys):
    assert main(["theorem1", "--details"]) == 0
    lines = capsys.readouterr().out.strip().splitlines()
    assert lines[-1].startswith("Theorem 1 on model xcp") and len(lines) == 4


def test_fct_check_says_when_it_capped_the_capacity():
    from rcpstab.check import parse_config
    from rcpstab.check.fct import capacity_note, typical_setup

    huge = typical_setup(parse_config({"router": {"ALPHA": 0.4, "BETA": 0.2}, "envelope": {"link_mbps": [10000, 10000]}}))
    assert huge["capacity_bps"] == 2.4e9 and "geometric mean is 1e+04 Mb/s, capped" in capacity_note(huge)
    plain = typical_setup(parse_config({"router": {"ALPHA": 0.4, "BETA": 0.2}, "envelope": {"link_mbps": [100, 100]}}))
    assert capacity_note(plain) == ""


def test_check_example_list_imports_no_engine():
    """Listing 9 names took 1.65 s: the checks (SciPy, SymPy, matplotlib) were imported for it."""
    out = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "rcpstab", "check", "--example"], capture_output=True, text=True, check=True
    )
    assert "thesis_box_a0.6_b0.2" in out.stdout
    imported = {line.split("|")[-1].strip() for line in out.stderr.splitlines() if "|" in line}
    assert not {"rcpstab.check.checks", "scipy", "sympy", "matplotlib"} & imported


def test_notebook_06_margin_table_matches_its_text():
    """Notebook 06's margin table (cell 5) against what its text says about it (cell 6): the lower box corners
    have gain margins of about 2 and phase margins of 10-25 deg, the upper corners and (0.5, 0.5) are linearly
    unstable with negative phase margins; and, by App. C, alpha/beta <= 1 has no gain margin."""
    import contextlib
    import io
    from pathlib import Path

    notebook = json.loads((Path(__file__).parents[1] / "docs/notebooks/06-choosing-defaults.ipynb").read_text())
    cells = ["".join(c["source"]) for c in notebook["cells"]]
    table_code = next(c for c in cells if "gain margin" in c and "for label, (a, b) in points.items()" in c)
    text = next(c for c in cells if "The lower corners of the box have gain margins" in c)
    assert "phase margins of 10-25" in text and "linearly unstable" in text
    import rcpstab
    from rcpstab.linear.margins import margins
    from rcpstab.models import get_model
    from rcpstab.models.xcp import PAPER_POINT

    namespace = {
        "rcpstab": rcpstab,
        "margins": margins,
        "rcp": get_model("rcp"),
        "PAPER_POINT": PAPER_POINT,
        "named": {"XCP (0.4, 0.226)": PAPER_POINT},
    }
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        exec(table_code, namespace)
    rows = {line[:24].strip(): line[24:].split() for line in printed.getvalue().splitlines()[1:]}
    for corner in ("box (0.4, 0.2)", "box (0.6, 0.2)"):
        stable, _, _, gm, pm = rows[corner][:5]
        assert stable == "stable" and 1.5 <= float(gm.rstrip("x")) <= 3.0 and 10 <= float(pm) <= 25.5
    for point in ("box (0.4, 0.6)", "box (0.6, 0.6)", "thesis (0.5, 0.5)"):
        assert rows[point][0] == "UNSTABLE" and float(rows[point][4]) < 0
    assert rows["thesis (0.5, 0.5)"][3] == "none" and rows["box (0.4, 0.6)"][3] == "none"
