"""Verdicts: the thesis' own claims (App. E, Sec. 5.2), slow convergence, and the envelope rules."""
import numpy as np
import pytest

from rcpstab.models import get_model
from rcpstab.phaseplane import Envelope, classify, decide
from rcpstab.phaseplane.sweep import initial_conditions
from rcpstab.regions.roots import rightmost_root

APP_E = {"C": 0.15e9, "d0": 0.2, "N": 10.0, "T": 0.01}


def verdicts(model, alpha, beta):
    gammas, queues = (v[0] for v in initial_conditions(APP_E["C"], APP_E["d0"], APP_E["N"]))
    return decide(get_model(model), dict(APP_E, alpha=alpha, beta=beta), {"gamma0": gammas, "q0": queues})


@pytest.mark.parametrize("alpha, beta", [(0.6, 0.2), (0.6, 0.8)])
def test_app_e_points_converge_from_every_initial_condition(alpha, beta):
    result = verdicts("rcp", alpha, beta)
    assert list(result.names) == ["converged"] * 6
    assert np.all(np.isfinite(result.convergence_rtt))


def test_app_e_point_outside_the_region_keeps_oscillating():
    result = verdicts("rcp", 1.4, 0.8)
    # Fig. E.2: from (R/C, q) = (0.01, 2*C*d0) the trajectory never settles (index 4 = (0.01, 2Cd0))
    assert result.names[4] == "limit_cycle"
    assert np.isnan(result.convergence_rtt[4])


def test_switched_system_sec_5_2():
    assert list(verdicts("switched", 0.8, 0.55).names) == ["converged"] * 6
    # (1.4, 0.3): linearly stable (rightmost root in the left half-plane) but the switched system is not
    assert rightmost_root(get_model("linear"), 1.4, 0.3).real < 0
    unstable = verdicts("switched", 1.4, 0.3)
    assert "converged" not in set(unstable.names[[0, 1, 4]])
    assert set(unstable.names) <= {"converged", "diverged", "limit_cycle"}


def test_slow_convergence_beyond_100_rtts_is_not_instability():
    """rcp at (0.3, 0.2) from (R/C, q) = (0.5, 0) needs ~200 RTTs: the horizon must extend."""
    result = decide(get_model("rcp"), dict(APP_E, alpha=0.3, beta=0.2), {"gamma0": 0.5, "q0": 0.0})
    assert result.names[0] == "converged"
    assert 150 < result.convergence_rtt[0] < 400


def synthetic(rate, n_windows=40, crossings=2):
    """An envelope of 3 trajectories decaying/flat/growing at ``rate`` per RTT (band units)."""
    time = 5.0 * (np.arange(n_windows) + 1)
    peaks = 50.0 * np.exp(np.outer(time, rate))
    return Envelope(peaks, np.full(peaks.shape, crossings), np.full(len(rate), time[-1]), float(time[-1]))


def test_envelope_rules():
    env = synthetic(np.array([-0.02, 0.0, 0.02]))
    result = classify(env)
    assert list(result.names) == ["undecided", "limit_cycle", "undecided"]
    # the decaying one needs ~ln(50 * e^-4)/0.02 = 2.5 more RTT-units x1.25 of time: horizon grows past it
    assert result.next_horizon_rtt > 200 + np.log(50 * np.exp(-4)) / 0.02
    assert list(classify(env, final=True).names) == ["undecided", "limit_cycle", "diverged"]
    stuck = classify(synthetic(np.array([0.0]), crossings=0))
    assert list(stuck.names) == ["diverged"]  # flat but never crossing: settled away from equilibrium
    settled = Envelope(np.ones((40, 1)) * 0.5, np.zeros((40, 1)), np.array([30.0]), 200.0)
    assert classify(settled).names[0] == "converged" and classify(settled).convergence_rtt[0] == 30.0
