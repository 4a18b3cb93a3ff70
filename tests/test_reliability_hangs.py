"""No hang without a word (issue 18, defect 5): grid caps, incommensurate T and d0, bounded cost."""

import subprocess
import sys
import time

import numpy as np
import pytest

from rcpstab.models import get_model
from rcpstab.phaseplane.compiled import compile_model
from rcpstab.phaseplane.decide import decide
from rcpstab.phaseplane.setup import default_step, parameter_values
from rcpstab.phaseplane.trajectory import simulate

T = 0.01
FINE = T / 64  # the former step for any delay that no T/k divides


def run_cli(*args, timeout=120, env=None):
    return subprocess.run([sys.executable, "-m", "rcpstab", *args], capture_output=True, text=True, timeout=timeout, env=env)


def _step(d0):
    model = compile_model(get_model("rcp"))
    return default_step(model, parameter_values(model, {"d0": d0, "T": T}))


@pytest.mark.parametrize("d0, step", [(0.2, T), (0.015, T / 2), (0.04, T), (13.136545, T), (0.2003, 4e-4)])
def test_step_choice(d0, step):
    # commensurate T and d0: the exact step as before (identical results); otherwise the coarsest
    # T/k that moves the delay by at most 0.1% (half a step)
    assert _step(d0) == pytest.approx(step, rel=1e-12)
    assert abs(d0 / _step(d0) - round(d0 / _step(d0))) < 1e-9 or _step(d0) / 2 <= 1e-3 * d0


@pytest.mark.slow  # fine-step reference integrations: ~5 s
@pytest.mark.parametrize("d0", [13.136545, 1.00001])
def test_incommensurate_delay_agrees_with_the_fine_step_reference(d0):
    params = {
        "d0": d0,
        "T": T,
        "alpha": np.array([0.4, 0.4, 1.2, 0.1]),
        "beta": np.array([0.2, 0.2, 0.6, 0.1]),
        "N": 10,
        "C": 1e8,
    }
    initial = {"gamma0": np.array([0.05, 0.5, 0.05, 0.01]), "q0": np.array([0.0, 2e8 * d0, 0.0, 0.0])}
    coarse, fine = decide(get_model("rcp"), params, initial), decide(get_model("rcp"), params, initial, dt=FINE)
    assert np.array_equal(coarse.codes, fine.codes)
    assert np.allclose(coarse.convergence_rtt, fine.convergence_rtt, atol=0.1, equal_nan=True)
    a, b = (simulate(get_model("rcp"), params, initial, 30 * d0, dt=dt) for dt in (None, FINE))
    for i in range(4):
        deviation = np.abs(np.interp(b.t, a.t, a.gamma[:, i]) - b.gamma[:, i]).max()
        assert deviation < 0.01 * np.ptp(b.gamma[:, i])


@pytest.mark.slow
def test_check_with_a_13_to_15_second_rtt_envelope_finishes_within_a_minute(tmp_path):
    config = tmp_path / "long.toml"
    config.write_text("[router]\nALPHA = 0.4\nBETA = 0.2\n\n[envelope]\nrtt_ms = [13136.545, 15056.322]\n")
    started = time.time()
    result = run_cli("check", str(config), "--no-suggest", timeout=120)
    assert result.returncode in (0, 1), result.stderr
    assert time.time() - started < 60  # took more than 7 minutes


@pytest.mark.parametrize(
    "args",
    [
        ["map", "--method", "phaseplane", "--alpha", "0.00001:1:0.00001", "--beta", "0.00001:1:0.00001"],
        ["map", "--method", "exact", "--alpha", "0.00001:1:0.00001", "--beta", "0.00001:1:0.00001"],
        ["map", "--method", "nyquist", "--alpha", "0.01:10:0.01", "--beta", "0.01:10:0.01"],
        ["convergence", "--alpha", "0.001:1:0.001", "--beta", "0.001:1:0.001", "--N", "1", "2"],
    ],
)
def test_huge_grids_are_refused_at_once_with_the_estimate(args, capsys):
    # In this process (a refusal's exit code and stderr; no process-level contract): an alarm stands in for
    # the subprocess's timeout, so a sweep that starts instead of being refused fails the test, not hangs it.
    import signal

    from conftest import run_cli as run_in_process

    def hang(signum, frame):
        raise TimeoutError(f"{args}: not refused within 30 s")

    previous = signal.signal(signal.SIGALRM, hang)
    signal.alarm(30)
    started = time.time()
    try:
        code, _, err = run_in_process(capsys, *args)
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)
    assert code == 2
    assert err.count("\n") == 1 and "CPU-hours" in err and "RCPSTAB_MAX" in err
    assert time.time() - started < 30


@pytest.mark.slow  # a sweep over the default grid limit: ~1.5 s
def test_the_grid_limit_can_be_raised(monkeypatch):
    import os

    env = dict(os.environ, RCPSTAB_MAX_GRID_POINTS="10")
    refused = run_cli("map", "--alpha", "0.1:0.5:0.1", "--beta", "0.1:0.3:0.1", env=env)
    assert refused.returncode == 2 and "15 grid points" in refused.stderr
    env["RCPSTAB_MAX_GRID_POINTS"] = "20"
    assert run_cli("map", "--alpha", "0.1:0.5:0.1", "--beta", "0.1:0.3:0.1", env=env).returncode == 0
