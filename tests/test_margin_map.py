"""Margin maps equal the single-point margins; the map CLI writes strict JSON, CSV and the boundary."""

import csv
import json

import numpy as np
import pytest

from rcpstab.cli import main
from rcpstab.linear.marginmap import FIELDS, margin_map
from rcpstab.linear.margins import margins
from rcpstab.models import get_model


@pytest.mark.parametrize("name", ["rcp", "rcpac"])
def test_margin_map_equals_margins_at_sampled_points(name):
    model = get_model(name)
    alphas, betas = np.linspace(0.05, 1.8, 9), np.linspace(0.03, 0.9, 7)
    region = margin_map(model, alphas, betas)
    rng = np.random.default_rng(3)
    for j, i in zip(rng.integers(0, betas.size, 12), rng.integers(0, alphas.size, 12)):
        m = margins(model, alphas[i], betas[j])
        got = {k: region.layers[k][j, i] for k in FIELDS}
        assert region.stable[j, i] == m.stable
        for key in ("gain_margin", "phase_margin_deg", "delay_margin"):
            want = getattr(m, key)
            if want is None:
                assert np.isnan(got[key]), (key, got[key])
            else:
                assert got[key] == pytest.approx(want, rel=1e-9, abs=1e-12), key
        assert got["rightmost_real"] == pytest.approx(m.rightmost_root[0], abs=1e-12)
        assert got["rightmost_imag"] == pytest.approx(m.rightmost_root[1], abs=1e-12)


def test_map_margins_cli_csv_json_and_figure(tmp_path, capsys):
    out_csv, png = tmp_path / "m.csv", tmp_path / "m.png"
    code = main(
        [
            "map",
            "--method",
            "margins",
            "--alpha",
            "0.2:1.6:0.2",
            "--beta",
            "0.1:0.6:0.1",
            "--csv",
            str(out_csv),
            "--out",
            str(png),
            "--json",
        ]
    )
    out, err = capsys.readouterr()
    assert code == 0, err
    payload = json.loads(out, parse_constant=lambda c: pytest.fail(f"non-strict JSON {c}"))
    rows = list(csv.DictReader(open(out_csv)))
    assert set(FIELDS) <= set(rows[0])
    assert np.array(payload["gain_margin"]).shape == (6, 8)
    row = next(r for r in rows if float(r["alpha"]) == 0.4 and float(r["beta"]) == 0.2)
    m = margins(get_model("rcp"), 0.4, 0.2)
    assert float(row["gain_margin"]) == pytest.approx(m.gain_margin, rel=1e-9)
    unstable = [r for r in rows if r["stable"] == "0"]
    assert unstable and all(r["gain_margin"] == "" or float(r["gain_margin"]) < 1 for r in unstable)
    assert png.read_bytes()[:4] == b"\x89PNG"


def test_boundary_csv_is_the_exact_curve(tmp_path, capsys):
    path = tmp_path / "b.csv"
    assert main(["map", "--alpha", "0.1:2:0.1", "--beta", "0.1:1:0.1", "--boundary", str(path), "--quiet"]) == 0
    assert capsys.readouterr().out == ""
    rows = list(csv.DictReader(open(path)))
    w = np.array([float(r["w_d0"]) for r in rows])
    a = np.array([float(r["alpha"]) for r in rows])
    b = np.array([float(r["beta"]) for r in rows])
    np.testing.assert_allclose(a, w * np.sin(w), atol=1e-13)
    np.testing.assert_allclose(b, w**2 * np.cos(w), atol=1e-13)
    assert b.max() == pytest.approx(0.549774, abs=1e-6)


def test_boundary_is_rejected_for_other_methods(capsys):
    assert main(["map", "--method", "bode", "--boundary", "x.csv"]) == 2
    assert "boundary" in capsys.readouterr().err
