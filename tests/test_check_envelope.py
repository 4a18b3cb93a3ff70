"""The envelope's inside sample: the Halton sequence is the radical inverse (exact to rounding) and bit
for bit both scipy's unscrambled Halton points and the scalar sequence used before them, so the check
integrates the same networks (without importing scipy.stats)."""

import pathlib
from fractions import Fraction

import numpy as np

from rcpstab.check.config import load_config
from rcpstab.check.envelope import envelope_networks, halton_points

BASES = (2, 3, 5)

EXAMPLES = pathlib.Path(__file__).resolve().parent.parent / "rcpstab" / "check" / "examples"


def radical_inverse(index: int, base: int) -> Fraction:
    """Digits of ``index`` in ``base`` mirrored about the radix point, in exact arithmetic."""
    digits = []
    while index:
        index, digit = divmod(index, base)
        digits.append(digit)
    return sum((Fraction(d, base ** (k + 1)) for k, d in enumerate(digits)), Fraction(0))


def previous_halton(index: int, base: int) -> float:
    """The hand-written van der Corput term rcpstab.check.envelope used before scipy's."""
    result, scale = 0.0, 1.0 / base
    while index:
        index, digit = divmod(index, base)
        result += digit * scale
        scale /= base
    return result


def test_halton_points_are_the_radical_inverses_from_index_one():
    n = 300
    points = halton_points(n)
    exact = np.array([[float(radical_inverse(i, b)) for b in BASES] for i in range(1, n + 1)])
    assert np.max(np.abs(points - exact)) < 1e-15  # floating-point sums of the digits: rounding only
    previous = np.array([[previous_halton(i, b) for b in BASES] for i in range(1, n + 1)])
    assert np.array_equal(points, previous)
    assert halton_points(0).shape == (0, 3)


def test_halton_points_are_scipys_unscrambled_halton_points_bit_for_bit():
    from scipy.stats import qmc

    sampler = qmc.Halton(d=3, scramble=False)
    sampler.fast_forward(1)  # point 0 is the origin, an envelope corner
    assert np.array_equal(halton_points(5000), sampler.random(5000))


def test_envelope_inside_points_are_log_uniform_halton_points():
    config = load_config(str(EXAMPLES / "thesis_box_a0.4_b0.2.toml"))
    corners = envelope_networks(config, 0)
    nets = envelope_networks(config, 16)
    assert nets[: len(corners)] == corners
    env = config.envelope
    lo, hi = np.multiply(env.link_mbps, 1e6)
    u = halton_points(16)[:, 0]
    # the capacity axis is not rounded: C = lo (hi/lo)^u exactly as sampled, every point kept
    inside = [net["C"] for net in nets[len(corners) :]]
    assert np.allclose(inside, lo * (hi / lo) ** u, rtol=1e-12)
