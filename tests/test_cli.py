"""The command-line contract of DESIGN.md for map, margins and linearize, and bad input."""

import csv
import json
import subprocess
import sys

import numpy as np
import pytest
from conftest import run_cli

from rcpstab.cli import main


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_map_exact_writes_csv_figure_and_json(tmp_path, capsys):
    csv_path, png = tmp_path / "m.csv", tmp_path / "m.png"
    code, out, err = run(
        capsys,
        "map",
        "--method",
        "exact",
        "--alpha",
        "0.1:2.0:0.1",
        "--beta",
        "0.1:1:0.1",
        "--csv",
        str(csv_path),
        "--out",
        str(png),
        "--json",
    )
    assert code == 0, err
    rows = list(csv.DictReader(open(csv_path)))
    assert len(rows) == 200
    assert set(rows[0]) >= {"alpha", "beta", "stable"}
    verdict = {(float(r["alpha"]), float(r["beta"])): r["stable"] for r in rows}
    assert verdict[(0.6, 0.2)] == "1" and verdict[(0.6, 0.8)] == "0" and verdict[(1.6, 0.1)] == "0"
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    payload = json.loads(out)
    assert np.array(payload["stable"]).shape == (10, 20)
    assert payload["stable_fraction"] == pytest.approx(sum(r["stable"] == "1" for r in rows) / 200)


def test_map_stop_is_inclusive_and_default_plane_is_fig_5_2(tmp_path, capsys):
    code, out, _ = run(capsys, "map", "--json")
    payload = json.loads(out)
    assert payload["alpha"][0] == pytest.approx(0.02) and payload["alpha"][-1] == pytest.approx(2.0)
    assert len(payload["beta"]) == 100 and payload["beta"][-1] == pytest.approx(1.0)


@pytest.mark.parametrize("method", ["bode", "nyquist"])
def test_map_other_linear_methods_agree_with_exact_on_a_coarse_grid(capsys, method):
    grid = ("--alpha", "0.05:2:0.05", "--beta", "0.05:1:0.05", "--json")
    exact = json.loads(run(capsys, "map", "--method", "exact", *grid)[1])
    other = json.loads(run(capsys, "map", "--method", method, *grid)[1])
    assert other["stable"] == exact["stable"]


def test_margins_json_keys(capsys):
    code, out, _ = run(capsys, "margins", "--alpha", "0.4", "--beta", "0.2", "--json")
    m = json.loads(out)
    assert code == 0
    assert {"stable", "gain_margin", "phase_margin_deg", "crossover_w", "rightmost_root", "delay_margin"} <= set(m)
    assert m["stable"] is True and m["rightmost_root"][0] == pytest.approx(-0.1091744, abs=1e-6)


def test_linearize_prints_G_and_cancellation(capsys):
    code, out, _ = run(capsys, "linearize", "--model", "rcp")
    assert code == 0
    assert "G(s) = (alpha*d_0*s + beta)*exp(-d_0*s)/(d_0**2*s**2)" in out
    assert "parameters left after normalization: alpha, beta" in out
    code, out, _ = run(capsys, "linearize", "--latex")
    assert r"\begin{aligned}" in out and r"e^{- d_{0} s}" in out


BAD = [
    (["map", "--alpha", "2:0.1:0.1"], "reversed"),
    (["map", "--alpha", "0.1:2:0"], "step"),
    (["map", "--beta", "nan"], "finite"),
    (["map", "--alpha", "-1:1:0.1"], "alpha"),
    (["map", "--beta", "abc"], "not a number"),
    (["map", "--model", "tcp"], "unknown model"),
    (["map", "--method", "magic"], "invalid choice"),
    (["map", "--csv", "/nonexistent/dir/x.csv"], "does not exist"),
    (["map", "--out", "/proc/x.png"], "not writable"),
    (["map", "--out", "figure.gif"], ".png"),
    (["map", "--method", "exact", "--pade", "2"], "pade"),
    (["map", "--method", "nyquist", "--pade", "0"], "pade"),
    (["map", "--method", "exact", "--C", "1e6"], "not used by --method exact"),
    (["map", "--method", "packet", "--d0", "0.1"], "not used by --method packet"),
    (["margins", "--alpha", "0", "--beta", "0.2"], "alpha"),
    (["margins", "--alpha", "0.4"], "required"),
]


# In a real process (exit code, one line, no traceback as a shell sees them): an argparse refusal, a value
# refused by the table, and an unknown model (a lookup after the parse). The rest through the same main()
# in this process, ~0.4-1 s of start-up saved each.
IN_A_PROCESS = {"invalid choice", "finite", "unknown model"}


@pytest.mark.parametrize("argv,needle", BAD)
def test_bad_input_exits_2_with_one_line(argv, needle, capsys):
    if needle in IN_A_PROCESS:
        proc = subprocess.run([sys.executable, "-m", "rcpstab", *argv], capture_output=True, text=True, timeout=120)
        code, err = proc.returncode, proc.stderr
    else:
        code, _, err = run_cli(capsys, *argv)
    assert code == 2
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert needle in lines[0]
    assert "Traceback" not in err


def test_console_script_is_installed():
    proc = subprocess.run(["rcpstab", "--version"], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0 and proc.stdout.startswith("rcpstab ")
