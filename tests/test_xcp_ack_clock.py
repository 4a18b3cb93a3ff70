"""XCP's router loop closed by window senders (rcpstab.packet.lens.ack_clock; experiments/xcp_ack_clock.py).

Checked against a closed form: while the queue is empty and y < C, the ack clock repeats each
interval's input one round trip later plus the window change stamped an interval before, so the
per-interval means obey Y[k+1] = Y[k] + alpha (1 - Y[k-1]) exactly.
"""

import numpy as np
import pytest

from rcpstab.packet.lens import ack_clock as ack
from rcpstab.verdicts.judgement import CONVERGED, LIMIT_CYCLE


def test_ack_clock_follows_its_recursion_below_capacity():
    alpha = 0.2  # real roots of z**2 - z + alpha: a monotone approach from below, the queue stays empty
    means, queues = ack.xcp_loop(alpha, 0.3, True, rtts=40, y0=0.8)
    expected = [0.8, 0.8]
    for _ in range(38):
        expected.append(expected[-1] + alpha * (1.0 - expected[-2]))
    assert np.all(queues == 0.0)
    np.testing.assert_allclose(means[:, 0], expected, rtol=1e-9)


def test_ack_clock_is_more_stable_than_the_rate_state_at_the_same_router():
    """(0.7, 0.55): the rate state (xcp-router's hosts) cycles, the ack clock converges, as the packet run
    does; (1.3, 0.4): both cycle, as the packet run does (its cycle is the same at 10 and 100 Mb/s)."""
    codes = ack.verdicts([0.4, 0.7, 1.3], [0.226, 0.55, 0.4], True)
    assert list(codes) == [CONVERGED, CONVERGED, LIMIT_CYCLE]
    rate = ack.verdicts([0.4, 0.7, 1.3], [0.226, 0.55, 0.4], False)
    assert rate[0] == CONVERGED and rate[1] != CONVERGED and rate[2] != CONVERGED


@pytest.mark.parametrize("alpha, beta, rtts", [(0.3, 0.3, 200), (0.9, 0.55, 1600)])
def test_ack_clock_equilibrium_is_capacity_and_an_empty_queue(alpha, beta, rtts):
    """(0.9, 0.55) decays slowly (about 0.0055 per RTT: still +-1.3% at 400 RTTs), hence 1600 RTTs;
    (0.3, 0.3) is at capacity to rounding (7e-16) by 100 RTTs, so 200 (1600 cost 2.4 s of CPU more)."""
    means, queues = ack.xcp_loop(alpha, beta, True, rtts=rtts)
    assert means[-1, 0] == pytest.approx(1.0, abs=1e-4)
    assert queues[-1, 0] == pytest.approx(0.0, abs=1e-4)
