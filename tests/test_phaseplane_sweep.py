"""Sweeps: configurations, workers, Dask, checkpoint survival of SIGKILL, command line and bad input."""

import json
import os
import signal
import subprocess
import sys
import time

import numpy as np
import pytest
from conftest import run_cli as run_here

from rcpstab.models import get_model
from rcpstab.phaseplane import phaseplane_region
from rcpstab.phaseplane.sweep import POINTS_PER_CHUNK

SMALL = (np.array([0.6, 1.4]), np.array([0.2, 0.8]))


def run_cli(*args, timeout=120):
    return subprocess.run([sys.executable, "-m", "rcpstab", *args], capture_output=True, text=True, timeout=timeout)


def test_configurations_table_and_common_region():
    region = phaseplane_region(get_model("rcp"), *SMALL, C=[0.15e9, 10e9], N=[10, 100])
    table = region.table
    assert list(table) == [
        "alpha",
        "beta",
        "C",
        "d0",
        "N",
        "stable",
        "verdict",
        "convergence_rtt",
        "convergence_estimate_rtt",
        "envelope_rate_per_rtt",
    ]
    assert len(table["alpha"]) == 4 * 4
    per_config = table["stable"].reshape(4, 2, 2).astype(bool)
    assert np.array_equal(region.stable, per_config.all(axis=0))
    assert region.stable[0, 0] and not region.stable[1, 1]  # (0.6, 0.2) stable, (1.4, 0.8) not
    assert set(table["verdict"]) <= {"converged", "limit_cycle", "diverged", "undecided"}


@pytest.mark.slow  # starts worker processes and a Dask cluster: ~2 s
def test_workers_and_dask_give_the_serial_result():
    distributed = pytest.importorskip("distributed")
    serial = phaseplane_region(get_model("switched"), *SMALL, N=[10, 20])
    local = phaseplane_region(get_model("switched"), *SMALL, N=[10, 20], workers=2)
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=True, dashboard_address=None) as cluster:
        remote = phaseplane_region(get_model("switched"), *SMALL, N=[10, 20], scheduler=cluster.scheduler_address)
    for other in (local, remote):
        assert np.array_equal(other.stable, serial.stable)
        assert np.array_equal(other.table["verdict"], serial.table["verdict"])


def test_progress_bar_only_when_asked(capsys):
    phaseplane_region(get_model("switched"), *SMALL, progress=False)
    assert capsys.readouterr().err == ""
    phaseplane_region(get_model("switched"), *SMALL, progress=True)
    assert "chunk" in capsys.readouterr().err


@pytest.mark.slow  # a killed and resumed worker sweep: ~7 s
def test_checkpoint_survives_sigkill(tmp_path):
    checkpoint = tmp_path / "sweep.ckpt"
    # 39 x 19 points: enough chunks that the compiled integrator is still busy when the kill lands
    args = [
        "map",
        "--method",
        "phaseplane",
        "--model",
        "rcp",
        "--alpha",
        "0.1:2.0:0.05",
        "--beta",
        "0.1:1.0:0.05",
        "--N",
        "10",
        "20",
        "30",
        "--checkpoint",
        str(checkpoint),
        "--json",
    ]
    chunks = -(-3 * 39 * 19 // POINTS_PER_CHUNK)  # the three configurations share d0 and T: one delay line
    proc = subprocess.Popen([sys.executable, "-m", "rcpstab", *args], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.time() + 60
    while time.time() < deadline and (not checkpoint.exists() or checkpoint.read_text().count("\n") < 1):
        time.sleep(0.05)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    done = checkpoint.read_text().count("\n")
    assert 1 <= done < chunks
    resumed = run_cli(*args)
    assert resumed.returncode == 0, resumed.stderr
    result = json.loads(resumed.stdout)
    assert result["meta"]["chunks_computed"] == chunks - done  # no finished chunk redone
    fresh = phaseplane_region(
        get_model("rcp"), np.round(np.arange(0.1, 2.001, 0.05), 10), np.round(np.arange(0.1, 1.001, 0.05), 10), N=[10, 20, 30]
    )
    assert np.array_equal(np.array(result["stable"], dtype=bool), fresh.stable)


@pytest.mark.parametrize(
    "args, names",
    [
        (["--T", "0"], "T = 0.0"),
        (["--d0", "-0.2"], "d0 = -0.2"),
        (["--N", "0"], "N = 0.0"),
        pytest.param(["--scheduler", "tcp://127.0.0.1:9"], "tcp://127.0.0.1:9", marks=pytest.mark.slow),  # 5 s timeout
    ],
)
def test_bad_input_exits_2_with_one_line(args, names):
    started = time.time()
    result = run_cli("map", "--method", "phaseplane", "--alpha", "0.5", "--beta", "0.5", *args, timeout=60)
    assert result.returncode == 2
    assert result.stderr.count("\n") == 1 and names in result.stderr
    assert time.time() - started < 30


@pytest.mark.slow  # three commands end to end with figures, in this process (their exit codes: the tests above)
def test_portrait_and_convergence_commands(tmp_path, capsys):
    out, csv = tmp_path / "portrait.png", tmp_path / "portrait.csv"
    code, _, err = run_here(
        capsys,
        "portrait",
        "--model",
        "rcp",
        "--alpha",
        "1.4",
        "--beta",
        "0.8",
        "--rtts",
        "50",
        "--out",
        str(out),
        "--csv",
        str(csv),
    )
    assert code == 0, err
    rows = np.genfromtxt(csv, delimiter=",", names=True)
    assert sorted(set(rows["ic"])) == list(range(6)) and out.stat().st_size > 10_000
    assert rows["queue_bits"].min() == 0.0 and rows["R_over_C"].max() <= 1.0
    fig, table = tmp_path / "conv.png", tmp_path / "conv.csv"
    code, _, err = run_here(
        capsys, "convergence", "--alpha", "0.5", "--beta", "0.5:0.6:0.1", "--out", str(fig), "--csv", str(table)
    )
    assert code == 0, err
    times = np.genfromtxt(table, delimiter=",", names=True)["convergence_rtt"]
    # thesis Sec. 5.4 says (0.5, 0.5) "converges within 10 round-trip times"; from its own start (the
    # load doubles: R(0) = 2 Re, q(0) = 0) and its own band (2% / 1% of C*d0) the last band exit of
    # the recorded trajectory is 12.5 RTTs (test_convergence_figures.py checks it independently)
    assert times[0] == pytest.approx(12.5, abs=0.05) and np.all(times < 20)
    code, _, err = run_here(capsys, "portrait", "--alpha", "0.5", "--beta", "0.5", "--C", "-1")
    assert code == 2 and "C = -1.0" in err
