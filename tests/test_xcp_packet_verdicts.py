"""XCP packet verdicts: one-RTT means from the trace's own sampling, and the window quantum as a floor.

XCP's router samples once per control interval (its average RTT), so a one-RTT mean is one
sample; its senders are windows holding whole packets, so the aggregate input y is resolved to
one packet per flow per RTT (:func:`rcpstab.packet.lens.verdicts.judge_segment`). The
packet runs check the physics behind that floor: the cycle XCP keeps at fluid-stable gains
shrinks with the packets a window holds, staying within one quantum, while a cycle of the loop
itself (alpha = 1.3) keeps its size at 10x the link rate.
"""

import dataclasses

import numpy as np
import pytest

from rcpstab.packet.lens.region import run_verdict, trace_segment_verdict
from rcpstab.packet.lens.verdicts import judgement_of_segment
from rcpstab.packet.simulator.run import run_scenario
from rcpstab.packet.simulator.scenarios import get_scenario
from rcpstab.verdicts.judgement import CONVERGED, LIMIT_CYCLE

D0, CAPACITY, PACKET = 0.1, 10e6, 12000.0
N = 10
GEQ = 1.0 / N
QUANTUM = PACKET / (CAPACITY * D0 * GEQ)  # one packet per flow per RTT, relative to y_e: 0.12


def _cycle(amplitude, window_flows, seed=0, rtts=600):
    """A coherent cycle of y/(N C) (period 5 RTTs, one sample per RTT, a little white noise).

    (At one sample per RTT the autocorrelation resolves whole lags only: a 5.5-RTT cycle repeats
    exactly every 11 samples, and that is the period it reports.)
    """
    rng = np.random.default_rng(seed)
    t_rtt = np.arange(rtts, dtype=float)
    gamma = GEQ * (1.0 + amplitude * np.sin(2 * np.pi * t_rtt / 5.0) + 0.005 * rng.standard_normal(rtts))
    return judgement_of_segment(
        t_rtt * D0, gamma, np.zeros_like(gamma), GEQ, 0.0, D0, CAPACITY, 1, PACKET, window_flows=window_flows
    )


@pytest.mark.parametrize("seed", range(2))
def test_cycle_within_the_window_quantum_is_converged_for_window_senders_only(seed):
    assert QUANTUM == pytest.approx(0.12)
    assert _cycle(0.8 * QUANTUM, N, seed).codes[0] == CONVERGED
    # the same trace from rate-paced senders (no quantum): a sustained cycle
    assert _cycle(0.8 * QUANTUM, 0, seed).codes[0] == LIMIT_CYCLE


def test_cycle_beyond_the_window_quantum_stays_a_limit_cycle():
    j = _cycle(1.5 * QUANTUM, N)
    assert j.codes[0] == LIMIT_CYCLE, j.reason[0]
    assert j.period_rtt[0] == pytest.approx(5.0, abs=0.3)


def test_xcp_trace_is_judged_on_one_rtt_means_of_its_own_sampling():
    """XCP's trace steps by its control interval (about d0); the map judges its 10-flow segment of
    the paper's gains converged (10-sample means, i.e. 10-RTT ones, left it undecided or a cycle
    depending on the floor)."""
    run = run_scenario("fig5.3", 0.4, 0.226, protocol="xcp")
    step = np.median(np.diff(run.t[(run.t > 40) & (run.t < 100)]))
    assert step == pytest.approx(D0, rel=0.1)  # the average RTT: d0 plus the queue's delay
    code, _ = trace_segment_verdict(
        run.scenario, 0.4, 0.226, run.t, run.R_over_C, run.queue_bytes * 8.0, 40.0, 100.0, N, rate_offset=False, window_input=True
    )
    assert code == CONVERGED
    assert run_verdict(run)[0] == CONVERGED


def _cycle_in_quanta(capacity, packet_bytes, alpha, beta):
    """Half the 1st-99th percentile spread of y/C over the 10-flow stretch 70-100 s, in window quanta."""
    sc = dataclasses.replace(get_scenario("fig5.3"), capacity_bps=capacity, packet_bytes=packet_bytes)
    run = run_scenario(sc, alpha, beta, protocol="xcp")
    y = run.R_over_C[(run.t > 70) & (run.t < 100)] * N
    per_window = capacity * sc.rtt_s / (8 * packet_bytes) / N
    return (np.percentile(y, 99) - np.percentile(y, 1)) / 2 * per_window


def test_xcp_cycle_at_stable_gains_is_window_quantization():
    """8.3, 25 and 83 packets per window: the cycle at (0.4, 0.226) stays within 0.5-1 quantum, so
    its size in y/C falls ~10x from 10 to 100 Mb/s; at (1.3, 0.4) it is the loop's own: more than
    one quantum at 10 Mb/s and about 15 at 100 Mb/s (the same +-18% of C)."""
    for capacity, packet in ((10e6, 1500), (10e6, 500), (100e6, 1500)):
        assert 0.5 < _cycle_in_quanta(capacity, packet, 0.4, 0.226) < 1.0
    assert _cycle_in_quanta(10e6, 1500, 1.3, 0.4) > 1.2
    assert _cycle_in_quanta(100e6, 1500, 1.3, 0.4) > 10.0


def test_map_takes_one_rtt_means_of_the_trace_as_sampled():
    """A trace sampled once per RTT with a +-18% cycle of period 5 RTTs (the loop's own cycle at
    (1.3, 0.4)): a 10-sample mean (RCP's 10 ms interval at d0 = 100 ms) would average it away."""
    t_s = np.arange(0.0, 60.0, D0)
    gamma = GEQ * (1.0 + 0.18 * np.sin(2 * np.pi * t_s / (5 * D0) + 0.3))
    code, _ = trace_segment_verdict(
        get_scenario("fig5.3"), 1.3, 0.4, t_s, gamma, np.zeros_like(t_s), 0.0, 60.0, N, rate_offset=False, window_input=True
    )
    assert code == LIMIT_CYCLE
