"""Rule 4 at the last horizon: a growth still inside the band is undecided, not diverged.

Synthetic traces with closed-form envelopes: a Landau (Hopf normal form) amplitude
A(t) = A*/sqrt(1 + (A*^2/A0^2 - 1) exp(-2 r t)) grows at rate r from A0 into a cycle of size A*.
Cut while it is still growing and inside the band it must not be called diverged (the whole trace
shows it is a cycle); cut after it has left the band while growing without slowing, it is.
"""

import numpy as np
import pytest

from rcpstab.verdicts.judgement import judge_trace

GAMMA_EQ = 0.1
PERIOD = 5.0  # RTTs


def landau(t, a0, a_star, r):
    return a_star / np.sqrt(1.0 + (a_star**2 / a0**2 - 1.0) * np.exp(-2.0 * r * t))


def rate_trace(t, amplitude):
    return GAMMA_EQ * (1.0 + amplitude * np.cos(2 * np.pi * t / PERIOD))


def test_growth_inside_band_into_small_cycle_is_undecided_then_cycle():
    # grows at 0.0025 per RTT from 0.01% of R into a cycle of +/-0.6% (the band is 2%)
    t = np.arange(0.0, 8000.0001, 0.05)
    amp = landau(t, 1e-4, 0.006, 0.0025)
    cut = t <= 600.0  # one 60 s segment at d0 = 0.1 s: still growing (amplitude ~4.5e-4)
    assert amp[cut][-1] < 0.006 / 10
    short = judge_trace(t[cut], rate_trace(t[cut], amp[cut]), 0 * t[cut], GAMMA_EQ, 0.0, 1.0, final=True)
    assert short.names[0] == "undecided"
    assert "inside the band" in short.reason[0]
    # the measured growth is the Landau rate (the amplitude is still far below A*)
    assert short.rate_per_rtt[0] == pytest.approx(0.0025, rel=0.1)
    whole = judge_trace(t, rate_trace(t, amp), 0 * t, GAMMA_EQ, 0.0, 1.0, final=True)
    assert whole.names[0] == "limit_cycle"
    assert whole.amplitude_band[0] == pytest.approx(0.006 / 0.02, rel=0.05)  # band units: A*/2%


def test_growth_that_left_the_band_without_slowing_is_diverged():
    t = np.arange(0.0, 3000.0001, 0.05)
    amp = 1e-3 * np.exp(0.003 * t)  # 8% of R at the end: four band widths, still exponential
    j = judge_trace(t, rate_trace(t, amp), 0 * t, GAMMA_EQ, 0.0, 1.0, final=True)
    assert j.names[0] == "diverged"
    # the same growth cut while inside the band (2% of R is reached at ~1000 RTTs)
    cut = t <= 800.0
    part = judge_trace(t[cut], rate_trace(t[cut], amp[cut]), 0 * t[cut], GAMMA_EQ, 0.0, 1.0, final=True)
    assert part.names[0] == "undecided"
    assert part.rate_per_rtt[0] == pytest.approx(0.003, rel=0.05)


def test_growth_inside_band_not_final_keeps_integrating():
    t = np.arange(0.0, 600.0001, 0.05)
    amp = 1e-4 * np.exp(0.0025 * t)
    j = judge_trace(t, rate_trace(t, amp), 0 * t, GAMMA_EQ, 0.0, 1.0, final=False)
    assert j.names[0] == "undecided" and j.reason[0] == "growing"
    assert j.next_horizon_rtt == pytest.approx(2 * j.horizon_rtt)


def _noisy_envelope(blocks_floor_units):
    """An envelope whose 4-window blocks have the given peaks, in floor units (floor = band)."""
    from rcpstab.verdicts.judgement import BLOCK_WINDOWS, Envelope

    peaks = np.repeat(np.asarray(blocks_floor_units, dtype=float), BLOCK_WINDOWS)[:, None]
    n = peaks.shape[0]
    cross = np.full((n, 1), 2)
    return Envelope(peaks, cross, np.array([5.0 * n]), 5.0 * n, floor_peaks=peaks.copy())


def test_noisy_growth_from_within_the_floor_is_undecided():
    from rcpstab.verdicts.judgement import judge_envelope

    # the packet segment (1.05, 0.65), 5 flows, of the offset grid: blocks (floor units) wander
    # between 0.4 and 1.2 and the fitted half ends on a rise to 1.14
    blocks = [
        1.17,
        0.57,
        0.49,
        0.79,
        0.95,
        1.11,
        1.05,
        0.65,
        0.58,
        0.57,
        0.44,
        0.43,
        0.39,
        0.42,
        0.53,
        0.54,
        0.73,
        1.14,
        1.14,
        1.14,
    ]
    j = judge_envelope(_noisy_envelope(blocks), final=True, noise_floor=True)
    assert j.rate_per_rtt[0] > 0 and j.names[0] == "undecided"
    assert "noise floor" in j.reason[0]


def test_noisy_steady_growth_above_the_floor_is_diverged():
    from rcpstab.verdicts.judgement import judge_envelope

    blocks = 2.0 * np.exp(0.1 * np.arange(24))  # 2 -> 20 floors, every block above the floor
    j = judge_envelope(_noisy_envelope(blocks), final=True, noise_floor=True)
    assert j.names[0] == "diverged"
    assert j.rate_per_rtt[0] == pytest.approx(0.1 / 20.0, rel=1e-6)  # per RTT: 0.1 per 20-RTT block
