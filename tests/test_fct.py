"""Flow-level traffic on the reference router (issue 16): closed forms, twins, conservation,
Little's law, reproducibility, and RCP's AFCT against processor sharing (thesis Ch. 4)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from rcpstab.errors import InputError
from rcpstab.fct import fct_study, lower_bound_fct, processor_sharing_fct
from rcpstab.fct.flow_run import CTRL_PACKET_BYTES, run_flows
from rcpstab.fct.ps import processor_sharing_sojourn
from rcpstab.fct.study import combine_runs
from rcpstab.packet.hosts.flow_traffic import parse_arrivals, parse_sizes

PKT = 1000  # bytes, thesis Ch. 4


def conserved(run) -> bool:
    c = run.counters
    return c["sent"] == c["delivered"] + c["dropped"] + c["in_flight"]


@pytest.mark.parametrize("backend", ["c", "python"])
@pytest.mark.parametrize("size", [1, 7, 200])
def test_one_flow_on_idle_link_takes_1p5_rtpd_plus_l_over_c(backend, size):
    C, rtt = 10e6, 0.1
    run = run_flows(
        0.4, 0.2, capacity_bps=C, rtt_s=rtt, load=0.5, sizes=parse_sizes(f"fixed:size={size}"), n_flows=1, backend=backend
    )
    (fct,) = run.fct_s
    bound = 1.5 * rtt + size * PKT * 8 / C
    assert abs(fct - bound) < PKT * 8 / C  # "to a packet"
    if size * PKT * 8 / C < rtt:
        # Sent before any ACK can bring a new rate: exactly the bound plus serialising the SYN
        # and the SYN-ACK (40 bytes each at C). Longer flows see the rate dip below C now
        # and then (the router measures whole packets per 10 ms interval).
        assert fct == pytest.approx(bound + 2 * CTRL_PACKET_BYTES * 8 / C, abs=1e-9)
    assert run.records["drops"][0] == 0 and conserved(run)


def test_ps_column_is_eq_4_1_at_each_bins_mean_size():
    C, rtt, rho = 20e6, 0.05, 0.7
    r = fct_study(0.4, 0.3, capacity_bps=C, rtt_s=rtt, load=rho, sizes=parse_sizes("exponential:mean=20"), n_flows=1500, seed=4)
    size = r.runs[0].records["size_pkts"]
    assert sum(b.flows for b in r.bins) == len(size) == 1500
    for b in r.bins:
        sel = (size >= b.size_lo_pkts) & (size <= b.size_hi_pkts)
        L = size[sel].mean() * PKT * 8
        assert b.ps_afct_s == pytest.approx(1.5 * rtt + L / (C * (1 - rho)), rel=1e-12)
        assert b.lower_bound_s == pytest.approx(1.5 * rtt + L / C, rel=1e-12)
        assert b.afct_s >= b.lower_bound_s  # nobody beats the link to themselves
    assert float(processor_sharing_fct(8000, 1e6, 0.1, 0.5)) == pytest.approx(0.15 + 0.016)
    assert float(lower_bound_fct(8000, 1e6, 0.1)) == pytest.approx(0.158)


def test_littles_law_holds_for_the_simulated_system():
    # Exponential sizes (finite variance) so the time average settles within the run.
    run = run_flows(
        0.4, 0.3, capacity_bps=20e6, rtt_s=0.05, load=0.6, sizes=parse_sizes("exponential:mean=15"), n_flows=8000, seed=11
    )
    r = combine_runs([run])
    assert len(run.records) == run.n_flows and conserved(run)
    gap = abs(r.mean_active - r.little_mean_active)
    assert gap < 4 * r.mean_active_stderr + 0.02 * r.little_mean_active, (
        r.mean_active,
        r.little_mean_active,
        r.mean_active_stderr,
    )
    assert r.mean_active_stderr < 0.1 * r.mean_active  # the check has teeth


@pytest.mark.parametrize("buffer_bdp, load", [(1.0, 0.9), (0.05, 0.9), (0.02, 0.95)])
def test_packets_are_conserved_and_every_flow_finishes(buffer_bdp, load):
    run = run_flows(
        0.9,
        0.1,
        capacity_bps=10e6,
        rtt_s=0.04,
        load=load,
        sizes=parse_sizes("pareto:mean=20,shape=1.2"),
        n_flows=600,
        buffer_bdp=buffer_bdp,
        seed=2,
    )
    c = run.counters
    assert conserved(run)
    assert len(run.records) == 600 and c["n_active"] == 0 and c["slots_used"] <= 1
    assert sorted(run.records["id"]) == list(range(600))
    # Drops charged to flows cannot exceed the drops that happened (late duplicates of
    # finished flows are the difference).
    assert run.records["drops"].sum() <= c["dropped"]
    if buffer_bdp < 0.1:
        assert c["dropped"] > 0  # the recovery paths ran


def test_twins_agree_event_for_event_with_drops():
    kw = dict(
        capacity_bps=5e6,
        rtt_s=0.04,
        load=0.9,
        sizes=parse_sizes("pareto:mean=10,shape=1.2"),
        n_flows=250,
        seed=3,
        buffer_bdp=0.1,
        arrivals=parse_arrivals("pareto:shape=1.5"),
    )
    a = run_flows(0.5, 0.2, backend="c", **kw)
    b = run_flows(0.5, 0.2, backend="python", **kw)
    assert a.counters["dropped"] > 0
    assert np.array_equal(a.records, b.records)
    assert a.counters == b.counters


def test_a_seed_reproduces_a_run_exactly():
    kw = dict(capacity_bps=10e6, rtt_s=0.05, load=0.8, sizes=parse_sizes("pareto:mean=25,shape=1.2"), n_flows=400)
    a, b, c = (run_flows(0.4, 0.2, seed=s, **kw) for s in (5, 5, 6))
    assert np.array_equal(a.records, b.records) and a.counters == b.counters
    assert not np.array_equal(
        a.records["size_pkts"][np.argsort(a.records["id"])], c.records["size_pkts"][np.argsort(c.records["id"])]
    )


def test_replications_do_not_depend_on_workers():
    kw = dict(
        capacity_bps=10e6, rtt_s=0.05, load=0.5, sizes=parse_sizes("exponential:mean=10"), n_flows=300, replications=3, seed=9
    )
    one = fct_study(0.4, 0.2, workers=1, **kw)
    two = fct_study(0.4, 0.2, workers=2, **kw)
    assert one.summary() == two.summary()


def test_size_distribution_means_are_exact_for_whole_packets():
    rng = np.random.default_rng(0)
    for text in ("pareto:mean=25,shape=3", "pareto:mean=1.3,shape=2.5", "exponential:mean=7"):
        d = parse_sizes(text)
        x = d.sample(rng, 2_000_000)
        assert x.min() >= 1
        assert x.mean() == pytest.approx(d.mean_packets, rel=3 * x.std() / math.sqrt(len(x)) / x.mean())


def test_offered_load_is_rho_for_light_tails():
    run = run_flows(
        0.4, 0.2, capacity_bps=20e6, rtt_s=0.05, load=0.7, sizes=parse_sizes("exponential:mean=10"), n_flows=6000, seed=1
    )
    assert run.measured_load == pytest.approx(0.7, rel=0.05)
    assert run.utilization == pytest.approx(run.measured_load, rel=0.05)  # no work is lost or invented


@pytest.mark.parametrize(
    "bad",
    [
        dict(load=1.0),
        dict(load=0.0),
        dict(load=-0.1),
        dict(load=float("nan")),
        dict(n_flows=0),
        dict(buffer_bdp=0),
        dict(alpha=0.0),
        dict(seed=-1),
        dict(capacity_bps=-1.0),
    ],
)
def test_bad_inputs_raise_input_error(bad):
    kw = dict(alpha=0.4, beta=0.2, capacity_bps=10e6, rtt_s=0.1, load=0.5, sizes=parse_sizes("fixed:size=2"), n_flows=2)
    kw.update(bad)
    alpha, beta = kw.pop("alpha"), kw.pop("beta")
    with pytest.raises(InputError):
        run_flows(alpha, beta, **kw)


@pytest.mark.parametrize(
    "text",
    [
        "pareto:mean=-5",
        "weibull:mean=3",
        "pareto:mean",
        "pareto",
        "fixed:size=abc",
        "pareto:mean=25,shape=1",
        "exponential:mean=5,shape=2",
        "fixed:size=0",
    ],
)
def test_malformed_sizes_raise_input_error(text):
    with pytest.raises(InputError):
        parse_sizes(text)


def test_exact_ps_queue_agrees_with_eq_4_1():
    # Two methods for PS: the M/G/1-PS closed form behind eq. 4.1, E[T | L] = L / (C (1 - rho)),
    # and an event-driven PS queue; exponential and Pareto(2.5) sizes, rho = 0.7.
    rng = np.random.default_rng(3)
    n, rho, C = 200_000, 0.7, 1e6
    for size in (rng.exponential(1e4, n), 1e4 * 1.5 / 2.5 * (1 + rng.pareto(2.5, n))):
        arrival = np.cumsum(rng.exponential(size.mean() / (rho * C), n))
        sojourn = processor_sharing_sojourn(arrival, size, C)
        assert np.mean(sojourn / size) * C == pytest.approx(1 / (1 - rho), rel=0.03)
    assert processor_sharing_sojourn([0.0, 1.0, 1.0], [2e6, 1e6, 1e6], 1e6).tolist() == pytest.approx([4.0, 3.0, 3.0])


# Thesis Ch. 4's headline: RCP's AFCT is close to PS for flows up to a few hundred packets
# at rho = 0.5 and 0.9. The network is Fig. 4.1's (C = 2.4 Gb/s, RTPD = 0.1 s, Pareto sizes
# of mean 25 packets and shape 1.2, 1 BDP buffer); the run is scaled down to 1e4 flows. Gains:
# the thesis' Ch. 4 (0.1, 1.0) and the recommended box's (0.5, 0.4).
# Pareto(1.2) has infinite variance: 1e4 flows draw noticeably less load than rho (0.70-0.82
# for 0.9), so each bin is compared with eq. 4.1 at rho and with an exact PS queue fed the same
# arrivals (the fair reference). For short flows the ratio is (1.5 RTPD + queueing) / 1.5 RTPD:
# FACTOR = 1.3 allows a mean queue of 0.45 RTPD, far above the 2% of C x RTPD the thesis
# reports for RCP (Fig. 4.13). Honest note: seeds 1 and 2 had been looked at (worst 1.06 and
# 1.15 at rho = 0.9) before FACTOR was fixed; experiments/fct.py reports further seeds.
FACTOR = 1.3
SHORT_PKTS = 255


@pytest.mark.parametrize("gains", [(0.1, 1.0), (0.5, 0.4)])
@pytest.mark.parametrize("rho", [0.5, 0.9])
def test_rcp_afct_within_factor_of_ps_for_short_flows(gains, rho):
    r = fct_study(
        *gains, capacity_bps=2.4e9, rtt_s=0.1, load=rho, sizes=parse_sizes("pareto:mean=25,shape=1.2"), n_flows=10000, seed=7
    )
    short = [b for b in r.bins if b.size_hi_pkts <= SHORT_PKTS and b.flows >= 20]
    assert len(short) >= 5
    for b in short:
        assert b.afct_over_ps <= FACTOR, (b, r.measured_load)
        assert b.afct_over_ps_same_arrivals <= FACTOR, (b, r.measured_load)
        assert b.afct_over_ps_same_arrivals >= 0.95  # PS is not beaten by short flows either
    assert r.flows_completed == r.flows
