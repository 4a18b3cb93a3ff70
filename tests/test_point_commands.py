"""rcpstab bode, nyquist and theorem1: summaries, strict JSON, figures, bad input, and their numbers."""

import json

import numpy as np
import pytest

from rcpstab.cli import main
from rcpstab.linear.bode_plot import bode_response
from rcpstab.linear.margins import margins
from rcpstab.models import get_model


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("command", ["bode", "nyquist"])
def test_point_commands_summary_json_and_figure(tmp_path, capsys, command):
    fig = tmp_path / "f.png"
    code, out, err = run(capsys, command, "--model", "rcpac", "--alpha", "0.4", "--beta", "0.1", "--out", str(fig))
    assert code == 0, err
    assert len(out.strip().splitlines()) == 1 and "STABLE" in out
    assert fig.read_bytes()[:4] == b"\x89PNG"
    code, out, _ = run(capsys, command, "--alpha", "1.4", "--beta", "0.8", "--json")
    payload = json.loads(out, parse_constant=lambda c: pytest.fail(c))
    stable = payload["stable"]
    assert stable is False
    code, out, _ = run(capsys, command, "--alpha", "0.4", "--beta", "0.2", "--quiet")
    assert code == 0 and out == ""


@pytest.mark.parametrize(
    "argv,fragment",
    [
        (["bode", "--alpha", "0", "--beta", "0.2"], "alpha"),
        (["nyquist", "--alpha", "0.4", "--beta", "inf"], "beta"),
        (["nyquist", "--alpha", "0.4", "--beta", "0.2", "--pade", "30"], "Pade"),
        (["bode", "--alpha", "0.4", "--beta", "0.2", "--out", "x.gif"], ".png"),
        (["theorem1", "--model", "nope"], "unknown model"),
    ],
)
def test_bad_input_one_line_exit_2(capsys, argv, fragment):
    code, out, err = run(capsys, *argv)
    assert code == 2 and len(err.strip().splitlines()) == 1 and fragment in err


def test_nyquist_count_matches_pade_poles(capsys):
    """N + P from the plot command equals the closed-loop RHP pole count of the Pade-6 loop."""
    import control as ct

    for a, b in [(0.4, 0.2), (1.4, 0.8), (0.2, 0.4)]:
        payload = json.loads(run(capsys, "nyquist", "--alpha", str(a), "--beta", str(b), "--pade", "6", "--json")[1])
        num, den = ct.pade(1.0, 6)
        loop = ct.tf(num, den) * ct.tf([a, b], [1, 0, 0])
        poles = ct.feedback(loop, 1).poles()
        assert payload["Z"] == int((poles.real > 0).sum())


def test_bode_response_phase_is_continuous_and_matches_margins():
    r = bode_response(get_model("rcpac"), 0.4, 0.1)
    assert r.phase_deg[0] == pytest.approx(-270.0, abs=0.5)  # three integrators (w d0 = 1e-3)
    assert np.max(np.abs(np.diff(r.phase_deg))) < 20
    m = margins(get_model("rcpac"), 0.4, 0.1)
    phase_at_wz = np.interp(np.log(m.crossover_w), np.log(r.w), r.phase_deg)
    assert phase_at_wz + 180 == pytest.approx(m.phase_margin_deg, abs=0.05)
    mag_at_wc = np.interp(np.log(m.phase_crossover_w), np.log(r.w), np.log(r.magnitude))
    assert np.exp(-mag_at_wc) == pytest.approx(m.gain_margin, rel=1e-3)


def test_theorem1_command_bound_exit_tightness(capsys):
    code, out, _ = run(capsys, "theorem1", "--json")
    r = json.loads(out)
    bound = np.pi / (4 * np.sqrt(2))
    assert r["bound"] == pytest.approx(bound, abs=1e-15)
    # Closed form: sqrt(2) (w sin w)^2 = w^2 cos w gives cos w = 1/sqrt(2), w = pi/4, alpha = pi/(4 sqrt 2).
    assert r["exit_alpha"] == pytest.approx(bound, abs=1e-10)
    assert r["exit_w"] == pytest.approx(np.pi / 4, abs=1e-9)
    assert r["tightness"] == pytest.approx(1.0, abs=1e-9)
    code, out, _ = run(capsys, "theorem1")
    assert code == 0 and len(out.strip().splitlines()) == 1 and "0.555360367" in out
    code, out, _ = run(capsys, "theorem1", "--details")
    assert "pi/4 = 0.785398163" in out and "tight" in out
    code, out, _ = run(capsys, "theorem1", "--quiet")
    assert code == 0 and out == ""
