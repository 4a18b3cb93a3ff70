"""Packet simulator: C and Python twins agree, packets are conserved, R/C reaches eta/N."""

import dataclasses
import math

import numpy as np
import pytest
from conftest import examples
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rcpstab.errors import InputError
from rcpstab.packet import _datapath
from rcpstab.packet.simulator.run import run_scenario
from rcpstab.packet.simulator.scenarios import FIG5_3, PoissonArrivals, Scenario
from rcpstab.packet.simulator.sim_py import PySimulator

GAINS = dict(alpha=0.4, beta=0.2)


def plateau_median(run, values, t0, t1):
    mask = (run.t >= t0) & (run.t < t1)
    assert mask.sum() > 10
    return float(np.median(values[mask]))


def assert_same_run(a, b):
    for name in ("t", "R_over_C", "queue_bytes", "n_active", "throughput_t", "flow_throughput_bps"):
        np.testing.assert_array_equal(getattr(a, name), getattr(b, name), err_msg=name)
    np.testing.assert_array_equal(a.flow_completion_s, b.flow_completion_s)
    assert a.counters == b.counters


small_scenarios = st.builds(
    lambda cap, rtt, share, eta, flows, buffer_pkts, poisson: Scenario(
        name="random",
        capacity_bps=cap,
        rtt_s=rtt,
        eta=eta,
        long_flows=tuple(flows),
        t_end_s=2.0,
        forward_delay_share=share,
        buffer_bytes=buffer_pkts * 1500,
        poisson=PoissonArrivals(rate_per_s=5.0, mean_size_bytes=20_000) if poisson else None,
    ),
    cap=st.sampled_from([1e6, 2e6, 5e6]),
    rtt=st.floats(0.005, 0.15),
    share=st.sampled_from([0.0, 0.5, 1.0]),
    eta=st.sampled_from([0.9, 1.0]),
    flows=st.lists(st.tuples(st.floats(0, 1.0), st.floats(0.05, 3.0)).map(lambda f: (f[0], f[0] + f[1])), min_size=1, max_size=4),
    buffer_pkts=st.integers(1, 20),
    poisson=st.booleans(),
)


