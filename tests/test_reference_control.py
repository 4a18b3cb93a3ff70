"""App. F control path (lines 1-17) against updates computed by hand."""

import pytest

from rcpstab.errors import InputError
from rcpstab.packet.routers.rcp.control import RcpController, rate_register


def controller(**overrides):
    params = dict(link_rate=1250.0, alpha=0.4, beta=0.2, eta=1.0, rate=250.0, avg_rtt=100.0, mtu=1500)
    params.update(overrides)
    return RcpController(**params)


def test_update_with_larger_rtt_sample_matches_hand_computation():
    # Tr = 10 ms; 15000 B in => 1500 B/ms; RTT sample 1200/10 = 120 ms >= 100 ms, so the
    # weight is Tr/avg_rtt = 0.1 and avg_rtt = 0.1*120 + 0.9*100 = 102 ms.
    # rate = 250 * (1 + (10/102) * (0.4*(1250 - 1500) - 0.2*3000/102) / 1250)
    #      = 250 * (1 - 0.00830449827) = 247.923875433
    c = controller()
    next_tr = c.update(input_bytes=15_000, rtt_sum=1200, rtt_count=10, queue_bytes=3000, tr=10.0)
    assert c.avg_rtt == pytest.approx(102.0, rel=1e-12)
    assert c.rate == pytest.approx(247.923875433, rel=1e-10)
    assert next_tr == 10.0  # line 13: min(102, 10)


def test_smaller_rtt_sample_gets_the_asymmetric_weight():
    # Sample 50 ms < 100 ms: weight = (250/1250) * (50/100) * (10/100) = 0.01, avg_rtt = 99.5 ms.
    # Idle link: rate = 250 * (1 + (10/99.5) * 0.4) = 260.050251256
    c = controller()
    c.update(input_bytes=0, rtt_sum=500, rtt_count=10, queue_bytes=0, tr=10.0)
    assert c.avg_rtt == pytest.approx(99.5, rel=1e-12)
    assert c.rate == pytest.approx(260.050251256, rel=1e-10)


def test_rate_is_clamped_to_eta_times_link_rate():
    c = controller(eta=0.9, rate=1100.0)
    c.update(input_bytes=0, rtt_sum=0, rtt_count=0, queue_bytes=0, tr=10.0)
    assert c.rate == 0.9 * 1250.0


def test_rate_is_clamped_to_min_rate_and_interval_follows_small_rtt():
    # Sample 4 ms (weight 1 since it is >= the prior 2 ms); a huge queue drives the rate
    # negative, so it lands on MIN_RATE = 0.01 * 1500 / 4 = 3.75 B/ms; Tr = min(4, 10) = 4 ms.
    c = controller(avg_rtt=2.0)
    next_tr = c.update(input_bytes=0, rtt_sum=8, rtt_count=2, queue_bytes=10**9, tr=2.0)
    assert c.avg_rtt == 4.0
    assert c.rate == pytest.approx(3.75)
    assert next_tr == 4.0


def test_interval_without_rtt_samples_keeps_avg_rtt():
    c = controller()
    c.update(input_bytes=12_500, rtt_sum=0, rtt_count=0, queue_bytes=0, tr=10.0)
    assert c.avg_rtt == 100.0
    assert c.rate == 250.0  # input exactly eta*C, empty queue: a fixed point


def test_service_clears_counters_and_writes_the_rounded_rate():
    c = controller()
    regs = dict(input_bytes=15_000, rtt_sum=1200, rtt_count=10, queue_bytes=3000, rate=250)
    next_tr, writes = c.service(regs, 10.0)
    assert writes == {"rate": 248, "input_bytes": 0, "rtt_sum": 0, "rtt_count": 0}
    assert next_tr == 10.0


def test_rate_register_never_writes_unspecified_values():
    assert rate_register(0.2) == 1
    assert rate_register(1e12) == 0xFFFFFFFE
    assert (rate_register(249.4), rate_register(249.6)) == (249, 250)


@pytest.mark.parametrize("bad", [dict(alpha=0), dict(alpha=-1), dict(beta=-0.1), dict(eta=0), dict(eta=1.5)])
def test_bad_gains_raise_input_error_naming_the_value(bad):
    with pytest.raises(InputError, match=next(iter(bad))):
        controller(**bad)
