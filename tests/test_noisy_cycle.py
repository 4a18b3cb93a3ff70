"""Rule 5b of the shared judgement: a sustained coherent cycle in a noisy (packet) trace is a limit cycle.

Synthetic one-RTT-sampled traces of known cycle, decay and noise go through the packet path
(:func:`rcpstab.packet.lens.verdicts.judgement_of_segment`: measured noise floor, then
the shared judgement), and so do two stored packet runs (fig5.3, the 10-flow segment, 60 s).
"""

from pathlib import Path

import numpy as np
import pytest

from rcpstab.packet.lens.verdicts import FALSE_ALARM, NOISE_K, judgement_of_segment, noise_multiple
from rcpstab.packet.simulator.segments import rtt_average
from rcpstab.verdicts.judgement import CONVERGED, LIMIT_CYCLE, coherence_threshold, dominant_oscillation, judge_trace

PER_RTT = 10  # samples per RTT (fig5.3: T = 10 ms, d0 = 100 ms)
D0, CAPACITY = 0.1, 10e6
GEQ = 0.1  # R/C at equilibrium (10 flows)
DATA = Path(__file__).parent / "data" / "packet_fig53_n10.npz"


def _judge(deviation, seed=0, noise=0.01, rtts=600):
    """Judgement of gamma = GEQ (1 + deviation(t) + white noise of ``noise`` per sample), queue 0."""
    rng = np.random.default_rng(seed)
    t_rtt = np.arange(rtts * PER_RTT) / PER_RTT
    gamma = GEQ * (1.0 + deviation(t_rtt) + noise * rng.standard_normal(t_rtt.size))
    return judgement_of_segment(t_rtt * D0, gamma, np.zeros_like(gamma), GEQ, 0.0, D0, CAPACITY, PER_RTT, 12000.0)


def test_the_noise_multiple_is_the_two_sided_gaussian_quantile_of_the_false_alarm_shared_out():
    import math

    from scipy.stats import norm

    for n in (1.0, 20.0, 40.0, 1e3, 1e6):
        k = noise_multiple(n)
        assert n * math.erfc(k / math.sqrt(2.0)) == pytest.approx(FALSE_ALARM, rel=1e-12)  # P(|Z| > K) n = alarm
        assert k == float(norm.isf(FALSE_ALARM / (2.0 * n)))  # scipy.stats' quantile, bit for bit
    assert NOISE_K > noise_multiple(1.0)


@pytest.mark.parametrize("seed", range(3))
def test_sustained_cycle_is_a_limit_cycle_with_its_period(seed):
    """+-6% at a period of 5 RTTs with 1% white noise per sample, 600 RTTs."""
    j = _judge(lambda t: 0.06 * np.sin(2 * np.pi * t / 5.0 + seed), seed)
    assert j.names[0] == "limit_cycle", j.reason[0]
    assert j.period_rtt[0] == pytest.approx(5.0, abs=0.15)
    assert j.amplitude_rate[0] == pytest.approx(0.06, rel=0.25)


@pytest.mark.parametrize("seed", range(3))
def test_noise_alone_is_converged(seed):
    assert _judge(lambda t: 0.0 * t, seed).codes[0] == CONVERGED


def test_fast_decay_is_converged():
    """From +-20% with an e-folding time of 50 RTTs: in the floor after about 60 RTTs."""
    j = _judge(lambda t: 0.2 * np.exp(-t / 50.0) * np.sin(2 * np.pi * t / 5.0))
    assert j.codes[0] == CONVERGED


@pytest.mark.parametrize("seed", range(3))
def test_slow_decay_that_would_reach_the_floor_in_a_run_is_not_a_cycle(seed):
    """From +-20% decaying at 0.002 per RTT: +-6% at the end of the 600 RTTs, three floors (2% band)
    above the floor, which it would reach in another 550 RTTs: not sustained. Its rate is measured."""
    j = _judge(lambda t: 0.2 * np.exp(-0.002 * t) * np.sin(2 * np.pi * t / 5.0), seed)
    assert j.codes[0] != LIMIT_CYCLE, j.reason[0]
    assert j.rate_per_rtt[0] == pytest.approx(-0.002, abs=0.001)


def test_coherence_threshold_holds_its_false_alarm_rate_on_noise():
    """One-RTT means of white noise over 300 RTTs: the dominant autocorrelation stays under the
    threshold in at least 97 of 100 draws (designed: 1%), and a sine with noise of equal power
    (rho about 1/2) is far above it."""
    rng = np.random.default_rng(1)
    threshold = coherence_threshold(300.0)
    hits = 0
    for _ in range(100):
        noise = rtt_average(rng.standard_normal(300 * PER_RTT), PER_RTT)
        hits += dominant_oscillation(noise, PER_RTT)[1] > threshold
    assert hits <= 3
    t = np.arange(300 * PER_RTT) / PER_RTT
    sine = np.sin(2 * np.pi * t / 6.0) + np.sqrt(0.5) * rtt_average(rng.standard_normal(t.size), PER_RTT) * 3.0
    assert dominant_oscillation(sine, PER_RTT)[1] > 2 * threshold


def test_fluid_traces_are_not_judged_by_rule_5b():
    """Without a noise floor (a fluid trace) the flat-envelope rule alone decides: a clean cycle over
    600 RTTs is a limit cycle by rule 5 and no coherence is measured."""
    t = np.arange(0, 600, 0.1)
    j = judge_trace(t, GEQ * (1 + 0.06 * np.sin(2 * np.pi * t / 5.0)), 0 * t, GEQ, 0.0, 1.0)
    assert j.names[0] == "limit_cycle" and "flat envelope" in j.reason[0]


def _stored(name):
    data = np.load(DATA)
    t, gamma, queue = data[f"{name}_t"], data[f"{name}_gamma"], data[f"{name}_queue_bytes"] * 8.0
    # the segment's equilibrium as the packet map computes it (standing queue, region.trace_segment_verdict)
    queue_eq = float(rtt_average(queue, PER_RTT)[queue.size // 2 :].mean())
    return t, gamma, queue, queue_eq


@pytest.mark.parametrize("name, alpha, beta", [("cycle", 1.2, 0.6), ("settled", 0.4, 0.2)])
def test_stored_packet_runs(name, alpha, beta):
    """fig5.3's 10-flow segment: at (1.2, 0.6) a coherent cycle of +-6% (period about 5.2 RTTs, as
    rcp-router's) is a limit cycle, no longer undecided; at (0.4, 0.2) the run is converged."""
    t, gamma, queue, queue_eq = _stored(name)
    delay = D0 + queue_eq / CAPACITY
    gamma_eq = (1.0 - beta * queue_eq / (alpha * delay * CAPACITY)) / 10
    j = judgement_of_segment(t, gamma, queue, gamma_eq, queue_eq, D0, CAPACITY, PER_RTT, 12000.0)
    if name == "cycle":
        assert j.names[0] == "limit_cycle", j.reason[0]
        assert j.period_rtt[0] == pytest.approx(5.2, abs=0.3)
        assert 0.03 < j.amplitude_rate[0] < 0.15
    else:
        assert j.codes[0] == CONVERGED
