"""Issue 24, item 3: the optimal-rate U curve (thesis App. A), by App. A's model, an exact
packet FCFS queue and the packet flow simulator at a held rate."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

from rcpstab.errors import InputError
from rcpstab.fct.fixed_rate import fixed_rate_study, parse_bounded_pareto
from rcpstab.fct.ucurve import BoundedPareto, app_a_blocking, app_a_duration, durations_at_rates, fixed_rate_fcfs

C = 150e6  # Fig. A.3


def test_bounded_pareto_moments_match_sampling():
    d = BoundedPareto.with_mean(25.0, 1.2, 1e3)
    x = d.sample_real(np.random.default_rng(0), 2_000_000)
    assert x.min() >= d.m and x.max() <= d.M
    assert x.mean() == pytest.approx(d.moment(1), rel=0.01) and d.moment(1) == pytest.approx(25.0, rel=1e-9)
    assert (x**2).mean() == pytest.approx(d.moment(2), rel=0.03)
    k = d.sample(np.random.default_rng(1), 1_000_000)
    assert k.mean() == pytest.approx(d.mean_packets, rel=0.01)


def test_fcfs_queue_has_the_closed_forms():
    # One flow alone: L/R. At R = C and Poisson arrivals of one-packet flows: M/D/1 wait.
    assert fixed_rate_fcfs([0.0], [10], 1e6, 1e6, packet_bits=1e3)[0] == pytest.approx(0.01)
    rng = np.random.default_rng(2)
    n, rho, s = 400_000, 0.7, 1e-3
    start = np.cumsum(rng.exponential(s / rho, n))
    tau = fixed_rate_fcfs(start, np.ones(n, int), 1e6, 1e6, packet_bits=1e3)
    assert tau.mean() - s == pytest.approx(rho * s / (2 * (1 - rho)), rel=0.03)  # Pollaczek-Khinchine


@pytest.mark.parametrize("frac", [1.0, 2.0])
def test_eq_a12_queue_is_the_fcfs_queue_from_C_up(frac):
    # A.12's queue, E[Q_a] = lam E[L^2] / 2 (1 / ((1 - rho) C) - 1 / R), is exact (M/G/1 minus
    # the spreading of each flow); measured by Little's law on the packets' waits, with the
    # drawn sizes' moments. Light tail (M = 200) so the second moment settles.
    d = BoundedPareto.with_mean(25.0, 1.2, 200.0)
    rng = np.random.default_rng(3)
    n, rho, P = 40000, 0.7, 8000.0
    size = d.sample(rng, n)
    lam = rho * C / (size.mean() * P)
    start = np.cumsum(rng.exponential(1 / lam, n))
    R = frac * C
    tau = fixed_rate_fcfs(start, size, R, C, P)
    flow = np.repeat(np.arange(n), size)
    k = np.arange(len(flow)) - np.repeat(np.cumsum(size) - size, size)
    t = start[flow] + k * P / R
    order = np.argsort(t, kind="stable")
    idx = np.arange(len(t))
    depart = (idx + 1) * P / C + np.maximum.accumulate(t[order] - idx * P / C)
    wait = depart - P / C - t[order]
    q_little = len(t) / start[-1] * wait.mean() * P  # bits
    L2 = np.mean((size * P) ** 2)
    q_a12 = lam * L2 / 2 * (1 / ((1 - rho) * C) - 1 / R)
    assert q_little == pytest.approx(q_a12, rel=0.08)
    # The duration uses E[Q_l] ~ E[Q_a]: the last packet waits longer than the average one at
    # R = C (other flows' packets interleave with a flow's own), so A.12 under-predicts tau.
    assert tau.mean() > size.mean() * P / R + q_a12 / C


def test_eq_a11_agrees_at_low_rates_and_the_u_curve_has_an_interior_minimum():
    d = BoundedPareto.with_mean(25.0, 1.2, 1e3)
    fr = np.array([0.02, 0.05, 0.1, 0.3, 1.0])
    lam = 0.8 * C / (d.moment(1) * 8000)
    sim = durations_at_rates(fr * C, capacity_bps=C, dist=d, n_flows=20000, load=0.8, seed=1)
    model = app_a_duration(fr * C, C, lam, d)
    assert np.allclose(sim[:3], model[:3], rtol=0.06)  # the queue is small: L/R dominates
    assert sim.argmin() not in (0, len(fr) - 1)  # the U
    assert 0 <= app_a_blocking(5.0, 0.8, d) <= 1


def test_flow_simulator_at_a_held_rate_matches_the_fcfs_queue():
    d = BoundedPareto.with_mean(25.0, 1.2, 1e3)
    out = fixed_rate_study([0.05 * C, 0.3 * C], capacity_bps=C, rtt_s=0.01, load=0.8, sizes=d, n_flows=4000, seed=1)
    for row in out["rows"]:
        assert row["flowsim_dropped"] == 0
        assert row["flowsim_duration_s"] == pytest.approx(row["fcfs_duration_s"], rel=0.15)
        assert row["app_a_duration_s"] is not None
    assert out["offered_load"] == pytest.approx(0.8, rel=0.02)
    assert out["ps"]["duration_s"] == pytest.approx(out["mean_size_pkts"] * 8000 / (0.2 * C))


def test_fixed_rate_cli_rejects_bad_rates_in_one_line(capsys):
    from rcpstab.cli import main

    cmd = [
        sys.executable,
        "-m",
        "rcpstab",
        "fct",
        "--alpha",
        "0.1",
        "--beta",
        "1",
        "--C",
        "1e7",
        "--d0",
        "0.1",
        "--load",
        "0.5",
        "--flows",
        "50",
        "--fixed-rate",
    ]
    p = subprocess.run(cmd + ["2e7"], capture_output=True, text=True)  # one real process: exit code, no traceback
    assert p.returncode == 2 and len(p.stderr.strip().splitlines()) == 1, p.stderr
    for bad in ("abc", "-1"):  # the rest in this process: the same rcpstab.cli.main, without ~2 s of start-up each
        code = main(cmd[3:] + [bad])
        err = capsys.readouterr().err
        assert code == 2 and len(err.strip().splitlines()) == 1, err
    with pytest.raises(InputError):
        parse_bounded_pareto("bpareto:mean=25,shape=1.2")
