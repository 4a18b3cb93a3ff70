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

import math

import numpy as np

__all__ = ["CONFIDENCE", "mean_interval", "median_interval", "seeded_columns", "wilson_interval"]

CONFIDENCE = 0.95


def wilson_interval(successes: np.ndarray, n: int, confidence: float = CONFIDENCE) -> tuple[np.ndarray, np.ndarray]:
    """Wilson score interval of a proportion ``successes / n`` (arrays of counts, one ``n``).

    Examples
    --------
    >>> lo, hi = wilson_interval(np.array([0, 5, 10]), 10)
    >>> np.round(lo, 4).tolist(), np.round(hi, 4).tolist()   # Wilson (1927); 0 and 10 of 10 are not certain
    ([0.0, 0.2366, 0.7225], [0.2775, 0.7634, 1.0])
    """
    from scipy.stats import norm

    z = float(norm.ppf(0.5 + confidence / 2))
    p = np.asarray(successes, dtype=float) / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * np.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return np.clip(centre - half, 0.0, 1.0), np.clip(centre + half, 0.0, 1.0)


def mean_interval(values: np.ndarray, confidence: float = CONFIDENCE) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Mean over the last axis and its Student-t interval; NaN where any value is NaN or fewer than 2.

    Examples
    --------
    >>> mean, lo, hi = mean_interval(np.array([[1.0, 2.0, 3.0], [1.0, np.nan, 3.0]]))
    >>> mean.tolist(), np.round(lo, 4).tolist()   # 2 -/+ t(0.975, 2) * 1 / sqrt(3)
    ([2.0, nan], [-0.4841, nan])
    """
    from scipy.stats import t as student_t

    values = np.asarray(values, dtype=float)
    n = values.shape[-1]
    mean = values.mean(axis=-1)
    if n < 2:
        nan = np.full(mean.shape, math.nan)
        return mean, nan, nan
    half = float(student_t.ppf(0.5 + confidence / 2, n - 1)) * values.std(axis=-1, ddof=1) / math.sqrt(n)
    return mean, mean - half, mean + half


def median_interval(values: np.ndarray, confidence: float = CONFIDENCE) -> tuple[np.ndarray, np.ndarray, np.ndarray, float]:
    """Median over the last axis and the distribution-free interval [x(k), x(n+1-k)] of the order statistics.

    ``k`` is the largest whose exact level 1 - 2 P(Binomial(n, 1/2) < k) is at least ``confidence``; with too
    few values for that (n <= 5 at 95%), k = 1, the widest. NaN where any value is NaN.

    Returns
    -------
    median, low, high : ndarray
    level : float
        The interval's exact coverage of the population median (any continuous distribution).

    Examples
    --------
    >>> median, low, high, level = median_interval(np.array([[3.0, 1.0, 9.0, 2.0, 50.0]]))
    >>> median.tolist(), low.tolist(), high.tolist(), level      # five values: 1 - 2 / 2**5
    ([3.0], [1.0], [50.0], 0.9375)
    """
    from scipy.stats import binom

    values = np.sort(np.asarray(values, dtype=float), axis=-1)   # NaN sorts last
    n = values.shape[-1]
    k = 1
    while k + 1 <= n // 2 and 1 - 2 * binom.cdf(k, n, 0.5) >= confidence:
        k += 1
    level = float(1 - 2 * binom.cdf(k - 1, n, 0.5))
    missing = np.isnan(values).any(axis=-1)
    median = np.where(missing, math.nan, np.median(values, axis=-1))
    low = np.where(missing, math.nan, values[..., k - 1])
    high = np.where(missing, math.nan, values[..., n - k])
    return median, low, high, level


def seeded_columns(converged: np.ndarray, convergence_rtt: np.ndarray) -> dict[str, np.ndarray]:
    """The per-point columns of a replicated map from per-(point, seed) results.

    Parameters
    ----------
    converged : ndarray of bool, shape (points, seeds)
        Whether each seed's run converged.
    convergence_rtt : ndarray, shape (points, seeds)
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
    std = np.asarray(convergence_rtt, dtype=float).std(axis=1, ddof=1) if seeds > 1 else np.full(points, math.nan)
    return {"stable_fraction": k / seeds, "stable_ci_low": low, "stable_ci_high": high, "convergence_rtt": mean,
            "convergence_rtt_ci_low": mean_low, "convergence_rtt_ci_high": mean_high, "convergence_rtt_std": std,
            "convergence_rtt_median": median, "convergence_rtt_median_low": median_low,
            "convergence_rtt_median_high": median_high, "median_level": np.full(points, level),
            "seeds": np.full(points, seeds)}
