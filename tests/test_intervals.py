"""The confidence intervals of replicated runs (rcpstab.intervals): the Student-t quantiles against their
closed forms, and each interval's coverage over many simulated replications against its exact level."""

import math

import numpy as np
import pytest

from rcpstab.cosim.replications import Replications
from rcpstab.intervals import mean_interval, median_interval, sample_std, t_half_width, t_half_width_of_std, wilson_interval


@pytest.mark.parametrize("confidence", [0.9, 0.95, 0.99])
def test_t_half_width_matches_the_closed_form_quantiles(confidence):
    p = 0.5 + confidence / 2
    # one degree of freedom is Cauchy: t_p = tan(pi (p - 1/2)); two: t_p = (2p - 1) / sqrt(2 p (1 - p))
    two = np.array([3.0, 5.0])  # s = sqrt(2), n = 2
    assert t_half_width(two, confidence) == pytest.approx(math.tan(math.pi * (p - 0.5)) * math.sqrt(2) / math.sqrt(2))
    three = np.array([1.0, 2.0, 3.0])  # s = 1, n = 3
    t2 = (2 * p - 1) / math.sqrt(2 * p * (1 - p))
    assert t_half_width(three, confidence) == pytest.approx(t2 / math.sqrt(3), rel=1e-12)


def test_t_interval_covers_a_normal_mean_as_often_as_its_level():
    # for normal samples the t-interval's coverage is exactly its level (any n); 40 000 intervals of 5 values
    rng = np.random.default_rng(11)
    samples = rng.normal(7.0, 3.0, size=(40_000, 5))
    _, low, high = mean_interval(samples)
    coverage = ((low <= 7.0) & (7.0 <= high)).mean()
    sd = math.sqrt(0.95 * 0.05 / samples.shape[0])
    assert abs(coverage - 0.95) < 4 * sd  # a normal quantile (1.96) would give ~0.88


def test_fewer_than_two_values_or_a_nan_give_no_interval():
    assert np.isnan(t_half_width([4.0]))
    mean, low, high = mean_interval(np.array([[1.0, np.nan, 3.0], [2.0, 2.0, 2.0]]))
    assert np.isnan([mean[0], low[0], high[0]]).all() and low[1] == high[1] == 2.0


def test_median_interval_covers_as_often_as_its_exact_level():
    # order statistics: the level 1 - 2 P(Bin(n, 1/2) < k) holds for any continuous law (here exponential)
    rng = np.random.default_rng(5)
    samples = rng.exponential(2.0, size=(40_000, 12))
    _, low, high, level = median_interval(samples)
    assert level == pytest.approx(1 - 2 * sum(math.comb(12, j) for j in range(3)) / 2**12)  # k = 3 at n = 12
    coverage = ((low <= 2.0 * math.log(2)) & (2.0 * math.log(2) <= high)).mean()
    assert abs(coverage - level) < 4 * math.sqrt(level * (1 - level) / samples.shape[0])


def test_wilson_interval_of_all_successes_is_the_closed_form():
    low, high = wilson_interval(np.array([5]), 5)
    assert low[0] == pytest.approx(1 / (1 + 1.959963985**2 / 5), rel=1e-9) and high[0] == 1.0


def test_topology_replications_use_the_same_interval():
    values = np.array([0.9, 1.1, 1.0, 1.3])
    row = Replications(seeds=[0, 1, 2, 3], values={"x": values}, confidence=0.9, late_from_s=1.0).summary()["x"]
    mean, low, high = mean_interval(values, 0.9)
    assert (row["mean"], row["ci_low"], row["ci_high"]) == pytest.approx((mean, low, high), rel=1e-15)
    # the summary's deviation is the sample deviation (ddof = 1): 0.9, 1.1, 1.0, 1.3 about 1.075
    assert row["std"] == pytest.approx(math.sqrt((0.175**2 + 0.025**2 + 0.075**2 + 0.225**2) / 3), rel=1e-14)
    assert row["ci_high"] - row["mean"] == pytest.approx(t_half_width_of_std(row["std"], 4, 0.9), rel=1e-14)
    one = Replications(seeds=[0], values={"x": np.array([2.0])}, confidence=0.9).summary()["x"]
    assert math.isnan(one["std"]) and math.isnan(one["ci_low"]) and one["mean"] == 2.0


def test_the_sample_deviation_and_the_half_width_from_it_are_what_the_interval_uses():
    rng = np.random.default_rng(28)
    values = rng.normal(3.0, 2.0, size=(7, 5))
    std = sample_std(values)
    assert np.allclose(std, np.sqrt(((values - values.mean(axis=1, keepdims=True)) ** 2).sum(axis=1) / 4), rtol=1e-14)
    assert np.array_equal(t_half_width(values), t_half_width_of_std(std, 5))
    assert sample_std(np.ones((3, 1))).shape == (3,) and np.isnan(sample_std(np.ones((3, 1)))).all()
    assert np.isnan(t_half_width_of_std(1.0, 1))
