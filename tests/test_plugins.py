"""User protocols: a model file given to --model, and an installed package's entry point."""

import json
import pathlib
import subprocess
import sys
import textwrap

import numpy as np
import pytest
import sympy as sp
from conftest import near_rcp_boundary, rcp_inside

from rcpstab.cli import main
from rcpstab.linear.linearization import lam, linearize
from rcpstab.models import get_model

EXAMPLE = str(pathlib.Path(__file__).parent.parent / "examples" / "protocols" / "erpi.py")


def test_protocol_file_loads_once_and_names_itself():
    model = get_model(EXAMPLE)
    assert model.name == "erpi" and get_model(EXAMPLE) is model
    assert get_model(model.reference) is model and model.reference.endswith("erpi.py")
    assert [s.name for s in model.loop_parameters] == ["kappa_r", "kappa_q"]


def test_protocol_linearization_is_the_hand_derivation():
    # Hand derivation (module docstring): lambda**2 + (kappa_r*lambda + kappa_q)*exp(-lambda)
    model = get_model(EXAMPLE)
    kr, kq = model.loop_parameters
    char = linearize(model).normalized_characteristic
    assert sp.simplify(char - (lam**2 + (kr * lam + kq) * sp.exp(-lam))) == 0


def test_protocol_exact_map_is_the_closed_form_bell(capsys):
    # Same characteristic equation as RCP: the region is alpha = w sin w, beta = w^2 cos w (conftest)
    assert main(["map", "--model", EXAMPLE, "--alpha", "0.05:1.6:0.05", "--beta", "0.02:0.6:0.02", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    A, B = np.meshgrid(out["alpha"], out["beta"])
    stable = np.array(out["stable"], dtype=bool)
    far = ~near_rcp_boundary(A, B, 1e-3)
    assert far.sum() > 800 and stable.any() and (~stable).any()
    assert np.array_equal(stable[far], rcp_inside(A, B)[far])


def test_protocol_margins_from_the_command_line(capsys):
    # w = 1 lies on the bell's left branch (alpha = sin 1, beta = cos 1); the right branch at the same
    # beta is at w = 1.1397 (alpha = 1.0347). 10% more gain is inside, 10% less is outside, and on the
    # boundary itself the rightmost root is j*1 (normalized), the crossing of the closed form.
    w, results = 1.0, []
    for factor in (1.1, 0.9, 1.0):
        assert (
            main(
                ["margins", "--model", EXAMPLE, "--alpha", str(factor * w * np.sin(w)), "--beta", str(w**2 * np.cos(w)), "--json"]
            )
            == 0
        )
        results.append(json.loads(capsys.readouterr().out))
    assert results[0]["stable"] is True and results[1]["stable"] is False
    assert abs(results[2]["rightmost_root"][0]) < 1e-8 and abs(results[2]["rightmost_root"][1] - w) < 1e-8


@pytest.mark.parametrize(
    "content, message",
    [
        (None, "no such protocol file"),
        ("x =", "failed to load: SyntaxError"),
        ("import sympy\nMODEL = 3\n", "defines no MODEL"),
    ],
)
def test_bad_protocol_files_exit_2_with_one_line(tmp_path, capsys, content, message):
    path = tmp_path / "proto.py"
    if content is not None:
        path.write_text(content)
    assert main(["linearize", "--model", str(path)]) == 2
    err = capsys.readouterr().err.strip()
    assert message in err and len(err.splitlines()) == 1


@pytest.mark.slow  # builds and installs a distribution's metadata: ~2 s
def test_entry_point_protocol(tmp_path):
    # A real installed distribution (a dist-info folder on sys.path) announcing the example model.
    (tmp_path / "userproto.py").write_text(pathlib.Path(EXAMPLE).read_text())
    info = tmp_path / "userproto-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: userproto\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text("[rcpstab.protocols]\nuserproto = userproto:MODEL\n")
    code = textwrap.dedent(f"""
        import sys; sys.path.insert(0, {str(tmp_path)!r})
        from rcpstab.cli import main
        sys.exit(main(["margins", "--model", "userproto", "--alpha", "0.4", "--beta", "0.2", "--json"]))
    """)
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["stable"] is True
    code_bad = code.replace('"userproto", "--alpha"', '"nosuch", "--alpha"')
    proc = subprocess.run([sys.executable, "-c", code_bad], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2 and "installed plug-ins: userproto" in proc.stderr


def test_protocol_parameter_swept_by_the_phase_plane(tmp_path, capsys):
    # ER-PI has one time constant, tau, and no update interval: in time normalized by tau its
    # dynamics do not depend on tau, so the nonlinear verdicts must be the same at every tau.
    csv = tmp_path / "erpi.csv"
    assert (
        main(
            [
                "map",
                "--method",
                "phaseplane",
                "--model",
                EXAMPLE,
                "--alpha",
                "0.4:1.6:0.4",
                "--beta",
                "0.1:0.5:0.2",
                "--param",
                "tau=0.05,0.2",
                "--csv",
                str(csv),
                "--json",
            ]
        )
        == 0
    )
    out = json.loads(capsys.readouterr().out)
    assert out["meta"]["configurations"] == [{"tau": 0.05}, {"tau": 0.2}]
    assert out["meta"]["loop_parameters"] == ["kappa_r", "kappa_q"]
    rows = csv.read_text().splitlines()
    header = rows[0].split(",")
    assert "tau" in header and len(rows) == 1 + 2 * 4 * 3
    verdicts = {}
    for line in rows[1:]:
        row = dict(zip(header, line.split(",")))
        verdicts.setdefault(row["tau"], []).append(row["verdict"])
    first, second = verdicts.values()
    assert first == second and "converged" in first
    # a queue-clamped nonlinear system is not its linearization: the stable points differ from the bell
    assert out["meta"]["stable_per_configuration"][0] > 0


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--param", "nosuch=1"], "--param nosuch: is not a parameter of the model 'erpi'"),
        (["--param", "kappa_r=0.1"], "--param kappa_r: is a loop gain"),
        (["--param", "tau=-1"], "round trip tau = -1.0 s: must be > 0"),
        (["--param", "tau"], "expected NAME=VALUE"),
        (["--param", "tau=0.1,x"], "not a number"),
        (["--C", "1e6"], "model 'erpi' has no parameter C"),
    ],
)
def test_protocol_parameter_errors_exit_2(capsys, argv, message):
    assert main(["map", "--method", "phaseplane", "--model", EXAMPLE, "--alpha", "0.4", "--beta", "0.2", *argv]) == 2
    err = capsys.readouterr().err.strip()
    assert message in err and len(err.splitlines()) == 1


def test_protocol_portrait_reaches_its_own_equilibrium(tmp_path):
    # App. E's six starts, placed relative to the protocol's own equilibrium r = mu/n_src (R/C = 1/20)
    csv = tmp_path / "portrait.csv"
    assert main(["portrait", "--model", EXAMPLE, "--alpha", "0.8", "--beta", "0.3", "--rtts", "150", "--csv", str(csv)]) == 0
    rows = [line.split(",") for line in csv.read_text().splitlines()[1:]]
    starts = sorted({float(r[1]) for r in rows})
    assert np.allclose(starts, [0.1 / 20, 1 / 20, 5 / 20])
    last = {}
    for r in rows:
        last[r[0]] = float(r[4])
    assert len(last) == 6 and np.allclose(list(last.values()), 1 / 20, rtol=0.02)
