"""Issue 24, item 4: the flow simulator's held-rate duration against the FCFS queue's, term by
term (rcpstab.fct.syn_wait). A small set-up (10 Mb/s, RTPD 20 ms, mean 8 packets, seed 7) not used
for the reported numbers (experiments/fct_syn_wait.py: Fig. A.3's set-up, seeds 1-5)."""

from __future__ import annotations

import numpy as np
import pytest

from rcpstab.errors import InputError
from rcpstab.fct.fixed_rate import fixed_rate_study, parse_bounded_pareto
from rcpstab.fct.flow_run import NS_PER_S, draw_workload, run_flows
from rcpstab.fct.syn_wait import fcfs_with_syn, syn_accounting
from rcpstab.packet.hosts.flow_traffic import ArrivalProcess

C, RTT, LOAD, N, SEED = 10e6, 0.02, 0.75, 1500, 7
SIZES = "bpareto:mean=8,shape=1.3,max=200"


def test_syn_holds_back_the_data_by_hand():
    # 1 b/s link, 1-bit packets, 0.5-bit SYNs, RTPD 10 s; flows at 0 (2 packets at 1 b/s) and 0.25 (1 packet).
    # SYN A leaves at 0.5, SYN B waits 0.25 and leaves at 1.0; A's data arrive at 11 and 12, B's at 11.5:
    # A0 served 11-12, B 12-13 (waits 0.5), A1 13-14 (waits 1).
    r = fcfs_with_syn([0.0, 0.25], [2, 1], 1.0, 1.0, 10.0, packet_bits=1.0, syn_bits=0.5)
    assert r.syn_wait.tolist() == [0.0, 0.25]
    assert r.last_wait.tolist() == [1.0, 0.5]
    # duration = SYN wait + 2 S/C + (L-1) P/R + W_last + P/C; FCT = duration + 1.5 RTPD ends at 14 + 5
    assert r.duration.tolist() == [0.0 + 1.0 + 1.0 + 1.0 + 1.0, 0.25 + 1.0 + 0.0 + 0.5 + 1.0]
    # without feedback B's data are released as if its SYN had not waited: 11.25, before A1
    nf = fcfs_with_syn([0.0, 0.25], [2, 1], 1.0, 1.0, 10.0, packet_bits=1.0, syn_bits=0.5, feedback=False)
    assert nf.last_wait.tolist() == [1.0, 0.75]


def test_bad_input_is_refused():
    with pytest.raises(InputError):
        fcfs_with_syn([1.0, 0.0], [1, 1], 1.0, 1.0, 1.0)


@pytest.fixture(scope="module")
def small():
    sizes = parse_bounded_pareto(SIZES)
    start, size, warm = draw_workload(sizes, ArrivalProcess(), N, LOAD, C, 1000, SEED)
    out = {}
    for frac in (1.0, 0.5):
        run = run_flows(
            0.1,
            1.0,
            capacity_bps=C,
            rtt_s=RTT,
            load=LOAD,
            sizes=sizes,
            n_flows=N,
            seed=SEED,
            fixed_rate_bps=frac * C,
            buffer_bdp=1000.0,
            sender_window=False,
        )
        rec = np.sort(run.records, order="id")
        assert len(rec) == N and run.counters["fwd_arrivals"] == N + size.sum()  # no drops, probes or resends
        out[frac] = (rec["fct_ns"] / NS_PER_S - 1.5 * RTT, run)
    return start, size, warm, out


@pytest.mark.parametrize("frac", [1.0, 0.5])
def test_extended_fcfs_is_the_flow_simulator(small, frac):
    start, size, _, out = small
    sim, _ = out[frac]
    ext = fcfs_with_syn(start, size, frac * C, C, RTT)
    acc = syn_accounting(start, size, frac * C, C, RTT)
    # the mean, and flow by flow to the nanosecond for 9 flows in 10 (what is left: integer-ns pacing, the
    # ACK direction's queue and the order of packets arriving in the same nanosecond)
    assert ext.duration.mean() == pytest.approx(sim.mean(), rel=1e-3)
    assert np.quantile(abs(sim - ext.duration), 0.9) < 1e-8
    # the plain FCFS queue (App. A's duration) misses the SYN: the terms are what part them
    assert acc["fcfs_s"] + sum(acc["terms_s"].values()) == pytest.approx(acc["extended_s"], rel=1e-12)
    assert sim.mean() - acc["fcfs_s"] > 0.1 * sim.mean()
    assert acc["terms_s"]["syn_wait"] > 0.1 * sim.mean()


def test_syn_wait_is_the_time_average_queue(small):
    # PASTA, second method: the flow simulator's SYN wait (its duration minus the extended model's data part)
    # against its own time-average queue over C, both over the measurement window
    start, size, warm, out = small
    sim, run = out[1.0]
    ext = fcfs_with_syn(start, size, C, C, RTT)
    inferred = (sim - (ext.duration - ext.syn_wait))[warm:].mean()
    assert inferred == pytest.approx(run.mean_queue_bytes * 8 / C, rel=0.1)
    assert inferred > 0.1 * sim.mean()


def test_fixed_rate_study_reports_the_fcfs_queue_with_the_syns():
    # RTPD 0.2 s: a 250-packet BDP, so the R-TCP window (rate x RTT) never holds back a flow of <= 200 packets
    sizes = parse_bounded_pareto(SIZES)
    out = fixed_rate_study([C], capacity_bps=C, rtt_s=0.2, load=LOAD, sizes=sizes, n_flows=800, seed=SEED + 1)
    (row,) = out["rows"]
    assert row["fcfs_syn_duration_s"] == pytest.approx(row["flowsim_duration_s"], rel=0.01)
    # without the SYN's wait the FCFS queue is short by about that wait
    missing = row["flowsim_duration_s"] - row["fcfs_duration_s"]
    assert missing > 0.5 * row["fcfs_syn_wait_s"] > 0
