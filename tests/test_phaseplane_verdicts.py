"""Verdicts: the thesis' own claims (App. E, Sec. 5.2), slow convergence, and the envelope rules."""
import numpy as np
import pytest

from rcpstab.models import get_model
from rcpstab.phaseplane import Envelope, classify, decide, phaseplane_region, simulate, trajectory_envelope
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
    final = classify(env, final=True)
    # at the last horizon a steady exponential decay is converging: converged, its time extrapolated
    # from the latest envelope block (the peak of windows ending at 185..200 RTTs: 50 e^(-0.02*185))
    assert list(final.names) == ["converged", "limit_cycle", "diverged"]
    assert final.convergence_rtt[0] == pytest.approx(200 + np.log(50 * np.exp(-0.02 * 185)) / 0.02)
    stuck = classify(synthetic(np.array([0.0]), crossings=0))
    assert list(stuck.names) == ["diverged"]  # flat but never crossing: settled away from equilibrium
    settled = Envelope(np.ones((40, 1)) * 0.5, np.zeros((40, 1)), np.array([30.0]), 200.0)
    assert classify(settled).names[0] == "converged" and classify(settled).convergence_rtt[0] == 30.0


def shaped(envelope, crossings=0):
    """A one-trajectory envelope with the given peaks (band units), one per 5-RTT window, never in band."""
    peaks = np.asarray(envelope, dtype=float)[:, None]
    horizon = 5.0 * peaks.shape[0]
    return Envelope(peaks, np.full(peaks.shape, crossings), np.array([horizon]), horizon)


def test_growth_rules_at_the_last_horizon():
    time = 5.0 * (np.arange(1, 201))  # 1000 RTTs
    linear = classify(shaped(100 + 2.0 * time), final=True)
    assert linear.names[0] == "diverged"  # growing without slowing down: unbounded
    turning = classify(shaped(100 + 300 * np.sqrt(time)), final=True)
    assert turning.names[0] == "undecided"  # still growing but slowing: a slow excursion near its peak


def test_flat_envelope_without_crossings():
    stuck = classify(shaped(np.full(200, 80.0)), final=True)
    assert stuck.names[0] == "diverged"  # stationary away from the equilibrium
    time = 5.0 * np.arange(1, 41)
    top = 5000 - 0.05 * (time - 170.0) ** 2  # the top of a slow flash-crowd excursion, 200 RTTs in
    assert classify(shaped(top)).names[0] == "undecided"
    assert classify(shaped(top)).next_horizon_rtt >= 400
    assert classify(shaped(top), final=True).names[0] == "undecided"


FLASH = {"C": 10e6, "d0": 0.1, "T": 0.01, "alpha": 0.4, "beta": 0.226}


def test_slow_flash_crowd_drain_is_not_diverged():
    """N -> 10 N from the old equilibrium: the queue reaches ~91 C*d0 at ~170 RTTs and drains by ~513."""
    start = {"gamma0": 0.1, "q0": 0.0}  # the equilibrium of N = 10 flows, now shared by 100
    traj = simulate(get_model("rcp"), dict(FLASH, N=100), start, t_end=200 * FLASH["d0"])
    assert traj.queue.max() / (FLASH["C"] * FLASH["d0"]) == pytest.approx(91, abs=1)
    assert classify(trajectory_envelope(traj), final=True).names[0] == "undecided"  # was "diverged"
    result = decide(get_model("rcp"), dict(FLASH, N=100), start)
    assert result.names[0] == "converged"
    assert 450 < result.convergence_rtt[0] < 600


def test_slow_convergence_beyond_1000_rtts_is_extrapolated():
    """rcp at (0.3, 0.1) from (R/C, q) = (0.5, 2*C*d0) drains for ~1200 RTTs (integrated to 8000: it converges)."""
    result = decide(get_model("rcp"), dict(APP_E, alpha=0.3, beta=0.1), {"gamma0": 0.5, "q0": 2 * 0.15e9 * 0.2})
    assert result.names[0] == "converged"
    assert result.convergence_rtt[0] > 1000  # extrapolated beyond the last horizon, an upper estimate


def test_growing_oscillation_is_still_caught():
    result = verdicts("linear", 1.4, 0.8)  # outside the linear region: an exponentially growing oscillation
    assert set(result.names) == {"diverged", "converged"}  # converged: the start at equilibrium, index 3
    assert list(result.names).count("diverged") == 5


def test_unreachable_equilibrium_is_reported_not_integrated():
    """56 kb/s shared by 1000 flows: C/N = 56 b/s is below MIN_RATE = 0.01*MTU/d0 = 240 b/s."""
    result = decide(get_model("rcp"), dict(APP_E, C=56e3, N=1000.0, alpha=0.4, beta=0.2), {"gamma0": 0.5e-3})
    assert result.names[0] == "diverged" and result.next_horizon_rtt == 0.0
    region = phaseplane_region(get_model("rcp"), [0.6], [0.2], C=[56e3, 0.15e9], N=[10, 1000])
    assert [(c["C"], c["N"]) for c in region.meta["unreachable_configurations"]] == [(56e3, 1000.0)]
    assert region.stable.all()  # (0.6, 0.2) is stable on every configuration that can reach its equilibrium
    assert region.meta["stable_points_all_configurations"] == 0
