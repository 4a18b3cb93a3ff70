"""Confidence intervals of replicated runs: a proportion (Wilson), a mean (Student t) and a median
(order statistics), over the last axis of an array of per-seed values.

The lowest layer, so that every replicated study (the packet lens' seeded maps, the co-simulations'
replications, the FCT protocol comparison) uses the same code.
"""

from __future__ import annotations

import math

import numpy as np

__all__ = [
    "CONFIDENCE",
    "mean_interval",
    "median_interval",
    "sample_std",
    "t_half_width",
    "t_half_width_of_std",
    "wilson_interval",
]

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


def sample_std(values: np.ndarray) -> np.ndarray:
    """Sample standard deviation (``ddof=1``) over the last axis; NaN where any value is NaN or there are fewer than 2.

    Parameters
    ----------
    values : array_like
        Samples along the last axis (any unit; the deviation has the same).

    Returns
    -------
    ndarray or float
        The deviation, in the values' unit (shape: ``values`` without its last axis).

    Examples
    --------
    >>> float(sample_std([1.0, 2.0, 3.0])), float(sample_std([4.0]))   # sqrt(((-1)^2 + 0 + 1^2) / 2)
    (1.0, nan)
    """
    values = np.asarray(values, dtype=float)
    if values.shape[-1] < 2:
        return np.full(values.shape[:-1], math.nan)
    return values.std(axis=-1, ddof=1)


def t_half_width_of_std(std: np.ndarray | float, n: int, confidence: float = CONFIDENCE) -> np.ndarray | float:
    """Half-width of the Student-t interval of a mean of ``n`` samples whose sample deviation is ``std``.

    t(1/2 + c/2, n - 1) std / sqrt(n): for a caller that reports the deviation beside the interval
    (:func:`t_half_width` computes both from the samples). NaN with fewer than 2 samples.

    Parameters
    ----------
    std : float or ndarray
        Sample standard deviation(s) (``ddof=1``), any unit; the half-width has the same.
    n : int
        Number of samples each deviation is of.
    confidence : float
        Two-sided level, in (0, 1).

    Returns
    -------
    float or ndarray
        The half-width, in the deviation's unit.

    Examples
    --------
    >>> round(float(t_half_width_of_std(1.0, 3)), 4)   # t(0.975, 2) = 4.3027, / sqrt(3)
    2.4841
    """
    if n < 2:
        return np.full(np.shape(std), math.nan)
    from scipy.stats import t as student_t

    half: np.ndarray | float = float(student_t.ppf(0.5 + confidence / 2, n - 1)) * std / math.sqrt(n)
    return half


def t_half_width(values: np.ndarray, confidence: float = CONFIDENCE) -> np.ndarray | float:
    """Half-width of the Student-t interval of the mean over the last axis: t(1/2 + c/2, n - 1) s / sqrt(n).

    The one place rcpstab computes it (replicated packet maps, topology replications, the FCT protocol
    comparison). NaN where any value is NaN or there are fewer than 2.

    Parameters
    ----------
    values : array_like
        Samples along the last axis (any unit; the half-width has the same).
    confidence : float
        Two-sided level, in (0, 1).

    Returns
    -------
    ndarray or float
        The half-width, in the values' unit (shape: ``values`` without its last axis).

    Examples
    --------
    >>> round(float(t_half_width([1.0, 2.0, 3.0])), 4)   # t(0.975, 2) = 4.3027, s = 1, n = 3
    2.4841
    """
    values = np.asarray(values, dtype=float)
    return t_half_width_of_std(sample_std(values), values.shape[-1], confidence)


def mean_interval(values: np.ndarray, confidence: float = CONFIDENCE) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Mean over the last axis and its Student-t interval; NaN where any value is NaN or fewer than 2.

    Examples
    --------
    >>> mean, lo, hi = mean_interval(np.array([[1.0, 2.0, 3.0], [1.0, np.nan, 3.0]]))
    >>> mean.tolist(), np.round(lo, 4).tolist()   # 2 -/+ t(0.975, 2) * 1 / sqrt(3)
    ([2.0, nan], [-0.4841, nan])
    """
    values = np.asarray(values, dtype=float)
    mean = values.mean(axis=-1)
    half = t_half_width(values, confidence)
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

    values = np.sort(np.asarray(values, dtype=float), axis=-1)  # NaN sorts last
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
