"""Issue 24, mechanism A: how the R-TCP sender's window raises RCP's settled rate.

The claims (notebook 07, experiments/fct_window_mechanism.py): the rate law pins a settled
router's mean queue to alpha (1 - u) C d / beta whatever the senders do; flows send at their
stamped rate with the window as without it; the window acts after a rate cut, when it shrinks
below the packets already in flight and holds the sender; a fluid model with the window as a
limit on the bits in flight predicts the settled-rate shift, and one whose window does not
shrink on a rate cut predicts none. Small set-ups on arrivals the reports do not use (seed 11,
1500 flows; the reports use seeds 1-3, 4000 flows).
"""

from __future__ import annotations

import numpy as np
import pytest

from rcpstab.fct.flow_run import draw_workload, run_flows
from rcpstab.fct.fluid_flows import fluid_flow_run
from rcpstab.packet.hosts.flow_traffic import ArrivalProcess, parse_sizes

C, D, LOAD, N, SEED = 20e6, 0.1, 0.85, 1500, 11
SIZES = parse_sizes("fixed:size=37")


def _census_run(**kw):
    r = run_flows(0.1, 1.0, capacity_bps=C, rtt_s=D, load=LOAD, sizes=SIZES, n_flows=N, seed=SEED, keep_trace=True, **kw)
    t0, t1 = r.window_s
    m = np.flatnonzero((r.trace["t_s"] > t0) & (r.trace["t_s"] <= t1))
    return r, r.trace, m


def test_the_census_is_the_same_in_c_and_in_the_python_twin_and_counts_the_rates_stamped():
    kw = dict(capacity_bps=5e6, rtt_s=0.04, load=0.8, sizes=parse_sizes("pareto:mean=10,shape=1.2"), n_flows=150, seed=4)
    a = run_flows(0.4, 0.5, backend="c", keep_trace=True, **kw)
    b = run_flows(0.4, 0.5, backend="python", keep_trace=True, **kw)
    for name in ("n_syn", "n_sending", "n_window_full", "stamped_bps"):
        assert np.array_equal(a.trace[name], b.trace[name]), name
    assert a.trace["n_sending"].max() > 3 and a.trace["n_window_full"].max() >= 1
    assert np.all(a.trace["n_syn"] + a.trace["n_sending"] <= a.trace["n_active"])
    # at a fixed router rate every sending flow holds that rate: the stamped sum is n_sending R
    fixed = run_flows(0.4, 0.5, keep_trace=True, fixed_rate_bps=1.2e6, **kw).trace
    assert np.array_equal(fixed["stamped_bps"], fixed["n_sending"] * 150 * 8000.0)  # 1.2 Mb/s = 150 bytes/ms


def test_the_rate_law_pins_the_mean_queue_with_and_without_the_window():
    # The law's budget of ln R over a window of length T: alpha (C - E[y]) - beta E[q] / d =
    # C d ln(R(t1) / R(t0)) / T, so a settled R (last term 0) pins E[q] = alpha (1 - u) C d / beta
    # whatever the senders do; the last term is what a window still in the descent from R = C pays.
    for kw in ({}, dict(sender_window=False)):
        r = run_flows(0.1, 1.0, capacity_bps=C, rtt_s=D, load=LOAD, sizes=SIZES, n_flows=3000, seed=SEED, keep_trace=True, **kw)
        tr, (t0, t1) = r.trace, r.window_s
        m = np.flatnonzero((tr["t_s"] > t0) & (tr["t_s"] <= t1))
        u, d = tr["input_bps"][m].mean() / C, tr["avg_rtt_ms"][m].mean() / 1e3
        pinned = 0.1 * (1 - u) * C * d / 8000.0
        falling = C * d * d * np.log(tr["R_over_C"][m[0] - 1] / tr["R_over_C"][m[-1]]) / (t1 - t0) / 8000.0
        assert tr["queue_bytes"][m].mean() / 1000 == pytest.approx(pinned + falling, rel=0.05), kw
        assert falling < 0.2 * pinned


def test_flows_send_at_their_rate_with_the_window_and_it_holds_them_after_a_rate_cut():
    with_w, tr, m = _census_run()
    without, tr0, m0 = _census_run(sender_window=False)
    assert with_w.mean_R_over_C > 1.1 * without.mean_R_over_C  # the window raises the settled rate
    sent = [t["input_bps"][i].sum() / t["stamped_bps"][i - 1].sum() for t, i in ((tr, m), (tr0, m0))]
    assert sent[0] == pytest.approx(sent[1], abs=0.02)  # ... not by sending below the rate
    cut = np.log(tr["R_over_C"][m - 1]) - np.log(tr["R_over_C"][m - 11])
    held = tr["n_window_full"][m] / np.maximum(tr["n_sending"][m], 1)
    assert held[cut < -0.2].mean() > 0.1 and held[np.abs(cut) < 0.05].mean() < 0.01
    assert tr0["n_window_full"].sum() == 0


@pytest.mark.slow
def test_a_fluid_window_on_the_bits_in_flight_predicts_the_shift_and_without_shrinking_none():
    start, size, warm = draw_workload(SIZES, ArrivalProcess(), N, LOAD, C, 1000, SEED)

    def rate(**kw):
        fl = fluid_flow_run(
            0.1, 1.0, capacity_bps=C, rtt_s=D, arrival_s=start, size_bits=size * 8000.0, packet_bits=8000.0, dt_s=0.001, **kw
        )
        w = (fl.t_s > start[warm]) & (fl.t_s <= start[-1])
        return float(np.mean(fl.R_bps[w]))

    packet = run_flows(0.1, 1.0, capacity_bps=C, rtt_s=D, load=LOAD, sizes=SIZES, n_flows=N, seed=SEED)
    packet0 = run_flows(0.1, 1.0, capacity_bps=C, rtt_s=D, load=LOAD, sizes=SIZES, n_flows=N, seed=SEED, sender_window=False)
    none = rate()
    shift = rate(window_mss_bits=7680.0, window="in_flight") / none
    assert shift == pytest.approx(packet.mean_R_over_C / packet0.mean_R_over_C, rel=0.06)
    assert rate(window_mss_bits=7680.0, window="in_flight", window_shrinks=False) / none == pytest.approx(1.0, abs=0.03)


def test_the_window_switches_refuse_bad_values_naming_them():
    from rcpstab.errors import InputError

    kw = dict(capacity_bps=1e6, rtt_s=0.1, arrival_s=[0.0], size_bits=[1e5], packet_bits=8000.0, window_mss_bits=7680.0)
    with pytest.raises(InputError, match="window='cap'"):
        fluid_flow_run(0.5, 0.4, window="cap", **kw)
    # alone on the link the in-flight window never binds: eq. 4.1's 1.5 d + L/C
    assert fluid_flow_run(0.5, 0.4, window="in_flight", **kw).fct_s[0] == pytest.approx(0.25, abs=1e-3)
    with pytest.raises(InputError, match="window_scale=0.5"):
        run_flows(0.1, 1.0, capacity_bps=C, rtt_s=D, load=LOAD, sizes=SIZES, n_flows=50, window_scale=0.5)
