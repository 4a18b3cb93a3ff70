"""Replicated packet maps: each grid point run with several seeds, summarized per point.

The seed draws each scripted flow's start jitter (:attr:`~rcpstab.packet.simulator.scenarios.Scenario.start_jitter_s`),
as ns-3 users replicate a run with several RNG run numbers. Per point: the fraction of seeds whose run
converged with its 95% Wilson interval (a proportion, well behaved at 0 and 1), the mean convergence time
with its 95% Student-t interval over the seeds, and the median with a distribution-free interval (order
statistics; its exact level is given) -- both defined where every seed converged.

The median's interval is there because the convergence time of a packet run is no normal variable: at
Fig. 5.3's (0.4, 0.6) most jittered runs leave the band for the last time after about 9.5 RTTs and a few
after 30-50 (the noise near the band's edge), so a t-interval on five seeds misses the mean of a larger run
far more often than its 95% say (``tests/test_packet_seeds.py`` states the measured coverage); the order
statistics' interval holds its level whatever the distribution.
"""

from __future__ import annotations

import numpy as np

from ...intervals import mean_interval, median_interval, sample_std, wilson_interval

__all__ = ["seeded_columns"]


def seeded_columns(converged: np.ndarray, convergence_rtt: np.ndarray) -> dict[str, np.ndarray]:
    """The per-point columns of a replicated map from per-(point, seed) results.

    Parameters
    ----------
    converged : ndarray of bool, shape (n_points, n_seeds)
        Whether each seed's run converged.
    convergence_rtt : ndarray, shape (n_points, n_seeds)
        Each run's convergence time, RTTs (NaN unless converged).

    Returns
    -------
    dict
        ``stable_fraction`` with ``stable_ci_low``/``stable_ci_high`` (Wilson, 95%), ``convergence_rtt`` (the
        mean over seeds, NaN unless every seed converged) with ``convergence_rtt_ci_low``/``_ci_high``
        (Student t, 95%) and ``convergence_rtt_std``, ``convergence_rtt_median`` with ``_median_low``/``_median_high``
        (order statistics, level ``median_level``) (RTTs), ``seeds`` (the number of runs).
    """
    points, seeds = converged.shape
    k = converged.sum(axis=1)
    low, high = wilson_interval(k, seeds)
    mean, mean_low, mean_high = mean_interval(convergence_rtt)
    median, median_low, median_high, level = median_interval(convergence_rtt)
    std = sample_std(convergence_rtt)
    return {
        "stable_fraction": k / seeds,
        "stable_ci_low": low,
        "stable_ci_high": high,
        "convergence_rtt": mean,
        "convergence_rtt_ci_low": mean_low,
        "convergence_rtt_ci_high": mean_high,
        "convergence_rtt_std": std,
        "convergence_rtt_median": median,
        "convergence_rtt_median_low": median_low,
        "convergence_rtt_median_high": median_high,
        "median_level": np.full(points, level),
        "seeds": np.full(points, seeds),
    }