@settings(max_examples=examples(60), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(small_scenarios, st.integers(0, 2**31 - 1))
def test_c_and_python_simulators_give_identical_traces(scenario, seed):
    c = run_scenario(scenario, **GAINS, seed=seed, backend="c")
    py = run_scenario(scenario, **GAINS, seed=seed, backend="python")
    assert_same_run(c, py)
    k = c.counters
    assert k["sent"] == k["delivered"] + k["dropped"] + k["in_flight"]


def test_packets_are_conserved_through_drops_and_mid_run():
    lossy = dataclasses.replace(FIG5_3, name="lossy", buffer_bytes=3 * 1500, initial_R_over_C=1.0)
    run = run_scenario(lossy, **GAINS, t_end=45.0)
    k = run.counters
    assert k["dropped"] > 0  # the 2-packet buffer and a 5x overload at start must drop
    assert k["in_flight"] > 0
    assert k["sent"] == k["delivered"] + k["dropped"] + k["in_flight"]


def test_same_seed_same_run_and_seed_changes_poisson_arrivals():
    web = dataclasses.replace(FIG5_3, name="web", long_flows=((0.0, math.inf),), poisson=PoissonArrivals(20.0, 30_000.0))
    a, b, other = (run_scenario(web, **GAINS, seed=s, t_end=5.0) for s in (1, 1, 2))
    assert_same_run(a, b)
    assert len(a.flow_completion_s) != len(other.flow_completion_s) or not np.array_equal(
        a.flow_completion_s, other.flow_completion_s, equal_nan=True
    )
    finished = a.flow_completion_s[~np.isnan(a.flow_completion_s)]
    assert len(finished) > 0.8 * len(a.flow_completion_s)
    assert a.counters["flows_done"] == len(finished)


def test_fig5_3_plateaus_at_one_fifth_one_tenth_one_fifth():
    run = run_scenario("fig5.3", **GAINS)
    for (t0, t1), expected in (((20, 40), 0.2), ((60, 100), 0.1), ((120, 150), 0.2)):
        assert plateau_median(run, run.R_over_C, t0, t1) == pytest.approx(expected, rel=0.03)
        assert plateau_median(run, run.n_active, t0, t1) == round(1 / expected)
    # each long flow gets its fair share of the link while all ten are active
    window = (run.throughput_t > 60) & (run.throughput_t <= 100)
    share = run.flow_throughput_bps[window].mean(axis=0) / FIG5_3.capacity_bps
    np.testing.assert_allclose(share, 0.1, rtol=0.05)


def test_testbed_C_over_R_tracks_the_number_of_flows():
    run = run_scenario("testbed", **GAINS)
    eta = run.scenario.eta
    for t0, t1, flows in ((10, 20, 1), (30, 40, 2), (50, 60, 3), (70, 100, 4), (110, 120, 3), (130, 140, 2), (150, 160, 1)):
        assert plateau_median(run, eta / run.R_over_C, t0, t1) == pytest.approx(flows, rel=0.03)
        assert run.scenario.n_flows((t0 + t1) / 2) == flows


def test_sender_falls_back_to_tcp_without_rcp_routers():
    # No RCP port on the path: no rate ever comes back, and a 3-packet buffer forces losses.
    links = [(10_000_000, 10_000_000, 4500, False), (10_000_000, 10_000_000, 10**6, False)]
    flows = [(0, -1, 300, 0, 0, 1), (0, -1, 300, 0, 0, 1)]
    args = dict(links=links, paths=[(0,), (1,)], flows=flows, data_size=1500, ctrl_size=52,
                window_denominator=1480, rwnd_pkts=4096)  # fmt: skip
    sims = [_datapath.Simulator(**args), PySimulator(**args)]
    for sim in sims:
        sim.run_until(30_000_000_000)
    k = sims[0].counters()
    assert k == sims[1].counters()
    assert k["flows_done"] == 2 and k["dropped"] > 0
    assert sims[0].flow_stats()[0] == [300 * 1500, 300 * 1500]
    assert k["sent"] == k["delivered"] + k["dropped"] + k["in_flight"]


@pytest.mark.parametrize(
    "call,match",
    [
        (lambda: run_scenario("nope", **GAINS), "unknown scenario 'nope'"),
        (lambda: run_scenario("fig5.3", alpha=0.0, beta=0.2), "alpha=0.0"),
        (lambda: run_scenario("fig5.3", alpha=-1, beta=0.2), "alpha=-1"),
        (lambda: run_scenario("fig5.3", alpha=0.4, beta=-0.1), "beta=-0.1"),
        (lambda: run_scenario(dataclasses.replace(FIG5_3, buffer_bytes=0), **GAINS), "buffer_bytes=0"),
        (lambda: run_scenario(dataclasses.replace(FIG5_3, rtt_s=-0.1), **GAINS), "rtt_s=-0.1"),
        (lambda: run_scenario("fig5.3", **GAINS, backend="java"), "backend='java'"),
    ],
)
def test_bad_input_raises_one_line_input_error(call, match):
    with pytest.raises(InputError, match=match) as info:
        call()
    assert "\n" not in str(info.value)


def test_a_request_below_the_router_rate_is_kept_and_an_unspecified_one_gets_the_link():
    # One flow on 10 Mb/s (eta 1) asking for 2 Mb/s in its headers: the router never raises a
    # request (App. F line 22), the receiver echoes it, the sender paces at it, while the
    # router's own rate climbs to eta*C. The same flow with request 0 gets the whole link.
    capped = dataclasses.replace(FIG5_3, name="capped", long_flows=((0.0, math.inf),), request_bps=2e6)
    free = dataclasses.replace(FIG5_3, name="free", long_flows=((0.0, math.inf),))
    capped_run = run_scenario(capped, **GAINS, t_end=20.0)
    late = capped_run.throughput_t > 10
    assert capped_run.flow_throughput_bps[late, 0].mean() == pytest.approx(2e6, rel=0.02)
    assert plateau_median(capped_run, capped_run.R_over_C, 10, 20) == pytest.approx(1.0, rel=1e-6)
    free_run = run_scenario(free, **GAINS, t_end=20.0)
    assert free_run.flow_throughput_bps[late, 0].mean() == pytest.approx(10e6, rel=0.03)
